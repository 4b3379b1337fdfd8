"""Live migration over TCP/IP, end to end: passes, queue, blackout, records.

Two hosts back to back, one 10 Gbps NIC each at MTU 1500, cores fast enough
(6 GHz, high performance) that the link limits: a migration's connection
moves RATE = 10 Gbps × 1460/1538 of payload (hvnet.lower.frames). Pre-copy stops
below 64 MiB left or after 5 passes; the switch-over is SWITCHOVER: its
synchronous exchanges, each a round trip that wakes a core from C6 on both
hosts (`MigrationParameters.switchover_s`). The source
prepares each step's memory at PREPARE bytes/s in series with its transfer
(`MigrationParameters.prepare_bytes_per_s`), so a step of b bytes takes
b / RATE + b / PREPARE.
"""

from __future__ import annotations

import pytest

from hvnet import parse_scenario, simulate
from hvnet.calibration import CpuParameters, MigrationParameters
from hvnet.results import Results

RATE = 10e9 / 8 * 1460 / 1538
PREPARE = MigrationParameters().prepare_bytes_per_s or float("inf")
#: Each migration's set-up before its first byte (work that does not scale with memory).
SETUP = MigrationParameters().setup_s
SWITCHOVER = MigrationParameters().switchover_exchanges * (
    MigrationParameters().exchange_round_trip_s + 2 * CpuParameters().c_state_exit_s["c6"]
)
GiB = 2**30
MiB = 2**20

HOSTS = """
name: migration
hosts:
  - name: hv1
    cpu: {ghz: 6}
    power_plan: high_performance
    live_migration: {option: %(option)s, simultaneous: %(simultaneous)d}
    nics: [{name: nic1, speed: 10Gbps}]
  - name: hv2
    cpu: {ghz: 6}
    power_plan: high_performance
    live_migration: {option: %(option)s}
    nics: [{name: nic1, speed: 10Gbps}]
cables: [{a: hv1/nic1, b: hv2/nic1}]
"""


def run(vms: str, events: str, option: str = "tcp_ip", simultaneous: int = 2) -> Results:
    text = HOSTS % {"option": option, "simultaneous": simultaneous} + "vms:\n" + vms + "events:\n" + events
    return simulate(parse_scenario(text))


def test_an_idle_vm_moves_in_one_pass_and_its_blackout_copies_its_device_state() -> None:
    """4 GiB at RATE; nothing dirtied; the blackout copies 32 MiB of device state and switches over."""
    (m,) = run(
        "  - {name: vm1, host: hv1, memory: 4GiB}\n", "  - {at: 1s, action: migrate, target: vm1, to: hv2}\n"
    ).migrations
    assert (m.vm, m.source, m.destination, m.option, m.passes) == ("vm1", "hv1", "hv2", "tcp_ip", 1)
    assert m.start_s == 1.0
    assert m.end_s == pytest.approx(1.0 + SETUP + (4 * GiB + 32 * MiB) * (1 / RATE + 1 / PREPARE) + SWITCHOVER)
    assert m.blackout_s == pytest.approx(32 * MiB * (1 / RATE + 1 / PREPARE) + SWITCHOVER)
    assert m.bytes_sent == 4 * GiB + 32 * MiB
    # The VM pauses when pass 1 ends, and runs on hv2 at the end.
    assert m.blackout_start_s == pytest.approx(m.pass_details[-1].end_s)
    assert (m.peak_bps / 1e9) == pytest.approx(RATE * 8 / 1e9)


def test_a_busy_guest_needs_more_passes_and_a_longer_blackout() -> None:
    """Dirtying 800 Mbps (100 MB/s) into a 1 GiB working set: each pass leaves what the guest wrote
    meanwhile, until less than 64 MiB is left; pass 2 copies 100 MB/s × pass 1's time."""
    (m,) = run(
        "  - {name: vm1, host: hv1, memory: 8GiB, dirty_rate: 800Mbps, working_set: 1GiB}\n",
        "  - {at: 0s, action: migrate, target: vm1, to: hv2}\n",
    ).migrations
    first, second = m.pass_details[0], m.pass_details[1]
    assert first.bytes == 8 * GiB
    assert second.bytes == pytest.approx(min(GiB, 1e8 * (first.end_s - first.start_s)), abs=1)
    assert 2 <= m.passes <= 5
    # Longer than an idle VM's (device state and switch-over only): what was left is copied too.
    assert m.blackout_s is not None and m.blackout_s > 32 * MiB * (1 / RATE + 1 / PREPARE) + SWITCHOVER


