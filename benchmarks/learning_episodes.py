"""The learning benchmark's model-in-the-loop parts: batched episodes through the real tools, ladder, GRPO.

An episode is the agent's loop without AutoGen: its model view (:func:`~aspen_rl.agent.context.openai_view`),
its three tools over the in-process mock, its tools block, at most ``max_turns`` turns, scored by the shipped
reward. Episodes run in lockstep (each turn of every live episode is one batched ``generate``), so a GRPO
group costs one batch per turn. Each sampled turn is kept as a :class:`CallRecord`, merged into training rows
by GRPO's own :func:`~aspen_rl.llm.trajectory.build_rows`, and trained with GRPO's loss.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from autogen_core.tools import FunctionTool

from aspen_rl.agent.context import openai_view
from aspen_rl.agent.prompts import default_system_prompt
from aspen_rl.algorithms.grpo.advantages import group_advantages
from aspen_rl.algorithms.grpo.loss import grpo_token_loss, token_weights
from aspen_rl.algorithms.sft.evaluate import is_correct_first_call
from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.llm.chat_server import normalize_messages
from aspen_rl.llm.logprobs import selective_logprobs
from aspen_rl.llm.row_batch import collate
from aspen_rl.llm.tool_calls import parse_tool_calls
from aspen_rl.llm.trajectory import build_rows
from aspen_rl.llm.types import CallRecord, TrajectoryRow
from aspen_rl.reward import compute_reward
from aspen_rl.reward.aspen import Facts
from aspen_rl.reward.fidelity import ASPECT_COSTS, fidelity
from aspen_rl.tasks import AspenTask
from aspen_rl.tools import build_tools
from aspen_rl.trace import RunTrace

SUCCESS_REWARD = 0.9
"""An episode succeeds when the shipped reward gives it at least this (a faithful run, read, targets met and
reported: the reference solutions score 1.0, a run with one target unreported stays below)."""


def tool_specs(functions: list[Any]) -> list[dict[str, Any]]:
    """The tools block the agent sends (AutoGen's schema of each tool)."""
    return [
        {"type": "function", "function": FunctionTool(fn, description=fn.__doc__ or "").schema}
        for fn in functions
    ]


def render(tokenizer: Any, messages: list[dict[str, Any]], tools: Any) -> list[int]:
    """Prompt ids of the model's next turn after ``messages``, as the agent shows them (as SFT renders)."""
    text = tokenizer.apply_chat_template(
        normalize_messages(openai_view(messages)), tools=tools, add_generation_prompt=True, tokenize=False
    )
    return list(tokenizer.encode(text, add_special_tokens=False))


RESULTS_DIR = Path(tempfile.gettempdir()) / "aspen_rl_learning_curve"
"""One results folder for every mock of the benchmark (demonstrations, ladder, episodes), as a deployed
service writes into one folder: with a folder per mock, each train path had a folder the model learnt by
heart and every held-out path a new one (its get_result call: 0.2 of its tokens right teacher-forced)."""


KEEP_RUNS_S = 86400.0
"""How long the benchmark's mock keeps a run's files (by their age on disk). Not a count of runs: the
mock deletes the runs past a count oldest *name* first, and a stamp drawn by
:mod:`aspen_rl.datagen.run_stamps` is not the time a run was made, so a count could delete a run another
benchmark process is about to read."""


def learning_mock() -> Any:
    """An in-process mock writing into :data:`RESULTS_DIR`, keeping runs for :data:`KEEP_RUNS_S`."""
    return in_process_client(RESULTS_DIR, max_runs_kept=10**9, retention_max_age_s=KEEP_RUNS_S)


@torch.no_grad()
def generate_batch(
    model: Any, tokenizer: Any, prompts: list[list[int]], max_new: int, temperature: float
) -> list[list[int]]:
    """One completion per prompt (left-padded into one ``generate``), each cut after its end-of-turn token;
    greedy when ``temperature`` is 0."""
    pad, eos = tokenizer.pad_token_id, tokenizer.eos_token_id
    width = max(len(p) for p in prompts)
    ids = torch.tensor([[pad] * (width - len(p)) + p for p in prompts])
    attention = torch.tensor([[0] * (width - len(p)) + [1] * len(p) for p in prompts])
    sampling: dict[str, Any] = (
        {"do_sample": True, "temperature": temperature, "top_k": 0, "top_p": 1.0}
        if temperature > 0
        else {"do_sample": False}
    )
    out = model.generate(
        input_ids=ids.to(model.device),
        attention_mask=attention.to(model.device),
        max_new_tokens=max_new,
        eos_token_id=eos,
        pad_token_id=pad,
        **sampling,
    )
    completions = []
    for row in out[:, width:].tolist():
        completions.append(row[: row.index(eos) + 1] if eos in row else row)
    return completions


@dataclass
class Episode:
    """One task driven by the model: its messages, tool trace and the calls it sampled."""

    task: AspenTask
    trace: RunTrace
    tools: dict[str, Any]
    messages: list[dict[str, Any]]
    records: list[CallRecord] = field(default_factory=list)
    done: bool = False

    def score(self) -> dict[str, float]:
        """Shipped reward, success, the funnel stages and the targets met of the workbook read."""
        reward = compute_reward(self.task, self.trace).total
        facts = Facts.of(self.task, self.trace)
        runs = [r for r in facts.runs if isinstance(r.config, dict)]
        best_run = max(runs, key=lambda r: r.fidelity.value, default=None)
        best = best_run.fidelity if best_run else None
        return {
            "reward": reward,
            "success": float(reward >= SUCCESS_REWARD),
            **facts.stages,
            "targets": facts.targets_met()[0],
            "turns": float(len(self.records)),
            "answered": float(bool(self.trace.final_answer.strip())),
            # which part of the task the most faithful config kept (0 with no config): what to fix next
            **{f"kept_{k}": best.parts[k] if best else 0.0 for k in ASPECT_COSTS},
            # the block and stream ids only the request states: does the model read it, or write its prior?
            "kept_names": kept_names(self.task, best_run.config) if best_run else 0.0,
        }


def _ids(config: Any) -> set[str]:
    """The block and stream ids a config names."""
    if not isinstance(config, dict):
        return set()
    blocks, streams = config.get("blocks"), config.get("streams")
    named = {str(b.get("name")) for b in blocks if isinstance(b, dict)} if isinstance(blocks, list) else set()
    return named | ({str(s) for s in streams} if isinstance(streams, list) else set())


def kept_names(task: AspenTask, config: Any) -> float:
    """Share of the reference config's block and stream ids that ``config`` names too."""
    wanted = _ids(task.reference_config)
    return len(wanted & _ids(config)) / len(wanted) if wanted else 1.0


async def run_episodes(
    model: Any,
    tokenizer: Any,
    tasks: list[AspenTask],
    *,
    temperature: float,
    max_turns: int,
    max_new: int,
    seed: int | None = None,
) -> list[Episode]:
    """Drive every task (one episode each, in lockstep) with the model; returns the finished episodes.

    With ``seed`` the sampling draws from a torch RNG seeded with it (the global one is put back after),
    so what is sampled does not depend on what drew from the global RNG before (an evaluation, say)."""
    model.eval()
    if seed is None:
        return await _drive(model, tokenizer, tasks, temperature, max_turns, max_new)
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return await _drive(model, tokenizer, tasks, temperature, max_turns, max_new)


async def _drive(
    model: Any, tokenizer: Any, tasks: list[AspenTask], temperature: float, max_turns: int, max_new: int
) -> list[Episode]:
    async with learning_mock() as client:
        episodes = []
        specs: Any = None
        for task in tasks:
            trace = RunTrace()
            functions = build_tools(client, trace)
            specs = specs or tool_specs(functions)
            system = {"role": "system", "content": default_system_prompt()}
            messages = [system, {"role": "user", "content": task.user_requirement}]
            episodes.append(Episode(task, trace, {f.__name__: f for f in functions}, messages))
        for turn in range(max_turns):
            live = [e for e in episodes if not e.done]
            if not live:
                break
            prompts = [render(tokenizer, e.messages, specs) for e in live]
            completions = generate_batch(model, tokenizer, prompts, max_new, temperature)
            for episode, prompt, completion in zip(live, prompts, completions, strict=True):
                await _step(episode, tokenizer, turn, prompt, completion)
    return episodes


async def _step(
    episode: Episode, tokenizer: Any, turn: int, prompt: list[int], completion: list[int]
) -> None:
    eos = tokenizer.eos_token_id
    episode.records.append(
        CallRecord(
            rollout_id=episode.task.task_id,
            attempt_id=None,
            index=turn,
            prompt_ids=prompt,
            completion_ids=completion,
            logprobs=[0.0] * len(completion),
            finish_reason="stop" if completion and completion[-1] == eos else "length",
            started_at=0.0,
            finished_at=0.0,
        )
    )
    text = str(tokenizer.decode([t for t in completion if t != eos], skip_special_tokens=False))
    parsed = parse_tool_calls(text)
    if not parsed.tool_calls:
        episode.trace.final_answer = text
        episode.done = True
        return
    call = parsed.tool_calls[0]
    call_id = f"call_{turn}"
    function = {"name": call.name, "arguments": call.arguments}
    episode.messages.append(
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": call_id, "type": "function", "function": function}],
        }
    )
    try:
        answer = await episode.tools[call.name](**json.loads(call.arguments))
    except (json.JSONDecodeError, KeyError, TypeError) as exc:  # as AutoGen answers a call it cannot make
        answer = f"Error: {type(exc).__name__}: {exc}"
    episode.messages.append({"role": "tool", "tool_call_id": call_id, "content": answer})


