"""Dynamic VMQ: VM queues that share a busy core spread over the host's cores
(docs/model.md, "Cores"; crates/network/src/run/vmq.rs).

hv1 sends to VMs on hv2, back to back over one 10 Gbps NIC each at MTU 1500.
hv2 has 3 cores of 3 GHz (high performance: C = 3e9 cycles/s a core) and a
virtual switch on its NIC, so what the VMs receive is not coalesced: a byte
costs k = receive_cost(1460) = 1.55 + 3800/1460 ≈ 4.15 cycles on its VM's
queue core, and one core receives at most C/k ≈ 723 MB/s. Static VMQ deals
queues round robin over cores 1 and 2 (core 0 keeps the default queue):
vm-a on core 1, vm-b on core 2, vm-c on core 1 again. Each VM has 1 vCPU,
so no vRSS: one queue, one core.
"""

from __future__ import annotations

import pytest

from hvnet import parse_scenario, simulate
from hvnet.calibration import CpuParameters, VmqParameters
from hvnet.lower import frames
from hvnet.lower.cpu import CpuModel
from hvnet.model import Scenario
from hvnet.results import Results

C = 3e9
K = CpuParameters().receive_cost(frames.mss(1500))
#: Payload bytes/s the link carries (10 Gbps less frame overhead).
GOODPUT = frames.goodput(10e9, 1500) / 8
SIZE = 10e9
INTERVAL = VmqParameters().interval_s

SCENARIO = """
name: dynamic vmq
hosts:
  - name: hv1
    cpu: {ghz: 3, cores_per_socket: 8}
    power_plan: high_performance
    nics: [{name: nic1, speed: 10Gbps}]
  - name: hv2
    cpu: {ghz: 3, cores_per_socket: 3}
    power_plan: high_performance
    nics: [{name: nic1, speed: 10Gbps, dynamic_vmq: %(dynamic)s}]
    vswitches: [{name: vs, uplink: nic1}]
cables: [{a: hv1/nic1, b: hv2/nic1}]
vms:
  - {name: vm-a, host: hv2, memory: 4GiB, vswitch: vs}
  - {name: vm-b, host: hv2, memory: 4GiB, vswitch: vs}
  - {name: vm-c, host: hv2, memory: 4GiB, vswitch: vs}
traffic:
"""


def scenario(dynamic: bool, *targets: str, extra: str = "") -> Scenario:
    text = SCENARIO % {"dynamic": str(dynamic).lower()} + "".join(
        f"  - {{from: hv1, to: {t}, size: 10GB}}\n" for t in targets
    )
    return parse_scenario(text + extra)


def ends(results: Results) -> list[float]:
    times = [t.end_s for t in results.traffic]
    assert all(t is not None for t in times)
    return [t for t in times if t is not None]


def test_two_busy_vms_sharing_a_core_spread_and_finish_sooner() -> None:
    """vm-a and vm-c share core 1. Static: the core is their limit, C/(2k) ≈
    361 MB/s each, 10 GB in ≈ 27.7 s. Dynamic: at the first tick (1 s) core 1
    is full and holds two queues, core 2 is idle: one queue moves there. Then
    each VM has a core (C/k ≈ 723 MB/s) but the link carries only ≈ 1.19 GB/s
    for the two: ≈ 593 MB/s each, so 1 + (10 GB − 361 MB) / 593 MB/s ≈ 17.2 s."""
    shared = C / (2 * K)
    static = ends(simulate(scenario(False, "vm-a", "vm-c")))
    assert static == pytest.approx([SIZE / shared] * 2, rel=1e-9)
    dynamic = ends(simulate(scenario(True, "vm-a", "vm-c")))
    after = min(C / K, GOODPUT / 2)
    expected = INTERVAL + (SIZE - shared * INTERVAL) / after
    assert dynamic == pytest.approx([expected] * 2, rel=1e-9)
    assert max(dynamic) < 0.65 * min(static)


def test_the_moved_queue_takes_its_work_to_the_idle_core() -> None:
    """Core 2 (hv2's third core) is idle for the first second, then busy with
    the moved queue; core 1 keeps the other."""
    results = simulate(scenario(True, "vm-a", "vm-c"))
    busy = {c.core: c.busy.resample(1.0, results.end_s) for c in results.cores if c.host == "hv2"}
    assert busy[0][0] == 0.0 and busy[2][0] == 0.0
    assert busy[1][0] == pytest.approx(1.0)
    assert busy[1][2] == pytest.approx(busy[2][2]) and busy[2][2] > 0.8


@pytest.mark.parametrize("targets", [("vm-a",), ("vm-a", "vm-b")])
def test_queues_alone_on_their_cores_behave_the_same_with_or_without_it(targets: tuple[str, ...]) -> None:
    """One busy VM, or two on cores of their own (vm-a core 1, vm-b core 2):
    nothing to spread, so the run is the static one, event for event."""
    static = simulate(scenario(False, *targets))
    dynamic = simulate(scenario(True, *targets))
    assert dynamic.events == static.events
    assert dynamic.traffic == static.traffic
    assert [c.busy for c in dynamic.cores] == [c.busy for c in static.cores]


