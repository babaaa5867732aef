"""The learning benchmark's GRPO step: it updates from the shipped reward's differences within a group, and
leaves the model alone when a group's rewards are all equal; its episodes run through the real tools."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
import torch
from _support.benchmarks import load_benchmark

from aspen_rl.llm.tiny_bytes import build_tiny_model
from aspen_rl.llm.types import CallRecord
from aspen_rl.tasks import load_tasks
from aspen_rl.trace import RunTrace

ROOT = Path(__file__).resolve().parents[2]


def _episodes_module() -> ModuleType:
    return load_benchmark("learning_episodes")


def _episode(lib: ModuleType, answer: str, completion: list[int]) -> object:
    task = load_tasks(ROOT / "data" / "generated" / "eval.jsonl")[0]
    trace = RunTrace()
    trace.final_answer = answer
    record = CallRecord("r", None, 0, [1, 2, 3], completion, [0.0] * len(completion), "stop", 0.0, 0.0)
    return lib.Episode(task, trace, {}, [], records=[record], done=True)


def _weights(model: torch.nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().flatten().clone() for p in model.parameters()])


@pytest.mark.parametrize("bf16", [False, True])
def test_a_group_with_different_rewards_moves_the_model_and_a_flat_group_does_not(bf16: bool) -> None:
    """Also under bf16 autocast, which must leave the weights float32."""
    lib = _episodes_module()
    model = build_tiny_model(16, hidden_size=16, num_layers=1, num_heads=2, seed=0)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    # the shipped reward: a text answer without invented numbers earns a little; no answer earns 0
    flat = [_episode(lib, "", [4, 5]), _episode(lib, "", [6, 7])]
    before = _weights(model)
    step = lib.grpo_step(model, optimizer, [flat], pad_token_id=0, max_length=64, bf16=bf16)
    assert (step.zero_variance_groups, step.rows, step.reward) == (1, 0, 0.0)
    assert torch.equal(_weights(model), before)
    assert set(step.pushes.values()) == {0.0}

    varied = [_episode(lib, "The run did not converge.", [4, 5]), _episode(lib, "", [6, 7])]
    step = lib.grpo_step(model, optimizer, [varied], pad_token_id=0, max_length=64, bf16=bf16)
    assert step.zero_variance_groups == 0 and step.rows == 2
    assert step.reward > 0
    # the answered episode earned more: the step favours answering, and nothing else told them apart
    assert step.pushes["answered"] > 0.3  # advantages +-1/sqrt(2) (std over n - 1), over 2
    assert {k: v for k, v in step.pushes.items() if k != "answered"} == dict.fromkeys(lib.PUSHED[1:], 0.0)
    assert not torch.equal(_weights(model), before)
    assert all(p.dtype == torch.float32 for p in model.parameters())


def test_a_kl_anchor_holds_the_policy_near_its_reference() -> None:
    """With ``beta`` the step reports the KL to the reference (0 while the policy is the reference, then
    > 0), and 6 steps on the same groups move a strongly anchored policy less from its start than an
    unanchored one from the same weights and optimiser."""
    import copy

    lib = _episodes_module()
    varied = [_episode(lib, "The run did not converge.", [4, 5, 6]), _episode(lib, "", [6, 7, 8])]

    def drift(beta: float) -> tuple[list[float], float]:
        model = build_tiny_model(16, hidden_size=16, num_layers=1, num_heads=2, seed=0)
        start = _weights(model)
        reference = copy.deepcopy(model).eval().requires_grad_(False)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
        kls = [
            lib.grpo_step(
                model, optimizer, [varied], pad_token_id=0, max_length=64, ref_model=reference, beta=beta
            ).kl
            for _ in range(6)
        ]
        return kls, float((_weights(model) - start).norm())

    free_kls, free = drift(0.0)
    anchored_kls, anchored = drift(5.0)
    assert free_kls == [None] * 6  # no anchor, nothing measured
    assert anchored_kls[0] == pytest.approx(0.0, abs=1e-7) and all(k > 0 for k in anchored_kls[1:])
    assert anchored < 0.9 * free


async def test_an_episode_reports_which_parts_of_the_task_its_best_config_kept(tmp_path: Path) -> None:
    """``kept_*`` names the aspect a config got wrong (what to fix next), from the configs the episode
    really ran through the tools: the reference config keeps everything; with another property method
    only ``kept_method`` drops and the fidelity halves; no config keeps nothing."""
    import copy
    import json

    from aspen_rl.datagen.regenerate import in_process_client
    from aspen_rl.tools import build_tools

    lib = _episodes_module()
    task = load_tasks(ROOT / "data" / "generated" / "eval.jsonl")[0]
    assert task.reference_config is not None
    other = copy.deepcopy(task.reference_config)
    method = other["property_methods"][0]["method_name"]
    other["property_methods"][0]["method_name"] = "PENG-ROB" if method != "PENG-ROB" else "NRTL"
    scores = []
    async with in_process_client(tmp_path) as client:
        for config in (task.reference_config, other, None):
            trace = RunTrace()
            run_simulation = build_tools(client, trace)[1]
            if config is not None:
                await run_simulation(json.dumps(config))
            scores.append(lib.Episode(task, trace, {}, [], done=True).score())
    right, wrong_method, nothing = scores
    aspects = ("components", "method", "blocks", "topology", "feeds", "specs")
    assert [right[f"kept_{a}"] for a in aspects] == [1.0] * 6 and right["faithful"] == 1.0
    assert [wrong_method[f"kept_{a}"] for a in aspects] == [1.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    assert wrong_method["faithful"] == 0.5
    assert [nothing[f"kept_{a}"] for a in aspects] == [0.0] * 6
    assert right["kept_names"] == 1.0 and nothing["kept_names"] == 0.0
    renamed = copy.deepcopy(task.reference_config)  # block B1 and stream PROD-1 under the prior's ids
    renamed["blocks"][0]["name"] = "H9"
    renamed["streams"] = [renamed["streams"][0], "OUT-9"]
    assert lib.kept_names(task, renamed) == pytest.approx(1 / 3)  # FEED-1 kept; B1 and PROD-1 not


def test_pushes_is_the_advantage_weighted_mean_of_each_feature() -> None:
    """Two groups of two: in the first the answered episode scores higher, in the second the one that ran a
    simulation scores lower; advantages are +-1/sqrt(2) (GRPO's std over n - 1), so over 4 episodes answered
    gets +0.177 and simulated -0.177."""
    lib = _episodes_module()

    def score(reward: float, answered: float, simulated: float) -> dict[str, float]:
        return {
            **dict.fromkeys(lib.PUSHED, 0.0),
            "reward": reward,
            "answered": answered,
            "simulated": simulated,
        }

    groups = [
        [score(0.09, 1.0, 0.0), score(0.03, 0.0, 0.0)],
        [score(0.05, 0.0, 1.0), score(0.07, 0.0, 0.0)],
    ]
    pushed = lib.pushes(groups)
    assert pushed["answered"] == pytest.approx(0.5**0.5 / 4, abs=3e-3)
    assert pushed["simulated"] == pytest.approx(-(0.5**0.5) / 4, abs=3e-3)  # eps in the std
    assert pushed["json"] == 0.0


async def test_the_answer_rung_replays_the_reference_so_its_own_answer_scores_full_marks() -> None:
    """The ladder judges the answer turn on the reference's earlier calls replayed on a fresh mock, where a
    run gets a new result path: the reference's ``get_result`` must read the replayed run, so the
    reference's own answer scores what it was recorded at (1.0), and no answer only the work's share."""
    from aspen_rl.datagen.demos import record_demos
    from aspen_rl.reward import compute_reward

    lib = _episodes_module()
    task = load_tasks(ROOT / "data" / "generated" / "eval.jsonl")[0]
    async with lib.learning_mock() as client:
        (demo,), dropped = await record_demos([task], client)
    assert dropped == []
    *earlier, answer = demo["messages"]
    scores = {}
    for text in (answer["content"], ""):
        trace = await lib.replay(earlier)
        trace.final_answer = text
        scores[text] = compute_reward(task, trace)
    right, silent = scores[answer["content"]], scores[""]
    assert right.total == pytest.approx(1.0)
    assert (right.details["calls.failed"], right.details["funnel.read"]) == (0.0, 1.0)
    assert silent.details["funnel.read"] == 1.0  # the same calls: only the answer differs
    # the work done (completion 0.4, tool efficiency 0.3) and nothing reported (response quality 0 of 0.3)
    assert (silent.total, silent.response_quality) == (pytest.approx(0.7), 0.0)


async def test_seeded_episodes_sample_the_same_tokens_whatever_drew_from_the_global_rng_before() -> None:
    """GRPO episodes are seeded per step: what an evaluation sampled before (``--eval-samples``) must not
    change them, and the global RNG is left as it was found. Unseeded, the same call samples otherwise."""
    from aspen_rl.llm.tiny_bpe import build_tiny_bpe_model

    lib = _episodes_module()
    tasks = load_tasks(ROOT / "data" / "generated" / "eval.jsonl")[:2]
    transcript = {"messages": [{"role": "user", "content": task.user_requirement} for task in tasks]}
    model, tokenizer = build_tiny_bpe_model(
        [transcript], vocab_size=300, hidden_size=32, num_layers=1, num_heads=2
    )

    async def sampled(global_seed: int, seed: int | None) -> list[list[int]]:
        torch.manual_seed(global_seed)
        episodes = await lib.run_episodes(
            model, tokenizer, tasks, temperature=1.0, max_turns=1, max_new=12, seed=seed
        )
        return [episode.records[0].completion_ids for episode in episodes]

    first = await sampled(1, seed=7)
    after = torch.rand(1)
    torch.manual_seed(1)
    assert torch.equal(after, torch.rand(1))  # the seeded draw left the global RNG where it was
    assert await sampled(2, seed=7) == first
    assert await sampled(2, seed=8) != first
    assert await sampled(1, seed=None) != await sampled(2, seed=None)