def test_a_host_runs_two_at_once_and_queues_the_rest() -> None:
    """Three equal VMs asked at once, two at a time: the third starts when the first two end."""
    vms = "".join(f"  - {{name: vm{i}, host: hv1, memory: 2GiB}}\n" for i in (1, 2, 3))
    events = "".join(f"  - {{at: 0s, action: migrate, target: vm{i}, to: hv2}}\n" for i in (1, 2, 3))
    first, second, third = run(vms, events).migrations
    assert first.start_s == second.start_s == 0.0
    assert third.queued_s == 0.0
    assert third.start_s == pytest.approx(min(first.end_s or 0, second.end_s or 0))


def test_one_at_a_time_when_the_host_says_so() -> None:
    vms = "".join(f"  - {{name: vm{i}, host: hv1, memory: 2GiB}}\n" for i in (1, 2))
    events = "".join(f"  - {{at: 0s, action: migrate, target: vm{i}, to: hv2}}\n" for i in (1, 2))
    first, second = run(vms, events, simultaneous=1).migrations
    assert second.start_s == pytest.approx(first.end_s)


def test_a_migration_back_starts_from_where_the_vm_is() -> None:
    """vm1 to hv2 at 0 s, then back to hv1 at 60 s: the second record runs hv2 → hv1."""
    results = run(
        "  - {name: vm1, host: hv1, memory: 1GiB}\n",
        "  - {at: 0s, action: migrate, target: vm1, to: hv2}\n  - {at: 60s, action: migrate, target: vm1, to: hv1}\n",
    )
    assert [(m.source, m.destination) for m in results.migrations] == [("hv1", "hv2"), ("hv2", "hv1")]


def test_compression_sends_zero_pages_almost_free_and_spends_cpu() -> None:
    """A 4 GiB VM with 1 GiB populated: with Compression the 3 GiB of zero pages
    shrink to almost nothing, so it moves faster than over TCP/IP, and its
    record shows the compression work on the source's cores."""
    vm = "  - {name: vm1, host: hv1, memory: 4GiB, populated: 1GiB}\n"
    event = "  - {at: 0s, action: migrate, target: vm1, to: hv2}\n"
    (tcp,) = run(vm, event).migrations
    (compressed,) = run(vm, event, option="compression").migrations
    assert compressed.option == "compression"
    assert compressed.duration_s is not None and tcp.duration_s is not None
    assert compressed.duration_s < tcp.duration_s / 2
    assert compressed.cpu_core_s_source > tcp.cpu_core_s_source


SMB_HOSTS = """
name: smb
hosts:
%(hosts)s
cables:
  - {a: hv1/nic1, b: hv2/nic1}
  - {a: hv1/nic2, b: hv2/nic2}
vms:
  - {name: vm1, host: hv1, memory: 8GiB}
events:
  - {at: 0s, action: migrate, target: vm1, to: hv2}
"""


def smb(rdma: bool, nic2_rss_base_core: int = 0) -> Results:
    host = (
        "  - name: %s\n    cpu: {ghz: 6}\n    power_plan: high_performance\n    live_migration: {option: smb}\n"
        "    nics:\n      - {name: nic1, speed: 10Gbps, rdma: %s, rss_queues: 4}\n"
        "      - {name: nic2, speed: 10Gbps, rdma: %s, rss_queues: 4, rss_base_core: %d}\n"
    )
    hosts = "".join(host % (name, str(rdma).lower(), str(rdma).lower(), nic2_rss_base_core) for name in ("hv1", "hv2"))
    return simulate(parse_scenario(SMB_HOSTS % {"hosts": hosts}))


