"""SMB Direct over a SET team across two leaves: each channel rides the host vNIC mapped to a
member, which moves to the other member while its own is down (the mapping names a *preferred*
member). A leaf that fails then costs the migration its share of the links, not its path."""

from __future__ import annotations

from hvnet import parse_scenario, simulate

HOSTS = """
name: SMB Direct over SET, a team across two leaves
hosts:
  - name: hv1
    nics: [{name: nic1, speed: 25Gbps, rdma: true}, {name: nic2, speed: 25Gbps, rdma: true}]
    teams: [{name: set1, kind: set, members: [nic1, nic2]}]
    vswitches: [{name: vs, uplink: set1}]
    live_migration: {option: smb_direct}
  - name: hv2
    nics: [{name: nic1, speed: 25Gbps, rdma: true}, {name: nic2, speed: 25Gbps, rdma: true}]
    teams: [{name: set1, kind: set, members: [nic1, nic2]}]
    vswitches: [{name: vs, uplink: set1}]
    live_migration: {option: smb_direct}
switches: [{name: leaf1}, {name: leaf2}, {name: spine1}]
cables:
  - {a: hv1/nic1, b: leaf1/1}
  - {a: hv1/nic2, b: leaf2/1}
  - {a: hv2/nic1, b: leaf2/2}
  - {a: hv2/nic2, b: leaf1/2}
  - {a: leaf1/10, b: spine1/1, speed: 100Gbps}
  - {a: leaf2/10, b: spine1/2, speed: 100Gbps}
vms: [{name: vm1, host: hv1, memory: 32GiB}]
"""


def test_a_leaf_failure_moves_the_mapped_channels_to_the_other_member() -> None:
    """hv1's nic1 and hv2's nic2 are on leaf1: with leaf1 down from the start, every channel
    pairs a member on leaf1 with one on leaf2. Each moves to its team's surviving member, the
    drain completes over one member a side, and no warning is given."""
    whole = simulate(parse_scenario(HOSTS + "events: [{at: 0s, action: drain, target: hv1}]\n", "smb.yaml"))
    failed = simulate(
        parse_scenario(
            HOSTS + "events: [{at: 0s, action: switch_down, target: leaf1}, {at: 0s, action: drain, target: hv1}]\n",
            "smb.yaml",
        )
    )
    (before,), (after,) = whole.migrations, failed.migrations
    assert before.end_s is not None and after.end_s is not None
    assert after.end_s > before.end_s  # one member a side, not two
    assert failed.warnings == []
