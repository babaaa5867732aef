"""GRPOTrainer: step metrics, skipped groups, exact gradient accumulation, KL, checkpoints, engine sync."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import torch

from aspen_rl.algorithms.grpo.checkpoint import latest_checkpoint
from aspen_rl.algorithms.grpo.config import GRPOConfig
from aspen_rl.algorithms.grpo.trainer import GRPOTrainer
from aspen_rl.llm.engine import TransformersEngine
from aspen_rl.llm.loading import quiet_peft
from aspen_rl.llm.tiny_bytes import build_tiny_model
from aspen_rl.llm.types import RolloutSample, SamplingParams, TrajectoryRow


def make_groups(seed: int, tasks: int = 2, group: int = 4, vocab: int = 261) -> list[list[RolloutSample]]:
    """Two-turn rows (prompt, completion, tool tokens, completion) with rewards that vary in the group."""
    rng = random.Random(seed)
    groups = []
    for _ in range(tasks):
        samples = []
        for g in range(group):
            prompt = [rng.randrange(vocab) for _ in range(5)]
            first = [rng.randrange(vocab) for _ in range(rng.randrange(2, 6))]
            tool = [rng.randrange(vocab) for _ in range(3)]
            second = [rng.randrange(vocab) for _ in range(rng.randrange(1, 4))]
            ids = prompt + first + tool + second
            mask = [0] * 5 + [1] * len(first) + [0] * 3 + [1] * len(second)
            logprobs = [-rng.uniform(4.0, 7.0) if m else 0.0 for m in mask]
            samples.append(RolloutSample([TrajectoryRow(ids, mask, logprobs)], reward=float(g % 2) + 0.1 * g))
        groups.append(samples)
    return groups


def params(model: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.named_parameters() if v.requires_grad}


def test_step_reports_metrics_and_changes_the_policy(
    chat_model: torch.nn.Module, cpu_config: GRPOConfig
) -> None:
    trainer = GRPOTrainer(cpu_config, model=chat_model)
    before = params(trainer.model)
    groups = make_groups(0)
    groups[0][0].prefix_breaks = 2
    metrics = trainer.step(groups)
    assert trainer.global_step == 1 and metrics["step"] == 1
    assert metrics["groups"] == 2 and metrics["rollouts"] == 8 and metrics["zero_variance_groups"] == 0
    assert metrics["prefix_breaks"] == 2
    assert metrics["tokens"] == sum(r.num_loss_tokens for g in groups for s in g for r in s.rows)
    assert metrics["reward_mean"] == pytest.approx(sum(s.reward for g in groups for s in g) / 8)
    assert metrics["grad_norm"] > 0 and metrics["updates"] == 1 and metrics["skipped"] == 0
    assert metrics["ratio_mean"] == pytest.approx(1.0) and metrics["clip_fraction"] == 0.0
    assert any(not torch.equal(before[k], v) for k, v in params(trainer.model).items())


def test_groups_of_rows_and_reward_pairs(chat_model: torch.nn.Module, cpu_config: GRPOConfig) -> None:
    trainer = GRPOTrainer(cpu_config, model=chat_model)
    (group,) = make_groups(11, tasks=1)
    metrics = trainer.step([[(s.rows, s.reward) for s in group]])
    assert metrics["rollouts"] == 4 and metrics["tokens"] == sum(s.rows[0].num_loss_tokens for s in group)


def test_zero_variance_groups_are_skipped(chat_model: torch.nn.Module, cpu_config: GRPOConfig) -> None:
    trainer = GRPOTrainer(cpu_config, model=chat_model)
    before = params(trainer.model)
    groups = make_groups(1)
    for group in groups:
        for sample in group:
            sample.reward = 0.5
    metrics = trainer.step(groups)
    assert metrics["zero_variance_groups"] == 2 and metrics["skipped"] == 1 and metrics["tokens"] == 0
    assert all(torch.equal(before[k], v) for k, v in params(trainer.model).items())
    # one informative group is enough to update, the flat one contributes nothing
    groups[1] = make_groups(2)[0]
    metrics = trainer.step(groups)
    assert metrics["zero_variance_groups"] == 1 and metrics["skipped"] == 0
    assert metrics["tokens"] == sum(s.rows[0].num_loss_tokens for s in groups[1])


@pytest.mark.parametrize("aggregation", ["rollout_mean", "token_mean", "sequence_mean"])
def test_gradient_accumulation_is_exact(tokenizer: Any, cpu_config: GRPOConfig, aggregation: str) -> None:
    results = []
    for micro in (1, 3, 16):
        cfg = cpu_config.replace(micro_batch_size=micro, loss_aggregation=aggregation)
        trainer = GRPOTrainer(cfg, model=build_tiny_model(len(tokenizer), seed=0))
        results.append(trainer.step(make_groups(3)))
    for other in results[1:]:
        assert other["loss"] == pytest.approx(results[0]["loss"], rel=1e-5, abs=1e-7)
        assert other["grad_norm"] == pytest.approx(results[0]["grad_norm"], rel=1e-5)


def test_off_policy_passes_clip_and_the_kl_term_is_reported(
    chat_model: torch.nn.Module, cpu_config: GRPOConfig
) -> None:
    cfg = cpu_config.replace(num_iterations=3, minibatches_per_step=2, learning_rate=3e-2, beta=0.1)
    trainer = GRPOTrainer(cfg, model=chat_model)
    assert trainer.ref_model is not None
    metrics = trainer.step(make_groups(4))
    assert metrics["updates"] == 6
    assert metrics["ratio_mean"] != pytest.approx(1.0, abs=1e-6)
    assert metrics["clip_fraction"] > 0 and metrics["kl"] > 0


def test_lora_reference_is_the_base_model(chat_model: torch.nn.Module, cpu_config: GRPOConfig) -> None:
    cfg = cpu_config.replace(lora={"enabled": True, "r": 4, "alpha": 8}, beta=0.1)
    trainer = GRPOTrainer(cfg, model=chat_model)
    assert trainer.ref_model is None  # the adapter-disabled policy is the reference, no copy
    first = trainer.step(make_groups(5))
    assert first["kl"] == pytest.approx(0.0, abs=1e-7)  # LoRA B starts at 0: policy == reference
    second = trainer.step(make_groups(6))
    assert second["kl"] > 0


@pytest.mark.parametrize("lora", [False, True])
def test_checkpoint_resume_restores_state_exactly(
    tokenizer: Any, cpu_config: GRPOConfig, tmp_path: Path, lora: bool
) -> None:
    cfg = cpu_config.replace(lora={"enabled": lora, "r": 4, "alpha": 8}, warmup_steps=3)
    first = GRPOTrainer(cfg, model=build_tiny_model(len(tokenizer), seed=0), tokenizer=tokenizer)
    first.step(make_groups(7))
    path = first.save_checkpoint(cfg.checkpoint_path(first.global_step))
    assert path == tmp_path / "models" / "test" / "step_1"
    assert (path / "model" / ("adapter_config.json" if lora else "config.json")).is_file()
    draw_first = torch.rand(3)
    after_first = first.step(make_groups(8))

    # a fresh trainer whose trainable weights differ, resumed from the checkpoint (an adapter checkpoint
    # holds the adapter only: the base weights come from config.model, the same base here)
    second = GRPOTrainer(
        cfg, model=build_tiny_model(len(tokenizer), seed=0 if lora else 99), tokenizer=tokenizer
    )
    with torch.no_grad():
        for p in second.params:
            p.normal_()
    state = second.load_checkpoint(latest_checkpoint(cfg.run_dir()) or path)
    assert state["global_step"] == 1 and second.global_step == 1
    draw_second = torch.rand(3)
    after_second = second.step(make_groups(8))

    assert torch.equal(draw_first, draw_second)
    assert after_first["loss"] == after_second["loss"] and after_first["lr"] == after_second["lr"]
    a, b = params(first.model), params(second.model)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    full_a, full_b = first.model.state_dict(), second.model.state_dict()
    assert all(torch.equal(full_a[k], full_b[k]) for k in full_a)


def _lr_before_each_step(trainer: GRPOTrainer, seeds: range) -> list[float]:
    """The learning rate each step's update used (read before the step) and the weights after."""
    used = []
    for seed in seeds:
        used.append(trainer.optimizer.param_groups[0]["lr"])
        trainer.step(make_groups(seed))
    return used


