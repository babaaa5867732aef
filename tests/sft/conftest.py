"""Shared fixtures of the SFT tests."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from aspen_rl.datagen import family_of
from aspen_rl.datagen.demos import record_demos
from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.tasks import AspenTask, load_tasks

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def heater() -> tuple[AspenTask, dict[str, Any]]:
    """The first generated heater eval task (feed at 77 °F = 25.0 °C, outlet 356 °F) and its demonstration."""
    task = next(t for t in load_tasks(ROOT / "data" / "generated" / "eval.jsonl") if family_of(t) == "heater")

    async def record() -> list[dict[str, Any]]:
        async with in_process_client() as client:
            kept, dropped = await record_demos([task], client)
        assert dropped == []
        return kept

    (demo,) = asyncio.run(record())
    return task, demo
