"""`hvnet validate`: each public measurement beside hvnet's prediction.

The cases are the figures of `shared/data/calibration.md`: C6, C9 and C10
(teams, cores, frames) and C1–C5, C7, C8 (live migration), and further public measurements
with their sources (V1: two VMs on one host), run on built-in scenarios of the testbeds as
reported (`examples/validation/`, whose descriptions state every assumption). Each figure is
*calibration* when a parameter was fitted on it (`Calibration.fitted_on`), else a *check*: a
prediction the calibration did not see.
The physical parameters are the global defaults of `CpuParameters` and
`frames`; nothing here is tuned per case. A figure is *explained* when the
prediction is within 15 % of the reported value (or inside a reported
range); a figure the model cannot produce says why.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from hvnet.calibration import Calibration
from hvnet.lower import frames
from hvnet.model import MigrationOption, Scenario, parse_scenario
from hvnet.ntttcp import NtttcpResult, run_ntttcp
from hvnet.results import MigrationResult, Results
from hvnet.simulation import simulate
from hvnet.units import bits_per_s, bytes_per_s

__all__ = ["Check", "run_validation", "validation_markdown"]

#: How close a prediction must be to count as explained.
TOLERANCE_PCT = 15.0


@dataclass(frozen=True)
class Check:
    """One reported figure and hvnet's prediction of it."""

    id: str
    figure: str
    reported: float | str
    predicted: float | str
    #: Relative error against the reported value (the middle of a range); None when not a number.
    error_pct: float | None
    explained: bool
    note: str = ""

    @property
    def role(self) -> str:
        """`calibration` when a parameter was fitted on this figure, `check` when the model predicts it."""
        return "calibration" if self.id in Calibration().fitted_on() else "check"

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "role": self.role,
            "reported": self.reported,
            "predicted": self.predicted,
            "error_pct": self.error_pct,
            "explained": self.explained,
        }


def _number(
    id: str, figure: str, predicted: float, reported: float, low: float | None = None, high: float | None = None
) -> Check:
    error = 100.0 * (predicted - reported) / reported
    inside = low is not None and high is not None and low <= predicted <= high
    shown: float | str = reported if low is None else f"{low:g}–{high:g}"
    return Check(id, figure, shown, round(predicted, 3), round(error, 2), inside or abs(error) <= TOLERANCE_PCT)


def _scenario(name: str) -> Scenario:
    text = resources.files("hvnet.examples").joinpath("validation").joinpath(name).read_text()
    return parse_scenario(text, f"validation/{name}")


def _c6() -> list[Check]:
    results = simulate(_scenario("c6-lacp-two-migrations.yaml"))
    # The rate each VM's migration shows while it copies (the source read it off the NICs' graphs):
    # from its first pass to its end, its set-up before the first byte left out.
    per_vm = [
        bits_per_s(m.bytes_sent / (m.end_s - m.pass_details[0].start_s)) / 1e9
        for m in results.migrations
        if m.end_s is not None and m.pass_details
    ]
    busy = sum(1 for core in results.cores if core.host == "hv2" and core.busy.peak() > 0.1)
    return [
        _number("C6/per-vm", "Gbps of each VM's migration while it copies", min(per_vm), 4.75, 4.5, 5.0),
        _number("C6/total", "Gbps of the two migrations together", sum(per_vm), 9.0),
        _number("C6/cores", "receiving cores busy (one per VM)", float(busy), 2.0),
    ]


DESIGNS = {
    "switch-independent": ("c9-independent.yaml", 108.9),
    "lacp": ("c9-lacp.yaml", 111.8),
    "set": ("c9-set.yaml", 109.1),
}


def _evenness(run: NtttcpResult) -> float:
    """Coefficient of variation of the threads' throughput (0: all equal)."""
    rates = run.thread_mb_per_s()
    return statistics.pstdev(rates) / statistics.mean(rates)


