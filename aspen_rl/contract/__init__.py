"""Pure helpers for the real Aspen service's contract: the results workbook and the run answer shapes.

Nothing here does I/O or imports the HTTP client, so the trace, the reward and the task model can use it.
"""

from __future__ import annotations

from aspen_rl.contract.run_answer import (
    ERROR_TYPE_CONFIG_WRITE,
    ERROR_TYPE_RUN_ERROR,
    ERROR_TYPE_RUN_FAILED,
    RUN_ERROR_TYPES,
    error_excerpt,
    normalise_file_path,
    result_file_path_of,
)
from aspen_rl.contract.workbook import (
    COMPONENT_SECTIONS,
    STREAM_SUMMARY,
    VALUE_COLUMN,
    Cell,
    WorkbookAddressError,
    check_address,
    is_workbook,
    lookup,
    numeric_cells,
    row_addresses,
)

__all__ = [
    "COMPONENT_SECTIONS",
    "ERROR_TYPE_CONFIG_WRITE",
    "ERROR_TYPE_RUN_ERROR",
    "ERROR_TYPE_RUN_FAILED",
    "RUN_ERROR_TYPES",
    "STREAM_SUMMARY",
    "VALUE_COLUMN",
    "Cell",
    "WorkbookAddressError",
    "check_address",
    "error_excerpt",
    "is_workbook",
    "lookup",
    "normalise_file_path",
    "numeric_cells",
    "result_file_path_of",
    "row_addresses",
]
