"""Design specifications (the config's ``design_specs``): vary one block input until a sampled expression
meets its target, as Aspen's Design-Spec does.

Each spec names sampled variables (stream flows, fractions, states, or a block result by its Aspen output
name), an objective ``EXPR1 = EXPR2`` within ``TOL``, and one manipulated variable with ``LOWER`` / ``UPPER``
bounds. The mock first runs the flowsheet at the manipulated variable's value in the config (Aspen's initial
guess); when that misses, Brent's method searches the bounded interval until |EXPR1 - EXPR2| <= TOL. A target
that no value between the bounds reaches fails with the values at both bounds, naming the spec. Several specs
are solved nested (the first spec outermost). Every flowsheet evaluation runs under the run's time budget.
"""

from __future__ import annotations

import ast
import copy
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from simulator_mock.errors import (
    ConvergenceError,
    SimulationError,
    SpecificationError,
    UnsupportedOptionError,
)

#: Sampled stream variables (variable_type STREAM-VAR) -> results-document key of the stream.
STREAM_VARS = {
    "TEMP": "temperature_C",
    "PRES": "pressure_bar",
    "MOLE-FLOW": "molar_flow_kmol_hr",
    "MASS-FLOW": "mass_flow_kg_hr",
    "VFRAC": "vapor_fraction",
}

#: Component-level sampled types -> results-document key of the stream (per component).
COMPONENT_VARS = {
    "MOLE-FLOW": "component_flows_kmol_hr",
    "MOLE-FRAC": "mole_fractions",
    "MASS-FRAC": "mass_fractions",
}

_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_FUNCTIONS: dict[str, Callable[..., float]] = {
    "ABS": abs,
    "SQRT": math.sqrt,
    "EXP": math.exp,
    "LOG": math.log,
    "LOG10": math.log10,
    "MIN": min,
    "MAX": max,
}


class Expression:
    """An arithmetic expression of sampled variable names (Fortran-style: case-insensitive, ``**`` power)."""

    def __init__(self, text: str, names: set[str], where: str) -> None:
        self.text = text
        self.where = where
        try:
            self.tree = ast.parse(str(text).strip(), mode="eval")
        except SyntaxError as exc:
            raise SpecificationError(f"{where}: cannot read expression {text!r} ({exc.msg})") from None
        self._check(self.tree.body, {n.upper() for n in names})

    def _check(self, node: ast.AST, names: set[str]) -> None:
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            self._check(node.left, names)
            self._check(node.right, names)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd | ast.USub):
            self._check(node.operand, names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            pass
        elif isinstance(node, ast.Name):
            if node.id.upper() not in names:
                known = ", ".join(sorted(names)) or "none"
                raise SpecificationError(
                    f"{self.where}: {node.id} is not a sampled variable (sampled: {known})"
                )
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id.upper() in _FUNCTIONS
            and not node.keywords
        ):
            for arg in node.args:
                self._check(arg, names)
        else:
            raise SpecificationError(
                f"{self.where}: {self.text!r} may use only numbers, sampled variables, + - * / **, "
                f"parentheses and {', '.join(_FUNCTIONS)}"
            )

    def value(self, variables: dict[str, float]) -> float:
        """The expression's value given the sampled variables (names case-insensitive)."""
        upper = {k.upper(): v for k, v in variables.items()}

        def ev(node: ast.AST) -> float:
            if isinstance(node, ast.BinOp):
                return _BINARY[type(node.op)](ev(node.left), ev(node.right))
            if isinstance(node, ast.UnaryOp):
                return -ev(node.operand) if isinstance(node.op, ast.USub) else ev(node.operand)
            if isinstance(node, ast.Constant):
                return float(node.value)  # type: ignore[arg-type]  # numbers only (checked)
            if isinstance(node, ast.Name):
                return upper[node.id.upper()]
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            return float(_FUNCTIONS[node.func.id.upper()](*(ev(a) for a in node.args)))

        try:
            return float(ev(self.tree.body))
        except (ArithmeticError, ValueError) as exc:
            raise SpecificationError(f"{self.where}: {self.text!r} cannot be evaluated ({exc})") from None