def mean_scores(rows: list[dict[str, float]]) -> dict[str, float]:
    """Per-key mean of ``rows`` (4 decimals)."""
    keys = sorted({k for r in rows for k in r})
    return {k: round(statistics.fmean(r[k] for r in rows if k in r), 4) for k in keys}


# -- ladder: each reference turn generated from the reference's earlier turns -----------------------


async def ladder(model: Any, tokenizer: Any, demo: dict[str, Any], task: AspenTask) -> dict[str, float]:
    """Each assistant turn of the reference, generated greedily by the model from the reference's earlier
    turns (as the agent shows them), scored by the real tools on the mock."""
    raw = demo["messages"]
    tools = demo.get("tools")
    scores: dict[str, float] = {}
    async with learning_mock() as client:
        by_name = {fn.__name__: fn for fn in build_tools(client, RunTrace())}
        for i, reference in enumerate(raw):
            if reference["role"] != "assistant":
                continue
            budget = len(tokenizer.encode(json.dumps(reference, ensure_ascii=False))) + 32
            (completion,) = generate_batch(model, tokenizer, [render(tokenizer, raw[:i], tools)], budget, 0.0)
            text = str(tokenizer.decode(completion, skip_special_tokens=True))
            parsed = parse_tool_calls(text)
            name, arguments = "", None
            if parsed.tool_calls:
                name = parsed.tool_calls[0].name
                try:
                    arguments = json.loads(parsed.tool_calls[0].arguments)
                except json.JSONDecodeError:
                    arguments = None
            if not reference.get("tool_calls"):  # the answer, judged on the reference's own trace
                trace = await replay(raw[:i])
                trace.final_answer = text
                scores["answer_reward"] = compute_reward(task, trace).total
                continue
            expected = reference["tool_calls"][0]["function"]["name"]
            if expected == "get_schema":
                scores["first_call"] = float(is_correct_first_call(task, text)[1])
            elif expected == "run_simulation":
                config = arguments.get("config") if isinstance(arguments, dict) else None
                try:
                    sent = json.loads(config) if isinstance(config, str) else None
                except json.JSONDecodeError:
                    sent = None
                valid = isinstance(sent, dict)
                scores["config_json"] = float(name == expected and valid)
                scores["config_faithful"] = fidelity(task.reference_config, sent).value if valid else 0.0
                ran = False
                if valid:
                    answer = json.loads(await by_name["run_simulation"](config=config))
                    ran = answer.get("success") is True
                scores["config_ran"] = float(ran)
            elif expected == "get_result":
                wanted = json.loads(reference["tool_calls"][0]["function"]["arguments"])
                scores["result_call"] = float(name == expected and arguments == wanted)
    return scores


