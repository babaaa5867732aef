"""Reading a YAML configuration file as a mapping, with errors that name the file.

Also the one loader of the typed configs (GRPO, SFT): a YAML file looked up in the working directory, then
the repository, keyword overrides merged over it, and the result validated into a pydantic model.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

_REPO_ROOT = Path(__file__).resolve().parents[1]

ModelT = TypeVar("ModelT", bound=BaseModel)


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


def resolve_config_path(path: str | Path) -> Path:
    """``path`` as it is when it exists or is absolute, else relative to the repository root."""
    candidate = Path(path)
    if candidate.exists() or candidate.is_absolute():
        return candidate
    return _REPO_ROOT / candidate


def read_config_file(
    path: str | Path, *, kind: str, what: str, error: type[ValueError]
) -> tuple[dict[str, Any], Path]:
    """The top-level mapping of a config file and where it was found (:func:`resolve_config_path`).

    Raises:
        FileNotFoundError: ``<kind> config not found: <path>``.
        error: as :func:`read_mapping`.
    """
    resolved = resolve_config_path(path)
    if not resolved.is_file():
        raise FileNotFoundError(f"{kind} config not found: {path}")
    return read_mapping(resolved, what=what, error=error), resolved


def deep_merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``base`` with ``overrides`` applied; where both hold a dict under a key, merged likewise."""
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = deep_merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_typed_config(
    model: type[ModelT],
    path: str | Path | None,
    overrides: dict[str, Any],
    *,
    kind: str,
    error: type[ValueError],
    describe: Callable[[ValidationError], str],
) -> ModelT:
    """Load ``model`` from a YAML file, then apply ``overrides`` (nested sections as dicts, merged).

    Args:
        model: The pydantic config class.
        path: YAML file (a mapping of the model's fields); None uses the defaults only. A relative path is
            looked up in the working directory, then in the repository.
        overrides: Field values that win over the file.
        kind: The config's name in messages ("GRPO": ``GRPO config not found: ...``, ``invalid GRPO config``).
        error: The caller's ``ValueError`` subclass.
        describe: Renders a validation error's problems for the message.

    Raises:
        error: malformed YAML, a non-mapping document, unknown keys or invalid values.
        FileNotFoundError: the file does not exist.
    """
    data: dict[str, Any] = {}
    source = "overrides"
    if path is not None:
        data, resolved = read_config_file(path, kind=kind, what=f"{kind} settings", error=error)
        source = str(resolved)
    data = deep_merge(data, overrides)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise error(f"{source}: invalid {kind} config: {describe(exc)}") from exc
