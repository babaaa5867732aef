"""The names of the registered algorithms: a leaf module, so settings can check section names.

:mod:`aspen_rl.algorithms.registry` adds every name it registers (the built-in ones included) here;
settings reads them without importing the registry, whose builders import settings.
"""

from __future__ import annotations

BUILT_IN = ("baseline", "prompt_opt", "grpo", "verl", "sft")
"""The algorithms the registry registers when it is imported (a test keeps the two in step)."""

_NAMES: dict[str, None] = dict.fromkeys(BUILT_IN)


def add_name(name: str) -> None:
    """Record a registered algorithm's name (keeps registration order)."""
    _NAMES[name] = None


def known_names() -> tuple[str, ...]:
    """Every registered name, the built-in ones first."""
    return tuple(_NAMES)