def test_resume_continues_the_uninterrupted_lr_schedule(
    tokenizer: Any, cpu_config: GRPOConfig, tmp_path: Path
) -> None:
    cfg = cpu_config.replace(warmup_steps=10)
    uninterrupted = GRPOTrainer(cfg, model=build_tiny_model(len(tokenizer), seed=0), tokenizer=tokenizer)
    expected = _lr_before_each_step(uninterrupted, range(3))
    assert expected == pytest.approx([1e-4, 2e-4, 3e-4])

    first = GRPOTrainer(cfg, model=build_tiny_model(len(tokenizer), seed=0), tokenizer=tokenizer)
    assert _lr_before_each_step(first, range(2)) == expected[:2]
    path = first.save_checkpoint(cfg.checkpoint_path(first.global_step))
    resumed = GRPOTrainer(cfg, model=build_tiny_model(len(tokenizer), seed=0), tokenizer=tokenizer)
    resumed.load_checkpoint(path)
    assert resumed.scheduler.last_epoch == 2 and resumed.optimizer_steps == 2
    assert _lr_before_each_step(resumed, range(2, 3)) == [expected[2]]
    assert resumed.scheduler.get_last_lr() == uninterrupted.scheduler.get_last_lr() == pytest.approx([4e-4])
    a, b = params(uninterrupted.model), params(resumed.model)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_resume_refuses_changed_optimisation_fields(
    tokenizer: Any, cpu_config: GRPOConfig, tmp_path: Path
) -> None:
    first = GRPOTrainer(cpu_config, model=build_tiny_model(len(tokenizer), seed=0), tokenizer=tokenizer)
    first.step(make_groups(0))
    first.step(make_groups(1))
    path = first.save_checkpoint(cpu_config.checkpoint_path(2))

    # the reviewer's case: saved lr 1e-3, resumed with lr 5e-2 and a warm-up of 10
    changed = cpu_config.replace(learning_rate=5e-2, warmup_steps=10, epsilon_high=0.3, steps=200)
    second = GRPOTrainer(changed, model=build_tiny_model(len(tokenizer), seed=0), tokenizer=tokenizer)
    with pytest.raises(ValueError, match="cannot resume") as refused:
        second.load_checkpoint(path)
    message = str(refused.value)
    assert "learning_rate: 0.001 -> 0.05" in message and "warmup_steps: 0 -> 10" in message
    assert "epsilon_high: 0.28 -> 0.3" in message
    assert "\n  steps:" not in message  # more steps is what resuming is for
    assert second.global_step == 0  # nothing was restored

    # explicitly allowed: the new config rules, at the schedule's position of the restored step
    second.load_checkpoint(path, allow_config_changes=True)
    assert second.optimizer.param_groups[0]["lr"] == pytest.approx(5e-2 * 3 / 10)
    metrics = second.step(make_groups(2))
    assert metrics["lr"] == pytest.approx(5e-2 * 4 / 10)


