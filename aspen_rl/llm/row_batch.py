"""Training rows right-padded into one tensor batch, aligned for next-token scoring (the trainer's input)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from aspen_rl.llm.types import TrajectoryRow


@dataclass
class RowBatch:
    """Right-padded rows; per-token tensors are ``[rows, width - 1]`` (t scores ``input_ids[:, t+1]``)."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    loss_mask: torch.Tensor
    engine_logprobs: torch.Tensor

    def to(self, device: torch.device) -> RowBatch:
        """The same batch on another device."""
        return RowBatch(
            *(
                t.to(device)
                for t in (self.input_ids, self.attention_mask, self.loss_mask, self.engine_logprobs)
            )
        )


def collate(rows: Sequence[TrajectoryRow], pad_token_id: int = 0) -> RowBatch:
    """Right-pad rows (pad tokens are masked out of attention and loss)."""
    width = max(len(r.input_ids) for r in rows)
    ids = torch.full((len(rows), width), pad_token_id, dtype=torch.long)
    attention = torch.zeros((len(rows), width), dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.float32)
    engine = torch.zeros((len(rows), width), dtype=torch.float32)
    for i, row in enumerate(rows):
        n = len(row.input_ids)
        ids[i, :n] = torch.tensor(row.input_ids, dtype=torch.long)
        attention[i, :n] = 1
        mask[i, :n] = torch.tensor(row.loss_mask, dtype=torch.float32)
        engine[i, :n] = torch.tensor(row.engine_logprobs, dtype=torch.float32)
    return RowBatch(ids, attention, mask[:, 1:], engine[:, 1:])
