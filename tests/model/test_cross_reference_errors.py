"""Names in a scenario file that refer to other entries: each wrong one is one line where it is written.

Cables (a NIC or a port cabled twice, ports out of range, unknown devices, a
cable to itself, between switches without a speed), duplicate names, VMs on
unknown hosts or virtual switches, team members and uplinks, traffic endpoints
and event targets; and every problem of a file at once, field errors and these
together, in file order.
"""

from __future__ import annotations

from tests.model.problems import problems

# --- cross references ------------------------------------------------------------------------------

TWO_HOSTS = """\
name: t
hosts:
  - name: hv1
    nics:
      - {name: nic1, speed: 10Gbps}
      - {name: nic2, speed: 10Gbps}
  - name: hv2
    nics:
      - {name: nic1, speed: 10Gbps}
switches:
  - {name: tor1, ports: 8}
"""  # 11 lines; cases append from line 12 on


def test_nic_cabled_twice_says_where_it_is_cabled_first() -> None:
    assert problems(
        TWO_HOSTS
        + """\
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: hv2/nic1, b: tor1/2}
  - {a: hv1/nic1, b: tor1/3}
"""
    ) == ["cluster.yaml:15: cables[2].a: hv1/nic1 is already cabled at line 13"]


def test_switch_port_cabled_twice() -> None:
    assert problems(
        TWO_HOSTS
        + """\
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: hv2/nic1, b: tor1/01}
"""
    ) == ["cluster.yaml:14: cables[1].b: tor1/01 is already cabled at line 13"]


def test_port_out_of_range() -> None:
    assert problems(TWO_HOSTS + "cables:\n  - {a: hv1/nic1, b: tor1/9}\n") == [
        "cluster.yaml:13: cables[0].b: port 9 is out of range; tor1 has ports 1..8"
    ]


def test_port_that_is_not_a_number() -> None:
    assert problems(TWO_HOSTS + "cables:\n  - {a: hv1/nic1, b: tor1/eth1}\n") == [
        "cluster.yaml:13: cables[0].b: 'eth1' is not a port number of switch tor1; write tor1/1 .. tor1/8"
    ]


def test_cable_endpoint_on_an_unknown_device() -> None:
    assert problems(TWO_HOSTS + "cables:\n  - {a: hv9/nic1, b: tor1/1}\n") == [
        "cluster.yaml:13: cables[0].a: unknown host or switch 'hv9'; hosts: hv1, hv2; switches: tor1"
    ]


def test_a_cable_ends_on_a_nic_not_a_team() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}]
            teams: [{name: team1, members: [nic1, nic2]}]
          - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}
        cables:
          - {a: hv1/team1, b: hv2/nic1}
        """
    ) == ["cluster.yaml:8: cables[0].a: 'team1' is a team of hv1; name one of its NICs: nic1, nic2"]


def test_cable_endpoint_on_an_unknown_nic_or_without_a_slash() -> None:
    assert problems(TWO_HOSTS + "cables:\n  - {a: hv1/nic3, b: tor1}\n") == [
        "cluster.yaml:13: cables[0].a: hv1 has no NIC 'nic3'; its NICs: nic1, nic2",
        "cluster.yaml:13: cables[0].b: 'tor1' is not an endpoint;"
        " write host/nic (e.g. hv1/nic1) or switch/port (e.g. tor1/1)",
    ]


def test_cable_from_a_host_or_port_to_itself() -> None:
    """Back-to-back hosts are fine (hv1/nic2 to hv2/nic1); a host to itself is not."""
    assert problems(
        TWO_HOSTS
        + """\
cables:
  - {a: hv1/nic1, b: hv1/nic2}
  - {a: tor1/4, b: tor1/4}
  - {a: hv1/nic2, b: hv2/nic1}
"""
    ) == [
        "cluster.yaml:13: cables[0].b: a cable from host hv1 to itself; connect it to another device",
        "cluster.yaml:14: cables[1].b: a cable from port tor1/4 to itself; connect it to another device",
    ]


def test_switch_to_switch_cable_needs_a_speed() -> None:
    assert problems(
        TWO_HOSTS
        + """\
  - {name: spine1}
cables:
  - {a: tor1/8, b: spine1/1}
  - {a: tor1/7, b: spine1/2, speed: 40Gbps}
