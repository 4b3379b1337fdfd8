"""The physical network as engine resources.

Every cable is full duplex: one resource per direction, with the capacity of
the slower end (or the cable's own speed). A switch with a stated backplane
adds one shared resource that all traffic through it uses; without one it is
non-blocking and adds nothing. A route from a NIC to a NIC is the cable out
of the source NIC, the cables between switches (which ones, and when, is
`routing.py`'s), and the cable into the destination NIC. Capacities are in
bytes per second, the engine's unit. The fabric also keeps each NIC's and
switch's MTU, for `frames.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from hvnet.model import Scenario
from hvnet.model.refs import parse_ref
from hvnet.units import bytes_per_s as to_bytes_per_s

__all__ = [
    "NIC_TO_NIC",
    "Direction",
    "Fabric",
    "NicRoute",
    "Port",
    "SwitchRoutes",
    "Timeline",
    "build_fabric",
    "fastest_link_bytes_per_s",
]


@dataclass(frozen=True)
class Port:
    """One end of a cable: a host's NIC or a switch port."""

    node: str
    port: str

    def __str__(self) -> str:
        return f"{self.node}/{self.port}"

    @classmethod
    def parse(cls, text: str) -> Port:
        """`hv1/nic1` -> Port("hv1", "nic1"), split as the model splits it (`model.refs`,
        which has checked it)."""
        ref = parse_ref(text)
        return cls(ref.node, ref.port)


@dataclass(frozen=True)
class Direction:
    """One direction of a cable, an engine resource."""

    resource: int
    source: Port
    target: Port


@dataclass(frozen=True)
class NicRoute:
    """One route from a NIC to a NIC: its resources (cables and backplanes) and the switches it crosses."""

    resources: tuple[int, ...]
    switches: tuple[str, ...]


#: A NIC pair's routes (or their parts between its two cables) from each time on (the first at 0;
#: an empty tuple: no route then), as `routing.Routing` finds them.
Timeline = tuple[tuple[float, tuple[NicRoute, ...]], ...]


class SwitchRoutes(NamedTuple):
    """The parts of NIC routes between two switches (`Routing.switch_routes`), shared by every NIC
    pair whose cables meet those two `switches`: each of a pair's routes is the cable out of its
    source NIC, a route of `between`, the cable into its target NIC (`NIC_TO_NIC`: the one cable)."""

    #: (ingress, egress); None: a cable from NIC to NIC.
    switches: tuple[str, str] | None
    between: Timeline


#: A cable from NIC to NIC: nothing between its two ends, one route.
NIC_TO_NIC = SwitchRoutes(None, ((0.0, (NicRoute((), ()),)),))


@dataclass
class Fabric:
    """Resources of the engine, and what each one is."""

    names: list[str] = field(default_factory=list)
    capacities: list[float] = field(default_factory=list)
    fatpipe: list[bool] = field(default_factory=list)
    #: The cable direction leaving each port.
    out_of: dict[Port, Direction] = field(default_factory=dict)
    #: The cable direction arriving at each port.
    into: dict[Port, Direction] = field(default_factory=dict)
    #: Switch name -> its backplane resource, when it has one.
    backplane: dict[str, int] = field(default_factory=dict)
    #: Switch name -> [(neighbour switch, direction towards it)].
    uplinks: dict[str, list[tuple[str, Direction]]] = field(default_factory=dict)
    switches: frozenset[str] = frozenset()
    #: The IP MTU of each NIC, and of each switch (the largest packet it forwards).
    nic_mtu: dict[Port, int] = field(default_factory=dict)
    switch_mtu: dict[str, int] = field(default_factory=dict)

    def add(self, name: str, bytes_per_s: float, fatpipe: bool = False) -> int:
        self.names.append(name)
        self.capacities.append(bytes_per_s)
        self.fatpipe.append(fatpipe)
        return len(self.names) - 1

    def peer(self, port: Port) -> Port | None:
        direction = self.out_of.get(port)
        return direction.target if direction else None

    def ends(self, source: Port, target: Port) -> tuple[Direction, Direction] | None:
        """The cable out of NIC `source` and the cable into NIC `target`; None when either is not
        cabled. A cable straight from NIC to NIC is both."""
        first, last = self.out_of.get(source), self.into.get(target)
        return None if first is None or last is None else (first, last)

    def between(self, ingress: str, hops: Sequence[Direction]) -> list[int]:
        """The resources of a route from a NIC to a NIC between its two cables (the one into switch
        `ingress`, the one out of the last switch): each switch's backplane and the cables between
        switches (`hops`)."""
        resources = []
        switch = ingress
        for direction in hops:
            if switch in self.backplane:
                resources.append(self.backplane[switch])
            resources.append(direction.resource)
            switch = direction.target.node
        if switch in self.backplane:
            resources.append(self.backplane[switch])
        return resources


def fastest_link_bytes_per_s(scenario: Scenario) -> float:
    """More than any one resource of the scenario moves in a second: its fastest cable or
    backplane in bytes/s, or its fastest core in cycles/s (every byte costs a core at least a
    cycle); 1 when it has none of them."""
    links = [to_bytes_per_s(scenario.cable_speed(c)) for c in scenario.cables]
    links += [to_bytes_per_s(s.backplane) for s in scenario.switches if s.backplane is not None]
    cores = [h.cpu.ghz * 1e9 for h in scenario.hosts]
    return max([*links, *cores], default=1.0)


def build_fabric(scenario: Scenario) -> Fabric:
    """Resources for every cable direction and every switch backplane."""
    fabric = Fabric(
        switches=frozenset(s.name for s in scenario.switches),
        nic_mtu={Port(h.name, n.name): n.mtu for h in scenario.hosts for n in h.nics},
        switch_mtu={s.name: s.mtu for s in scenario.switches},
    )
    for cable in scenario.cables:
        a, b = Port.parse(cable.a), Port.parse(cable.b)
        bytes_per_s = to_bytes_per_s(scenario.cable_speed(cable))
        for source, target in ((a, b), (b, a)):
            resource = fabric.add(f"{source} → {target}", bytes_per_s)
            direction = Direction(resource, source, target)
            fabric.out_of[source] = direction
            fabric.into[target] = direction
            if source.node in fabric.switches and target.node in fabric.switches:
                fabric.uplinks.setdefault(source.node, []).append((target.node, direction))
    for switch in scenario.switches:
        if switch.backplane is not None:
            fabric.backplane[switch.name] = fabric.add(f"{switch.name} backplane", to_bytes_per_s(switch.backplane))
    return fabric