async def replay(messages: list[dict[str, Any]]) -> RunTrace:
    """The trace of the reference's tool calls in ``messages``, replayed through the real tools on a fresh
    mock. A run's answer names a new result path there (its run id is new), so each string the replay
    changed in a tool's answer is changed in the calls after it too: the reference's ``get_result`` reads
    the replayed run, as it read the recorded one."""
    trace = RunTrace()
    recorded = {m.get("tool_call_id"): m.get("content") for m in messages if m["role"] == "tool"}
    renames: dict[str, str] = {}
    async with learning_mock() as client:
        by_name = {fn.__name__: fn for fn in build_tools(client, trace)}
        for message in messages:
            for call in message.get("tool_calls") or []:
                arguments = _renamed(json.loads(call["function"]["arguments"]), renames)
                answer = await by_name[call["function"]["name"]](**arguments)
                renames.update(_changed(recorded.get(call.get("id")), answer))
    return trace


def _changed(recorded: Any, replayed: Any) -> dict[str, str]:
    """Top-level string fields of two JSON object answers that differ, recorded -> replayed."""
    try:
        old, new = json.loads(recorded), json.loads(replayed)
    except (TypeError, json.JSONDecodeError):
        return {}
    if not isinstance(old, dict) or not isinstance(new, dict):
        return {}
    return {
        old[k]: new[k]
        for k in old.keys() & new.keys()
        if isinstance(old[k], str) and isinstance(new[k], str) and old[k] != new[k]
    }


