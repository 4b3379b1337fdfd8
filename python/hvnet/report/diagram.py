"""The design as a picture: an SVG of hosts, NICs, teams, switches and cables.

`hvnet.report.layout` places things; this module draws them. Each element
carries a ``data-*`` attribute with its scenario name (``data-host="hv1"``,
``data-nic="hv1/nic1"``, ``data-team="hv1/team1"``, ``data-switch="s4810"``,
``data-port="s4810/1"``, ``data-cable="hv1/nic1 s4810/1"``), for tests and
style sheets, and a ``<title>`` that browsers show as a tooltip. The style
sheet is inside the SVG, so the picture also stands on its own.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from hvnet.model import Scenario, split_endpoint
from hvnet.report.layout import lay_out
from hvnet.report.shapes import (
    LINE,
    NIC_H,
    PORT_H,
    PORT_W,
    Box,
    Layout,
    arc_depth,
    host_lines,
    switch_detail,
    team_lines,
    text_width,
)
from hvnet.units import format_bitrate

__all__ = ["design_svg"]

_STYLE = """
text { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; fill: #1f2933; }
.host > rect { fill: #f5f7fa; stroke: #52606d; stroke-width: 1.2; }
.host-name { font-size: 13px; font-weight: 600; }
.host-detail, .switch-detail { font-size: 10.5px; fill: #52606d; }
.team > rect { fill: #e3edf9; stroke: #2f6fb0; stroke-width: 1.2; stroke-dasharray: 5 3; }
.team text { font-size: 10px; fill: #1d4f85; }
.team .team-name { font-weight: 600; }
.nic > rect { fill: #ffffff; stroke: #2f6fb0; stroke-width: 1.2; }
.nic.standby > rect { stroke-dasharray: 3 2; }
.nic.uncabled > rect { stroke: #9aa5b1; fill: #f0f2f5; }
.nic-name { font-size: 11px; font-weight: 600; }
.nic-speed { font-size: 9px; fill: #52606d; }
.switch > rect { fill: #334e68; stroke: #243b53; }
.switch .switch-name { font-size: 12px; font-weight: 600; fill: #ffffff; }
.switch .switch-detail { fill: #d9e2ec; }
.port > rect { fill: #ffffff; stroke: #334e68; }
.port text { font-size: 9px; }
.cable { fill: none; stroke: #7b8794; stroke-width: 1.4; }
.cable.back-to-back { stroke: #c05a00; stroke-width: 1.6; }
.cable-label { font-size: 10px; fill: #c05a00; }
"""


def _text(x: float, y: float, text: str, css: str) -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="middle" class="{css}">{escape(text)}</text>'


def _rect(box: Box, rx: float = 3) -> str:
    return f'<rect x="{box.x:.1f}" y="{box.y:.1f}" width="{box.w:.1f}" height="{box.h:.1f}" rx="{rx}"/>'


def _group(css: str, attribute: str, name: str, tooltip: str, *parts: str) -> str:
    return f'<g class="{css}" {attribute}={quoteattr(name)}><title>{escape(tooltip)}</title>{"".join(parts)}</g>'


def _hosts(layout: Layout) -> list[str]:
    scenario = layout.cabling.scenario
    out = []
    for host in scenario.hosts:
        box = layout.hosts[host.name]
        y = box.y + layout.text_top
        lines = [_text(box.cx, y, host.name, "host-name")]
        details = host_lines(scenario, host)
        lines += [_text(box.cx, y + (i + 1) * LINE, line, "host-detail") for i, line in enumerate(details)]
        out.append(_group("host", "data-host", host.name, host.name, _rect(box, 6), *lines))
    return out


def _teams_and_nics(layout: Layout) -> list[str]:
    scenario = layout.cabling.scenario
    out = []
    for host_name, group, frame in layout.groups:
        team = group.team
        if team is not None:
            label_y = frame.y + 14 if group.bottom else frame.y + NIC_H + 22
            styles = ["team-name", "team-mode", "team-mode"]
            label = [_text(frame.cx, label_y + i * 12, line, styles[i]) for i, line in enumerate(team_lines(team))]
            name = f"{host_name}/{team.name}"
            out.append(_group("team", "data-team", name, f"{name}: {', '.join(team.members)}", _rect(frame, 5), *label))
        for nic_name in group.nics:
            nic = scenario.host(host_name).nic(nic_name)
            end = f"{host_name}/{nic_name}"
            box = layout.nics[end][0]
            tooltip = f"{end}: {format_bitrate(nic.speed)}, MTU {nic.mtu}" + (", RDMA" if nic.rdma else "")
            css = "nic"
            if team is not None and team.standby == nic_name:
                css, tooltip = css + " standby", tooltip + " (standby)"
            if end not in layout.cabling.peer:
                css, tooltip = css + " uncabled", tooltip + " (not cabled)"
            name = _text(box.cx, box.y + 13, nic_name, "nic-name")
            speed = _text(box.cx, box.y + 25, format_bitrate(nic.speed), "nic-speed")
            out.append(_group(css, "data-nic", end, tooltip, _rect(box), name, speed))
    return out


def _switches(layout: Layout) -> list[str]:
    scenario = layout.cabling.scenario
    out = []
    for switch in scenario.switches:
        box = layout.switches[switch.name]
        parts = [
            _rect(box, 4),
            _text(box.cx, box.y + 25, switch.name, "switch-name"),
            _text(box.cx, box.y + 40, switch_detail(scenario, switch.name), "switch-detail"),
        ]
        port_w = layout.port_w.get(switch.name, PORT_W)
        for end, (x, y, _) in layout.ports.items():
            device, port = split_endpoint(end)
            if device == switch.name:
                port_box = _rect(Box(x - port_w / 2, y - PORT_H / 2, port_w, PORT_H), 2 if port_w > 8 else 1)
                # a number that does not fit its box is left to the tooltip
                number = [_text(x, y + 3.5, port, "port-number")] if text_width(port, 9) <= port_w else []
                parts.append(_group("port", "data-port", end, end, port_box, *number))
        out.append(_group("switch", "data-switch", switch.name, switch.name, *parts))
    return out


def _cables(layout: Layout) -> list[str]:
    cabling = layout.cabling
    out = []
    for cable in cabling.scenario.cables:
        a, b = cabling.end(cable.a), cabling.end(cable.b)
        (ax, ay, a_out), (bx, by, b_out) = layout.anchor(a), layout.anchor(b)
        back_to_back = cabling.is_nic(a) and cabling.is_nic(b)
        label = ""
        if a_out == b_out:  # both ends face the same way: an arc outwards
            depth = arc_depth(abs(bx - ax))
            handles = f"{ax:.1f},{ay + a_out * depth:.1f} {bx:.1f},{by + b_out * depth:.1f}"
            path = f"M{ax:.1f},{ay:.1f} C{handles} {bx:.1f},{by:.1f}"
            if back_to_back:
                label = _text((ax + bx) / 2, (ay + by) / 2 + a_out * (0.75 * depth + 12), "back-to-back", "cable-label")
        else:  # straight, or with turns down a street of a wrapped design
            path = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in layout.route(a, b))
        css = "cable back-to-back" if back_to_back else "cable"
        tooltip = f"{a} — {b}: {format_bitrate(cabling.scenario.cable_speed(cable))}"
        out.append(
            f"<g data-cable={quoteattr(f'{a} {b}')}><title>{escape(tooltip)}</title>"
            f'<path class="{css}" d="{path}"/>{label}</g>'
        )
    return out


def design_svg(scenario: Scenario) -> str:
    """The scenario's hosts, NICs, teams, switches and cables as a standalone SVG document."""
    layout = lay_out(scenario)
    view = layout.view
    body = _cables(layout) + _hosts(layout) + _teams_and_nics(layout) + _switches(layout)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="design" width="{view.w:.0f}" height="{view.h:.0f}" '
        f'viewBox="{view.x:.0f} {view.y:.0f} {view.w:.0f} {view.h:.0f}" role="img" '
        f"aria-label={quoteattr(f'Design of {scenario.name}')}>"
        f"<style>{_STYLE}</style>\n" + "\n".join(body) + "\n</svg>"
    )
