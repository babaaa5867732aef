"""Seeded task generator: documented families, every draw verified on the simulator; demonstrations."""

from __future__ import annotations

from aspen_rl.datagen.build import (
    SHIPPED_FAMILIES,
    GenerationError,
    GenerationStats,
    family_of,
    generate_tasks,
    holdout_key,
    language_of,
)
from aspen_rl.datagen.drafts import FAMILIES, Draft, Family, TargetSpec, family

__all__ = [
    "FAMILIES",
    "SHIPPED_FAMILIES",
    "Draft",
    "Family",
    "GenerationError",
    "GenerationStats",
    "TargetSpec",
    "family",
    "family_of",
    "generate_tasks",
    "holdout_key",
    "language_of",
]
