"""Block contract (ports, spec parsing, run, results, schema part, result sheet), the block-type registry,
and helpers every block family shares."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from simulator_mock.errors import OutOfBoundsError, SpecificationError
from simulator_mock.flowsheet.streams import Stream, flash_stream
from simulator_mock.properties.property_package import PropertyPackage
from simulator_mock.properties.units import from_si, to_si

if TYPE_CHECKING:
    from simulator_mock.flowsheet.result_sheet import BlockView, ResultRow, Rows

#: Port cardinality: (minimum, maximum or None for unbounded).
Cardinality = tuple[int, int | None]


@dataclass
class BlockContext:
    """What a block needs from the flowsheet: the property package, component ids, a warnings sink."""

    package: PropertyPackage
    cids: list[str]
    warnings: list[str] = field(default_factory=list)
    #: the config's reaction sets (flowsheet.kinetics.ReactionSet by name), for kinetic reactors
    reactions: dict[str, Any] = field(default_factory=dict)

    def index(self, cid: str, where: str) -> int:
        """Position of component ``cid``; SpecificationError naming ``where`` when unknown."""
        try:
            return self.cids.index(cid)
        except ValueError:
            raise SpecificationError(
                f"{where}: unknown component id {cid!r}; components are {', '.join(self.cids)}"
            ) from None


#: Every block type the mock simulates: Aspen type name -> class, filled as block classes are defined
#: (:meth:`Block.__init_subclass__`). Read it through :func:`simulator_mock.flowsheet.blocks.block_classes`.
REGISTRY: dict[str, type[Block]] = {}


class Block(ABC):
    """A unit operation, and everything the service knows about its block type.

    A concrete subclass that sets ``type_name`` registers itself (as IDAES's ``declare_process_block_class``):
    the flowsheet's registry, the block-type enum and parts of the served schema, and the results workbook
    are all derived from the class, so adding a block type is adding one module under ``blocks/``. The class
    carries:

    - ``type_name`` (Aspen's block type), ``description`` (a sentence with its ports, used in the schema),
      ``listing_order`` (position in the served type list; new types go after the first twelve by name);
    - ``inlet_ports`` / ``outlet_ports`` with their cardinality, ``port_aliases``;
    - :meth:`schema_part`: its ``blocks_<Type>_data`` JSON Schema (built with ``schema_fields``);
    - :meth:`parse`: its specification read from the config entry; :meth:`run`: the outlets;
    - ``result_table`` (rows read straight from its results entry) or :meth:`result_rows` (computed rows):
      the Parameter / Value rows of its ``<BLOCK>_result`` sheet (Aspen's output names and units), and
      ``not_written``: the outputs the real export reads that it leaves out, with the reason.

    The flowsheet checks connections against the ports, then calls :meth:`run` with the inlet streams by port
    and stores the outlets it returns. After :meth:`run`, ``heat`` and ``work`` hold the heat and work the
    block exchanges with the surroundings [W] and :meth:`result` gives its results-document entry.
    ``pressure_enthalpy`` [W] is the enthalpy change of a liquid from its pressure change that the
    property model's liquid enthalpy leaves out (Pump, Valve with activity-coefficient methods): the
    block's energy balance is H_in + heat + work = H_out (model) + pressure_enthalpy.
    """

    type_name: ClassVar[str]
    description: ClassVar[str] = ""
    listing_order: ClassVar[int] = 1000
    not_written: ClassVar[dict[str, str]] = {}
    inlet_ports: ClassVar[dict[str, Cardinality]] = {"F(IN)": (1, None)}
    outlet_ports: ClassVar[dict[str, Cardinality]] = {"P(OUT)": (1, 1)}
    port_aliases: ClassVar[dict[str, str]] = {}
    data_required: ClassVar[bool] = True
    #: False when the real export writes no ``<BLOCK>_result`` sheet for the type (Dupl)
    result_sheet: ClassVar[bool] = True
    #: The ``<BLOCK>_result`` rows read straight from the results entry, in the real export's order
    result_table: ClassVar[tuple[ResultRow, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("type_name")
        if name is None:
            return  # an intermediate base class, not a block type
        known = REGISTRY.get(name)
        if known is not None and known.__qualname__ != cls.__qualname__:
            raise TypeError(f"block type {name!r} is defined twice: {known.__module__} and {cls.__module__}")
        if not cls.description:
            raise TypeError(f"block type {name!r} ({cls.__module__}) needs a description for its schema")
        REGISTRY[name] = cls

    def __init__(
        self,
        name: str,
        data: dict[str, Any] | None,
        ctx: BlockContext,
        inlets: dict[str, list[str]],
        outlets: dict[str, list[str]],
    ) -> None:
        self.name = name
        self.ctx = ctx
        self.inlets = inlets
        self.outlets = outlets
        self.heat = 0.0
        self.work = 0.0
        self.pressure_enthalpy = 0.0
        #: outlet copies the block creates beyond its feed (Dupl): the flowsheet balance counts them as
        #: sources, as Aspen leaves duplicates out of its balance
        self.copies: list[Stream] = []
        self.report: dict[str, Any] = {}
        if data is None and self.data_required:
            raise SpecificationError(
                f"block {name} ({self.type_name}) has no specification: add "
                f"blocks_{self.type_name}_data.{name}"
            )
        self.parse(data or {})

    @property
    def where(self) -> str:
        """Config path of this block's specification, for error messages."""
        return f"blocks_{self.type_name}_data.{self.name}"

    @property
    def package(self) -> PropertyPackage:
        """The flowsheet's property package."""
        return self.ctx.package

    @abstractmethod
    def parse(self, data: dict[str, Any]) -> None:
        """Read and check the block's specification (schema-valid already)."""

    @abstractmethod
    def run(self, feeds: dict[str, list[Stream]]) -> dict[str, Stream]:
        """Compute the outlet streams (keyed by stream name) from the inlet streams (keyed by port)."""

    @classmethod
    @abstractmethod
    def schema_part(cls) -> dict[str, Any]:
        """The block type's schema document: ``{"blocks_<Type>_data": {section schema}}``."""

    @classmethod
    def result_rows(cls, b: BlockView, rows: Rows) -> None:
        """Add the rows of the ``<BLOCK>_result`` sheet from the block's results view ``b``: by default those
        of :attr:`result_table`; a block with computed rows overrides this."""
        rows.add_entries(b.doc, cls.result_table)

    def finalize(self) -> None:
        """Work that only reports on the solved state and changes no outlet (a profile, a check): the
        flowsheet calls it once after every block and recycle loop has converged, so that recycle iterations
        do not repeat it. Default: nothing."""
        return None

    def result(self, outlets: dict[str, Stream]) -> dict[str, Any]:
        """Results-document entry; common fields plus what :meth:`run` put in ``self.report``."""
        main = self.primary_outlet(outlets)
        return {
            "type": self.type_name,
            "duty_kW": self.heat / 1000.0,
            "power_kW": self.work / 1000.0,
            "outlet_temperature_C": from_si(main.T, "temperature") if main else None,
            "outlet_pressure_bar": from_si(main.P, "pressure") if main else None,
            **self.report,
        }

    def primary_outlet(self, outlets: dict[str, Stream]) -> Stream | None:
        """The outlet whose conditions the common result fields report (first outlet by default)."""
        for port in self.outlet_ports:
            for name in self.outlets.get(port, []):
                return outlets[name]
        return None

    # ---- helpers for subclasses ------------------------------------------------------------------

    def outlet_name(self, port: str) -> str:
        """Name of the single stream on ``port``."""
        return self.outlets[port][0]

    def mixed(self, streams: list[Stream]) -> Mixed:
        """The feed streams merged (no flash until a state is needed)."""
        return Mixed(self, streams)

    def pressure(self, value: float, units: str | None, field_name: str, reference: float) -> float:
        """Outlet pressure [Pa] from an Aspen-style spec: > 0 absolute, <= 0 a drop below ``reference``."""
        if value > 0:
            return to_si(value, units, "pressure", f"{self.where}.{field_name}")
        P = reference + to_si(value, units, "pressure", f"{self.where}.{field_name}")
        if P <= 0:
            raise OutOfBoundsError(
                f"{self.where}.{field_name}: pressure drop {-value:g} {units or 'bar'} exceeds the inlet "
                "pressure "
                f"{reference / 1e5:.6g} bar"
            )
        return P

    def flash(self, name: str, flows: np.ndarray, what: str, **spec: float) -> Stream:
        """Flash outlet ``name`` of this block; errors name the block and ``what``."""
        return flash_stream(self.package, name, flows, f"block {self.name} {what}", **spec)


def given(value: float | None, field_name: str) -> float:
    """A spec value that parsing has already required for the chosen option (its absence is a bug here).

    Raises:
        AssertionError: ``value`` is None, which parse-time checks should have refused.
    """
    if value is None:
        raise AssertionError(f"{field_name}: a value the chosen option needs is missing after parsing")
    return value


class Mixed:
    """The merged feed of a block: summed flows and enthalpy, lowest pressure, state on demand."""

    def __init__(self, block: Block, streams: list[Stream]) -> None:
        self.block = block
        self.streams = [s for s in streams if not s.empty]
        # a block always has at least one feed (T_hint below reads the first), so the sum is an array
        self.flows: np.ndarray = np.sum([s.flows for s in streams], axis=0)
        self.H_total = float(sum(s.enthalpy_flow for s in self.streams))
        self.P = min(s.P for s in (self.streams or streams))  # an empty stream sets no pressure
        self._stream: Stream | None = self.streams[0] if len(self.streams) == 1 else None
        if self._stream is not None and self._stream.P != self.P:
            self._stream = None
        self.T_hint = streams[0].T

    @property
    def total(self) -> float:
        """Total molar flow [mol/s]."""
        return float(self.flows.sum())

    @property
    def empty(self) -> bool:
        """True when no feed carries material."""
        return not self.streams

    def stream(self) -> Stream:
        """The feed as one stream at the lowest inlet pressure (adiabatic mixing; flashed if needed)."""
        if self._stream is None:
            if self.empty:
                self._stream = Stream("feed", self.flows, self.T_hint, self.P, None)
            else:
                self._stream = self.block.flash(
                    "feed", self.flows, "mixed feed", P=self.P, H=self.H_total / self.total
                )
        return self._stream

    @property
    def T(self) -> float:
        """Temperature of the mixed feed [K]."""
        return self.stream().T
