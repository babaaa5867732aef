"""Flashes of a property package: the equilibrium state of any composition at two of T, P, VF, H and S,
with its vapour and liquid phases, checked against physical bounds and explained when it fails."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from simulator_mock.errors import FlashError, InfeasibleSpecificationError, OutOfBoundsError
from simulator_mock.properties.components import EOS_MODELS, ComponentData
from simulator_mock.properties.flash_bounds import T_MAX_K, T_MIN_K, check_bounds, failure_reason, format_spec
from simulator_mock.properties.phase_models import PhaseModels, PhaseModelSet
from simulator_mock.properties.phase_state import TRACE, PhaseState, phase_state
from simulator_mock.properties.two_liquids import TwoLiquidSearch, is_balanced, vl_split

#: Flash specifications solved with a second liquid phase (others keep the vapour-liquid answer).
_VLLE_SPECS = ({"T", "P"}, {"P", "H"}, {"P", "VF"}, {"T", "VF"})
#: When a flash fails, components below this mole fraction are dropped and the flash retried.
RETRY_TRACE = 1e-7


class Flasher:
    """Flashes any composition of one property package's components."""

    def __init__(self, data: ComponentData, models: PhaseModelSet) -> None:
        self.data = data
        self.models = models
        self.two_liquids = TwoLiquidSearch(data, models)

    def flash(self, zs: np.ndarray, where: str, **spec: float) -> PhaseState:
        """Equilibrium state of composition ``zs`` at two specs among T, P, VF, H, S.

        Args:
            zs: mole fractions (full component vector, sums to 1).
            where: what is being flashed, named in error messages (e.g. "block H1 outlet").
            spec: two of T [K], P [Pa], VF [-], H [J/mol, formation basis], S [J/mol/K].

        Raises:
            OutOfBoundsError: T or P outside physical bounds.
            FlashError: thermo failed or returned a non-physical answer.
        """
        return self._flash(zs, where, False, spec)[0]

    def flash_split(
        self, zs: np.ndarray, where: str, **spec: float
    ) -> tuple[PhaseState, PhaseState | None, PhaseState | None]:
        """Like :meth:`flash`, plus the states of the vapour and the liquid phase (None when absent).

        The liquid is all liquid present: when it splits in two, its state says so (``x1s``, ``x2s``). The
        phase states come from the same equilibrium, so the phase enthalpies add up exactly to the bulk
        enthalpy (a flash drum's energy balance closes to rounding).
        """
        state, vapor, liquids = self._flash(zs, where, True, spec)
        return state, vapor, self._combined_liquid(state, liquids)

    def flash_phases(
        self, zs: np.ndarray, where: str, *, liquid_only: bool = False, **spec: float
    ) -> tuple[PhaseState, PhaseState | None, list[PhaseState]]:
        """Like :meth:`flash`, plus the vapour state and each liquid phase's state (the 2nd liquid, the denser
        one, last). ``liquid_only``: no vapour phase is considered (a decanter: liquid-liquid equilibrium at
        the given temperature or duty)."""
        return self._flash(zs, where, True, spec, liquid_only)

    def _combined_liquid(self, state: PhaseState, liquids: list[PhaseState]) -> PhaseState | None:
        if not liquids:
            return None
        if len(liquids) == 1:
            return liquids[0]
        L1, L2 = liquids
        b1, b2 = state.LF1, state.LF2
        total = b1 + b2
        w1, w2 = b1 / total, b2 / total
        return PhaseState(
            T=state.T,
            P=state.P,
            VF=0.0,
            H=w1 * L1.H + w2 * L2.H,
            S=w1 * L1.S + w2 * L2.S,
            V=w1 * L1.V + w2 * L2.V,
            zs=state.xs,
            xs=state.xs,
            ys=state.xs,
            V_liquid=w1 * L1.V + w2 * L2.V,
            x1s=L1.zs,
            x2s=L2.zs,
            LF2=w2,
        )

    def _flash(
        self, zs: np.ndarray, where: str, split: bool, spec: dict[str, float], liquid_only: bool = False
    ) -> tuple[PhaseState, PhaseState | None, list[PhaseState]]:
        check_bounds(where, spec)
        idx = tuple(int(i) for i in np.flatnonzero(zs > TRACE))
        if not idx:
            raise FlashError(f"{where}: cannot flash a stream with no components")
        sub = zs[list(idx)]
        sub = sub / sub.sum()
        if "VF" in spec:
            self._check_subcritical(idx, where, spec)
        multiphase = len(idx) > 1 and set(spec) in _VLLE_SPECS and self.models.get(idx).can_split(len(idx))
        try:
            if liquid_only:
                if not multiphase:
                    if set(spec) in _VLLE_SPECS:
                        raise FlashError(
                            f"{where}: these components cannot form two liquid phases with {self.data.method}"
                            " (IDEAL and WILSON never predict a liquid-liquid split)"
                        )
                    raise FlashError(f"{where}: a liquid-liquid flash needs T or a duty, with P")
                found = self.two_liquids.states(idx, sub, spec, None, liquid_only=True)
                if found is None:
                    raise FlashError(f"{where}: no liquid-liquid equilibrium found")
                return found
            try:
                try:
                    models, res = self._thermo_flash(idx, sub, spec)
                except Exception:
                    # thermo's saturation flashes fail on near-pure mixtures: drop trace components and retry
                    minor = sub < RETRY_TRACE
                    if not minor.any() or minor.all():
                        raise
                    idx = tuple(i for i, m in zip(idx, minor, strict=True) if not m)
                    sub = sub[~minor] / sub[~minor].sum()
                    models, res = self._thermo_flash(idx, sub, spec)
            except Exception:
                if not multiphase:
                    raise
                res = None  # thermo's vapour-liquid flash failed: the multiphase search starts from scratch
            unbalanced = (
                res is not None
                and len(idx) > 1
                and set(spec) in _VLLE_SPECS
                and not is_balanced(vl_split(res, float(res.T), float(res.P)), sub)
            )
            if (multiphase or unbalanced) and len(idx) > 1:
                # thermo's saturation flashes can return the phases of another saturation point (their
                # amounts do not add up to the feed): the search over isothermal flashes replaces them
                found = self.two_liquids.states(idx, sub, spec, res)
                if found is not None:
                    state, vapor, liquids = found
                    check_bounds(where, {"T": state.T, "P": state.P}, computed=True)
                    return state, vapor, liquids
            if res is None:
                raise FlashError("no equilibrium found")
            state = self._state(res, idx, models, sub)
            vapor = None
            liquids = []
            if split:
                gas = res.gas if res.gas is not None else (res.liquid0 if state.VF == 1.0 else None)
                if gas is not None and state.VF > 0.0:
                    vapor = phase_state(gas, idx, models.Hfs, len(self.data.CASs), 1.0)
                if res.liquid_count and state.VF < 1.0:
                    liquids = [phase_state(res.liquid0, idx, models.Hfs, len(self.data.CASs), 0.0)]
        except (OutOfBoundsError, FlashError) as exc:
            if isinstance(exc, FlashError) and not str(exc).startswith(where):
                raise FlashError(f"{where}: {exc}") from None
            raise
        except Exception as exc:
            beyond = self._beyond_temperature_range(idx, sub, where, spec)
            if beyond is not None:
                raise beyond from None
            described = ", ".join(f"{k}={format_spec(k, v)}" for k, v in spec.items())
            raise FlashError(f"{where}: flash at {described} failed ({failure_reason(exc, spec)})") from None
        check_bounds(where, {"T": state.T, "P": state.P}, computed=True)
        return state, vapor, liquids

    def _check_subcritical(self, idx: tuple[int, ...], where: str, spec: dict[str, float]) -> None:
        """Refuse a vapour-fraction spec above the critical point.

        The activity-coefficient methods extrapolate vapour pressures past Tc and would return a two-phase
        answer at any pressure (water at 300 bar, VF 0.5: 389 C). Their bound is the largest critical
        pressure (P + VF) or temperature (T + VF) of the components present. A cubic EOS finds mixture
        critical points itself (they can lie above every pure component's Pc), so there only a pure
        component is bounded here.
        """
        if self.models.liquid_model in EOS_MODELS and len(idx) > 1:
            return
        for key, values, label, fmt in (
            ("P", self.data.constants.Pcs, "pressure", lambda v: f"{v / 1e5:.6g} bar"),
            ("T", self.data.constants.Tcs, "temperature", lambda v: f"{v - 273.15:.6g} C"),
        ):
            value = spec.get(key)
            known = [(values[i], self.data.names[i]) for i in idx if values[i] is not None]
            if value is None or not known:
                continue
            critical, name = max(known)
            if value > critical:
                which = name if len(idx) == 1 else f"the largest of the components', {name}"
                raise InfeasibleSpecificationError(
                    f"{where}: a vapor fraction is specified at {label} {fmt(value)}, above the critical "
                    f"{label} ({which}: {fmt(critical)}); no vapour and liquid coexist there: specify "
                    "temperature and pressure instead, or a lower "
                    f"{label}"
                )

    def _beyond_temperature_range(
        self, idx: tuple[int, ...], sub: np.ndarray, where: str, spec: dict[str, float]
    ) -> OutOfBoundsError | None:
        """When a PH flash failed because H lies outside what the model reaches between the temperature
        bounds at that pressure, the error that says so (a duty or work too large for the stream)."""
        if set(spec) != {"H", "P"}:
            return None
        for T, side, hint in (
            (T_MIN_K, "below", "removes more heat than the stream can give"),
            (T_MAX_K, "above", "adds more heat than the model's temperature range can hold"),
        ):
            try:
                models, res = self._thermo_flash(idx, sub, {"T": T, "P": spec["P"]})
                H_bound = float(res.H()) + float(np.dot(sub, models.Hfs))
            except Exception:
                return None
            if (spec["H"] < H_bound) == (side == "below"):
                return OutOfBoundsError(
                    f"{where}: the specified duty or work {hint}: the outlet enthalpy "
                    f"{spec['H'] / 1000:.6g} kJ/mol is {side} the model's enthalpy at {T - 273.15:.6g} C "
                    f"({H_bound / 1000:.6g} kJ/mol) at {spec['P'] / 1e5:.6g} bar, so the stream would leave "
                    f"the model's temperature range ({T_MIN_K - 273.15:.2f} .. {T_MAX_K - 273.15:.0f} C); "
                    "use a smaller duty"
                )
        return None

    def _thermo_flash(
        self, idx: tuple[int, ...], sub: np.ndarray, spec: dict[str, float]
    ) -> tuple[PhaseModels, Any]:
        """thermo's flash of the components ``idx`` at mole fractions ``sub`` (H spec on formation basis)."""
        models = self.models.get(idx)
        kwargs = dict(spec)
        if "H" in kwargs:
            kwargs["H"] = kwargs["H"] - float(np.dot(sub, models.Hfs))
        if len(idx) > 1:
            kwargs["zs"] = sub.tolist()
        return models, models.flash(**kwargs)

    def _gas_like(self, res: Any, idx: tuple[int, ...], sub: np.ndarray) -> bool:
        """A single cubic-EOS phase is vapour when above the pseudo-critical temperature or gas-like (Z >
        0.5)."""
        Tcs = np.asarray([self.data.constants.Tcs[i] for i in idx], dtype=float)
        Z = float(res.P) * float(res.V()) / (8.314462618 * float(res.T))
        return float(res.T) > float(np.dot(sub, Tcs)) or Z > 0.5

    def _state(self, res: Any, idx: tuple[int, ...], models: PhaseModels, sub: np.ndarray) -> PhaseState:
        n = len(self.data.CASs)
        T, P = float(res.T), float(res.P)
        VF = float(res.VF)
        if not (math.isfinite(T) and math.isfinite(P) and math.isfinite(VF)) or not -1e-9 <= VF <= 1 + 1e-9:
            raise FlashError(f"non-physical flash result T={T} P={P} VF={VF}")
        VF = min(max(VF, 0.0), 1.0)
        if (
            VF == 0.0
            and res.gas is None
            and self.models.liquid_model in EOS_MODELS
            and self._gas_like(res, idx, sub)
        ):
            VF = 1.0  # cubic EOS single phase labelled liquid by thermo's PIP test, but above Tc or gas-like
        zs = np.zeros(n)
        zs[list(idx)] = sub
        xs, ys = zs.copy(), zs.copy()
        V_liquid = None
        liquid = res.liquid0 if res.liquid_count and VF < 1.0 else None
        gas = res.gas
        if liquid is not None:
            xs = np.zeros(n)
            xs[list(idx)] = liquid.zs
            V_liquid = float(liquid.V())
        if gas is not None:
            ys = np.zeros(n)
            ys[list(idx)] = gas.zs
        H = float(res.H()) + float(np.dot(sub, models.Hfs))
        return PhaseState(
            T=T,
            P=P,
            VF=VF,
            H=H,
            S=float(res.S()),
            V=float(res.V()),
            zs=zs,
            xs=xs,
            ys=ys,
            V_liquid=V_liquid,
        )
