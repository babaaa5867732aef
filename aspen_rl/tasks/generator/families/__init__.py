"""Task families: importing this package registers every family in ``FAMILIES`` (one entry per family)."""

from __future__ import annotations

from aspen_rl.tasks.generator.families import columns, reactors, recycles, single, trains

__all__ = ["columns", "reactors", "recycles", "single", "trains"]
