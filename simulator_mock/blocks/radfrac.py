"""RadFrac: rigorous equilibrium-stage distillation column for 2-5 components."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from simulator_mock.blocks.base import Block, Cardinality
from simulator_mock.blocks.column_solver import ColumnProblem, solve_column
from simulator_mock.errors import InfeasibleSpecificationError, SpecificationError
from simulator_mock.streams import Stream
from simulator_mock.units import from_si, to_si

MAX_COMPONENTS = 5
_FLOW_SPECS = ("DF_VALUE", "BF_VALUE", "BASIS_D_VALUE", "BASIS_B_VALUE")


class RadFrac(Block):
    """Rigorous distillation column (Aspen ``RadFrac``): total or partial condenser, kettle reboiler."""

    type_name = "RadFrac"
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"D(OUT)": (1, 1), "B(OUT)": (1, 1)}
    port_aliases: ClassVar[dict[str, str]] = {"LD(OUT)": "D(OUT)", "VD(OUT)": "D(OUT)"}

    def parse(self, data: dict[str, Any]) -> None:
        config = data["CONFIG_DATA"]
        where = f"{self.where}.CONFIG_DATA"
        self.N = int(config["NSTAGE"])
        self.total_condenser = config.get("CONDENSER", "TOTAL") == "TOTAL"
        self.max_iterations = int(config.get("MAXOL", 200))
        specs = config["OP_SPEC"]
        merged: dict[str, Any] = {}
        for item in specs if isinstance(specs, list) else [specs]:
            merged.update(item)
        if "BASIS_RR_VALUE" not in merged:
            raise SpecificationError(f"{where}.OP_SPEC: the reflux ratio BASIS_RR_VALUE is required")
        flow_specs = [k for k in _FLOW_SPECS if k in merged]
        if len(flow_specs) != 1:
            raise SpecificationError(
                f"{where}.OP_SPEC: give exactly one of {', '.join(_FLOW_SPECS)} besides BASIS_RR_VALUE "
                f"(got {', '.join(flow_specs) or 'none'})"
            )
        self.RR = float(merged["BASIS_RR_VALUE"])
        self.flow_spec = flow_specs[0]
        value = float(merged[self.flow_spec])
        if self.flow_spec in ("BASIS_D_VALUE", "BASIS_B_VALUE"):
            units_key = self.flow_spec.replace("VALUE", "UNITS")
            value = to_si(value, merged.get(units_key), "molar_flow", f"{where}.OP_SPEC.{units_key}")
        self.flow_value = value

        feeds = self.inlets.get("F(IN)", [])
        self.feed_stages: dict[str, tuple[int, bool]] = {}
        for k, item in enumerate(data["FEED_STAGE_DATA"]):
            stream, stage = item["FEED_STAGE"], int(item["FEED_STAGE_VALUE"])
            at = f"{self.where}.FEED_STAGE_DATA[{k}]"
            if stream not in feeds:
                raise SpecificationError(f"{at}.FEED_STAGE: {stream} is not a feed (F(IN)) of {self.name}")
            if stage > self.N:
                raise SpecificationError(f"{at}.FEED_STAGE_VALUE: stage {stage} > NSTAGE {self.N}")
            self.feed_stages[stream] = (stage - 1, item.get("FEED_CONVEN", "ABOVE-STAGE") == "ABOVE-STAGE")
        missing = [s for s in feeds if s not in self.feed_stages]
        if missing:
            raise SpecificationError(
                f"{self.where}.FEED_STAGE_DATA: no feed stage for feed stream(s) {', '.join(missing)}"
            )
        pres = data["PRES_DATA"]["STAGE_PRES"][0]
        at = f"{self.where}.PRES_DATA.STAGE_PRES[0]"
        P1 = to_si(pres["PRES1_VALUE"], pres.get("PRES1_UNITS"), "pressure", f"{at}.PRES1_UNITS")
        dP_cond = to_si(
            pres.get("DP_COND_VALUE", 0.0), pres.get("DP_COND_UNITS"), "pressure", f"{at}.DP_COND_UNITS"
        )
        dP_stage = to_si(
            pres.get("DP_STAGE_VALUE", 0.0), pres.get("DP_STAGE_UNITS"), "pressure", f"{at}.DP_STAGE_UNITS"
        )
        self.P = np.array([P1] + [P1 + dP_cond + (j - 1) * dP_stage for j in range(1, self.N)])

    def primary_outlet(self, outlets: dict[str, Stream]) -> Stream | None:
        return outlets[self.outlet_name("D(OUT)")]

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
        d_name, b_name = self.outlet_name("D(OUT)"), self.outlet_name("B(OUT)")
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
            "DF_VALUE": value * F,
            "BF_VALUE": F - value * F,
            "BASIS_D_VALUE": value,
            "BASIS_B_VALUE": F - value,
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
