"""Property packages: chemicals from the `chemicals` database, Aspen method names as `thermo` models."""

from __future__ import annotations

import contextlib
import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from simulator_mock.errors import (
    ComponentDataError,
    FlashError,
    InfeasibleSpecificationError,
    OutOfBoundsError,
    UnknownComponentError,
    UnknownPropertyMethodError,
)
from simulator_mock.properties.liquid_enthalpy import CpLiquid, cp_liquid_data
from simulator_mock.properties.multiphase import VLLE, Phase, Split

#: Aspen property method names -> (liquid model, vapour model).
METHODS: dict[str, tuple[str, str]] = {
    "IDEAL": ("ideal-solution", "ideal-gas"),
    "NRTL": ("NRTL", "ideal-gas"),
    "UNIFAC": ("UNIFAC", "ideal-gas"),
    "PENG-ROB": ("PR", "PR"),
    "RK-SOAVE": ("SRK", "SRK"),
    "SRK": ("SRK-Peneloux", "SRK-Peneloux"),
    "UNIQUAC": ("UNIQUAC", "ideal-gas"),
    "WILSON": ("WILSON", "ideal-gas"),
    "VAN-LAAR": ("VAN-LAAR", "ideal-gas"),
    "CHAO-SEA": ("CHAO-SEA", "RK"),
}
#: Cubic equations of state among the models above.
EOS_MODELS = ("PR", "SRK", "SRK-Peneloux")

#: Bounds of any flash; outside them the correlations are meaningless.
T_MIN_K, T_MAX_K = 10.0, 3000.0
P_MIN_PA, P_MAX_PA = 1.0, 1e8

#: Temperatures [K] at which component pairs are screened for two liquid phases.
SPLIT_SCREEN_T = (273.15, 313.15, 353.15, 393.15, 433.15)
#: Flash specifications solved with a second liquid phase (others keep the vapour-liquid answer).
_VLLE_SPECS = ({"T", "P"}, {"P", "H"}, {"P", "VF"}, {"T", "VF"})

#: Mole fractions below this are treated as absent (flashed on the remaining subset).
TRACE = 1e-15
#: When a flash fails, components below this mole fraction are dropped and the flash retried.
RETRY_TRACE = 1e-7


class _Discard(io.TextIOBase):
    """A text stream that drops what is written to it."""

    def write(self, text: str) -> int:
        return len(text)


_DISCARD = _Discard()


def canonical_method(name: str) -> str:
    """Aspen method name in canonical spelling.

    Raises:
        UnknownPropertyMethodError: not one of the supported methods.
    """
    key = name.strip().upper()
    if key not in METHODS:
        raise UnknownPropertyMethodError(
            f"property_methods: unknown property method {name!r}; supported: {', '.join(METHODS)}"
        )
    return key


@lru_cache(maxsize=4096)
def _cas_from_any(identifier: str) -> str | None:
    from chemicals.identifiers import CAS_from_any

    try:
        return CAS_from_any(identifier)
    except Exception:  # chemicals raises ValueError, and other types for odd strings
        return None


def resolve_component(
    cid: str, name: str | None, cas_number: str | None, database_name: str | None = None
) -> tuple[str, list[str]]:
    """CAS number of a component: looked up by cas_number, then database_name, then name (the Aspen alias).

    A cas_number that resolves decides alone: database_name and name are not looked up then (the real service
    never writes database_name, and a name chemicals does not know loads its whole name database: seconds
    per fresh process).

    Returns:
        (CAS, warnings): the list stays empty (a resolved CAS is not cross-checked against the names).

    Raises:
        UnknownComponentError: no identifier resolves in the database.
    """
    warnings: list[str] = []
    tried: list[str] = []
    cas: str | None = None
    if cas_number:
        tried.append(f"cas_number {cas_number!r}")
        cas = _cas_from_any(cas_number.strip())
    for ident in (database_name, name):
        if cas is None and ident:
            tried.append(repr(ident))
            cas = _cas_from_any(ident.strip())
    if cas is None:
        what = " / ".join(tried) if tried else "no name or cas_number"
        raise UnknownComponentError(f"components[{cid}]: {what} not found in the chemicals database")
    return cas, warnings


@lru_cache(maxsize=64)
def _constants_and_correlations(CASs: tuple[str, ...]) -> tuple[Any, Any]:
    from thermo import ChemicalConstantsPackage

    return ChemicalConstantsPackage.from_IDs(list(CASs))