def test_smb_multichannel_uses_both_nics_with_four_connections_each() -> None:
    """Two RSS NICs: 8 connections (4 per NIC), both NICs busy: twice TCP/IP's one-NIC rate. With RSS tuned
    (4 queues each, nic2 from core 4: cores of its own) each connection is received on a core of its own."""
    results = smb(rdma=False, nic2_rss_base_core=4)
    (m,) = results.migrations
    assert m.option == "smb"
    assert (m.peak_bps / 1e9) == pytest.approx(2 * RATE * 8 / 1e9)
    # The blackout copy is spread over all eight connections too, not left to one of them.
    assert m.blackout_s == pytest.approx(32 * MiB * (1 / (2 * RATE) + 1 / PREPARE) + SWITCHOVER)
    assert all(a.send_bps.peak() > 9e9 for a in results.adapters if a.host == "hv1")
    busy = [c for c in results.cores if c.host == "hv2" and c.busy.peak() > 0]
    assert len(busy) == 8


def test_default_rss_puts_both_nics_on_the_same_cores() -> None:
    """Windows' default RSS base processor is 0 for every NIC: the two NICs' connections share the first
    cores (issue 16, item 3). Each NIC's RSS is its own, so its 4 connections take its 4 queues, and the
    other NIC's 4 land on those same cores: fewer busy cores, each busier, than with RSS tuned apart."""
    shared, tuned = smb(rdma=False), smb(rdma=False, nic2_rss_base_core=4)

    def busy(results: Results) -> list[float]:
        return [c.busy.peak() for c in results.cores if c.host == "hv2" and c.busy.peak() > 0]

    assert len(busy(shared)) < len(busy(tuned)) == 8
    assert max(busy(shared)) > max(busy(tuned))


def test_smb_direct_when_both_ends_have_rdma_moves_at_line_rate_with_little_cpu() -> None:
    """RDMA on both hosts: SMB Direct, 2 connections per NIC, at next to no CPU."""
    (m,) = smb(rdma=True).migrations
    assert m.option == "smb_direct"
    assert (m.peak_bps / 1e9) == pytest.approx(2 * RATE * 8 / 1e9)
    assert m.duration_s is not None
    assert m.cpu_core_s_destination / m.duration_s < 0.05


def test_an_smb_bandwidth_limit_caps_the_migration_across_both_nics() -> None:
    """Set-SmbBandwidthLimit -Category LiveMigration 5 Gbps: SMB's eight connections over two
    10 Gbps NICs move 5 Gbps together, so 8 GiB take 8 × 8 GiB / 5 Gbps (plus device state and
    switch-over, and the source's preparation) instead of half that at both NICs' rate."""
    host = (
        "  - name: %s\n    cpu: {ghz: 6}\n    power_plan: high_performance\n"
        "    live_migration: {option: smb, smb_bandwidth_limit: 5Gbps}\n"
        "    nics:\n      - {name: nic1, speed: 10Gbps}\n      - {name: nic2, speed: 10Gbps}\n"
    )
    text = SMB_HOSTS % {"hosts": host % "hv1" + host % "hv2"}
    (m,) = simulate(parse_scenario(text)).migrations
    assert (m.peak_bps / 1e9) == pytest.approx(5.0)
    assert m.duration_s == pytest.approx(SETUP + (8 * GiB + 32 * MiB) * (8 / 5e9 + 1 / PREPARE) + SWITCHOVER)


