"""Which NIC a connection leaves and enters by: uplinks, and team members (BEHAVIOUR.md).

A host or VM sends through an uplink (a NIC or a team); a team picks one
member per connection and direction (in the Rust core). These tests run
scenarios end to end and pin the rules that do not depend on a particular
hash value: where each side's traffic goes, that a standby member carries
nothing, that Hyper-V port binds each vSwitch port to one member, and that
address hash receives everything on the primary member.
"""

from __future__ import annotations

import textwrap

from hvnet import parse_scenario, simulate
from hvnet.lower.endpoints import Endpoints
from hvnet.model import Scenario
from hvnet.results import Results


def scenario(team: str, vms: int = 0, traffic: str = "") -> Scenario:
    """hv1 and hv2 with a 4-NIC team `team1` (given as a YAML mapping body) under vSwitch."""
    host = textwrap.dedent(
        """
          - name: {name}
            nics:
              - {{name: nic1, speed: 10Gbps}}
              - {{name: nic2, speed: 10Gbps}}
              - {{name: nic3, speed: 10Gbps}}
              - {{name: nic4, speed: 10Gbps}}
            teams:
              - {{name: team1, members: [nic1, nic2, nic3, nic4], {team}}}
            vswitches:
              - {{name: vSwitch, uplink: team1}}
        """
    )
    text = "name: teams\nhosts:" + host.format(name="hv1", team=team) + host.format(name="hv2", team=team)
    text += "switches: [{name: sw}]\ncables:\n"
    text += "".join(f"  - {{a: hv{h}/nic{n}, b: sw/{4 * (h - 1) + n}}}\n" for h in (1, 2) for n in range(1, 5))
    if vms:
        text += "vms:\n" + "".join(
            f"  - {{name: vm{i}, host: hv1, memory: 1GiB, vswitch: vSwitch}}\n" for i in range(1, vms + 1)
        )
    if traffic:
        text += "traffic:\n" + traffic
    return parse_scenario(text)


def run(team: str, flows: list[tuple[str, str]], vms: int = 0, connections: int = 64) -> Results:
    """Each (source, target) pair as one traffic entry of `connections` connections."""
    traffic = "".join(f"  - {{from: {s}, to: {t}, size: 64MB, connections: {connections}}}\n" for s, t in flows)
    return simulate(scenario(team, vms, traffic))


def out_nics(results: Results, entry: int) -> set[str | None]:
    return {c.nics[0].out_nic for c in results.traffic[entry].connection_results}


def in_nics(results: Results, entry: int) -> set[str | None]:
    return {c.nics[0].in_nic for c in results.traffic[entry].connection_results}


def test_hyperv_port_binds_each_vswitch_port_to_one_member() -> None:
    """Every connection of a VM leaves on the same member; the host and 3 VMs use all 4 members."""
    names = ("hv1", "vm1", "vm2", "vm3")
    results = run("load_balancing: hyperv_port", [(n, "hv2") for n in names], vms=3)
    used = []
    for entry, name in enumerate(names):
        members = out_nics(results, entry)
        assert len(members) == 1, f"{name} is spread over {members}"
        used.append(members.pop())
    assert sorted(m or "" for m in used) == ["hv1/nic1", "hv1/nic2", "hv1/nic3", "hv1/nic4"]


def test_hyperv_port_receives_on_the_same_member_it_sends_on() -> None:
    flows = [(f"vm{i}", "hv2") for i in (1, 2, 3)] + [("hv2", f"vm{i}") for i in (1, 2, 3)]
    results = run("load_balancing: hyperv_port", flows, vms=3)
    for i in range(3):
        assert out_nics(results, i) == in_nics(results, i + 3), f"vm{i + 1}"


def test_address_hash_spreads_outbound_and_receives_on_the_primary() -> None:
    """Switch independent + address hash: 64 connections use all 4 members outbound; all arrive on nic1."""
    results = run("load_balancing: address_hash", [("hv1", "hv2")])
    assert out_nics(results, 0) == {"hv1/nic1", "hv1/nic2", "hv1/nic3", "hv1/nic4"}
    assert in_nics(results, 0) == {"hv2/nic1"}


def test_switch_dependent_teams_receive_on_the_switchs_choice() -> None:
    """LACP: the switch hashes each connection, so inbound traffic spreads over the members too."""
    results = run("mode: lacp, load_balancing: address_hash", [("hv1", "hv2")])
    assert in_nics(results, 0) == {"hv2/nic1", "hv2/nic2", "hv2/nic3", "hv2/nic4"}


def test_a_standby_member_carries_nothing() -> None:
    results = run("load_balancing: address_hash, mode: static, standby: nic4", [("hv1", "hv2")])
    assert not {"hv1/nic4", "hv2/nic4"} & (out_nics(results, 0) | in_nics(results, 0))


def test_endpoints_have_distinct_addresses_and_hyper_v_macs() -> None:
    endpoints = Endpoints(scenario("load_balancing: dynamic", vms=2))
    addresses = {endpoints[n].address for n in ("hv1", "hv2", "vm1", "vm2")}
    assert len(addresses) == 4
    assert all(endpoints[n].mac[:3] == (0x00, 0x15, 0x5D) for n in ("hv1", "vm2"))


UPLINKS = """
name: uplinks
hosts:
  - name: hv1
    nics:
      - {name: mgmt, speed: 1Gbps}
      - {name: nic1, speed: 10Gbps}
      - {name: nic2, speed: 10Gbps}
    teams:
      - {name: team1, members: [nic1, nic2]}
    vswitches:
      - {name: vs-mgmt, uplink: mgmt}
      - {name: vs-vm, uplink: team1}
  - name: hv2
    nics:
      - {name: spare, speed: 10Gbps}
      - {name: nic1, speed: 10Gbps}
switches: [{name: sw}]
cables:
  - {a: hv1/mgmt, b: sw/1}
  - {a: hv1/nic1, b: sw/2}
  - {a: hv1/nic2, b: sw/3}
  - {a: hv2/nic1, b: sw/4}
vms:
  - {name: vm1, host: hv1, memory: 1GiB, vswitch: vs-vm}
"""


def test_uplinks_of_hosts_and_vms() -> None:
    """A VM uses its vswitch's uplink; a host its first vswitch's uplink (a host vNIC).

    A host with no vswitch and no team uses its first cabled NIC: hv2's first
    NIC, `spare`, has no cable, so hv2 uses nic1.
    """
    endpoints = Endpoints(parse_scenario(UPLINKS))
    assert endpoints["vm1"].uplink == "team1"
    assert endpoints["hv1"].uplink == "mgmt"
    assert endpoints["hv2"].uplink == "nic1"


def test_a_route_runs_from_the_uplink_to_the_uplink() -> None:
    """hv1's own traffic leaves by its first vSwitch's NIC (mgmt) and arrives on hv2/nic1."""
    text = UPLINKS + "traffic:\n  - {from: hv1, to: hv2, size: 1GB}\n"
    (connection,) = simulate(parse_scenario(text)).traffic[0].connection_results
    assert (connection.nics[0].out_nic, connection.nics[0].in_nic) == ("hv1/mgmt", "hv2/nic1")
