"""Counter logs beside a simulation: per NIC and per core, p50/p90/p99/max over the same window.

A counter log (PDH-CSV from typeperf/relog/logman, sar/sadf) holds a series
per NIC (bytes sent and received per second) and per processor (% Processor
Time). Each series is matched to the scenario:

- the **host** is the log's computer name (``\\\\HV1\\...``; sadf's host) when it
  is a host of the scenario;
- the **NIC** is the scenario NIC whose name is the instance, or else whose
  ``model`` is the instance without its ``#N`` (the adapter's description, as
  `hvnet import config` writes it) when exactly one NIC of that host has it;
- a **processor** ``N`` (``Processor(N)``, ``Processor Information(0,N)``) is
  core ``N // 2`` of a host with SMT, else core ``N``; a core's measured busy
  is the busier of its logical processors (hvnet puts a core's work on one of
  its threads).

A series that cannot be matched is listed with the reason, not guessed.

The simulation is the scenario's own traffic and events, plus the measured
test when an NTttcp or iperf3 file is explained with the log (a flow of the
bytes the test is predicted to move, over its threads, from t = 0). It runs
at the log's sampling interval; the window is the log's span from its first
sample, and after the simulation ends its series are 0 (idle).
"""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass, field

from hvnet.explain.predict import Prediction
from hvnet.explain.recreate import Test
from hvnet.importers.measurement import Measurement, Series
from hvnet.importers.nic_counters import RECEIVE, SEND, host_of, nic_of, why_not
from hvnet.model import Host, Scenario, scenario_from_data
from hvnet.results import Results
from hvnet.simulation import simulate

__all__ = ["CounterComparison", "CounterRow", "Unmapped", "compare_counters", "percentiles"]

BUSY = {"Processor\\% Processor Time", "Processor Information\\% Processor Time"}
QUANTILES = (("p50", 0.50), ("p90", 0.90), ("p99", 0.99), ("max", 1.0))


def percentiles(values: list[float]) -> dict[str, float]:
    """p50, p90, p99 (linear between the closest ranks) and max; zeros for no values."""
    if not values:
        return {name: 0.0 for name, _ in QUANTILES}
    ordered = sorted(values)
    out: dict[str, float] = {}
    for name, q in QUANTILES:
        position = q * (len(ordered) - 1)
        below = int(position)
        above = min(below + 1, len(ordered) - 1)
        out[name] = ordered[below] + (ordered[above] - ordered[below]) * (position - below)
    return out


@dataclass(frozen=True)
class CounterRow:
    """One NIC direction or core: the measured and simulated percentiles, in one unit."""

    host: str
    what: str  # "nic1 send", "core 3"
    instance: str
    unit: str  # "bits/s" or "percent"
    measured: dict[str, float]
    simulated: dict[str, float]
    t_s: list[float]
    measured_series: list[float | None]
    simulated_series: list[float]

    def gap_pct(self, key: str) -> float | None:
        m = self.measured[key]
        return None if m == 0 else 100.0 * (self.simulated[key] - m) / m


@dataclass(frozen=True)
class Unmapped:
    instance: str
    counter: str
    reason: str


@dataclass
class CounterComparison:
    file: str
    window_s: float
    step_s: float
    simulated: str  # what the simulation ran
    rows: list[CounterRow] = field(default_factory=list)
    unmapped: list[Unmapped] = field(default_factory=list)


def _core_of(host: Host, instance: str) -> int | str:
    number = instance.rsplit(",", maxsplit=1)[-1].strip()
    if not number.isdigit():
        return "!a total, not a processor"
    group = instance.split(",", maxsplit=1)[0].strip() if "," in instance else "0"
    logical = int(number) + 64 * (int(group) if group.isdigit() else 0)
    core = logical // 2 if host.cpu.smt else logical
    if core >= host.cpu.cores:
        return f"!{host.name} has {host.cpu.cores} cores in the scenario; logical processor {logical} is beyond them"
    return core


