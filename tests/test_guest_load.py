"""The guests' own CPU load against live migration (BEHAVIOUR.md: Compression
"uses only CPU that is otherwise idle"; docs/model.md, "The guests' CPU load").

Two hosts back to back, 10 Gbps at MTU 1500, 8 cores of 3 GHz each (high
performance: C = 3e9 cycles/s a core). vm1 (8 GiB, all of it data, nothing
dirtied) migrates hv1 → hv2 at 0 s; `busy` (8 vCPUs) runs on hv1 and `other`
(8 vCPUs) on hv2 with the `cpu_load` each test gives. A busy VM's work is
spread evenly over its host's cores: 8 vCPUs × load over 8 cores asks
`load × C` of each core, and shares the core with the network at equal
rates (its cycles/s, a weight-1 connection's bytes/s); compression's
connection has weight 0.1. The NICs have RSC off (as under a virtual
switch) so that a received byte costs `receive_cost(mss)`, and every
migration also takes PREPARE_S, the source's preparation of its memory
(in series with the transfer, `MigrationParameters.prepare_bytes_per_s`).
"""

from __future__ import annotations

import pytest

from hvnet import parse_scenario, simulate
from hvnet.calibration import CompressionParameters, CpuParameters, MigrationParameters
from hvnet.lower import frames
from hvnet.results import Results

GiB = 2**30
MiB = 2**20
C = 3e9
CORES = 8
#: What a migration moves: pass 1 (all of memory) and the blackout copy (the device state).
MOVED = 8 * GiB + 32 * MiB
SWITCHOVER_S = MigrationParameters().switchover_exchanges * (
    MigrationParameters().exchange_round_trip_s + 2 * CpuParameters().c_state_exit_s["c6"]
)
PREPARE_S = MOVED / (MigrationParameters().prepare_bytes_per_s or float("inf"))
SETUP_S = MigrationParameters().setup_s
CPU = CpuParameters()
SQUEEZE = CompressionParameters()

HOSTS = """
name: guest load
hosts:
  - name: hv1
    cpu: {ghz: 3, cores_per_socket: 8}
    power_plan: high_performance
    live_migration: {option: %(option)s}
    nics: [{name: nic1, speed: 10Gbps, mtu: %(mtu)d, rsc: false}]
  - name: hv2
    cpu: {ghz: 3, cores_per_socket: 8}
    power_plan: high_performance
    live_migration: {option: %(option)s}
    nics: [{name: nic1, speed: 10Gbps, mtu: %(mtu)d, rsc: false}]
cables: [{a: hv1/nic1, b: hv2/nic1}]
vms:
  - {name: vm1, host: hv1, memory: 8GiB}
  - {name: busy, host: hv1, vcpus: 8, memory: 4GiB, cpu_load: %(source_load)s}
  - {name: other, host: hv2, vcpus: 8, memory: 4GiB, cpu_load: %(destination_load)s}
events:
  - {at: 0s, action: migrate, target: vm1, to: hv2}
"""


def run(option: str, source_load: float = 0.0, destination_load: float = 0.0, mtu: int = 1500) -> Results:
    text = HOSTS % {
        "option": option,
        "mtu": mtu,
        "source_load": source_load,
        "destination_load": destination_load,
    }
    return simulate(parse_scenario(text))


def duration(results: Results, k: int = 0) -> float:
    seconds = results.migrations[k].duration_s
    assert seconds is not None
    return seconds


def core_seconds(results: Results) -> float:
    return sum(core.busy.integral(0.0, results.end_s) for core in results.cores)


def test_compression_slows_when_the_source_hosts_vms_are_busy() -> None:
    """Idle hosts: the destination's receiving core limits compression. Each
    byte of memory puts 0.5 bytes on the wire; the receiving core spends 0.5 ×
    receive cost on them and 2/8 cycles decompressing (spread over 8 cores):
    C / (0.5 × 4.15 + 0.25) = 1.29 GB/s, 6.8 s (9.4 s with the preparation and the set-up).

    hv1's VMs keep all 8 cores busy (cpu_load 1.0): on the sending core the
    guests run at λ cycles/s and compression (weight 0.1) at 0.1·λ bytes/s,
    which costs 6/8 cycles compressing and 0.5 × send cost sending per byte;
    the core is full when λ · (1 + 0.1 × (0.75 + 0.53)) = C, so compression
    moves 0.1 × C / 1.128 = 0.27 GB/s: 32.5 s (35.2 s), about 3.7 times as long."""
    idle, busy = run("compression"), run("compression", source_load=1.0)
    receive = 0.5 * CPU.receive_cost(frames.mss(1500)) + SQUEEZE.decompress_cycles_per_byte / CORES
    assert duration(idle) == pytest.approx(MOVED / (C / receive) + SWITCHOVER_S + PREPARE_S + SETUP_S, rel=1e-6)
    send = SQUEEZE.compress_cycles_per_byte / CORES + 0.5 * CPU.send_cost()
    rate = SQUEEZE.weight * C / (1 + SQUEEZE.weight * send)
    assert duration(busy) == pytest.approx(MOVED / rate + SWITCHOVER_S + PREPARE_S + SETUP_S, rel=1e-6)
    assert duration(busy) == pytest.approx(35.2, abs=0.1)
    assert 3.6 < duration(busy) / duration(idle) < 3.8