def test_lora_dropout_is_refused_by_the_config(cpu_config: GRPOConfig) -> None:
    from aspen_rl.algorithms.grpo.config import GRPOConfigError

    with pytest.raises(GRPOConfigError, match=r"lora\.dropout.*not supported"):
        cpu_config.replace(lora={"enabled": True, "dropout": 0.1})


@pytest.mark.parametrize(
    "arch, lora, extra",
    [
        ("qwen2", True, {"attention_dropout": 0.5}),  # functional dropout from a float rate
        ("qwen2", "peft", {}),  # a peft model wrapped outside the trainer, lora_dropout 0.5
        ("gpt2", False, {"resid_pdrop": 0.5, "attn_pdrop": 0.5, "embd_pdrop": 0.5}),
    ],
)
def test_training_forwards_match_the_engines_eval_forwards(
    tokenizer: Any, cpu_config: GRPOConfig, arch: str, lora: bool | str, extra: dict[str, float]
) -> None:
    if arch == "gpt2":  # build_tiny_model pins GPT-2's dropout rates to 0; a pretrained config may not
        from transformers import AutoModelForCausalLM, GPT2Config

        torch.manual_seed(0)
        gpt2 = GPT2Config(vocab_size=len(tokenizer), n_embd=32, n_layer=2, n_head=2, **extra)
        model = AutoModelForCausalLM.from_config(gpt2)
    else:
        model = build_tiny_model(len(tokenizer), arch=arch, seed=0, **extra)
    if lora == "peft":
        from peft import LoraConfig, get_peft_model

        with quiet_peft():
            model = get_peft_model(model, LoraConfig(r=4, lora_alpha=8, lora_dropout=0.5))
    cfg = cpu_config.replace(lora={"enabled": bool(lora), "r": 4, "alpha": 8})
    trainer = GRPOTrainer(cfg, model=model, tokenizer=tokenizer)
    if lora:
        with torch.no_grad():  # adapters that change the output (LoRA B starts at 0)
            for name, p in trainer.model.named_parameters():
                if "lora_B" in name:
                    p.normal_()
    rows = [row for group in make_groups(3) for sample in group for row in sample.rows]
    trainer.model.eval()
    expected = trainer.compute_logprobs(rows)
    trainer.model.train()  # the update's mode
    for _ in range(2):
        got = trainer.compute_logprobs(rows)
        assert all(torch.equal(a, b) for a, b in zip(expected, got, strict=True))


