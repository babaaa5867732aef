"""RadFrac: rigorous equilibrium-stage distillation column for 2-5 components."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from simulator_mock.blocks.base import Block, Cardinality
from simulator_mock.blocks.column_solver import ColumnProblem, solve_column
from simulator_mock.errors import InfeasibleSpecificationError, SpecificationError, UnsupportedOptionError
from simulator_mock.streams import Stream
from simulator_mock.units import from_si, to_si

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


class RadFrac(Block):
    """Rigorous distillation column (Aspen ``RadFrac``): total or partial condenser, kettle reboiler."""

    type_name = "RadFrac"
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
        h_reflux = distillate.state.H if self.total_condenser else solution.hL[0]
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
            state = stream.state
            if above and stage > 0 and 0.0 < state.VF < 1.0:
                zs = stream.flows / stream.total
                _, vapor, liquid = self.package.flash_split(
                    zs, f"stream {stream.name}", P=stream.P, H=state.H
                )
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
