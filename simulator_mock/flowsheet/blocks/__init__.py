"""Unit-operation models, one module per block family; every block class registers itself on definition.

Importing this package imports every module in it, so a new block type is one new module with one
:class:`Block` subclass: :data:`BLOCK_CLASSES` (the flowsheet's registry, the served type enum, the schema
documents and the workbook's result sheets) picks it up with nothing else to edit.
"""

from __future__ import annotations

import importlib
import pkgutil

from simulator_mock.flowsheet.blocks.base import REGISTRY, Block, BlockContext

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")


def block_classes() -> dict[str, type[Block]]:
    """Aspen type name -> block class, in the served order (``listing_order``, then name)."""
    return dict(sorted(REGISTRY.items(), key=lambda item: (item[1].listing_order, item[0])))


#: Aspen type name -> block class of every block type the mock simulates, in the served order.
BLOCK_CLASSES: dict[str, type[Block]] = block_classes()

__all__ = ["BLOCK_CLASSES", "Block", "BlockContext", "block_classes"]