@dataclass(frozen=True, slots=True)
class PhaseState:
    """Intensive state of a material stream after a flash (all SI; H on formation basis).

    Attributes:
        T: temperature [K]. P: pressure [Pa]. VF: vapour mole fraction [-].
        H: molar enthalpy, ideal-gas elements at 298.15 K as zero (Aspen's basis) [J/mol].
        S: molar entropy [J/mol/K]. V: molar volume [m3/mol].
        zs, xs, ys: overall, liquid and vapour mole fractions (full component vectors).
        V_liquid: molar volume of the liquid phase [m3/mol], None when no liquid.
        x1s, x2s: compositions of the 1st and 2nd liquid when the liquid splits in two (None otherwise); xs is
            then the composition of both liquids together. The 2nd liquid is the denser one.
        LF2: mole fraction of the material in the 2nd liquid [-] (0 without a split).
    """

    T: float
    P: float
    VF: float
    H: float
    S: float
    V: float
    zs: np.ndarray
    xs: np.ndarray
    ys: np.ndarray
    V_liquid: float | None
    x1s: np.ndarray | None = None
    x2s: np.ndarray | None = None
    LF2: float = 0.0

    @property
    def two_liquids(self) -> bool:
        """True when the liquid is split in two phases."""
        return self.x1s is not None

    @property
    def LF1(self) -> float:
        """Mole fraction of the material in the 1st (or only) liquid [-]."""
        return max(1.0 - self.VF - self.LF2, 0.0)


class PhaseModels:
    """Thermo phase objects and flasher for one subset of a package's components."""

    def __init__(self, gas: Any, liquid: Any, flasher: Any, Hfs: np.ndarray, Tcs: list[float | None]) -> None:
        self.gas = gas
        self.liquid = liquid
        self.flasher = flasher
        self.Hfs = Hfs
        self.ideal_gas = type(gas).__name__ == "IdealGas"
        self.vlle = VLLE(gas, liquid, self.ideal_gas, Hfs, Tcs)
        self._can_split: bool | None = None

    def can_split(self, n: int) -> bool:
        """True when some pair of these components forms two liquids between 0 and 160 C (at 1 atm), so
        their liquids must be tested for a second liquid phase (screened once per component set)."""
        if self._can_split is None:
            self._can_split = n > 1 and any(
                self.vlle.binary_can_split(i, j, n, SPLIT_SCREEN_T) for i in range(n) for j in range(i + 1, n)
            )
        return self._can_split

    def liquid_props(self, T: float, P: float, xs: list[float]) -> tuple[np.ndarray, np.ndarray, float]:
        """(ln fugacity coefficients, their T derivatives, H formation basis) of the liquid."""
        phase = self.liquid.to(T=T, P=P, zs=xs)
        H = phase.H() + float(np.dot(xs, self.Hfs))
        return np.asarray(phase.lnphis()), np.asarray(phase.dlnphis_dT()), H

    def gas_props(self, T: float, P: float, ys: list[float]) -> tuple[np.ndarray, np.ndarray, float]:
        """(ln fugacity coefficients, their T derivatives, H formation basis) of the vapour."""
        phase = self.gas.to(T=T, P=P, zs=ys)
        H = phase.H() + float(np.dot(ys, self.Hfs))
        if self.ideal_gas:
            zero = np.zeros(len(ys))
            return zero, zero, H
        return np.asarray(phase.lnphis()), np.asarray(phase.dlnphis_dT()), H


