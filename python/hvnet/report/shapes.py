"""What the design diagram is made of: its sizes, the labels of hosts, teams and switches, and the boxes
(`Box`, `Group`, `Layout`) that `hvnet.report.layout` places and `hvnet.report.diagram` draws. Sizes are in
SVG pixels; text widths are estimated (generously) from the number of characters."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from hvnet.model import AddressHash, Host, LoadBalancing, Scenario, Team, TeamingMode, split_endpoint
from hvnet.units import format_bitrate

__all__ = [
    "BLOCK_GAP",
    "CABLE_ROOM",
    "HOST_GAP",
    "LANE",
    "LINE",
    "MARGIN",
    "NIC_H",
    "PAGE_WIDTH",
    "PORT_H",
    "PORT_W",
    "SWITCH_GAP",
    "SWITCH_H",
    "TEAM_LABEL",
    "TIER_GAP",
    "Box",
    "Cabling",
    "Group",
    "Layout",
    "arc_depth",
    "host_lines",
    "switch_detail",
    "team_lines",
    "text_width",
]

MARGIN = 24.0
NIC_H = 30.0
PORT_W, PORT_H = 24.0, 16.0
SWITCH_H = 52.0
HOST_GAP, SWITCH_GAP = 32.0, 40.0
TIER_GAP = 90.0  # between two rows of switches
CABLE_ROOM = 120.0  # between the lowest switches and the hosts
TEAM_LABEL = 3 * 12.0 + 6  # three lines of team label under (or over) the NICs
LINE = 15.0
#: The widest a design is drawn in one row of hosts: the report's page (1320 px less its margins)
#: holds it without scrolling. A wider one wraps its hosts into rows.
PAGE_WIDTH = 1200.0
BLOCK_GAP = 64.0  # between two blocks of hosts in a wrapped design
LANE = 5.0  # between two cables side by side in a street or a channel of a wrapped design

_MODE = {TeamingMode.SWITCH_INDEPENDENT: "switch independent", TeamingMode.STATIC: "static", TeamingMode.LACP: "LACP"}
_HASH = {AddressHash.TRANSPORT_PORTS: "ports", AddressHash.IP_ADDRESSES: "IP", AddressHash.MAC_ADDRESSES: "MAC"}


def text_width(text: str, size: float) -> float:
    """A generous estimate of the width of `text` in a sans-serif font of `size` px."""
    return len(text) * size * 0.6


def team_lines(team: Team) -> list[str]:
    """The label of a team: name and kind, mode, load balancing."""
    algorithm = {
        LoadBalancing.ADDRESS_HASH: f"address hash ({_HASH[team.address_hash]})",
        LoadBalancing.HYPERV_PORT: "Hyper-V port",
        LoadBalancing.DYNAMIC: "dynamic",
    }[team.load_balancing]
    return [f"{team.name} ({team.kind.value.upper()})", _MODE[team.mode], algorithm]


def host_lines(scenario: Scenario, host: Host) -> list[str]:
    """What a host's box says under its name: processors, virtual switches, VMs."""
    cpu = host.cpu
    lines = [f"{cpu.sockets} × {cpu.cores_per_socket} cores · {cpu.ghz:g} GHz"]
    lines += [f"{v.name} → {v.uplink}" for v in host.vswitches]
    vms = scenario.vm_counts.get(host.name, 0)
    if vms:
        lines.append(f"{vms} VM" + ("s" if vms > 1 else ""))
    return lines


def switch_detail(scenario: Scenario, name: str) -> str:
    """``"48 ports × 10 Gbps"``."""
    switch = scenario.switch(name)
    speed = "" if switch.port_speed is None else f" × {format_bitrate(switch.port_speed)}"
    return f"{switch.ports} ports{speed}"


def arc_depth(span: float) -> float:
    """How far a cable between two ends facing the same way bulges out (its Bézier handles)."""
    return 30 + 0.12 * span


@dataclass
class Box:
    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self) -> float:
        return self.x + self.w / 2


@dataclass
class Group:
    """NICs side by side on one edge of a host: a team's members, or one NIC on its own."""

    team: Team | None
    nics: list[str]
    widths: list[float]
    bottom: bool  # on the bottom edge (all cabled back to back), else the top edge

    @property
    def members_width(self) -> float:
        return sum(self.widths) + 4 * (len(self.widths) - 1)

    @property
    def width(self) -> float:
        if self.team is None:
            return self.members_width
        return max(self.members_width, *(text_width(line, 10) for line in team_lines(self.team))) + 12