"""
    ) == [
        "cluster.yaml:14: cables[0]: a cable between switches tor1 and spine1 needs a speed"
        " (e.g. speed: 40Gbps) when neither switch sets port_speed"
    ]


def test_duplicate_names_across_hosts_switches_and_vms() -> None:
    assert problems(
        TWO_HOSTS
        + """\
  - {name: hv2}
vms:
  - {name: hv1, host: hv1, memory: 4GiB}
"""
    ) == [
        "cluster.yaml:12: switches[1].name: 'hv2' is already the name of a host at line 7",
        "cluster.yaml:14: vms[0].name: 'hv1' is already the name of a host at line 3",
    ]


def test_duplicate_nic_names_within_a_host() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nics:
              - {name: nic1, speed: 10Gbps}
              - {name: nic1, speed: 1Gbps}
        """
    ) == ["cluster.yaml:6: hosts[0].nics[1].name: 'nic1' is already a NIC of hv1 at line 5"]


def test_vm_on_a_host_that_does_not_exist() -> None:
    assert problems(TWO_HOSTS + "vms:\n  - {name: vm1, host: hv3, memory: 4GiB}\n") == [
        "cluster.yaml:13: vms[0].host: unknown host 'hv3'; hosts: hv1, hv2"
    ]


def test_vm_on_a_virtual_switch_its_host_lacks() -> None:
    assert problems(TWO_HOSTS + "vms:\n  - {name: vm1, host: hv1, memory: 4GiB, vswitch: vSwitch}\n") == [
        "cluster.yaml:13: vms[0].vswitch: hv1 has no virtual switch 'vSwitch'; its virtual switches: none"
    ]


def test_team_members_must_be_nics_of_the_host_in_one_team_only() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nics:
              - {name: nic1, speed: 10Gbps}
              - {name: nic2, speed: 10Gbps}
            teams:
              - {name: team1, members: [nic1, nic3]}
              - {name: team2, members: [nic1, nic2], standby: nic9}
              - {name: nic2, members: [nic2]}
        """
    ) == [
        "cluster.yaml:8: hosts[0].teams[0].members[1]: unknown NIC 'nic3'; hv1 has NICs: nic1, nic2",
        "cluster.yaml:9: hosts[0].teams[1].members[0]: 'nic1' is already a member of team team1;"
        " a NIC can be in one team only",
        "cluster.yaml:9: hosts[0].teams[1].standby: 'nic9' is not a member of team2; choose one of nic1, nic2",
        "cluster.yaml:10: hosts[0].teams[2].name: 'nic2' is already a NIC of hv1; a team needs its own name",
        "cluster.yaml:10: hosts[0].teams[2].members[0]: 'nic2' is already a member of team team2;"
        " a NIC can be in one team only",
    ]


def test_set_team_is_switch_independent_without_standby() -> None:
    """Windows' Switch Embedded Teaming has no static/LACP mode, no address hash and no standby."""
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nics:
              - {name: nic1, speed: 10Gbps}
              - {name: nic2, speed: 10Gbps}
            teams:
              - {name: set1, kind: set, members: [nic1, nic2], mode: lacp, load_balancing: address_hash, standby: nic2}
        """
    ) == [
        "cluster.yaml:8: hosts[0].teams[0].standby: a SET team has no standby member; all members are active",
        "cluster.yaml:8: hosts[0].teams[0].mode: a SET team is always switch_independent;"
        " static and lacp need kind: lbfo",
        "cluster.yaml:8: hosts[0].teams[0].load_balancing: a SET team balances by hyperv_port or dynamic;"
        " address_hash needs kind: lbfo",
    ]


def test_vswitch_uplinks() -> None:
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            nics:
              - {name: nic1, speed: 10Gbps}
              - {name: nic2, speed: 10Gbps}
              - {name: nic3, speed: 10Gbps}
            teams:
              - {name: team1, members: [nic1, nic2]}
            vswitches:
              - {name: vs1, uplink: team1}
              - {name: vs2, uplink: team1}
              - {name: vs3, uplink: nic1}
              - {name: vs4, uplink: nic9}
        """
    ) == [
        "cluster.yaml:12: hosts[0].vswitches[1].uplink: 'team1' is already the uplink of a virtual switch at line 11",
        "cluster.yaml:13: hosts[0].vswitches[2].uplink: 'nic1' is a member of team team1; make the team the uplink",
        "cluster.yaml:14: hosts[0].vswitches[3].uplink: unknown uplink 'nic9'; hv1 has NICs: nic1, nic2, nic3;"
        " teams: team1",
    ]