def test_smb_carries_on_over_the_other_nic_when_one_fails() -> None:
    """SMB Multichannel over two NICs; nic2 of hv1 fails at 1 s, for good: its four connections
    stall, the four on nic1 carry the rest, so the migration ends — later than with both NICs,
    sooner than if it had waited for the failed one."""
    host = (
        "  - name: %s\n    cpu: {ghz: 6}\n    power_plan: high_performance\n    live_migration: {option: smb}\n"
        "    nics:\n      - {name: nic1, speed: 10Gbps}\n      - {name: nic2, speed: 10Gbps}\n"
    )
    text = SMB_HOSTS % {"hosts": host % "hv1" + host % "hv2"}
    (both,) = simulate(parse_scenario(text)).migrations
    failed = text + f"  - {{at: {SETUP + 1.0}s, action: nic_down, target: hv1/nic2}}\n"
    (one,) = simulate(parse_scenario(failed)).migrations
    assert both.end_s is not None and one.end_s is not None
    # The set-up, 1 s at both NICs' rate, then the rest of 8 GiB (and the device state) at one NIC's.
    moved_by_1s = 2 * RATE * 1.0
    expected = (
        SETUP
        + 1.0
        + (8 * GiB - moved_by_1s) / RATE
        + 8 * GiB / PREPARE
        + 32 * MiB * (1 / RATE + 1 / PREPARE)
        + SWITCHOVER
    )
    assert one.end_s == pytest.approx(expected, rel=1e-6)
    assert one.end_s > both.end_s


def test_deep_c_states_lengthen_the_switch_over_and_nothing_else() -> None:
    """The switch-over is synchronous exchanges, each waking an idle core at both ends: from C6
    (82 µs, the shipped default) or, with the BIOS's C-states and C1E off, from C1 (1 µs). The copy
    does not change (a core that streams never sleeps), so the blackout is shorter by exactly
    exchanges × 2 × (82 − 1) µs, and so is the migration."""
    vm, event = "  - {name: vm1, host: hv1, memory: 4GiB}\n", "  - {at: 0s, action: migrate, target: vm1, to: hv2}\n"
    (deep,) = run(vm, event).migrations
    awake = (HOSTS % {"option": "tcp_ip", "simultaneous": 2}).replace(
        "cpu: {ghz: 6}", "cpu: {ghz: 6, deepest_c_state: c1}"
    )
    (shallow,) = simulate(parse_scenario(awake + "vms:\n" + vm + "events:\n" + event)).migrations
    saved = MigrationParameters().switchover_exchanges * 2 * (82e-6 - 1e-6)
    assert deep.blackout_s is not None and shallow.blackout_s is not None
    assert deep.blackout_s - shallow.blackout_s == pytest.approx(saved)
    assert deep.duration_s is not None and shallow.duration_s is not None
    assert deep.duration_s - shallow.duration_s == pytest.approx(saved)
    assert deep.bytes_sent == shallow.bytes_sent


def test_one_host_with_deep_c_states_pays_its_own_wake_only() -> None:
    """Each exchange wakes one core on each host: with C6 on the source and C1 on the destination,
    the switch-over is exchanges × (round trip + 82 µs + 1 µs)."""
    text = (HOSTS % {"option": "tcp_ip", "simultaneous": 2}).replace(
        "  - name: hv2\n    cpu: {ghz: 6}", "  - name: hv2\n    cpu: {ghz: 6, deepest_c_state: c1}"
    )
    scenario = parse_scenario(text + "vms:\n  - {name: vm1, host: hv1, memory: 1GiB}\n")
    parameters = MigrationParameters()
    expected = parameters.switchover_exchanges * (parameters.exchange_round_trip_s + 82e-6 + 1e-6)
    assert parameters.switchover_s(scenario.host("hv1"), scenario.host("hv2"), CpuParameters()) == pytest.approx(
        expected
    )


def test_many_smb_migrations_keep_their_source_ports_in_the_dynamic_range() -> None:
    """64 SMB migrations (8 channels each, 512 connections): every channel still gets a source port
    in Windows' dynamic range (49152-65535), however many migrations come before it; all complete."""
    host = (
        "  - name: %s\n    cpu: {ghz: 6}\n    power_plan: high_performance\n    live_migration: {option: smb}\n"
        "    nics:\n      - {name: nic1, speed: 10Gbps}\n      - {name: nic2, speed: 10Gbps}\n"
    )
    vms = "".join(f"  - {{name: vm{i}, host: hv1, memory: 64MiB}}\n" for i in range(64))
    text = (
        "name: many\nhosts:\n"
        + host % "hv1"
        + host % "hv2"
        + "cables:\n  - {a: hv1/nic1, b: hv2/nic1}\n  - {a: hv1/nic2, b: hv2/nic2}\n"
        + "vms:\n"
        + vms
        + "events:\n  - {at: 0s, action: drain, target: hv1}\n"
    )
    results = simulate(parse_scenario(text))
    assert len(results.migrations) == 64 and all(m.end_s is not None for m in results.migrations)


