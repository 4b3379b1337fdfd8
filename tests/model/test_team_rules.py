"""Team designs Windows would refuse are refused, each with a message naming the rule.

The rules come from BEHAVIOUR.md (NIC teaming, SET): an LBFO team has 1-32
members, a SET team 1-8 identical ones; a static or LACP team whose members go
to two switches needs those switches stacked (or in an MLAG/VLT/vPC pair); a
team inside a VM is two vNICs, switch independent, address hash. Each rule has
a refused design with the exact line a user sees and a design that passes.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from hvnet.errors import ScenarioError
from hvnet.model import LoadBalancing, Scenario, TeamingMode, parse_scenario
from tests.model.problems import problems

DOCS = Path(__file__).parents[2] / "docs" / "scenario.md"


def valid(text: str) -> Scenario:
    return parse_scenario(textwrap.dedent(text), "cluster.yaml")


def one_host(nics: list[str], team: str) -> str:
    """A host hv1 with these NIC entries (flow mappings) and one team entry."""
    lines = ["name: t", "hosts:", "  - name: hv1", "    nics:"]
    lines += [f"      - {nic}" for nic in nics]
    lines += ["    teams:", f"      - {team}"]
    return "\n".join(lines) + "\n"


def nics(count: int, speed: str = "10Gbps") -> list[str]:
    return [f"{{name: nic{i}, speed: {speed}}}" for i in range(1, count + 1)]


def members(count: int) -> str:
    return "[" + ", ".join(f"nic{i}" for i in range(1, count + 1)) + "]"


# --- how many members ---------------------------------------------------------------------------


def test_a_set_team_has_at_most_8_members() -> None:
    text = one_host(nics(9), f"{{name: set1, kind: set, members: {members(9)}}}")
    assert problems(text) == [
        "cluster.yaml:15: hosts[0].teams[0].members: a SET team has at most 8 members"
        " (Switch Embedded Teaming supports 1–8 identical NICs); this one has 9"
    ]


def test_a_set_team_of_1_to_8_members_passes() -> None:
    for count in (1, 8):
        scenario = valid(one_host(nics(count), f"{{name: set1, kind: set, members: {members(count)}}}"))
        assert len(scenario.host("hv1").team("set1").members) == count


def test_an_lbfo_team_has_at_most_32_members() -> None:
    text = one_host(nics(33), f"{{name: team1, members: {members(33)}}}")
    assert problems(text) == [
        "cluster.yaml:39: hosts[0].teams[0].members: an LBFO team has at most 32 members"
        " (NIC teaming supports 1–32 NICs); this one has 33"
    ]


def test_an_lbfo_team_of_1_to_32_members_passes_and_none_is_refused() -> None:
    for count in (1, 32):
        scenario = valid(one_host(nics(count), f"{{name: team1, members: {members(count)}}}"))
        assert len(scenario.host("hv1").team("team1").members) == count
    assert problems(one_host(nics(1), "{name: team1, members: []}")) == [
        "cluster.yaml:7: hosts[0].teams[0].members: needs at least 1 entry"
    ]


# --- SET: identical members -----------------------------------------------------------------------


def test_set_members_must_be_identical() -> None:
    """Speed, RDMA and MTU always compare; the model only when both members state it."""
    text = one_host(
        [
            "{name: nic1, speed: 10Gbps, model: Mellanox ConnectX-3, rdma: true, mtu: 9000}",
            "{name: nic2, speed: 25Gbps, model: Mellanox ConnectX-3, rdma: true, mtu: 1500}",
            "{name: nic3, speed: 10Gbps, model: Intel X710, rdma: true, mtu: 9000}",
            "{name: nic4, speed: 10Gbps, rdma: false, mtu: 9000}",
        ],
        "{name: set1, kind: set, members: [nic1, nic2, nic3, nic4]}",
    )
    rule = "a SET team's members must be identical NICs (same speed, model, rdma and mtu)"
    assert problems(text) == [
        f"cluster.yaml:10: hosts[0].teams[0].members[1]: {rule};"
        " nic2 differs from nic1 in speed (25 Gbps vs 10 Gbps) and mtu (1500 vs 9000)",
        f"cluster.yaml:10: hosts[0].teams[0].members[2]: {rule};"
        " nic3 differs from nic1 in model ('Intel X710' vs 'Mellanox ConnectX-3')",
        f"cluster.yaml:10: hosts[0].teams[0].members[3]: {rule}; nic4 differs from nic1 in rdma (false vs true)",
    ]


def test_identical_set_members_pass() -> None:
    """A speed written another way is the same speed; an unstated model matches any."""
    scenario = valid(
        one_host(
            [
                "{name: nic1, speed: 25Gbps, model: Mellanox ConnectX-4 Lx, rdma: true}",
                "{name: nic2, speed: 25 Gbps, model: mellanox  connectx-4 lx, rdma: true, mtu: 1500}",
                "{name: nic3, speed: 25000Mbps, rdma: true}",
            ],
            "{name: set1, kind: set, members: [nic1, nic2, nic3], load_balancing: hyperv_port}",
        )
    )
    host = scenario.host("hv1")
    assert [nic.model for nic in host.nics] == ["Mellanox ConnectX-4 Lx", "mellanox  connectx-4 lx", None]
    assert host.team("set1").load_balancing is LoadBalancing.HYPERV_PORT


def test_a_set_team_is_switch_independent() -> None:
    """The other SET rules (no standby, no address hash, no LACP) are in test_cross_reference_errors.py."""
    text = one_host(nics(2), "{name: set1, kind: set, members: [nic1, nic2], mode: static}")
    assert problems(text) == [
        "cluster.yaml:8: hosts[0].teams[0].mode: a SET team is always switch_independent;"
        " static and lacp need kind: lbfo"
    ]


def test_lbfo_members_may_differ_and_be_rdma_capable() -> None:
    """An LBFO team gives no RDMA, but RDMA-capable members are allowed (SMB runs over TCP on the team)."""
    scenario = valid(
        one_host(
            ["{name: nic1, speed: 10Gbps, rdma: true}", "{name: nic2, speed: 25Gbps, rdma: true, mtu: 9000}"],
            "{name: team1, kind: lbfo, members: [nic1, nic2]}",
        )
    )
    assert all(nic.rdma for nic in scenario.host("hv1").nics)


# --- switch dependent teams across switches -------------------------------------------------------

TWO_SWITCHES = """\
name: t
hosts:
  - name: hv1
    nics:
      - {name: nic1, speed: 10Gbps}
      - {name: nic2, speed: 10Gbps}
    teams:
      - {name: team1, members: [nic1, nic2], mode: MODE}
