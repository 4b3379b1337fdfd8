"""The physical network as engine resources: one per cable direction and per backplane, and routes.

Resources are named after what they are ("hv1/nic1 → sw/1"), so the tests
state routes in the words a person would use to trace a cable.
"""

from __future__ import annotations

import textwrap

import pytest

from hvnet import Calibration, parse_scenario, simulate
from hvnet.lower.fabric import Fabric, Port, build_fabric
from hvnet.lower.routing import Routing
from hvnet.model import Scenario
from hvnet.topology import leaf_spine


def fabric_of(text: str) -> Fabric:
    return build_fabric(parse_scenario(textwrap.dedent(text)))


def routes_of(scenario: Scenario | str, source: str, target: str) -> list[list[str]] | None:
    """The equal-cost routes (resource names) from one NIC to another with the fabric whole."""
    if isinstance(scenario, str):
        scenario = parse_scenario(textwrap.dedent(scenario))
    fabric = build_fabric(scenario)
    routing = Routing(scenario, fabric, Calibration().fabric)
    timeline = routing.nic_routes(Port.parse(source), Port.parse(target))
    if timeline is None:
        return None
    ((at, routes),) = timeline
    assert at == 0.0
    return [[fabric.names[r] for r in route.resources] for route in routes]


def path_names(scenario: Scenario | str, source: str, target: str) -> list[str] | None:
    """The one route between two NICs (where there is only one)."""
    routes = routes_of(scenario, source, target)
    if routes is None:
        return None
    (route,) = routes
    return route


STAR = """
name: star
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv2, nics: [{name: nic1, speed: 25Gbps}]}
  - {name: hv3, nics: [{name: nic1, speed: 25Gbps}]}
switches:
  - {name: sw, backplane: 40Gbps}
cables:
  - {a: hv1/nic1, b: sw/1}
  - {a: hv2/nic1, b: sw/2}
  - {a: hv3/nic1, b: sw/3, speed: 1Gbps}
"""


def test_every_cable_is_two_resources_one_per_direction() -> None:
    """Full duplex: 3 cables give 6 resources, plus 1 for the switch's backplane."""
    fabric = fabric_of(STAR)
    assert fabric.names == [
        "hv1/nic1 → sw/1",
        "sw/1 → hv1/nic1",
        "hv2/nic1 → sw/2",
        "sw/2 → hv2/nic1",
        "hv3/nic1 → sw/3",
        "sw/3 → hv3/nic1",
        "sw backplane",
    ]
    assert fabric.fatpipe == [False] * 7


def test_a_cable_runs_at_its_slowest_part_in_bytes_per_second() -> None:
    """hv1's cable: 10 Gbps NIC → 1.25e9 B/s; hv2's: 25 Gbps; hv3's: the cable's own 1 Gbps.

    The backplane's 40 Gbps is 5e9 B/s.
    """
    fabric = fabric_of(STAR)
    assert fabric.capacities == [1.25e9, 1.25e9, 3.125e9, 3.125e9, 1.25e8, 1.25e8, 5e9]


def test_switch_port_speed_limits_a_faster_nic() -> None:
    fabric = fabric_of(
        """
        name: slow ports
        hosts: [{name: hv1, nics: [{name: nic1, speed: 10Gbps}]}]
        switches: [{name: sw, port_speed: 1Gbps}]
        cables: [{a: hv1/nic1, b: sw/1}]
        """
    )
    assert fabric.capacities == [1.25e8, 1.25e8]


def test_a_path_through_a_switch_crosses_its_backplane_once() -> None:
    assert path_names(STAR, "hv1/nic1", "hv2/nic1") == ["hv1/nic1 → sw/1", "sw backplane", "sw/2 → hv2/nic1"]


def test_a_non_blocking_switch_adds_no_resource() -> None:
    text = STAR.replace("{name: sw, backplane: 40Gbps}", "{name: sw}")
    assert fabric_of(text).backplane == {}
    assert path_names(text, "hv1/nic1", "hv2/nic1") == ["hv1/nic1 → sw/1", "sw/2 → hv2/nic1"]


