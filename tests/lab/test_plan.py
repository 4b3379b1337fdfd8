"""The lab's plan: a scenario (scaled) as namespaces, veth pairs, bridges and token buckets, before anything exists."""

from __future__ import annotations

from pathlib import Path

import hvnet
from hvnet.lab import names
from hvnet.lab.plan import FRAME_EXTRA_BYTES, plan_topology, setup_batches, sysctl_settings
from hvnet.lab.scaling import Scale, scaled_scenario
from hvnet.lower.fabric import Port
from hvnet.model import parse_scenario

ROOT = Path(__file__).resolve().parents[2]
FAILOVER = ROOT / "python" / "hvnet" / "examples" / "failover.yaml"
LAB = ROOT / "python" / "hvnet" / "lab" / "scenarios"
RUN = "a1b2c3"


def failover() -> hvnet.Scenario:
    return scaled_scenario(hvnet.load(FAILOVER), Scale(0.01, 0.25))


def test_each_host_and_switch_has_a_namespace_named_for_the_run() -> None:
    topology = plan_topology(failover(), RUN)
    assert topology.hosts == {"hv1": "hvlab-a1b2c3-h0", "hv2": "hvlab-a1b2c3-h1"}
    assert topology.switches == {"s4810": "hvlab-a1b2c3-s0"}
    assert all(names.run_of(ns) == RUN for ns in topology.namespaces)


def test_each_cable_is_a_veth_pair_from_a_host_nic_into_its_switch_port() -> None:
    """hv1/nic1 - s4810/1: nic1 in hv1's namespace (its MTU 9000, its fixed MAC), p1 in the switch's (MTU 9216),
    enslaved to the bridge; 100 Mbit/s (10 GbE at 1/100)."""
    topology = plan_topology(failover(), RUN)
    (link,) = [lk for lk in topology.links if lk.a.port == Port("hv1", "nic1")]
    assert (link.a.namespace, link.a.ifname, link.a.mtu, link.a.mac, link.a.bridged) == (
        "hvlab-a1b2c3-h0",
        "nic1",
        9000,
        names.mac(0, 0),
        False,
    )
    assert (link.b.namespace, link.b.ifname, link.b.mtu, link.b.mac, link.b.bridged) == (
        "hvlab-a1b2c3-s0",
        "p1",
        9216,
        None,
        True,
    )
    assert link.rate_bps == 1e8


def test_every_interface_name_fits_linux_and_every_mac_is_unique() -> None:
    text = (LAB / "two-hosts.yaml").read_text().replace("name: nic1", "name: SLOT 3 Port 1 (a long name)", 1)
    text = text.replace("hv1/nic1", "hv1/SLOT 3 Port 1 (a long name)")
    topology = plan_topology(scaled_scenario(parse_scenario(text), Scale()), RUN)
    ends = topology.ends
    assert all(1 <= len(e.ifname) <= names.IFNAMSIZ and " " not in e.ifname for e in ends.values())
    assert ends[Port("hv1", "SLOT 3 Port 1 (a long name)")].ifname == "nic1"
    assert topology.host_interfaces("hv1") == {"nic1": "SLOT 3 Port 1 (a long name)"}
    macs = [e.mac for e in ends.values() if e.mac]
    assert len(macs) == len(set(macs))
    indices = [e.index for e in ends.values()]
    assert len(indices) == len(set(indices)) and min(indices) > 1
    assert all(len(ns) < 64 for ns in topology.namespaces)


def test_the_setup_makes_namespaces_first_then_bridges_veths_settings_and_token_buckets() -> None:
    topology = plan_topology(failover(), RUN)
    batches = setup_batches(topology)
    assert batches[0].namespace is None
    assert batches[0].lines == tuple(f"netns add {ns}" for ns in topology.namespaces)
    assert batches[1].lines == ("link add br0 type bridge",)
    veths = [line for b in batches for line in b.lines if "type veth" in line]
    assert veths[0] == (
        "link add nic1 index 1000 address 02:68:76:00:00:00 mtu 9000 type veth "
        "peer name p1 index 1001 mtu 9216 netns hvlab-a1b2c3-s0"
    )
    assert len(veths) == 4
    tools = [b.tool for b in batches]
    assert tools.index("tc") > max(i for i, b in enumerate(batches) if "gso_max_segs" in " ".join(b.lines))
    assert all(b.tool == "tc" for b in batches[tools.index("tc") :])


def test_each_end_sends_through_a_token_bucket_at_the_cables_rate_on_the_twins_line() -> None:
    """tbf at the scaled rate, counting 24 bytes a packet beyond the kernel's (FCS, preamble, gap: the twin's
    line time); a burst of two full frames or 1 ms; a switch port's queue its buffer (20 ms unless told), a
    host's 20 ms, at least 8 frames."""
    topology = plan_topology(failover(), RUN)
    shapers = {(s.namespace, s.ifname): s for s in topology.shapers}
    assert len(shapers) == 8
    host = shapers[("hvlab-a1b2c3-h0", "nic1")]
    port = shapers[("hvlab-a1b2c3-s0", "p1")]
    frame = 9000 + 38
    assert host.line() == (
        f"qdisc replace dev nic1 root stab overhead {FRAME_EXTRA_BYTES} tbf rate 100000000bit "
        f"burst {2 * frame} limit 250000"
    )
    assert (port.burst_bytes, port.limit_bytes) == (2 * frame, 250_000)
    shallow = {(s.namespace, s.ifname): s for s in plan_topology(failover(), RUN, buffer_s=0.002).shapers}
    assert shallow[("hvlab-a1b2c3-s0", "p1")].limit_bytes == 8 * frame
    assert shallow[("hvlab-a1b2c3-h0", "nic1")].limit_bytes == 250_000


def test_a_namespaces_settings_leave_out_ipv6_and_give_hosts_the_twins_segments() -> None:
    assert sysctl_settings(None) == ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
    host = sysctl_settings(1500)
    assert "net.ipv4.tcp_timestamps=0" in host
    assert "net.ipv4.tcp_limit_output_bytes=3076" in host