switches:
  - {name: tor1STACK1}
  - {name: tor2STACK2}
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: hv1/nic2, b: tor2/1}
"""


def two_switches(mode: str, stack1: str = "", stack2: str = "") -> str:
    return TWO_SWITCHES.replace("MODE", mode).replace("STACK1", stack1).replace("STACK2", stack2)


def test_an_lacp_team_across_two_switches_needs_them_stacked() -> None:
    assert problems(two_switches("lacp")) == [
        "cluster.yaml:8: hosts[0].teams[0].mode: an LACP team's members go to switches tor1 and tor2,"
        " which are neither stacked nor in an MLAG/VLT/vPC pair"
        " (give both switches the same stack: name, or use switch independent teaming)"
    ]


def test_a_static_team_across_switches_of_different_stacks_is_refused() -> None:
    text = two_switches("static", ", stack: a", ", stack: b")
    assert problems(text) == [
        "cluster.yaml:8: hosts[0].teams[0].mode: a static team's members go to switches tor1 (stack: a)"
        " and tor2 (stack: b), which are not one stack or MLAG/VLT/vPC pair"
        " (give both switches the same stack: name, or use switch independent teaming)"
    ]


def test_a_team_across_three_switches_names_them_all() -> None:
    text = """\
        name: t
        hosts:
          - name: hv1
            nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}, {name: nic3, speed: 10Gbps}]
            teams: [{name: team1, members: [nic1, nic2, nic3], mode: lacp}]
        switches: [{name: tor1, stack: s1}, {name: tor2, stack: s1}, {name: tor3}]
        cables:
          - {a: hv1/nic1, b: tor1/1}
          - {a: hv1/nic2, b: tor2/1}
          - {a: hv1/nic3, b: tor3/1}
        """
    assert problems(text) == [
        "cluster.yaml:5: hosts[0].teams[0].mode: an LACP team's members go to switches tor1 (stack: s1),"
        " tor2 (stack: s1) and tor3 (not stacked), which are not one stack or MLAG/VLT/vPC group"
        " (give all these switches the same stack: name, or use switch independent teaming)"
    ]


def test_switch_dependent_teams_on_one_logical_switch_pass() -> None:
    """Stacked switches, a single switch, or switch independent teaming: all allowed."""
    scenario = valid(two_switches("lacp", ", stack: mlag1", ", stack: mlag1"))
    assert [switch.stack for switch in scenario.switches] == ["mlag1", "mlag1"]
    valid(two_switches("static", ", stack: mlag1", ", stack: mlag1"))
    valid(two_switches("switch_independent"))
    valid(two_switches("lacp").replace("tor2/1", "tor1/2"))


def test_the_documented_refused_design_gives_the_documented_message() -> None:
    """docs/scenario.md shows a refused design and its message: they must agree."""
    markdown = DOCS.read_text(encoding="utf-8")
    match = re.search(r"```yaml refused\n(.*?)```\n+```text\n(.*?)```", markdown, flags=re.DOTALL)
    assert match is not None, "docs/scenario.md has no ```yaml refused block followed by a ```text block"
    design, message = match.groups()
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(design, "cluster.yaml")
    assert str(caught.value) == message.strip()


# --- a team inside a VM -----------------------------------------------------------------------------

VM_HOST = """\
name: t
hosts:
  - name: hv1
    nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}]
    vswitches: [{name: vs1, uplink: nic1}, {name: vs2, uplink: nic2}]