class PropertyPackage:
    """A component list with one Aspen property method, able to flash any composition of it.

    Build through :func:`get_property_package`, which caches packages per (CAS numbers, method).

    Attributes:
        CASs: CAS numbers in config order. names: database names. MWs: g/mol.
        Hfs: ideal-gas formation enthalpies at 298.15 K [J/mol]. atoms: element counts.
        method: canonical Aspen method name. liquid_model: model actually used for the liquid.
        warnings: what the build had to substitute (missing NRTL pairs, caloric basis).
    """

    def __init__(self, CASs: tuple[str, ...], method: str) -> None:
        self.CASs = CASs
        self.method = method
        constants, correlations = _constants_and_correlations(CASs)
        self.constants = constants
        self.correlations = correlations
        self.names: list[str] = list(constants.names)
        self.MWs = np.asarray(constants.MWs, dtype=float)
        self.warnings: list[str] = []
        #: Component index pairs whose binary parameters were fitted to vapour-liquid data (ChemSep NRTL /
        #: UNIQUAC): a liquid-liquid split they decide is an extrapolation, named in the run's warnings.
        self.vle_fitted_pairs: list[tuple[int, int]] = []
        Hfs = []
        for name, Hf in zip(self.names, constants.Hfgs, strict=True):
            if Hf is None:
                self.warnings.append(f"{name}: no formation enthalpy in the database; 0 used")
                Hf = 0.0
            Hfs.append(Hf)
        self.Hfs = np.asarray(Hfs, dtype=float)
        self.atoms: list[dict[str, int]] = [dict(a or {}) for a in constants.atomss]
        self._check_data()
        self.liquid_model, self.caloric_basis = self._choose_liquid_model()
        self._models: dict[tuple[int, ...], PhaseModels] = {}

    # ---- build ---------------------------------------------------------------------------------

    def _check_data(self) -> None:
        c, p = self.constants, self.correlations
        needs: dict[str, list[Any]] = {
            "molecular weight": list(c.MWs),
            "ideal-gas heat capacity": [obj.method for obj in p.HeatCapacityGases],
        }
        gas = METHODS[self.method][1]
        if gas in EOS_MODELS or gas == "RK":
            needs.update({"critical temperature": list(c.Tcs), "critical pressure": list(c.Pcs)})
            needs["acentric factor"] = list(c.omegas)
        else:
            needs["vapor pressure"] = [obj.method for obj in p.VaporPressures]
        if METHODS[self.method][0] == "UNIFAC" and len(self.CASs) > 1:
            needs["UNIFAC group assignment"] = [groups or None for groups in c.UNIFAC_groups]
        for what, values in needs.items():
            for name, value in zip(self.names, values, strict=True):
                if value is None:
                    raise ComponentDataError(
                        f"component {name}: the database has no {what}, needed by {self.method}"
                    )

    def _choose_liquid_model(self) -> tuple[str, str]:
        liquid, _ = METHODS[self.method]
        if liquid in EOS_MODELS:
            return liquid, "eos"
        caloric = "Hvap"
        if any(obj.method is None for obj in self.correlations.EnthalpyVaporizations):
            caloric = "Psat"
            self.warnings.append(
                "liquid enthalpy from the vapour-pressure curve (no enthalpy of vaporization data for all "
                "components)"
            )
        if liquid == "UNIQUAC":
            self._uniquac_rq = self._uniquac_rq_values()
        if liquid in ("UNIQUAC", "WILSON") and len(self.CASs) > 1:
            from simulator_mock.properties.binary_parameters import chemsep_pure, exp_parameters

            c = self.constants
            Vs = []
            for CAS, obj, Tb in zip(self.CASs, self.correlations.VolumeLiquids, c.Tbs, strict=True):
                V = chemsep_pure(CAS, "V")
                Vs.append(V if V is not None else obj.T_dependent_property(Tb or 298.15))
            rs, qs = self._uniquac_rq if liquid == "UNIQUAC" else ([None] * len(Vs), [None] * len(Vs))
            mats, notes = exp_parameters(
                liquid,
                list(self.CASs),
                self.names,
                list(c.UNIFAC_groups),
                list(c.Tbs),
                list(rs),
                list(qs),
                Vs,
            )
            self._exp = {k: np.asarray(v, dtype=float) for k, v in mats.items()}
            self.warnings.extend(notes)
        if liquid == "VAN-LAAR" and len(self.CASs) > 1:
            from simulator_mock.properties.binary_parameters import van_laar_parameters

            B, notes = van_laar_parameters(
                self.names, list(self.constants.UNIFAC_groups), list(self.constants.Tbs)
            )
            self._van_laar = np.asarray(B, dtype=float)
            self.warnings.extend(notes)
        if liquid == "CHAO-SEA":
            from simulator_mock.properties.chao_seader import regular_solution_parameters

            c = self.constants
            self._regular = regular_solution_parameters(
                list(self.CASs), self.names, list(c.Tcs), list(c.Vml_STPs), list(c.solubility_parameters)
            )
        if liquid == "NRTL" and len(self.CASs) > 1:
            from simulator_mock.properties.binary_parameters import nrtl_parameters

            tau_bs, alpha_cs, notes = nrtl_parameters(
                list(self.CASs), self.names, list(self.constants.UNIFAC_groups), list(self.constants.Tbs)
            )
            self._nrtl = (np.asarray(tau_bs, dtype=float), np.asarray(alpha_cs, dtype=float))
            self.warnings.extend(notes)
        if liquid in ("NRTL", "UNIQUAC") and len(self.CASs) > 1:
            from simulator_mock.properties.binary_parameters import VLE_FITTED_TABLES, chemsep_pairs

            self.vle_fitted_pairs = chemsep_pairs(VLE_FITTED_TABLES[liquid], list(self.CASs))
        return liquid, caloric

    def _uniquac_rq_values(self) -> tuple[np.ndarray, np.ndarray]:
        """UNIQUAC r and q: ChemSep's pure-component values (those its binary parameters were fitted with),
        else the sums of the UNIFAC group R and Q (reported)."""
        from simulator_mock.properties.binary_parameters import chemsep_pure

        rs, qs, substituted = [], [], []
        for name, CAS, R, Q in zip(
            self.names, self.CASs, self.constants.UNIFAC_Rs, self.constants.UNIFAC_Qs, strict=True
        ):
            r, q = chemsep_pure(CAS, "r"), chemsep_pure(CAS, "q")
            if r is None or q is None:
                if R is None or Q is None:
                    raise ComponentDataError(
                        f"component {name}: no UNIQUAC r and q (ChemSep) and no UNIFAC groups, needed by "
                        "UNIQUAC"
                    )
                r, q = R, Q
                substituted.append(name)
            rs.append(float(r))
            qs.append(float(q))
        if substituted:
            self.warnings.append(
                f"UNIQUAC: no ChemSep r and q for {', '.join(substituted)}; sums of UNIFAC group R and Q used"
            )
        return np.asarray(rs), np.asarray(qs)

    def models(self, idx: tuple[int, ...]) -> PhaseModels:
        """Phase models and flasher for the components at positions ``idx`` (cached)."""
        models = self._models.get(idx)
        if models is None:
            models = self._build_models(idx)
            self._models[idx] = models
        return models

    def _build_models(self, idx: tuple[int, ...]) -> PhaseModels:
        from thermo import (
            PRMIX,
            RKMIX,
            SRKMIX,
            CEOSGas,
            CEOSLiquid,
            FlashPureVLS,
            FlashVL,
            GibbsExcessLiquid,
            IdealGas,
            SRKMIXTranslated,
        )

        full = len(idx) == len(self.CASs)
        constants = self.constants if full else self.constants.subset(list(idx))
        correlations = self.correlations if full else self.correlations.subset(list(idx))
        CASs = [self.CASs[i] for i in idx]
        n = len(idx)
        zs = [1.0 / n] * n
        T, P = 298.15, 101325.0
        _, gas_kind = METHODS[self.method]
        if gas_kind in EOS_MODELS:
            from thermo.interaction_parameters import IPDB

            kijs = (
                IPDB.get_ip_asymmetric_matrix("ChemSep PR", CASs, "kij")
                if gas_kind == "PR"
                else [[0.0] * n for _ in range(n)]
            )
            eos_kwargs = {
                "Tcs": constants.Tcs,
                "Pcs": constants.Pcs,
                "omegas": constants.omegas,
                "kijs": kijs,
            }
            eos = PRMIX if gas_kind == "PR" else SRKMIX
            if gas_kind == "SRK-Peneloux":
                eos = SRKMIXTranslated
                eos_kwargs["cs"] = [
                    _peneloux_c(Tc, Pc, w)
                    for Tc, Pc, w in zip(constants.Tcs, constants.Pcs, constants.omegas, strict=True)
                ]
            common = {"HeatCapacityGases": correlations.HeatCapacityGases, "T": T, "P": P, "zs": zs}
            gas = CEOSGas(eos, eos_kwargs, **common)
            liquid = CEOSLiquid(eos, eos_kwargs, **common)
        else:
            if gas_kind == "RK":
                from simulator_mock.properties.chao_seader import RedlichKwongVapour

                rk_kwargs = {"Tcs": constants.Tcs, "Pcs": constants.Pcs, "omegas": constants.omegas}
                gas = RedlichKwongVapour(
                    RKMIX, rk_kwargs, HeatCapacityGases=correlations.HeatCapacityGases, T=T, P=P, zs=zs
                )
            else:
                gas = IdealGas(HeatCapacityGases=correlations.HeatCapacityGases, T=T, P=P, zs=zs)
            liquid_class = CpLiquid if self.caloric_basis == "Hvap" else GibbsExcessLiquid
            if self.liquid_model == "CHAO-SEA":
                from simulator_mock.properties.chao_seader import ChaoSeaderLiquid

                liquid_class = ChaoSeaderLiquid
            liquid = liquid_class(
                VaporPressures=correlations.VaporPressures,
                HeatCapacityGases=correlations.HeatCapacityGases,
                VolumeLiquids=correlations.VolumeLiquids,
                EnthalpyVaporizations=correlations.EnthalpyVaporizations,
                GibbsExcessModel=self._excess_model(constants, idx, T, zs),
                equilibrium_basis="Psat",
                caloric_basis=self.caloric_basis,
                T=T,
                P=P,
                zs=zs,
            )
        if isinstance(liquid, CpLiquid):
            liquid.cp_liquid = cp_liquid_data(list(constants.Tcs), correlations)
        if self.liquid_model == "CHAO-SEA":
            from thermo.phases import ChaoSeader

            liquid.chao_seader = ChaoSeader(
                Tcs=constants.Tcs, Pcs=constants.Pcs, omegas=constants.omegas, CASs=CASs, T=T, P=P, zs=zs
            )
        if n == 1:
            flasher = FlashPureVLS(constants, correlations, liquids=[liquid], gas=gas, solids=[])
        elif self.liquid_model == "CHAO-SEA":
            from simulator_mock.properties.chao_seader import ChaoSeaderFlash

            flasher = ChaoSeaderFlash(constants, correlations, liquid=liquid, gas=gas)
        else:
            flasher = FlashVL(constants, correlations, liquid=liquid, gas=gas)
        return PhaseModels(gas, liquid, flasher, self.Hfs[list(idx)], list(constants.Tcs))

    def _excess_model(self, constants: Any, idx: tuple[int, ...], T: float, zs: list[float]) -> Any:
        from thermo import NRTL, UNIFAC, UNIQUAC, IdealSolution, Wilson

        if len(idx) == 1 or self.liquid_model == "ideal-solution":
            return IdealSolution(T=T, xs=zs)
        if self.liquid_model == "NRTL":
            tau_bs, alpha_cs = (m[np.ix_(idx, idx)].tolist() for m in self._nrtl)
            return NRTL(T=T, xs=zs, tau_bs=tau_bs, alpha_cs=alpha_cs)
        if self.liquid_model == "CHAO-SEA":
            from thermo.regular_solution import RegularSolution

            Vs, SPs = ([values[i] for i in idx] for values in self._regular)
            return RegularSolution(T=T, xs=zs, Vs=Vs, SPs=SPs)
        if self.liquid_model == "VAN-LAAR":
            from simulator_mock.properties.van_laar import VanLaar

            return VanLaar(T=T, xs=zs, B=self._van_laar[np.ix_(idx, idx)].tolist())
        if self.liquid_model in ("UNIQUAC", "WILSON"):
            mats = {k: m[np.ix_(idx, idx)].tolist() for k, m in self._exp.items()}
            if self.liquid_model == "WILSON":
                return Wilson(T=T, xs=zs, **mats)
            rs = [float(self._uniquac_rq[0][i]) for i in idx]
            qs = [float(self._uniquac_rq[1][i]) for i in idx]
            return UNIQUAC(T=T, xs=zs, rs=rs, qs=qs, **mats)
        from thermo.unifac import UFIP, UFSG

        return UNIFAC.from_subgroups(
            T=T, xs=zs, chemgroups=constants.UNIFAC_groups, subgroups=UFSG, interaction_data=UFIP, version=0
        )

    @property
    def liquid_enthalpy_has_pressure_term(self) -> bool:
        """True for cubic-EOS liquids and CHAO-SEA's (Lee-Kesler); the activity-coefficient liquids' enthalpy
        ignores pressure."""
        return self.liquid_model in EOS_MODELS or self.liquid_model == "CHAO-SEA"

    def liquid_dH_dP(self, state: PhaseState) -> float:
        """(dH/dP)_T = V - T (dV/dT)_P [m3/mol] of the liquid of ``state`` when the model's liquid enthalpy
        has no pressure term; 0 when it has one (cubic EOS) or ``state`` has no liquid.

        Pump and Valve add this times the pressure change to the energy balance explicitly: the enthalpy a
        compressed liquid really gains (IAPWS-95: 0.923 V per unit pressure for water at 25 C) must not
        show up as heat in the pressure-less model enthalpy.
        """
        if self.liquid_enthalpy_has_pressure_term or state.V_liquid is None or state.VF >= 1.0:
            return 0.0
        idx = tuple(int(i) for i in np.flatnonzero(state.xs > TRACE))
        xs = state.xs[list(idx)]
        phase = self.models(idx).liquid.to(T=state.T, P=state.P, zs=(xs / xs.sum()).tolist())
        return float(phase.V()) - state.T * float(phase.dV_dT())

    # ---- flashes -------------------------------------------------------------------------------

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
        _check_bounds(where, spec)
        idx = tuple(int(i) for i in np.flatnonzero(zs > TRACE))
        if not idx:
            raise FlashError(f"{where}: cannot flash a stream with no components")
        sub = zs[list(idx)]
        sub = sub / sub.sum()
        if "VF" in spec:
            self._check_subcritical(idx, where, spec)
        multiphase = len(idx) > 1 and set(spec) in _VLLE_SPECS and self.models(idx).can_split(len(idx))
        try:
            if liquid_only:
                if not multiphase:
                    if set(spec) in _VLLE_SPECS:
                        raise FlashError(
                            f"{where}: these components cannot form two liquid phases with {self.method}"
                            " (IDEAL and WILSON never predict a liquid-liquid split)"
                        )
                    raise FlashError(f"{where}: a liquid-liquid flash needs T or a duty, with P")
                found = self._vlle_states(idx, sub, spec, None, liquid_only=True)
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
                and not _balanced(self._vl_split(res, float(res.T), float(res.P)), sub)
            )
            if (multiphase or unbalanced) and len(idx) > 1:
                # thermo's saturation flashes can return the phases of another saturation point (their
                # amounts do not add up to the feed): the search over isothermal flashes replaces them
                found = self._vlle_states(idx, sub, spec, res)
                if found is not None:
                    state, vapor, liquids = found
                    _check_bounds(where, {"T": state.T, "P": state.P}, computed=True)
                    return state, vapor, liquids
            if res is None:
                raise FlashError("no equilibrium found")
            state = self._state(res, idx, models, sub)
            vapor = None
            liquids = []
            if split:
                gas = res.gas if res.gas is not None else (res.liquid0 if state.VF == 1.0 else None)
                if gas is not None and state.VF > 0.0:
                    vapor = self._phase_state(gas, idx, models, 1.0)
                if res.liquid_count and state.VF < 1.0:
                    liquids = [self._phase_state(res.liquid0, idx, models, 0.0)]
        except (OutOfBoundsError, FlashError) as exc:
            if isinstance(exc, FlashError) and not str(exc).startswith(where):
                raise FlashError(f"{where}: {exc}") from None
            raise
        except Exception as exc:
            beyond = self._beyond_temperature_range(idx, sub, where, spec)
            if beyond is not None:
                raise beyond from None
            described = ", ".join(f"{k}={_fmt(k, v)}" for k, v in spec.items())
            raise FlashError(f"{where}: flash at {described} failed ({_failure_reason(exc, spec)})") from None
        _check_bounds(where, {"T": state.T, "P": state.P}, computed=True)
        return state, vapor, liquids

    # ---- two liquid phases -------------------------------------------------------------------------

    def _vl_split(self, res: Any, T: float, P: float) -> Split:
        """thermo's vapour-liquid answer as a :class:`Split` (the start of the liquid stability test)."""
        phases = []
        VF = min(max(float(res.VF), 0.0), 1.0)
        if res.gas is not None and VF > 0.0:
            phases.append(Phase("V", VF, np.asarray(res.gas.zs, dtype=float), res.gas))
        if res.liquid_count and VF < 1.0:
            phases.append(Phase("L", 1.0 - VF, np.asarray(res.liquid0.zs, dtype=float), res.liquid0))
        return Split(T, P, phases)

    def _vlle_states(
        self,
        idx: tuple[int, ...],
        sub: np.ndarray,
        spec: dict[str, float],
        res: Any,
        liquid_only: bool = False,
    ) -> tuple[PhaseState, PhaseState | None, list[PhaseState]] | None:
        """The equilibrium with two liquid phases where the liquid of thermo's answer ``res`` is unstable (or
        ``res`` is None: thermo failed); None when ``res`` stands (no second liquid)."""
        models = self.models(idx)
        vlle = models.vlle

        def tp(T: float, P: float) -> Split:
            if liquid_only:
                start = Split(T, P, [Phase("L", 1.0, sub, vlle.liq(T, P, sub))])
            else:
                with contextlib.redirect_stdout(_DISCARD):
                    start = self._vl_split(models.flasher.flash(T=T, P=P, zs=sub.tolist()), T, P)
            return vlle.flash_TP(T, P, sub, start, allow_vapor=not liquid_only)

        if res is not None:
            start = self._vl_split(res, float(res.T), float(res.P))
            if set(spec) == {"T", "P"}:
                found = vlle.flash_TP(spec["T"], spec["P"], sub, start)
                return None if found is start else self._from_split(found, idx, models)
            liquid = next(iter(start.liquids), None)
            balanced = _balanced(start, sub)
            if balanced and liquid is not None and vlle.unstable_liquid(start.T, start.P, liquid.zs) is None:
                return None
            if balanced and liquid is None and not self._liquid_hidden(start, vlle):
                return None
        elif set(spec) == {"T", "P"}:
            return self._from_split(tp(spec["T"], spec["P"]), idx, models)
        if "P" in spec:
            P = spec["P"]
            what, target = ("H", spec["H"]) if "H" in spec else ("VF", spec.get("VF", 0.0))
            guess = float(res.T) if res is not None else 350.0
            lo, hi = _bracket(lambda T: tp(T, P), vlle, guess, what, target, T_MIN_K, T_MAX_K)
            found = vlle.solve_free(lambda T: tp(T, P), lo, hi, target, what, sub)
        else:
            T = spec["T"]
            guess = float(res.P) if res is not None else 101325.0
            lo, hi = _bracket(lambda u: tp(T, -u), vlle, -guess, "VF", spec["VF"], -P_MAX_PA, -P_MIN_PA)
            found = vlle.solve_free(lambda u: tp(T, -u), lo, hi, spec["VF"], "VF", sub)
        return self._from_split(found, idx, models)

    def _liquid_density(self, xs: np.ndarray, idx: tuple[int, ...], T: float) -> float:
        """Mass density [kg/m3] of a liquid of composition ``xs`` (over ``idx``) from the pure-component
        liquid volume correlations, mixed ideally."""
        volume = 0.0
        for x, i in zip(xs, idx, strict=True):
            Vm = self.correlations.VolumeLiquids[i].T_dependent_property(T)
            if Vm is None:
                Vm = self.correlations.VolumeLiquids[i].T_dependent_property(298.15) or 1e-4
            volume += float(x) * float(Vm)
        return float(np.dot(xs, self.MWs[list(idx)])) / 1000.0 / volume

    def _liquid_hidden(self, start: Split, vlle: VLLE) -> bool:
        """A vapour-only answer may hide a heterogeneous dew point: True when a liquid of near-pure
        composition would condense from the vapour (its fugacity below the vapour's)."""
        vapor = start.vapor
        if vapor is None:
            return False
        n = len(vapor.zs)
        lnphi_v = vlle.lnphi_v(start.T, start.P, vapor.zs)
        for k in range(n):
            x = np.full(n, 1e-6)
            x[k] = 1.0
            x = x / x.sum()
            lnphi_l = vlle.lnphi_l(start.T, start.P, x)
            if np.log(x[k]) + lnphi_l[k] < np.log(max(vapor.zs[k], 1e-300)) + lnphi_v[k] - 1e-9:
                return True
        return False

    def _from_split(
        self, found: Split, idx: tuple[int, ...], models: PhaseModels
    ) -> tuple[PhaseState, PhaseState | None, list[PhaseState]]:
        """Bulk and phase states of a multiphase answer (2nd liquid = the denser)."""
        n = len(self.CASs)
        vapor_phase = found.vapor
        liquid_phases = found.liquids
        if len(liquid_phases) == 2:
            # the 2nd liquid is the denser (Aspen's rule without key components); densities from the liquid
            # volume correlations (a cubic EOS's liquid volumes can be 30 % off and swap the order)
            density = [self._liquid_density(p.zs, idx, found.T) for p in liquid_phases]
            if density[0] > density[1]:
                liquid_phases = liquid_phases[::-1]
        vapor = self._phase_state(vapor_phase.obj, idx, models, 1.0) if vapor_phase is not None else None
        liquids = [self._phase_state(p.obj, idx, models, 0.0) for p in liquid_phases]
        betas = [p.beta for p in liquid_phases]
        VF = vapor_phase.beta if vapor_phase is not None else 0.0
        parts = ([(VF, vapor)] if vapor is not None else []) + list(zip(betas, liquids, strict=True))
        total = sum(b for b, _ in parts)
        zs = np.zeros(n)
        for b, st in parts:
            zs += b / total * st.zs
        L = sum(betas)
        xs = sum(b / L * st.zs for b, st in zip(betas, liquids, strict=True)) if liquids else zs.copy()
        V_liquid = sum(b / L * st.V for b, st in zip(betas, liquids, strict=True)) if liquids else None
        state = PhaseState(
            T=float(found.T),
            P=float(found.P),
            VF=min(max(VF / total, 0.0), 1.0),
            H=sum(b / total * st.H for b, st in parts),
            S=sum(b / total * st.S for b, st in parts),
            V=sum(b / total * st.V for b, st in parts),
            zs=zs,
            xs=np.asarray(xs),
            ys=vapor.zs if vapor is not None else zs.copy(),
            V_liquid=V_liquid,
            x1s=liquids[0].zs if len(liquids) == 2 else None,
            x2s=liquids[1].zs if len(liquids) == 2 else None,
            LF2=betas[1] / total if len(liquids) == 2 else 0.0,
        )
        return state, vapor, liquids

    def _check_subcritical(self, idx: tuple[int, ...], where: str, spec: dict[str, float]) -> None:
        """Refuse a vapour-fraction spec above the critical point.

        The activity-coefficient methods extrapolate vapour pressures past Tc and would return a two-phase
        answer at any pressure (water at 300 bar, VF 0.5: 389 C). Their bound is the largest critical
        pressure (P + VF) or temperature (T + VF) of the components present. A cubic EOS finds mixture
        critical points itself (they can lie above every pure component's Pc), so there only a pure
        component is bounded here.
        """
        if self.liquid_model in EOS_MODELS and len(idx) > 1:
            return
        for key, values, label, fmt in (
            ("P", self.constants.Pcs, "pressure", lambda v: f"{v / 1e5:.6g} bar"),
            ("T", self.constants.Tcs, "temperature", lambda v: f"{v - 273.15:.6g} C"),
        ):
            value = spec.get(key)
            known = [(values[i], self.names[i]) for i in idx if values[i] is not None]
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
        models = self.models(idx)
        kwargs = dict(spec)
        if "H" in kwargs:
            kwargs["H"] = kwargs["H"] - float(np.dot(sub, models.Hfs))
        if len(idx) > 1:
            kwargs["zs"] = sub.tolist()
        with contextlib.redirect_stdout(_DISCARD):  # thermo prints solver failures it then recovers from
            return models, models.flasher.flash(**kwargs)

    def _gas_like(self, res: Any, idx: tuple[int, ...], sub: np.ndarray) -> bool:
        """A single cubic-EOS phase is vapour when above the pseudo-critical temperature or gas-like (Z >
        0.5)."""
        Tcs = np.asarray([self.constants.Tcs[i] for i in idx], dtype=float)
        Z = float(res.P) * float(res.V()) / (8.314462618 * float(res.T))
        return float(res.T) > float(np.dot(sub, Tcs)) or Z > 0.5

    def _phase_state(self, phase: Any, idx: tuple[int, ...], models: PhaseModels, VF: float) -> PhaseState:
        zs = np.zeros(len(self.CASs))
        zs[list(idx)] = phase.zs
        H = float(phase.H()) + float(np.dot(phase.zs, models.Hfs))
        V = float(phase.V())
        return PhaseState(
            T=float(phase.T),
            P=float(phase.P),
            VF=VF,
            H=H,
            S=float(phase.S()),
            V=V,
            zs=zs,
            xs=zs,
            ys=zs,
            V_liquid=None if VF else V,
        )

    def _state(self, res: Any, idx: tuple[int, ...], models: PhaseModels, sub: np.ndarray) -> PhaseState:
        n = len(self.CASs)
        T, P = float(res.T), float(res.P)
        VF = float(res.VF)
        if not (math.isfinite(T) and math.isfinite(P) and math.isfinite(VF)) or not -1e-9 <= VF <= 1 + 1e-9:
            raise FlashError(f"non-physical flash result T={T} P={P} VF={VF}")
        VF = min(max(VF, 0.0), 1.0)
        if (
            VF == 0.0
            and res.gas is None
            and self.liquid_model in EOS_MODELS
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


def _balanced(split: Split, zs: np.ndarray) -> bool:
    """True when the phases of ``split`` add up to the overall composition (thermo's saturation flashes can
    return the phases of another saturation point)."""
    total = sum(p.beta * p.zs for p in split.phases)
    return bool(np.max(np.abs(total - zs)) < 1e-6)


def _bracket(
    tp: Callable[[float], Split], vlle: VLLE, guess: float, what: str, target: float, lo_b: float, hi_b: float
) -> tuple[float, float]:
    """An interval [lo, hi] of the free variable around ``guess`` where ``what`` crosses ``target``."""

    def side(x: float) -> int:
        s = tp(x)
        if what == "H":
            return -1 if vlle.H_total(s) < target else 1
        if target <= 0.0:
            return 1 if s.VF > 1e-12 else -1
        if target >= 1.0:
            return -1 if s.VF < 1.0 - 1e-12 else 1
        return -1 if target > s.VF else 1

    step = max(abs(guess) * 0.02, 5.0)
    x0 = min(max(guess, lo_b), hi_b)
    s0 = side(x0)
    x1 = x0
    for _ in range(60):
        x1 = min(max(x1 - s0 * step, lo_b), hi_b)
        if side(x1) != s0:
            return (x1, x0) if s0 > 0 else (x0, x1)
        x0 = x1
        if x1 in (lo_b, hi_b):
            break
        step *= 2.0
    raise FlashError(f"no equilibrium with {what} = {target:g} found")


def _peneloux_c(Tc: float, Pc: float, omega: float) -> float:
    """Peneloux, Rauzy and Freze (1982) volume shift of SRK [m3/mol], with the Rackett compressibility from
    the Yamada-Gunn (1973) correlation Z_RA = 0.29056 - 0.08775 omega."""
    R = 8.314462618
    return 0.40768 * (0.29441 - (0.29056 - 0.08775 * omega)) * R * Tc / Pc


#: Python errors raised from inside thermo's solvers: their text names thermo's variables, not the problem.
_SOLVER_INTERNALS = (
    UnboundLocalError,
    ZeroDivisionError,
    OverflowError,
    AttributeError,
    TypeError,
    IndexError,
)


def _failure_reason(exc: Exception, spec: dict[str, float]) -> str:
    """Why a flash failed, in words a user can act on (thermo's own message when it is one)."""
    if not isinstance(exc, _SOLVER_INTERNALS):
        return f"{type(exc).__name__}: {exc}"
    if "VF" in spec:
        return (
            "no such saturation point was found: the mixture may have none at this condition (a dissolved "
            "light gas beyond its solubility, a point above the critical); specify temperature and pressure "
            "instead"
        )
    return "the property model's solver found no solution at this condition"


def _fmt(key: str, value: float) -> str:
    if key == "T":
        return f"{value - 273.15:.6g} C"
    if key == "P":
        return f"{value / 1e5:.6g} bar"
    return f"{value:.6g}"


def _check_bounds(where: str, spec: dict[str, float], computed: bool = False) -> None:
    for key, value in spec.items():
        if not math.isfinite(value):
            raise OutOfBoundsError(f"{where}: {key} is not a finite number")
    how = "results in" if computed else "asks for"
    T = spec.get("T")
    if T is not None and not T_MIN_K <= T <= T_MAX_K:
        raise OutOfBoundsError(
            f"{where}: {how} temperature {T - 273.15:.6g} C, outside {T_MIN_K - 273.15:.2f} .. "
            f"{T_MAX_K - 273.15:.0f} C"
        )
    P = spec.get("P")
    if P is not None and not P_MIN_PA <= P <= P_MAX_PA:
        raise OutOfBoundsError(
            f"{where}: {how} pressure {P / 1e5:.6g} bar, outside {P_MIN_PA / 1e5:g} .. {P_MAX_PA / 1e5:g} bar"
        )
    VF = spec.get("VF")
    if VF is not None and not 0.0 <= VF <= 1.0:
        raise OutOfBoundsError(f"{where}: vapor fraction {VF:g} outside 0 .. 1")


@lru_cache(maxsize=32)
def get_property_package(CASs: tuple[str, ...], method: str) -> PropertyPackage:
    """Cached property package for CAS numbers (in config order) and a canonical method name."""
    return PropertyPackage(CASs, method)


def warm_up() -> None:
    """Load the chemical databases and thermo once, so the first request is not slow."""
    _cas_from_any("water")
    package = get_property_package(("7732-18-5",), "IDEAL")
    package.flash(np.array([1.0]), "warm-up", T=300.0, P=101325.0)
