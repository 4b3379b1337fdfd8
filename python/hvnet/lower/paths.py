"""The paths the core is given: each NIC pair's routes over time, with what a payload byte costs.

A connection between two NICs goes over one of the pair's equal-cost routes
in force (`routing.py`): the cable out of the source NIC, the resources
between the two switches its cables meet, the cable into the target NIC.
Each resource is used `wire_bytes_per_payload_byte(MSS)` per payload byte
(`frames.py`), the MSS following the smaller MTU of the two NICs (and of a
VM at an end, for a path of its own: `Path.endpoint_mtu`); the sending and
receiving cores and vCPUs pay their cycles per byte at that MSS (`cpu.py`).

Three resources of capacity 0 stand in for what carries nothing: a pair
with no cabled path, a route with a switch that drops its full-size frames,
and a pair routing has no route left for while a failure cuts it; the
last two are held down from 0 s (`black_holes`, `changes.py`), so the run
reports what lands on them as black-holed.

A rolling update of 64 hosts records thousands of NIC pairs over a few
pairs of switches, so the routes between the switches, the frames' check
and the costs are made once per pair of switches, packet size and MSS (a
`specs.Middle`), and each pair's path names its middle and its own two
cables: the core puts each route of the middle between them
(`crates/python/src/paths.rs`). The pairs' own paths go as one table of
columns made in one pass (`specs.PathTable`: no object per pair), a pair
with no cabled path naming its one route among the table's few; the
framed pairs' paths go one by one (`specs.Path`), a virtual switch's
internal pair giving its one route as it is (`Path.routing`).
"""

from __future__ import annotations

from collections.abc import Sequence

from hvnet.calibration import CpuParameters
from hvnet.lower import frames, specs
from hvnet.lower.fabric import NIC_TO_NIC, Fabric, NicRoute, Port, SwitchRoutes
from hvnet.lower.routing import Routing

__all__ = ["Paths"]

#: Cycles per payload byte on the sending and receiving core and vCPU.
Costs = specs.Costs
#: What a path costs the cores and vCPUs without the CPU model: nothing.
_FREE: Costs = (0.0, 0.0, 0.0, 0.0)
#: The one route of a virtual switch's internal pair: no link on the way.
_INSIDE = (specs.Routes(0.0, ((),)),)