def test_latest_checkpoint_ignores_incomplete_dirs(tmp_path: Path) -> None:
    assert latest_checkpoint(tmp_path / "absent") is None
    for step in (2, 10):
        (tmp_path / f"step_{step}").mkdir()
        (tmp_path / f"step_{step}" / "trainer_state.json").write_text("{}")
    (tmp_path / "step_11").mkdir()  # crashed while saving: no trainer_state.json
    assert latest_checkpoint(tmp_path) == tmp_path / "step_10"


@pytest.mark.parametrize("lora", [False, True])
def test_sync_to_a_separate_engine(
    tokenizer: Any, cpu_config: GRPOConfig, tmp_path: Path, lora: bool
) -> None:
    cfg = cpu_config.replace(lora={"enabled": lora, "r": 4, "alpha": 8}, learning_rate=1e-2)
    trainer = GRPOTrainer(cfg, model=build_tiny_model(len(tokenizer), seed=0), tokenizer=tokenizer)
    engine = TransformersEngine(build_tiny_model(len(tokenizer), seed=0), tokenizer)
    for seed in (9, 10):
        trainer.step(make_groups(seed))
        trainer.sync_to_engine(engine, workdir=tmp_path / "sync")
    assert engine.version == 2
    if lora:
        assert (tmp_path / "sync" / "v2" / "adapter_config.json").is_file()
        assert not (tmp_path / "sync" / "v1").exists()
    torch.manual_seed(0)
    (gen,) = engine.generate([[5, 6, 7]], SamplingParams(max_tokens=8, stop_token_ids=(0,)))
    row = TrajectoryRow(gen.prompt_ids + gen.completion_ids, [0, 0, 0] + [1] * 8, [0.0] * 3 + gen.logprobs)
    (recomputed,) = trainer.compute_logprobs([row])
    assert torch.allclose(recomputed[3:], torch.tensor(gen.logprobs), atol=1e-5)