def _renamed(value: Any, renames: dict[str, str]) -> Any:
    if isinstance(value, str):
        return renames.get(value, value)
    if isinstance(value, list):
        return [_renamed(v, renames) for v in value]
    if isinstance(value, dict):
        return {k: _renamed(v, renames) for k, v in value.items()}
    return value


# -- GRPO ------------------------------------------------------------------------------------------


PUSHED = ("answered", "attempted", "json", "accepted", "simulated", "read", "faithful")
"""Episode features whose advantage-weighted mean :func:`pushes` reports."""


def pushes(groups: list[list[dict[str, float]]], keys: tuple[str, ...] = PUSHED) -> dict[str, float]:
    """What a GRPO step's gradient favours: per feature, the mean over every episode of its group-relative
    advantage times the feature (a covariance, as advantages are centred per group). Positive: the update
    makes the feature likelier; near 0: the reward did not tell episodes apart by it."""
    total = {k: 0.0 for k in keys}
    count = 0
    for scores in groups:
        advantages = group_advantages([s["reward"] for s in scores]).advantages
        for score, a in zip(scores, advantages, strict=True):
            for k in keys:
                total[k] += a * score[k]
        count += len(scores)
    return {k: round(v / max(1, count), 4) for k, v in total.items()}


@dataclass
class GRPOStep:
    """What one GRPO step saw and did (``pushes``: what its gradient favoured, see :func:`pushes`)."""

    reward: float
    success: float
    zero_variance_groups: int
    rows: int
    loss: float
    pushes: dict[str, float] = field(default_factory=dict)
    kl: float | None = None  # mean k3 KL to the reference over the trained tokens, before the update


