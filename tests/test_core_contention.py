"""Core contention: queues of several NICs on the same cores (issue 16, item 3).

Windows gives every NIC the RSS base processor 0 by default, so two NICs (or a team's members) receive on
the same cores unless an administrator moves one (`Set-NetAdapterRss -BaseProcessorNumber`; Microsoft's
guidance: members' processor sets must not overlap in Sum-of-Queues mode). Each NIC's RSS is its own
(`rss_queues` cores from its `rss_base_core`), a core shared by several queues divides its capacity among
them, and its busy share shows it. Where the cores bind, the default is slower than the tuned design and
its cores busier.
"""

from __future__ import annotations

import hvnet
from hvnet.results import Results

TWO_NICS = """
name: contention
hosts:
{hosts}
switches: [{{name: sw, ports: 8, port_speed: 25Gbps}}]
cables: [{{a: hv1/nic1, b: sw/1}}, {{a: hv1/nic2, b: sw/2}}, {{a: hv2/nic1, b: sw/3}}, {{a: hv2/nic2, b: sw/4}}]
{rest}
"""
HOST = """  - name: {name}
    cpu: {{sockets: 1, cores_per_socket: 16, ghz: 2.9}}
    live_migration: {{option: smb}}
    nics:
      - {{name: nic1, speed: 25Gbps, rss_queues: 4}}
      - {{name: nic2, speed: 25Gbps, rss_queues: 4, rss_base_core: {base}}}
{teams}"""
LACP = "    teams: [{name: team1, kind: lbfo, members: [nic1, nic2], mode: lacp}]\n"


def scenario(base: int, rest: str, teams: str = "") -> Results:
    hosts = "".join(HOST.format(name=name, base=base, teams=teams) for name in ("hv1", "hv2"))
    return hvnet.simulate(hvnet.parse_scenario(TWO_NICS.format(hosts=hosts, rest=rest), "contention.yaml"))


def busiest(results: Results, host: str) -> float:
    return max(c.busy.peak() for c in results.cores if c.host == host)


def busy_cores(results: Results, host: str) -> int:
    return sum(1 for c in results.cores if c.host == host and c.busy.peak() > 0)


MIGRATION = "vms: [{name: vm1, host: hv1, vcpus: 4, memory: 32GiB}]\nevents: [{at: 0s, action: migrate, target: vm1, to: hv2}]"


def test_an_smb_migration_over_two_nics_is_slower_with_their_rss_on_the_same_cores() -> None:
    """SMB opens 4 connections per RSS NIC. With both NICs on cores 0-3 the 8 connections share 4 cores,
    which bind; with nic2 from core 8 each NIC has its 4: the migration ends sooner, and no core is as busy."""
    default, tuned = scenario(0, MIGRATION), scenario(8, MIGRATION)
    (slow,), (fast,) = default.migrations, tuned.migrations
    assert slow.duration_s is not None and fast.duration_s is not None
    assert fast.duration_s < 0.9 * slow.duration_s
    assert busy_cores(default, "hv2") == 4 and busy_cores(tuned, "hv2") > 4
    assert busiest(default, "hv2") == 1.0


def test_a_teams_members_on_the_same_cores_share_them() -> None:
    """An LACP team of two 25 GbE members, the switch's hash spreading 16 connections over both: with the
    members' RSS overlapping the receiving cores bind below the two links; tuned apart, it goes faster."""
    copy = "traffic: [{name: copy, from: hv1, to: hv2, size: 40GB, connections: 16}]"
    default, tuned = scenario(0, copy, LACP), scenario(8, copy, LACP)
    assert tuned.traffic[0].mean_bps > 1.2 * default.traffic[0].mean_bps
    assert busy_cores(default, "hv2") == 4 and busy_cores(tuned, "hv2") == 8
