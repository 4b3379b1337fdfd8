"""Which NIC a connection leaves and enters by: uplinks, and team members (BEHAVIOUR.md).

A host or VM sends through an uplink (a NIC or a team); a team picks one
member per connection and direction. These tests pin the rules that do not
depend on a particular hash value: where each side's traffic goes, that a
standby member carries nothing, that Hyper-V port binds each vSwitch port to
one member, and that address hash receives everything on the primary member.
"""

from __future__ import annotations

import textwrap

from hvnet import parse_scenario
from hvnet.endpoints import Connection, Endpoints, Router
from hvnet.model import Scenario


def scenario(team: str, vms: int = 0) -> Scenario:
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
    return parse_scenario(text)


def connections(endpoints: Endpoints, source: str, target: str, count: int = 64) -> list[Connection]:
    return [Connection(endpoints[source], endpoints[target], 49152 + i, 5001) for i in range(count)]


def test_hyperv_port_binds_each_vswitch_port_to_one_member() -> None:
    """Every connection of a VM leaves on the same member; the host and 3 VMs use all 4 members."""
    endpoints = Endpoints(scenario("load_balancing: hyperv_port", vms=3))
    used: dict[str, str] = {}
    for name in ("hv1", "vm1", "vm2", "vm3"):
        members = {endpoints.outbound_nic(c) for c in connections(endpoints, name, "hv2")}
        assert len(members) == 1, f"{name} is spread over {members}"
        used[name] = members.pop()
    assert sorted(used.values()) == ["nic1", "nic2", "nic3", "nic4"]


def test_hyperv_port_receives_on_the_same_member_it_sends_on() -> None:
    endpoints = Endpoints(scenario("load_balancing: hyperv_port", vms=3))
    for name in ("vm1", "vm2", "vm3"):
        (out,) = {endpoints.outbound_nic(c) for c in connections(endpoints, name, "hv2")}
        (into,) = {endpoints.inbound_nic(c) for c in connections(endpoints, "hv2", name)}
        assert out == into, name


def test_address_hash_spreads_outbound_and_receives_on_the_primary() -> None:
    """Switch independent + address hash: 64 connections use all 4 members outbound; all arrive on nic1."""
    endpoints = Endpoints(scenario("load_balancing: address_hash"))
    many = connections(endpoints, "hv1", "hv2")
    assert {endpoints.outbound_nic(c) for c in many} == {"nic1", "nic2", "nic3", "nic4"}
    assert {endpoints.inbound_nic(c) for c in many} == {"nic1"}


def test_switch_dependent_teams_receive_on_the_switchs_choice() -> None:
    """LACP: the switch hashes each connection, so inbound traffic spreads over the members too."""
    endpoints = Endpoints(scenario("mode: lacp, load_balancing: address_hash"))
    assert {endpoints.inbound_nic(c) for c in connections(endpoints, "hv1", "hv2")} == {
        "nic1",
        "nic2",
        "nic3",
        "nic4",
    }


def test_a_standby_member_carries_nothing() -> None:
    endpoints = Endpoints(scenario("load_balancing: address_hash, mode: static, standby: nic4"))
    many = connections(endpoints, "hv1", "hv2")
    assert "nic4" not in {endpoints.outbound_nic(c) for c in many} | {endpoints.inbound_nic(c) for c in many}


def test_a_connection_hash_is_the_rss_hash_of_its_addresses_and_ports() -> None:
    from hvnet.hashing import rss_hash

    endpoints = Endpoints(scenario("load_balancing: dynamic"))
    (connection,) = connections(endpoints, "hv1", "hv2", count=1)
    assert connection.hash() == rss_hash(endpoints["hv1"].address, endpoints["hv2"].address, 49152, 5001)
    assert endpoints["hv1"].address != endpoints["hv2"].address


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
    router = Router(parse_scenario(UPLINKS))
    route = router.route("hv1", "hv2")
    assert not isinstance(route, str)
    names = [router.fabric.names[resource] for resource, _ in route]
    assert names == ["hv1/mgmt → sw/1", "sw/4 → hv2/nic1"]
    assert all(coefficient == 1.0 for _, coefficient in route)


def test_each_route_is_a_new_connection_with_a_new_source_port() -> None:
    """Routes of repeated connections differ only by the hash of their source ports: on a team they spread."""
    router = Router(parse_scenario(UPLINKS))
    first_hops: set[str] = set()
    for _ in range(32):
        route = router.route("vm1", "hv2")
        assert not isinstance(route, str)
        first_hops.add(router.fabric.names[route[0][0]])
    assert first_hops == {"hv1/nic1 → sw/2", "hv1/nic2 → sw/3"}
