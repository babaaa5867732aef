"""Merge the recorded calls of one rollout into training rows by exact token-prefix match."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aspen_rl.llm.types import CallRecord, RolloutSample, TrajectoryRow


@dataclass
class RowsBuild:
    """Rows of one rollout, how many times the prefix broke and how many rows were cut to length."""

    rows: list[TrajectoryRow]
    prefix_breaks: int
    truncated: int


class _OpenRow:
    def __init__(self, record: CallRecord) -> None:
        self.ids = list(record.prompt_ids)
        self.mask = [0] * len(record.prompt_ids)
        self.logprobs = [0.0] * len(record.prompt_ids)
        self.add_completion(record)

    def add_completion(self, record: CallRecord) -> None:
        self.ids.extend(record.completion_ids)
        self.mask.extend([1] * len(record.completion_ids))
        self.logprobs.extend(float(lp) for lp in record.logprobs)

    def extends_to(self, record: CallRecord) -> bool:
        n = len(self.ids)
        return len(record.prompt_ids) >= n and record.prompt_ids[:n] == self.ids

    def extend(self, record: CallRecord) -> None:
        extra = record.prompt_ids[len(self.ids) :]
        self.ids.extend(extra)
        self.mask.extend([0] * len(extra))
        self.logprobs.extend([0.0] * len(extra))
        self.add_completion(record)

    def close(self, max_tokens: int | None) -> tuple[TrajectoryRow, bool]:
        cut = max_tokens is not None and len(self.ids) > max_tokens
        end = max_tokens if cut and max_tokens is not None else len(self.ids)
        return TrajectoryRow(self.ids[:end], self.mask[:end], self.logprobs[:end]), cut


def build_rows(records: Sequence[CallRecord], *, max_tokens: int | None = None) -> RowsBuild:
    """Turn one rollout's calls (in call order) into as few rows as exact token prefixes allow.

    A call continues the open row when its prompt token ids start with the row's tokens so far
    (previous prompt + sampled completion); the extra prompt tokens (tool results, user turns, template
    glue) get loss mask 0 and the new completion mask 1. Otherwise the row is closed, a new one starts
    and the break is counted. Sampled tokens are never re-tokenized.

    Args:
        records: The calls of one rollout; sorted here by their ``index``.
        max_tokens: Longest row; longer rows keep their first ``max_tokens`` tokens (counted as truncated).

    Returns:
        The rows, the number of prefix breaks and the number of truncated rows.
    """
    rows: list[TrajectoryRow] = []
    breaks = 0
    truncated = 0
    current: _OpenRow | None = None
    for record in sorted(records, key=lambda r: r.index):
        if current is None:
            current = _OpenRow(record)
        elif current.extends_to(record):
            current.extend(record)
        else:
            breaks += 1
            row, cut = current.close(max_tokens)
            rows.append(row)
            truncated += cut
            current = _OpenRow(record)
    if current is not None:
        row, cut = current.close(max_tokens)
        rows.append(row)
        truncated += cut
    return RowsBuild(rows=rows, prefix_breaks=breaks, truncated=truncated)


def sample_from_records(
    records: Sequence[CallRecord], reward: float, *, max_tokens: int | None = None
) -> RolloutSample:
    """One rollout's sample: its calls merged into rows (``build_rows``) with its reward.

    Args:
        records: The endpoint's records of the rollout.
        reward: The rollout's reward (0 for a policy failure).
        max_tokens: Longest row (see ``build_rows``).
    """
    built = build_rows(records, max_tokens=max_tokens)
    return RolloutSample(
        rows=built.rows,
        reward=float(reward),
        prefix_breaks=built.prefix_breaks,
        truncated_rows=built.truncated,
    )


def assistant_spans(loss_mask: Sequence[float]) -> list[tuple[int, int]]:
    """``[start, end)`` of every run of nonzero loss mask in a row: one per assistant turn."""
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(loss_mask):
        if not loss_mask[i]:
            i += 1
            continue
        end = i
        while end < len(loss_mask) and loss_mask[end]:
            end += 1
        spans.append((i, end))
        i = end
    return spans