def _c9_c10() -> list[Check]:
    runs = {d: run_ntttcp(_scenario(f), "vm1", "vm2", threads=8, seconds=15.0) for d, (f, _) in DESIGNS.items()}
    checks = [
        _number(f"C9/{design}", f"total MB/s, {design} team", runs[design].total_mb_per_s, reported)
        for design, (_, reported) in DESIGNS.items()
    ]
    threads = [rate for run in runs.values() for rate in run.thread_mb_per_s()]
    checks.append(_number("C9/per-thread", "MB/s of the slowest thread", min(threads), 14.0, 13.0, 15.0))
    checks.append(_number("C9/per-thread-max", "MB/s of the fastest thread", max(threads), 14.0, 13.0, 15.0))
    # ntttcp ran in the receiving VM: its CPU figures are the guest's vCPUs' (the worst of the designs).
    cycles = max((r.cycles_per_byte for r in runs.values()), key=lambda c: abs(c - 3.15))
    cpu = max((r.cpu_percent for r in runs.values()), key=lambda c: abs(c - 5.5))
    checks.append(_number("C9/cycles-per-byte", "cycles per byte in the receiving VM", cycles, 3.15, 2.9, 3.4))
    checks.append(_number("C9/cpu", "average CPU % of the receiving VM's 2 vCPUs", cpu, 5.5, 5.0, 6.0))
    spread = {d: _evenness(r) for d, r in runs.items()}
    order = " < ".join(sorted(spread, key=lambda d: (spread[d], d)))
    equal = max(spread.values()) - min(spread.values()) < 1e-9
    checks.append(
        Check(
            "C10/evenness",
            "per-thread evenness, most even first",
            "lacp most even, set least even",
            "all equal" if equal else order,
            None,
            False,
            "in all three designs the 8 threads arrive on one member (LACP: the switch's MAC hash; switch "
            "independent and SET: the VM port's member) from senders that the sources make alike (dynamic "
            "outbound in each), so hvnet, whose transfers are fluids sharing a link equally, predicts equal "
            "threads; the spread of a 15 s run comes from TCP's loss and window dynamics, and no documented "
            "difference between the designs orders it (a parameter set to reproduce the order would be a fudge)"
            if equal
            else "",
        )
    )
    return checks


def _migrate(name: str) -> MigrationResult:
    (migration,) = simulate(_scenario(name)).migrations
    return migration


def _payload(results: Results, scenario_name: str, nic: str) -> float:
    """Payload bits hv1 sent through a NIC: its line rate over the run, less frame overhead at its MTU."""
    mtu = _scenario(scenario_name).host("hv1").nic(nic).mtu
    (adapter,) = [a for a in results.adapters if a.host == "hv1" and a.nic == nic]
    return adapter.send_bps.integral(0.0, results.end_s) / frames.wire_bytes_per_payload_byte(frames.mss(mtu))