class Cabling:
    """The scenario's cables, indexed: ends as "device/port", and what each end is cabled to."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.host_names = {host.name for host in scenario.hosts}
        self.peer: dict[str, str] = {}
        for cable in scenario.cables:
            a, b = self.end(cable.a), self.end(cable.b)
            self.peer[a], self.peer[b] = b, a

    @staticmethod
    def end(text: str) -> str:
        """``"hv1 / nic1"`` -> ``"hv1/nic1"``."""
        device, port = split_endpoint(text)
        return f"{device}/{port}"

    def is_nic(self, end: str) -> bool:
        return split_endpoint(end)[0] in self.host_names

    def back_to_back(self, nic: str) -> bool:
        return nic in self.peer and self.is_nic(self.peer[nic])

    def groups(self, host: Host) -> list[Group]:
        """The host's NICs in scenario order, a team's members together where its first member is."""
        team_of = {member: team for team in host.teams for member in team.members}
        groups: list[Group] = []
        for nic in host.nics:
            team = team_of.get(nic.name)
            if team is not None and nic.name != team.members[0]:
                continue
            names = list(team.members) if team is not None else [nic.name]
            widths = [max(58.0, text_width(name, 11) + 12) for name in names]
            bottom = all(self.back_to_back(f"{host.name}/{name}") for name in names)
            groups.append(Group(team, names, widths, bottom))
        return groups

    def switch_tiers(self) -> dict[str, int]:
        """0 for switches cabled to a NIC (or to nothing), then one more per hop away from them."""
        neighbours: dict[str, list[str]] = {s.name: [] for s in self.scenario.switches}
        tiers: dict[str, int] = {}
        for a, b in self.peer.items():
            if not self.is_nic(a):
                if self.is_nic(b):
                    tiers[split_endpoint(a)[0]] = 0
                else:
                    neighbours[split_endpoint(a)[0]].append(split_endpoint(b)[0])
        queue = deque(name for name in neighbours if name in tiers)
        while queue:
            name = queue.popleft()
            for other in neighbours[name]:
                if other not in tiers:
                    tiers[other] = tiers[name] + 1
                    queue.append(other)
        return {name: tiers.get(name, 0) for name in neighbours}


@dataclass
class Layout:
    """Where everything is. Ends are "host/nic" and "switch/port"."""

    cabling: Cabling
    hosts: dict[str, Box] = field(default_factory=dict)
    groups: list[tuple[str, Group, Box]] = field(default_factory=list)  # host, group, frame
    nics: dict[str, tuple[Box, bool]] = field(default_factory=dict)  # box, on the bottom edge
    text_top: float = 0.0  # from a host's top edge to its name
    switches: dict[str, Box] = field(default_factory=dict)
    tiers: dict[str, int] = field(default_factory=dict)
    ports: dict[str, tuple[float, float, bool]] = field(default_factory=dict)  # centre x, y; on the top edge
    port_w: dict[str, float] = field(default_factory=dict)  # a switch's port boxes' width, if not PORT_W
    #: A wrapped design's cables to NICs below the first row: a NIC end's turns, from its switch's end on.
    bends: dict[str, list[tuple[float, float]]] = field(default_factory=dict)
    view: Box = field(default_factory=lambda: Box(0, 0, 0, 0))  # the whole picture

    def tier(self, end: str) -> int:
        """-1 for a NIC, else the tier of the switch."""
        return -1 if self.cabling.is_nic(end) else self.tiers[split_endpoint(end)[0]]

    def centre(self, end: str) -> float:
        """The x of a NIC, or of the centre of a switch (infinity while it is not placed)."""
        if end in self.nics:
            return self.nics[end][0].cx
        box = self.switches.get(split_endpoint(end)[0])
        return box.cx if box is not None else float("inf")

    def anchor(self, end: str) -> tuple[float, float, float]:
        """Where a cable meets `end`, and which way is outwards there (-1 up, 1 down)."""
        if end in self.nics:
            box, bottom = self.nics[end]
            return (box.cx, box.y + box.h, 1.0) if bottom else (box.cx, box.y, -1.0)
        x, y, on_top = self.ports[end]
        return (x, y - PORT_H / 2, -1.0) if on_top else (x, y + PORT_H / 2, 1.0)

    def route(self, a: str, b: str) -> list[tuple[float, float]]:
        """The points a straight cable from `a` to `b` passes: its ends, and its turns if it has any."""
        (ax, ay, _), (bx, by, _) = self.anchor(a), self.anchor(b)
        if b in self.bends:
            return [(ax, ay), *self.bends[b], (bx, by)]
        if a in self.bends:
            return [(ax, ay), *reversed(self.bends[a]), (bx, by)]
        return [(ax, ay), (bx, by)]

    def arc_room(self, outwards: float) -> float:
        """How far the deepest arc reaches beyond the ends that face `outwards` (-1 up, 1 down)."""
        spans = [
            abs(self.anchor(a)[0] - self.anchor(b)[0])
            for a, b in self.cabling.peer.items()
            if self.anchor(a)[2] == self.anchor(b)[2] == outwards and (outwards < 0 or self.cabling.is_nic(a))
        ]
        return max((0.75 * arc_depth(span) + 20 for span in spans), default=0.0)
