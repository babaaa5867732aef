"""SFT: typed config, GRPO masks on transcripts, CPU learning test, GRPO from the checkpoint, the CLI."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import torch
from _support.sft import tiny_sft_settings

from aspen_rl.agent.context import CONFIG_ACKNOWLEDGED, SCHEMA_CLEARED
from aspen_rl.algorithms.grpo.config import load_grpo_config
from aspen_rl.algorithms.grpo.trainer import GRPOTrainer
from aspen_rl.algorithms.sft.config import SFTConfig, SFTConfigError, load_sft_config
from aspen_rl.algorithms.sft.data import transcript_rows
from aspen_rl.algorithms.sft.evaluate import first_call_accuracy, is_correct_first_call
from aspen_rl.algorithms.sft.trainer import SFTTrainer
from aspen_rl.datagen import SHIPPED_FAMILIES, family_of
from aspen_rl.datagen.demos import record_demos
from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.llm.engine import TransformersEngine
from aspen_rl.llm.loading import load_model
from aspen_rl.llm.tiny_bpe import train_chat_tokenizer, transcript_texts
from aspen_rl.llm.tiny_bytes import build_tiny_model, build_tiny_tokenizer
from aspen_rl.llm.trajectory import sample_from_records
from aspen_rl.llm.types import CallRecord, SamplingParams
from aspen_rl.tasks import load_tasks

ROOT = Path(__file__).resolve().parents[2]
GENERATED = ROOT / "data" / "generated"
SYSTEM = "You drive an Aspen Plus simulator through tools."


async def _demos(tasks: list) -> list[dict[str, Any]]:
    async with in_process_client() as client:
        kept, dropped = await record_demos(tasks, client)
    assert dropped == []
    return kept


def test_config_file_documents_every_default() -> None:
    assert load_sft_config() == SFTConfig()
    text = (ROOT / "configs" / "sft.yaml").read_text(encoding="utf-8")
    for name in SFTConfig.model_fields:
        assert f"\n{name}:" in text, name
    assert load_sft_config(epochs=1, lora={"r": 4}).lora.r == 4
    with pytest.raises(SFTConfigError, match="nope"):
        load_sft_config(nope=1)


async def test_rows_train_exactly_the_assistant_turns_in_the_context_the_agent_shows() -> None:
    task = load_tasks(GENERATED / "train.jsonl")[0]
    (demo,) = await _demos([task])
    tokenizer = build_tiny_tokenizer()
    rows = transcript_rows([demo], tokenizer)
    spans = []
    for row in rows:
        current: list[int] = []
        for token, mask in zip(row.input_ids, row.loss_mask, strict=True):
            if mask:
                current.append(token)
            elif current:
                spans.append(tokenizer.decode(current))
                current = []
        if current:
            spans.append(tokenizer.decode(current))
    turns = [m for m in demo["messages"] if m["role"] == "assistant"]
    assert len(spans) == len(turns) == 4  # schema, run, result, answer
    assert spans[0].startswith('<tool_call>\n{"name": "get_schema"') and spans[0].endswith("<|im_end|>")
    assert spans[-1] == turns[-1]["content"] + "<|im_end|>"
    assert all("<tool_response>" not in s and "<|im_start|>" not in s for s in spans)
    # the agent clears the schema and acknowledges the config once the run succeeded:
    # the rows break there (2 contexts), and the last one shows neither
    assert len(rows) == 2
    last = tokenizer.decode(rows[-1].input_ids)
    assert SCHEMA_CLEARED in last and CONFIG_ACKNOWLEDGED in last and '"stream_data"' not in last
    (kept,) = transcript_rows([demo], tokenizer, agent_view=False)
    assert SCHEMA_CLEARED not in tokenizer.decode(kept.input_ids)
    (first,) = transcript_rows([demo], tokenizer, max_assistant_turns=1, include_tools=False)
    assert len(first.input_ids) < len(rows[0].input_ids) and first.num_loss_tokens == len(
        tokenizer.encode(spans[0])
    )


async def test_the_first_call_scorer_accepts_every_family_s_demonstrated_call_and_nothing_less() -> None:
    """The evaluator and the demonstrations agree on the parts: a recycle's call names 'convergence'."""
    tasks = load_tasks(GENERATED / "train.jsonl")
    one_each = [next(t for t in tasks if family_of(t) == name) for name in SHIPPED_FAMILIES]
    for task, demo in zip(one_each, await _demos(one_each), strict=True):
        (call,) = next(m for m in demo["messages"] if m["role"] == "assistant")["tool_calls"]
        arguments = json.loads(call["function"]["arguments"])
        text = "<tool_call>\n" + json.dumps({"name": "get_schema", "arguments": arguments}) + "\n</tool_call>"
        assert is_correct_first_call(task, text) == (True, True), (family_of(task), arguments)
        short = {"block_types": arguments["block_types"][:-1]}  # one part left out
        text = "<tool_call>\n" + json.dumps({"name": "get_schema", "arguments": short}) + "\n</tool_call>"
        assert is_correct_first_call(task, text) == (True, False), family_of(task)
        if family_of(task) == "recycle":
            assert "convergence" in arguments["block_types"]