def test_smbs_connections_per_interface_are_the_calibrations() -> None:
    """SMB opens ConnectionCountPerRssNetworkInterface (4) per RSS NIC by default; set to 1, one per NIC,
    and each NIC's one connection is received on one core (RSS tuned apart: two cores in all)."""
    import dataclasses

    from hvnet.calibration import Calibration

    text = SMB_HOSTS % {
        "hosts": "".join(
            f"  - name: {name}\n    cpu: {{ghz: 6}}\n    power_plan: high_performance\n"
            "    live_migration: {option: smb}\n"
            "    nics:\n      - {name: nic1, speed: 10Gbps, rss_queues: 4}\n"
            "      - {name: nic2, speed: 10Gbps, rss_queues: 4, rss_base_core: 4}\n"
            for name in ("hv1", "hv2")
        )
    }
    calibration = Calibration()
    one = dataclasses.replace(calibration, smb=dataclasses.replace(calibration.smb, connections_per_rss_interface=1))
    default, single = simulate(parse_scenario(text)), simulate(parse_scenario(text), calibration=one)
    assert len(default.migrations[0].pass_details) == len(single.migrations[0].pass_details)

    def busy(results: Results) -> int:
        return sum(1 for c in results.cores if c.host == "hv2" and c.busy.peak() > 0)

    assert (busy(default), busy(single)) == (8, 2)


def test_smb_over_two_team_interfaces_uses_both() -> None:
    """Two LBFO teams per host, each an RSS-capable team interface: SMB Multichannel opens 4 connections on
    each (8 in all), each team's placed by its own rules from its own interface. Switch independent with
    address hashing receives on each team's primary: two members' worth, twice what one team interface
    alone receives (issue 16, item 5; it was refused as not simulated)."""

    def scenario(teams: int) -> str:
        host = (
            "  - name: %s\n    cpu: {ghz: 6}\n    power_plan: high_performance\n    live_migration: {option: smb}\n"
            "    nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}, {name: nic3, speed: 10Gbps},"
            " {name: nic4, speed: 10Gbps}]\n"
            "    teams:\n      - {name: team1, members: [nic1, nic2], load_balancing: address_hash}\n"
        ) + ("      - {name: team2, members: [nic3, nic4], load_balancing: address_hash}\n" if teams == 2 else "")
        cables = "".join(f"  - {{a: hv1/nic{n}, b: hv2/nic{n}}}\n" for n in range(1, 5))
        return (
            "name: two teams\nhosts:\n"
            + "".join(host % h for h in ("hv1", "hv2"))
            + "cables:\n"
            + cables
            + "vms:\n  - {name: vm1, host: hv1, memory: 8GiB}\n"
            "events:\n  - {at: 0s, action: migrate, target: vm1, to: hv2}\n"
        )

    two, one = simulate(parse_scenario(scenario(2))), simulate(parse_scenario(scenario(1)))
    (both,), (alone,) = two.migrations, one.migrations
    assert both.option == alone.option == "smb"
    assert (both.peak_bps / 1e9) == pytest.approx(2 * (alone.peak_bps / 1e9))
    receiving = {a.nic for a in two.adapters if a.host == "hv2" and a.receive_bps.peak() > 0}
    assert receiving == {"nic1", "nic3"}  # each team's primary


# ---- issue 23: what overlaps, what is sent, where it is received ----------------------------------

#: The part of the set-up a host does for one migration at a time (`MigrationParameters.setup_serial_s`).
SERIAL = MigrationParameters().setup_serial_s


