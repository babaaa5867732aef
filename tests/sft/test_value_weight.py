"""SFT's value weighting on a real heater demonstration: which tokens of the config turn spell its values
(first occurrences only), and how they weigh in the loss (each turn still 1; weight 1 changes nothing)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

import pytest
import torch

from aspen_rl.algorithms.sft.config import SFTConfig
from aspen_rl.algorithms.sft.data import assistant_records, transcript_rows
from aspen_rl.algorithms.sft.trainer import SFTTrainer, turn_weights
from aspen_rl.algorithms.sft.value_tokens import value_spans, value_token_mask
from aspen_rl.llm.settings import LoRASettings
from aspen_rl.llm.tiny_bpe import train_chat_tokenizer, transcript_texts
from aspen_rl.llm.tiny_bytes import build_tiny_model, build_tiny_tokenizer
from aspen_rl.llm.types import TrajectoryRow
from aspen_rl.tasks import AspenTask


@pytest.fixture(scope="module")
def bpe(heater: tuple[AspenTask, dict[str, Any]]) -> Any:
    """The learning benchmark's kind of tokenizer (BPE learnt from the demonstrations, digits split)."""
    return train_chat_tokenizer(transcript_texts([heater[1]]), vocab_size=2000, individual_digits=True)


def _first_values(node: Any) -> list[str]:
    """Distinct leaf values of a parsed config as written (Python's parser, not ours), in document order."""

    def leaves(item: Any) -> Iterator[str]:
        if isinstance(item, dict):
            for value in item.values():
                yield from leaves(value)
        elif isinstance(item, list):
            for value in item:
                yield from leaves(value)
        elif isinstance(item, str):
            if item:
                yield item
        elif isinstance(item, int | float) and not isinstance(item, bool):
            yield json.dumps(item)

    return list(dict.fromkeys(leaves(node)))


def _config_turn(demo: dict[str, Any], tokenizer: Any) -> list[int]:
    """The run_simulation turn's completion tokens as SFT renders them."""
    return next(
        r.completion_ids
        for r in assistant_records(demo, tokenizer)
        if '"run_simulation"' in tokenizer.decode(r.completion_ids)
    )


def _marked(ids: list[int], mask: list[bool], tokenizer: Any) -> list[str]:
    """The decoded runs of consecutive marked tokens."""
    runs: list[list[int]] = []
    previous = False
    for token, marked in zip(ids, mask, strict=True):
        if marked and not previous:
            runs.append([])
        if marked:
            runs[-1].append(token)
        previous = marked
    return [tokenizer.decode(run) for run in runs]


def _config_values(demo: dict[str, Any]) -> list[str]:
    """The expected marks of the run_simulation turn: its config's distinct values, in order."""
    call = next(
        c["function"]
        for m in demo["messages"]
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
        if c["function"]["name"] == "run_simulation"
    )
    return _first_values(
        json.loads(json.loads(call["arguments"])["config"])
    )  # a JSON string in the arguments


def test_the_config_turn_marks_each_distinct_value_once_and_no_key(
    heater: tuple[AspenTask, dict[str, Any]],
) -> None:
    task, demo = heater
    tokenizer = build_tiny_tokenizer()  # one token a byte: the marked tokens are exactly the values
    ids = _config_turn(demo, tokenizer)
    text = tokenizer.decode(ids)
    expected = _config_values(demo)
    assert [text[a:b] for a, b in value_spans(text)] == expected
    assert _marked(ids, value_token_mask(ids, tokenizer), tokenizer) == expected

    reference = task.reference_config or {}
    block = reference["blocks"][0]["name"]
    feed_temperature = json.dumps(reference["stream_data"]["FEED-1"]["temperature"]["TEMP_VALUE"])
    assert (block, feed_temperature) == ("B1", "25.0")  # 77 °F in the request
    assert block in expected and feed_temperature in expected and "410.0" in expected
    assert "blocks" not in expected and "stream_data" not in expected and "run_simulation" not in expected
    # 'TP' is written twice (feed spec, heater spec): only the first is weighted
    first_tp = text.index('\\"TP\\"') + 2
    assert text.count('\\"TP\\"') == 2 and expected.count("TP") == 1
    assert (first_tp, first_tp + 2) in value_spans(text)
    # the first call's values, not its tool name
    schema_ids = assistant_records(demo, tokenizer)[0].completion_ids
    assert _marked(schema_ids, value_token_mask(schema_ids, tokenizer), tokenizer) == ["base", "Heater"]


def test_values_inside_escapes_and_unicode_are_found_where_they_are_written() -> None:
    inner = json.dumps({"name": '换热器 "B1"', "v": -1.5e-3, "ok": True, "empty": "", "again": -1.5e-3})
    text = (
        "<tool_call>\n" + json.dumps({"name": "t", "arguments": {"config": inner, "n": 7}}) + "\n</tool_call>"
    )
    spans = value_spans(text)
    (start, end), *rest = spans
    written = text[start:end]  # escaped twice, as written: \\u6362... and \\\"B1\\\"
    assert json.loads('"' + json.loads(f'"{written}"') + '"') == '换热器 "B1"'
    assert [text[a:b] for a, b in rest] == ["-0.0015", "7"]
    assert value_spans('The simulation converged: {not json} {"a": 1}') == []  # no tool call, no values


