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
pairs of switches, so the part between the switches, the frames' check and
the costs are made once per pair of switches, packet size and MSS, and each
pair's path is that shared part between its own two cables.
"""

from __future__ import annotations

from collections.abc import Sequence

from hvnet.calibration import CpuParameters
from hvnet.lower import frames, specs
from hvnet.lower.fabric import Fabric, NicPath, NicRoute, Port
from hvnet.lower.routing import Routing

__all__ = ["Paths"]

#: Each route between two switches for the core at one packet size and use per byte: its
#: resources between the NICs' cables, or None where a switch on it drops the packets.
_Middles = tuple[tuple[float, tuple[specs.Route | None, ...]], ...]


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
        #: The cable out of each NIC and into it (None: not cabled).
        self._out = [fabric.out_of.get(port) for port in nic_ports]
        self._into = [fabric.into.get(port) for port in nic_ports]
        #: Those of the last two that a path given to the core goes through (held down from 0 s).
        self.black_holes: set[int] = set()
        #: Each NIC pair's routes over time (`Routing.nic_path`); None when no cabled path joins them.
        self.pairs: dict[tuple[int, int], NicPath | None] = {}
        #: The NIC pairs' paths for connections whose endpoints send at most `mtu`: (a, b, mtu) -> its MSS.
        self.framed: dict[tuple[int, int, int], int] = {}
        self._middles: dict[tuple[tuple[str, str] | None, int, float], _Middles] = {}
        self._costs: dict[tuple[int, bool], tuple[float, float, float, float]] = {}
        self._frames: dict[int, tuple[int, float]] = {}
        self._unreachable: dict[float, tuple[specs.Routes, ...]] = {}

    def add(self, a: int, b: int) -> bool:
        """Records the routes from NIC `a` to NIC `b`; whether a cabled path joins them."""
        key = (a, b)
        if key not in self.pairs:  # as `Routing.nic_path`, from each NIC's cable found once
            first, last = self._out[a], self._into[b]
            self.pairs[key] = None if first is None or last is None else self.routing.path(first, last)
        return self.pairs[key] is not None

    def negotiated_mtu(self, a: int, b: int) -> int:
        """The MTU both NICs' ends assume: the smaller NIC MTU."""
        return min(self._mtu[a], self._mtu[b])

    def add_framed(self, a: int, b: int, mtu: int) -> None:
        """Records the path from NIC `a` to NIC `b` for endpoints that send at most `mtu` bytes:
        the MSS of the smallest MTU on the way (theirs and the NICs')."""
        if (a, b, mtu) in self.framed or not self.add(a, b):
            return
        self.framed[(a, b, mtu)] = frames.mss(min(mtu, self.negotiated_mtu(a, b)))

    def path_specs(self) -> tuple[specs.Path, ...]:
        """The path of every pair recorded, then of every framed pair, in the order recorded."""
        return (
            *(self._path_spec(a, b) for a, b in self.pairs),
            *(self._framed_spec(a, b, mtu, mss) for (a, b, mtu), mss in self.framed.items()),
        )

    def routing_spec(self, a: int, b: int, packet: int, coefficient: float) -> tuple[specs.Routes, ...]:
        """The pair's routes over time for the core, each link at `coefficient` per payload byte: a
        route with a switch that drops packets of `packet` bytes goes through the frames-dropped
        resource, and no route at all through the no-route one (both held down)."""
        path = self.pairs.get((a, b))
        if path is None:  # the same for every such pair
            unreachable = self._unreachable.get(coefficient)
            if unreachable is None:
                unreachable = (specs.Routes(0.0, (((self.unreachable_resource, coefficient),),)),)
                self._unreachable[coefficient] = unreachable
            return unreachable
        head = ((path.out, coefficient),)
        tail = () if path.into is None else ((path.into, coefficient),)
        dropped = ((self.frames_dropped, 1.0),)  # a switch drops its full-size frames: black-holed
        out = []
        for at, middles in self._middle(path, packet, coefficient):
            ecmp = tuple(dropped if middle is None else head + middle + tail for middle in middles)
            if not ecmp:  # the NICs' own cables, and no way between their switches
                self.black_holes.add(self.no_route)
                ecmp = (((path.out, coefficient), (self.no_route, 1.0), *tail),)
            out.append(specs.Routes(at, ecmp))
        return tuple(out)

    def _middle(self, path: NicPath, packet: int, coefficient: float) -> _Middles:
        """The routes between the pair's switches at `coefficient` per byte, made once per pair of
        switches, packet size and coefficient."""
        key = (path.switches, packet, coefficient)
        found = self._middles.get(key)
        if found is None:
            found = self._middles[key] = tuple(
                (at, tuple(self._route(route, packet, coefficient) for route in routes)) for at, routes in path.between
            )
        return found

    def _route(self, route: NicRoute, packet: int, coefficient: float) -> specs.Route | None:
        if any(self.fabric.switch_mtu[s] < packet for s in route.switches):
            self.black_holes.add(self.frames_dropped)
            return None
        return tuple((r, coefficient) for r in route.resources)

    def _cost(self, mss: int, rsc: bool) -> tuple[float, float, float, float]:
        """Cycles per payload byte on the sending and receiving core and vCPU at `mss`, made once."""
        key = (mss, rsc)
        found = self._costs.get(key)
        if found is None:
            assert self.cpu is not None
            send = self.cpu.send_cost()
            found = self._costs[key] = (send, self.cpu.receive_cost(mss, rsc), send, self.cpu.guest_receive_cost(mss))
        return found

    def _framed_spec(self, a: int, b: int, mtu: int, mss: int) -> specs.Path:
        """The path of `add_framed`: the pair's routes at the MSS's overhead, and the cores' and vCPUs' costs at it."""
        if a >= len(self.nic_ports):  # a virtual switch's internal pair: no link on the way
            return self._costed_path(a, b, (specs.Routes(0.0, ((),)),), mss, endpoint_mtu=mtu)
        packet = min(mtu, self.negotiated_mtu(a, b))
        routing = self.routing_spec(a, b, packet, frames.wire_bytes_per_payload_byte(mss))
        return self._costed_path(a, b, routing, mss, endpoint_mtu=mtu)

    def _costed_path(
        self, a: int, b: int, routing: tuple[specs.Routes, ...], mss: int, endpoint_mtu: int | None = None
    ) -> specs.Path:
        """The sending and receiving cores' and vCPUs' cycles at `mss` on the pair's routes."""
        if self.cpu is None:
            return specs.Path(a, b, routing, 0.0, 0.0, 0.0, 0.0, endpoint_mtu)
        rsc = b < len(self.coalesces) and self.coalesces[b]
        return specs.Path(a, b, routing, *self._cost(mss, rsc), endpoint_mtu)

    def _path_spec(self, a: int, b: int) -> specs.Path:
        """The routes of a NIC pair with their use per payload byte, the
        cycles per payload byte on the sending and the receiving core, and
        on the sending and receiving VM's vCPU (where an end is a VM)."""
        packet = self.negotiated_mtu(a, b)
        if self.links_only:
            return specs.Path(a, b, self.routing_spec(a, b, packet, 1.0), 0.0, 0.0, 0.0, 0.0)
        mss, coefficient = self._frame(packet)
        routing = self.routing_spec(a, b, packet, coefficient)
        if self.cpu is None:
            return specs.Path(a, b, routing, 0.0, 0.0, 0.0, 0.0)
        return specs.Path(a, b, routing, *self._cost(mss, self.coalesces[b]))

    def _frame(self, packet: int) -> tuple[int, float]:
        """The MSS of packets of `packet` bytes, and each link's use per payload byte at it (once per size)."""
        found = self._frames.get(packet)
        if found is None:
            mss = frames.mss(packet)
            found = self._frames[packet] = (mss, frames.wire_bytes_per_payload_byte(mss))
        return found
