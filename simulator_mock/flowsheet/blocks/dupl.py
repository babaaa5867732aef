"""Dupl: the duplicator (every outlet is a copy of the feed)."""

from __future__ import annotations

from typing import Any, ClassVar

from simulator_mock.errors import UnsupportedOptionError
from simulator_mock.flowsheet.blocks.base import Block, Cardinality
from simulator_mock.flowsheet.schema_fields import block_entry, section, spec_object, string
from simulator_mock.flowsheet.streams import Stream

#: SPEC_DATA fields of the real schema; all choose block-local property options, which the mock has no
#: notion of (one property method per flowsheet), so a non-empty one is refused.
_PROPERTY_FIELDS = {
    "OPSETNAME": "Block-local property method set name (the service writes it as given).",
    "CHEMISTRY": "Chemistry (electrolyte reaction set) id for this block.",
    "TRUE_COMPS": "True-component approach (YES / NO) for electrolytes.",
    "FRWATEROPSET": "Property method set for free water.",
    "SOLU_WATER": "Water solubility option (integer).",
    "HENRY_COMPS": "Henry-components list id.",
}


class Dupl(Block):
    """Duplicator (Aspen ``Dupl``): each outlet is an exact copy of the mixed feed.

    Aspen leaves duplicated material out of its mass and energy balance (a Dupl creates copies for
    case studies). The mock does the same, honestly: every outlet copy beyond the first is recorded in
    ``self.copies`` and the flowsheet balance counts those copies as sources (reported as
    ``duplicated_kg_hr`` / ``duplicated_enthalpy_kW``), so the balance check still covers every other
    block and the first copy of the feed.
    """

    type_name = "Dupl"
    description = "Duplicator: every outlet is an exact copy of the mixed feed (same flows, temperature, pressure, phase); duplicated material is left out of the balance, as in Aspen. Ports: F(IN) one or more, P(OUT) one or more."  # noqa: E501
    not_written: ClassVar[dict[str, str]] = {
        "(sheet)": "the real export has no Dupl branch: a Dupl block gets no <BLOCK>_result sheet",
    }
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"P(OUT)": (1, None)}
    data_required = False
    result_sheet = False

    def parse(self, data: dict[str, Any]) -> None:
        spec = data.get("SPEC_DATA") or {}
        for key, value in spec.items():
            if value not in (None, "", 0):
                raise UnsupportedOptionError(
                    f"{self.where}.SPEC_DATA.{key}: block-local property options are not simulated by the "
                    "mock (the flowsheet's property method applies to every block); leave it out"
                )

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"]).stream()
        names = self.outlets["P(OUT)"]
        out = {name: feed.renamed(name) for name in names}
        self.copies = [out[name] for name in names[1:]]
        self.report = {"copies": len(names)}
        return out

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        spec = spec_object(
            "Block-local property options (the real schema's fields). The mock applies the flowsheet's property method everywhere: a non-empty field is refused (UnsupportedOption naming it).",  # noqa: E501
            {
                key: ({"type": "integer", "description": desc} if key == "SOLU_WATER" else string(desc))
                for key, desc in _PROPERTY_FIELDS.items()
            },
        )
        return section(
            "Dupl",
            cls.description + " A Dupl without an entry here copies its feed.",
            block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False),
        )
