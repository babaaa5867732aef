"""Lookup warm-up: values found by two-token keys named by partner tokens, and the mechanism carries over to a
pairing the model has not seen."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import torch

from aspen_rl.algorithms.sft.copy_warmup import IGNORE, copy_warmup, ordinary_token_ids
from aspen_rl.algorithms.sft.lookup_warmup import LookupRehearsal, LookupTask, lookup_accuracy
from aspen_rl.llm.tiny_bytes import build_tiny_model, build_tiny_tokenizer


def test_a_row_asks_each_key_once_by_its_partner_and_labels_only_the_values() -> None:
    task = LookupTask(torch.arange(10, 200), n_keys=8, key_length=2, seed=0)
    ids, labels, first = task.batch(4, 5, torch.Generator().manual_seed(1), filler=(0, 3))
    keys = {tuple(k.tolist()): i for i, k in enumerate(task.keys)}
    partners = {int(p): i for i, p in enumerate(task.partners)}
    assert not set(task.pool.tolist()) & (set(task.partners.tolist()) | set(task.keys.flatten().tolist()))
    for row, row_labels, row_first in zip(ids.tolist(), labels.tolist(), first.tolist(), strict=True):
        # the request: every key's value is what follows it before the next key or filler
        asked = [(j, partners[t]) for j, t in enumerate(row) if t in partners]
        assert len(asked) == 5 and len({k for _, k in asked}) == 5
        context = row[: asked[0][0]]
        for position, (j, key) in enumerate(asked):
            end = asked[position + 1][0] if position + 1 < len(asked) else j + 1 + 4
            span = zip(row[j + 1 : end], row_labels[j + 1 : end], strict=True)
            value = [t for t, lab in span if lab != IGNORE]
            assert value and row_labels[j] == IGNORE and row_first[j + 1]
            spans = [i for i in range(len(context) - 1) if keys.get((context[i], context[i + 1])) == key]
            assert len(spans) == 1
            assert context[spans[0] + 2 : spans[0] + 2 + len(value)] == value
        assert all(lab == IGNORE for lab in row_labels[: asked[0][0]])


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        LookupTask(torch.arange(10, 20), n_keys=8)
    task = LookupTask(torch.arange(10, 200), n_keys=8)
    with pytest.raises(ValueError):
        task.batch(2, 9, torch.Generator())
    model = build_tiny_model(200, hidden_size=16, num_layers=1, num_heads=2)
    with pytest.raises(ValueError):
        LookupRehearsal(model, task, pairs=(3, 9))


@pytest.fixture(scope="module")
def copying() -> tuple[Any, torch.Tensor]:
    """A 2-layer width-64 model after 800 copy steps: it copies fresh strings (the warm-up's start)."""
    tokenizer = build_tiny_tokenizer()
    token_ids = ordinary_token_ids(tokenizer)
    torch.set_num_threads(1)
    model = build_tiny_model(len(tokenizer), hidden_size=64, num_layers=2, num_heads=4, seed=0)
    copy_warmup(
        model, token_ids, steps=800, tokens_per_step=1024, lengths=(8, 32), learning_rate=3e-3, seed=0
    )
    return model, token_ids


def _curve(model: Any, task: LookupTask, steps: list[int], seed: int) -> tuple[Any, list[float]]:
    """A copy of ``model`` trained on ``task``, and its first-value accuracy after each of ``steps``."""
    model = copy.deepcopy(model)
    stepper = LookupRehearsal(model, task, tokens_per_step=1024, pairs=(2, 8), learning_rate=3e-3, seed=seed)
    accuracies, done = [], 0
    for mark in steps:
        for _ in range(mark - done):
            stepper.step()
        done = mark
        accuracies.append(lookup_accuracy(model, task)["first"])
    return model, accuracies


@pytest.mark.slow
def test_a_lookup_warmup_makes_a_new_pairing_learnt_fast(copying: tuple[Any, torch.Tensor]) -> None:
    """Pairing A's first value tokens 0.0 -> 1.0 in 600 steps; then a new pairing B, the same steps from the
    same seed, is learnt faster with the warm-up than from the copy alone. Measured after 25 / 50 / 150
    steps: 0.48 / 0.69 / 0.91 against 0.23 / 0.55 / 0.82 (AMD EPYC, 2026-11-29); on the machine the test was
    written on, 0.48 / 0.95 after 50 / 150 against 0.23 / 0.55. The gap is largest early and its size
    differs between the two machines (the copy-only model catches up by 150 steps on one and not the
    other; the cause is not isolated), so it is asserted over the first 50 steps. A copying model does not
    look a value up by its key's meaning; after the warm-up it learns a new pairing as the mechanism is
    already there."""
    model, token_ids = copying
    pairing_a = LookupTask(token_ids, n_keys=16, key_length=2, seed=1)
    pairing_b = LookupTask(token_ids, n_keys=16, key_length=2, seed=2)
    assert lookup_accuracy(model, pairing_a)["first"] < 0.2
    warmed, (learnt_a,) = _curve(model, pairing_a, [600], seed=3)
    assert learnt_a > 0.9
    _, with_warmup = _curve(warmed, pairing_b, [25, 50, 150], seed=4)
    _, copy_only = _curve(model, pairing_b, [25, 50], seed=4)
    assert with_warmup[-1] > 0.8
    early_gap = (with_warmup[0] - copy_only[0] + with_warmup[1] - copy_only[1]) / 2
    assert early_gap > 0.1  # 0.19 measured; ~0 if the warm-up carried nothing over to a new pairing