def test_the_benchmark_tokenizer_marks_about_a_fifth_of_the_config_turn(
    heater: tuple[AspenTask, dict[str, Any]], bpe: Any
) -> None:
    ids = _config_turn(heater[1], bpe)
    mask = value_token_mask(ids, bpe)
    marked = _marked(ids, mask, bpe)
    expected = _config_values(heater[1])
    # one run per value; a BPE token may also carry the quotes, commas or brackets after it
    assert len(marked) == len(expected)
    for run, value in zip(marked, expected, strict=True):
        assert run.startswith(value) and set(run[len(value) :]) <= set('\\",}] '), (run, value)
    assert 0.1 < sum(mask) / len(ids) < 0.3


def _tiny_trainer(tokenizer: Any, average: Literal["token", "turn"]) -> SFTTrainer:
    model = build_tiny_model(len(tokenizer), hidden_size=16, num_heads=2, seed=0)
    config = SFTConfig(
        model="tiny", device="cpu", dtype="float32", lora=LoRASettings(enabled=False), loss_average=average
    )
    return SFTTrainer(config, model=model, tokenizer=tokenizer)


@pytest.mark.parametrize("average", ["token", "turn"])
def test_weight_one_is_today_s_loss_to_the_last_bit(
    heater: tuple[AspenTask, dict[str, Any]], bpe: Any, average: Literal["token", "turn"]
) -> None:
    rows = transcript_rows([heater[1]], bpe, value_weight=1.0)
    assert rows and all(r.loss_weights is None for r in rows)
    ones = [
        TrajectoryRow(r.input_ids, r.loss_mask, r.engine_logprobs, [1.0] * len(r.input_ids)) for r in rows
    ]
    trainer = _tiny_trainer(bpe, average)
    with torch.no_grad():
        today, count = trainer.loss(rows)
        weighted, weighted_count = trainer.loss(ones)
    assert torch.equal(today, weighted) and count == weighted_count
    assert count == (sum(r.num_loss_tokens for r in rows) if average == "token" else 4)


@pytest.mark.parametrize("average", ["token", "turn"])
def test_a_value_weight_raises_the_values_share_and_each_turn_still_weighs_one(
    heater: tuple[AspenTask, dict[str, Any]], bpe: Any, average: Literal["token", "turn"]
) -> None:
    weight = 4.0
    rows = transcript_rows([heater[1]], bpe, value_weight=weight)
    plain = transcript_rows([heater[1]], bpe)
    assert [r.input_ids for r in rows] == [r.input_ids for r in plain]
    config_row = rows[0]  # the schema and config turns (the view changes after the run)
    assert config_row.loss_weights is not None
    per_token = turn_weights(config_row.loss_mask, config_row.loss_weights)
    old = turn_weights(config_row.loss_mask)
    runs = _runs(config_row.loss_mask)
    assert len(runs) == 2 and all(sum(per_token[a:b]) == pytest.approx(1.0) for a, b in runs)
    a, b = runs[1]  # the config turn
    values = [k for k in range(a, b) if config_row.loss_weights[k] == weight]
    n = b - a
    assert 0 < len(values) < n
    share, old_share = sum(per_token[k] for k in values), sum(old[k] for k in values)
    assert old_share == pytest.approx(len(values) / n)
    assert share == pytest.approx(weight * len(values) / (weight * len(values) + n - len(values)))
    assert share > 2 * old_share

    trainer = _tiny_trainer(bpe, average)
    with torch.no_grad():
        summed, count = trainer.loss(rows)
        expected_sum, expected_count = 0.0, 0.0
        for row in rows:
            logits = trainer.model(input_ids=torch.tensor([row.input_ids])).logits[0]
            logprobs = torch.log_softmax(logits, -1)
            nll = [0.0] + [-float(logprobs[t - 1, row.input_ids[t]]) for t in range(1, len(row.input_ids))]
            assert row.loss_weights is not None
            for start, end in _runs(row.loss_mask):
                w = row.loss_weights[start:end]
                turn_sum = sum(x * y for x, y in zip(w, nll[start:end], strict=True))
                if average == "turn":
                    expected_sum, expected_count = expected_sum + turn_sum / sum(w), expected_count + 1
                else:
                    expected_sum, expected_count = expected_sum + turn_sum, expected_count + sum(w)
    assert count == pytest.approx(expected_count) and count == pytest.approx(trainer._denominator(rows))
    assert float(summed) / count == pytest.approx(expected_sum / expected_count, rel=1e-4)


def _runs(mask: list[int]) -> list[tuple[int, int]]:
    """``[start, end)`` of every run of loss-mask 1 (an assistant turn)."""
    runs: list[tuple[int, int]] = []
    for k, m in enumerate(mask):
        if m and (k == 0 or not mask[k - 1]):
            runs.append((k, k + 1))
        elif m:
            runs[-1] = (runs[-1][0], k + 1)
    return runs
