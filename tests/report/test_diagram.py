"""The design drawn as SVG: everything of the scenario is in the picture, and nothing overlaps.

The SVG's elements carry the scenario's names (`data-host`, `data-nic`,
`data-team`, `data-switch`, `data-port`, `data-cable`), which is what these
tests look for. tests/golden/report/failover-design.svg is the failover example's picture, as
a person looked at it in a browser (`pytest --update-golden` rewrites it).
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable

from hvnet import Scenario, parse_scenario
from hvnet.report.diagram import design_svg
from hvnet.report.shapes import PAGE_WIDTH
from hvnet.topology import leaf_spine

SVG = "{http://www.w3.org/2000/svg}"
CheckGolden = Callable[[str, str], None]

SWITCHLESS = """
name: Three hosts, storage back to back, two switches with a peer link
hosts:
  - name: hv1
    nics: [{name: nic1, speed: 25Gbps}, {name: nic2, speed: 25Gbps}, {name: smb1, speed: 25Gbps},
           {name: smb2, speed: 25Gbps}, {name: mgmt, speed: 1Gbps}]
    teams: [{name: SET, kind: set, members: [nic1, nic2], load_balancing: hyperv_port}]
  - name: hv2
    nics: [{name: nic1, speed: 25Gbps}, {name: nic2, speed: 25Gbps}, {name: smb1, speed: 25Gbps},
           {name: smb2, speed: 25Gbps}]
    teams: [{name: SET, kind: set, members: [nic1, nic2], load_balancing: hyperv_port}]
  - name: hv3
    nics: [{name: nic1, speed: 25Gbps}, {name: nic2, speed: 25Gbps}, {name: smb1, speed: 25Gbps},
           {name: smb2, speed: 25Gbps}]
    teams:
      - {name: LACP, members: [nic1, nic2], mode: lacp, load_balancing: address_hash, address_hash: ip_addresses}
      - {name: storage, members: [smb1, smb2], mode: static}
switches: [{name: tor1, stack: mlag1}, {name: tor2, stack: mlag1}]
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: hv1/nic2, b: tor2/1}
  - {a: hv2/nic1, b: tor1/2}
  - {a: hv2/nic2, b: tor2/2}
  - {a: hv3/nic1, b: tor1/3}
  - {a: hv3/nic2, b: tor2/3}
  - {a: tor1/47, b: tor2/47, speed: 100Gbps}
  - {a: tor1/48, b: tor2/48, speed: 100Gbps}
  - {a: hv1/smb1, b: hv2/smb1}
  - {a: hv1/smb2, b: hv3/smb1}
  - {a: hv2/smb2, b: hv3/smb2}
"""


def parse(svg: str) -> ET.Element:
    """The SVG as XML: parsing it is the first check."""
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def named(root: ET.Element, attribute: str) -> dict[str, ET.Element]:
    """The elements that carry `attribute`, by its value."""
    return {e.attrib[attribute]: e for e in root.iter() if attribute in e.attrib}


def texts(element: ET.Element) -> list[str]:
    return [t.text or "" for t in element.iter(f"{SVG}text")]


def box(element: ET.Element) -> tuple[float, float, float, float]:
    """x, y, width, height of a group's own rectangle (its first)."""
    rect = element.find(f"{SVG}rect")
    assert rect is not None
    return tuple(float(rect.attrib[k]) for k in ("x", "y", "width", "height"))  # type: ignore[return-value]


def overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def endpoint(text: str) -> str:
    device, _, port = text.partition("/")
    return f"{device.strip()}/{port.strip()}"


