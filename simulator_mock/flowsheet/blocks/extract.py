# ruff: noqa: E501  (schema description strings)
"""Extract: counter-current liquid-liquid extraction column of equilibrium stages."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from simulator_mock.errors import ConvergenceError, SpecificationError, UnsupportedOptionError
from simulator_mock.flowsheet.blocks.base import Block, Cardinality
from simulator_mock.flowsheet.result_sheet import MOLAR_FLOW, TEMPERATURE
from simulator_mock.flowsheet.schema_fields import (
    PRES_UNITS,
    TEMP_UNITS,
    block_entry,
    num,
    section,
    string,
    units,
)
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.properties.phase_state import TRACE
from simulator_mock.properties.units import read_pair

#: Sweeps (alternating top-down and bottom-up) before the column is declared not converged.
MAX_SWEEPS = 400
#: Convergence: largest change of a component's flow in any stage liquid between sweeps, relative to its feed.
TOLERANCE = 1e-9


def _stage_profile(
    entries: dict[str, Any] | None, n: int, value_key: str, units_key: str, quantity: str, where: str
) -> dict[int, float]:
    """{stage: SI value} from a ``{"<stage>": {<X>_VALUE, <X>_UNITS}}`` node (stages 1..n)."""
    out: dict[int, float] = {}
    for label, entry in (entries or {}).items():
        path = f"{where}.{label}"
        try:
            stage = int(str(label).strip().lstrip("#"))
        except ValueError:
            raise SpecificationError(f"{path}: stage label {label!r} is not a stage number") from None
        if not 1 <= stage <= n:
            raise SpecificationError(f"{path}: stage {stage} outside 1..NSTAGE ({n})")
        value = read_pair(entry, value_key, units_key, quantity, path)
        if value is None:
            raise SpecificationError(f"{path}: {value_key} is missing")
        out[stage] = value
    return out


def _interpolate(profile: dict[int, float], n: int, default: float) -> np.ndarray:
    """Stage values 1..n: linear between given stages, constant beyond the first and last (Aspen's rule)."""
    if not profile:
        return np.full(n, default)
    stages = sorted(profile)
    return np.interp(np.arange(1, n + 1), stages, [profile[s] for s in stages])


def _key_list(node: Any, block: Block, where: str) -> list[int]:
    values = node.values() if isinstance(node, dict) else (node or [])
    return [block.ctx.index(str(v), where) for v in values if v not in (None, "")]


class Extract(Block):
    """Counter-current liquid-liquid extractor (Aspen ``Extract``) of NSTAGE equilibrium stages."""

    type_name = "Extract"
    listing_order = 15
    description = (
        "Liquid-liquid extraction column of NSTAGE equilibrium stages, stage 1 at the top. The 1st liquid "
        "enters with F(IN) at stage 1 and flows down; the 2nd liquid (solvent) enters with S(IN) at stage "
        "NSTAGE and flows up. Ports: F(IN) one or more (feed, top), S(IN) one or more (solvent, bottom; mock "
        "addition), L1(OUT) one (1st liquid from stage NSTAGE: raffinate), L2(OUT) one (2nd liquid from "
        "stage 1: extract)."
    )
    inlet_ports: ClassVar[dict[str, Cardinality]] = {"F(IN)": (1, None), "S(IN)": (1, None)}
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"L1(OUT)": (1, 1), "L2(OUT)": (1, 1)}

    def parse(self, data: dict[str, Any]) -> None:
        spec = data["SPEC_DATA"]
        where = f"{self.where}.SPEC_DATA"
        self.n = int(spec["NSTAGE"])
        self.thermal = str(spec.get("OPT_THERMAL", "ADIABATIC")).upper()
        if self.thermal == "DUTY":
            raise UnsupportedOptionError(
                f"{where}.OPT_THERMAL: DUTY (stage heater duties) is not simulated; use TEMP or ADIABATIC"
            )
        self.T_profile = _stage_profile(
            spec.get("TSPEC_TEMP"),
            self.n,
            "TSPEC_TEMP_VALUE",
            "TSPEC_TEMP_UNITS",
            "temperature",
            f"{where}.TSPEC_TEMP",
        )
        if self.thermal == "TEMP" and not self.T_profile:
            raise SpecificationError(
                f"{where}.TSPEC_TEMP: OPT_THERMAL TEMP needs at least one stage temperature"
            )
        self.P_profile = _stage_profile(
            spec.get("STAGE_PRES"),
            self.n,
            "STAGE_PRES_VALUE",
            "STAGE_PRES_UNITS",
            "pressure",
            f"{where}.STAGE_PRES",
        )
        self.key1 = _key_list(spec.get("COMP1_LIST"), self, f"{where}.COMP1_LIST")
        self.key2 = _key_list(spec.get("COMP2_LIST"), self, f"{where}.COMP2_LIST")
        self._single: set[int] = set()
        self._last_l1_xs: np.ndarray | None = None

    def _is_first(self, xs_a: np.ndarray, xs_b: np.ndarray, carrier: int) -> bool:
        """True when liquid a (rather than b) is the 1st liquid: richer in the COMP1_LIST keys, else poorer
        in the COMP2_LIST keys, else richer in the feed's main component."""
        if self.key1:
            return float(xs_a[self.key1].sum()) >= float(xs_b[self.key1].sum())
        if self.key2:
            return float(xs_a[self.key2].sum()) <= float(xs_b[self.key2].sum())
        return float(xs_a[carrier]) >= float(xs_b[carrier])

    def _stage(
        self, k: int, flows: np.ndarray, T: float, P: float, carrier: int
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """(1st liquid flows, 2nd liquid flows, enthalpy flow [W]) leaving stage k (0-based)."""
        total = float(flows.sum())
        if total <= 0.0:
            return flows.copy(), np.zeros_like(flows), 0.0
        zs = flows / total
        where = f"block {self.name} stage {k + 1}"
        idx = tuple(int(i) for i in np.flatnonzero(zs > TRACE))
        if len(idx) > 1 and self.package.models(idx).can_split(len(idx)):
            bulk, _, liquids = self.package.flash_phases(zs, where, liquid_only=True, T=T, P=P)
        else:  # these components never form two liquids: one liquid, no extraction on this stage
            bulk = self.package.flash(zs, where, T=T, P=P)
            liquids = [bulk]
        H = total * bulk.H
        if len(liquids) < 2:
            self._single.add(k + 1)
            only = flows.copy()
            ref1 = self._last_l1_xs
            if ref1 is not None and not self._is_first(only / total, ref1, carrier):
                return np.zeros_like(flows), only, H
            return only, np.zeros_like(flows), H
        a, b = liquids
        fa, fb = total * bulk.LF1 * a.zs, total * bulk.LF2 * b.zs
        if self._is_first(a.zs, b.zs, carrier):
            self._last_l1_xs = a.zs
            return fa, fb, H
        self._last_l1_xs = b.zs
        return fb, fa, H

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        feed = self.mixed(feeds["F(IN)"])
        solvent = self.mixed(feeds["S(IN)"])
        F: np.ndarray = np.asarray(feed.flows, dtype=float)
        S: np.ndarray = np.asarray(solvent.flows, dtype=float)
        names = [self.outlet_name("L1(OUT)"), self.outlet_name("L2(OUT)")]
        N = self.n
        P_in = min(feed.P, solvent.P)
        Ps = _interpolate(self.P_profile, N, P_in)
        if self.thermal == "TEMP":
            Ts = _interpolate(self.T_profile, N, 298.15)
        else:  # ADIABATIC: every stage at the adiabatic mixing temperature of all feeds (stated in a warning)
            all_flows = F + S
            mix = self.flash(
                "mix",
                all_flows,
                "feeds mixed adiabatically",
                P=float(Ps.min()),
                H=(feed.H_total + solvent.H_total) / float(all_flows.sum()),
            )
            Ts = np.full(N, mix.T)
            self.ctx.warnings.append(
                f"block {self.name}: ADIABATIC column solved at the adiabatic mixing temperature of its feeds "
                f"({mix.T - 273.15:.2f} C) on every stage (heats of mixing between stages neglected)"
            )
        carrier = int(np.argmax(F)) if feed.total > 0 else 0
        scale = max(feed.total + solvent.total, 1e-30)
        per_comp = np.maximum(F + S, 1e-12 * scale)
        L1 = np.tile(F, (N, 1))  # 1st liquid leaving each stage (downwards)
        L2 = np.tile(S, (N, 1))  # 2nd liquid leaving each stage (upwards)
        H = np.zeros(N)
        self._single = set()
        self._last_l1_xs = None
        converged = False
        for sweep in range(MAX_SWEEPS):
            old1, old2 = L1.copy(), L2.copy()
            self._single = set()
            order = range(N) if sweep % 2 == 0 else range(N - 1, -1, -1)
            for k in order:
                down = F if k == 0 else L1[k - 1]
                up = S if k == N - 1 else L2[k + 1]
                L1[k], L2[k], H[k] = self._stage(k, down + up, float(Ts[k]), float(Ps[k]), carrier)
            change = float(np.max(np.maximum(np.abs(L1 - old1), np.abs(L2 - old2)).max(axis=0) / per_comp))
            if change < TOLERANCE:
                converged = True
                break
        if not converged:
            raise ConvergenceError(
                f"block {self.name}: stage-to-stage solution of the extraction column did not converge in "
                f"{MAX_SWEEPS} sweeps (last change {change:.2e} of a component's feed)"
            )
        if self._single:
            self.ctx.warnings.append(
                f"block {self.name}: a single liquid phase on stage(s) {sorted(self._single)}: no extraction there"
            )
        raffinate = self.flash(names[0], L1[N - 1], "raffinate", T=float(Ts[N - 1]), P=float(Ps[N - 1]))
        extract = self.flash(names[1], L2[0], "extract", T=float(Ts[0]), P=float(Ps[0]))
        self.heat = raffinate.enthalpy_flow + extract.enthalpy_flow - feed.H_total - solvent.H_total
        cids = self.ctx.cids
        kmol_hr = 3.6  # mol/s -> kmol/hr
        self.report = {
            "stages": N,
            "top_temperature_C": float(Ts[0]) - 273.15,
            "bottom_temperature_C": float(Ts[N - 1]) - 273.15,
            "top_liquid1_kmol_hr": float(L1[0].sum()) * kmol_hr,
            "top_liquid2_kmol_hr": float(L2[0].sum()) * kmol_hr,
            "bottom_liquid1_kmol_hr": float(L1[N - 1].sum()) * kmol_hr,
            "bottom_liquid2_kmol_hr": float(L2[N - 1].sum()) * kmol_hr,
            "sweeps": sweep + 1,
            "stage_liquid1_flows_kmol_hr": [
                dict(zip(cids, (float(v) * kmol_hr for v in row), strict=True)) for row in L1
            ],
            "stage_liquid2_flows_kmol_hr": [
                dict(zip(cids, (float(v) * kmol_hr for v in row), strict=True)) for row in L2
            ],
        }
        return {names[0]: raffinate, names[1]: extract}

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        """The ``blocks_Extract_data`` part: the real part's fields, with stage-keyed profiles."""

        def profile(prefix: str, what: str, allowed: list[str]) -> dict[str, Any]:
            return {
                "type": "object",
                "description": f"{what} by stage: keys are stage numbers ('1' = top); stages between given ones are interpolated linearly, beyond them held constant.",
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        f"{prefix}_VALUE": num(f"{what} of the stage, in {prefix}_UNITS."),
                        f"{prefix}_UNITS": units(f"{prefix}_VALUE", allowed),
                    },
                    "required": [f"{prefix}_VALUE", f"{prefix}_UNITS"],
                    "additionalProperties": False,
                },
            }

        keys = {
            "type": "object",
            "additionalProperties": {"type": "string"},
        }
        spec = {
            "type": "object",
            "description": "Extraction column specification.",
            "properties": {
                "NSTAGE": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 200,
                    "description": "Number of equilibrium stages (stage 1 at the top).",
                },
                "OPT_THERMAL": string(
                    "Thermal option: TEMP = stage temperatures from TSPEC_TEMP; ADIABATIC (default) = every stage at the feeds' adiabatic mixing temperature (mock approximation, warned); DUTY is refused (UnsupportedOption).",
                    ["ADIABATIC", "TEMP", "DUTY"],
                ),
                "TSPEC_TEMP": profile("TSPEC_TEMP", "Temperature", TEMP_UNITS),
                "HEATER_DUTY": {
                    "type": "object",
                    "description": "Stage heater duties (used with OPT_THERMAL DUTY, which the mock refuses).",
                },
                "COMP1_LIST": {
                    **keys,
                    "description": "Key components of the 1st liquid (cids, keyed '#1', '#2', ...): of two liquids, the one richer in them flows down as the 1st liquid. Default: the liquid richer in the feed's main component.",
                },
                "COMP2_LIST": {
                    **keys,
                    "description": "Key components of the 2nd liquid (cids, keyed '#1', ...), used when COMP1_LIST is absent.",
                },
                "STAGE_PRES": profile(
                    "STAGE_PRES", "Pressure", [u for u in PRES_UNITS if u in ("bar", "kPa", "MPa", "atm")]
                ),
            },
            "required": ["NSTAGE"],
            "additionalProperties": False,
        }
        return section(
            cls.type_name,
            cls.description + " Stages without a STAGE_PRES entry take the lowest feed pressure.",
            block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=True),
            {"additionalProperties": False},
        )

    #: Extract outputs in the real export's order (stage 1 = top).
    result_table = (
        ("TOP_TEMP", "top_temperature_C", TEMPERATURE),
        ("TOP_L1FLOW", "top_liquid1_kmol_hr", MOLAR_FLOW),
        ("TOP_L2FLOW", "top_liquid2_kmol_hr", MOLAR_FLOW),
        ("BOTTOM_TEMP", "bottom_temperature_C", TEMPERATURE),
        ("BOT_L1FLOW", "bottom_liquid1_kmol_hr", MOLAR_FLOW),
        ("BOT_L2FLOW", "bottom_liquid2_kmol_hr", MOLAR_FLOW),
    )