@dataclass
class Sampled:
    """A sampled variable: where its value is read from in the results."""

    name: str
    kind: str
    stream: str | None = None
    component: str | None = None
    block: str | None = None
    variable: str | None = None
    where: str = ""

    def read(self, results: dict[str, Any], sheets: Callable[[], dict[str, list[list[Any]]]]) -> float:
        """Value of this variable in a results document (block variables from the result sheets)."""
        if self.kind == "BLOCK-VAR":
            rows = sheets().get(f"{self.block}_result", [])
            for row in rows[1:]:
                if str(row[0]).upper() == str(self.variable).upper() and isinstance(row[1], int | float):
                    return float(row[1])
            names = ", ".join(str(r[0]) for r in rows[1:] if not str(r[0]).endswith("_UNITS"))
            raise SpecificationError(
                f"{self.where}: block {self.block} has no result {self.variable} "
                f"(its results: {names or 'none'})"
            )
        doc = results["streams"][self.stream]
        if self.kind == "STREAM-VAR":
            return float(doc[STREAM_VARS[str(self.variable)]])
        if self.kind == "MASS-FLOW":
            if self.component is None:
                return float(doc["mass_flow_kg_hr"])
            MW = results["components"][self.component]["molecular_weight"]
            return float(doc["component_flows_kmol_hr"][self.component]) * float(MW)
        if self.component is None:
            if self.kind != "MOLE-FLOW":
                raise SpecificationError(f"{self.where}.component: {self.kind} needs a component")
            return float(doc["molar_flow_kmol_hr"])
        return float(doc[COMPONENT_VARS[self.kind]][self.component])


@dataclass
class DesignSpec:
    """One design specification, read from the config."""

    name: str
    sampled: list[Sampled]
    expr1: Expression
    expr2: Expression
    tol: float
    block: str
    variable: str
    path: tuple[str, ...]
    lower: float
    upper: float
    evaluations: int = 0
    history: list[tuple[float, float]] = field(default_factory=list)

    @property
    def where(self) -> str:
        """Config path of the spec."""
        return f"design_specs.{self.name}"

    def objective(self, results: dict[str, Any], sheets: Callable[[], dict[str, list[list[Any]]]]) -> float:
        """EXPR1 - EXPR2 in a results document."""
        values = {s.name: s.read(results, sheets) for s in self.sampled}
        return self.expr1.value(values) - self.expr2.value(values)

    def initial(self, config: dict[str, Any]) -> float | None:
        """The manipulated variable's value in the config (Aspen's starting point), None when absent."""
        node: Any = config
        for key in self.path:
            node = node.get(key) if isinstance(node, dict) else None
        return float(node) if isinstance(node, int | float) and not isinstance(node, bool) else None

    def set(self, config: dict[str, Any], value: float) -> dict[str, Any]:
        """A copy of ``config`` with the manipulated variable at ``value``."""
        out = copy.deepcopy(config)
        node = out
        for key in self.path[:-1]:
            node = node[key]
        node[self.path[-1]] = value
        return out