def _held_out(per_family: int) -> list:
    tasks = load_tasks(GENERATED / "eval.jsonl")
    chosen = []
    for name in SHIPPED_FAMILIES:
        chosen.extend([t for t in tasks if family_of(t) == name][:per_family])
    return chosen


@pytest.mark.slow  # end-to-end, seconds: run by .ci/run, left out of -m "not slow"
async def test_sft_teaches_a_tiny_model_the_first_tool_call_and_grpo_continues_from_it(
    tmp_path: Path,
) -> None:
    """Tiny Qwen2 from a config + BPE tokenizer learnt from the demos; first call right on >= 80 % of
    held-out generated tasks after SFT, ~0 % before; then one GRPO step from the saved checkpoint."""
    started = time.perf_counter()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one core, and the same float sums on every machine
    try:
        await _learn_first_call_then_grpo(tmp_path)
    finally:
        torch.set_num_threads(threads)
    print(f"learning test: {time.perf_counter() - started:.0f} s")


async def _learn_first_call_then_grpo(tmp_path: Path) -> None:
    demos = await _demos(load_tasks(GENERATED / "train.jsonl"))  # all 300, 30 per family
    tokenizer = train_chat_tokenizer([*transcript_texts(demos), SYSTEM], vocab_size=2000)
    model = build_tiny_model(len(tokenizer), hidden_size=128, num_layers=2, num_heads=4, seed=0)
    held_out = _held_out(6)
    before, _ = first_call_accuracy(model, tokenizer, held_out, system_prompt=SYSTEM, max_new_tokens=40)
    config = SFTConfig(
        model="tiny",
        device="cpu",
        dtype="float32",
        lora={"enabled": False},
        include_tools=False,
        max_assistant_turns=1,
        epochs=7,
        batch_size=8,
        micro_batch_size=8,
        learning_rate=3e-3,
        warmup_steps=10,
        output_dir=str(tmp_path),
        run_name="sft",
    )
    rows = transcript_rows(demos, tokenizer, include_tools=False, system_prompt=SYSTEM, max_assistant_turns=1)
    assert len(rows) == len(demos)
    trainer = SFTTrainer(config, model=model, tokenizer=tokenizer)
    history = trainer.train(rows)
    assert history[-1]["loss"] < history[0]["loss"]
    after, results = first_call_accuracy(trainer.model, tokenizer, held_out, system_prompt=SYSTEM)
    assert before <= 0.05, before
    assert after >= 0.8, (after, [r.text for r in results if not r.correct][:5])

    checkpoint = trainer.save()
    grpo = GRPOTrainer(
        load_grpo_config(
            None,
            model=str(checkpoint),
            device="cpu",
            lora={"enabled": True, "r": 4, "alpha": 8},
            learning_rate=1e-3,
            checkpoint_dir=str(tmp_path / "grpo"),
            tensorboard=False,
        )
    )
    engine = TransformersEngine(grpo.model, grpo.tokenizer)
    groups = []
    for task in held_out[:2]:
        prompt = grpo.tokenizer.encode(
            grpo.tokenizer.apply_chat_template(
                [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task.user_requirement}],
                add_generation_prompt=True,
                tokenize=False,
            ),
            add_special_tokens=False,
        )
        generations = engine.generate([prompt] * 4, SamplingParams(max_tokens=40, temperature=1.0))
        samples = []
        for i, gen in enumerate(generations):
            text = grpo.tokenizer.decode(gen.completion_ids).split("<|im_end|>")[0]
            record = CallRecord(
                f"r{i}", None, 0, gen.prompt_ids, gen.completion_ids, gen.logprobs, "stop", 0, 0
            )
            reward = float(is_correct_first_call(task, text)[1]) + 0.01 * i  # + a tie-break: groups vary
            samples.append(sample_from_records([record], reward))
        groups.append(samples)
    metrics = grpo.step(groups)
    assert metrics["step"] == 1 and metrics["updates"] == 1 and metrics["grad_norm"] > 0
    assert torch.isfinite(torch.tensor(metrics["loss"]))
    print(f"first-call accuracy on {len(held_out)} held-out tasks: {before:.2f} -> {after:.2f}")


@pytest.mark.slow  # end-to-end, seconds: run by .ci/run, left out of -m "not slow"
def test_train_cli_runs_sft_and_grpo_loads_the_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aspen_rl.llm.serve import load_local_model
    from aspen_rl.train import main as train_main

    settings = tiny_sft_settings(tmp_path)
    (tmp_path / "configs" / "sft.yaml").write_text(json.dumps(settings), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert train_main(["--algorithm", "sft", "--output-dir", str(tmp_path / "out" / "warm")]) == 0
    assert len((tmp_path / "demos.jsonl").read_text(encoding="utf-8").splitlines()) == 2  # recorded
    checkpoint = tmp_path / "out" / "warm"
    assert json.loads((checkpoint / "sft_state.json").read_text())["updates"] == 1
    model, tokenizer = load_model(load_grpo_config(None, model=str(checkpoint), device="cpu"))
    assert not hasattr(model, "peft_config")  # adapters merged: a plain model
    assert tokenizer.chat_template
    served, _ = load_local_model(checkpoint, device="cpu", dtype="float32")  # python -m aspen_rl.llm.serve
    assert served.config.vocab_size == model.config.vocab_size
