"""Shapes of the real service's ``POST /run-aspen-simulation`` answer, and result-file references."""

from __future__ import annotations

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
