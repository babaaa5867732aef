"""Phase models of a property package: the liquid model an Aspen method stands for (with its binary
parameters), and thermo's gas and liquid phases and flasher for each subset of the components."""

from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np

from simulator_mock.errors import ComponentDataError
from simulator_mock.properties.components import EOS_MODELS, METHODS, ComponentData
from simulator_mock.properties.liquid_enthalpy import CpLiquid, cp_liquid_data
from simulator_mock.properties.multiphase import VLLE
from simulator_mock.properties.phase_state import TRACE, PhaseState

#: Temperatures [K] at which component pairs are screened for two liquid phases.
SPLIT_SCREEN_T = (273.15, 313.15, 353.15, 393.15, 433.15)


class _Discard(io.TextIOBase):
    """A text stream that drops what is written to it."""

    def write(self, text: str) -> int:
        return len(text)


_DISCARD = _Discard()


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

    def flash(self, **spec: Any) -> Any:
        """thermo's flash of these components (dropping what its solvers print on failures they survive)."""
        with contextlib.redirect_stdout(_DISCARD):
            return self.flasher.flash(**spec)

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


class PhaseModelSet:
    """The liquid model of one property package and its phase models per component subset (built when used).

    Attributes:
        liquid_model: model actually used for the liquid. caloric_basis: "eos", "Hvap" or "Psat".
        vle_fitted_pairs: component index pairs whose binary parameters were fitted to vapour-liquid data
            (ChemSep NRTL / UNIQUAC): a liquid-liquid split they decide is an extrapolation, named in the
            run's warnings.
    """

    def __init__(self, data: ComponentData) -> None:
        self.data = data
        self.vle_fitted_pairs: list[tuple[int, int]] = []
        self.liquid_model, self.caloric_basis = self._choose_liquid_model()
        self._models: dict[tuple[int, ...], PhaseModels] = {}

    def _choose_liquid_model(self) -> tuple[str, str]:
        liquid, _ = METHODS[self.data.method]
        if liquid in EOS_MODELS:
            return liquid, "eos"
        caloric = "Hvap"
        if any(obj.method is None for obj in self.data.correlations.EnthalpyVaporizations):
            caloric = "Psat"
            self.data.warnings.append(
                "liquid enthalpy from the vapour-pressure curve (no enthalpy of vaporization data for all "
                "components)"
            )
        if liquid == "UNIQUAC":
            self._uniquac_rq = self._uniquac_rq_values()
        if liquid in ("UNIQUAC", "WILSON") and len(self.data.CASs) > 1:
            from simulator_mock.properties.binary_parameters import chemsep_pure, exp_parameters

            c = self.data.constants
            Vs = []
            for CAS, obj, Tb in zip(self.data.CASs, self.data.correlations.VolumeLiquids, c.Tbs, strict=True):
                V = chemsep_pure(CAS, "V")
                Vs.append(V if V is not None else obj.T_dependent_property(Tb or 298.15))
            rs, qs = self._uniquac_rq if liquid == "UNIQUAC" else ([None] * len(Vs), [None] * len(Vs))
            mats, notes = exp_parameters(
                liquid,
                list(self.data.CASs),
                self.data.names,
                list(c.UNIFAC_groups),
                list(c.Tbs),
                list(rs),
                list(qs),
                Vs,
            )
            self._exp = {k: np.asarray(v, dtype=float) for k, v in mats.items()}
            self.data.warnings.extend(notes)
        if liquid == "VAN-LAAR" and len(self.data.CASs) > 1:
            from simulator_mock.properties.binary_parameters import van_laar_parameters

            B, notes = van_laar_parameters(
                self.data.names, list(self.data.constants.UNIFAC_groups), list(self.data.constants.Tbs)
            )
            self._van_laar = np.asarray(B, dtype=float)
            self.data.warnings.extend(notes)
        if liquid == "CHAO-SEA":
            from simulator_mock.properties.chao_seader import regular_solution_parameters

            c = self.data.constants
            self._regular = regular_solution_parameters(
                list(self.data.CASs),
                self.data.names,
                list(c.Tcs),
                list(c.Vml_STPs),
                list(c.solubility_parameters),
            )
        if liquid == "NRTL" and len(self.data.CASs) > 1:
            from simulator_mock.properties.binary_parameters import nrtl_parameters

            tau_bs, alpha_cs, notes = nrtl_parameters(
                list(self.data.CASs),
                self.data.names,
                list(self.data.constants.UNIFAC_groups),
                list(self.data.constants.Tbs),
            )
            self._nrtl = (np.asarray(tau_bs, dtype=float), np.asarray(alpha_cs, dtype=float))
            self.data.warnings.extend(notes)
        if liquid in ("NRTL", "UNIQUAC") and len(self.data.CASs) > 1:
            from simulator_mock.properties.binary_parameters import VLE_FITTED_TABLES, chemsep_pairs

            self.vle_fitted_pairs = chemsep_pairs(VLE_FITTED_TABLES[liquid], list(self.data.CASs))
        return liquid, caloric

    def _uniquac_rq_values(self) -> tuple[np.ndarray, np.ndarray]:
        """UNIQUAC r and q: ChemSep's pure-component values (those its binary parameters were fitted with),
        else the sums of the UNIFAC group R and Q (reported)."""
        from simulator_mock.properties.binary_parameters import chemsep_pure

        rs, qs, substituted = [], [], []
        for name, CAS, R, Q in zip(
            self.data.names,
            self.data.CASs,
            self.data.constants.UNIFAC_Rs,
            self.data.constants.UNIFAC_Qs,
            strict=True,
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
            self.data.warnings.append(
                f"UNIQUAC: no ChemSep r and q for {', '.join(substituted)}; sums of UNIFAC group R and Q used"
            )
        return np.asarray(rs), np.asarray(qs)

    def get(self, idx: tuple[int, ...]) -> PhaseModels:
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

        full = len(idx) == len(self.data.CASs)
        constants = self.data.constants if full else self.data.constants.subset(list(idx))
        correlations = self.data.correlations if full else self.data.correlations.subset(list(idx))
        CASs = [self.data.CASs[i] for i in idx]
        n = len(idx)
        zs = [1.0 / n] * n
        T, P = 298.15, 101325.0
        _, gas_kind = METHODS[self.data.method]
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
        return PhaseModels(gas, liquid, flasher, self.data.Hfs[list(idx)], list(constants.Tcs))

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
        phase = self.get(idx).liquid.to(T=state.T, P=state.P, zs=(xs / xs.sum()).tolist())
        return float(phase.V()) - state.T * float(phase.dV_dT())


def _peneloux_c(Tc: float, Pc: float, omega: float) -> float:
    """Peneloux, Rauzy and Freze (1982) volume shift of SRK [m3/mol], with the Rackett compressibility from
    the Yamada-Gunn (1973) correlation Z_RA = 0.29056 - 0.08775 omega."""
    R = 8.314462618
    return 0.40768 * (0.29441 - (0.29056 - 0.08775 * omega)) * R * Tc / Pc