def _live_migration() -> list[Check]:
    c1, c2, c3 = (_migrate(f"c{i}-live-migration.yaml") for i in (1, 2, 3))
    c8 = _migrate("c8-live-migration-mtu1500.yaml")
    assert c1.duration_s and c2.duration_s and c3.duration_s and c8.duration_s and c2.blackout_s and c3.blackout_s
    speedup = 100 * (c1.duration_s / c2.duration_s - 1)
    gain = 100 * (c3.bytes_sent / c3.duration_s / (c8.bytes_sent / c8.duration_s) - 1)
    blackout_cut = 100 * (1 - c3.blackout_s / c2.blackout_s)
    checks = [
        _number("C1/duration", "s to migrate 55 GB, TCP/IP, MTU 1500", c1.duration_s, 70.0),
        Check(
            "C2/faster",
            "% faster than C1 with jumbo frames",
            "10 or more",
            round(speedup, 1),
            None,
            speedup >= 10,
            "" if speedup >= 10 else "jumbo frames do not lift the single-stream cap enough",
        ),
        _number("C2/peak", "peak GB/s with jumbo frames", bytes_per_s(c2.peak_bps) / 1e9, 1.25),
        _number("C3/duration", "s with jumbo frames, C-states off", c3.duration_s, 54.0),
        _number("C3/blackout", "% shorter blackout than C2 (C-states off)", blackout_cut, 50.0),
        Check(
            "C8/jumbo-gain",
            "% more bandwidth with jumbo frames, tuned host (C3 vs MTU 1500)",
            "up to 20",
            round(gain, 1),
            None,
            0 < gain <= 20,
            "" if 0 < gain <= 20 else "the single-stream cap at MTU 1500 on a tuned host is not where C8 puts it",
        ),
    ]
    c4, c5, c7 = (simulate(_scenario(f"{case}-smb.yaml")) for case in ("c4", "c5", "c7"))
    m4, m5, m7 = c4.migrations[0], c5.migrations[0], c7.migrations[0]
    assert m4.duration_s and m5.duration_s and m7.duration_s
    c4_check = _number("C4/duration", "s, SMB over 2 × 10 GbE, one NIC jumbo", m4.duration_s, 31.0)
    smb_ideal = (
        "hvnet spreads each step perfectly over SMB's channels at their max-min rates; the measured run "
        "is slower (SMB's chunking and credits, and per-chunk latency, are not modelled)"
    )
    busy = sum(1 for core in c5.cores if core.host == "hv2" and core.busy.peak() > 0.1)
    jumbo, standard = _payload(c4, "c4-smb.yaml", "nic1"), _payload(c4, "c4-smb.yaml", "nic2")
    checks += [
        Check(
            c4_check.id,
            c4_check.figure,
            c4_check.reported,
            c4_check.predicted,
            c4_check.error_pct,
            c4_check.explained,
            "" if c4_check.explained else smb_ideal,
        ),
        Check(
            "C4/jumbo-nic-carries-more",
            "% more payload on the jumbo NIC",
            "more",
            round(100 * (jumbo / standard - 1), 1),
            None,
            jumbo > standard,
        ),
        _number("C5/duration", "s, SMB over 2 × 10 GbE, both jumbo", m5.duration_s, 28.0),
        _number("C5/busy-cores", "cores busy on the destination", float(busy), 8.0),
        _number("C7/rate", "peak Gbps, SMB Direct over 2 × 10 GbE (Task Manager's reading)", m7.peak_bps / 1e9, 20.0),
        Check(
            "C7/cpu",
            "destination cores busy on average",
            "barely above idle",
            round(m7.cpu_core_s_destination / m7.duration_s, 3),
            None,
            m7.cpu_core_s_destination / m7.duration_s < 0.5,
        ),
    ]
    return checks


def _v1() -> list[Check]:
    """Two VMs on one host, vRSS on: Didier Van Hoye, "Enabling Jumbo Frames Inside Virtual Machines Enhances
    Throughput & Reduces CPU Load" (workinghardinit blog): about 17 Gbps at MTU 1500, about 30 Gbps with jumbo
    frames in both guests. Its vCPUs, clock and tool are not reported (the scenario states what is assumed)."""
    scenario = _scenario("v1-same-host-vms.yaml")
    jumbo_vms = tuple(vm.model_copy(update={"mtu": 9000}) for vm in scenario.vms)
    jumbo = scenario.model_copy(update={"vms": jumbo_vms})
    standard_gbps, jumbo_gbps = (
        bits_per_s(run_ntttcp(s, "vm1", "vm2", threads=8, seconds=15.0).total_mb_per_s * 1e6) / 1e9
        for s in (scenario, jumbo)
    )
    return [
        _number("V1/mtu-1500", "Gbps between two VMs on one host, MTU 1500 in the guests", standard_gbps, 17.0),
        _number("V1/jumbo", "Gbps between the same VMs, MTU 9000 in the guests", jumbo_gbps, 30.0),
        _number(
            "V1/jumbo-gain",
            "jumbo over standard frames, same host (ratio)",
            jumbo_gbps / standard_gbps,
            round(30.0 / 17.0, 3),
        ),
    ]


