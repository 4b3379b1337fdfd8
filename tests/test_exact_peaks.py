"""Exact peaks and exact bytes (issue 12): on random small scenarios, no NIC's series and no
migration's peak is ever above what it crosses can carry, and what a NIC's series integrates
to is what the connections on it moved.

The series are the core's change points as they are (`hvnet.series.Series`), so a peak is
the true maximum of a piecewise-constant rate and an integral is exact: there is no step
whose mean could hide a spike, or whose edge could lose a sliver of bytes.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hvnet import parse_scenario, simulate
from hvnet.lower import frames

SPEEDS = {"1Gbps": 1e9, "10Gbps": 10e9, "25Gbps": 25e9}


@st.composite
def teamed_clusters(draw: st.DrawFn) -> tuple[str, float, int]:
    """Three hosts with a team of 1-4 NICs each (SET or LBFO), random traffic between them, and a
    drain of hv1's VMs (TCP/IP or SMB) at a random time. Returns the YAML, the NIC speed and the
    team's size."""
    nics = draw(st.integers(1, 4))
    speed = draw(st.sampled_from(sorted(SPEEDS)))
    option = draw(st.sampled_from(["tcp_ip", "smb"]))
    kind = draw(st.sampled_from(["set", "lbfo"]))
    balancing = draw(st.sampled_from(["dynamic", "hyperv_port"]))
    names = [f"nic{i}" for i in range(1, nics + 1)]
    hosts = []
    cables = []
    port = 1
    for h in ("hv1", "hv2", "hv3"):
        nic_list = ", ".join(f"{{name: {n}, speed: {speed}, mtu: 9000}}" for n in names)
        team = ""
        uplink = names[0]
        if nics > 1:
            mode = "" if kind == "set" else ", mode: switch_independent"
            team = (
                f"\n    teams: [{{name: team1, kind: {kind}, members: [{', '.join(names)}]{mode},"
                f" load_balancing: {balancing}}}]"
            )
            uplink = "team1"
        hosts.append(
            f"  - name: {h}\n    cpu: {{sockets: 1, cores_per_socket: 8, ghz: 2.9}}\n    memory: 128GiB\n"
            f"    nics: [{nic_list}]{team}\n    vswitches: [{{name: vs, uplink: {uplink}}}]\n"
            f"    live_migration: {{option: {option}, simultaneous: 2}}"
        )
        for n in names:
            cables.append(f"  - {{a: {h}/{n}, b: sw/{port}}}")
            port += 1
    vms = [
        f"  - {{name: vm{i}, host: hv1, vcpus: 2, memory: {draw(st.integers(1, 6))}GiB, vswitch: vs}}"
        for i in range(1, draw(st.integers(1, 3)) + 1)
    ]
    flows = []
    for _ in range(draw(st.integers(0, 4))):
        a, b = draw(st.permutations(["hv1", "hv2", "hv3"]))[:2]
        size = draw(st.integers(1, 40)) * 100
        flows.append(
            f"  - {{from: {a}, to: {b}, size: {size}MB, connections: {draw(st.integers(1, 4))},"
            f" start: {draw(st.integers(0, 5))}s}}"
        )
    drain_at = draw(st.integers(0, 5))
    yaml = (
        "name: random\nhosts:\n" + "\n".join(hosts) + "\nswitches: [{name: sw, ports: 48, port_speed: 25Gbps}]\n"
        "cables:\n"
        + "\n".join(cables)
        + "\nvms:\n"
        + "\n".join(vms)
        + "\n"
        + ("traffic:\n" + "\n".join(flows) + "\n" if flows else "")
        + f"events:\n  - {{at: {drain_at}s, action: drain, target: hv1}}\n"
    )
    return yaml, SPEEDS[speed], nics


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(teamed_clusters())
def test_no_peak_exceeds_what_it_crosses(case: tuple[str, float, int]) -> None:
    yaml, speed, nics = case
    results = simulate(parse_scenario(yaml, "random.yaml"))
    for a in results.adapters:
        for series in (a.send_bps, a.receive_bps):
            assert series.peak() <= a.speed_bps * (1 + 1e-9), (a.host, a.nic, series.peak())
            assert max(series.values, default=0.0) == series.peak() or series.peak() == 0.0
    assert results.migrations
    for m in results.migrations:
        # A migration may use every NIC of its hosts' team (SMB Multichannel, or one member for TCP/IP).
        assert (m.peak_bps / 1e9) * 1e9 <= nics * speed * (1 + 1e-9), (m.vm, (m.peak_bps / 1e9))


@st.composite
def one_nic_clusters(draw: st.DrawFn) -> tuple[str, list[tuple[str, int]]]:
    """Four hosts, one 10 Gbps NIC each (MTU 1500) on one switch, and random transfers between
    them: every byte leaves by its source host's only NIC."""
    hosts = "\n".join(
        f"  - {{name: hv{i}, cpu: {{ghz: 3}}, nics: [{{name: nic1,"
        f" speed: {draw(st.sampled_from(['1Gbps', '10Gbps']))}}}]}}"
        for i in range(1, 5)
    )
    cables = "\n".join(f"  - {{a: hv{i}/nic1, b: sw/{i}}}" for i in range(1, 5))
    flows = []
    sent: list[tuple[str, int]] = []
    for _ in range(draw(st.integers(1, 6))):
        a, b = draw(st.permutations([f"hv{i}" for i in range(1, 5)]))[:2]
        size = draw(st.integers(1, 3000)) * 1_000_000
        start = draw(st.integers(0, 300)) / 100
        flows.append(
            f"  - {{from: {a}, to: {b}, size: {size}B, connections: {draw(st.integers(1, 3))}, start: {start}s}}"
        )
        sent.append((a, size))
    yaml = (
        f"name: one NIC each\nhosts:\n{hosts}\nswitches: [{{name: sw, ports: 8, port_speed: 10Gbps}}]\n"
        f"cables:\n{cables}\ntraffic:\n" + "\n".join(flows) + "\n"
    )
    return yaml, sent


@settings(max_examples=40, deadline=None)
@given(one_nic_clusters())
def test_each_nic_integrates_to_the_bytes_its_connections_moved(case: tuple[str, list[tuple[str, int]]]) -> None:
    yaml, sent = case
    results = simulate(parse_scenario(yaml, "one-nic.yaml"))
    assert not results.stalled
    wire = frames.wire_bytes_per_payload_byte(frames.mss(1500))
    for a in results.adapters:
        payload = sum(size for host, size in sent if host == a.host)
        received = sum(size for t, (host, size) in zip(results.traffic, sent) if t.destination == a.host)
        assert a.send_bps.integral(0.0, results.end_s) / 8 == _close(payload * wire), a.host
        assert a.receive_bps.integral(0.0, results.end_s) / 8 == _close(received * wire), a.host
        # The mean over the whole run, and a per-second grid, carry the same bytes.
        grid = a.send_bps.resample(1.0, results.end_s)
        assert sum(grid) / 8 == _close(payload * wire)


def _close(expected: float) -> object:
    import pytest

    return pytest.approx(expected, rel=1e-9, abs=1e-6)