def test_concurrent_migrations_take_turns_for_the_serial_part_of_their_set_up() -> None:
    """Two VMs asked at once, two at a time: both start (hold their slot) at 0 s, but each host does the
    serial part of one set-up at a time (Aidan Finn's 10 GbE drains: 0.8 s more per VM than the link
    needs), so their first passes start SERIAL apart, the first after the whole set-up."""
    vms = "".join(f"  - {{name: vm{i}, host: hv1, memory: 512MiB}}\n" for i in (1, 2))
    events = "".join(f"  - {{at: 0s, action: migrate, target: vm{i}, to: hv2}}\n" for i in (1, 2))
    migrations = run(vms, events).migrations
    assert [m.start_s for m in migrations] == [0.0, 0.0]
    firsts = [m.pass_details[0].start_s for m in migrations]
    assert firsts == pytest.approx([SETUP, SETUP + SERIAL])


def test_tcp_ip_sends_zero_pages_in_full() -> None:
    """What a transport sends for a VM's zero pages: TCP/IP sends every page (calibration.md C1-C5: an idle
    55 GB VM's migration moved at line rate for as long as all 55 GB take, over TCP/IP and SMB alike; Microsoft's
    2008 R2 white paper: 'all VM memory pages are transferred'), so a VM with 1 GiB of its 4 GiB populated takes
    as long as a full one; only Compression shrinks zero pages (the test above)."""
    event = "  - {at: 0s, action: migrate, target: vm1, to: hv2}\n"
    (sparse,) = run("  - {name: vm1, host: hv1, memory: 4GiB, populated: 1GiB}\n", event).migrations
    (full,) = run("  - {name: vm1, host: hv1, memory: 4GiB}\n", event).migrations
    assert sparse.bytes_sent == full.bytes_sent == 4 * GiB + 32 * MiB
    assert sparse.duration_s == pytest.approx(full.duration_s)


VNIC_HOSTS = """
name: host-vnic
hosts:
%(hosts)s
cables: [{a: hv1/nic1, b: hv2/nic1}]
vms:
%(vms)s
events:
%(events)s
"""


def host_vnic(rss: bool) -> Results:
    """Two hosts of 8 cores at 2.5 GHz whose live migrations use the host vNIC on a virtual switch over one
    10 GbE NIC, draining four 2 GiB VMs at once."""
    host = (
        "  - name: %s\n    cpu: {cores_per_socket: 8, ghz: 2.5}\n"
        "    live_migration: {option: tcp_ip, simultaneous: 4}\n"
        "    nics: [{name: nic1, speed: 10Gbps}]\n    vswitches: [{name: vs, uplink: nic1, host_vnic_rss: %s}]\n"
    )
    flag = str(rss).lower()
    text = VNIC_HOSTS % {
        "hosts": host % ("hv1", flag) + host % ("hv2", flag),
        "vms": "\n".join(f"  - {{name: vm{i}, host: hv1, memory: 2GiB}}" for i in range(1, 5)),
        "events": "  - {at: 0s, action: drain, target: hv1}",
    }
    return simulate(parse_scenario(text))


def test_a_host_vnic_without_rss_receives_every_migration_on_one_core() -> None:
    """Four migrations at once through the host vNIC on a virtual switch. With vRSS in the host partition
    (Windows Server 2016 on, the default) they are received on several cores; without it (Windows Server
    2012 and 2012 R2: host_vnic_rss false) on one, its VMQ queue's, so together they move what one core
    receives (John Savill saw 4.5 Gbps where the native NIC carried 10: docs/validation.md M24)."""
    spread, one_core = host_vnic(rss=True), host_vnic(rss=False)

    def busy(results: Results) -> int:
        return sum(1 for c in results.cores if c.host == "hv2" and c.busy.peak() > 0.05)

    def end(results: Results) -> float:
        return max(m.end_s or float("inf") for m in results.migrations)

    assert busy(one_core) == 1 < busy(spread)
    assert end(one_core) > 1.5 * end(spread)
