"""The learning-rate schedule (torch schedulers): the values the former hand-written formulas gave."""

from __future__ import annotations

import pytest
import torch

from aspen_rl.algorithms.lr_schedule import warmup_schedule


def _rates(warmup: int, total: int, *, decay: bool, done: int = 0) -> list[float]:
    param = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.AdamW([param], lr=0.01)
    scheduler = warmup_schedule(
        optimizer, warmup=warmup, decay_updates=total - warmup if decay else None, done=done
    )
    rates = []
    for _ in range(done, total):
        rates.append(optimizer.param_groups[0]["lr"])
        optimizer.step()
        scheduler.step()
    return rates


def test_warmup_then_constant_is_grpos_former_schedule() -> None:
    # former GRPO: lr * min(1, (u + 1) / warmup) at update u
    assert _rates(4, 7, decay=False) == pytest.approx([0.0025, 0.005, 0.0075, 0.01, 0.01, 0.01, 0.01])
    assert _rates(0, 3, decay=False) == pytest.approx([0.01, 0.01, 0.01])


def test_warmup_then_linear_decay_is_sfts_former_schedule() -> None:
    # former SFT: (u + 1) / warmup while u < warmup, then 1 - (u - warmup) / (total - warmup)
    assert _rates(2, 6, decay=True) == pytest.approx([0.005, 0.01, 0.01, 0.0075, 0.005, 0.0025])
    assert _rates(1, 4, decay=True) == pytest.approx([0.01, 0.01, 0.01 * 2 / 3, 0.01 / 3])
    assert _rates(0, 4, decay=True) == pytest.approx([0.01, 0.0075, 0.005, 0.0025])


def test_a_resumed_schedule_continues_where_the_run_stood() -> None:
    assert _rates(2, 6, decay=True, done=3) == pytest.approx([0.0075, 0.005, 0.0025])
    assert _rates(4, 7, decay=False, done=2) == pytest.approx([0.0075, 0.01, 0.01, 0.01, 0.01])
