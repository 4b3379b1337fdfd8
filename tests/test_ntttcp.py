"""`hvnet ntttcp`: a predicted ntttcp run, per thread and in total.

The scenarios are two hosts back to back (one 10 Gbps NIC each, no virtual
switch, so receive segment coalescing works unless a test turns it off), so
the expected numbers follow from the CPU model and the frame overhead alone.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from hvnet import parse_scenario, simulate
from hvnet.calibration import CpuParameters
from hvnet.errors import InputError
from hvnet.lower import frames
from hvnet.ntttcp import MEG, format_ntttcp, run_ntttcp

Invoke = Callable[..., Result]
WriteFile = Callable[[str, str], Path]

BACK_TO_BACK = """
name: back to back
hosts:
  - {name: hv1, cpu: {sockets: 1, cores_per_socket: 8, ghz: 3.0}, power_plan: high_performance,
     nics: [{name: nic1, speed: 10Gbps, mtu: %(mtu)d, rss_queues: 8, rsc: %(rsc)s}]}
  - {name: hv2, cpu: {sockets: 1, cores_per_socket: 8, ghz: 3.0}, power_plan: high_performance,
     nics: [{name: nic1, speed: 10Gbps, mtu: %(mtu)d, rss_queues: 8, rsc: %(rsc)s}]}
