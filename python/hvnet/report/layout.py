r"""Where the design diagram puts things: a deterministic layout, read top to bottom::

    [spine]   [spine]            switches that reach only other switches: a row per tier
      [leaf]      [leaf]         switches cabled to NICs, each above the NICs it reaches
       1|  2|      1|  2|        cables; the switch end is a small box with the port number
    [hv1 nic nic][hv2 nic nic]   one row of hosts; a team is a frame around its members
        \___back-to-back___/     NICs cabled only to other NICs sit on the bottom edge

A design wider than the page in one row (`PAGE_WIDTH`: some eight hosts)
wraps instead (`lay_out`): its hosts in a grid of equal cells, in blocks of
the hosts cabled to the same lowest switches (a leaf's or a rack's hosts),
side by side when they fit, else one under the other; each switch still
above what it reaches::

    [spine]            [spine]
        [leaf1]           [leaf2]         a cable to the first row runs straight;
     |  |   |  |       |  |   |  |        to a lower row, down the street between
    [hv1][hv2][hv3] : [hv9][hv10][hv11]   two columns of hosts, then along the
   |[hv4][hv5][hv6] : [hv12] ...          channel above that row (`Layout.bends`)

A switch too narrow for its ports at their full width gets narrower ports
(`Layout.port_w`). Designs with NICs cabled back to back never wrap: their
arcs run under one row of hosts.

The same scenario always gives the same layout. Sizes are in SVG pixels
(`hvnet.report.shapes` holds them, the labels and the boxes placed here);
`hvnet.report.diagram` draws what this module places.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from hvnet.model import Host, Scenario, split_endpoint
from hvnet.report.shapes import (
    BLOCK_GAP,
    CABLE_ROOM,
    HOST_GAP,
    LANE,
    LINE,
    MARGIN,
    NIC_H,
    PAGE_WIDTH,
    PORT_H,
    PORT_W,
    SWITCH_GAP,
    SWITCH_H,
    TEAM_LABEL,
    TIER_GAP,
    Box,
    Cabling,
    Group,
    Layout,
    host_lines,
    switch_detail,
    text_width,
)

__all__ = ["lay_out"]


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


def _host_sizes(layout: Layout) -> tuple[dict[str, list[list[Group]]], dict[str, float], float]:
    """Each host's groups of NICs on its top and bottom edges and its width, and the height of
    every host (all alike); sets where a host's text starts."""
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
    edges, widths = {}, {}
    for host in scenario.hosts:
        edges[host.name] = [[g for g in all_groups[host.name] if g.bottom == bottom] for bottom in (False, True)]
        used = [_edge_width(edge) for edge in edges[host.name]]
        texts = [text_width(host.name, 13)] + [text_width(line, 10.5) for line in host_lines(scenario, host)]
        widths[host.name] = max([*used, *texts, 90.0]) + 24
    return edges, widths, height


def _edge_width(edge: list[Group]) -> float:
    return sum(g.width + 8 for g in edge) - 8


def _place_host(layout: Layout, host: Host, edges: list[list[Group]], box: Box) -> None:
    layout.hosts[host.name] = box
    for edge, bottom in zip(edges, (False, True)):
        x = box.x + (box.w - _edge_width(edge)) / 2
        _place_groups(layout, host, edge, x, box.y + (box.h if bottom else 0))


def _place_hosts(layout: Layout, top: float) -> None:
    """Puts the hosts in one row whose top edge is at `top`, all of the same height."""
    edges, widths, height = _host_sizes(layout)
    x = MARGIN
    for host in layout.cabling.scenario.hosts:
        _place_host(layout, host, edges[host.name], Box(x, top, widths[host.name], height))
        x += widths[host.name] + HOST_GAP


@dataclass
class _Cell:
    """Where a wrapped design put a host: its row (0 on top) and the streets left and right of it."""

    row: int
    left: float
    right: float


def _blocks(layout: Layout) -> list[list[Host]]:
    """The hosts in blocks of those cabled to the same switches, in the order they first come."""
    cabling = layout.cabling
    blocks: dict[tuple[str, ...], list[Host]] = {}
    order = {switch.name: i for i, switch in enumerate(cabling.scenario.switches)}
    for host in cabling.scenario.hosts:
        reached = {
            split_endpoint(cabling.peer[f"{host.name}/{nic.name}"])[0]
            for nic in host.nics
            if f"{host.name}/{nic.name}" in cabling.peer
        }
        blocks.setdefault(tuple(sorted(reached, key=lambda name: order.get(name, -1))), []).append(host)
    return list(blocks.values())


