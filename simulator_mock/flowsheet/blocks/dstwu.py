"""DSTWU: shortcut distillation (Fenske, Underwood, Gilliland, Kirkbride)."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np
from scipy.optimize import brentq

from simulator_mock.errors import InfeasibleSpecificationError, SpecificationError, UnsupportedOptionError
from simulator_mock.flowsheet.blocks.base import Block, Cardinality
from simulator_mock.flowsheet.result_sheet import POWER, TEMPERATURE, BlockView, Rows
from simulator_mock.flowsheet.schema_fields import block_entry, num, section, spec_object, string, units, when
from simulator_mock.flowsheet.streams import Stream
from simulator_mock.properties.phase_state import PhaseState
from simulator_mock.properties.units import from_si, to_si

#: Fenske / non-key distribution passes (relative volatilities re-evaluated at the new end compositions).
PASSES = 3


def gilliland_stages(R: float, Rmin: float, Nmin: float) -> float:
    """Theoretical stages from the Gilliland correlation (Eduljee's fit)."""
    X = (R - Rmin) / (R + 1.0)
    Y = 0.75 * (1.0 - X**0.5668)
    return (Y + Nmin) / (1.0 - Y)


def gilliland_reflux(N: float, Rmin: float, Nmin: float) -> float:
    """Reflux ratio for N theoretical stages (Eduljee's fit inverted)."""
    Y = (N - Nmin) / (N + 1.0)
    X = (1.0 - Y / 0.75) ** (1.0 / 0.5668)
    return (X + Rmin) / (1.0 - X)


class DSTWU(Block):
    """Shortcut column (Aspen ``DSTWU``). Stage counts include the condenser (stage 1) and the reboiler."""

    type_name = "DSTWU"
    listing_order = 11
    description = "Shortcut distillation (Fenske, Underwood, Gilliland). Ports: F(IN) one or more, D(OUT) one, B(OUT) one."  # noqa: E501
    not_written: ClassVar[dict[str, str]] = {}
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"D(OUT)": (1, 1), "B(OUT)": (1, 1)}

    def parse(self, data: dict[str, Any]) -> None:
        spec = data["SPEC_DATA"]
        where = f"{self.where}.SPEC_DATA"
        self.by_reflux = spec["OPT_NTRR"] == "RR"
        if self.by_reflux:
            if spec.get("RR") is None:
                raise SpecificationError(f"{where}.RR: OPT_NTRR RR needs the reflux ratio")
            self.RR = float(spec["RR"])
            if -1.0 < self.RR <= 0.0:
                raise SpecificationError(
                    f"{where}.RR: {self.RR:g} is neither a reflux ratio (> 0) nor a multiple of the minimum "
                    "(<= -1)"
                )
        else:
            if spec.get("NSTAGE") is None:
                raise SpecificationError(f"{where}.NSTAGE: OPT_NTRR NSTAGE needs the number of stages")
            self.NSTAGE = float(spec["NSTAGE"])
        self.P_top = to_si(float(spec["PTOP"]), spec["PTOP_UNITS"], "pressure", f"{where}.PTOP_UNITS")
        self.P_bot = to_si(float(spec["PBOT"]), spec["PBOT_UNITS"], "pressure", f"{where}.PBOT_UNITS")
        if spec["OPT_RDV"] == "VAPLIQ":
            raise UnsupportedOptionError(
                f"{where}.OPT_RDV: VAPLIQ (vapour and liquid distillate) is not simulated; "
                "use LIQUID or VAPOR"
            )
        self.total_condenser = spec["OPT_RDV"] == "LIQUID"
        self.lk = self.ctx.index(spec["LIGHTKEY"], f"{where}.LIGHTKEY")
        self.hk = self.ctx.index(spec["HEAVYKEY"], f"{where}.HEAVYKEY")
        if self.lk == self.hk:
            raise SpecificationError(f"{where}: LIGHTKEY and HEAVYKEY are the same component")
        self.rec_lk, self.rec_hk = float(spec["RECOVL"]), float(spec["RECOVH"])
        for key, value in (("RECOVL", self.rec_lk), ("RECOVH", self.rec_hk)):
            if not 0.0 < value < 1.0:
                raise SpecificationError(
                    f"{where}.{key}: recovery {value:g} must lie strictly between 0 and 1 (a perfect split "
                    "needs infinitely many stages)"
                )
        if self.rec_hk >= self.rec_lk:
            raise SpecificationError(
                f"{where}: RECOVH ({self.rec_hk:g}) must be below RECOVL ({self.rec_lk:g})"
            )

    def primary_outlet(self, outlets: dict[str, Stream]) -> Stream | None:
        return outlets[self.outlet_name("D(OUT)")]

    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        mixed = self.mixed(feeds["F(IN)"])
        f = mixed.flows
        cids = self.ctx.cids
        for key in (self.lk, self.hk):
            if f[key] <= 0:
                raise InfeasibleSpecificationError(
                    f"block {self.name}: key component {cids[key]} is not in the feed"
                )
        idx = tuple(int(i) for i in np.flatnonzero(f > 0))
        d, alpha, top, Nmin = self._fenske(f, idx)
        b = f - d
        D, B, F = float(d.sum()), float(b.sum()), float(f.sum())
        xD, zF = d / D, f / F
        q = self._feed_quality(mixed, zF)
        Rmin = self._underwood(alpha, idx, zF, xD, q)
        condenser_stage = 1.0 if self.total_condenser else 0.0
        R, N_th = self._gilliland(Rmin, Nmin, condenser_stage)
        kirkbride = (zF[self.hk] / zF[self.lk] * (b[self.lk] / B / xD[self.hk]) ** 2 * B / D) ** 0.206
        N_rect = N_th * kirkbride / (1.0 + kirkbride)

        d_name, b_name = self.outlet_name("D(OUT)"), self.outlet_name("B(OUT)")
        distillate = self.flash(
            d_name, d, "distillate", P=self.P_top, VF=0.0 if self.total_condenser else 1.0
        )
        bottoms = self.flash(b_name, b, "bottoms", P=self.P_bot, VF=0.0)
        if self.total_condenser:
            Q_cond = -(R + 1.0) * D * (top.H - distillate.phase.H)
        else:
            liquid = self.package.flash(xD, f"block {self.name} reflux", P=self.P_top, VF=0.0)
            Q_cond = -R * D * (distillate.phase.H - liquid.H)
        Q_reb = distillate.enthalpy_flow + bottoms.enthalpy_flow - mixed.H_total - Q_cond
        self.heat = Q_cond + Q_reb
        self.report = {
            "number_of_stages": N_th + condenser_stage,
            "feed_stage": N_rect + 1.0 + condenser_stage,
            "reflux_ratio": R,
            "minimum_reflux_ratio": Rmin,
            "minimum_stages": Nmin + condenser_stage,
            "condenser_duty_kW": Q_cond / 1000.0,
            "reboiler_duty_kW": Q_reb / 1000.0,
            "distillate_rate_kmol_hr": D * 3.6,
            "bottoms_rate_kmol_hr": B * 3.6,
            "distillate_temperature_C": from_si(distillate.T, "temperature"),
            "bottoms_temperature_C": from_si(bottoms.T, "temperature"),
            "distillate_to_feed_ratio": D / F,
            "feed_quality_q": q,
            "relative_volatilities": {cids[i]: float(alpha[i]) for i in idx},
        }
        return {d_name: distillate, b_name: bottoms}

    def _relative_volatility(
        self, f: np.ndarray, d: np.ndarray, idx: tuple[int, ...]
    ) -> tuple[np.ndarray, PhaseState, PhaseState]:
        """Volatilities relative to the heavy key (geometric mean of the distillate's dew point and the
        bottoms' bubble point), with those two states."""
        models = self.package.models(idx)
        pos = {c: k for k, c in enumerate(idx)}
        b = f - d
        top = self.package.flash(d / d.sum(), f"block {self.name} distillate dew point", P=self.P_top, VF=1.0)
        bot = self.package.flash(b / b.sum(), f"block {self.name} bottoms bubble point", P=self.P_bot, VF=0.0)
        alphas = []
        for state in (top, bot):
            lnphi_l, _, _ = models.liquid_props(state.T, state.P, state.xs[list(idx)].tolist())
            lnphi_v, _, _ = models.gas_props(state.T, state.P, state.ys[list(idx)].tolist())
            K = np.exp(lnphi_l - lnphi_v)
            alphas.append(K / K[pos[self.hk]])
        alpha = np.zeros(f.size)
        alpha[list(idx)] = np.sqrt(alphas[0] * alphas[1])
        return alpha, top, bot

    def _fenske(
        self, f: np.ndarray, idx: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray, PhaseState, float]:
        """Distillate flows, relative volatilities, distillate dew point and minimum stages (Fenske), the
        non-keys distributed at total reflux over :data:`PASSES` passes."""
        cids = self.ctx.cids
        # first split: keys by recovery, lighter non-keys up, heavier down (by pure-component boiling points)
        Tbs = [t if t is not None else 0.0 for t in self.package.constants.Tbs]
        d = np.zeros(f.size)
        for i in idx:
            if i == self.lk:
                d[i] = self.rec_lk * f[i]
            elif i == self.hk:
                d[i] = self.rec_hk * f[i]
            else:
                d[i] = f[i] * (0.999 if Tbs[i] < Tbs[self.lk] else 0.001 if Tbs[i] > Tbs[self.hk] else 0.5)
        for _ in range(PASSES):
            alpha, top, _ = self._relative_volatility(f, d, idx)
            a_lk = alpha[self.lk]
            if a_lk <= 1.0:
                raise InfeasibleSpecificationError(
                    f"block {self.name}: {cids[self.lk]} is not more volatile than {cids[self.hk]} at column "
                    f"conditions (relative volatility {a_lk:.4g}); swap LIGHTKEY and HEAVYKEY"
                )
            ratio_hk = self.rec_hk / (1.0 - self.rec_hk)
            Nmin = math.log(self.rec_lk / (1.0 - self.rec_lk) / ratio_hk) / math.log(a_lk)
            for i in idx:
                if i not in (self.lk, self.hk):
                    r = ratio_hk * alpha[i] ** Nmin
                    d[i] = f[i] * (1.0 if math.isinf(r) else r / (1.0 + r))
        return d, alpha, top, Nmin

    def _underwood(
        self, alpha: np.ndarray, idx: tuple[int, ...], zF: np.ndarray, xD: np.ndarray, q: float
    ) -> float:
        """Minimum reflux ratio from Underwood's root between the key volatilities."""
        theta_hi = min(alpha[i] for i in idx if alpha[i] > 1.0 + 1e-12)

        def underwood(theta: float) -> float:
            return float(sum(alpha[i] * zF[i] / (alpha[i] - theta) for i in idx)) - (1.0 - q)

        eps = 1e-10 * (theta_hi - 1.0)
        try:
            theta = brentq(underwood, 1.0 + eps, theta_hi - eps, xtol=1e-14)
        except ValueError:
            raise InfeasibleSpecificationError(
                f"block {self.name}: no Underwood root between the key volatilities (feed quality q={q:.4g})"
            ) from None
        return max(float(sum(alpha[i] * xD[i] / (alpha[i] - theta) for i in idx)) - 1.0, 0.0)

    def _gilliland(self, Rmin: float, Nmin: float, condenser_stage: float) -> tuple[float, float]:
        """(reflux ratio, theoretical stages without the condenser) from the spec by Gilliland."""
        if self.by_reflux:
            R = -self.RR * Rmin if self.RR <= -1.0 else self.RR
            if Rmin >= R:
                raise InfeasibleSpecificationError(
                    f"{self.where}.SPEC_DATA.RR: reflux ratio {R:.6g} is not above the minimum {Rmin:.6g}"
                )
            return R, gilliland_stages(R, Rmin, Nmin)
        N_th = self.NSTAGE - condenser_stage
        if N_th <= Nmin:
            raise InfeasibleSpecificationError(
                f"{self.where}.SPEC_DATA.NSTAGE: {self.NSTAGE:g} stages are not more than the minimum "
                f"{Nmin + condenser_stage:.4g}"
            )
        return gilliland_reflux(N_th, Rmin, Nmin), N_th

    def _feed_quality(self, mixed: Any, zF: np.ndarray) -> float:
        """Thermal condition q of the feed: heat to vaporise one mole over the molar latent heat."""
        P = 0.5 * (self.P_top + self.P_bot)
        bubble = self.package.flash(zF, f"block {self.name} feed bubble point", P=P, VF=0.0)
        dew = self.package.flash(zF, f"block {self.name} feed dew point", P=P, VF=1.0)
        H_feed = mixed.H_total / mixed.total
        return (dew.H - H_feed) / (dew.H - bubble.H)

    @classmethod
    def schema_part(cls) -> dict[str, Any]:
        col_p = ["bar", "atm", "MPa", "kPa"]
        spec = spec_object(
            "Shortcut design specification (Winn minimum stages, Underwood minimum reflux, Gilliland correlation).",  # noqa: E501
            {
                "OPT_NTRR": string(
                    "RR: reflux ratio RR given, stages computed; NSTAGE: number of stages NSTAGE given, reflux computed.",  # noqa: E501
                    ["RR", "NSTAGE"],
                ),
                "RR": num(
                    "Reflux ratio (OPT_NTRR RR): > 0 the ratio itself; <= -1 a multiple of the minimum reflux ratio (-1.3 = 1.3 x Rmin)."  # noqa: E501
                ),
                "NSTAGE": num(
                    "Number of theoretical stages including condenser and reboiler (OPT_NTRR NSTAGE), 2 to 500.",  # noqa: E501
                    minimum=2,
                    maximum=500,
                ),
                "PTOP": num("Condenser pressure, in PTOP_UNITS.", minimum=0),
                "PTOP_UNITS": units("PTOP", col_p),
                "PBOT": num("Reboiler pressure, in PBOT_UNITS.", minimum=0),
                "PBOT_UNITS": units("PBOT", col_p),
                "OPT_RDV": string(
                    "Condenser: LIQUID total condenser (liquid distillate), VAPOR partial condenser with vapour distillate; VAPLIQ (vapour and liquid distillate) is refused (UnsupportedOption).",  # noqa: E501
                    ["LIQUID", "VAPOR", "VAPLIQ"],
                ),
                "RDV": num("Vapour fraction of the distillate; only read for OPT_RDV VAPLIQ."),
                "LIGHTKEY": string("Light key component (cid)."),
                "RECOVL": num(
                    "Recovery of the light key in the distillate: its distillate flow over its feed flow (0..1).",  # noqa: E501
                    minimum=0,
                    maximum=1,
                ),
                "HEAVYKEY": string("Heavy key component (cid)."),
                "RECOVH": num(
                    "Recovery of the heavy key in the distillate: its distillate flow over its feed flow (0..1).",  # noqa: E501
                    minimum=0,
                    maximum=1,
                ),
            },
            required=[
                "OPT_NTRR",
                "PTOP",
                "PTOP_UNITS",
                "PBOT",
                "PBOT_UNITS",
                "OPT_RDV",
                "LIGHTKEY",
                "RECOVL",
                "HEAVYKEY",
                "RECOVH",
            ],
            allOf=[when("OPT_NTRR", "RR", ["RR"]), when("OPT_NTRR", "NSTAGE", ["NSTAGE"])],
            additionalProperties=False,
        )
        return section(
            "DSTWU",
            cls.description,
            block_entry(
                {"SPEC_DATA": spec}, ["SPEC_DATA"], closed=True, desc="One DSTWU block, keyed by its name."
            ),
            {"additionalProperties": False},
        )

    @staticmethod
    def result_rows(b: BlockView, rows: Rows) -> None:
        """The rows of this block's ``<BLOCK>_result`` sheet (Aspen output names, with units)."""
        d = b.doc
        feed = d.get("feed_stage")
        rows.add("MIN_REFLUX", d.get("minimum_reflux_ratio"))
        rows.add("ACT_REFLUX", d.get("reflux_ratio"))
        rows.add("MIN_STAGES", d.get("minimum_stages"))
        rows.add("ACT_STAGES", d.get("number_of_stages"))
        rows.add("FEED_LOCATN", feed)
        rows.add("RECT_STAGES", feed - 1.0 if feed is not None else None)
        rows.add("COND_DUTY", d.get("condenser_duty_kW"), POWER)
        rows.add("REB_DUTY", d.get("reboiler_duty_kW"), POWER)
        rows.add("DISTIL_TEMP", d.get("distillate_temperature_C"), TEMPERATURE)
        rows.add("BOTTOM_TEMP", d.get("bottoms_temperature_C"), TEMPERATURE)
        rows.add("DIST_VS_FEED", d.get("distillate_to_feed_ratio"))