def _f1() -> list[Check]:
    """Small VMs: Aidan Finn, "Windows Server 2012 Hyper-V Concurrent Live Migration & NIC Teaming Speed
    Comparisons" (aidanfinn.com/?p=12228): 512 MB VMs over TCP/IP, up to 20 at once. The one-VM time on
    1 GbE calibrates the set-up (`MigrationParameters.setup_s`); the rest are checks."""
    scenario = _scenario("f1-small-vms.yaml")

    def drain(vms: int, speed_bps: float) -> float:
        hosts = tuple(
            h.model_copy(update={"nics": tuple(n.model_copy(update={"speed": speed_bps}) for n in h.nics)})
            for h in scenario.hosts
        )
        results = simulate(scenario.model_copy(update={"vms": scenario.vms[:vms], "hosts": hosts}))
        return max(m.end_s or float("inf") for m in results.migrations)

    unsent = (
        "20 VMs of 512 MB in 80 s is more than 1 GbE carries (at most 9.4 GB of payload in 80 s): part of "
        "their memory was not sent (zero or unallocated pages; not reported), while the scenario sends all "
        "of it, so it over-predicts the concurrent drains"
    )
    ten, twenty = drain(10, 1e9), drain(20, 1e9)
    one_fast = drain(1, 10e9)
    checks = [
        _number("F1/1gbe-one", "s to migrate one 512 MB VM over 1 GbE", drain(1, 1e9), 7.0),
        _number("F1/1gbe-ten", "s to migrate 10 such VMs at once over 1 GbE", ten, 40.0),
        _number("F1/1gbe-twenty", "s to migrate 20 such VMs at once over 1 GbE", twenty, 80.0),
        _number("F1/10gbe-one", "s to migrate one such VM over 10 GbE", one_fast, 5.0),
        _number("F1/10gbe-ten", "s to migrate 10 such VMs at once over 10 GbE", drain(10, 10e9), 13.0),
    ]
    notes = {
        "F1/1gbe-ten": unsent,
        "F1/1gbe-twenty": unsent,
        "F1/10gbe-one": (
            "one 512 MB VM took 5 s over 10 GbE and its copy peaked at 338 MB/s (2.7 Gbps); hvnet's one "
            "stream on the assumed 3.0 GHz core goes faster, so the copy is shorter; the beta's single-stream "
            "rate, and the hosts' processors, are not reported"
        ),
        "F1/10gbe-ten": (
            "with 10 at once the 10 GbE link binds in hvnet (5.7 GB in 4.6 s, after each VM's 2.07 s set-up, "
            "all in parallel); the measured 13 s suggests per-migration work that does not overlap (set-up "
            "done in turn by the cluster, say), which hvnet does not model; the same source's 1 GbE runs are "
            "link-bound and agree better"
        ),
    }
    return [
        c
        if c.explained or c.id not in notes
        else Check(c.id, c.figure, c.reported, c.predicted, c.error_pct, c.explained, notes[c.id])
        for c in checks
    ]


def v2_figures(nic2_base: int, calibration: Calibration | None = None) -> tuple[float, float]:
    """V2's testbed (four TCP/IP migrations over a 2 x 10 GbE LACP team) with nic2's RSS from core
    `nic2_base` on both hosts (0: Windows' default, on nic1's cores; 8: tuned apart): the Gbps of the
    migrations together while they copy, and the destination's CPU % as Task Manager shows it."""
    scenario = _scenario("v2-lacp-migrations-cpu.yaml")
    hosts = tuple(
        h.model_copy(
            update={
                "nics": tuple(
                    n.model_copy(update={"rss_base_core": nic2_base}) if n.name == "nic2" else n for n in h.nics
                )
            }
        )
        for h in scenario.hosts
    )
    results = simulate(scenario.model_copy(update={"hosts": hosts}), calibration=calibration)
    first = min(m.pass_details[0].start_s for m in results.migrations if m.pass_details)
    end = max(m.end_s or results.end_s for m in results.migrations)
    gbps = bits_per_s(sum(m.bytes_sent for m in results.migrations) / (end - first)) / 1e9
    # Task Manager's CPU %: the destination's busy core-seconds over its logical processors (the busier side).
    host = scenario.host("hv2")
    logical = host.cpu.cores * (2 if host.cpu.smt else 1)
    core_s = sum(c.busy.integral(first, end) for c in results.cores if c.host == "hv2")
    return gbps, 100 * core_s / (end - first) / logical