cables: [{a: hv1/nic1, b: hv2/nic1}]
"""


def scenario(mtu: int = 1500, rsc: bool = True):  # type: ignore[no-untyped-def]
    return parse_scenario(BACK_TO_BACK % {"mtu": mtu, "rsc": str(rsc).lower()})


def test_one_thread_is_capped_by_its_receiving_core() -> None:
    """One connection lands on one core: 3e9 cycles/s over the receive cost at MSS 1460
    without RSC (1.55 + 3800/1460 = 4.15 cycles/byte) is about 723 MB/s, below the link's
    1.18 GB/s; with RSC (2.35 packets per indication: 2.66 cycles/byte) about 1.13 GB/s."""
    for rsc in (False, True):
        run = run_ntttcp(scenario(rsc=rsc), "hv1", "hv2", threads=1, seconds=10.0)
        expected = 3e9 / CpuParameters().receive_cost(frames.mss(1500), rsc)
        assert run.thread_bytes[0] / 10.0 == pytest.approx(expected, rel=1e-9)


def test_enough_threads_fill_the_link_at_its_goodput() -> None:
    """8 threads on up to 8 cores: the link is the limit, 10 Gbps × 1460/1538 of payload."""
    run = run_ntttcp(scenario(), "hv1", "hv2", threads=8, seconds=10.0)
    assert run.total_bytes * 8 / 10.0 == pytest.approx(frames.goodput(10e9, 1500), rel=1e-9)


def test_jumbo_frames_lift_the_single_stream_cap() -> None:
    """At MTU 9000 a byte costs fewer cycles (fewer packets), so one stream goes faster
    (without RSC, as through a virtual switch: 723 MB/s, then the link's 1.24 GB/s)."""
    small = run_ntttcp(scenario(1500, rsc=False), "hv1", "hv2", threads=1, seconds=5.0).total_bytes
    jumbo = run_ntttcp(scenario(9000, rsc=False), "hv1", "hv2", threads=1, seconds=5.0).total_bytes
    assert jumbo > 1.5 * small


def test_cpu_percent_and_cycles_per_byte_follow_the_receive_cost() -> None:
    """One stream on high performance: the receiving core is fully busy, 1 core of 16
    logical processors (8 cores with Hyper-Threading) is 6.25 %; cycles per byte is the
    receive cost (here without RSC)."""
    run = run_ntttcp(scenario(rsc=False), "hv1", "hv2", threads=1, seconds=10.0)
    assert run.cpu_percent == pytest.approx(100 / 16, rel=1e-6)
    assert run.cycles_per_byte == pytest.approx(CpuParameters().receive_cost(1460), rel=1e-6)
    assert run.avg_frame_bytes == 1460


def test_busy_guests_slow_one_stream_but_their_work_is_not_its_cpu() -> None:
    """A VM keeping all 8 of hv2's cores busy (cpu_load 1.0): the receiving core
    is shared at equal rates, the guests' cycles/s and the stream's bytes/s, so
    the stream gets 3e9 / (1 + 4.15) bytes/s instead of 3e9 / 4.15. The CPU %
    and cycles per byte count only the stream's receive work: cycles per byte
    stays the receive cost, and CPU % falls with the rate (4.15/5.15 of a core; RSC off)."""
    busy = parse_scenario(
        BACK_TO_BACK % {"mtu": 1500, "rsc": "false"}
        + "vms: [{name: app, host: hv2, vcpus: 8, memory: 8GiB, cpu_load: 1.0}]\n"
    )
    run = run_ntttcp(busy, "hv1", "hv2", threads=1, seconds=10.0)
    cost = CpuParameters().receive_cost(frames.mss(1500))
    assert run.thread_bytes[0] / 10.0 == pytest.approx(3e9 / (1 + cost), rel=1e-9)
    assert run.cycles_per_byte == pytest.approx(cost, rel=1e-6)
    assert run.cpu_percent == pytest.approx(100 / 16 * cost / (1 + cost), rel=1e-6)


VMS = """
name: between VMs
hosts:
  - {name: hv1, cpu: {sockets: 1, cores_per_socket: 8, ghz: 3.0}, power_plan: high_performance,
     nics: [{name: nic1, speed: %(speed)s}], vswitches: [{name: vs, uplink: nic1}]}
  - {name: hv2, cpu: {sockets: 1, cores_per_socket: 8, ghz: 3.0}, power_plan: high_performance,
     nics: [{name: nic1, speed: %(speed)s}], vswitches: [{name: vs, uplink: nic1}]}
cables: [{a: hv1/nic1, b: hv2/nic1}]
vms:
  - {name: vm1, host: hv1, vcpus: 4, memory: 4GiB, vswitch: vs}
  - {name: vm2, host: hv2, vcpus: 4, memory: 4GiB, vswitch: vs}
"""


def test_in_a_vm_ntttcp_sees_the_guests_vcpus() -> None:
    """ntttcp run inside the receiving VM measures the guest, not the host: one stream over
    1 GbE (the link limits: 1e9 × 1460/1538 / 8 bytes/s) is received on vCPU 0 at the guest's
    cost (1.55 + 1646/1460 = 2.68 cycles/byte), and CPU % is that work over the VM's 4 vCPUs."""
    vms = parse_scenario(VMS % {"speed": "1Gbps"})
    run = run_ntttcp(vms, "vm1", "vm2", threads=1, seconds=10.0)
    rate = frames.goodput(1e9, 1500) / 8
    cost = CpuParameters().guest_receive_cost(frames.mss(1500))
    assert run.total_bytes / 10.0 == pytest.approx(rate, rel=1e-9)
    assert run.cycles_per_byte == pytest.approx(cost, rel=1e-6)
    assert run.cpu_percent == pytest.approx(100 * rate * cost / (4 * 3e9), rel=1e-6)


def test_vrss_spreads_a_vms_receive_over_its_vcpus() -> None:
    """At 10 GbE with VMQ and 4 vCPUs, vRSS spreads the receiving guest's connections over its
    vCPUs (hash over them); at 1 GbE there is no vRSS and vCPU 0 receives them all."""
    traffic = "traffic: [{from: vm1, to: vm2, size: 1GB, connections: 16}]\n"
    for speed, busy_vcpus in (("10Gbps", 4), ("1Gbps", 1)):
        results = simulate(parse_scenario(VMS % {"speed": speed} + traffic))
        used = [v.vcpu for v in results.vcpus if v.vm == "vm2" and v.busy.peak() > 0]
        assert len(used) == busy_vcpus, speed
        assert all(0 <= v.busy.peak() <= 1 + 1e-9 for v in results.vcpus)


def test_the_report_reads_like_ntttcp() -> None:
    run = run_ntttcp(scenario(), "hv1", "hv2", threads=2, seconds=10.0)
    text = format_ntttcp(run)
    for heading in ("Thread  Time(s) Throughput(KB/s) Avg B / Compl", "#####  Totals:  #####", "Cycles/Byte"):
        assert heading in text
    total_line = text.splitlines()[
        text.splitlines().index("================ =========== ============== ================") + 1
    ]
    assert float(total_line.split()[0]) == pytest.approx(run.total_bytes / MEG, rel=1e-6)


def test_endpoints_must_exist_and_differ_by_host() -> None:
    with pytest.raises(InputError, match="'vm9' is not a host or VM"):
        run_ntttcp(scenario(), "vm9", "hv2", threads=1, seconds=1.0)
    with pytest.raises(InputError, match="another host"):
        run_ntttcp(scenario(), "hv1", "hv1", threads=1, seconds=1.0)


def test_an_unknown_name_lists_the_valid_ones() -> None:
    """The error names the scenario's hosts and VMs, sorted; past SHOWN_NAMES, how many more."""
    with pytest.raises(InputError) as caught:
        run_ntttcp(scenario(), "hv1", "nope", threads=1, seconds=1.0)
    assert "(hosts: hv1, hv2)" in str(caught.value)
    many = "hosts:\n" + "".join(f"  - {{name: h{i:02d}, nics: [{{name: nic1, speed: 10Gbps}}]}}\n" for i in range(25))
    with pytest.raises(InputError) as caught:
        run_ntttcp(parse_scenario("name: many\n" + many), "x", "h01", threads=1, seconds=1.0)
    message = str(caught.value)
    assert "hosts: h00, h01, " in message and "h19 and 5 more" in message and "h20" not in message


def test_cli_prints_the_report_and_writes_json(cli: Invoke, write: WriteFile) -> None:
    path = write("b2b.yaml", BACK_TO_BACK % {"mtu": 1500, "rsc": "true"})
    result = cli("ntttcp", path, "-s", "hv1", "-r", "hv2", "-m", "4", "-t", "5s")
    assert result.exit_code == 0, result.output
    assert "#####  Totals:  #####" in result.stdout
    document = json.loads(cli("ntttcp", path, "-s", "hv1", "-r", "hv2", "--json", "-").stdout)
    assert len(document["thread_mb_per_s"]) == 8


def test_cli_bad_endpoint_is_one_line(cli: Invoke, write: WriteFile) -> None:
    path = write("b2b.yaml", BACK_TO_BACK % {"mtu": 1500, "rsc": "true"})
    result = cli("ntttcp", path, "-s", "nope", "-r", "hv2")
    assert result.exit_code == 2
    assert result.stderr.strip().count("\n") == 0 and "nope" in result.stderr
