"""The learning-rate schedule of GRPO and SFT, built from ``torch.optim.lr_scheduler`` parts.

Update ``u`` (0-based) of a run with ``warmup`` warm-up updates uses ``lr * (u + 1) / warmup`` while
``u < warmup`` (so no update runs at learning rate 0), then ``lr``, or, with ``decay_updates`` set,
``lr * (1 - (u - warmup) / decay_updates)``.
"""

from __future__ import annotations

import warnings

import torch
from torch.optim.lr_scheduler import ConstantLR, LinearLR, LRScheduler, SequentialLR


def warmup_schedule(
    optimizer: torch.optim.Optimizer, *, warmup: int, decay_updates: int | None = None, done: int = 0
) -> LRScheduler:
    """Linear warm-up, then constant or linear decay, positioned for update ``done`` (after ``done`` updates).

    Args:
        optimizer: Its param groups' ``lr`` (and ``initial_lr``) are the peak learning rate.
        warmup: Warm-up updates (0 or 1: none; the decay starts after them).
        decay_updates: Updates of the linear decay after the warm-up (``None``: constant after it).
        done: Updates already made (a resumed run); the scheduler is stepped that far.
    """
    phases: list[LRScheduler] = []
    if warmup > 1:
        phases.append(LinearLR(optimizer, start_factor=1.0 / warmup, end_factor=1.0, total_iters=warmup - 1))
    elif warmup == 1 and decay_updates:  # one update at the peak before the decay starts
        phases.append(ConstantLR(optimizer, factor=1.0, total_iters=1))
    if decay_updates:
        phases.append(LinearLR(optimizer, start_factor=1.0, end_factor=0.0, total_iters=decay_updates))
    if not phases:
        scheduler: LRScheduler = ConstantLR(optimizer, factor=1.0, total_iters=0)
    elif len(phases) == 1:
        scheduler = phases[0]
    else:
        scheduler = SequentialLR(optimizer, phases, milestones=[warmup])
    with warnings.catch_warnings():  # stepping to a resumed position, before this optimiser's first step
        warnings.simplefilter("ignore", UserWarning)
        for _ in range(done):
            scheduler.step()
    return scheduler
