"""Regenerate tasks' expected values by running their reference configs on the simulator."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel

from aspen_rl.contract.run_answer import result_file_path_of
from aspen_rl.simulator.client import SimulatorClient
from aspen_rl.tasks.checks import UNREGENERATED_TAG
from aspen_rl.tasks.compare import same_number
from aspen_rl.tasks.datasets import load_tasks, save_tasks
from aspen_rl.tasks.model import AspenTask

SIGNIFICANT_DIGITS = 6


class RegenerationError(RuntimeError):
    """A reference config did not run, or a target's cell is missing from its results workbook."""


class ValueChange(BaseModel):
    """One expected value that regeneration changed."""

    task_id: str
    target: str
    old: float
    new: float


def round_significant(value: float, digits: int = SIGNIFICANT_DIGITS) -> float:
    """``value`` rounded to ``digits`` significant digits (keeps stored files free of float noise)."""
    if value == 0 or not math.isfinite(value):
        return value
    return float(f"{value:.{digits}g}")


async def regenerate_task(task: AspenTask, client: SimulatorClient) -> tuple[AspenTask, list[ValueChange]]:
    """Run ``task.reference_config`` and rewrite every target value from its results workbook.

    The run goes through ``POST /run-aspen-simulation``; each target's cell (sheet, row, column) is read
    from ``GET /get-aspen-result`` of the returned ``result_file_path``. Tolerances and units are kept.

    Args:
        task: A task; one without a reference config is returned unchanged.
        client: Simulator client.

    Returns:
        The updated task and the values that changed.

    Raises:
        RegenerationError: The run failed, or a target's cell is missing, not a number, or stated in
            another unit than the target's.
    """
    if task.reference_config is None:
        return task, []
    answer = await client.run_simulation(task.reference_config)
    result_file_path = result_file_path_of(answer)
    if result_file_path is None:
        reason = (
            f"{answer.get('error_code') or answer.get('error_type')}: {answer.get('error_message')}"
            if answer.get("success") is not True
            else "the run succeeded but returned no result_file_path"
        )
        raise RegenerationError(f"task {task.task_id}: reference config failed: {reason}")
    results = await client.get_result(result_file_path)
    targets = []
    changes = []
    for target in task.expected_output:
        cell = target.cell(results)
        if cell is None or cell.number is None:
            found = "is missing" if cell is None else f"holds {cell.value!r}, not a number"
            raise RegenerationError(
                f"task {task.task_id}: target {target.name!r}: {target.address} {found} in the results "
                f"workbook {result_file_path}"
            )
        if (cell.unit or "") != target.unit:
            raise RegenerationError(
                f"task {task.task_id}: target {target.name!r}: {target.address} is stated in "
                f"{cell.unit or 'no unit'!r} in the results workbook; the target says "
                f"{target.unit or 'no unit'!r}"
            )
        new = round_significant(cell.number)
        if same_number(new, target.value):
            new = target.value  # unchanged within float noise: keep the stored digits
        updated = target.model_copy(update={"value": new})
        if updated.tolerance() == 0.0:
            raise RegenerationError(
                f"task {task.task_id}: target {target.name!r} has value 0 and only a relative tolerance; "
                "set abs_tol"
            )
        if new != target.value:
            changes.append(ValueChange(task_id=task.task_id, target=target.name, old=target.value, new=new))
        targets.append(updated)
    tags = [t for t in task.tags if t != UNREGENERATED_TAG]
    return task.model_copy(update={"expected_output": targets, "tags": tags}), changes


async def regenerate_file(
    path: str | Path,
    client: SimulatorClient,
    *,
    write: bool = True,
    on_task: Callable[[AspenTask, int, int], None] | None = None,
) -> list[ValueChange]:
    """Regenerate every task of a JSONL file; rewrite the file when ``write`` and something changed.

    ``on_task(task, index, total)`` is called before each task runs (1-based index), for progress.
    """
    tasks = load_tasks(path)
    updated: list[AspenTask] = []
    changes: list[ValueChange] = []
    for index, task in enumerate(tasks, 1):
        if on_task is not None:
            on_task(task, index, len(tasks))
        new_task, task_changes = await regenerate_task(task, client)
        updated.append(new_task)
        changes.extend(task_changes)
    if write and (changes or updated != tasks):
        save_tasks(updated, path)
    return changes


class InProcessTransport(httpx.ASGITransport):
    """The in-process mock's transport. Closing it stops the mock's engine, as a served mock's lifespan does
    (an ASGI transport runs no lifespan): a run left in flight by a cancelled call stops at its next time
    check instead of holding the interpreter's exit for up to its run budget. It then removes the results
    folder it owns, if any."""

    def __init__(self, app: Any, folder: tempfile.TemporaryDirectory[str] | None = None) -> None:
        super().__init__(app=app)
        self.folder = folder

    async def aclose(self) -> None:
        await super().aclose()
        self.app.state.service.stop()  # type: ignore[attr-defined]
        if self.folder is not None:
            self.folder.cleanup()


def in_process_client(results_dir: str | Path | None = None, **settings: Any) -> SimulatorClient:
    """A client for the mock simulator running in this process (one engine thread, no port, no network).

    Args:
        results_dir: Where the mock writes results files; by default a temporary folder, removed when
            the client closes (unclosed: when it is collected or the interpreter exits).
        settings: More of the mock's settings (``simulator_mock.service.settings.Settings`` fields).
    """
    from simulator_mock.service.app import create_app
    from simulator_mock.service.settings import Settings as MockSettings

    owned = tempfile.TemporaryDirectory(prefix="aspen_rl_regen_") if results_dir is None else None
    folder = Path(owned.name if owned is not None else str(results_dir))
    app = create_app(MockSettings(**{**settings, "workers": 0, "results_dir": folder}))
    return SimulatorClient("http://simulator-mock.local", transport=InProcessTransport(app, owned))


async def regenerate_files(
    paths: Sequence[str | Path],
    client: SimulatorClient,
    *,
    write: bool = True,
    on_task: Callable[[AspenTask, int, int], None] | None = None,
) -> dict[str, list[ValueChange]]:
    """Regenerate several files; returns the changes per file (``on_task`` as in :func:`regenerate_file`)."""
    return {str(p): await regenerate_file(p, client, write=write, on_task=on_task) for p in paths}
