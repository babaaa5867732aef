"""Reading a YAML configuration file as a mapping, with errors that name the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def read_mapping(path: Path, *, what: str, error: type[ValueError] = ValueError) -> dict[str, Any]:
    """The top-level mapping of a YAML file (an empty file is ``{}``).

    Args:
        path: The file.
        what: What the mapping holds, for the error message ("GRPO settings").
        error: The exception type to raise (a ``ValueError`` subclass of the caller's domain).

    Raises:
        error: ``<path>: malformed YAML: ...`` or ``<path>: expected a mapping of <what>, got <type>``.
    """
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise error(f"{path}: malformed YAML: {exc}") from exc
    if loaded is None:
        return {}
    if not isinstance(loaded, dict):
        raise error(f"{path}: expected a mapping of {what}, got {type(loaded).__name__}")
    return loaded