def parse_design_specs(config: dict[str, Any]) -> list[DesignSpec]:
    """Read the ``design_specs`` section (schema-valid).

    Raises:
        SpecificationError: unknown streams, blocks, components or variables; bad expressions or bounds.
        UnsupportedOptionError: a manipulated variable that is not a block input.
    """
    specs = []
    for name, body in (config.get("design_specs") or {}).items():
        where = f"design_specs.{name}"
        sampled = [
            _sampled(config, item, f"{where}.sampled_variables[{k}]")
            for k, item in enumerate(body["sampled_variables"])
        ]
        names = {s.name for s in sampled}
        objective = body["objective_function"]
        expr1 = Expression(objective["EXPR1"], names, f"{where}.objective_function.EXPR1")
        expr2 = Expression(objective["EXPR2"], names, f"{where}.objective_function.EXPR2")
        tol = float(objective["TOL"])
        manipulated = body["manipulated_variables"]
        if len(manipulated) != 1:
            raise SpecificationError(
                f"{where}.manipulated_variables: a design spec varies exactly one variable"
            )
        block, variable, path = _manipulated(config, manipulated[0], f"{where}.manipulated_variables[0]")
        lower, upper = float(body["bounds"]["LOWER"]), float(body["bounds"]["UPPER"])
        if not lower < upper:
            raise SpecificationError(f"{where}.bounds: LOWER ({lower:g}) must be below UPPER ({upper:g})")
        specs.append(DesignSpec(name, sampled, expr1, expr2, tol, block, variable, path, lower, upper))
    return specs


def _sampled(config: dict[str, Any], item: dict[str, Any], where: str) -> Sampled:
    name = str(item["variable_name"])
    if not name.isidentifier():
        raise SpecificationError(f"{where}.variable_name: {name!r} is not a valid variable name")
    kind = str(item["variable_type"]).upper()
    streams = set(config.get("streams") or [])
    cids = [c["cid"] for c in config.get("components") or []]
    if kind == "BLOCK-VAR":
        block = item.get("block")
        if block not in _block_types(config):
            raise SpecificationError(f"{where}.block: no block {block!r}")
        if not item.get("variable"):
            raise SpecificationError(f"{where}.variable: BLOCK-VAR needs the Aspen output name, e.g. QCALC")
        return Sampled(name, kind, block=block, variable=str(item["variable"]), where=where)
    if kind not in ("STREAM-VAR", "MOLE-FLOW", "MASS-FLOW", "MOLE-FRAC", "MASS-FRAC"):
        raise UnsupportedOptionError(
            f"{where}.variable_type: {kind} is not sampled by the mock; use BLOCK-VAR, STREAM-VAR, "
            "MOLE-FLOW, MASS-FLOW, MOLE-FRAC or MASS-FRAC"
        )
    stream = item.get("stream")
    if stream not in streams:
        raise SpecificationError(f"{where}.stream: no stream {stream!r}")
    if kind == "STREAM-VAR":
        variable = str(item.get("variable") or "").upper()
        if variable not in STREAM_VARS:
            raise SpecificationError(
                f"{where}.variable: STREAM-VAR takes one of {', '.join(STREAM_VARS)}, not {variable!r}"
            )
        return Sampled(name, kind, stream=stream, variable=variable, where=where)
    component = item.get("component")
    if component is not None and component not in cids:
        raise SpecificationError(
            f"{where}.component: no component {component!r}", error_type="UnknownComponent"
        )
    if component is None and kind in ("MOLE-FRAC", "MASS-FRAC"):
        raise SpecificationError(f"{where}.component: {kind} needs a component")
    return Sampled(name, kind, stream=stream, component=component, where=where)


def _block_types(config: dict[str, Any]) -> dict[str, str]:
    return {b["name"]: b["type"] for b in config.get("blocks") or [] if isinstance(b, dict)}


def _manipulated(
    config: dict[str, Any], item: dict[str, Any], where: str
) -> tuple[str, str, tuple[str, ...]]:
    """(block, variable, config path of the value) of a manipulated block input."""
    kind = str(item["variable_type"]).upper()
    if kind != "BLOCK-VAR":
        raise UnsupportedOptionError(
            f"{where}.variable_type: {kind} is not varied by the mock: the service writes no stream or "
            "component for a manipulated variable (only VARYBLOCK / VARYVARIABLE); vary a block input "
            "(BLOCK-VAR)"
        )
    block = item.get("block")
    types = _block_types(config)
    if block not in types:
        raise SpecificationError(f"{where}.block: no block {block!r}")
    variable = str(item["variable_name"]).upper()
    section = f"blocks_{types[block]}_data"
    data = (config.get(section) or {}).get(block)
    if not isinstance(data, dict):
        raise SpecificationError(f"{where}.block: block {block} has no {section} entry to vary")
    wanted = {f"{variable}_VALUE", variable}
    found: list[tuple[str, ...]] = []

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key.upper() in wanted and isinstance(value, int | float) and not isinstance(value, bool):
                    found.append((*path, key))
                else:
                    walk(value, (*path, key))

    walk(data, (section, block))
    if len(found) != 1:
        what = "no numeric input" if not found else "several inputs: " + ", ".join(".".join(p) for p in found)
        raise SpecificationError(f"{where}.variable_name: {variable} matches {what} of block {block}")
    return block, variable, found[0]


