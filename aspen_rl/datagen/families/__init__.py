"""Task families: importing this package registers every family in ``FAMILIES`` (one entry per family)."""

from __future__ import annotations

# The import order is the registration order, so FAMILIES lists the shipped families first, in the order the
# shipped sets were drawn with; the opt-in ones (not in SHIPPED_FAMILIES) come last.
from aspen_rl.datagen.families import single, columns, reactors, trains, recycles  # isort: skip
from aspen_rl.datagen.families import separators, cstr  # isort: skip

__all__ = ["columns", "cstr", "reactors", "recycles", "separators", "single", "trains"]
