"""Copy warm-up: teach a model built from a config to copy before it sees a demonstration.

An agent's turns are mostly copies: the result path of the last tool answer, the block, stream and component
names and the numbers of the requirement. A pretrained model copies from the start (induction heads); a
model built from a config does not, and SFT on a few hundred demonstrations teaches it the train set's names
and numbers instead (held-out get_result calls 0/8 right: each path is new). This trains it first on random
token strings shown twice, loss on the second showing only, the standard way induction heads are made to
form (Olsson et al., 2022). A gap of random tokens between the two showings makes the copy reach as far
back as a config's names sit in the prompt (several hundred tokens): a copy learnt over short distances
only does not reach there.
"""

from __future__ import annotations

from typing import Any

import torch

IGNORE = -100
"""Label of a position that is not trained (transformers' ignore index)."""


def copy_batch(
    token_ids: torch.Tensor, batch_size: int, length: int, generator: torch.Generator, *, gap: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """``batch_size`` rows of a random string of ``length`` tokens drawn from ``token_ids``, ``gap`` random
    tokens, then the string again; labels only on the second showing after its first token (the first is
    not predictable)."""
    string = token_ids[torch.randint(0, len(token_ids), (batch_size, length), generator=generator)]
    filler = token_ids[torch.randint(0, len(token_ids), (batch_size, gap), generator=generator)]
    ids = torch.cat([string, filler, string], dim=1)
    labels = ids.clone()
    labels[:, : length + gap + 1] = IGNORE
    return ids, labels


def ordinary_token_ids(tokenizer: Any) -> torch.Tensor:
    """The ids of ``tokenizer`` a copy string is drawn from: all but its special tokens."""
    special = set(tokenizer.all_special_ids)
    return torch.tensor([i for i in range(len(tokenizer)) if i not in special])


def copy_warmup(
    model: Any,
    token_ids: torch.Tensor,
    *,
    steps: int,
    tokens_per_step: int = 2048,
    lengths: tuple[int, int] = (8, 64),
    gaps: tuple[int, int] = (0, 0),
    learning_rate: float = 1e-3,
    seed: int = 0,
    log_every: int = 0,
) -> list[float]:
    """Train ``model`` in place for ``steps`` AdamW steps on repeated random strings of
    ``token_ids``; each step draws its string length from ``lengths`` and its gap from ``gaps`` (inclusive)
    and packs ``tokens_per_step`` tokens. One optimizer runs throughout: the copy forms suddenly, after a
    plateau (~1,800 steps at width 256) that an optimizer restarted every 25 steps did not cross.

    Returns:
        The loss of every step (mean over the second showings' tokens).
    """
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    trainer = CopyRehearsal(
        model,
        token_ids,
        tokens_per_step=tokens_per_step,
        lengths=lengths,
        gaps=gaps,
        learning_rate=learning_rate,
        seed=seed,
    )
    model.train()
    losses: list[float] = []
    for step in range(1, steps + 1):
        losses.append(trainer.step())
        if log_every and step % log_every == 0:
            recent = losses[-log_every:]
            print(
                f"  copy warm-up step {step}/{steps}: loss {sum(recent) / len(recent):.3f} "
                f"(mean of the last {len(recent)})",
                flush=True,
            )
    model.eval()
    return losses


class CopyRehearsal:
    """One copy step at a time, with its own AdamW state: the warm-up's loop, and a rehearsal between SFT
    updates. SFT at lr 2e-3 erases the warm-up's copy (fresh 24-token strings: 0.98 -> 0.02-0.17 after 3
    epochs in every such run of ``docs/benchmarks/learning_curve.md``), and the request's values are copies.

    Args:
        model: The model to train in place (its train/eval mode is left as it is).
        token_ids: Ids a copy string is drawn from (:func:`ordinary_token_ids`).
        tokens_per_step: Tokens packed into one step.
        lengths: String lengths (low, high), inclusive, drawn per step.
        gaps: Random tokens between the showings (low, high), inclusive, drawn per step.
        learning_rate: AdamW's learning rate.
        seed: Seed of the strings.
    """

    def __init__(
        self,
        model: Any,
        token_ids: torch.Tensor,
        *,
        tokens_per_step: int = 2048,
        lengths: tuple[int, int] = (8, 64),
        gaps: tuple[int, int] = (0, 0),
        learning_rate: float = 1e-3,
        seed: int = 0,
    ) -> None:
        if not 1 <= lengths[0] <= lengths[1] or not 0 <= gaps[0] <= gaps[1]:
            raise ValueError(f"need 1 <= lengths and 0 <= gaps, each (low, high); got {lengths}, {gaps}")
        self.model = model
        self.token_ids = token_ids
        self.tokens_per_step = tokens_per_step
        self.lengths = lengths
        self.gaps = gaps
        self.generator = torch.Generator().manual_seed(seed)
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)

    def step(self) -> float:
        """One optimiser step on a fresh batch; returns its loss (mean over the second showings' tokens)."""
        length = int(torch.randint(self.lengths[0], self.lengths[1] + 1, (1,), generator=self.generator))
        gap = int(torch.randint(self.gaps[0], self.gaps[1] + 1, (1,), generator=self.generator))
        rows = max(1, self.tokens_per_step // (2 * length + gap))
        ids, labels = copy_batch(self.token_ids, rows, length, self.generator, gap=gap)
        return train_step(self.model, self.optimizer, ids, labels)


def train_step(
    model: Any, optimizer: torch.optim.Optimizer, ids: torch.Tensor, labels: torch.Tensor
) -> float:
    """One optimiser step of ``model`` on ``ids`` with loss on ``labels`` (:data:`IGNORE` elsewhere);
    returns the loss."""
    device = next(model.parameters()).device
    loss = model(input_ids=ids.to(device), labels=labels.to(device)).loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return float(loss.detach())


@torch.no_grad()
def copy_accuracy(
    model: Any, token_ids: torch.Tensor, *, length: int, gap: int = 0, rows: int = 8, seed: int = 99
) -> float:
    """Greedy next-token accuracy (teacher-forced) on the second showing of fresh random strings."""
    ids, labels = copy_batch(token_ids, rows, length, torch.Generator().manual_seed(seed), gap=gap)
    device = next(model.parameters()).device
    predicted = model(input_ids=ids.to(device)).logits[:, :-1].argmax(-1).cpu()
    target = labels[:, 1:]
    scored = target != IGNORE
    return float((predicted[scored] == target[scored]).float().mean())