def test_compression_uses_the_idle_half_of_the_cores() -> None:
    """At cpu_load 0.1 the guests leave each core 2.7e9 cycles/s, more than
    compression needs at its idle pace (1.66 per byte on the sending core at
    1.29 GB/s: 2.1e9): nothing changes."""
    assert duration(run("compression", source_load=0.1)) == duration(run("compression"))


def test_tcp_ip_is_unchanged_while_the_cores_have_room() -> None:
    """TCP/IP at MTU 9014 is limited by the link (1.24 GB/s of payload), which
    costs the receiving core 1.97 cycles a byte: 2.45e9 of its 3e9. Guests at
    cpu_load 0.15 on both hosts ask 0.45e9 of each core: it all fits, so the
    migration takes exactly as long, and the cores show the same network work
    (the guests' own work is not in the CPU series). At cpu_load 0.2 (0.6e9)
    the receiving core would be oversubscribed, and the migration slower (the
    next test)."""
    idle = run("tcp_ip", mtu=9014)
    loaded = run("tcp_ip", source_load=0.15, destination_load=0.15, mtu=9014)
    assert duration(loaded) == duration(idle)
    assert core_seconds(loaded) == pytest.approx(core_seconds(idle), rel=1e-9)
    assert core_seconds(idle) > 0


def test_tcp_ip_slows_but_never_stalls_when_the_guests_want_every_cycle() -> None:
    """Guests at cpu_load 1.0 on both hosts: the receiving core is
    oversubscribed. Guests and the migration's connection share it at equal
    rates (λ cycles/s and λ bytes/s at 1.97 cycles a byte): λ = C / 2.97 =
    1.01 GB/s instead of the link's 1.24 GB/s — slower by about a fifth, and
    the network keeps two thirds of the core. The CPU series still show only
    the network's work: the same core-seconds as on idle hosts."""
    idle = run("tcp_ip", mtu=9014)
    busy = run("tcp_ip", source_load=1.0, destination_load=1.0, mtu=9014)
    rate = C / (1 + CPU.receive_cost(frames.mss(9014)))
    assert duration(busy) == pytest.approx(MOVED / rate + SWITCHOVER_S + PREPARE_S + SETUP_S, rel=1e-6)
    assert 1.15 < duration(busy) / duration(idle) < 1.3
    assert core_seconds(busy) == pytest.approx(core_seconds(idle), rel=1e-6)


def test_a_vms_load_moves_to_the_destination_when_its_migration_ends() -> None:
    """`busy` (cpu_load 1.0, 4 GiB) migrates hv1 → hv2 first, slowly (its own
    load is on hv1 until it ends, near 16 s); vm1 leaves hv1 at 60 s for hv2,
    and at 120 s comes back hv2 → hv1, both by Compression. `busy` now runs on
    hv2: the first trip takes as long as one onto a busy destination (35.5 s:
    hv2's receiving core, full of guest work, decompresses and receives), the
    trip back as long as one from a busy source (32.5 s; each 2.7 s more with
    the source's preparation and the set-up). Had `busy` stayed on
    hv1, it would be the other way round."""
    events = (
        "  - {at: 0s, action: migrate, target: busy, to: hv2}\n"
        "  - {at: 60s, action: migrate, target: vm1, to: hv2}\n"
        "  - {at: 120s, action: migrate, target: vm1, to: hv1}\n"
    )
    text = HOSTS.replace("  - {at: 0s, action: migrate, target: vm1, to: hv2}\n", events)
    values = {"option": "compression", "mtu": 1500, "source_load": 1.0, "destination_load": 0.0}
    load, there, back = simulate(parse_scenario(text % values)).migrations
    assert (load.vm, there.vm, back.vm) == ("busy", "vm1", "vm1")
    assert load.end_s is not None and 10 < load.end_s < 60
    onto_busy = duration(run("compression", destination_load=1.0))
    from_busy = duration(run("compression", source_load=1.0))
    assert onto_busy == pytest.approx(38.2, abs=0.1) and from_busy == pytest.approx(35.2, abs=0.1)
    assert there.duration_s == pytest.approx(onto_busy, rel=1e-6)
    assert back.duration_s == pytest.approx(from_busy, rel=1e-6)