def test_a_shared_core_that_is_not_busy_keeps_its_queues() -> None:
    """vm-a and vm-c share core 1 but the link is slow: 2 Gbps carries about
    237 MB/s of payload for the two, k × 237 MB/s ≈ 0.98e9 cycles/s, so core 1
    is a third busy, below the 90 % threshold: nothing moves."""
    slow = SCENARIO.replace("speed: 10Gbps", "speed: 2Gbps")
    runs = []
    for dynamic in (False, True):
        text = slow % {"dynamic": str(dynamic).lower()}
        text += "  - {from: hv1, to: vm-a, size: 1GB}\n  - {from: hv1, to: vm-c, size: 1GB}\n"
        runs.append(simulate(parse_scenario(text)))
    assert runs[0].traffic == runs[1].traffic


TEAMED = """
name: dynamic vmq on a team
hosts:
  - name: hv1
    cpu: {ghz: 3, cores_per_socket: 8}
    power_plan: high_performance
    nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}]
    teams: [{name: t, members: [nic1, nic2], load_balancing: %(balancing)s}]
  - name: hv2
    cpu: {ghz: 3, cores_per_socket: 3}
    power_plan: high_performance
    nics: [{name: nic1, speed: 10Gbps, dynamic_vmq: %(dynamic)s}, {name: nic2, speed: 10Gbps, dynamic_vmq: %(dynamic)s}]
    teams: [{name: t, members: [nic1, nic2], load_balancing: %(balancing)s}]
    vswitches: [{name: vs, uplink: t}]
switches: [{name: s1, ports: 8, port_speed: 10Gbps}]
cables:
  - {a: hv1/nic1, b: s1/1}
  - {a: hv1/nic2, b: s1/2}
  - {a: hv2/nic1, b: s1/3}
  - {a: hv2/nic2, b: s1/4}
vms:
  - {name: vm-a, host: hv2, memory: 4GiB, vswitch: vs}
  - {name: vm-b, host: hv2, memory: 4GiB, vswitch: vs}
  - {name: vm-c, host: hv2, memory: 4GiB, vswitch: vs}
traffic:
  - {from: hv1, to: vm-a, size: 10GB, connections: 4}
  - {from: hv1, to: vm-c, size: 10GB, connections: 4}
"""


@pytest.mark.parametrize("balancing", ["dynamic", "hyperv_port", "address_hash"])
def test_team_members_are_the_same_with_or_without_it(balancing: str) -> None:
    """Dynamic VMQ moves a queue between cores, never a connection between
    team members: each connection's NICs are those of the static run (the
    sender hv1's team rebalances by rate, but with equal rates per VM it
    picks the same members); the spread queues finish sooner."""
    runs = [simulate(parse_scenario(TEAMED % {"dynamic": d, "balancing": balancing})) for d in ("false", "true")]
    static, dynamic = ([c.nics for t in r.traffic for c in t.connection_results] for r in runs)
    assert dynamic == static
    assert max(ends(runs[1])) < min(ends(runs[0]))


def test_only_a_single_queue_on_a_vmq_nic_with_dynamic_vmq_can_move() -> None:
    """The cores a VM's queue may move among: static VMQ's (1 and 2 of hv2's
    0..2) for vm-a; none with dynamic_vmq or vmq off, or with vRSS (2+ vCPUs
    on a 10 Gbps NIC keep their spread)."""

    def queue_cores(nic: str, vcpus: int = 1) -> tuple[int, ...]:
        text = (SCENARIO % {"dynamic": "true"} + "  - {from: hv1, to: vm-a, size: 1GB}\n").replace(
            "{name: nic1, speed: 10Gbps, dynamic_vmq: true}", nic
        )
        text = text.replace("{name: vm-a, host: hv2,", f"{{name: vm-a, host: hv2, vcpus: {vcpus},")
        s = parse_scenario(text)
        names: list[str] = []

        def add_resource(name: str, _cycles: float) -> int:
            names.append(name)
            return len(names) - 1

        model = CpuModel(s, add_resource, CpuParameters())
        cores = model.vm_queue_cores("vm-a", s.host("hv2"), ["nic1"])
        return tuple(int(names[k].removeprefix("hv2 core ")) for k in cores)

    assert queue_cores("{name: nic1, speed: 10Gbps}") == (1, 2)
    assert queue_cores("{name: nic1, speed: 10Gbps, dynamic_vmq: false}") == ()
    assert queue_cores("{name: nic1, speed: 10Gbps, vmq: false}") == ()
    assert queue_cores("{name: nic1, speed: 10Gbps}", vcpus=2) == ()
