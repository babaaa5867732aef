"""The algorithm registry: the table ``--algorithm NAME`` is looked up in; nothing else lists algorithms.

Each algorithm declares its :class:`~aspen_rl.algorithms.base.AlgorithmSpec` in its own package; this
table holds the shipped ones. A user's own algorithm is one :func:`register_algorithm` call (before
``main``)::

    from aspen_rl.algorithms.registry import AlgorithmSpec, register_algorithm

    register_algorithm(AlgorithmSpec("mine", build=lambda ctx: MyAlgorithm(ctx.resources)))

Importing this module imports nothing heavy (no Agent Lightning, no torch).
"""

from __future__ import annotations

from aspen_rl.algorithms.base import AlgorithmSpec, BuildContext
from aspen_rl.algorithms.baseline_spec import BASELINE
from aspen_rl.algorithms.grpo.spec import GRPO
from aspen_rl.algorithms.prompt_opt.spec import PROMPT_OPT
from aspen_rl.algorithms.sft.spec import SFT
from aspen_rl.algorithms.verl.spec import VERL
from aspen_rl.errors import UsageError
from aspen_rl.settings import Settings

__all__ = [
    "AlgorithmSpec",
    "BuildContext",
    "algorithm_names",
    "check_algorithm_sections",
    "get_algorithm",
    "register_algorithm",
]

_REGISTRY: dict[str, AlgorithmSpec] = {spec.name: spec for spec in (BASELINE, PROMPT_OPT, GRPO, VERL, SFT)}


def register_algorithm(spec: AlgorithmSpec, *, replace: bool = False) -> AlgorithmSpec:
    """Add ``spec`` to the table (``replace=True`` to override a registered name)."""
    if spec.name in _REGISTRY and not replace:
        raise ValueError(f"algorithm {spec.name!r} is already registered")
    _REGISTRY[spec.name] = spec
    return spec


def algorithm_names() -> tuple[str, ...]:
    """Registered names, in registration order."""
    return tuple(_REGISTRY)


def get_algorithm(name: str) -> AlgorithmSpec:
    """The spec registered as ``name``.

    Raises:
        UsageError: no such algorithm (the message lists the known ones).
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UsageError(f"unknown algorithm {name!r}; known: {', '.join(algorithm_names())}") from None


def check_algorithm_sections(settings: Settings) -> None:
    """Refuse an ``algorithms.<name>`` settings section that names no registered algorithm (``grop:``).

    Settings keep the sections they do not type themselves as given; this is where the registry is
    known, so this is where a misspelt one is caught.

    Raises:
        UsageError: the unknown section(s), with the known names.
    """
    known = algorithm_names()
    unknown = sorted(name for name in settings.algorithms.section_names() if name not in known)
    if unknown:
        raise UsageError(
            f"invalid settings: unknown algorithm section(s) {', '.join(unknown)}; known: {', '.join(known)}"
        )
