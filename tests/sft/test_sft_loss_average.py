"""SFT's loss average: over assistant tokens, or over assistant turns (a short first call weighs as much as a
long config), checked against the log-likelihoods computed by hand on a tiny model."""

from __future__ import annotations

import pytest
import torch

from aspen_rl.algorithms.sft.config import SFTConfig
from aspen_rl.algorithms.sft.trainer import SFTTrainer, turn_weights
from aspen_rl.llm.settings import LoRASettings
from aspen_rl.llm.tiny_bytes import build_tiny_model
from aspen_rl.llm.types import TrajectoryRow


def test_each_turn_weighs_one_whatever_its_length() -> None:
    assert turn_weights([0, 1, 1, 0, 0, 1, 1, 1, 1]) == [0, 0.5, 0.5, 0, 0, 0.25, 0.25, 0.25, 0.25]
    assert turn_weights([0, 0, 1]) == [0, 0, 1.0]
    assert turn_weights([0, 0]) == [0, 0]


def _row(ids: list[int], mask: list[int]) -> TrajectoryRow:
    return TrajectoryRow(ids, mask, [0.0] * len(ids))


@pytest.mark.parametrize("average", ["token", "turn"])
def test_the_update_loss_is_the_mean_over_tokens_or_over_turns(average: str) -> None:
    model = build_tiny_model(16, hidden_size=16, num_heads=2, seed=0)
    config = SFTConfig(
        model="tiny", device="cpu", dtype="float32", lora=LoRASettings(enabled=False), loss_average=average
    )
    trainer = SFTTrainer(config, model=model, tokenizer=None)
    # a 1-token turn and a 4-token turn in one row; one 2-token turn in a shorter row
    rows = [_row([1, 2, 3, 4, 5, 6, 7, 8, 9], [0, 0, 1, 0, 0, 1, 1, 1, 1]), _row([3, 4, 5, 6], [0, 0, 1, 1])]
    with torch.no_grad():
        summed, count = trainer.loss(rows)
        nll = []
        for row in rows:
            logits = model(input_ids=torch.tensor([row.input_ids])).logits[0]
            logprobs = torch.log_softmax(logits, -1)
            nll.append([-float(logprobs[t - 1, row.input_ids[t]]) for t in range(1, len(row.input_ids))])
    first, second = nll  # nll[r][t - 1] scores token t
    turns = [[first[1]], first[4:8], second[1:3]]
    if average == "token":
        assert count == 7
        expected = sum(sum(t) for t in turns) / 7
    else:
        assert count == 3
        expected = sum(sum(t) / len(t) for t in turns) / 3
    assert float(summed) / count == pytest.approx(expected, rel=1e-5)
    assert count == trainer._denominator(rows)