class _Met(Exception):
    """Raised inside Brent's search once |EXPR1 - EXPR2| <= TOL."""

    def __init__(self, x: float) -> None:
        self.x = x


def solve_with_specs(
    config: dict[str, Any],
    specs: list[DesignSpec],
    run: Callable[[dict[str, Any]], tuple[Any, dict[str, Any], Callable[[], dict[str, list[list[Any]]]]]],
) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """Solve the flowsheet with every spec met.

    Args:
        config: the config (the manipulated variables at their initial values).
        specs: the parsed specs; the first is the outermost.
        run: solves one config -> (solved state, results document, result-sheet rows on demand).

    Returns:
        (solved state, results, the config with the final values of the manipulated variables).

    Raises:
        ConvergenceError: a spec cannot be met between its bounds (naming the spec and the bound values).
    """
    if not specs:
        state, results, _ = run(config)
        return state, results, config
    spec, inner = specs[0], specs[1:]
    last: dict[str, Any] = {}

    def f(x: float) -> float:
        trial = spec.set(config, x)
        try:
            state, results, trial = solve_with_specs(trial, inner, run)
        except SimulationError as exc:
            raise type(exc)(
                f"{spec.where}: with {spec.block}.{spec.variable} = {x:.6g}: {exc.message}",
                error_type=exc.error_type,
            ) from None
        sheets_cache: dict[str, Any] = {}

        def sheets() -> dict[str, list[list[Any]]]:
            if "rows" not in sheets_cache:
                sheets_cache["rows"] = last_sheets(trial, results)
            return sheets_cache["rows"]

        value = spec.objective(results, sheets)
        spec.evaluations += 1
        spec.history.append((x, value))
        last.update(state=state, results=results, config=trial, x=x, value=value)
        if abs(value) <= spec.tol:
            raise _Met(x)
        return value

    def last_sheets(trial: dict[str, Any], results: dict[str, Any]) -> dict[str, list[list[Any]]]:
        from simulator_mock.flowsheet.workbook import sheets as workbook_sheets

        return workbook_sheets(results, trial)

    from scipy.optimize import brentq

    try:
        start = spec.initial(config)
        if start is not None and spec.lower <= start <= spec.upper:
            f(start)
        f_lo = f(spec.lower)
        f_hi = f(spec.upper)
        if f_lo * f_hi > 0:
            raise ConvergenceError(
                f"{spec.where}: {spec.expr1.text} - ({spec.expr2.text}) does not change sign between "
                f"the bounds of {spec.block}.{spec.variable}: {f_lo:.6g} at LOWER {spec.lower:g}, "
                f"{f_hi:.6g} at UPPER "
                f"{spec.upper:g}; the target is not reachable in that range (widen the bounds or change the "
                "target)"
            )
        brentq(f, spec.lower, spec.upper, xtol=1e-12 * max(abs(spec.lower), abs(spec.upper), 1.0), maxiter=60)
    except _Met:
        return last["state"], last["results"], last["config"]
    raise ConvergenceError(
        f"{spec.where}: Brent's search on {spec.block}.{spec.variable} ended at {last['x']:.6g} with "
        f"EXPR1 - EXPR2 = {last['value']:.6g}, outside TOL {spec.tol:g}"
    )
