"""Block registry: a block class is the one place that defines its type (ports, schema part, result rows)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from simulator_mock.flowsheet.blocks import BLOCK_CLASSES, Block, block_classes
from simulator_mock.flowsheet.blocks.base import REGISTRY
from simulator_mock.flowsheet.result_sheet import BlockView, Rows
from simulator_mock.flowsheet.schema_fields import block_entry, num, section
from simulator_mock.flowsheet.schema_registry import BLOCK_TYPES
from simulator_mock.flowsheet.schemas import generate
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.flowsheet.workbook import NOT_WRITTEN

#: The served order of the block types that existed before the registry (unchanged by it).
FIRST_TWELVE = (
    "Mixer",
    "FSplit",
    "Heater",
    "Pump",
    "Valve",
    "Compr",
    "Flash2",
    "Sep",
    "HeatX",
    "RStoic",
    "DSTWU",
    "RadFrac",
)


def test_every_served_type_comes_from_a_class() -> None:
    assert tuple(BLOCK_CLASSES) == BLOCK_TYPES
    assert BLOCK_TYPES[: len(FIRST_TWELVE)] == FIRST_TWELVE
    assert list(generate.BUILDERS) == list(BLOCK_TYPES)
    assert set(NOT_WRITTEN) == set(BLOCK_TYPES)
    for name, cls in BLOCK_CLASSES.items():
        assert cls.type_name == name
        assert cls.description and "Ports:" in cls.description, name
        assert list(cls.schema_part()) == [f"blocks_{name}_data"]


@pytest.fixture
def scratch_type() -> Iterator[type[Block]]:
    """A block type defined in a test, removed from the registry afterwards."""

    class Scratch(Block):
        type_name = "ZZScratch"
        description = "Test block. Ports: F(IN) one or more, P(OUT) one."
        not_written: ClassVar[dict[str, str]] = {"NOTHING": "test"}

        def parse(self, data: dict[str, Any]) -> None:
            self.factor = float(data.get("FACTOR", 1.0))

        def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
            raise NotImplementedError

        @classmethod
        def schema_part(cls) -> dict[str, Any]:
            return section(cls.type_name, cls.description, block_entry({"FACTOR": num("x")}, [], closed=True))

        @staticmethod
        def result_rows(b: BlockView, rows: Rows) -> None:
            rows.add("FACTOR", 1.0)

    try:
        yield Scratch
    finally:
        REGISTRY.pop("ZZScratch", None)


def test_a_new_block_class_registers_itself(scratch_type: type[Block]) -> None:
    found = block_classes()
    assert found["ZZScratch"] is scratch_type
    assert list(found)[-1] == "ZZScratch"  # after the listed types
    assert tuple(found)[: len(FIRST_TWELVE)] == FIRST_TWELVE


def test_a_block_type_is_defined_once_and_described(scratch_type: type[Block]) -> None:
    with pytest.raises(TypeError, match="defined twice"):

        class Other(Block):  # a different class claiming a registered type name
            type_name = "Heater"
            description = "x. Ports: none."

    with pytest.raises(TypeError, match="description"):

        class Undescribed(Block):
            type_name = "ZZUndescribed"

    assert REGISTRY["Heater"] is BLOCK_CLASSES["Heater"]
    assert "ZZUndescribed" not in REGISTRY
