"""The curated components the generator draws from: real-dialect identifiers and names in two languages.

Every entry resolves in the mock's chemicals database (by CAS number) and has the constants its property
method needs (critical point and acentric factor for PENG-ROB; vapour pressure, and NRTL pairs from
ChemSep or UNIFAC, for NRTL); ``tests/core/test_generator.py`` runs a sample of every family on the mock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Component:
    """One component as the config names it (``cid``, Aspen alias, CAS, databank name) and as people do."""

    cid: str
    name: str
    cas_number: str
    database_name: str
    en: str
    zh: str

    def config_entry(self) -> dict[str, Any]:
        """The ``components[]`` entry of the real dialect."""
        return {
            "cid": self.cid,
            "name": self.name,
            "cas_number": self.cas_number,
            "database_name": self.database_name,
        }


_TABLE = (
    Component("WATER", "H2O", "7732-18-5", "WATER", "water", "水"),
    Component("MEOH", "CH4O", "67-56-1", "METHANOL", "methanol", "甲醇"),
    Component("ETHANOL", "C2H6O-2", "64-17-5", "ETHANOL", "ethanol", "乙醇"),
    Component("ACETONE", "C3H6O-1", "67-64-1", "ACETONE", "acetone", "丙酮"),
    Component("IPA", "C3H8O-2", "67-63-0", "ISOPROPYL-ALCOHOL", "isopropanol", "异丙醇"),
    Component("BENZENE", "C6H6", "71-43-2", "BENZENE", "benzene", "苯"),
    Component("TOLUENE", "C7H8", "108-88-3", "TOLUENE", "toluene", "甲苯"),
    Component("OXYLENE", "C8H10-1", "95-47-6", "O-XYLENE", "o-xylene", "邻二甲苯"),
    Component("C6H12", "C6H12-1", "110-82-7", "CYCLOHEXANE", "cyclohexane", "环己烷"),
    Component("NPENTANE", "C5H12-1", "109-66-0", "N-PENTANE", "n-pentane", "正戊烷"),
    Component("NHEXANE", "C6H14-1", "110-54-3", "N-HEXANE", "n-hexane", "正己烷"),
    Component("NHEPTANE", "C7H16-1", "142-82-5", "N-HEPTANE", "n-heptane", "正庚烷"),
    Component("METHANE", "CH4", "74-82-8", "METHANE", "methane", "甲烷"),
    Component("ETHANE", "C2H6", "74-84-0", "ETHANE", "ethane", "乙烷"),
    Component("PROPANE", "C3H8", "74-98-6", "PROPANE", "propane", "丙烷"),
    Component("NBUTANE", "C4H10-1", "106-97-8", "N-BUTANE", "n-butane", "正丁烷"),
    Component("N2", "N2", "7727-37-9", "NITROGEN", "nitrogen", "氮气"),
    Component("CO2", "CO2", "124-38-9", "CARBON-DIOXIDE", "carbon dioxide", "二氧化碳"),
    Component("H2", "H2", "1333-74-0", "HYDROGEN", "hydrogen", "氢气"),
    Component("CO", "CO", "630-08-0", "CARBON-MONOXIDE", "carbon monoxide", "一氧化碳"),
    Component("ETHYLENE", "C2H4", "74-85-1", "ETHYLENE", "ethylene", "乙烯"),
    # used only by the opt-in families (decanter, cstr)
    Component("BUOH", "C4H10O-1", "71-36-3", "1-BUTANOL", "n-butanol", "正丁醇"),
    Component("ETOAC", "C4H8O2-3", "141-78-6", "ETHYL-ACETATE", "ethyl acetate", "乙酸乙酯"),
    Component("EO", "C2H4O-1", "75-21-8", "ETHYLENE-OXIDE", "ethylene oxide", "环氧乙烷"),
    Component("EG", "C2H6O2", "107-21-1", "ETHYLENE-GLYCOL", "ethylene glycol", "乙二醇"),
    Component("PO", "C3H6O-4", "75-56-9", "1,2-PROPYLENE-OXIDE", "propylene oxide", "环氧丙烷"),
    Component("PG", "C3H8O2-1", "57-55-6", "1,2-PROPANEDIOL", "propylene glycol", "丙二醇"),
)

COMPONENTS: dict[str, Component] = {c.cid: c for c in _TABLE}
"""Every curated component by ``cid``."""

AQUEOUS_PAIRS: tuple[tuple[str, str], ...] = (
    ("MEOH", "WATER"),
    ("ETHANOL", "WATER"),
    ("ACETONE", "WATER"),
    ("IPA", "WATER"),
    ("MEOH", "ETHANOL"),
)
"""Polar liquid pairs, modelled with NRTL."""

HYDROCARBON_PAIRS: tuple[tuple[str, str], ...] = (
    ("BENZENE", "TOLUENE"),
    ("TOLUENE", "OXYLENE"),
    ("NPENTANE", "NHEXANE"),
    ("NHEXANE", "NHEPTANE"),
    ("BENZENE", "OXYLENE"),
    ("C6H12", "TOLUENE"),
    ("NPENTANE", "NHEPTANE"),
)
"""Liquid hydrocarbon pairs (light key first), modelled with PENG-ROB."""

LIGHT_PAIRS: tuple[tuple[str, str], ...] = (
    ("PROPANE", "NBUTANE"),
    ("ETHANE", "PROPANE"),
    ("PROPANE", "NPENTANE"),
    ("NBUTANE", "NPENTANE"),
)
"""Light hydrocarbon (LPG) pairs, liquid under pressure, modelled with PENG-ROB."""

GASES: tuple[tuple[str, ...], ...] = (
    ("METHANE", "ETHANE"),
    ("N2",),
    ("METHANE",),
    ("N2", "CO2"),
    ("METHANE", "CO2"),
    ("H2", "METHANE"),
    ("METHANE", "PROPANE"),
)
"""Gas mixtures for compressors, modelled with PENG-ROB."""

H2_SEPARATOR_HEAVY: tuple[str, ...] = ("NPENTANE", "NHEXANE", "NHEPTANE", "BENZENE", "TOLUENE")
"""Hydrocarbons that condense in a hydrotreater's high-pressure separator (one is always in its feed)."""

