"""RadFrac: rigorous equilibrium-stage distillation column for 2-5 components."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from simulator_mock.errors import InfeasibleSpecificationError, SpecificationError, UnsupportedOptionError
from simulator_mock.flowsheet.blocks.base import Block, Cardinality
from simulator_mock.flowsheet.blocks.column_solver import ColumnProblem, solve_column
from simulator_mock.flowsheet.result_sheet import MOLAR_FLOW, POWER, TEMPERATURE, BlockView, Rows
from simulator_mock.flowsheet.schema_fields import block_entry, num, section, string
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.properties.units import from_si, to_si

MAX_COMPONENTS = 5
#: Newton iterations of the column solver (no config field: the real schema has no MAXOL).
MAX_ITERATIONS = 200
#: OP_SPEC item kinds (the real schema's specType) -> the value field that identifies them.
OP_SPEC_KEYS = {
    "RR": "BASIS_RR_VALUE",
    "D": "BASIS_D_VALUE",
    "L1": "BASIS_L1_VALUE",
    "B": "BASIS_B_VALUE",
    "VN": "BASIS_VN_VALUE",
    "BR": "BASIS_BR_VALUE",
    "Q1": "Q1_VALUE",
    "QN": "QN_VALUE",
    "D:F": "DF_VALUE",
    "B:F": "BF_VALUE",
}
#: Flow specifications simulated besides the reflux ratio.
FLOW_SPECS = ("D", "B", "D:F", "B:F")
#: CONFIG_DATA fields with the one value the mock simulates, and what to say otherwise.
SIMULATED_CONFIG = {
    "CALC_MODE": ("EQUILIBRIUM", "use EQUILIBRIUM (equilibrium stages)"),
    "REBOILER": ("KETTLE", "use KETTLE"),
    "NO_PHASE": (2, "use 2 (vapour-liquid)"),
    "BLKOPFREWAT": ("NO", "use NO (no free-water phase)"),
}


COL_FLOW_UNITS = ["kg/hr", "kmol/hr"]


COL_P_UNITS = ["atm", "bar", "kPa", "MPa"]


def _op(spec_type: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            **props,
            "specType": {"const": spec_type, "description": "Optional label of the specification."},
        },
        "required": required,
        "additionalProperties": False,
    }


class RadFrac(Block):
    """Rigorous distillation column (Aspen ``RadFrac``): total or partial condenser, kettle reboiler."""

    type_name = "RadFrac"
    listing_order = 12
    description = "Rigorous equilibrium-stage distillation column. Ports: F(IN) one or more, LD(OUT) (total condenser) or VD(OUT) (partial condenser) one, B(OUT) one."  # noqa: E501
    not_written: ClassVar[dict[str, str]] = {
        "SCTEMP, SCTEMP_UNITS, SCDUTY, SCDUTY_UNITS": "subcooled reflux: no condenser subcooling",
        "MOLE_DW, MOLE_DW_UNITS, RW, RW_UNITS": "free-water distillate and reflux: no free-water calculation",
        "MOLE_DFR_UNITS": "distillate-to-feed ratio is dimensionless; Aspen's unit string for it is unknown",
        "MASS_CONC_<CID>_<STREAM>": "mass concentrations: Aspen's node layout for them is not known",
    }
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"LD(OUT)": (0, 1), "VD(OUT)": (0, 1), "B(OUT)": (1, 1)}

    def parse(self, data: dict[str, Any]) -> None:
        config = data["CONFIG_DATA"]
        where = f"{self.where}.CONFIG_DATA"
        for key, simulated in SIMULATED_CONFIG.items():
            if config[key] != simulated[0]:
                raise UnsupportedOptionError(f"{where}.{key}: {config[key]} is not simulated; {simulated[1]}")
        self.N = int(config["NSTAGE"])
        if self.N < 3:
            raise SpecificationError(
                f"{where}.NSTAGE: a column with condenser and reboiler needs >= 3 stages"
            )
        if config["CONDENSER"] not in ("TOTAL", "PARTIAL-V"):
            raise UnsupportedOptionError(
                f"{where}.CONDENSER: {config['CONDENSER']} is not simulated; use TOTAL or PARTIAL-V"
            )
        self.total_condenser = config["CONDENSER"] == "TOTAL"
        self.d_port = "LD(OUT)" if self.total_condenser else "VD(OUT)"
        other = "VD(OUT)" if self.total_condenser else "LD(OUT)"
        if self.outlets.get(other) or not self.outlets.get(self.d_port):
            raise SpecificationError(
                f"{where}.CONDENSER: a {config['CONDENSER']} condenser sends the distillate to port "
                f"{self.d_port}; connect the distillate there (block_connections.{self.name})",
                error_type="UnknownPort",
            )
        self.max_iterations = MAX_ITERATIONS
        self._parse_op_spec(config["OP_SPEC"], f"{where}.OP_SPEC")
        self._parse_feeds(data["FEED_STAGE_DATA"])
        self._parse_products(data["PROD_STAGE_DATA"])
        condenser = data["CONDENSER_DATA"]
        if condenser["OPT_COND_SPC"] != "VFRAC":
            raise UnsupportedOptionError(
                f"{self.where}.CONDENSER_DATA.OPT_COND_SPC: {condenser['OPT_COND_SPC']} is not simulated; "
                "use VFRAC (condensate at its bubble point, vapour distillate at its dew point)"
            )
        for key in ("DESIGN_SPEC_DATA", "VARY_DATA"):
            if data.get(key):
                raise UnsupportedOptionError(
                    f"{self.where}.{key}: column design specifications are not simulated; leave it empty"
                )
        self.P = self._pressures(data["PRES_DATA"], f"{self.where}.PRES_DATA")

    def _parse_op_spec(self, items: list[dict[str, Any]], where: str) -> None:
        found: dict[str, tuple[int, dict[str, Any]]] = {}
        for k, item in enumerate(items):
            key = next(name for name in OP_SPEC_KEYS if OP_SPEC_KEYS[name] in item)
            if key in found:
                raise SpecificationError(f"{where}[{k}]: specification {key} is given twice")
            found[key] = (k, item)
            basis_key = next((b for b in item if b.endswith("BASIS")), None)
            if basis_key and item[basis_key] != "MOLE":
                raise UnsupportedOptionError(
                    f"{where}[{k}].{basis_key}: {item[basis_key]} is not simulated; use MOLE"
                )
            if key not in ("RR", *FLOW_SPECS):
                raise UnsupportedOptionError(
                    f"{where}[{k}]: specification {key} is not simulated; give the reflux ratio (RR) and "
                    f"one of {', '.join(FLOW_SPECS)}"
                )
        flows = [key for key in found if key in FLOW_SPECS]
        if "RR" not in found or len(flows) != 1:
            raise SpecificationError(
                f"{where}: a column with condenser and reboiler needs two specifications, the reflux ratio "
                f"(RR) and one of {', '.join(FLOW_SPECS)}; got {', '.join(found) or 'none'}"
            )
        self.RR = float(found["RR"][1]["BASIS_RR_VALUE"])
        if self.RR <= 0:
            raise SpecificationError(f"{where}[{found['RR'][0]}].BASIS_RR_VALUE: reflux ratio must be > 0")
        self.flow_spec = flows[0]
        k, item = found[self.flow_spec]
        value = float(item[OP_SPEC_KEYS[self.flow_spec]])
        if self.flow_spec in ("D", "B"):
            units_key = f"BASIS_{self.flow_spec}_UNITS"
            value = to_si(value, item[units_key], "molar_flow", f"{where}[{k}].{units_key}")
        self.flow_value = value

    def _parse_feeds(self, items: list[dict[str, Any]]) -> None:
        feeds = self.inlets.get("F(IN)", [])
        self.feed_stages: dict[str, tuple[int, bool]] = {}
        for k, item in enumerate(items):
            stream, stage = item["FEED_STAGE"], int(item["FEED_STAGE_VALUE"])
            at = f"{self.where}.FEED_STAGE_DATA[{k}]"
            if stream not in feeds:
                raise SpecificationError(f"{at}.FEED_STAGE: {stream} is not a feed (F(IN)) of {self.name}")
            if stage > self.N:
                raise SpecificationError(f"{at}.FEED_STAGE_VALUE: stage {stage} > NSTAGE {self.N}")
            if item["FEED_CONVEN"] == "BELOW-STAGE":
                raise UnsupportedOptionError(f"{at}.FEED_CONVEN: BELOW-STAGE is not simulated")
            self.feed_stages[stream] = (stage - 1, item["FEED_CONVEN"] == "ABOVE-STAGE")
        missing = [s for s in feeds if s not in self.feed_stages]
        if missing:
            raise SpecificationError(
                f"{self.where}.FEED_STAGE_DATA: no feed stage for feed stream(s) {', '.join(missing)}"
            )

    def _parse_products(self, items: list[dict[str, Any]]) -> None:
        expected = {
            self.outlet_name(self.d_port): (1, "L" if self.total_condenser else "V"),
            self.outlet_name("B(OUT)"): (self.N, "L"),
        }
        for k, item in enumerate(items):
            at = f"{self.where}.PROD_STAGE_DATA[{k}]"
            stream = item["PROD_STAGE"]
            if stream not in expected:
                raise UnsupportedOptionError(
                    f"{at}.PROD_STAGE: {stream} is not the distillate or bottoms of {self.name}; side draws "
                    "are not simulated"
                )
            stage, phase = expected[stream]
            if (int(item["PROD_STAGE_VALUE"]), item["PROD_PHASE"]) != (stage, phase):
                raise SpecificationError(
                    f"{at}: {stream} leaves stage {stage} as phase {phase}, not stage "
                    f"{item['PROD_STAGE_VALUE']} phase {item['PROD_PHASE']}"
                )

    def _pressures(self, pres: dict[str, Any], where: str) -> np.ndarray:
        """Stage pressures [Pa] from PRES_DATA (TOP/BOTTOM or PROFILE)."""
        if pres["VIEW_PRES"] == "PROFILE":
            points: dict[int, float] = {}
            for k, item in enumerate(pres["STAGE_PRES"]):
                at = f"{where}.STAGE_PRES[{k}]"
                try:
                    stage = int(item["PRES_STAGE"])
                except ValueError:
                    raise SpecificationError(
                        f"{at}.PRES_STAGE: {item['PRES_STAGE']!r} is not a stage number"
                    ) from None
                if not 1 <= stage <= self.N:
                    raise SpecificationError(f"{at}.PRES_STAGE: stage {stage} is not within 1..{self.N}")
                points[stage] = to_si(
                    float(item["PRES_VALUE"]), item["PRES_UNITS"], "pressure", f"{at}.PRES_UNITS"
                )
            stages = sorted(points)
            return np.interp(np.arange(1, self.N + 1), stages, [points[j] for j in stages])
        item = pres["STAGE_PRES"][0]
        at = f"{where}.STAGE_PRES[0]"
        P1 = to_si(float(item["PRES1_VALUE"]), item["PRES1_UNITS"], "pressure", f"{at}.PRES1_UNITS")
        if item["OPT_PRES_TOP"] == "STAGE-2":
            P2 = to_si(float(item["PRES2_VALUE"]), item["PRES2_UNITS"], "pressure", f"{at}.PRES2_UNITS")
        else:
            P2 = P1 + to_si(
                float(item["DP_COND_VALUE"]), item["DP_COND_UNITS"], "pressure", f"{at}.DP_COND_UNITS"
            )
        if item["OPT_PRES"] == "DP-STAGE":
            dP = to_si(
                float(item["DP_STAGE_VALUE"]), item["DP_STAGE_UNITS"], "pressure", f"{at}.DP_STAGE_UNITS"
            )
        else:
            total = to_si(float(item["DP_COL_VALUE"]), item["DP_COL_UNITS"], "pressure", f"{at}.DP_COL_UNITS")
            dP = total / max(self.N - 2, 1)
        return np.array([P1] + [P2 + (j - 2) * dP for j in range(2, self.N + 1)])

    def primary_outlet(self, outlets: dict[str, Stream]) -> Stream | None:
        return outlets[self.outlet_name(self.d_port)]

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        streams = [s for s in feeds["F(IN)"] if not s.empty]
        total = np.sum([s.flows for s in feeds["F(IN)"]], axis=0)
        F = float(total.sum())
        idx = tuple(int(i) for i in np.flatnonzero(total > 0))
        if not 2 <= len(idx) <= MAX_COMPONENTS:
            raise SpecificationError(
                f"block {self.name}: RadFrac handles 2 to {MAX_COMPONENTS} components in its feed, got "
                f"{len(idx)}"
            )
        D = self._distillate_rate(F)
        problem = self._problem(streams, idx, total, D)
        models = self.package.models(idx)

        def props(
            j: int, T: float, P: float, x: np.ndarray, y: np.ndarray
        ) -> tuple[np.ndarray, np.ndarray, float, float]:
            lnphi_l, dlnphi_l, hL = models.liquid_props(T, P, x.tolist())
            lnphi_v, dlnphi_v, HV = models.gas_props(T, P, y.tolist())
            return lnphi_l - lnphi_v, dlnphi_l - dlnphi_v, hL, HV

        solution = solve_column(problem, props, f"block {self.name}")
        n = total.size
        d, b = np.zeros(n), np.zeros(n)
        d[list(idx)] = solution.distillate_flows
        b[list(idx)] = solution.bottoms_flows
        d_name, b_name = self.outlet_name(self.d_port), self.outlet_name("B(OUT)")
        P_top, P_bot = float(self.P[0]), float(self.P[-1])
        distillate = self.flash(d_name, d, "distillate", P=P_top, VF=0.0 if self.total_condenser else 1.0)
        bottoms = self.flash(b_name, b, "bottoms", P=P_bot, VF=0.0)
        H_feeds = float(sum(s.enthalpy_flow for s in streams))
        L0, V1 = solution.L[0], solution.V[1]
        h_reflux = distillate.phase.H if self.total_condenser else solution.hL[0]
        Q_cond = distillate.enthalpy_flow + L0 * h_reflux - V1 * solution.HV[1] - problem.feed_enthalpy[0]
        Q_reb = distillate.enthalpy_flow + bottoms.enthalpy_flow - H_feeds - Q_cond
        self.heat = Q_cond + Q_reb
        cids = [self.ctx.cids[i] for i in idx]
        feed_stages = {name: stage + 1 for name, (stage, _) in self.feed_stages.items()}
        self.report = {
            "number_of_stages": self.N,
            "feed_stage": next(iter(feed_stages.values())),
            "feed_stages": feed_stages,
            "reflux_ratio": self.RR,
            "boilup_ratio": float(solution.V[-1] / solution.L[-1]),
            "condenser_duty_kW": Q_cond / 1000.0,
            "reboiler_duty_kW": Q_reb / 1000.0,
            "distillate_rate_kmol_hr": distillate.total * 3.6,
            "bottoms_rate_kmol_hr": bottoms.total * 3.6,
            "distillate_temperature_C": from_si(distillate.T, "temperature"),
            "bottoms_temperature_C": from_si(bottoms.T, "temperature"),
            "condenser": "TOTAL" if self.total_condenser else "PARTIAL-V",
            "iterations": solution.iterations,
            "stage_profile": [
                {
                    "stage": j + 1,
                    "temperature_C": from_si(float(solution.T[j]), "temperature"),
                    "pressure_bar": from_si(float(self.P[j]), "pressure"),
                    "liquid_flow_kmol_hr": float(solution.L[j]) * 3.6,
                    "vapor_flow_kmol_hr": float(solution.V[j]) * 3.6,
                    "x": dict(zip(cids, solution.x[j].tolist(), strict=True)),
                    "y": dict(zip(cids, solution.y[j].tolist(), strict=True)),
                }
                for j in range(self.N)
            ],
        }
        return {d_name: distillate, b_name: bottoms}

    def _distillate_rate(self, F: float) -> float:
        spec, value = self.flow_spec, self.flow_value
        D = {
            "D:F": value * F,
            "B:F": F - value * F,
            "D": value,
            "B": F - value,
        }[spec]
        if not 0.0 < D < F:
            raise InfeasibleSpecificationError(
                f"{self.where}.CONFIG_DATA.OP_SPEC.{spec}: distillate {D * 3.6:.6g} kmol/hr is not between "
                "0 and the "
                f"feed {F * 3.6:.6g} kmol/hr"
            )
        return D

    def _problem(
        self, streams: list[Stream], idx: tuple[int, ...], total: np.ndarray, D: float
    ) -> ColumnProblem:
        N, C = self.N, len(idx)
        cols = list(idx)
        feed_flows = np.zeros((N, C))
        feed_enthalpy = np.zeros(N)
        for stream in streams:
            stage, above = self.feed_stages[stream.name]
            state = stream.phase
            if above and stage > 0 and 0.0 < state.VF < 1.0:
                zs = stream.flows / stream.total
                _, vapor, liquid = self.package.flash_split(
                    zs, f"stream {stream.name}", P=stream.P, H=state.H
                )
                assert vapor is not None and liquid is not None  # a feed with 0 < VF < 1 has both phases
                V = stream.total * state.VF
                for part, flow, at in ((vapor, V, stage - 1), (liquid, stream.total - V, stage)):
                    feed_flows[at] += flow * part.zs[cols]
                    feed_enthalpy[at] += flow * part.H
            else:
                at = stage - 1 if above and stage > 0 and state.VF >= 1.0 else stage
                feed_flows[at] += stream.flows[cols]
                feed_enthalpy[at] += stream.enthalpy_flow
        # initial estimates: lightest components (by normal boiling point) to the distillate
        f = total[cols]
        Tbs = np.array([self.package.constants.Tbs[i] or 0.0 for i in idx])
        d = np.zeros(C)
        room = D
        for k in np.argsort(Tbs):
            d[k] = min(f[k], room)
            room -= d[k]
        d = np.clip(d, 1e-6 * f, f * (1 - 1e-6))
        b = f - d
        xD, xB = d / d.sum(), b / b.sum()
        full = np.zeros(total.size)
        full[cols] = xD
        top = self.package.flash(full.copy(), f"block {self.name} initial top", P=float(self.P[0]), VF=0.0)
        full[cols] = xB
        bot = self.package.flash(
            full.copy(), f"block {self.name} initial bottom", P=float(self.P[-1]), VF=0.0
        )
        weights = np.linspace(0.0, 1.0, N)[:, None]
        x = (1 - weights) * xD + weights * xB
        y = np.vstack([x[:1], x[:-1]])
        T = top.T + (bot.T - top.T) * weights[:, 0]
        return ColumnProblem(
            P=self.P.astype(float),
            feed_flows=feed_flows,
            feed_enthalpy=feed_enthalpy,
            distillate=D,
            reflux_ratio=self.RR,
            total_condenser=self.total_condenser,
            T_guess=T,
            x_guess=x,
            y_guess=y,
            max_iterations=self.max_iterations,
        )

    @classmethod
    def schema_part(cls) -> dict[str, Any]:

        def basis(what: str) -> dict[str, Any]:
            return string(f"Basis of {what}: MOLE or MASS (the mock simulates MOLE).", ["MOLE", "MASS"])

        def flow_units(what: str) -> dict[str, Any]:
            return string(
                f"Unit of {what}: kmol/hr (kg/hr goes with a MASS basis, refused: UnsupportedOption; m3/hr and lb/hr cannot be written by the Aspen service).",  # noqa: E501
                COL_FLOW_UNITS,
            )

        duty_units = string("Unit of the duty: kW (MW and W cannot be written by the Aspen service).", ["kW"])
        op_items = [
            _op(
                "RR",
                {
                    "BASIS_RR_VALUE": num("Molar reflux ratio L/D."),
                    "BASIS_RR_BASIS": basis("the reflux ratio"),
                },
                ["BASIS_RR_VALUE", "BASIS_RR_BASIS"],
            ),
            _op(
                "D",
                {
                    "BASIS_D_VALUE": num("Distillate rate, in BASIS_D_UNITS."),
                    "BASIS_D_UNITS": flow_units("BASIS_D_VALUE"),
                    "BASIS_D_BASIS": basis("the distillate rate"),
                },
                ["BASIS_D_VALUE", "BASIS_D_UNITS", "BASIS_D_BASIS"],
            ),
            _op(
                "L1",
                {
                    "BASIS_L1_VALUE": num("Reflux rate (refused by the mock)."),
                    "BASIS_L1_UNITS": flow_units("BASIS_L1_VALUE"),
                    "BASIS_L1_BASIS": basis("the reflux rate"),
                },
                ["BASIS_L1_VALUE", "BASIS_L1_UNITS", "BASIS_L1_BASIS"],
            ),
            _op(
                "B",
                {
                    "BASIS_B_VALUE": num("Bottoms rate, in BASIS_B_UNITS."),
                    "BASIS_B_UNITS": flow_units("BASIS_B_VALUE"),
                    "BASIS_B_BASIS": basis("the bottoms rate"),
                },
                ["BASIS_B_VALUE", "BASIS_B_UNITS", "BASIS_B_BASIS"],
            ),
            _op(
                "VN",
                {
                    "BASIS_VN_VALUE": num("Boilup rate (refused by the mock)."),
                    "BASIS_VN_UNITS": flow_units("BASIS_VN_VALUE"),
                    "BASIS_VN_BASIS": basis("the boilup rate"),
                },
                ["BASIS_VN_VALUE", "BASIS_VN_UNITS", "BASIS_VN_BASIS"],
            ),
            _op(
                "BR",
                {
                    "BASIS_BR_VALUE": num("Boilup ratio (refused by the mock)."),
                    "BASIS_BR_BASIS": basis("the boilup ratio"),
                },
                ["BASIS_BR_VALUE", "BASIS_BR_BASIS"],
            ),
            _op(
                "Q1",
                {"Q1_VALUE": num("Condenser duty (refused by the mock)."), "Q1_UNITS": duty_units},
                ["Q1_VALUE", "Q1_UNITS"],
            ),
            _op(
                "QN",
                {"QN_VALUE": num("Reboiler duty (refused by the mock)."), "QN_UNITS": duty_units},
                ["QN_VALUE", "QN_UNITS"],
            ),
            _op(
                "D:F",
                {"DF_VALUE": num("Distillate to feed ratio (0..1)."), "DF_BASIS": basis("the ratio")},
                ["DF_VALUE", "DF_BASIS"],
            ),
            _op(
                "B:F",
                {"BF_VALUE": num("Bottoms to feed ratio (0..1)."), "BF_BASIS": basis("the ratio")},
                ["BF_VALUE", "BF_BASIS"],
            ),
        ]
        config = {
            "type": "object",
            "description": "Column configuration.",
            "properties": {
                "CALC_MODE": string(
                    "EQUILIBRIUM (simulated) or RIG-RATE (rate-based, refused).",
                    ["EQUILIBRIUM", "RIG-RATE"],
                    default="EQUILIBRIUM",
                ),
                "NSTAGE": {
                    "type": "integer",
                    "minimum": 2,
                    "maximum": 200,
                    "description": "Number of stages, condenser (stage 1) and reboiler (last stage) included.",  # noqa: E501
                },
                "CONDENSER": string(
                    "TOTAL (liquid distillate, port LD(OUT)) or PARTIAL-V (vapour distillate, port VD(OUT)); PARTIAL-V-L and NONE are refused.",  # noqa: E501
                    ["TOTAL", "PARTIAL-V", "PARTIAL-V-L", "NONE"],
                ),
                "REBOILER": string(
                    "KETTLE (simulated); THERMOSYPHON and NONE are refused.",
                    ["KETTLE", "THERMOSYPHON", "NONE"],
                ),
                "CONV_METH": string(
                    "Aspen's convergence method; the mock's Newton solver is the same for every choice.",
                    ["STANDARD", "NONIDEAL", "AZEOTROPIC", "CRYOGENIC", "PETROLEUM", "OTHERS"],
                ),
                "NO_PHASE": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 3,
                    "description": "Valid phases: 2 (vapour-liquid) is simulated; 1 and 3 are refused.",
                },
                "BLKOPFREWAT": string(
                    "Free-water handling: NO (simulated); YES and DIRTY are refused.", ["YES", "NO", "DIRTY"]
                ),
                "OP_SPEC": {
                    "type": "array",
                    "description": "Operating specifications, one per item: the mock needs the reflux ratio (RR) and one of the distillate rate (D), bottoms rate (B), D:F or B:F, all on a MOLE basis.",  # noqa: E501
                    "items": {"type": "object", "oneOf": op_items},
                    "minItems": 1,
                    "maxItems": 2,
                },
            },
            "required": [
                "CALC_MODE",
                "NSTAGE",
                "CONDENSER",
                "REBOILER",
                "CONV_METH",
                "NO_PHASE",
                "BLKOPFREWAT",
                "OP_SPEC",
            ],
            "additionalProperties": False,
        }
        feed = {
            "type": "array",
            "description": "Feed location of every feed stream.",
            "items": {
                "type": "object",
                "properties": {
                    "FEED_STAGE": string("Feed stream name (an F(IN) stream of this block)."),
                    "FEED_STAGE_VALUE": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Stage number (1 = condenser).",
                    },
                    "FEED_CONVEN": string(
                        "ABOVE-STAGE: the feed enters between stage n-1 and n (its vapour goes to n-1, its liquid to n); ON-STAGE: all of it enters stage n; BELOW-STAGE is refused.",  # noqa: E501
                        ["ABOVE-STAGE", "ON-STAGE", "BELOW-STAGE"],
                    ),
                },
                "required": ["FEED_STAGE", "FEED_STAGE_VALUE", "FEED_CONVEN"],
                "additionalProperties": False,
            },
            "minItems": 1,
        }
        prod = {
            "type": "array",
            "description": "Product locations. The distillate is drawn at stage 1 (phase L for a total condenser, V for a partial one) and the bottoms at stage NSTAGE (phase L); side draws are refused.",  # noqa: E501
            "items": {
                "type": "object",
                "properties": {
                    "PROD_STAGE": string("Product stream name (an outlet of this block)."),
                    "PROD_STAGE_VALUE": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "Stage the product is drawn from.",
                    },
                    "PROD_PHASE": string("L liquid or V vapour.", ["L", "V"]),
                },
                "required": ["PROD_STAGE", "PROD_STAGE_VALUE", "PROD_PHASE"],
                "additionalProperties": False,
            },
            "minItems": 1,
        }

        def p_units(what: str) -> dict[str, Any]:
            return string(
                f"Unit of {what}: bar, atm, kPa or MPa (psi cannot be written by the Aspen service).",
                COL_P_UNITS,
            )

        def nullable(desc: str) -> dict[str, Any]:
            return {"type": ["number", "null"], "minimum": 0, "description": desc}

        top_bottom_item = {
            "type": "object",
            "description": "Top pressure and the pressure drops below it.",
            "properties": {
                "PRES1_VALUE": num("Pressure of stage 1 (the condenser), in PRES1_UNITS."),
                "PRES1_UNITS": p_units("PRES1_VALUE"),
                "OPT_PRES_TOP": string(
                    "How stage 2's pressure is given: DP-COND (condenser pressure drop DP_COND_VALUE) or STAGE-2 (its pressure PRES2_VALUE).",  # noqa: E501
                    ["DP-COND", "STAGE-2"],
                ),
                "PRES2_VALUE": {
                    "type": ["number", "null"],
                    "description": "Pressure of stage 2 (OPT_PRES_TOP STAGE-2), in PRES2_UNITS.",
                },
                "PRES2_UNITS": p_units("PRES2_VALUE"),
                "DP_COND_VALUE": nullable(
                    "Pressure drop from stage 2 to the condenser (OPT_PRES_TOP DP-COND), in DP_COND_UNITS."
                ),
                "DP_COND_UNITS": p_units("DP_COND_VALUE"),
                "OPT_PRES": string(
                    "Pressure drop over the rest of the column: DP-STAGE (per stage, DP_STAGE_VALUE) or DP-COL (whole column from stage 2 to the last, DP_COL_VALUE, spread evenly).",  # noqa: E501
                    ["DP-COL", "DP-STAGE"],
                ),
                "DP_STAGE_VALUE": nullable("Pressure drop per stage (OPT_PRES DP-STAGE), in DP_STAGE_UNITS."),
                "DP_STAGE_UNITS": p_units("DP_STAGE_VALUE"),
                "DP_COL_VALUE": nullable(
                    "Pressure drop from stage 2 to the last stage (OPT_PRES DP-COL), in DP_COL_UNITS."
                ),
                "DP_COL_UNITS": p_units("DP_COL_VALUE"),
            },
            "allOf": [
                {
                    "if": {
                        "properties": {"OPT_PRES_TOP": {"const": "DP-COND"}},
                        "required": ["OPT_PRES_TOP"],
                    },
                    "then": {
                        "required": ["DP_COND_VALUE", "DP_COND_UNITS"],
                        "properties": {
                            "DP_COND_VALUE": {"type": "number", "minimum": 0},
                            "DP_COND_UNITS": {"type": "string"},
                            "PRES2_VALUE": {"type": "null"},
                            "PRES2_UNITS": {"type": "null"},
                        },
                    },
                },
                {
                    "if": {
                        "properties": {"OPT_PRES_TOP": {"const": "STAGE-2"}},
                        "required": ["OPT_PRES_TOP"],
                    },
                    "then": {
                        "required": ["PRES2_VALUE", "PRES2_UNITS"],
                        "properties": {
                            "PRES2_VALUE": {"type": "number", "minimum": 0},
                            "PRES2_UNITS": {"type": "string"},
                            "DP_COND_VALUE": {"type": "null"},
                            "DP_COND_UNITS": {"type": "null"},
                        },
                    },
                },
                {
                    "if": {"properties": {"OPT_PRES": {"const": "DP-COL"}}, "required": ["OPT_PRES"]},
                    "then": {
                        "required": ["DP_COL_VALUE", "DP_COL_UNITS"],
                        "properties": {
                            "DP_COL_VALUE": {"type": "number", "minimum": 0},
                            "DP_COL_UNITS": {"type": "string"},
                            "DP_STAGE_VALUE": {"type": "null"},
                            "DP_STAGE_UNITS": {"type": "null"},
                        },
                    },
                },
                {
                    "if": {"properties": {"OPT_PRES": {"const": "DP-STAGE"}}, "required": ["OPT_PRES"]},
                    "then": {
                        "required": ["DP_STAGE_VALUE", "DP_STAGE_UNITS"],
                        "properties": {
                            "DP_STAGE_VALUE": {"type": "number", "minimum": 0},
                            "DP_STAGE_UNITS": {"type": "string"},
                            "DP_COL_VALUE": {"type": "null"},
                            "DP_COL_UNITS": {"type": "null"},
                        },
                    },
                },
            ],
            "required": ["PRES1_VALUE", "PRES1_UNITS", "OPT_PRES_TOP", "OPT_PRES"],
            "additionalProperties": False,
        }
        pres = {
            "type": "object",
            "description": "Column pressures: either a profile of stage pressures (linear in between, constant beyond the first and last given stage) or the top pressure with pressure drops.",  # noqa: E501
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "VIEW_PRES": string(
                            "PROFILE: pressures of chosen stages.", ["PROFILE"], default="PROFILE"
                        ),
                        "STAGE_PRES": {
                            "type": "array",
                            "description": "Stage pressures.",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "PRES_STAGE": string("Stage number as text, e.g. '1'."),
                                    "PRES_VALUE": num("Pressure of that stage, in PRES_UNITS.", minimum=0),
                                    "PRES_UNITS": p_units("PRES_VALUE"),
                                },
                                "required": ["PRES_STAGE", "PRES_VALUE", "PRES_UNITS"],
                                "additionalProperties": False,
                            },
                            "minItems": 1,
                        },
                    },
                    "required": ["VIEW_PRES", "STAGE_PRES"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "properties": {
                        "VIEW_PRES": string("TOP/BOTTOM: top pressure and pressure drops.", ["TOP/BOTTOM"]),
                        "STAGE_PRES": {
                            "type": "array",
                            "description": "Exactly one item.",
                            "items": top_bottom_item,
                            "minItems": 1,
                            "maxItems": 1,
                        },
                    },
                    "required": ["VIEW_PRES", "STAGE_PRES"],
                    "additionalProperties": False,
                },
            ],
        }
        condenser = {
            "type": "object",
            "description": "Condenser specification.",
            "properties": {
                "OPT_COND_SPC": string(
                    "VFRAC (default): the condenser outlet is at its bubble point (total) or dew point (partial-V); TEMP (subcooled or set temperature) is refused.",  # noqa: E501
                    ["VFRAC", "TEMP"],
                    default="VFRAC",
                ),
                "BASIS_RDV_VALUE": num(
                    "Vapour fraction of the distillate (partial condensers with vapour and liquid distillate; not used by the mock)."  # noqa: E501
                ),
                "BASIS_RDV_BASIS": string("Basis of BASIS_RDV_VALUE.", ["MOLE", "MASS"]),
                "SC_OPTION": string(
                    "Which streams a subcooling applies to; no effect without subcooling.",
                    ["REFLUX-AND-DISTILLATE", "BOILUP-AND-BOTTOM"],
                ),
            },
            "required": ["OPT_COND_SPC", "SC_OPTION"],
            "additionalProperties": False,
        }
        design = {
            "type": "array",
            "description": "Column design specifications (varying an operating specification to meet a purity or flow). Not simulated by the mock: a non-empty list is refused (UnsupportedOption).",  # noqa: E501
            "items": {"type": "object"},
            "minItems": 0,
        }
        vary = {
            "type": "array",
            "description": "Variables adjusted by DESIGN_SPEC_DATA. Not simulated by the mock: a non-empty list is refused.",  # noqa: E501
            "items": {"type": "object"},
            "minItems": 0,
        }
        entry = block_entry(
            {
                "CONFIG_DATA": config,
                "FEED_STAGE_DATA": feed,
                "PROD_STAGE_DATA": prod,
                "PRES_DATA": pres,
                "CONDENSER_DATA": condenser,
                "DESIGN_SPEC_DATA": design,
                "VARY_DATA": vary,
            },
            ["CONFIG_DATA", "FEED_STAGE_DATA", "PROD_STAGE_DATA", "PRES_DATA", "CONDENSER_DATA"],
            closed=True,
        )
        return section(
            "RadFrac",
            cls.description + " Two to five components in the feed; vapour-liquid only.",
            entry,
            {"additionalProperties": False},
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """The rows of this block's ``<BLOCK>_result`` sheet (Aspen output names, with units)."""
        d = b.doc
        profile = d.get("stage_profile") or []
        top = profile[0]["temperature_C"] if profile else d.get("distillate_temperature_C")
        bottom = profile[-1]["temperature_C"] if profile else d.get("bottoms_temperature_C")
        D, B = d.get("distillate_rate_kmol_hr"), d.get("bottoms_rate_kmol_hr")
        RR, BR = d.get("reflux_ratio"), d.get("boilup_ratio")
        F = sum(p.doc.get("molar_flow_kmol_hr", 0.0) for p in b.inlets)
        rows.add("TOP_TEMP", top, TEMPERATURE)
        rows.add("COND_DUTY", d.get("condenser_duty_kW"), POWER)
        rows.add("MOLE_D", D, MOLAR_FLOW)
        rows.add("MOLE_L1", RR * D if RR is not None and D is not None else None, MOLAR_FLOW)
        rows.add("MOLE_RR", RR)
        rows.add("MOLE_DFR", D / F if D is not None and F > 0 else None)
        rows.add("BOTTOM_TEMP", bottom, TEMPERATURE)
        rows.add("REB_DUTY", d.get("reboiler_duty_kW"), POWER)
        rows.add("MOLE_B", B, MOLAR_FLOW)
        rows.add("MOLE_VN", BR * B if BR is not None and B is not None else None, MOLAR_FLOW)
        rows.add("MOLE_BR", BR)
        rows.add("MOLE_BFR", B / F if B is not None and F > 0 else None)
