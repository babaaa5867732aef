"""Lookup warm-up: teach a model built from a config to find a value by its key, in any order.

A config's numbers are the request's, but found by meaning: ``TEMP_VALUE`` takes the number after "heats it
to", wherever the request says it, and the config's keys come in another order than the request's phrases.
The copy warm-up (:mod:`copy_warmup`) teaches a string copied in order; a model that has it still writes a
guess of the right shape in most wrong values (``benchmarks/config_tokens.py --show-wrong``: 22 of 28 wrong
numbers are no number of the request). This trains multi-query associative recall (Arora et al., 2023,
"Zoology"), with a twist the task has: the query names a key by a *partner* token, a fixed pairing the model
learns, as a config key names a request phrase. A row is ``filler key value ... filler key value`` (the
request), then ``partner value ...`` for the same keys in another order (the config); loss on the second
values only.
"""

from __future__ import annotations

from typing import Any

import torch

from aspen_rl.algorithms.sft.copy_warmup import IGNORE, train_step


class LookupTask:
    """The fixed key pairing of one run and the rows drawn from it.

    Args:
        token_ids: Ids to draw keys, partners, values and filler from (``ordinary_token_ids``);
            keys and partners are set aside, so a value or filler token is never a key.
        n_keys: Keys (and as many partners, one token each).
        key_length: Tokens a key spans, drawn from a few words, so no single token names a key (the request's
            "heats it to" and "at" share words with other phrases).
        seed: Seed of the pairing.
    """

    def __init__(
        self, token_ids: torch.Tensor, *, n_keys: int = 32, key_length: int = 2, seed: int = 0
    ) -> None:
        words = 2
        while words**key_length < n_keys:
            words += 1
        if n_keys < 2 or key_length < 1 or len(token_ids) < words + n_keys + 2:
            raise ValueError(
                f"need n_keys >= 2, key_length >= 1 and more than {words + n_keys + 1} token ids "
                f"(got {n_keys}, {key_length}, {len(token_ids)})"
            )
        generator = torch.Generator().manual_seed(seed)
        order = token_ids[torch.randperm(len(token_ids), generator=generator)]
        vocabulary = order[:words]
        combos = torch.cartesian_prod(*[vocabulary] * key_length).reshape(-1, key_length)
        self.keys = combos[torch.randperm(len(combos), generator=generator)[:n_keys]]
        self.partners = order[words : words + n_keys]
        self.pool = order[words + n_keys :]

    def batch(
        self,
        rows: int,
        pairs: int,
        generator: torch.Generator,
        *,
        value_lengths: tuple[int, int] = (1, 4),
        filler: tuple[int, int] = (0, 8),
        partnered: bool = True,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``rows`` rows of ``pairs`` distinct keys each with a random value (lengths inclusive) after random
        filler, then the keys again, as partners (or as themselves with ``partnered=False``: plain recall),
        shuffled, each followed by its value. Rows are right-padded with labels :data:`IGNORE`.

        Returns:
            ids, labels (the queried values' tokens), and a mask of each queried value's first token.
        """
        if not 1 <= pairs <= len(self.keys):
            raise ValueError(f"pairs must be 1..{len(self.keys)}, got {pairs}")

        def draw(low: int, high: int) -> int:
            return int(torch.randint(low, high + 1, (1,), generator=generator))

        def tokens(n: int) -> list[int]:
            return self.pool[torch.randint(0, len(self.pool), (n,), generator=generator)].tolist()

        built: list[tuple[list[int], list[int], list[bool]]] = []
        for _ in range(rows):
            chosen = torch.randperm(len(self.keys), generator=generator)[:pairs].tolist()
            values = {k: tokens(draw(*value_lengths)) for k in chosen}
            ids: list[int] = []
            for k in chosen:
                ids += tokens(draw(*filler)) + self.keys[k].tolist() + values[k]
            labels = [IGNORE] * len(ids)
            first = [False] * len(ids)
            for j in torch.randperm(pairs, generator=generator).tolist():
                k = chosen[j]
                asked = [int(self.partners[k])] if partnered else self.keys[k].tolist()
                ids += asked
                labels += [IGNORE] * len(asked)
                first += [False] * len(asked)
                ids += values[k]
                labels += values[k]
                first += [True] + [False] * (len(values[k]) - 1)
            built.append((ids, labels, first))
        width = max(len(ids) for ids, _, _ in built)
        pad = int(self.pool[0])
        ids_t = torch.tensor([ids + [pad] * (width - len(ids)) for ids, _, _ in built])
        labels_t = torch.tensor([labels + [IGNORE] * (width - len(labels)) for _, labels, _ in built])
        first_t = torch.tensor([first + [False] * (width - len(first)) for _, _, first in built])
        return ids_t, labels_t, first_t


class LookupRehearsal:
    """One lookup step at a time with its own AdamW: the warm-up's loop, and a rehearsal between SFT
    updates (as :class:`copy_warmup.CopyRehearsal` keeps the copy).

    Args:
        model: The model to train in place (its train/eval mode is left as it is).
        task: The key pairing.
        tokens_per_step: About this many tokens a step.
        pairs: Keys a row holds (low, high), inclusive, drawn per step.
        learning_rate: AdamW's learning rate.
        seed: Seed of the rows.
    """

    def __init__(
        self,
        model: Any,
        task: LookupTask,
        *,
        tokens_per_step: int = 2048,
        pairs: tuple[int, int] = (4, 12),
        learning_rate: float = 1e-3,
        seed: int = 0,
    ) -> None:
        if not 1 <= pairs[0] <= pairs[1] <= len(task.keys):
            raise ValueError(f"pairs must be (low, high) within 1..{len(task.keys)}, got {pairs}")
        self.model = model
        self.task = task
        self.tokens_per_step = tokens_per_step
        self.pairs = pairs
        self.generator = torch.Generator().manual_seed(seed)
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)

    def step(self) -> float:
        """One optimiser step on fresh rows; returns its loss (mean over the queried values' tokens)."""
        pairs = int(torch.randint(self.pairs[0], self.pairs[1] + 1, (1,), generator=self.generator))
        rows = max(
            1, self.tokens_per_step // (pairs * 14)
        )  # ~14 tokens a pair: filler 4, key 1, value 2.5, twice
        ids, labels, _ = self.task.batch(rows, pairs, self.generator)
        return train_step(self.model, self.optimizer, ids, labels)


@torch.no_grad()
def lookup_accuracy(
    model: Any, task: LookupTask, *, pairs: int = 8, rows: int = 16, partnered: bool = True, seed: int = 99
) -> dict[str, float]:
    """Greedy teacher-forced accuracy on fresh rows' queried values: every value token, and each value's
    first token (the one a lookup decides; the rest may follow by copy)."""
    ids, labels, first = task.batch(rows, pairs, torch.Generator().manual_seed(seed), partnered=partnered)
    device = next(model.parameters()).device
    predicted = model(input_ids=ids.to(device)).logits[:, :-1].argmax(-1).cpu()
    target, first = labels[:, 1:], first[:, 1:]
    right = predicted == target
    scored = target != IGNORE
    return {
        "tokens": round(float(right[scored].float().mean()), 3),
        "first": round(float(right[first].float().mean()), 3),
    }
