"""Property packages: chemicals from the `chemicals` database, Aspen method names as `thermo` models.

A package is composed of its parts, one concern each: the components and their pure-component data
(`components.py`), the liquid model and thermo's phases per component subset (`phase_models.py`), and the
flashes (`flash.py`, with the second-liquid search in `two_liquids.py` and the bounds in `flash_bounds.py`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from simulator_mock.properties.components import ComponentData, cas_from_any
from simulator_mock.properties.flash import Flasher
from simulator_mock.properties.phase_models import PhaseModels, PhaseModelSet
from simulator_mock.properties.phase_state import PhaseState


class PropertyPackage(ComponentData):
    """A component list with one Aspen property method, able to flash any composition of it.

    Build through :func:`get_property_package`, which caches packages per (CAS numbers, method).

    Attributes:
        (those of :class:`ComponentData`) and phase_models: the liquid model and phases per component subset.
    """

    def __init__(self, CASs: tuple[str, ...], method: str) -> None:
        super().__init__(CASs, method)
        self.phase_models = PhaseModelSet(self)
        self._flasher = Flasher(self, self.phase_models)

    @property
    def liquid_model(self) -> str:
        """The model actually used for the liquid (an Aspen method's, e.g. "NRTL", "PR", "ideal-solution")."""
        return self.phase_models.liquid_model

    @property
    def vle_fitted_pairs(self) -> list[tuple[int, int]]:
        """Component index pairs whose binary parameters were fitted to vapour-liquid data."""
        return self.phase_models.vle_fitted_pairs

    def models(self, idx: tuple[int, ...]) -> PhaseModels:
        """Phase models and flasher for the components at positions ``idx`` (cached)."""
        return self.phase_models.get(idx)

    def liquid_dH_dP(self, state: PhaseState) -> float:
        """(dH/dP)_T of the liquid of ``state`` where the model's liquid enthalpy lacks it (see
        :meth:`PhaseModelSet.liquid_dH_dP`)."""
        return self.phase_models.liquid_dH_dP(state)

    def flash(self, zs: np.ndarray, where: str, **spec: float) -> PhaseState:
        """Equilibrium state of composition ``zs`` at two specs among T, P, VF, H, S (see `Flasher`)."""
        return self._flasher.flash(zs, where, **spec)

    def flash_split(
        self, zs: np.ndarray, where: str, **spec: float
    ) -> tuple[PhaseState, PhaseState | None, PhaseState | None]:
        """Like :meth:`flash`, plus the vapour and the (combined) liquid state (see `Flasher`)."""
        return self._flasher.flash_split(zs, where, **spec)

    def flash_phases(
        self, zs: np.ndarray, where: str, *, liquid_only: bool = False, **spec: float
    ) -> tuple[PhaseState, PhaseState | None, list[PhaseState]]:
        """Like :meth:`flash`, plus the vapour and each liquid phase's state (see `Flasher`)."""
        return self._flasher.flash_phases(zs, where, liquid_only=liquid_only, **spec)


@lru_cache(maxsize=32)
def get_property_package(CASs: tuple[str, ...], method: str) -> PropertyPackage:
    """Cached property package for CAS numbers (in config order) and a canonical method name."""
    return PropertyPackage(CASs, method)


def warm_up() -> None:
    """Load the chemical databases and thermo once, so the first request is not slow."""
    cas_from_any("water")
    package = get_property_package(("7732-18-5",), "IDEAL")
    package.flash(np.array([1.0]), "warm-up", T=300.0, P=101325.0)