class Paths:
    """The NIC pairs recorded for the core and their paths (`specs.Path`), by NIC index."""

    def __init__(
        self,
        fabric: Fabric,
        routing: Routing,
        nic_ports: Sequence[Port],
        coalesces: Sequence[bool],
        cpu: CpuParameters | None,
        links_only: bool,
        black_hole: tuple[int, int, int],
    ) -> None:
        """`coalesces`: whether each NIC coalesces what it receives (RSC, `cpu.coalesces`); `cpu`: the
        cores' costs (None: no CPU model); `links_only`: every link at 1 byte per payload byte, no
        cost; `black_hole`: the resources of no cabled path, of frames dropped and of no route left."""
        self.fabric = fabric
        self.routing = routing
        self.nic_ports = list(nic_ports)
        self._mtu = [fabric.nic_mtu[port] for port in nic_ports]
        self.coalesces = list(coalesces)
        self.cpu = cpu
        self.links_only = links_only
        self.unreachable_resource, self.frames_dropped, self.no_route = black_hole
        out = [fabric.out_of.get(port) for port in nic_ports]
        into = [fabric.into.get(port) for port in nic_ports]
        #: The resource of the cable out of each NIC and into it, and the node at its other end (None: not cabled).
        self._out_cable = [None if d is None else d.resource for d in out]
        self._in_cable = [None if d is None else d.resource for d in into]
        self._up = [None if d is None else d.target.node for d in out]
        self._down = [None if d is None else d.source.node for d in into]
        #: The NIC each NIC's cable out goes straight to (-1: a switch, or not cabled).
        index = {port: i for i, port in enumerate(nic_ports)}
        self._peer = [-1 if d is None else index.get(d.target, -1) for d in out]
        #: The routes between the nodes two NICs' cables meet (`Routing.switch_routes`; None: not joined).
        self._between: dict[tuple[str | None, str | None], SwitchRoutes | None] = {}
        #: Those of the last two that a path given to the core goes through (held down from 0 s).
        self.black_holes: set[int] = set()
        #: Each NIC pair recorded: the routes between the switches its cables meet (`Routing.switch_routes`,
        #: shared); None when no cabled path joins them.
        self.pairs: dict[tuple[int, int], SwitchRoutes | None] = {}
        #: The NIC pairs' paths for connections whose endpoints send at most `mtu`: (a, b, mtu) -> its MSS.
        self.framed: dict[tuple[int, int, int], int] = {}
        #: The middles made for the core, and each one's index by its switches, packet size and use per byte.
        self._middles: list[specs.Middle] = []
        self._middle_index: dict[tuple[tuple[str, str] | None, int, float], int] = {}
        self._costs: dict[tuple[int, bool], Costs] = {}
        self._frames: dict[int, tuple[int, float]] = {}
        self._unreachable: dict[float, tuple[specs.Routes, ...]] = {}

    def add(self, a: int, b: int) -> bool:
        """Records the routes from NIC `a` to NIC `b`; whether a cabled path joins them."""
        key = (a, b)
        if key in self.pairs:
            return self.pairs[key] is not None
        if self._peer[a] == b:
            between: SwitchRoutes | None = NIC_TO_NIC
        else:  # as `Routing.nic_routes`, from the nodes each NIC's cables meet, once per two of them
            ends = (self._up[a], self._down[b])
            if ends in self._between:
                between = self._between[ends]
            else:
                up, down = ends
                joined = None if up is None or down is None else self.routing.switch_routes(up, down)
                between = self._between[ends] = joined
        self.pairs[key] = between
        return between is not None

    def negotiated_mtu(self, a: int, b: int) -> int:
        """The MTU both NICs' ends assume: the smaller NIC MTU."""
        return min(self._mtu[a], self._mtu[b])

    def add_framed(self, a: int, b: int, mtu: int) -> None:
        """Records the path from NIC `a` to NIC `b` for endpoints that send at most `mtu` bytes:
        the MSS of the smallest MTU on the way (theirs and the NICs')."""
        if (a, b, mtu) in self.framed or not self.add(a, b):
            return
        self.framed[(a, b, mtu)] = frames.mss(min(mtu, self.negotiated_mtu(a, b)))

    def path_specs(self) -> tuple[specs.PathTable, tuple[specs.Path, ...], tuple[specs.Middle, ...]]:
        """The path of every pair recorded, as one table in the order recorded (`specs.PathTable`); those
        of the framed pairs (`specs.Path`, in the order recorded); and the middles they name."""
        out_nic: list[int] = []
        in_nic: list[int] = []
        middle_of: list[int | None] = []
        routing_of: list[int | None] = []
        outs: list[int | None] = []
        ins: list[int | None] = []
        cost_of: list[int] = []
        routings: list[tuple[specs.Routes, ...]] = []
        costs: list[Costs] = []
        cost_index: dict[Costs, int] = {}
        #: What the pairs between two switches at one packet size (and RSC or not) share: their routing
        #: (no cabled path) or middle, and their costs, by index; by the `id` of their (kept) `SwitchRoutes`.
        shared: dict[tuple[int, int, bool], tuple[int | None, int | None, int]] = {}
        mtus, coalesces, out_cable, in_cable = self._mtu, self.coalesces, self._out_cable, self._in_cable
        for (a, b), between in self.pairs.items():
            packet, rsc = min(mtus[a], mtus[b]), coalesces[b]
            key = (id(between), packet, rsc)
            found = shared.get(key)
            if found is None:
                coefficient, cycles = self._per_byte(packet, rsc)
                cost = cost_index.get(cycles)
                if cost is None:
                    cost = cost_index[cycles] = len(costs)
                    costs.append(cycles)
                if between is None:
                    found = (None, len(routings), cost)
                    routings.append(self._unreachable_routes(coefficient))
                else:
                    found = (self._middle(between, packet, coefficient), None, cost)
                shared[key] = found
            middle, routing, cost = found
            out_nic.append(a)
            in_nic.append(b)
            middle_of.append(middle)
            routing_of.append(routing)
            cost_of.append(cost)
            if between is None:
                outs.append(None)
                ins.append(None)
            else:
                outs.append(out_cable[a])
                ins.append(None if between.switches is None else in_cable[b])
        table = specs.PathTable(
            tuple(out_nic),
            tuple(in_nic),
            tuple(middle_of),
            tuple(routing_of),
            tuple(outs),
            tuple(ins),
            tuple(cost_of),
            tuple(routings),
            tuple(costs),
        )
        framed = tuple(self._framed_spec(a, b, mtu, mss) for (a, b, mtu), mss in self.framed.items())
        return table, framed, tuple(self._middles)

    def _per_byte(self, packet: int, rsc: bool) -> tuple[float, Costs]:
        """Each link's use per payload byte of a pair's packets of `packet` bytes, and the cores' and
        vCPUs' cycles per payload byte (the target NIC coalescing, `rsc`, or not)."""
        if self.links_only:
            return 1.0, _FREE
        mss, coefficient = self._frame(packet)
        return coefficient, _FREE if self.cpu is None else self._cost(mss, rsc)

    def _framed_spec(self, a: int, b: int, mtu: int, mss: int) -> specs.Path:
        """The path of `add_framed`: the pair's routes at the MSS's overhead, and the cores' and vCPUs' costs at it."""
        rsc = b < len(self.coalesces) and self.coalesces[b]
        costs = _FREE if self.cpu is None else self._cost(mss, rsc)
        if a >= len(self.nic_ports):  # a virtual switch's internal pair: no link on the way
            return specs.Path(a, b, _INSIDE, *costs, mtu)
        packet = min(mtu, self.negotiated_mtu(a, b))
        coefficient = frames.wire_bytes_per_payload_byte(mss)
        return self._path(a, b, self.pairs[(a, b)], packet, coefficient, costs, mtu)

    def _path(
        self,
        a: int,
        b: int,
        between: SwitchRoutes | None,
        packet: int,
        coefficient: float,
        costs: Costs,
        endpoint_mtu: int | None = None,
    ) -> specs.Path:
        """The pair's two cables around the middle of `between` at `packet` bytes and `coefficient` per
        byte; no cabled path (`between` None): the no-cabled-path resource, the same for every such pair."""
        if between is None:
            return specs.Path(a, b, self._unreachable_routes(coefficient), *costs, endpoint_mtu)
        middle = self._middle(between, packet, coefficient)
        into = None if between.switches is None else self._in_cable[b]
        return specs.Path(a, b, (), *costs, endpoint_mtu, middle, self._out_cable[a], into)

    def _unreachable_routes(self, coefficient: float) -> tuple[specs.Routes, ...]:
        """The one route of a pair no cabled path joins: the no-cabled-path resource (made once)."""
        found = self._unreachable.get(coefficient)
        if found is None:
            found = self._unreachable[coefficient] = (
                specs.Routes(0.0, (((self.unreachable_resource, coefficient),),)),
            )
        return found

    def _middle(self, between: SwitchRoutes, packet: int, coefficient: float) -> int:
        """The index of the middle of `between` for the core, made once per pair of switches, packet size
        and use per byte: each link at `coefficient` per payload byte, a route with a switch that drops
        packets of `packet` bytes the frames-dropped resource alone, and no route at all the no-route
        resource between the pair's cables (both held down)."""
        key = (between.switches, packet, coefficient)
        index = self._middle_index.get(key)
        if index is None:
            routing = []
            for at, routes in between.between:
                ecmp = tuple(self._route(route, packet, coefficient) for route in routes)
                if not ecmp:  # the NICs' own cables, and no way between their switches
                    self.black_holes.add(self.no_route)
                    ecmp = (((self.no_route, 1.0),),)
                routing.append((at, ecmp))
            index = self._middle_index[key] = len(self._middles)
            self._middles.append(specs.Middle(tuple(routing), coefficient, ((self.frames_dropped, 1.0),)))
        return index

    def _route(self, route: NicRoute, packet: int, coefficient: float) -> specs.Route | None:
        if any(self.fabric.switch_mtu[s] < packet for s in route.switches):
            self.black_holes.add(self.frames_dropped)
            return None
        return tuple((r, coefficient) for r in route.resources)

    def _cost(self, mss: int, rsc: bool) -> Costs:
        """Cycles per payload byte on the sending and receiving core and vCPU at `mss`, made once."""
        key = (mss, rsc)
        found = self._costs.get(key)
        if found is None:
            assert self.cpu is not None
            send = self.cpu.send_cost()
            found = self._costs[key] = (send, self.cpu.receive_cost(mss, rsc), send, self.cpu.guest_receive_cost(mss))
        return found

    def _frame(self, packet: int) -> tuple[int, float]:
        """The MSS of packets of `packet` bytes, and each link's use per payload byte at it (once per size)."""
        found = self._frames.get(packet)
        if found is None:
            mss = frames.mss(packet)
            found = self._frames[packet] = (mss, frames.wire_bytes_per_payload_byte(mss))
        return found
