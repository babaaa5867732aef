"""Flowsheet topology: connection checks, calculation order and tear streams for recycle loops."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from simulator_mock.errors import TopologyError
from simulator_mock.flowsheet.blocks import Block


@dataclass
class Topology:
    """Who produces and who consumes every stream.

    Attributes:
        block_types: block name -> type, in config order.
        streams: declared stream names, in config order.
        inlets, outlets: block -> canonical port -> stream names.
        source: stream -> block producing it. sink: stream -> block consuming it.
    """

    block_types: dict[str, str]
    streams: list[str]
    inlets: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    outlets: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    source: dict[str, str] = field(default_factory=dict)
    sink: dict[str, str] = field(default_factory=dict)

    @property
    def feeds(self) -> list[str]:
        """Streams no block produces (they need stream_data)."""
        return [s for s in self.streams if s not in self.source]

    @property
    def products(self) -> list[str]:
        """Streams no block consumes."""
        return [s for s in self.streams if s not in self.sink]


@dataclass(frozen=True)
class Step:
    """One step of the calculation order: a single block, or a recycle loop with its tear streams."""

    blocks: tuple[str, ...]
    tears: tuple[str, ...] = ()


def _stream_names(config: dict[str, Any]) -> list[str]:
    names: list[str] = list(config["streams"])  # stream names (schema-valid: strings)
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise TopologyError(f"streams: stream {name} is declared twice", error_type="DuplicateName")
        seen.add(name)
    return names


def build_topology(config: dict[str, Any], classes: dict[str, type[Block]]) -> Topology:
    """Check the connections of a schema-valid config and index them.

    Raises:
        TopologyError: duplicate names, a connection to a missing block / stream / port, a stream with two
            producers or consumers, a port with too few or too many streams, an unconnected stream, a feed
            stream without stream_data, or no feed or no product stream at all. The error_type says which.
    """
    block_types: dict[str, str] = {}
    for block in config["blocks"]:
        if block["name"] in block_types:
            raise TopologyError(
                f"blocks: block {block['name']} is declared twice", error_type="DuplicateName"
            )
        block_types[block["name"]] = block["type"]
    topo = Topology(block_types, _stream_names(config))
    declared = set(topo.streams)
    for name in block_types:
        topo.inlets[name] = {}
        topo.outlets[name] = {}
    for block, connections in config["block_connections"].items():
        where = f"block_connections.{block}"
        if block not in block_types:
            raise TopologyError(
                f"{where}: no block named {block} (blocks: {', '.join(block_types)})",
                error_type="UnknownBlock",
            )
        cls = classes[block_types[block]]
        for stream, raw_port in connections.items():
            if stream not in declared:
                raise TopologyError(
                    f"{where}.{stream}: stream {stream} is not declared in streams",
                    error_type="UnknownStream",
                )
            port = cls.port_aliases.get(raw_port, raw_port)
            if port in cls.inlet_ports:
                side, owner = topo.inlets[block], topo.sink
            elif port in cls.outlet_ports:
                side, owner = topo.outlets[block], topo.source
            else:
                ports = ", ".join([*cls.inlet_ports, *cls.outlet_ports])
                raise TopologyError(
                    f"{where}.{stream}: {raw_port!r} is not a port of {cls.type_name} block {block} (ports: "
                    f"{ports})",
                    error_type="UnknownPort",
                )
            if stream in owner:
                role = "an inlet" if owner is topo.sink else "an outlet"
                raise TopologyError(
                    f"{where}.{stream}: stream {stream} is already {role} of block {owner[stream]}",
                    error_type="DuplicateConnection",
                )
            owner[stream] = block
            side.setdefault(port, []).append(stream)
    for block, block_type in block_types.items():
        _check_ports(block, classes[block_type], topo)
    for stream in topo.streams:
        if stream not in topo.source and stream not in topo.sink:
            raise TopologyError(
                f"streams: stream {stream} is not connected to any block (block_connections)",
                error_type="UnconnectedStream",
            )
    stream_data = config.get("stream_data", {})
    for stream in stream_data:
        if stream not in declared:
            raise TopologyError(f"stream_data.{stream}: no stream named {stream}", error_type="UnknownStream")
    _check_open(topo, stream_data)
    for stream in topo.feeds:
        if stream not in stream_data:
            raise TopologyError(
                f"stream {stream} enters block {topo.sink[stream]} but no block produces it and it has no "
                f"stream_data: give its conditions in stream_data.{stream}",
                error_type="MissingStreamData",
            )
    return topo


def _check_open(topo: Topology, stream_data: dict[str, Any]) -> None:
    """A flowsheet needs material in and out: a closed loop has no balance to close and no answer."""
    internal = ", ".join(
        f"{s} ({topo.source[s]} -> {topo.sink[s]})"
        for s in topo.streams
        if s in topo.sink and s in topo.source
    )
    if not topo.feeds:
        given = [s for s in stream_data if s in topo.source]
        hint = (
            f"; stream_data is given for {', '.join(given)} but block(s) "
            f"{', '.join(topo.source[s] for s in given)} produce it: connect it only as an inlet"
            if given
            else ""
        )
        raise TopologyError(
            "flowsheet has no feed stream: every stream is produced by a block, so no material enters "
            f"(streams {internal}){hint}",
            error_type="NoFeedStream",
        )
    if not topo.products:
        raise TopologyError(
            "flowsheet has no product stream: every stream enters a block, so no material leaves "
            f"(streams {internal}); give one block an outlet stream that no block consumes",
            error_type="NoProductStream",
        )


def _check_ports(block: str, cls: type[Block], topo: Topology) -> None:
    label = f"block {block} ({cls.type_name})"
    if not topo.outlets[block]:
        raise TopologyError(
            f"{label} has no outlet stream in block_connections", error_type="BlockWithoutOutlet"
        )
    if not topo.inlets[block]:
        raise TopologyError(
            f"{label} has no inlet stream in block_connections", error_type="BlockWithoutInlet"
        )
    for ports, side in ((cls.inlet_ports, topo.inlets[block]), (cls.outlet_ports, topo.outlets[block])):
        for port, (low, high) in ports.items():
            count = len(side.get(port, []))
            if count < low:
                raise TopologyError(
                    f"{label} needs {'at least ' if high is None else ''}{low} stream(s) on port {port}, "
                    f"has {count}",
                    error_type="MissingPort",
                )
            if high is not None and count > high:
                raise TopologyError(
                    f"{label} allows {high} stream(s) on port {port}, has {count}: {', '.join(side[port])}",
                    error_type="TooManyStreams",
                )


def calculation_order(topo: Topology, requested_tears: list[str]) -> tuple[list[Step], list[str]]:
    """Blocks in calculation order, recycle loops (strongly connected blocks) grouped with tear streams.

    Args:
        topo: checked topology.
        requested_tears: tear streams named in setup.convergence.tear_streams (may be empty).

    Returns:
        (steps, warnings).

    Raises:
        TopologyError: a requested tear stream is not inside a recycle loop.
    """
    warnings: list[str] = []
    graph: dict[str, list[tuple[str, str]]] = {b: [] for b in topo.block_types}
    for stream, src in topo.source.items():
        if stream in topo.sink:
            graph[src].append((topo.sink[stream], stream))
    components = _strongly_connected(graph)
    steps: list[Step] = []
    used: set[str] = set()
    for members in components:
        inside = set(members)
        internal = [(a, b, s) for a in members for b, s in graph[a] if b in inside]
        if not internal:
            steps.append(Step((members[0],)))
            continue
        tears = [s for a, b, s in internal if s in requested_tears]
        used.update(tears)
        order, extra = _order_loop(members, internal, set(tears), topo)
        if extra and requested_tears:
            warnings.append(
                f"tear stream(s) {', '.join(extra)} added: the requested tears do not break every cycle"
            )
        steps.append(Step(tuple(order), tuple(tears + extra)))
    unused = [s for s in requested_tears if s not in used]
    if unused:
        raise TopologyError(
            f"setup.convergence.tear_streams: {', '.join(unused)} not part of a recycle loop",
            error_type="InvalidTearStream",
        )
    return steps, warnings


def _strongly_connected(graph: dict[str, list[tuple[str, str]]]) -> list[list[str]]:
    """Tarjan's algorithm; components in topological order, members in config order."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    result: list[list[str]] = []
    position = {name: k for k, name in enumerate(graph)}
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for child, _ in edges:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(graph[child])))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                result.append(sorted(members, key=position.__getitem__))
    result.reverse()
    return result


def _order_loop(
    members: list[str], internal: list[tuple[str, str, str]], tears: set[str], topo: Topology
) -> tuple[list[str], list[str]]:
    """Order a loop's blocks; extra tears are the back edges of a DFS started at a block fed from outside."""
    inside = set(members)
    entries = [b for b in members if any(topo.source.get(s) not in inside for s in _inlets(topo, b))]
    start = entries[0] if entries else members[0]
    edges = {b: [(c, s) for a, c, s in internal if a == b and s not in tears] for b in members}
    state: dict[str, int] = {}
    postorder: list[str] = []
    extra: list[str] = []

    def visit(root: str) -> None:
        work = [(root, iter(edges[root]))]
        state[root] = 1
        while work:
            node, it = work[-1]
            for child, stream in it:
                if state.get(child) == 1:
                    extra.append(stream)
                elif child not in state:
                    state[child] = 1
                    work.append((child, iter(edges[child])))
                    break
            else:
                work.pop()
                state[node] = 2
                postorder.append(node)

    for root in [start, *members]:
        if root not in state:
            visit(root)
    return postorder[::-1], extra


def _inlets(topo: Topology, block: str) -> list[str]:
    return [s for streams in topo.inlets[block].values() for s in streams]
