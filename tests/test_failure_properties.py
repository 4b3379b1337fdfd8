"""Failures on random fabrics, against connectivity computed here by plain graph search.

Fabrics of leaves, spines, stacked leaf pairs and extra switch-to-switch
links (meshes and rings), hosts on one NIC or on a team across two
switches, a few transfers, and one failure of a switch, a cable, a NIC or a
switch port (silent) early in the run. After the failure, each transfer's
ends can use some NICs (link up, as their team sees it); for each pair of
them this test searches the graph of what still forwards (NIC cables, switch
links, switches) for a way between their switches. Routing converges on that
graph (docs/model.md, "Routing around failures"), so:

- a transfer all of whose NIC pairs stay joined completes;
- one none of whose NIC pairs stay joined never completes;
- one that never completes has a warning that says so (never a silent "never").

The search knows nothing of routes, ECMP or spanning trees: it is the model's
promise stated independently of its code.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hvnet import parse_scenario, simulate

FAILED_AT = 0.2


@dataclass
class Fabric:
    """A generated design: its YAML document, and what the search needs to know of it."""

    document: dict[str, Any]
    #: Each host NIC ("hv1/nic1") -> the switch port it is cabled to ("leaf1/3").
    nic_port: dict[str, str] = field(default_factory=dict)
    #: Each cable between two switches: (port, port).
    links: list[tuple[str, str]] = field(default_factory=list)
    #: Each host's NICs its traffic may leave and arrive by (one, or a team's two).
    uplinks: dict[str, list[str]] = field(default_factory=dict)
    #: Hosts whose team is LACP (it also drops a member that forwards nothing, after its timeout).
    lacp: set[str] = field(default_factory=set)


class _Cabling:
    """The cables of a fabric being drawn, and the next free port of each switch."""

    def __init__(self, fabric: Fabric, switches: list[str]) -> None:
        self.fabric = fabric
        self.ports: dict[str, int] = {s: 0 for s in switches}
        self.cables: list[dict[str, str]] = []

    def port(self, switch: str) -> str:
        self.ports[switch] += 1
        return f"{switch}/{self.ports[switch]}"

    def link(self, a: str, b: str) -> None:
        """A cable between two switches."""
        pa, pb = self.port(a), self.port(b)
        self.fabric.links.append((pa, pb))
        self.cables.append({"a": pa, "b": pb, "speed": "40Gbps"})


def _draw_links(draw: st.DrawFn, cabling: _Cabling, leaves: int, spines: int, switches: list[str]) -> None:
    """Every leaf to every spine (or, with no spines, the leaves in a chain), then maybe a ring or a mesh."""
    for leaf in range(1, leaves + 1):
        for spine in range(1, spines + 1):
            cabling.link(f"leaf{leaf}", f"spine{spine}")
    if spines == 0:  # leaves in a chain, then maybe a ring or a mesh
        for leaf in range(1, leaves):
            cabling.link(f"leaf{leaf}", f"leaf{leaf + 1}")
    extra = draw(st.lists(st.tuples(st.sampled_from(switches), st.sampled_from(switches)), max_size=2))
    for a, b in extra:
        if a != b:
            cabling.link(a, b)


def _draw_host(draw: st.DrawFn, cabling: _Cabling, name: str, leaves: int, stacked: bool) -> dict[str, Any]:
    """A host on one NIC, or on a team across two leaves (LACP only across the stacked pair); cabled."""
    fabric = cabling.fabric
    team = leaves >= 2 and draw(st.booleans())
    first = draw(st.integers(1, leaves))
    nics = [{"name": "nic1", "speed": "10Gbps"}]
    homes = [f"leaf{first}"]
    host: dict[str, Any] = {"name": name, "nics": nics}
    if team:
        second = draw(st.integers(1, leaves).filter(lambda x: x != first))
        nics.append({"name": "nic2", "speed": "10Gbps"})
        homes.append(f"leaf{second}")
        lacp = stacked and {first, second} == {1, 2} and draw(st.booleans())
        mode = "lacp" if lacp else "switch_independent"
        balancing = draw(st.sampled_from(["address_hash", "hyperv_port", "dynamic"]))
        host["teams"] = [{"name": "t", "members": ["nic1", "nic2"], "mode": mode, "load_balancing": balancing}]
        if lacp:
            fabric.lacp.add(name)
    for nic, home in zip(nics, homes):
        p = cabling.port(home)
        fabric.nic_port[f"{name}/{nic['name']}"] = p
        cabling.cables.append({"a": f"{name}/{nic['name']}", "b": p})
    fabric.uplinks[name] = [f"{name}/{n['name']}" for n in nics]
    return host


def _draw_traffic(draw: st.DrawFn, names: list[str]) -> list[dict[str, Any]]:
    """One to three transfers between two hosts."""
    pairs = draw(st.lists(st.tuples(st.sampled_from(names), st.sampled_from(names)), min_size=1, max_size=3))
    traffic: list[dict[str, Any]] = [
        {"name": f"t{i}", "from": a, "to": b, "size": "1GB", "connections": draw(st.integers(1, 4))}
        for i, (a, b) in enumerate(pairs)
        if a != b
    ]
    if not traffic:
        traffic = [{"name": "t0", "from": names[0], "to": names[1], "size": "1GB"}]
    return traffic


def _draw_failure(draw: st.DrawFn, cabling: _Cabling, switches: list[str]) -> tuple[str, str]:
    """The failure's action and target: a switch, a NIC, either end of a cable, or a switch port."""
    kind = draw(st.sampled_from(["switch_down", "cable_down", "nic_down", "port_blackhole"]))
    if kind == "switch_down":
        target = draw(st.sampled_from(switches))
    elif kind == "nic_down":
        target = draw(st.sampled_from(sorted(cabling.fabric.nic_port)))
    else:
        ends = [c["a"] for c in cabling.cables] + [c["b"] for c in cabling.cables]
        if kind == "port_blackhole":
            ends = [e for e in ends if e.split("/")[0] in switches]
        target = draw(st.sampled_from(sorted(ends)))
    return kind, target