H2_SEPARATOR_LIGHT: tuple[str, ...] = ("METHANE", "ETHANE", "PROPANE", "NBUTANE")
"""Light ends that may come along; with the heavy ones, the only hydrocarbons CHAO-SEA is drawn with (it
refuses N2, CO, CO2 and other non-hydrocarbons besides H2)."""

DECANTER_ORGANICS: dict[str, tuple[str, ...]] = {
    "BUOH": ("NRTL", "UNIFAC"),
    "BENZENE": ("NRTL", "UNIFAC"),
    "TOLUENE": ("UNIFAC",),
    "NHEXANE": ("UNIFAC",),
    "ETOAC": ("UNIFAC",),
}
"""Organics partly miscible with water and the methods the mock splits them with physically: with NRTL,
toluene and n-hexane come out with ~40 mol% organic in the water-rich phase and ethyl acetate with ~50 mol%
water in the organic phase (checked on the mock), so those are drawn with UNIFAC only."""

PURE_LIQUIDS: tuple[str, ...] = ("WATER", "MEOH", "ETHANOL", "BENZENE", "TOLUENE", "NHEXANE", "ACETONE")
"""Single liquids for pumps and heaters."""

POLAR = frozenset({"WATER", "MEOH", "ETHANOL", "ACETONE", "IPA"})


def method_for(cids: tuple[str, ...] | list[str]) -> str:
    """NRTL when the mixture holds a polar liquid and nothing supercritical, else PENG-ROB."""
    if any(c in POLAR for c in cids) and not any(c in {"H2", "CO", "N2", "METHANE"} for c in cids):
        return "NRTL"
    return "PENG-ROB"


def names(cids: list[str] | tuple[str, ...], language: str) -> list[str]:
    """People's names of components in ``language`` ('en' or 'zh')."""
    return [getattr(COMPONENTS[c], language) for c in cids]
