"""Shapes of the real service's ``POST /run-aspen-simulation`` answer, and result-file references."""

from __future__ import annotations

import re
from typing import Any

ERROR_TYPE_CONFIG_WRITE = "模拟配置写入失败"
"""``error_type`` of a config that could not be written into (accepted by) the simulator."""
ERROR_TYPE_RUN_ERROR = "模拟运行过程发生错误"
"""``error_type`` of a config that was written but whose run ended with errors (did not solve)."""
ERROR_TYPE_RUN_FAILED = "模拟运行过程失败"
"""``error_type`` of a run that raised while running (the real service's third category)."""
RUN_ERROR_TYPES = frozenset({ERROR_TYPE_RUN_ERROR, ERROR_TYPE_RUN_FAILED})
"""Failure categories of a config the simulator accepted as input and then tried to run."""


def normalise_file_path(path: str) -> str:
    """A file path as compared between a run's answer and a later ``get_result`` argument.

    Surrounding blanks and quotes are dropped and backslashes read as slashes, so
    ``"C:\\\\results\\\\r.xlsx"`` and ``C:/results/r.xlsx`` name the same file; case is kept.
    """
    return str(path).strip().strip("\"'").strip().replace("\\", "/")


def result_file_path_of(answer: Any) -> str | None:
    """The ``result_file_path`` of a successful run answer, or ``None`` (failed run, odd answer)."""
    if not isinstance(answer, dict) or answer.get("success") is not True:
        return None
    path = answer.get("result_file_path")
    if isinstance(path, str) and path.strip():
        return path
    return None


_ASPEN_ERROR = re.compile(r"^\s*\*{2,3}\s*(?:SEVERE\s+)?ERROR\b")


def error_excerpt(message: str, limit: int) -> str:
    """At most ``limit`` characters of a failed run's ``error_message``, Aspen's error blocks first.

    The real service's ``error_message`` of a run error is Aspen's whole control-panel text, where the
    ``** ERROR`` / ``*** SEVERE ERROR`` blocks (the marker line and the indented lines under it) can come
    after thousands of characters of progress lines. Past ``limit``, those blocks are put first, then the
    text from its start, cut with a note of how much was left out.
    """
    if len(message) <= limit:
        return message
    lines = message.splitlines()
    blocks: list[str] = []
    index = 0
    while index < len(lines):
        if not _ASPEN_ERROR.match(lines[index]):
            index += 1
            continue
        block = [lines[index]]
        index += 1
        while index < len(lines) and lines[index][:1].isspace() and lines[index].strip():
            if _ASPEN_ERROR.match(lines[index]):
                break
            block.append(lines[index])
            index += 1
        blocks.append("\n".join(block))
    text = ("\n".join(blocks) + "\n--- whole message:\n" + message) if blocks else message
    if len(text) <= limit:
        return text
    return text[:limit] + f"... ({len(text) - limit} more characters)"
