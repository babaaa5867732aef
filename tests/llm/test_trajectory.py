"""Merging a rollout's calls into rows by exact token prefix, with masks and aligned engine logprobs."""

from __future__ import annotations

import pytest

from aspen_rl.llm.trajectory import build_rows, sample_from_records
from aspen_rl.llm.types import CallRecord, TrajectoryRow


def call(
    index: int, prompt: list[int], completion: list[int], logprobs: list[float] | None = None
) -> CallRecord:
    return CallRecord(
        rollout_id="r",
        attempt_id="a",
        index=index,
        prompt_ids=prompt,
        completion_ids=completion,
        logprobs=logprobs if logprobs is not None else [-0.1 * (i + 1) for i in range(len(completion))],
        finish_reason="stop",
        started_at=float(index),
        finished_at=float(index) + 0.5,
    )


def test_consecutive_calls_merge_into_one_row() -> None:
    first = call(0, [1, 2, 3], [10, 11], [-0.5, -0.25])
    # next prompt = previous prompt + completion + tool tokens 4, 5
    second = call(1, [1, 2, 3, 10, 11, 4, 5], [12], [-0.125])
    third = call(2, [1, 2, 3, 10, 11, 4, 5, 12, 6], [13, 14], [-1.0, -2.0])
    built = build_rows([third, first, second])  # order comes from the call index
    assert built.prefix_breaks == 0 and built.truncated == 0
    (row,) = built.rows
    assert row.input_ids == [1, 2, 3, 10, 11, 4, 5, 12, 6, 13, 14]
    assert row.loss_mask == [0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1]
    assert row.engine_logprobs == [0, 0, 0, -0.5, -0.25, 0, 0, -0.125, 0, -1.0, -2.0]
    assert row.num_loss_tokens == 5


def test_broken_prefix_starts_a_new_row_and_is_counted() -> None:
    first = call(0, [1, 2, 3], [10, 11])
    # the template re-rendered the assistant turn differently: 10, 99 instead of 10, 11
    second = call(1, [1, 2, 3, 10, 99, 4], [12, 13])
    third = call(2, [1, 2, 3, 10, 99, 4, 12, 13, 5], [14])
    built = build_rows([first, second, third])
    assert built.prefix_breaks == 1
    assert [r.input_ids for r in built.rows] == [[1, 2, 3, 10, 11], [1, 2, 3, 10, 99, 4, 12, 13, 5, 14]]
    assert [r.loss_mask for r in built.rows] == [[0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 0, 1, 1, 0, 1]]
    # sampled tokens in the new row keep their own logprobs; re-rendered earlier turns are context (mask 0)
    assert built.rows[1].engine_logprobs[6:8] == [-0.1, -0.2]


def test_prompt_shorter_than_the_row_breaks_the_prefix() -> None:
    built = build_rows([call(0, [1, 2], [3, 4]), call(1, [1, 2, 3], [5])])
    assert built.prefix_breaks == 1 and len(built.rows) == 2


def test_rows_longer_than_the_limit_are_cut() -> None:
    built = build_rows([call(0, [1, 2, 3], [10, 11]), call(1, [1, 2, 3, 10, 11, 4], [12, 13])], max_tokens=6)
    assert built.truncated == 1
    assert built.rows[0].input_ids == [1, 2, 3, 10, 11, 4]
    assert built.rows[0].loss_mask == [0, 0, 0, 1, 1, 0]


def test_rollout_sample_from_records_and_row_checks() -> None:
    sample = sample_from_records([call(0, [1, 2], [3]), call(1, [9], [4])], reward=0.5)
    assert sample.reward == 0.5 and sample.prefix_breaks == 1 and len(sample.rows) == 2
    assert build_rows([]).rows == []
    with pytest.raises(ValueError, match="same length"):
        TrajectoryRow([1, 2], [0], [0.0, 0.0])
    with pytest.raises(ValueError, match="first token"):
        TrajectoryRow([1, 2], [1, 1], [0.0, 0.0])