def test_traffic_endpoints() -> None:
    assert problems(
        TWO_HOSTS
        + """\
traffic:
  - {name: a, from: hv1, to: hv1, size: 1GB}
  - {name: a, from: hv1, to: vm7, size: 1GB}
"""
    ) == [
        "cluster.yaml:13: traffic[0].to: a flow from hv1 to itself; from and to must differ",
        "cluster.yaml:14: traffic[1].name: 'a' is already the name of a flow at line 13",
        "cluster.yaml:14: traffic[1].to: unknown host or VM 'vm7'; hosts: hv1, hv2; VMs: none",
    ]


def test_event_targets_must_exist_and_match_the_action() -> None:
    assert problems(
        TWO_HOSTS
        + """\
cables:
  - {a: hv1/nic1, b: tor1/1}
events:
  - {at: 1s, action: nic_down, target: hv1/nic9}
  - {at: 2s, action: nic_down, target: tor1/1}
  - {at: 3s, action: port_blackhole, target: hv1/nic1}
  - {at: 4s, action: port_blackhole, target: tor1/99}
  - {at: 5s, action: cable_down, target: hv2/nic1}
  - {at: 6s, action: switch_down, target: tor2}
  - {at: 7s, action: switch_down, target: tor1/1}
  - {at: 8s, action: cable_down, target: tor1/1}
  - {at: 9s, action: port_restore, target: tor1/2}
"""
    ) == [
        "cluster.yaml:15: events[0].target: hv1 has no NIC 'nic9'; its NICs: nic1, nic2",
        "cluster.yaml:16: events[1].target: 'tor1/1' is a switch port; nic_down needs host/nic, e.g. hv1/nic1"
        " (port_blackhole takes a switch port)",
        "cluster.yaml:17: events[2].target: 'hv1/nic1' is a host NIC; port_blackhole needs switch/port, e.g. tor1/1"
        " (nic_down takes a NIC)",
        "cluster.yaml:18: events[3].target: port 99 is out of range; tor1 has ports 1..8",
        "cluster.yaml:19: events[4].target: 'hv2/nic1' is not cabled;"
        " cable_down needs an end of a cable listed in cables",
        "cluster.yaml:20: events[5].target: unknown switch 'tor2'; switches: tor1",
        "cluster.yaml:21: events[6].target: 'tor1/1' is not a switch; switch_down needs a switch name"
        " (port_blackhole takes one port)",
    ]


def test_unknown_event_action_is_reported_once() -> None:
    """A bad action is pydantic's to report; the target is not checked against it."""
    assert problems(TWO_HOSTS + "events:\n  - {at: 1s, action: nic_explode, target: hv1/nic1}\n") == [
        "cluster.yaml:13: events[0].action: 'nic_explode' is not allowed; choose one of nic_down, nic_up, cable_down,"
        " cable_up, switch_down, switch_up, port_blackhole, port_restore, migrate, drain, rolling_update"
    ]


def test_all_problems_at_once_sorted_by_line() -> None:
    """Field errors (pydantic) and cross-reference errors come together, in file order."""
    assert problems(
        """\
        name: t
        hosts:
          - name: hv1
            power_plan: turbo
            nics:
              - {name: nic1, speed: 10Gbs}
        vms:
          - {name: vm1, host: hv7, memory: 4GiB}
          - {name: vm2, host: hv1, memory: 4}
        events:
          - {at: 5, action: nic_down, target: hv1/nic2}
        """
    ) == [
        "cluster.yaml:4: hosts[0].power_plan: 'turbo' is not allowed;"
        " choose one of balanced, high_performance, power_saver",
        "cluster.yaml:6: hosts[0].nics[0].speed: '10Gbs' is not a bit rate; write a number and a unit:"
        " bps, Kbps, Mbps, Gbps, Tbps (e.g. 10Gbps)",
        "cluster.yaml:8: vms[0].host: unknown host 'hv7'; hosts: hv1",
        "cluster.yaml:9: vms[1].memory: 4 has no unit; write a unit: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (e.g. 4GiB)",
        "cluster.yaml:11: events[0].at: 5 has no unit; write a unit: ns, us, ms, s, min, h (e.g. 5s)",
        "cluster.yaml:11: events[0].target: hv1 has no NIC 'nic2'; its NICs: nic1",
    ]