def grpo_step(
    model: Any,
    optimizer: torch.optim.Optimizer,
    groups: list[list[Episode]],
    *,
    pad_token_id: int,
    max_length: int,
    micro_batch: int = 4,
    max_grad_norm: float = 1.0,
    bf16: bool = False,
    ref_model: Any | None = None,
    beta: float = 0.0,
) -> GRPOStep:
    """One on-policy GRPO update over sampled groups (one group of episodes per task): group-relative
    advantages of the shipped reward, GRPO's rows and clipped loss (one update per batch, so the ratio is 1
    and the clip inactive: the policy gradient of the token-mean), gradient clipped; with ``bf16`` the
    forward and backward run under ``torch.autocast(bfloat16)`` (float32 weights kept). With ``beta`` > 0
    and a ``ref_model`` each trained token also pays ``beta`` times the k3 KL to that model (an anchor,
    as verl's ``kl_loss``; a group whose rewards are all equal gives no rows, so unlike TRL's ``beta`` the
    anchor does not act on it). ``kl`` is None where nothing was measured (no anchor, or no rows)."""
    anchored = beta > 0 and ref_model is not None
    rows: list[TrajectoryRow] = []
    advantages: list[float] = []
    rollout: list[int] = []
    rewards: list[float] = []
    successes: list[float] = []
    flat = 0
    scored: list[list[dict[str, float]]] = []
    for group in groups:
        first = len(rewards)
        scores = [e.score() for e in group]
        scored.append(scores)
        rewards += [s["reward"] for s in scores]
        successes += [s["success"] for s in scores]
        adv = group_advantages([s["reward"] for s in scores])
        flat += adv.zero_variance
        if adv.zero_variance:
            continue
        for k, (episode, a) in enumerate(zip(group, adv.advantages, strict=True)):
            for row in build_rows(episode.records, max_tokens=max_length).rows:
                if any(row.loss_mask):
                    rows.append(row)
                    advantages.append(a)
                    rollout.append(first + k)
    loss_total = 0.0
    kl_sum = kl_tokens = 0.0
    if rows:
        model.train()
        optimizer.zero_grad()
        batch = collate(rows, pad_token_id)
        weights = token_weights(batch.loss_mask, torch.tensor(rollout), "token_mean")
        for start in range(0, len(rows), micro_batch):
            part = slice(start, start + micro_batch)
            sub = collate(rows[part], pad_token_id).to(model.device)
            ref_logprobs = None
            if anchored and ref_model is not None:  # before the policy's graph is held: a lower peak
                with torch.no_grad(), torch.autocast(model.device.type, dtype=torch.bfloat16, enabled=bf16):
                    ref_logits = ref_model(input_ids=sub.input_ids, attention_mask=sub.attention_mask).logits
                ref_logprobs = selective_logprobs(ref_logits[:, :-1], sub.input_ids[:, 1:])
                del ref_logits
            with torch.autocast(model.device.type, dtype=torch.bfloat16, enabled=bf16):
                logits = model(input_ids=sub.input_ids, attention_mask=sub.attention_mask).logits[:, :-1]
            logprobs = selective_logprobs(logits, sub.input_ids[:, 1:])
            token = grpo_token_loss(
                logprobs,
                logprobs.detach(),
                torch.tensor(advantages[part], device=model.device).unsqueeze(1),
                sub.loss_mask,
                epsilon_low=0.2,
                epsilon_high=0.28,
                ref_logprobs=ref_logprobs,
                beta=beta if anchored else 0.0,
            )
            if "kl" in token.stats:
                live = sub.loss_mask.bool()
                kl_sum += float(token.stats["kl"][live].sum())
                kl_tokens += float(live.sum())
            w = weights[part, : sub.loss_mask.shape[1]].to(model.device)
            loss = (token.loss * w).sum()
            loss.backward()
            loss_total += float(loss.detach())
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        optimizer.step()
        model.eval()
    return GRPOStep(
        reward=statistics.fmean(rewards),
        success=statistics.fmean(successes),
        zero_variance_groups=flat,
        rows=len(rows),
        loss=loss_total,
        pushes=pushes(scored),
        kl=kl_sum / kl_tokens if kl_tokens else None,
    )
