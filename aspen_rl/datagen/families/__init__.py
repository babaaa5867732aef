"""Task families: importing this package registers every family in ``FAMILIES`` (one entry per family)."""

from __future__ import annotations

from aspen_rl.datagen.families import columns, reactors, recycles, single, trains

# registered after the shipped families, so FAMILIES keeps their order; opt-in (not in SHIPPED_FAMILIES)
from aspen_rl.datagen.families import separators, cstr  # isort: skip

__all__ = ["columns", "cstr", "reactors", "recycles", "separators", "single", "trains"]
