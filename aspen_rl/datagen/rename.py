"""Rename a task's blocks and streams at random: a copy exercise the names' prior cannot solve.

Generated tasks draw their block and stream names from a few per family (``B1``, ``FEED-1``, ...), so a small
model can write a config's names from that prior without reading the request. Renamed copies of train tasks
make the names unpredictable: the request is the only place they are written. The reference config,
targets and request change together, so a renamed task is solved exactly as the original.
"""

from __future__ import annotations

import json
import random
import re
import string

from aspen_rl.tasks.model import AspenTask

_LETTERS = string.ascii_uppercase
_MAX_LEN = 8  # Aspen Plus ids are at most 8 characters


def _word(name: str) -> re.Pattern[str]:
    """``name`` as a whole id: not inside a longer id (``B1`` in ``B1_result`` is, in ``B12`` is not)."""
    return re.compile(rf"(?<![A-Za-z0-9\-]){re.escape(name)}(?![A-Za-z0-9\-])")


def _fresh(rng: random.Random, stream: bool, taken: set[str], text: str) -> str:
    """A new id of the usual shape (``QK7``; a stream ``TW-3``) used nowhere in ``text`` and not ``taken``."""
    while True:
        letters = "".join(rng.choice(_LETTERS) for _ in range(rng.randint(1, 3)))
        digits = str(rng.randint(1, 99))
        name = f"{letters}-{digits}" if stream else f"{letters}{digits}"
        if len(name) <= _MAX_LEN and name not in taken and not _word(name).search(text):
            taken.add(name)
            return name


def renamed(task: AspenTask, rng: random.Random) -> AspenTask:
    """A copy of ``task`` with every block and stream of its reference config given a new random id, in the
    request, the config and the targets alike (``task_id`` gets a ``-rn`` suffix)."""
    config = task.reference_config or {}
    blocks = [str(b["name"]) for b in config.get("blocks", [])]
    streams = [str(s) for s in config.get("streams", [])]
    text = json.dumps(task.model_dump(mode="json"), ensure_ascii=False)
    taken: set[str] = set()
    mapping = {name: _fresh(rng, False, taken, text) for name in blocks}
    mapping |= {name: _fresh(rng, True, taken, text) for name in streams}
    if not mapping:
        return task
    pattern = re.compile("|".join(_word(n).pattern for n in sorted(mapping, key=len, reverse=True)))
    data = json.loads(pattern.sub(lambda m: mapping[m.group(0)], text))
    data["task_id"] = f"{task.task_id}-rn"
    return AspenTask.model_validate(data)
