"""Checkpoint files of a GRPO run: ``<checkpoint_dir>/<run>/step_<n>/`` and finding the latest one.

Importing this module does not import torch (the functions that need it import it), so the CLI's
``--resume`` preflight can find and read checkpoints before anything heavy loads.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch

MODEL_DIR = "model"
"""Sub-directory with the full model or the LoRA adapter (``save_pretrained`` format)."""
TOKENIZER_DIR = "tokenizer"
OPTIMIZER_FILE = "optimizer.pt"
RNG_FILE = "rng.pt"
STATE_FILE = "trainer_state.json"

_STEP_DIR = re.compile(r"^step_(\d+)$")


def latest_checkpoint(run_dir: str | Path) -> Path | None:
    """The complete ``step_<n>`` directory with the largest n under a run directory, or None."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        return None
    steps = []
    for child in run_dir.iterdir():
        match = _STEP_DIR.match(child.name)
        if match and (child / STATE_FILE).is_file():
            steps.append((int(match.group(1)), child))
    return max(steps)[1] if steps else None


def rng_state() -> dict[str, Any]:
    """Python and torch RNG states (CPU and, when present, CUDA)."""
    import torch

    state: dict[str, Any] = {"python": random.getstate(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    """Restore what ``rng_state`` captured."""
    import torch

    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def write_state(path: Path, state: dict[str, Any]) -> None:
    """Write ``trainer_state.json`` last, so its presence marks a complete checkpoint."""
    tmp = path / (STATE_FILE + ".tmp")
    tmp.write_text(json.dumps(state, indent=2, default=str), encoding="utf-8")
    tmp.replace(path / STATE_FILE)


def read_state(path: Path) -> dict[str, Any]:
    """Read ``trainer_state.json`` of a checkpoint directory."""
    file = Path(path) / STATE_FILE
    if not file.is_file():
        raise FileNotFoundError(f"not a complete GRPO checkpoint (no {STATE_FILE}): {path}")
    return json.loads(file.read_text(encoding="utf-8"))


def load_full_state_dict(model_dir: Path) -> dict[str, torch.Tensor]:
    """All tensors of a ``save_pretrained`` directory (single or sharded safetensors)."""
    from safetensors.torch import load_file

    single = model_dir / "model.safetensors"
    if single.is_file():
        return load_file(str(single))
    index = model_dir / "model.safetensors.index.json"
    if index.is_file():
        shards = sorted(set(json.loads(index.read_text(encoding="utf-8"))["weight_map"].values()))
        state: dict[str, torch.Tensor] = {}
        for shard in shards:
            state.update(load_file(str(model_dir / shard)))
        return state
    raise FileNotFoundError(f"no safetensors weights in {model_dir}")