vms:
"""


def test_a_team_inside_a_vm_has_two_members_on_two_virtual_switches() -> None:
    text = VM_HOST + (
        "  - {name: vm1, host: hv1, memory: 4GiB, team: {members: [vs1, vs2, vs3]}}\n"
        "  - {name: vm2, host: hv1, memory: 4GiB, team: {members: [vs1, vs1]}}\n"
    )
    assert problems(text) == [
        "cluster.yaml:7: vms[0].team.members: a team inside a VM has exactly 2 members"
        " (two vNICs, each on its own virtual switch of the host); this one has 3",
        "cluster.yaml:7: vms[0].team.members[2]: hv1 has no virtual switch 'vs3'; its virtual switches: vs1, vs2",
        "cluster.yaml:8: vms[1].team.members[1]: 'vs1' is listed twice;"
        " a team inside a VM needs two different virtual switches of its host",
    ]


def test_a_team_inside_a_vm_is_switch_independent_with_address_hash() -> None:
    text = VM_HOST + (
        "  - {name: vm1, host: hv1, memory: 4GiB, team: {members: [vs1, vs2], mode: lacp, load_balancing: dynamic}}\n"
        "  - {name: vm2, host: hv1, memory: 4GiB, team: {members: [vs1, vs2], load_balancing: hyperv_port}}\n"
    )
    assert problems(text) == [
        "cluster.yaml:7: vms[0].team.mode: a team inside a VM is always switch_independent;"
        " static and lacp are not supported in a guest",
        "cluster.yaml:7: vms[0].team.load_balancing: a team inside a VM balances by address_hash only;"
        " hyperv_port and dynamic are not supported in a guest",
        "cluster.yaml:8: vms[1].team.load_balancing: a team inside a VM balances by address_hash only;"
        " hyperv_port and dynamic are not supported in a guest",
    ]


def test_a_valid_team_inside_a_vm_passes_with_its_defaults() -> None:
    scenario = valid(
        VM_HOST
        + "  - {name: vm1, host: hv1, memory: 4GiB, team: {members: [vs1, vs2]}}\n"
        + "  - name: vm2\n    host: hv1\n    memory: 4GiB\n"
        + "    team: {members: [vs2, vs1], mode: switch_independent, load_balancing: address_hash}\n"
    )
    team = scenario.vm("vm1").team
    assert team is not None
    assert (team.members, team.mode, team.load_balancing) == (
        ("vs1", "vs2"),
        TeamingMode.SWITCH_INDEPENDENT,
        LoadBalancing.ADDRESS_HASH,
    )
    assert scenario.vm("vm2").team is not None
