"""Typed simulation errors: each carries an error_type, an HTTP status and a message naming the culprit."""

from __future__ import annotations

from typing import Any, ClassVar


class SimulationError(Exception):
    """Base of every error the simulator reports as ``success: false``.

    Attributes:
        error_type: short machine-readable name, e.g. ``UnknownComponent``.
        status: HTTP status the service answers with (400 invalid input, 422 unsolvable).
        message: human-readable text naming the offending block, stream or field.
    """

    error_type: ClassVar[str] = "SimulationError"
    status: ClassVar[int] = 400

    def __init__(self, message: str, *, error_type: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if error_type is not None:
            self.error_type = error_type  # type: ignore[misc]

    def to_response(self) -> dict[str, Any]:
        """The JSON body the service returns for this error."""
        return {"success": False, "error_type": self.error_type, "error_message": self.message}


# ---- invalid input (HTTP 400) -------------------------------------------------------------------


class MalformedRequestError(SimulationError):
    """The body is not a JSON object."""

    error_type = "MalformedJSON"


class SchemaValidationError(SimulationError):
    """The config does not follow the JSON Schema served by /api/schema."""

    error_type = "SchemaValidationError"


class InvalidNumberError(SimulationError):
    """A NaN or infinite number in the config."""

    error_type = "InvalidNumber"


class UnknownUnitError(SimulationError):
    """A unit string that the simulator does not know for that quantity."""

    error_type = "UnknownUnit"

    def __init__(self, field: str, unit: str, valid: list[str]) -> None:
        where = f"{field}: " if field else ""
        super().__init__(f"{where}unknown unit {unit!r}; valid units: {', '.join(valid)}")


class UnknownComponentError(SimulationError):
    """A component that the thermodynamic database does not know."""

    error_type = "UnknownComponent"


class UnknownPropertyMethodError(SimulationError):
    """A property method name that is not supported."""

    error_type = "UnknownPropertyMethod"


class UnsupportedBlockTypeError(SimulationError):
    """A block type (or blocks_<Type>_data section) the simulator has no model for."""

    error_type = "UnsupportedBlockType"


class UnsupportedOptionError(SimulationError):
    """A value the real Aspen schema allows but the mock cannot simulate (e.g. FLOWBASE VOLUME, Heater
    SPEC_OPT DDPPARM); the message names the field and the value."""

    error_type = "UnsupportedOption"


class TopologyError(SimulationError):
    """Streams and blocks do not form a valid flowsheet (missing block, port, outlet, feed data)."""

    error_type = "TopologyError"


class SpecificationError(SimulationError):
    """A block or stream specification is missing, contradictory or out of its domain."""

    error_type = "InvalidSpecification"


class OutOfBoundsError(SimulationError):
    """A temperature, pressure or flow outside physical bounds."""

    error_type = "OutOfPhysicalBounds"


class ComponentDataError(SimulationError):
    """The database lacks a property the chosen method or block needs for a component."""

    error_type = "MissingComponentData"


# ---- valid input the simulation could not solve (HTTP 422) ---------------------------------------


class FlashError(SimulationError):
    """A phase-equilibrium calculation failed or did not converge."""

    error_type = "FlashFailed"
    status = 422


class InfeasibleSpecificationError(SimulationError):
    """A well-formed spec that no physical solution satisfies (reflux below minimum, temperature cross)."""

    error_type = "InfeasibleSpecification"
    status = 422


class ConvergenceError(SimulationError):
    """A recycle (tear streams) or a column did not converge within its iteration cap."""

    error_type = "NotConverged"
    status = 422


class TimeLimitError(SimulationError):
    """The simulation used up its time budget (the request timeout)."""

    error_type = "Timeout"
    status = 422


class BalanceError(SimulationError):
    """Mass or energy balance of a block or the flowsheet does not close."""

    error_type = "BalanceNotClosed"
    status = 422


class InternalError(SimulationError):
    """An unexpected failure inside the simulator, reported instead of a crash."""

    error_type = "InternalError"
    status = 422
