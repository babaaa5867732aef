"""Components of a property package: Aspen method names, component identifiers resolved to CAS numbers, and
the pure-component constants and correlations of the `chemicals`/`thermo` databases."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from simulator_mock.errors import ComponentDataError, UnknownComponentError, UnknownPropertyMethodError

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
def cas_from_any(identifier: str) -> str | None:
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
        cas = cas_from_any(cas_number.strip())
    for ident in (database_name, name):
        if cas is None and ident:
            tried.append(repr(ident))
            cas = cas_from_any(ident.strip())
    if cas is None:
        what = " / ".join(tried) if tried else "no name or cas_number"
        raise UnknownComponentError(f"components[{cid}]: {what} not found in the chemicals database")
    return cas, warnings


@lru_cache(maxsize=64)
def _constants_and_correlations(CASs: tuple[str, ...]) -> tuple[Any, Any]:
    from thermo import ChemicalConstantsPackage

    return ChemicalConstantsPackage.from_IDs(list(CASs))


class ComponentData:
    """A component list with one Aspen property method: identity and pure-component data.

    Attributes:
        CASs: CAS numbers in config order. names: database names. MWs: g/mol.
        Hfs: ideal-gas formation enthalpies at 298.15 K [J/mol]. atoms: element counts.
        method: canonical Aspen method name. constants, correlations: thermo's packages for the components.
        warnings: what the build had to substitute (missing formation enthalpies, NRTL pairs, caloric basis).

    Raises:
        ComponentDataError: a component lacks data the method needs.
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
        Hfs = []
        for name, Hf in zip(self.names, constants.Hfgs, strict=True):
            if Hf is None:
                self.warnings.append(f"{name}: no formation enthalpy in the database; 0 used")
                Hf = 0.0
            Hfs.append(Hf)
        self.Hfs = np.asarray(Hfs, dtype=float)
        self.atoms: list[dict[str, int]] = [dict(a or {}) for a in constants.atomss]
        self._check_data()

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
