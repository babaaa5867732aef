"""SFT's ``mixed_precision: bf16``: the model's matmuls run in bfloat16 while its weights and AdamW state
stay float32, the loss stays close to the float32 one, it still learns; a GPU without bfloat16 is refused
before any work."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import torch

from aspen_rl.algorithms.sft.config import SFTConfig
from aspen_rl.algorithms.sft.preflight import SFTPreflightError, check_bf16
from aspen_rl.algorithms.sft.trainer import SFTTrainer
from aspen_rl.llm.tiny_bytes import build_tiny_model
from aspen_rl.llm.types import TrajectoryRow

VOCAB = 64


def _rows(n: int = 8) -> list[TrajectoryRow]:
    rng = random.Random(3)
    out = []
    for _ in range(n):
        prompt = [rng.randrange(1, VOCAB) for _ in range(12)]
        out.append(TrajectoryRow(prompt + prompt[:6], [0] * 12 + [1] * 6, [0.0] * 18))  # learn to repeat
    return out


def _trainer(tmp_path: Path, precision: str) -> SFTTrainer:
    cfg = SFTConfig(
        model="tiny",
        device="cpu",
        dtype="float32",
        mixed_precision=precision,  # type: ignore[arg-type]
        lora={"enabled": False},  # type: ignore[arg-type]
        epochs=30,
        batch_size=4,
        micro_batch_size=4,
        learning_rate=3e-3,
        lr_schedule="constant",
        output_dir=str(tmp_path),
        run_name=precision,
    )
    return SFTTrainer(
        cfg, model=build_tiny_model(VOCAB, seed=0, hidden_size=64, num_layers=2), tokenizer=None
    )


def test_bf16_runs_the_matmuls_in_bfloat16_and_keeps_float32_weights(tmp_path: Path) -> None:
    rows = _rows()
    seen: dict[str, set[torch.dtype]] = {}
    losses = {}
    for precision in ("no", "bf16"):
        trainer = _trainer(tmp_path, precision)
        layer = next(m for m in trainer.model.modules() if isinstance(m, torch.nn.Linear))
        dtypes = seen.setdefault(precision, set())
        handle = layer.register_forward_hook(lambda _m, _i, out, d=dtypes: d.add(out.dtype))
        nll, count = trainer.loss(rows[:4])
        handle.remove()
        losses[precision] = float(nll.detach()) / count
        if precision == "bf16":
            history = trainer.train(rows)
            assert history[-1]["loss"] < 0.5 * history[0]["loss"]  # it learns the repeat
            assert all(p.dtype == torch.float32 for p in trainer.model.parameters())
            state = trainer.optimizer.state[trainer.params[0]]
            assert state["exp_avg"].dtype == torch.float32
    assert seen == {"no": {torch.float32}, "bf16": {torch.bfloat16}}
    assert losses["bf16"] == pytest.approx(losses["no"], rel=2e-2)


def test_a_gpu_without_bfloat16_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    check_bf16("cpu")  # autocast to bfloat16 runs on any CPU
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a, **k: "Tesla T4")
    with pytest.raises(SFTPreflightError) as refused:
        check_bf16("auto")
    assert "Tesla T4" in str(refused.value) and "mixed_precision: no" in str(refused.value)