def test_back_to_back_hosts_are_one_cable() -> None:
    """A NIC cabled straight to another host's NIC: the path is that cable's one direction."""
    text = """
        name: back to back
        hosts:
          - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
          - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}
        cables: [{a: hv1/nic1, b: hv2/nic1}]
        """
    assert path_names(text, "hv1/nic1", "hv2/nic1") == ["hv1/nic1 → hv2/nic1"]
    assert path_names(text, "hv2/nic1", "hv1/nic1") == ["hv2/nic1 → hv1/nic1"]


def test_leaf_spine_path_crosses_leaf_spine_leaf() -> None:
    """4 hosts, 2 leaves, 1 spine: hv1 and hv2 on leaf1, hv3 and hv4 on leaf2.

    Leaf ports 1-2 face hosts and port 3 the spine; spine port N faces leafN.
    hv1 → hv3 goes up leaf1 to the spine and down to leaf2.
    """
    scenario = parse_scenario(leaf_spine(4, "10Gbps", 2, 1, "40Gbps"))
    assert path_names(scenario, "hv1/nic1", "hv3/nic1") == [
        "hv1/nic1 → leaf1/1",
        "leaf1/3 → spine1/1",
        "spine1/2 → leaf2/3",
        "leaf2/1 → hv3/nic1",
    ]
    # Hosts on the same leaf stay on it.
    assert path_names(scenario, "hv1/nic1", "hv2/nic1") == ["hv1/nic1 → leaf1/1", "leaf1/2 → hv2/nic1"]


def test_equal_cost_paths_are_all_routes_in_name_order() -> None:
    """With 2 spines there are two shortest paths, both routes (ECMP); the core spreads flows over
    them by a hash of each flow (crates/network/tests/routing.rs)."""
    scenario = parse_scenario(leaf_spine(4, "10Gbps", 2, 2, "40Gbps"))
    assert routes_of(scenario, "hv1/nic1", "hv3/nic1") == [
        ["hv1/nic1 → leaf1/1", "leaf1/3 → spine1/1", "spine1/2 → leaf2/3", "leaf2/1 → hv3/nic1"],
        ["hv1/nic1 → leaf1/1", "leaf1/4 → spine2/1", "spine2/2 → leaf2/4", "leaf2/1 → hv3/nic1"],
    ]


@pytest.mark.parametrize(
    ("source", "target"),
    [("hv1/nic1", "hv3/nic1"), ("hv1/nic1", "hv2/nic2"), ("hv2/nic2", "hv1/nic1")],
    ids=["switches-not-joined", "uncabled-target", "uncabled-source"],
)
def test_no_path_between_unconnected_nics(source: str, target: str) -> None:
    text = """
        name: two islands
        hosts:
          - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
          - {name: hv2, nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}]}
          - {name: hv3, nics: [{name: nic1, speed: 10Gbps}]}
        switches: [{name: a}, {name: b}]
        cables:
          - {a: hv1/nic1, b: a/1}
          - {a: hv2/nic1, b: a/2}
          - {a: hv3/nic1, b: b/1}
        """
    assert routes_of(text, source, target) is None


def test_ports_and_peers() -> None:
    fabric = fabric_of(STAR)
    assert str(Port("hv1", "nic1")) == "hv1/nic1"
    assert fabric.peer(Port("hv1", "nic1")) == Port("sw", "1")
    assert fabric.peer(Port("sw", "1")) == Port("hv1", "nic1")
    assert fabric.peer(Port("sw", "9")) is None


def test_spaces_around_a_cable_end_or_an_event_target_are_not_part_of_it() -> None:
    """YAML lets `a: ' hv1/nic1 '` through; the checks read it stripped, and so must the run
    (it once failed with 'has no speed (validated earlier)', or a failure hit nothing)."""
    scenario = parse_scenario(
        """
name: spaces
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}
switches: [{name: sw, ports: 4, port_speed: 10Gbps}]
cables:
  - {a: ' hv1/nic1 ', b: 'sw/1 '}
  - {a: hv2/nic1, b: sw/2}
traffic: [{from: hv1, to: hv2, size: 10GB}]
events: [{at: 1s, action: nic_down, target: ' hv1/nic1'}]
"""
    )
    results = simulate(scenario)
    assert results.traffic[0].end_s is None  # the NIC that failed is the only way out
    assert results.traffic[0].connection_results[0].stalled_since_s == 1.0
