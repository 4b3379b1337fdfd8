r"""Where the design diagram puts things: a deterministic layout, read top to bottom::

    [spine]   [spine]            switches that reach only other switches: a row per tier
      [leaf]      [leaf]         switches cabled to NICs, each above the NICs it reaches
       1|  2|      1|  2|        cables; the switch end is a small box with the port number
    [hv1 nic nic][hv2 nic nic]   one row of hosts; a team is a frame around its members
        \___back-to-back___/     NICs cabled only to other NICs sit on the bottom edge

The same scenario always gives the same layout. Sizes are in SVG pixels, and
text widths are estimated (generously) from the number of characters.
`hvnet.report.diagram` draws what this module places.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from hvnet.model import AddressHash, Host, LoadBalancing, Scenario, Team, TeamingMode, split_endpoint
from hvnet.units import format_bitrate

__all__ = [
    "LINE",
    "NIC_H",
    "PORT_H",
    "PORT_W",
    "Box",
    "Cabling",
    "Group",
    "Layout",
    "arc_depth",
    "host_lines",
    "lay_out",
    "switch_detail",
    "team_lines",
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

    def arc_room(self, outwards: float) -> float:
        """How far the deepest arc reaches beyond the ends that face `outwards` (-1 up, 1 down)."""
        spans = [
            abs(self.anchor(a)[0] - self.anchor(b)[0])
            for a, b in self.cabling.peer.items()
            if self.anchor(a)[2] == self.anchor(b)[2] == outwards and (outwards < 0 or self.cabling.is_nic(a))
        ]
        return max((0.75 * arc_depth(span) + 20 for span in spans), default=0.0)


def _place_groups(layout: Layout, host: Host, groups: Iterable[Group], x: float, edge_y: float) -> None:
    for group in groups:
        label = TEAM_LABEL if group.team is not None else 0.0
        top = edge_y - NIC_H / 2 - 5 - (label if group.bottom else 0)
        layout.groups.append((host.name, group, Box(x, top, group.width, NIC_H + 10 + label)))
        nic_x = x + (group.width - group.members_width) / 2
        for name, width in zip(group.nics, group.widths):
            layout.nics[f"{host.name}/{name}"] = (Box(nic_x, edge_y - NIC_H / 2, width, NIC_H), group.bottom)
            nic_x += width + 4
        x += group.width + 8


def _place_hosts(layout: Layout, top: float) -> None:
    """Puts the hosts in one row whose top edge is at `top`, all of the same height."""
    scenario = layout.cabling.scenario
    all_groups = {host.name: layout.cabling.groups(host) for host in scenario.hosts}
    groups = [g for gs in all_groups.values() for g in gs]
    top_label = any(g.team is not None and not g.bottom for g in groups)
    bottom_label = any(g.team is not None and g.bottom for g in groups)
    layout.text_top = NIC_H / 2 + (TEAM_LABEL + 24 if top_label else 20)
    lines = max(len(host_lines(scenario, host)) for host in scenario.hosts) + 1
    height = layout.text_top + lines * LINE + 4
    if any(g.bottom for g in groups):
        height += NIC_H / 2 + 2 + (TEAM_LABEL if bottom_label else 0)
    x = MARGIN
    for host in scenario.hosts:
        edges = [[g for g in all_groups[host.name] if g.bottom == bottom] for bottom in (False, True)]
        used = [sum(g.width + 8 for g in edge) - 8 for edge in edges]
        texts = [text_width(host.name, 13)] + [text_width(line, 10.5) for line in host_lines(scenario, host)]
        width = max([*used, *texts, 90.0]) + 24
        layout.hosts[host.name] = Box(x, top, width, height)
        _place_groups(layout, host, edges[0], x + (width - used[0]) / 2, top)
        _place_groups(layout, host, edges[1], x + (width - used[1]) / 2, top + height)
        x += width + HOST_GAP


def _spread(row: list[tuple[float, int, str, float]]) -> list[tuple[str, float]]:
    """Left edges for boxes (wanted centre, scenario order, name, width) in a row: each as near
    its wanted centre as the boxes to its left allow; a box that wants nothing comes last."""
    placed: list[tuple[str, float]] = []
    right = MARGIN - SWITCH_GAP
    for wanted, _, name, width in sorted(row):
        x = max(right + SWITCH_GAP, MARGIN)
        if wanted != float("inf"):
            x = max(x, wanted - width / 2)
        placed.append((name, x))
        right = x + width
    return placed


def _port_order(end: str) -> tuple[str, int, str]:
    """Switch, then port number (numerically): tor1/2 before tor1/10."""
    switch, port = split_endpoint(end)
    return (switch, int(port), "") if port.isdigit() else (switch, -1, port)


def _place_switches(layout: Layout, hosts_top: float) -> None:
    """Rows of switches above the hosts: tier 0 nearest them, each switch above what it reaches."""
    cabling = layout.cabling
    tiers = layout.tiers = cabling.switch_tiers()
    ports: dict[str, list[str]] = {name: [] for name in tiers}
    for end in cabling.peer:
        if not cabling.is_nic(end):
            ports[split_endpoint(end)[0]].append(end)
    for tier in range(max(tiers.values(), default=-1) + 1):
        row = []
        for index, switch in enumerate(cabling.scenario.switches):
            if tiers[switch.name] == tier:
                reached = [cabling.peer[end] for end in ports[switch.name]]
                below = [layout.centre(end) for end in reached if layout.tier(end) < tier]
                up = sum(1 for end in reached if layout.tier(end) >= tier)
                texts = [text_width(switch.name, 12), text_width(switch_detail(cabling.scenario, switch.name), 10.5)]
                width = max(max(texts) + 24, 120.0, (PORT_W + 4) * max(up, len(reached) - up) + 12)
                row.append((sum(below) / len(below) if below else float("inf"), index, switch.name, width))
        y = hosts_top - CABLE_ROOM - SWITCH_H - tier * (SWITCH_H + TIER_GAP)
        widths = {name: width for _, _, name, width in row}
        for name, x in _spread(row):
            layout.switches[name] = Box(x, y, widths[name], SWITCH_H)

    order = {end: i for i, end in enumerate(sorted((e for es in ports.values() for e in es), key=_port_order))}

    def side_by_side(end: str) -> tuple[float, int]:
        """Ports left to right as the ends they reach, so that cables do not cross: two cables
        between the same switches run parallel, or nest when they arc between switches of a row."""
        peer = cabling.peer[end]
        if cabling.is_nic(peer):
            return layout.centre(peer), 0
        mine, theirs = layout.tier(end), layout.tier(peer)
        rank = min((mine, layout.centre(end), order[end]), (theirs, layout.centre(peer), order[peer]))[2]
        nest = mine == theirs and layout.centre(peer) < layout.centre(end)
        return layout.centre(peer), -rank if nest else rank

    for name, ends in ports.items():
        box = layout.switches[name]
        for on_top in (True, False):
            edge = [e for e in ends if (layout.tier(cabling.peer[e]) >= tiers[name]) == on_top]
            edge.sort(key=side_by_side)
            x = box.cx - ((PORT_W + 4) * len(edge) - 4) / 2
            for end in edge:
                layout.ports[end] = (x + PORT_W / 2, box.y if on_top else box.y + box.h, on_top)
                x += PORT_W + 4


def lay_out(scenario: Scenario) -> Layout:
    """Places the scenario's hosts, NICs, teams and switches, and the picture around them."""
    layout = Layout(Cabling(scenario))
    hosts_top = MARGIN + NIC_H
    if scenario.switches:
        top_tier = max(layout.cabling.switch_tiers().values())
        hosts_top += CABLE_ROOM + SWITCH_H + top_tier * (SWITCH_H + TIER_GAP)
    _place_hosts(layout, hosts_top)
    _place_switches(layout, hosts_top)
    boxes = [*layout.hosts.values(), *layout.switches.values()]
    right = max(box.x + box.w for box in boxes) + MARGIN
    bottom = max(box.y + box.h for box in layout.hosts.values())
    bottom += NIC_H / 2 if any(on_bottom for _, on_bottom in layout.nics.values()) else 0
    bottom += layout.arc_room(1.0) + MARGIN
    lift = layout.arc_room(-1.0)
    top = min([hosts_top - NIC_H, *(box.y - lift - PORT_H for box in layout.switches.values())]) - MARGIN / 2
    layout.view = Box(0, round(top), round(right), round(bottom - top))
    return layout