@st.composite
def fabrics(draw: st.DrawFn) -> Fabric:
    leaves = draw(st.integers(1, 4))
    spines = draw(st.integers(0, 3)) if leaves > 1 else 0
    switches = [f"leaf{i}" for i in range(1, leaves + 1)] + [f"spine{i}" for i in range(1, spines + 1)]
    fabric = Fabric(document={})
    cabling = _Cabling(fabric, switches)
    _draw_links(draw, cabling, leaves, spines, switches)
    stacked = leaves >= 2 and draw(st.booleans())  # leaf1 and leaf2 one stack (MLAG pair)
    hosts = [_draw_host(draw, cabling, f"hv{h}", leaves, stacked) for h in range(1, draw(st.integers(2, 5)) + 1)]
    traffic = _draw_traffic(draw, [h["name"] for h in hosts])
    kind, target = _draw_failure(draw, cabling, switches)
    forwarding = draw(st.sampled_from(["routed", "routed", "rstp"]))
    ports = cabling.ports
    fabric.document = {
        "name": "random fabric",
        "hosts": hosts,
        "switches": [
            {"name": s, "ports": max(ports[s], 1), **({"stack": "pair"} if stacked and s in ("leaf1", "leaf2") else {})}
            for s in switches
        ],
        "fabric": {"forwarding": forwarding},
        "cables": cabling.cables,
        "traffic": traffic,
        "events": [{"at": f"{FAILED_AT}s", "action": kind, "target": target}],
    }
    return fabric


def _joined(fabric: Fabric, event: dict[str, str], a: str, b: str) -> bool:
    """Whether NIC `a` reaches NIC `b` over what still forwards after `event` (a plain search)."""
    action, target = event["action"], event["target"]
    peers = {}
    for x, y in fabric.links:
        peers[x], peers[y] = y, x
    for nic, p in fabric.nic_port.items():
        peers[nic], peers[p] = p, nic

    def forwards(end: str) -> bool:
        """Whether the cable at this end (a NIC or a port) carries anything."""
        other = peers[end]
        if action == "switch_down" and target in (end.split("/", maxsplit=1)[0], other.split("/")[0]):
            return False
        return not (action in ("cable_down", "port_blackhole", "nic_down") and target in (end, other))

    if not (forwards(a) and forwards(b)):
        return False
    start, goal = fabric.nic_port[a].split("/")[0], fabric.nic_port[b].split("/")[0]
    graph: dict[str, set[str]] = {}
    for x, y in fabric.links:
        if forwards(x):
            graph.setdefault(x.split("/")[0], set()).add(y.split("/")[0])
            graph.setdefault(y.split("/")[0], set()).add(x.split("/")[0])
    seen, queue = {start}, deque([start])
    while queue:
        node = queue.popleft()
        for n in graph.get(node, ()):
            if n not in seen:
                seen.add(n)
                queue.append(n)
    return goal in seen


def _usable(fabric: Fabric, event: dict[str, str], host: str) -> list[str]:
    """The NICs a host's team (or its one NIC) may carry traffic on after the failure: those whose
    link stays up (a silent port keeps its link up: only LACP drops that member, after its timeout)."""
    action, target = event["action"], event["target"]
    nics = []
    for nic in fabric.uplinks[host]:
        p = fabric.nic_port[nic]
        link_down = (
            (action == "switch_down" and p.split("/")[0] == target)
            or (action == "cable_down" and target in (nic, p))
            or (action == "nic_down" and target == nic)
            or (action == "port_blackhole" and target == p and host in fabric.lacp)
        )
        if not link_down:
            nics.append(nic)
    return nics or fabric.uplinks[host][:1]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fabrics())
def test_connected_flows_complete_and_cut_ones_say_why(fabric: Fabric) -> None:
    import yaml

    scenario = parse_scenario(yaml.safe_dump(fabric.document, sort_keys=False), "random.yaml")
    results = simulate(scenario)
    (event,) = fabric.document["events"]
    for flow, result in zip(fabric.document["traffic"], results.traffic):
        outs, ins = _usable(fabric, event, flow["from"]), _usable(fabric, event, flow["to"])
        joined = [_joined(fabric, event, a, b) for a in outs for b in ins]
        said = [w for w in results.warnings if w.startswith(f"traffic {flow['name']} (")]
        if all(joined):
            assert result.end_s is not None, (flow, results.warnings, fabric.document)
        if not any(joined):
            assert result.end_s is None, (flow, fabric.document)
        if result.end_s is None:
            assert said and "never completes" in said[0], (flow, results.warnings, fabric.document)
        else:
            assert not said, said