def _v2() -> list[Check]:
    """Live migrations over a 2 x 10 GbE LACP team and their CPU, default and tuned RSS: Didier Van Hoye,
    "High performance live migration done right means using SMB Direct" (workinghardinit blog, 2015):
    about 17 Gbps at 22 % CPU with RSS at the inbox default, about 12 % with RSS tuned."""
    (rate, cpu_default), (_, cpu_tuned) = v2_figures(0), v2_figures(8)
    unmodelled = (
        "hvnet charges a core the cycles of the bytes it receives and sends (about 1.7 cycles per byte at MTU "
        "9000, calibrated on C2 and C9), not the rest of a live migration's work (reading and mapping the "
        "guest's memory, modelled as time, vmms and vmwp), which Task Manager's figure includes"
    )
    return [
        _number("V2/rate", "Gbps of four migrations together over a 2 x 10 GbE LACP team", rate, 17.0),
        Check(
            *_fields(_number("V2/cpu-default", "CPU % on the destination, RSS at the default", cpu_default, 22.0)),
            unmodelled,
        ),
        Check(*_fields(_number("V2/cpu-tuned", "CPU % on the destination, RSS tuned", cpu_tuned, 12.0)), unmodelled),
        Check(
            "V2/tuning-cuts-cpu",
            "% less CPU with RSS tuned than at the default",
            round(100 * (1 - 12 / 22), 1),
            round(100 * (1 - cpu_tuned / cpu_default), 1),
            None,
            False,
            "at the default both members' RSS sets are cores 0-7, so a connection on each member lands on the "
            "same core, which then costs 27 % more per byte (cpu.shared_queue_overhead, fitted on V2/rate) and "
            "binds; tuned, each core serves one member: 13 % less CPU (and 10 % more throughput, 'not much "
            "better' in the source); the rest of the measured 45 % is work hvnet does not charge (the worker "
            "process's memory work, which the tuning also moved to the other socket: NUMA is not modelled)",
        ),
    ]


def _fields(check: Check) -> tuple[str, str, float | str, float | str, float | None, bool]:
    """A check's fields but its note (to give it one)."""
    return check.id, check.figure, check.reported, check.predicted, check.error_pct, check.explained


def _f2() -> list[Check]:
    """TCP/IP and Compression over 1 GbE: Aidan Finn's 8 GB VM (aidanfinn.com/?p=15421) and Microsoft's
    expectation that Compression halves the time; TechEd 2013's demo (4 x) as reported by the press."""
    scenario = _scenario("f2-compression-1gbe.yaml")

    def duration(option: MigrationOption) -> float:
        hosts = tuple(
            h.model_copy(update={"live_migration": h.live_migration.model_copy(update={"option": option})})
            for h in scenario.hosts
        )
        (migration,) = simulate(scenario.model_copy(update={"hosts": hosts})).migrations
        return migration.duration_s or float("inf")

    tcp, compressed = duration(MigrationOption.TCP_IP), duration(MigrationOption.COMPRESSION)
    gain = tcp / compressed
    content = (
        "how fast Compression goes on a link that bounds it is how well the memory compresses: "
        f"compression.ratio as shipped (assumed 0.5, range 0.3-0.8) gives {gain:.1f} x; 4 x needs 0.25 or "
        "less (a VM with many zero or alike pages); the demo's VM and link are not reported"
    )
    return [
        _number("F2/tcp-ip", "s to migrate an 8 GB VM over 1 GbE, TCP/IP", tcp, 78.0),
        _number("F2/compression-gain", "TCP/IP time over Compression time, 1 GbE (Microsoft: halves it)", gain, 2.0),
        Check(
            *_fields(_number("F2/teched-gain", "the same, TechEd 2013's demo (over 60 s vs about 15 s)", gain, 4.0)),
            content,
        ),
    ]


CASES: list[Callable[[], list[Check]]] = [_c6, _c9_c10, _live_migration, _v1, _v2, _f1, _f2]


def run_validation() -> list[Check]:
    return [check for case in CASES for check in case()]