def _place_host_grid(layout: Layout, top: float) -> dict[str, _Cell]:
    """Puts the hosts in cells of one width, in rows under `top` that fit `PAGE_WIDTH`: a block of
    hosts cabled to the same switches (`_blocks`) per set of columns, the blocks side by side when
    they fit with a column each, else one under the other; a row leaves room for its cables."""
    edges, widths, height = _host_sizes(layout)
    width = max(widths.values())
    cell, room = width + HOST_GAP, PAGE_WIDTH - 2 * MARGIN
    columns = max(int((room + HOST_GAP) // cell), 1)
    blocks = _blocks(layout)

    def across(k: int) -> float:
        return sum(min(k, len(b)) * cell - HOST_GAP for b in blocks) + (len(blocks) - 1) * BLOCK_GAP

    side_by_side = [k for k in range(columns, 0, -1) if across(k) <= room]
    nics = max(len(host.nics) for host in layout.cabling.scenario.hosts)
    pitch = height + NIC_H / 2 + 2 * LANE + LANE * nics + 12  # a row, then its channel for cables
    cells: dict[str, _Cell] = {}
    x, row, lower = MARGIN, 0, 0.0
    for block in blocks:
        k = side_by_side[0] if side_by_side else columns
        for i, host in enumerate(block):
            left = x + (i % k) * cell
            box = Box(left, top + lower + (row + i // k) * pitch, width, height)
            _place_host(layout, host, edges[host.name], box)
            cells[host.name] = _Cell(row + i // k, left - HOST_GAP / 2, left + width + HOST_GAP / 2)
        if side_by_side:
            x += min(k, len(block)) * cell - HOST_GAP + BLOCK_GAP
        else:  # the next block under this one, a little apart
            row, lower = row + -(-len(block) // k), lower + BLOCK_GAP / 2
    return cells


def _route(layout: Layout, cells: dict[str, _Cell], top: float) -> None:
    """The turns of each cable from a switch to a NIC below the first row of a wrapped design: from
    the switch straight to the street beside the NIC's host on the switch's side, down the street,
    along the channel above the host's row (of a host's NICs, the farther from the street higher)
    and down into the NIC. In a street, cables side by side in the order they leave it, so that
    none crosses another there: those that leave to the left leftmost, the first to leave outermost."""
    cabling = layout.cabling
    streets: dict[float, list[tuple[int, float, str]]] = {}  # a street's cables: (row, NIC's x, NIC end)
    for nic, peer in cabling.peer.items():
        host = split_endpoint(nic)[0]
        if not cabling.is_nic(nic) or cabling.is_nic(peer) or cells[host].row == 0:
            continue
        cell = cells[host]
        street = cell.left if layout.centre(peer) <= layout.hosts[host].cx else cell.right
        streets.setdefault(round(street, 3), []).append((cell.row, layout.nics[nic][0].cx, nic))
    for street, cables in streets.items():

        def leaving(cable: tuple[int, float, str], street: float = street) -> tuple[int, float]:
            return cable[0], -abs(cable[1] - street)  # the first to leave: an upper row, a NIC farther away

        left = sorted((c for c in cables if c[1] < street), key=leaving)
        right = sorted((c for c in cables if c[1] >= street), key=leaving, reverse=True)
        spread = min(LANE, (HOST_GAP - 8) / len(cables))
        for i, (_, x, nic) in enumerate(left + right):
            host = split_endpoint(nic)[0]
            nearer = sum(
                1
                for _, other_x, other in cables
                if split_endpoint(other)[0] == host and abs(other_x - street) < abs(x - street)
            )
            channel = layout.nics[nic][0].y - 2 * LANE - nearer * LANE
            sx = street + (i - (len(cables) - 1) / 2) * spread
            layout.bends[nic] = [(sx, top - NIC_H / 2 - 2 * LANE), (sx, channel), (x, channel)]


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


def _place_switches(layout: Layout, hosts_top: float, cells: dict[str, _Cell] | None = None) -> None:
    """Rows of switches above the hosts: tier 0 nearest them, each switch above what it reaches.
    Above a wrapped design's `cells`, a row of switches fits `PAGE_WIDTH` (narrower ports, the row
    moved left) where it can, and the cables' turns are known before their ports are placed."""
    cabling = layout.cabling
    tiers = layout.tiers = cabling.switch_tiers()
    ports: dict[str, list[str]] = {name: [] for name in tiers}
    for end in cabling.peer:
        if not cabling.is_nic(end):
            ports[split_endpoint(end)[0]].append(end)
    for tier in range(max(tiers.values(), default=-1) + 1):
        y = hosts_top - CABLE_ROOM - SWITCH_H - tier * (SWITCH_H + TIER_GAP)
        _place_switch_row(layout, ports, tier, y, fit=cells is not None)
    if cells is not None:
        _route(layout, cells, hosts_top)
    _place_ports(layout, ports)


def _place_switch_row(layout: Layout, ports: dict[str, list[str]], tier: int, y: float, fit: bool) -> None:
    """The switches of `tier` in a row at `y`, each as near the centre of what it reaches below as
    the others allow; to `fit` the page, with narrower ports and moved left where needed."""
    cabling = layout.cabling
    row = []
    in_row = [switch for switch in cabling.scenario.switches if layout.tiers[switch.name] == tier]
    widest = (PAGE_WIDTH - 2 * MARGIN - (len(in_row) - 1) * SWITCH_GAP) / max(len(in_row), 1)
    for index, switch in enumerate(cabling.scenario.switches):
        if layout.tiers[switch.name] != tier:
            continue
        reached = [cabling.peer[end] for end in ports[switch.name]]
        below = [layout.centre(end) for end in reached if layout.tier(end) < tier]
        up = sum(1 for end in reached if layout.tier(end) >= tier)
        on_edge = max(up, len(reached) - up)
        if fit and (PORT_W + 4) * on_edge + 12 > widest:
            layout.port_w[switch.name] = max((widest - 12) / on_edge - 4, 2.0)
        pitch = layout.port_w.get(switch.name, PORT_W) + 4
        texts = [text_width(switch.name, 12), text_width(switch_detail(cabling.scenario, switch.name), 10.5)]
        width = max(max(texts) + 24, 120.0, pitch * on_edge + 12)
        row.append((sum(below) / len(below) if below else float("inf"), index, switch.name, width))
    widths = {name: width for _, _, name, width in row}
    placed = _spread(row)
    if fit and placed:  # moved left as far as the margin, if it reaches past the page
        right = max(x + widths[name] for name, x in placed)
        shift = max(min(right - (PAGE_WIDTH - MARGIN), min(x for _, x in placed) - MARGIN), 0.0)
        placed = [(name, x - shift) for name, x in placed]
    for name, x in placed:
        layout.switches[name] = Box(x, y, widths[name], SWITCH_H)


def _place_ports(layout: Layout, ports: dict[str, list[str]]) -> None:
    """Each switch's cabled ports side by side on its top edge (cables to its tier or above) and
    its bottom edge (below), in the order of what they reach, so that cables do not cross."""
    cabling = layout.cabling
    order = {end: i for i, end in enumerate(sorted((e for es in ports.values() for e in es), key=_port_order))}

    def side_by_side(end: str) -> tuple[float, int]:
        """Ports left to right as the ends they reach, so that cables do not cross: two cables
        between the same switches run parallel, or nest when they arc between switches of a row."""
        peer = cabling.peer[end]
        if peer in layout.bends:  # where it turns down a street
            return layout.bends[peer][0][0], 0
        if cabling.is_nic(peer):
            return layout.centre(peer), 0
        mine, theirs = layout.tier(end), layout.tier(peer)
        rank = min((mine, layout.centre(end), order[end]), (theirs, layout.centre(peer), order[peer]))[2]
        nest = mine == theirs and layout.centre(peer) < layout.centre(end)
        return layout.centre(peer), -rank if nest else rank

    for name, ends in ports.items():
        box = layout.switches[name]
        port_w = layout.port_w.get(name, PORT_W)
        for on_top in (True, False):
            edge = [e for e in ends if (layout.tier(cabling.peer[e]) >= layout.tiers[name]) == on_top]
            edge.sort(key=side_by_side)
            x = box.cx - ((port_w + 4) * len(edge) - 4) / 2
            for end in edge:
                layout.ports[end] = (x + port_w / 2, box.y if on_top else box.y + box.h, on_top)
                x += port_w + 4


def lay_out(scenario: Scenario) -> Layout:
    """Places the scenario's hosts, NICs, teams and switches, and the picture around them: in one
    row of hosts, or, if that is wider than `PAGE_WIDTH`, in rows that fit it (`_place_host_grid`)."""
    layout = _lay_out(scenario, wrap=False)
    cabling = layout.cabling
    back_to_back = any(cabling.is_nic(a) and cabling.is_nic(b) for a, b in cabling.peer.items())
    if layout.view.w > PAGE_WIDTH and len(scenario.hosts) > 1 and not back_to_back:
        return _lay_out(scenario, wrap=True)
    return layout


def _lay_out(scenario: Scenario, wrap: bool) -> Layout:
    layout = Layout(Cabling(scenario))
    hosts_top = MARGIN + NIC_H
    if scenario.switches:
        top_tier = max(layout.cabling.switch_tiers().values())
        hosts_top += CABLE_ROOM + SWITCH_H + top_tier * (SWITCH_H + TIER_GAP)
    if wrap:
        _place_switches(layout, hosts_top, _place_host_grid(layout, hosts_top))
    else:
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