def test_every_host_nic_team_switch_and_cable_of_the_example_is_drawn(failover_scenario: Scenario) -> None:
    root = parse(design_svg(failover_scenario))
    hosts = named(root, "data-host")
    assert sorted(hosts) == ["hv1", "hv2"]
    for host in failover_scenario.hosts:
        assert host.name in texts(hosts[host.name])
    nics = named(root, "data-nic")
    assert sorted(nics) == sorted(f"{h.name}/{n.name}" for h in failover_scenario.hosts for n in h.nics)
    for name, nic in nics.items():
        assert name.split("/")[1] in texts(nic) and "10 Gbps" in texts(nic)
    teams = named(root, "data-team")
    assert sorted(teams) == ["hv1/team1", "hv2/team1"]
    for team in teams.values():
        assert texts(team) == ["team1 (LBFO)", "switch independent", "dynamic"]
    switches = named(root, "data-switch")
    assert list(switches) == ["s4810"]
    assert texts(switches["s4810"])[:2] == ["s4810", "48 ports × 10 Gbps"]
    ports = named(root, "data-port")
    assert sorted(ports) == ["s4810/1", "s4810/2", "s4810/3", "s4810/4"]
    assert [texts(p) for p in ports.values()] == [["1"], ["2"], ["3"], ["4"]]
    cables = named(root, "data-cable")
    assert sorted(cables) == sorted(f"{endpoint(c.a)} {endpoint(c.b)}" for c in failover_scenario.cables)
    for cable in cables.values():
        path = cable.find(f"{SVG}path")
        assert path is not None and path.attrib["class"] == "cable"


def test_the_example_picture_is_unchanged(failover_scenario: Scenario, golden: CheckGolden) -> None:
    golden("report/failover-design.svg", design_svg(failover_scenario) + "\n")


def test_back_to_back_cables_are_drawn_as_arcs_below_the_hosts() -> None:
    scenario = parse_scenario(SWITCHLESS, "switchless.yaml")
    root = parse(design_svg(scenario))
    cables = named(root, "data-cable")
    assert len(cables) == len(scenario.cables)
    back_to_back = {name: c for name, c in cables.items() if "/smb" in name}
    assert sorted(back_to_back) == ["hv1/smb1 hv2/smb1", "hv1/smb2 hv3/smb1", "hv2/smb2 hv3/smb2"]
    host_bottom = max(box(h)[1] + box(h)[3] for h in named(root, "data-host").values())
    for cable in back_to_back.values():
        path = cable.find(f"{SVG}path")
        assert path is not None and path.attrib["class"] == "cable back-to-back"
        assert path.attrib["d"].startswith("M") and " C" in path.attrib["d"]
        assert "back-to-back" in texts(cable)
        start_y = float(path.attrib["d"][1:].split(" ")[0].split(",")[1])
        assert start_y > host_bottom, "a back-to-back NIC sits on the bottom edge of its host"
    # The peer link between the switches, and the team of back-to-back NICs.
    assert {"tor1/47 tor2/47", "tor1/48 tor2/48"} <= set(cables)
    assert texts(named(root, "data-team")["hv3/storage"]) == ["storage (LBFO)", "static", "dynamic"]
    assert texts(named(root, "data-team")["hv3/LACP"]) == ["LACP (LBFO)", "LACP", "address hash (IP)"]
    assert "uncabled" in named(root, "data-nic")["hv1/mgmt"].attrib["class"]


