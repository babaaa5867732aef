"""Distl: shortcut column rating with given stages, feed stage, reflux ratio and distillate-to-feed ratio."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from simulator_mock.errors import ConvergenceError, SpecificationError
from simulator_mock.flowsheet.blocks.base import Block, Cardinality
from simulator_mock.flowsheet.blocks.column_solver import _Anderson, thomas
from simulator_mock.flowsheet.result_sheet import POWER, TEMPERATURE
from simulator_mock.flowsheet.schema_fields import block_entry, num, section, spec_object, string, units
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.flowsheet.time_budget import check_time
from simulator_mock.properties.units import from_si, to_si

#: column pressure units (as DSTWU)
COLUMN_P_UNITS = ["bar", "atm", "MPa", "kPa"]
MAX_ITERATIONS = 300
TOLERANCE = 1e-10


class Distl(Block):
    """Distillation rating column (Aspen ``Distl``): given stages, feed stage, reflux ratio and D/F.

    Aspen's Distl uses Edmister's group method under constant molar overflow (CMO). The mock solves the
    same CMO column exactly, stage by stage, rather than by Edmister's effective absorption and stripping
    factors: with CMO the flows of every section follow from RR, D/F and the feed quality q; one
    tridiagonal component balance per component (exact for every component) gives the liquid
    compositions, and each stage's temperature and K-values come from a bubble-point flash of its liquid
    with the flowsheet's property method, repeated (Anderson-accelerated) until the compositions stop
    changing. Duties come from enthalpy balances: the condenser's over the condenser, the reboiler's over
    the whole column, so that the block's energy balance closes. Stages are numbered from the top; stage 1
    is the condenser and NSTAGE the reboiler (Aspen's convention).
    """

    type_name = "Distl"
    description = "Distillation column rating (given stages, feed stage, reflux ratio, distillate-to-feed ratio; constant molar overflow). Ports: F(IN) one or more, D(OUT) one (distillate), B(OUT) one (bottoms)."  # noqa: E501
    not_written: ClassVar[dict[str, str]] = {}
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"D(OUT)": (1, 1), "B(OUT)": (1, 1)}

    def parse(self, data: dict[str, Any]) -> None:
        spec = data["SPEC_DATA"]
        where = f"{self.where}.SPEC_DATA"
        self.N = int(spec["NSTAGE"])
        self.feed_stage = int(spec["FEED_LOC"])
        if self.N < 3:
            raise SpecificationError(
                f"{where}.NSTAGE: {self.N} stages; give at least 3 (condenser, one stage, reboiler)"
            )
        if not 2 <= self.feed_stage <= self.N - 1:
            raise SpecificationError(
                f"{where}.FEED_LOC: stage {self.feed_stage} is not between 2 and NSTAGE - 1 ({self.N - 1})"
            )
        self.RR = float(spec["RR"])
        self.D_F = float(spec["D_F"])
        if self.RR <= 0:
            raise SpecificationError(f"{where}.RR: reflux ratio {self.RR:g} must be > 0")
        if not 0.0 < self.D_F < 1.0:
            raise SpecificationError(
                f"{where}.D_F: distillate-to-feed ratio {self.D_F:g} must be within (0, 1)"
            )
        self.total_condenser = spec.get("COND_TYPE", "TOTAL") == "TOTAL"
        self.P_top = to_si(float(spec["PTOP"]), spec.get("PTOP_UNITS"), "pressure", f"{where}.PTOP_UNITS")
        self.P_bot = (
            to_si(float(spec["PBOT"]), spec.get("PBOT_UNITS"), "pressure", f"{where}.PBOT_UNITS")
            if spec.get("PBOT") is not None
            else self.P_top
        )

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        mixed = self.mixed(feeds["F(IN)"])
        f = mixed.flows
        F = float(f.sum())
        d_name, b_name = self.outlet_name("D(OUT)"), self.outlet_name("B(OUT)")
        N, f0 = self.N, self.feed_stage - 1
        P = np.linspace(self.P_top, self.P_bot, N)
        z = f / F
        present = f > 0
        # feed quality at the feed stage's pressure
        bubble = self.package.flash(z, f"block {self.name} feed bubble point", P=P[f0], VF=0.0)
        dew = self.package.flash(z, f"block {self.name} feed dew point", P=P[f0], VF=1.0)
        q = (dew.H - mixed.H_total / F) / (dew.H - bubble.H)
        D = self.D_F * F
        B = F - D
        L = self.RR * D
        V_rect = L + D
        L_strip = L + q * F
        V_strip = V_rect - (1.0 - q) * F
        if V_strip <= 0 or L_strip <= 0:
            raise SpecificationError(
                f"{self.where}.SPEC_DATA: the feed (q = {q:.4g}) leaves no vapour or liquid in the stripping "
                "section at this reflux ratio; raise RR"
            )
        Lout = np.empty(N)  # total liquid leaving each stage (to the stage below, or a product)
        Vout = np.empty(N)  # total vapour leaving each stage (to the stage above, or a product)
        Lout[1:f0] = L
        Vout[1:f0] = V_rect
        Lout[f0], Vout[f0] = L_strip, V_rect
        Lout[f0 + 1 : N - 1] = L_strip
        Vout[f0 + 1 : N - 1] = V_strip
        Lout[N - 1], Vout[N - 1] = B, V_strip
        if self.total_condenser:
            Lout[0], Vout[0] = L + D, 0.0
        else:
            Lout[0], Vout[0] = L, D
        L_in = np.zeros(N)  # liquid entering from the stage above
        L_in[1] = L
        L_in[2:] = Lout[1 : N - 1]
        # Fixed point on the stage liquid compositions x (Anderson-accelerated): K-values and temperatures
        # from each stage's bubble point, then one tridiagonal component balance per component.
        lower = -L_in  # element 0 unused
        T = np.full(N, bubble.T)
        K = np.ones((N, f.size))
        x = np.tile(z, (N, 1))
        accelerator = _Anderson()
        change = np.inf
        for iteration in range(MAX_ITERATIONS):
            check_time(f"block {self.name} column iterations")
            iterations = iteration + 1
            for j in range(N):
                state = self.package.flash(
                    x[j], f"block {self.name} stage {j + 1} bubble point", P=P[j], VF=0.0
                )
                T[j] = state.T
                K[j] = np.where(present, state.ys / np.maximum(x[j], 1e-300), 1.0)
            liquid = np.zeros((N, f.size))  # x_j,i unnormalised: every component balance exact
            for i in np.flatnonzero(present):
                diag = Lout + Vout * K[:, i]
                upper = np.zeros(N)  # element N-1 unused
                upper[:-1] = -(Vout[1:] * K[1:, i])
                rhs = np.zeros(N)
                rhs[f0] = f[i]
                liquid[:, i] = thomas(lower, diag, upper, rhs)
            g = np.clip(liquid, 0.0, None)
            g = g / g.sum(axis=1, keepdims=True)
            change = float(np.max(np.abs(g - x)))
            if change < TOLERANCE:
                break
            step = np.clip(accelerator.step(x.ravel(), g.ravel()).reshape(x.shape), 0.0, None)
            step = np.where(present, step, 0.0)
            x = step / step.sum(axis=1, keepdims=True)
        else:
            raise ConvergenceError(
                f"block {self.name}: column compositions did not converge in {MAX_ITERATIONS} iterations "
                f"(last change {change:.3g})"
            )
        x = np.clip(liquid, 0.0, None)
        d = np.where(
            present,
            (Lout[0] - L if self.total_condenser else Vout[0])
            * x[0]
            * (1.0 if self.total_condenser else K[0]),
            0.0,
        )
        d = np.clip(np.minimum(d, f), 0.0, None)
        b = f - d
        distillate = self.flash(
            d_name, d, "distillate", P=self.P_top, VF=0.0 if self.total_condenser else 1.0
        )
        bottoms = self.flash(b_name, b, "bottoms", P=self.P_bot, VF=0.0)
        # condenser: vapour from stage 2 (its dew point) in, reflux and distillate out
        y2 = K[1] * x[1]
        vapour = self.package.flash(y2 / y2.sum(), f"block {self.name} stage 2 vapour", P=P[1], VF=1.0)
        reflux = self.package.flash(x[0] / x[0].sum(), f"block {self.name} reflux", P=self.P_top, VF=0.0)
        Q_cond = L * reflux.H + distillate.enthalpy_flow - V_rect * vapour.H
        Q_reb = distillate.enthalpy_flow + bottoms.enthalpy_flow - mixed.H_total - Q_cond
        self.heat = Q_cond + Q_reb
        self.report = {
            "condenser_duty_kW": Q_cond / 1000.0,
            "reboiler_duty_kW": Q_reb / 1000.0,
            "feed_stage_temperature_C": from_si(T[f0], "temperature"),
            "top_temperature_C": from_si(T[0], "temperature"),
            "bottom_temperature_C": from_si(T[-1], "temperature"),
            "feed_quality_q": q,
            "stage_temperatures_C": [from_si(t, "temperature") for t in T],
            "iterations": iterations,
        }
        return {d_name: distillate, b_name: bottoms}

    def primary_outlet(self, outlets: dict[str, Stream]) -> Stream | None:
        """Common result fields report the distillate."""
        return outlets[self.outlet_name("D(OUT)")]

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        spec = spec_object(
            "Column rating: stages, feed stage, reflux ratio, distillate-to-feed ratio, condenser, pressures.",  # noqa: E501
            {
                "NSTAGE": {
                    "type": "integer",
                    "minimum": 3,
                    "maximum": 200,
                    "description": "Number of theoretical stages including condenser (stage 1) and reboiler (stage NSTAGE).",  # noqa: E501
                },
                "FEED_LOC": {
                    "type": "integer",
                    "minimum": 2,
                    "description": "Feed stage, counted from the top (2 .. NSTAGE - 1).",
                },
                "RR": num("Molar reflux ratio L/D (> 0).", exclusiveMinimum=0),
                "D_F": num("Distillate-to-feed molar ratio (0..1).", exclusiveMinimum=0, exclusiveMaximum=1),
                "COND_TYPE": string(
                    "TOTAL: liquid distillate; PARTIAL: vapour distillate (Aspen's default TOTAL).",
                    ["TOTAL", "PARTIAL"],
                ),
                "PTOP": num("Condenser pressure, in PTOP_UNITS.", exclusiveMinimum=0),
                "PTOP_UNITS": units("PTOP", COLUMN_P_UNITS),
                "PBOT": num(
                    "Reboiler pressure, in PBOT_UNITS (default: PTOP); stage pressures are linear between.",
                    exclusiveMinimum=0,
                ),
                "PBOT_UNITS": units("PBOT", COLUMN_P_UNITS),
            },
            required=["NSTAGE", "FEED_LOC", "RR", "D_F", "PTOP", "PTOP_UNITS"],
            dependencies={"PBOT": ["PBOT_UNITS"]},
        )
        return section(
            "Distl", cls.description, block_entry({"SPEC_DATA": spec}, ["SPEC_DATA"], closed=False)
        )

    result_table = (
        ("COND_DUTY", "condenser_duty_kW", POWER),
        ("REB_DUTY", "reboiler_duty_kW", POWER),
        ("FEED_TRAY_T", "feed_stage_temperature_C", TEMPERATURE),
        ("TOP_TEMP", "top_temperature_C", TEMPERATURE),
        ("BOTTOM_TEMP", "bottom_temperature_C", TEMPERATURE),
        ("FEED_QUALITY", "feed_quality_q", None),
    )
