"""Checks of task targets against their reference config and the workbook contract, without a simulator."""

from __future__ import annotations

from collections.abc import Iterable

from aspen_rl.contract.workbook import (
    BLOCK_SHEET_SUFFIX,
    STREAM_SUMMARY,
    WORKBOOK_UNITS,
    WorkbookAddressError,
    check_address,
)
from aspen_rl.tasks.model import AspenTask

UNREGENERATED_TAG = "unregenerated"
"""A task tagged so has placeholder expected values: ``python -m aspen_rl.datagen regenerate`` fills them."""

REGENERATE_COMMAND = "python -m aspen_rl.datagen regenerate"


def target_errors(task: AspenTask) -> list[str]:
    """Every problem of the task's targets (empty when none), each naming the task and the target.

    Checked: the address shape (:func:`~aspen_rl.contract.workbook.check_address`); the unit is one the
    workbook states; with a reference config, a ``<BLOCK>_result`` sheet names a block of it and a
    Stream Summary column a stream of it.
    """
    errors: list[str] = []
    config = task.reference_config or {}
    blocks = {str(b.get("name")) for b in config.get("blocks") or [] if isinstance(b, dict)}
    blocks |= set((config.get("block_connections") or {}).keys())
    streams = {str(s) for s in config.get("streams") or []}
    for target in task.expected_output:
        where = f"task {task.task_id}: target {target.name!r}"
        try:
            check_address(target.sheet, target.row, target.column)
        except WorkbookAddressError as exc:
            errors.append(f"{where}: {exc}")
        if target.unit not in WORKBOOK_UNITS:
            known = ", ".join(repr(u) for u in sorted(WORKBOOK_UNITS))
            errors.append(f"{where}: unit {target.unit!r} is not one the results workbook states ({known})")
        if task.reference_config is None:
            continue
        if target.sheet == STREAM_SUMMARY:
            if target.column is not None and target.column not in streams:
                errors.append(
                    f"{where}: column {target.column!r} is not a stream of the reference config "
                    f"(streams: {', '.join(sorted(streams)) or 'none'})"
                )
        elif target.sheet.endswith(BLOCK_SHEET_SUFFIX):
            block = target.sheet[: -len(BLOCK_SHEET_SUFFIX)]
            if block not in blocks:
                errors.append(
                    f"{where}: sheet {target.sheet!r} names block {block!r}, which the reference config "
                    f"does not have (blocks: {', '.join(sorted(blocks)) or 'none'})"
                )
    return errors


def is_unregenerated(task: AspenTask) -> bool:
    """Expected values never regenerated: tagged ``unregenerated``, or a target with value 0 and no tolerance.

    Regeneration refuses a 0 with only a relative tolerance, so such a target is a placeholder.
    """
    if UNREGENERATED_TAG in task.tags:
        return True
    return any(t.value == 0 and t.tolerance() == 0 for t in task.expected_output)


def unregenerated_message(tasks: Iterable[AspenTask], files: Iterable[str] = ()) -> str | None:
    """A refusal naming the tasks whose expected values were never regenerated and the fixing command."""
    ids = [t.task_id for t in tasks if is_unregenerated(t)]
    if not ids:
        return None
    shown = ", ".join(ids[:10]) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
    command = " ".join([REGENERATE_COMMAND, *files]) if files else REGENERATE_COMMAND + " FILE.jsonl"
    return (
        f"task(s) {shown} hold placeholder expected values (tag {UNREGENERATED_TAG!r} or a target value 0 "
        f"with no tolerance) that were never regenerated; run: {command}"
    )