def test_sixteen_hosts_on_a_leaf_spine_do_not_overlap() -> None:
    scenario = parse_scenario(leaf_spine(16, "25Gbps", 2, 2, "100Gbps"), "leaf-spine.yaml")
    svg = design_svg(scenario)
    root = parse(svg)
    hosts = [box(h) for h in named(root, "data-host").values()]
    switches = {name: box(s) for name, s in named(root, "data-switch").items()}
    assert len(hosts) == 16 and len(switches) == 4
    boxes = hosts + list(switches.values())
    assert not any(overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    # Spines above leaves, leaves above hosts; each leaf above the hosts it reaches.
    assert switches["spine1"][1] < switches["leaf1"][1] < min(h[1] for h in hosts)
    leaf1_centre = switches["leaf1"][0] + switches["leaf1"][2] / 2
    assert hosts[0][0] < leaf1_centre < hosts[7][0] + hosts[7][2]
    # Everything lies inside the picture.
    x0, y0, width, height = (float(v) for v in root.attrib["viewBox"].split())
    for x, y, w, h in boxes:
        assert x0 <= x and x + w <= x0 + width and y0 <= y and y + h <= y0 + height
    assert design_svg(scenario) == svg, "the layout is deterministic"


def test_names_are_escaped() -> None:
    scenario = parse_scenario(
        """
        name: Escaping
        hosts: [{name: "a<b&c", nics: [{name: "Ethernet \\"2\\"", speed: 1Gbps}]}]
        """,
        "escaping.yaml",
    )
    root = parse(design_svg(scenario))
    assert list(named(root, "data-host")) == ["a<b&c"]
    assert list(named(root, "data-nic")) == ['a<b&c/Ethernet "2"']


def points(path: str) -> list[tuple[float, float]]:
    """The corners of a path of straight lines ("Mx,y Lx,y ...")."""
    return [(float(x), float(y)) for x, y in re.findall(r"[ML](-?[\d.]+),(-?[\d.]+)", path)]


def test_thirty_two_hosts_wrap_into_rows_that_fit_the_page() -> None:
    """In one row, 32 hosts on two leaves were 6,000 px wide and scrolled sideways. They wrap:
    a block of rows per leaf, side by side under it, the picture within the page (`PAGE_WIDTH`),
    nothing overlapping, every cable drawn, and none through a host: a cable to a lower row turns
    down the street between two columns of hosts."""
    scenario = parse_scenario(leaf_spine(32, "25Gbps", 2, 2, "100Gbps"), "leaf-spine.yaml")
    svg = design_svg(scenario)
    root = parse(svg)
    x0, y0, width, height = (float(v) for v in root.attrib["viewBox"].split())
    assert float(root.attrib["width"]) == width <= PAGE_WIDTH
    hosts = {name: box(h) for name, h in named(root, "data-host").items()}
    switches = {name: box(s) for name, s in named(root, "data-switch").items()}
    assert len(hosts) == 32 and len(switches) == 4
    boxes = list(hosts.values()) + list(switches.values())
    assert not any(overlap(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    for x, y, w, h in boxes:
        assert x0 <= x and x + w <= x0 + width and y0 <= y and y + h <= y0 + height
    assert len({y for _, y, _, _ in hosts.values()}) > 1, "in rows"
    # A block per leaf, side by side, each leaf above its own hosts.
    leaf = {endpoint(c.a).split("/")[0]: endpoint(c.b).split("/")[0] for c in scenario.cables}
    on = {name: [hosts[h] for h in hosts if leaf[h] == name] for name in ("leaf1", "leaf2")}
    assert max(x + w for x, _, w, _ in on["leaf1"]) < min(x for x, _, _, _ in on["leaf2"])
    for name, mine in on.items():
        centre = switches[name][0] + switches[name][2] / 2
        assert min(x for x, _, _, _ in mine) < centre < max(x + w for x, _, w, _ in mine)
    assert switches["spine1"][1] < switches["leaf1"][1] < min(y for _, y, _, _ in hosts.values())
    # Every cable, and none crosses a host: sampled every 2 px along each of its lines.
    cables = named(root, "data-cable")
    assert sorted(cables) == sorted(f"{endpoint(c.a)} {endpoint(c.b)}" for c in scenario.cables)
    turned = 0
    for cable in cables.values():
        path = cable.find(f"{SVG}path")
        assert path is not None
        corners = points(path.attrib["d"])
        turned += len(corners) > 2
        for (ax, ay), (bx, by) in itertools.pairwise(corners):
            steps = max(int(max(abs(bx - ax), abs(by - ay)) / 2), 1)
            for k in range(steps + 1):
                px, py = ax + (bx - ax) * k / steps, ay + (by - ay) * k / steps
                assert not any(
                    x + 0.5 < px < x + w - 0.5 and y + 0.5 < py < y + h - 0.5 for x, y, w, h in hosts.values()
                )
    assert turned == 32 - 2 * 3, "the cables to every host but the first row's (3 columns a leaf) turn"
    assert design_svg(scenario) == svg, "the layout is deterministic"


def test_a_design_that_fits_in_one_row_keeps_it(failover_scenario: Scenario) -> None:
    root = parse(design_svg(failover_scenario))
    assert len({box(h)[1] for h in named(root, "data-host").values()}) == 1
    assert float(root.attrib["width"]) < PAGE_WIDTH
