"""Sep2: the two-outlet component separator."""

from __future__ import annotations

from typing import Any, ClassVar

from simulator_mock.flowsheet.blocks.base import Cardinality
from simulator_mock.flowsheet.blocks.separators import Sep
from simulator_mock.flowsheet.schema_fields import STREAM_KEY, block_entry, num, section, string


class Sep2(Sep):
    """Two-outlet component separator (Aspen ``Sep2``): per component, the fraction of its feed flow sent to
    one outlet; the other outlet takes the rest.

    The service writes only ``FRACS`` (``Input\\FRACS\\MIXED\\<outlet>\\<cid>``); it reads the basis from the
    key ``FLOWBASIS_VALUE``, which the schema's items cannot carry, so Aspen's default mole basis applies (a
    split fraction of one component is the same on every basis). Every component needs an entry for one
    outlet at least (Aspen's input is incomplete otherwise); a component with no entry is refused, naming it.
    Outlets leave at the feed's temperature
    and pressure; the duty QCALC closes the energy balance.
    """

    type_name = "Sep2"
    listing_order = 1000  # after the first twelve, by name (not inherited from Sep)
    description = "Two-outlet component separator: per component, the fraction of its feed sent to one outlet; the other outlet takes the rest. Ports: F(IN) one or more, P(OUT) exactly two."  # noqa: E501
    not_written: ClassVar[dict[str, str]] = dict(Sep.not_written)
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"P(OUT)": (2, 2)}

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        item = {
            "type": "object",
            "properties": {
                "COMP_ID": string("Component id (cid)."),
                "FLOWBASIS": string(
                    "Basis of the split (MOLE, MASS). A split fraction is the same on every basis; the Aspen service does not write this field (it reads FLOWBASIS_VALUE).",  # noqa: E501
                    ["MASS", "MOLE"],
                ),
                "FRACS": num(
                    "Fraction of the component's feed flow sent to this outlet (0..1).", minimum=0, maximum=1
                ),
            },
            "required": ["COMP_ID", "FLOWBASIS"],
            "additionalProperties": False,
        }
        spec = {
            "type": "object",
            "description": "Splits keyed by outlet stream name: {outlet: [{COMP_ID, FLOWBASIS, FRACS}, ...]}. Every component needs an entry for one outlet at least; the outlet without an entry takes the rest; fractions of one component over both outlets must sum to 1.",  # noqa: E501
            "patternProperties": {
                STREAM_KEY: {
                    "type": "array",
                    "description": "Component splits of this outlet.",
                    "items": item,
                    "minItems": 1,
                }
            },
            "additionalProperties": False,
            "minProperties": 1,
        }
        return section(
            "Sep2",
            cls.description + " Outlets leave at the feed's temperature and pressure.",
            block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=True),
        )