def validation_markdown(checks: list[Check]) -> str:
    """docs/validation.md: the table, then the reasons for what is not explained."""
    explained = sum(c.explained for c in checks)
    lines = [
        "# Validation: hvnet beside public measurements",
        "",
        "Generated by `hvnet validate --markdown`; do not edit by hand. Each figure of",
        "`shared/data/calibration.md` that the network model covers, and of the further public",
        "measurements listed below (V1, V2, F1, F2), run on a built-in",
        "scenario of the testbed as reported (`python/hvnet/examples/validation/`, whose",
        "descriptions state every assumption), with the global physical parameters",
        f"(docs/model.md). A figure is explained within {TOLERANCE_PCT:g} % or inside a reported range.",
        "",
        f"**{explained} of {len(checks)} figures explained.**",
        "",
        "| id | role | figure | reported | predicted | error % | explained |",
        "|----|------|--------|----------|-----------|---------|-----------|",
    ]
    for c in checks:
        error = "" if c.error_pct is None else f"{c.error_pct:+.1f}"
        explained_mark = "yes" if c.explained else "no"
        lines.append(f"| {c.id} | {c.role} | {c.figure} | {c.reported} | {c.predicted} | {error} | {explained_mark} |")
    notes = [c for c in checks if c.note]
    if notes:
        lines += ["", "## Not explained, and why", ""]
        lines += [f"- **{c.id}**: {c.note}." for c in notes]
    lines += [
        "",
        "**Calibration and checks.** A figure marked *calibration* fixed a parameter",
        "(`Calibration.fitted_on`); its agreement checks the fit, not a prediction:",
        "C2/peak the receive cost per byte and per packet (with BEHAVIOUR.md's 3–5 Gbps per",
        "core of VM traffic), C1/duration RSC's packets per indication, C9/cycles-per-byte a",
        "guest's receive cost per packet, C3/duration the source's preparation rate, C3/blackout",
        "the switch-over's synchronous exchanges (each wakes a core at both ends: 82 µs from C6,",
        "Intel's exit latency, 1 µs from C1), F1/1gbe-one the fixed set-up of a migration, V2/rate",
        "what a core costs more per byte while two NICs' RSS queues receive on it. Every",
        "other figure is a *check*: predicted by parameters fitted elsewhere. C6's two streams share",
        "one team member (the LACP hashes put them together), so each gets half a link.",
        "",
        "**Sources beyond calibration.md**, each a check unless marked above:",
        "",
        '- V1: Didier Van Hoye, "Enabling Jumbo Frames Inside Virtual Machines Enhances',
        '  Throughput & Reduces CPU Load" (blog.workinghardinit.work): two Windows Server',
        "  2012 R2 VMs on one host, vRSS on, about 17 Gbps (21 at best) at MTU 1500 and about",
        "  30 Gbps with jumbo frames in both guests. Neither the VMs' vCPUs, the clock nor the",
        "  tool is reported; the scenario assumes 8 vCPUs each, the common testbed's 2.9 GHz at",
        "  high performance and 8 ntttcp threads. The rates scale with those assumptions (4",
        "  vCPUs halve them); their ratio does not, and is the firmer check.",
        '- V2: Didier Van Hoye, "High performance live migration done right means using SMB',
        '  Direct" (blog.workinghardinit.work, 2015): TCP/IP live migrations over a 2 × 10 GbE',
        "  LACP team, about 17 Gbps at 22 % CPU with RSS at the default, about 12 % tuned, the",
        "  throughput then not much better. The rate at the default fixes the cost of a shared",
        "  core; the CPU is not explained (see its notes): hvnet's CPU is the network's work",
        "  only, a lower bound of what Task Manager shows during a live migration.",
        '- F1: Aidan Finn, "Windows Server 2012 Hyper-V Concurrent Live Migration & NIC',
        '  Teaming Speed Comparisons" (aidanfinn.com/?p=12228): 512 MB VMs over TCP/IP, one and',
        "  up to 20 at once, on 1 and 10 GbE.",
        '- F2: Aidan Finn, "Comparing TCPIP, Compressed, and SMB WS2012 R2 Hyper-V Live',
        '  Migration Speeds" (aidanfinn.com/?p=15421): an 8 GB VM over 1 GbE by TCP/IP in over',
        "  78 s; Microsoft's expectation that Compression halves it (Ben Armstrong, \"Faster Live",
        "  Migration with Compression in Windows Server 2012 R2\"); TechEd 2013's demo, over 60 s",
        "  against about 15 s (as Impress Cloud Watch reported it).",
    ]
    return "\n".join(lines) + "\n"
