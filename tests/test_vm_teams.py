"""A team inside a VM (BEHAVIOUR.md: two vNICs, switch independent, address hash).

hv1 has two 10 Gbps NICs, each under a virtual switch of its own (`vs1` on
nic1, `vs2` on nic2, the design for SR-IOV); vm1 teams a vNIC on each. hv2
has one 100 Gbps NIC under `vs`, where vm2 runs, so hv2 never limits. Both
hosts' NICs go to one switch. Cores are fast (6 GHz, high performance) so
that only the links matter.

What Windows does with such a team, and so what each test expects:

- outbound, the address hash (TransportPorts by default) spreads vm1's
  connections over both vNICs, so over both NICs; one connection never uses
  two;
- inbound, a switch-independent address-hash team receives everything on
  its primary (ARP answers carry its MAC): nic1, the first member's NIC;
- the vNICs allow teaming, so each shows disconnected when its virtual
  switch's NIC loses link: the team fails over at once. A NIC whose link
  stays up while its switch port forwards nothing is not seen (switch
  independent), so its connections are black-holed.
"""

from __future__ import annotations

import pytest

from hvnet import ScenarioError, parse_scenario, simulate
from hvnet.results import Results

SCENARIO = """
name: VM team
hosts:
  - name: hv1
    cpu: {ghz: 6}
    power_plan: high_performance
    nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}]
    vswitches: [{name: vs1, uplink: nic1}, {name: vs2, uplink: nic2}]
  - name: hv2
    cpu: {ghz: 6}
    power_plan: high_performance
    nics: [{name: nic1, speed: 100Gbps}]
    vswitches: [{name: vs, uplink: nic1}]
switches: [{name: sw}]
cables:
  - {a: hv1/nic1, b: sw/1}
  - {a: hv1/nic2, b: sw/2}
  - {a: hv2/nic1, b: sw/3}
vms:
  - {name: vm1, host: hv1, vcpus: 8, memory: 4GiB, team: {members: [vs1, vs2]}}
  - {name: vm2, host: hv2, vcpus: 8, memory: 4GiB, vswitch: vs}
"""


def run(traffic: str, events: str = "") -> Results:
    return simulate(parse_scenario(SCENARIO + "traffic:\n" + traffic + ("events:\n" + events if events else "")))


def test_outbound_spreads_over_both_vnics_and_one_connection_keeps_one() -> None:
    """64 connections out of vm1: the address hash uses both NICs; each connection one of them."""
    (flow,) = run("  - {from: vm1, to: vm2, size: 64GB, connections: 64}\n").traffic
    used = {c.nics[0].out_nic for c in flow.connection_results}
    assert used == {"hv1/nic1", "hv1/nic2"}
    assert all(len(c.nics) == 1 for c in flow.connection_results), "no connection moved"
    # Both NICs carry: the 64 GB leave at about two links' goodput, not one.
    assert flow.mean_bps is not None and flow.mean_bps > 1.5 * 10e9 * 1460 / 1538


def test_inbound_arrives_on_the_primary_only() -> None:
    """64 connections into vm1 all arrive on nic1 (the primary's MAC answers ARP): one link's rate."""
    (flow,) = run("  - {from: vm2, to: vm1, size: 64GB, connections: 64}\n").traffic
    assert {c.nics[0].in_nic for c in flow.connection_results} == {"hv1/nic1"}
    assert flow.mean_bps == pytest.approx(10e9 * 1460 / 1538, rel=1e-6)


def test_the_team_fails_over_when_a_nic_loses_link() -> None:
    """nic1 down at 2 s: the vNIC on vs1 shows disconnected, so inbound moves to nic2 at 2 s, and
    nic1's outbound connections move too; nothing is black-holed, everything completes."""
    results = run(
        "  - {from: vm2, to: vm1, size: 10GB}\n  - {from: vm1, to: vm2, size: 64GB, connections: 16}\n",
        "  - {at: 2s, action: nic_down, target: hv1/nic1}\n",
    )
    inbound, outbound = results.traffic
    (connection,) = inbound.connection_results
    assert [(n.at_s, n.in_nic) for n in connection.nics] == [(0.0, "hv1/nic1"), (2.0, "hv1/nic2")]
    moved = [c for c in outbound.connection_results if c.nics[0].out_nic == "hv1/nic1"]
    assert moved and all(c.nics[-1].out_nic == "hv1/nic2" and c.nics[-1].at_s == 2.0 for c in moved)
    assert all(t.end_s is not None and t.blackholed_s == 0.0 for t in results.traffic)


def test_a_port_that_forwards_nothing_is_not_seen() -> None:
    """nic1's switch port black-holes from 1 s to 4 s with its link up: the switch-independent
    team in vm1 keeps receiving on nic1, so the inbound connection loses those 3 s."""
    results = run(
        "  - {from: vm2, to: vm1, size: 10GB}\n",
        "  - {at: 1s, action: port_blackhole, target: sw/1}\n  - {at: 4s, action: port_restore, target: sw/1}\n",
    )
    (connection,) = results.traffic[0].connection_results
    assert [n.in_nic for n in connection.nics] == ["hv1/nic1"]
    assert connection.blackholed_s == pytest.approx(3.0)


def test_ip_addresses_hash_keeps_one_vm_pair_on_one_vnic() -> None:
    """With address_hash: ip_addresses every connection between vm1 and vm2 hashes alike: one NIC."""
    text = SCENARIO.replace("team: {members: [vs1, vs2]}", "team: {members: [vs1, vs2], address_hash: ip_addresses}")
    results = simulate(parse_scenario(text + "traffic:\n  - {from: vm1, to: vm2, size: 1GB, connections: 16}\n"))
    assert len({c.nics[0].out_nic for c in results.traffic[0].connection_results}) == 1


def test_a_vm_team_over_a_host_team_is_refused_with_the_reason() -> None:
    """hvnet simulates VM teams over virtual switches on single NICs only, and a VM with a team
    names no vswitch of its own (its traffic goes through the team)."""
    text = SCENARIO.replace(
        "    nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}]\n"
        "    vswitches: [{name: vs1, uplink: nic1}, {name: vs2, uplink: nic2}]\n",
        "    nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}, {name: nic3, speed: 10Gbps}]\n"
        "    teams: [{name: t1, members: [nic1, nic2]}]\n"
        "    vswitches: [{name: vs1, uplink: t1}, {name: vs2, uplink: nic3}]\n",
    ).replace("team: {members: [vs1, vs2]}", "team: {members: [vs1, vs2]}, vswitch: vs2")
    with pytest.raises(ScenarioError) as refused:
        parse_scenario(text, "cluster.yaml")
    lines = str(refused.value).splitlines()
    assert any("vms[0].team.members[0]: 'vs1' is bound to team 't1'" in line for line in lines), lines
    assert any(
        "vms[0].vswitch: a VM with a team sends through the team's two virtual switches" in line for line in lines
    )
