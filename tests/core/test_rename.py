"""Renamed tasks: new block and stream ids everywhere, and the reference still solves them on the mock."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from aspen_rl.datagen import SHIPPED_FAMILIES, family_of
from aspen_rl.datagen.demos import record_demos
from aspen_rl.datagen.regenerate import in_process_client
from aspen_rl.datagen.rename import renamed
from aspen_rl.tasks import load_tasks

GENERATED = Path(__file__).resolve().parents[2] / "data" / "generated"


def _ids(text: str, name: str) -> int:
    return len(re.findall(rf"(?<![A-Za-z0-9\-]){re.escape(name)}(?![A-Za-z0-9\-])", text))


async def test_a_renamed_task_of_every_family_is_solved_by_its_renamed_reference() -> None:
    tasks = load_tasks(GENERATED / "train.jsonl")
    originals = [next(t for t in tasks if family_of(t) == name) for name in SHIPPED_FAMILIES]
    rng = random.Random(0)
    copies = [renamed(t, rng) for t in originals]
    for old, new in zip(originals, copies, strict=True):
        config = old.reference_config or {}
        names = [b["name"] for b in config["blocks"]] + list(config["streams"])
        new_config = new.reference_config or {}
        new_names = [b["name"] for b in new_config["blocks"]] + list(new_config["streams"])
        assert len(set(new_names)) == len(names) and not set(names) & set(new_names)
        for before, after in zip(names, new_names, strict=True):
            # every mention moved: request, config, targets (a block's sheet is '<BLOCK>_result')
            assert _ids(new.user_requirement, before) == 0 and _ids(new.user_requirement, after) >= 1
            whole_old = json.dumps(old.model_dump(mode="json"), ensure_ascii=False)
            whole_new = json.dumps(new.model_dump(mode="json"), ensure_ascii=False)
            assert _ids(whole_new, after) == _ids(whole_old, before) >= 2, (family_of(old), before, after)
        assert new.task_id == old.task_id + "-rn" and len(new.expected_output) == len(old.expected_output)
    async with in_process_client() as client:
        kept, dropped = await record_demos(copies, client)
    assert dropped == [] and len(kept) == len(SHIPPED_FAMILIES)  # every reference still scores 1.0
    for task, demo in zip(copies, kept, strict=True):  # the demonstrations write the new ids
        config = task.reference_config or {}
        transcript = json.dumps(demo["messages"], ensure_ascii=False)
        assert all(_ids(transcript, b["name"]) >= 3 for b in config["blocks"]), task.task_id
