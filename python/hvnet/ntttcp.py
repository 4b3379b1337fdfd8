"""A traffic test like `ntttcp -m N,*,ip -l 128k -t T`, and its report.

N threads each open one TCP connection from the sender to the receiver and
send for T seconds. hvnet runs them on the scenario (teams, cores, frames),
then reports what ntttcp's receiver would print: per-thread and total
throughput, the average frame size, CPU % and cycles per byte of the
receiving host, so the prediction reads side by side with a real run.

- Throughput is payload: bytes received over T.
- CPU % is what the receiving machine's own ntttcp sees (its "Avg. CPU %"):
  in a VM, its vCPUs' busy time over all its vCPUs, with the guest's own
  stack's work on them; on a host, its cores' busy time over all its logical
  processors (hyper-threads count as processors but do no work of their
  own here).
- Cycles/byte is those busy cycles, at the nominal clock, per byte received.
- The average frame size is the MSS: every segment of a bulk transfer is full.
"""

from __future__ import annotations

from dataclasses import dataclass

from hvnet.calibration import Calibration
from hvnet.errors import InputError
from hvnet.lower import frames, lower
from hvnet.lower.fabric import fastest_link_bytes_per_s
from hvnet.lower.network import ConnectionRequest
from hvnet.model import Scenario
from hvnet.run import NetworkRun
from hvnet.run import run as run_core
from hvnet.series import Series

__all__ = ["NtttcpResult", "format_ntttcp", "run_ntttcp"]

#: ntttcp's "MEG" and "MB": 2^20 bytes (its Bytes(MEG) over realtime gives its MB/s).
MEG = 2**20


@dataclass(frozen=True)
class NtttcpResult:
    sender: str
    receiver: str
    seconds: float
    buffer_bytes: int
    #: Bytes received per thread, in thread order.
    thread_bytes: list[float]
    avg_frame_bytes: float
    cpu_percent: float
    cycles_per_byte: float

    @property
    def total_bytes(self) -> float:
        return sum(self.thread_bytes)

    def thread_mb_per_s(self) -> list[float]:
        """Throughput of each thread in ntttcp's MB/s (2^20 bytes per second)."""
        return [b / self.seconds / MEG for b in self.thread_bytes]

    @property
    def total_mb_per_s(self) -> float:
        """Total throughput in ntttcp's MB/s (2^20 bytes per second)."""
        return self.total_bytes / self.seconds / MEG


#: The most threads (connections) a predicted run opens, as the command line allows.
MAX_THREADS = 64
#: The longest predicted run: a day (ntttcp runs are minutes).
MAX_SECONDS = 86400.0


def ntttcp_run(
    scenario: Scenario, sender: str, receiver: str, threads: int, seconds: float, calibration: Calibration | None = None
) -> NetworkRun:
    """The test's run, recorded: `threads` connections from the sender to the receiver, each with
    more than any link carries in the test (so a thread never runs out of data; not more, so that
    what it sent keeps full precision), stopped at `seconds`. InputError when no path joins them."""
    plenty = 4 * fastest_link_bytes_per_s(scenario) * seconds
    requests = [ConnectionRequest(sender, receiver, plenty, 0.0, stop_s=seconds) for _ in range(threads)]
    lowered = lower(scenario, calibration, requests)
    for _, why in lowered.unreachable[:1]:
        raise InputError("<ntttcp>", None, "receiver", why)
    return run_core(lowered)


def run_ntttcp(
    scenario: Scenario,
    sender: str,
    receiver: str,
    threads: int,
    seconds: float,
    buffer_bytes: int = 128 * 1024,
    calibration: Calibration | None = None,
) -> NtttcpResult:
    """Runs the test on the scenario (its own traffic and events are ignored)."""
    names = {h.name for h in scenario.hosts} | {vm.name for vm in scenario.vms}
    for field, name in (("sender", sender), ("receiver", receiver)):
        if name not in names:
            valid = scenario.endpoint_names()
            raise InputError("<ntttcp>", None, field, f"{name!r} is not a host or VM of the scenario ({valid})")
    if sender == receiver:
        raise InputError("<ntttcp>", None, "receiver", "the receiver must be another host or VM than the sender")
    if not 1 <= threads <= MAX_THREADS:
        raise InputError("<ntttcp>", None, "threads", f"{threads} threads; give 1 to {MAX_THREADS} (ntttcp's -m)")
    if not 0 < seconds <= MAX_SECONDS:
        raise InputError(
            "<ntttcp>", None, "seconds", f"{seconds:g} s; give a time above 0 s and at most {MAX_SECONDS:g} s"
        )
    calibration = calibration or Calibration()
    cpu = calibration.cpu
    run = ntttcp_run(scenario, sender, receiver, threads, seconds, calibration)
    model = run.lowered.model
    assert model.cpu is not None and run.series is not None
    host = scenario.endpoint_host(receiver)
    if receiver in model.cpu.vcpus:
        processors, logical = model.cpu.vcpus[receiver], scenario.vm(receiver).vcpus
    else:
        processors, logical = model.cpu.cores[host.name], host.cpu.cores * (2 if host.cpu.smt else 1)
    busy_cycles = sum(Series.of(*run.series[p]).integral(0.0, run.end_s) for p in processors)
    nominal_busy = busy_cycles / cpu.power_plan_factor[str(host.power_plan.value)]
    received = sum(c.sent_bytes for c in run.connections)
    uplink_mtus = [n.mtu for n in scenario.endpoint_host(sender).nics] + [n.mtu for n in host.nics]
    return NtttcpResult(
        sender=sender,
        receiver=receiver,
        seconds=seconds,
        buffer_bytes=buffer_bytes,
        thread_bytes=[c.sent_bytes for c in run.connections],
        avg_frame_bytes=float(frames.mss(min(uplink_mtus))),
        cpu_percent=100.0 * nominal_busy / (logical * host.cpu.ghz * 1e9 * seconds),
        cycles_per_byte=nominal_busy / received if received else 0.0,
    )


def format_ntttcp(result: NtttcpResult) -> str:
    """The receiver's report in ntttcp's own layout (text mode)."""
    lines = [
        f"hvnet prediction of: ntttcp -r -m {len(result.thread_bytes)},*,{result.receiver} "
        f"-l {result.buffer_bytes // 1024}k -t {result.seconds:g}  (sender {result.sender})",
        "",
        "Thread  Time(s) Throughput(KB/s) Avg B / Compl",
        "======  ======= ================ =============",
    ]
    for i, b in enumerate(result.thread_bytes):
        lines.append(f"{i:>6} {result.seconds:>8.3f} {b / result.seconds / 1024:>16.3f} {result.buffer_bytes:>13.3f}")
    buffers = result.total_bytes / result.buffer_bytes
    lines += [
        "",
        "#####  Totals:  #####",
        "",
        "   Bytes(MEG)    realtime(s) Avg Frame Size Throughput(MB/s)",
        "================ =========== ============== ================",
        f"{result.total_bytes / MEG:>16.6f} {result.seconds:>11.3f} {result.avg_frame_bytes:>14.3f} "
        f"{result.total_mb_per_s:>16.3f}",
        "",
        "Throughput(Buffers/s) Cycles/Byte       Buffers",
        "===================== =========== =============",
        f"{buffers / result.seconds:>21.3f} {result.cycles_per_byte:>11.3f} {buffers:>13.3f}",
        "",
        "Avg. CPU %",
        "==========",
        f"{result.cpu_percent:>10.3f}",
    ]
    return "\n".join(lines) + "\n"
