"""RStoic: stoichiometric reactor; heat of reaction from formation enthalpies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from simulator_mock.errors import ComponentDataError, InfeasibleSpecificationError, SpecificationError
from simulator_mock.flowsheet.blocks.base import Block, given
from simulator_mock.flowsheet.blocks.outlet_spec import OutletSpec
from simulator_mock.flowsheet.result_sheet import (
    LIQ_RATIO_NOTE,
    MOLAR_FLOW,
    POWER,
    PRESSURE,
    TEMPERATURE,
    BlockView,
    Rows,
    equilibrium_rows,
    phase_compositions,
)
from simulator_mock.flowsheet.schema_fields import (
    FLASH_OUTLET_FIELDS,
    HEATER_OPTIONS,
    block_entry,
    num,
    outlet_spec,
    p_value,
    section,
    spec_fields,
    string,
)
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.properties.units import to_si


@dataclass(frozen=True, slots=True)
class Reaction:
    """One reaction: stoichiometric vector, and either a key reactant with its conversion or a fixed
    extent."""

    label: str
    nu: np.ndarray
    key: int | None
    conversion: float | None
    extent: float | None  # mol/s

    def extent_from(self, flows: np.ndarray) -> float:
        """Molar extent [mol/s] given the flows the conversion refers to."""
        if self.extent is not None:
            return self.extent
        return float(given(self.conversion, "CONV")) * float(flows[self.key]) / -float(self.nu[self.key])


class RStoic(Block):
    """Stoichiometric reactor (Aspen ``RStoic``)."""

    type_name = "RStoic"
    listing_order = 10
    description = (
        "Stoichiometric reactor (conversion or extent per reaction). Ports: F(IN) one or more, P(OUT) one."
    )
    not_written: ClassVar[dict[str, str]] = {
        "LIQ_RATIO": LIQ_RATIO_NOTE,
        "X_<CID>, Y_<CID>, K_<CID>": "X only with liquid, Y only with vapour, K only when both exist",
        "REFID_<N>": "Aspen's reference-component code of a reaction: its meaning is not documented",
        "REAC_STOI_<N>": "Aspen's stoichiometry node of a reaction: its encoding is not known",
    }

    def parse(self, data: dict[str, Any]) -> None:
        self.spec = OutletSpec.parse(
            data["SPEC_DATA"],
            f"{self.where}.SPEC_DATA",
            offered=("TP", "DP", "TV", "PV"),
            refused={"DTV": "the RStoic part has no temperature-change field (DELT_VALUE) to go with it"},
        )
        reac = data["REAC_DATA"]
        # SERIES "YES": each reaction acts on the products of the ones before (in reaction-number order);
        # "" (Aspen's default): every conversion refers to the reactor feed.
        self.series = reac.get("SERIES", "") == "YES"
        labels = [str(item["KEY_SSID"]) for item in reac["REAC"]]
        for label in labels:
            if labels.count(label) > 1:
                raise SpecificationError(
                    f"{self.where}.REAC_DATA.REAC: reaction number KEY_SSID {label} is used twice"
                )
        order = sorted(range(len(labels)), key=lambda k: int(labels[k]))
        self.reactions = [self._reaction(k, reac["REAC"][k]) for k in order]

    def _reaction(self, k: int, item: dict[str, Any]) -> Reaction:
        where = f"{self.where}.REAC_DATA.REAC[{k}]"
        label = str(item["KEY_SSID"])
        nu = np.zeros(len(self.ctx.cids))
        for side in ("COEF_DATA", "COEF1_DATA"):
            for cid, coef in item[side].items():
                i = self.ctx.index(cid, f"{where}.{side}")
                if nu[i] != 0.0:
                    raise SpecificationError(f"{where}: component {cid} is both a reactant and a product")
                nu[i] = float(coef)
        self._check_balance(nu, where)
        key = conversion = extent = None
        if item["OPT_EXT_CONV"] == "EXTENT":
            if item.get("EXTENT") is None:
                raise SpecificationError(f"{where}.EXTENT: OPT_EXT_CONV EXTENT needs a molar extent")
            # The service writes EXTENT without a unit: Aspen reads it in kmol/hr (the METCBAR set).
            extent = to_si(float(item["EXTENT"]), "kmol/hr", "molar_flow", f"{where}.EXTENT")
            key = self.ctx.index(item["KEY_CID"], f"{where}.KEY_CID")
            if nu[key] == 0.0:
                key = None  # the key only labels the results; the extent is per mol of reaction
        else:
            key = self.ctx.index(item["KEY_CID"], f"{where}.KEY_CID")
            if nu[key] >= 0:
                raise SpecificationError(
                    f"{where}.KEY_CID: {item['KEY_CID']} is not a reactant of this reaction"
                )
            conversion = float(item["CONV"])
        return Reaction(label, nu, key, conversion, extent)

    def _check_balance(self, nu: np.ndarray, where: str) -> None:
        package = self.package
        involved = np.flatnonzero(nu)
        for i in involved:
            if package.constants.Hfgs[i] is None:
                raise ComponentDataError(
                    f"{where}: component {self.ctx.cids[i]} has no formation enthalpy in the database; the "
                    "heat "
                    "of reaction cannot be computed"
                )
        if all(package.atoms[i] for i in involved):
            elements = sorted({e for i in involved for e in package.atoms[i]})
            for element in elements:
                net = sum(nu[i] * package.atoms[i].get(element, 0) for i in involved)
                if abs(net) > 1e-9:
                    raise SpecificationError(
                        f"{where}: reaction is not balanced in {element} (net {net:+g} atoms per reaction)",
                        error_type="UnbalancedReaction",
                    )
        net_mass = float(np.dot(nu, package.MWs))
        if abs(net_mass) > 1e-6 * float(np.dot(np.abs(nu), package.MWs)):
            raise SpecificationError(
                f"{where}: reaction does not conserve mass ({net_mass:+.6g} g per mol of reaction)",
                error_type="UnbalancedReaction",
            )

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"])
        f = feed.flows
        flows = f.copy()
        extents = []
        for reaction in self.reactions:
            xi = reaction.extent_from(flows if self.series else f)
            extents.append(xi)
            flows = flows + reaction.nu * xi
        scale = max(float(f.sum()), 1e-30)
        short = np.flatnonzero(flows < -1e-12 * scale)
        if short.size:
            i = int(short[0])
            raise InfeasibleSpecificationError(
                f"{self.where}.REAC_DATA: the reactions consume {(f[i] - flows[i]) * 3.6:.6g} kmol/hr of "
                f"{self.ctx.cids[i]} but the feed has {f[i] * 3.6:.6g} kmol/hr"
            )
        flows = np.maximum(flows, 0.0)
        out, self.heat = self.spec.solve(self, self.outlet_name("P(OUT)"), feed, flows)
        Hfs = self.package.Hfs
        reactions = []
        for reaction, xi in zip(self.reactions, extents, strict=True):
            key = reaction.key
            # per mol of key component reacted or formed: a product key (nu > 0) keeps the sign of dHr
            per = abs(float(reaction.nu[key])) if key is not None else 1.0
            reactant = key is not None and reaction.nu[key] < 0 and f[key] > 0
            reactions.append(
                {
                    "id": reaction.label,
                    "key_component": self.ctx.cids[key] if key is not None else None,
                    "conversion": xi * per / float(f[key]) if reactant else None,
                    "extent_kmol_hr": xi * 3.6,
                    "heat_of_reaction_kJ_mol": float(np.dot(reaction.nu, Hfs)) / per / 1000.0,
                }
            )
        first = self.reactions[0]
        overall = None
        if first.key is not None and first.nu[first.key] < 0 and f[first.key] > 0:
            overall = float((f[first.key] - flows[first.key]) / f[first.key])
        self.report = {
            "heat_of_reaction_kJ_mol": reactions[0]["heat_of_reaction_kJ_mol"],
            "conversion": overall,
            "reactions": reactions,
            "outlet_vapor_fraction": out.VF,
        }
        return {out.name: out}

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        options = {
            "TP": ("outlet temperature and pressure (isothermal reactor)", spec_fields("TEMP", "PRES")),
            "DP": (
                "heat duty and outlet pressure (DUTY_VALUE 0 = adiabatic reactor)",
                spec_fields("DUTY", "PRES"),
            ),
            **{k: HEATER_OPTIONS[k] for k in ("TD", "TV", "PV")},
            "DTV": (
                "temperature change and vapour fraction (refused by the mock: this part has no temperature-change field)",  # noqa: E501
                spec_fields("DUTY", "VFRAC"),
            ),
        }
        spec = outlet_spec(options, FLASH_OUTLET_FIELDS)
        spec["properties"]["TEMP_VALUE"]["minimum"] = -273.15
        spec["properties"]["PRES_VALUE"] = p_value(minimum=0)
        reaction = {
            "type": "object",
            "description": "One reaction: stoichiometry and how far it goes.",
            "properties": {
                "KEY_SSID": string(
                    "Reaction number, e.g. '1'; reactions run in the order of their numbers.",
                    pattern="^[0-9]+$",
                ),
                "CONV": num(
                    "Fractional conversion of KEY_CID (0..1), based on the key component's flow entering this reaction (OPT_EXT_CONV CONVERSION).",  # noqa: E501
                    minimum=0,
                    maximum=1,
                ),
                "KEY_CID": string(
                    "Key component (a reactant) the conversion refers to.", pattern="^[A-Za-z0-9_-]+$"
                ),
                "OPT_EXT_CONV": string(
                    "CONVERSION: the reaction goes to conversion CONV of KEY_CID; EXTENT: it goes to molar extent EXTENT.",  # noqa: E501
                    ["CONVERSION", "EXTENT"],
                ),
                "EXTENT": {
                    "type": ["number", "null"],
                    "minimum": 0,
                    "description": "Molar extent of reaction in kmol/hr (OPT_EXT_CONV EXTENT).",
                },
                "COEF_DATA": {
                    "type": "object",
                    "description": "Reactants: {cid: stoichiometric coefficient (negative)}.",
                    "patternProperties": {
                        "^[A-Za-z0-9_-]+$": num("Stoichiometric coefficient of a reactant (< 0).")
                    },
                    "additionalProperties": False,
                },
                "COEF1_DATA": {
                    "type": "object",
                    "description": "Products: {cid: stoichiometric coefficient (positive)}. A component is either a reactant or a product.",  # noqa: E501
                    "patternProperties": {
                        "^[A-Za-z0-9_-]+$": num("Stoichiometric coefficient of a product (> 0).")
                    },
                    "additionalProperties": False,
                },
            },
            "required": ["KEY_SSID", "CONV", "KEY_CID", "OPT_EXT_CONV", "COEF_DATA", "COEF1_DATA"],
            "additionalProperties": False,
        }
        reac = {
            "type": "object",
            "description": "Reactions of the block.",
            "properties": {
                "SERIES": string(
                    "'' (default): every reaction's conversion refers to the reactor feed (parallel reactions); 'YES': reactions run one after another, each on the products of the previous ones.",  # noqa: E501
                    ["", "YES"],
                    default="",
                ),
                "REAC": {"type": "array", "description": "The reactions.", "items": reaction, "minItems": 1},
            },
            "required": ["REAC"],
            "additionalProperties": False,
        }
        return section(
            "RStoic",
            cls.description
            + " Reaction heat is inside the stream enthalpies (elements-based), so the duty includes it.",
            block_entry({"SPEC_DATA": spec, "REAC_DATA": reac}, ["SPEC_DATA", "REAC_DATA"], closed=True),
            {"additionalProperties": False},
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """The rows of this block's ``<BLOCK>_result`` sheet (Aspen output names, with units)."""
        d = b.doc
        out = b.outlet()
        rows.add("B_TEMP", d.get("outlet_temperature_C"), TEMPERATURE)
        rows.add("B_PRES", d.get("outlet_pressure_bar"), PRESSURE)
        rows.add("QCALC", d.get("duty_kW"), POWER)
        rows.add("QNET", d.get("duty_kW"), POWER)
        rows.add("B_VFRAC", d.get("outlet_vapor_fraction", out.doc.get("vapor_fraction") if out else None))
        liquid, vapor = phase_compositions(p.doc for p in b.outlets)
        equilibrium_rows(rows, b, ("F", "X", "Y", "K"), liquid, vapor)
        reactions = list(d.get("reactions") or [])
        reactions.sort(key=lambda r: int(r["id"]) if str(r.get("id", "")).isdigit() else 0)
        for number, reaction in enumerate(reactions, start=1):
            rid = reaction.get("id", number)
            label = str(rid)
            rows.add(f"RXNID_{label}", int(rid) if label.isdigit() else rid)
            rows.add(f"EXTENT_OUT_{label}", reaction.get("extent_kmol_hr"), MOLAR_FLOW)