def _step(measurement: Measurement) -> float:
    times = next((s.t_s for s in measurement.series if len(s.t_s) > 1), [])
    gaps = [b - a for a, b in itertools.pairwise(times) if b > a]
    return max(0.1, statistics.median(gaps)) if gaps else 1.0


def _with_test(scenario: Scenario, test: Test | None, prediction: Prediction | None) -> tuple[Scenario, str]:
    if test is None or prediction is None:
        return scenario, "the scenario's own traffic and events"
    data = scenario.model_dump(mode="json", by_alias=True)
    size = max(1, round(prediction.throughput_bps / 8 * test.seconds))
    data["traffic"] = [
        *list(data.get("traffic", [])),
        {"from": test.sender, "to": test.receiver, "size": f"{size}B", "connections": test.threads, "start": "0s"},
    ]
    return scenario_from_data(data, scenario.source), (
        f"the scenario's own traffic and events, and the {test.tool} test ({test.threads} threads {test.sender} -> "
        f"{test.receiver}) from t = 0"
    )


def _window(values: list[float], step_s: float, window_s: float) -> list[float]:
    count = int(window_s / step_s + 1e-9) + 1
    return (list(values) + [0.0] * count)[:count]


def compare_counters(
    scenario: Scenario, measurement: Measurement, test: Test | None = None, prediction: Prediction | None = None
) -> CounterComparison:
    step = _step(measurement)
    window = measurement.duration_s or 0.0
    simulated_scenario, what = _with_test(scenario, test, prediction)
    results: Results = simulate(simulated_scenario)
    adapters = {(a.host, a.nic): a for a in results.adapters}
    cores = {(c.host, c.core): c for c in results.cores}
    comparison = CounterComparison(measurement.file, window, step, what)
    core_series: dict[tuple[str, int], list[Series]] = {}
    for series in measurement.series:
        kind = (
            "send"
            if series.counter in SEND
            else "receive"
            if series.counter in RECEIVE
            else "busy"
            if series.counter in BUSY
            else None
        )
        if kind is None:
            continue
        instance = series.instance or ""
        host = host_of(scenario, series, measurement.host)
        if isinstance(host, str):
            comparison.unmapped.append(Unmapped(instance, series.counter, host))
            continue
        if kind == "busy":
            core = _core_of(host, instance)
            if isinstance(core, str):
                if not core.startswith("!a total"):
                    comparison.unmapped.append(Unmapped(instance, series.counter, core[1:]))
                continue
            core_series.setdefault((host.name, core), []).append(series)
            continue
        nic = nic_of(host, instance)
        if nic is None:
            comparison.unmapped.append(Unmapped(instance, series.counter, why_not(host, instance)))
            continue
        adapter = adapters.get((host.name, nic))
        # The simulation's exact change points, as means over the log's own interval.
        values = (
            (adapter.send_bps if kind == "send" else adapter.receive_bps).resample(step, results.end_s)
            if adapter
            else []
        )
        sim = _window(values, step, window)
        measured = [None if v is None else 8.0 * v for v in series.values]
        comparison.rows.append(
            CounterRow(
                host.name,
                f"{nic} {kind}",
                instance,
                "bits/s",
                percentiles([v for v in measured if v is not None]),
                percentiles(sim),
                list(series.t_s),
                measured,
                sim,
            )
        )
    for (host_name, core), group in sorted(core_series.items()):
        t_s = list(group[0].t_s)
        busiest: list[float | None] = []
        for k in range(len(t_s)):
            present = [v for s in group if k < len(s.values) and (v := s.values[k]) is not None]
            busiest.append(max(present) if present else None)
        simulated_core = cores.get((host_name, core))
        busy = simulated_core.busy.resample(step, results.end_s) if simulated_core else []
        sim = _window([100.0 * b for b in busy], step, window)
        comparison.rows.append(
            CounterRow(
                host_name,
                f"core {core}",
                ", ".join(s.instance or "" for s in group),
                "percent",
                percentiles([v for v in busiest if v is not None]),
                percentiles(sim),
                t_s,
                busiest,
                sim,
            )
        )
    return comparison
