"""Generated fabrics are plain, valid scenario YAML with the shape their name promises."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from hvnet import parse_scenario
from hvnet.lower.network import ConnectionRequest, NetworkModel
from hvnet.topology import leaf_spine, star


def test_star_of_three_hosts() -> None:
    """3 hosts hv1..hv3, one 10 Gbps NIC each, cabled to ports 1..3 of one non-blocking switch."""
    scenario = parse_scenario(star(3, "10Gbps"))
    assert [h.name for h in scenario.hosts] == ["hv1", "hv2", "hv3"]
    assert all([(n.name, n.speed) for n in h.nics] == [("nic1", 10e9)] for h in scenario.hosts)
    (switch,) = scenario.switches
    assert (switch.name, switch.ports, switch.backplane) == ("switch", 3, None)
    assert [(c.a, c.b) for c in scenario.cables] == [
        ("hv1/nic1", "switch/1"),
        ("hv2/nic1", "switch/2"),
        ("hv3/nic1", "switch/3"),
    ]


def test_star_switch_has_at_least_one_port_per_host() -> None:
    assert parse_scenario(star(3, "10Gbps", switch_ports=48)).switches[0].ports == 48
    assert parse_scenario(star(3, "10Gbps", switch_ports=2)).switches[0].ports == 3


def test_leaf_spine_spreads_hosts_evenly_and_meshes_leaves_and_spines() -> None:
    """5 hosts on 2 leaves: 3 per leaf at most (hv1-hv3 on leaf1, hv4-hv5 on leaf2).

    Each leaf has 3 host ports and one port per spine (4, 5); every leaf-spine
    pair is one cable at the uplink speed: 5 host cables + 2×2 uplinks.
    """
    scenario = parse_scenario(leaf_spine(5, "25Gbps", 2, 2, "100Gbps"))
    assert [(s.name, s.ports) for s in scenario.switches] == [("leaf1", 5), ("leaf2", 5), ("spine1", 2), ("spine2", 2)]
    cables = [(c.a, c.b, c.speed) for c in scenario.cables]
    assert cables == [
        ("hv1/nic1", "leaf1/1", None),
        ("hv2/nic1", "leaf1/2", None),
        ("hv3/nic1", "leaf1/3", None),
        ("hv4/nic1", "leaf2/1", None),
        ("hv5/nic1", "leaf2/2", None),
        ("leaf1/4", "spine1/1", 100e9),
        ("leaf1/5", "spine2/1", 100e9),
        ("leaf2/4", "spine1/2", 100e9),
        ("leaf2/5", "spine2/2", 100e9),
    ]
    assert {n.speed for h in scenario.hosts for n in h.nics} == {25e9}


@pytest.mark.parametrize(
    "text", [star(4, "10Gbps"), leaf_spine(6, "10Gbps", 3, 2, "40Gbps")], ids=["star", "leaf-spine"]
)
def test_every_host_reaches_every_other(text: str) -> None:
    scenario = parse_scenario(text)
    pairs = list(itertools.permutations([h.name for h in scenario.hosts], 2))
    requests = [ConnectionRequest(s, t, 1.0, 0.0) for s, t in pairs]
    assert NetworkModel(scenario).unreachable(requests) == []


def test_generated_yaml_reads_like_a_hand_written_file() -> None:
    """A person edits what was generated: the title first, then block-style lists, no YAML tags."""
    text = star(2, "10Gbps")
    assert text.startswith("name: Star of 2 hosts at 10Gbps\nhosts:\n- name: hv1\n")
    assert "!!" not in text


@pytest.mark.parametrize(
    "make",
    [
        lambda: star(0, "10Gbps"),
        lambda: leaf_spine(0, "10Gbps", 2, 2, "40Gbps"),
        lambda: leaf_spine(4, "10Gbps", 0, 2, "40Gbps"),
        lambda: leaf_spine(4, "10Gbps", 2, 0, "40Gbps"),
    ],
    ids=["star-no-hosts", "no-hosts", "no-leaves", "no-spines"],
)
def test_a_fabric_needs_at_least_one_of_everything(make: Callable[[], str]) -> None:
    with pytest.raises(ValueError, match="at least one"):
        make()


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["star", "--hosts", "2", "--nic", "10GbE"], "--nic"),
        (["leaf-spine", "--hosts", "4", "--uplink", "40G"], "--uplink"),
    ],
)
def test_a_bad_speed_is_named_by_its_option_not_by_a_generated_line(args: list[str], option: str) -> None:
    """Issue 26: `--nic 10GbE` was reported at `<star>:5: hosts[0].nics[0].speed`, a file the user never wrote."""
    from typer.testing import CliRunner

    from hvnet.cli import app

    result = CliRunner().invoke(app, ["topology", *args])
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"{option}: '") and "is not a bit rate" in line and "<" not in line
