"""Counter logs into measured demand: each host NIC's bytes sent and received per second, as a
scenario's `demand:` (docs/import.md, "Demand from counter logs").

Each log's series of bytes sent and received per second (Windows' ``Network Interface\\Bytes
Sent/sec`` and ``Bytes Received/sec``, sar's ``txkB/s`` and ``rxkB/s``) is matched to the scenario's
host and NIC (`nic_counters`, or an explicit `mapping`). A sample is the mean rate over the interval
that ends at it (how PDH and sar compute a rate), so a log's first sample, which covers time before
the log began, is not used. The samples are merged into bins of `resolution_s` from the first
log's start, each bin the exact mean of what the samples say about it (so the bytes are kept), and
a bin equal to the one before adds no step. Logs are placed on one time line by their first
timestamps when every log has one (PDH-CSV); otherwise each starts at 0, and a note says so. A
sample without a value counts as 0, and a note counts them. The replay ends at the last log's end.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from hvnet import _core
from hvnet.errors import InputError
from hvnet.importers.measurement import Measurement
from hvnet.importers.measurement import Series as LogSeries
from hvnet.importers.nic_counters import RECEIVE, SEND, host_of, nic_of, why_not
from hvnet.importers.pdh_csv import parse_time
from hvnet.model import Scenario
from hvnet.series import Series
from hvnet.units import bits_per_s, format_bitrate, format_duration

__all__ = ["DEFAULT_RESOLUTION_S", "DemandSeries", "ImportedDemand", "import_demand", "with_demand"]

#: Bins of this width unless the user says otherwise: a week of one-second samples becomes 10,080
#: steps per direction, and what a minute of traffic does to a link is kept.
DEFAULT_RESOLUTION_S = 60.0


@dataclass
class DemandSeries:
    """One direction of one NIC, as measured and as it will be replayed."""

    nic: str
    direction: str  # "send" or "receive"
    source: str
    #: (from time, bits/s) steps, the last a 0 at the replay's end.
    steps: list[tuple[float, float]]
    samples: int
    #: The time-weighted 90th percentile and the peak of the bins, bits/s.
    p90_bps: float
    peak_bps: float


@dataclass
class ImportedDemand:
    #: The width of the bins the samples were merged into.
    resolution_s: float
    series: list[DemandSeries] = field(default_factory=list)
    #: What the import assumed or left out, one line each.
    notes: list[str] = field(default_factory=list)

    @property
    def duration_s(self) -> float:
        """How long the replay lasts: to the last log's end."""
        return max((s.steps[-1][0] for s in self.series), default=0.0)

    def yaml(self) -> str:
        """The `demand:` section, each entry with where it was measured and its figures as a comment."""
        by_nic: dict[str, list[DemandSeries]] = {}
        for s in self.series:
            by_nic.setdefault(s.nic, []).append(s)
        lines = [f"# measured demand: hvnet import demand, bins of {format_duration(self.resolution_s)}", "demand:"]
        for nic, directions in by_nic.items():
            lines.append(f"  - nic: {nic}")
            sources = "; ".join(f"{d.direction}: {d.source}" for d in directions)
            lines.append(f"    source: {_quoted(sources)}")
            for d in directions:
                lines.append(
                    f"    # {d.direction}: {d.samples} samples, p90 {format_bitrate(round(d.p90_bps))}, "
                    f"peak {format_bitrate(round(d.peak_bps))}"
                )
                steps = ", ".join(f"[{at:.15g}s, {format_bitrate(round(bps))}]" for at, bps in d.steps)  # times exact
                lines.append(f"    {d.direction}: [{steps}]")
        return "\n".join(lines) + "\n"


def import_demand(
    scenario: Scenario,
    logs: Sequence[Measurement],
    resolution_s: float = DEFAULT_RESOLUTION_S,
    mapping: Sequence[str] = (),
) -> ImportedDemand:
    """The demand the logs measured on the scenario's NICs. `mapping`: `INSTANCE=host/nic`, the NIC of
    the host that logged the instance (as the log names it, Windows' `#n` included), where the names
    do not tell. InputError when nothing maps, or a mapping is malformed."""
    if not resolution_s > 0:
        raise InputError("--resolution", None, "", f"{resolution_s:g} s: bins must be longer than 0 s")
    imported = ImportedDemand(resolution_s)
    imported.notes += [f"{log.file}: {note}" for log in logs for note in log.notes]  # what each log's reading assumed
    maps = _maps(mapping)
    offsets = _offsets(logs, imported.notes)
    found: dict[tuple[str, str], tuple[Measurement, LogSeries]] = {}
    for log, offset in zip(logs, offsets):
        for series in log.series:
            direction = "send" if series.counter in SEND else "receive" if series.counter in RECEIVE else None
            if direction is None or series.unit != "bytes/s":
                continue
            nic = _nic(scenario, log, series, maps, imported.notes)
            if nic is None:
                continue
            if (nic, direction) in found:
                imported.notes.append(
                    f"{nic} {direction}: measured twice; the first is kept ({found[nic, direction][0].file})"
                )
                continue
            found[(nic, direction)] = (log, series)
            imported.series.append(_replayed(nic, direction, log, series, offset, resolution_s, imported.notes))
    if not imported.series:
        names = ", ".join(log.file for log in logs)
        raise InputError(
            names, None, "", "no series of bytes sent or received per second maps to a NIC of the scenario"
        )
    end = imported.duration_s
    for s in imported.series:  # every replay ends at the same time: the last log's end
        if s.steps[-1][0] < end:
            s.steps.append((end, 0.0))
    return imported


def _offsets(logs: Sequence[Measurement], notes: list[str]) -> list[float]:
    starts = [parse_time(log.start_time) if log.start_time else None for log in logs]
    if all(s is not None for s in starts):
        first = min(s for s in starts if s is not None)
        return [(s - first).total_seconds() if s is not None else 0.0 for s in starts]
    if len(logs) > 1:
        notes.append("not every log gives its start time: each is replayed from 0 s, side by side")
    return [0.0] * len(logs)


def _maps(pairs: Sequence[str]) -> dict[tuple[str, str], str]:
    """`INSTANCE=host/nic` pairs by (host, instance), the host in lower case."""
    maps = {}
    for pair in pairs:
        instance, sep, nic = pair.rpartition("=")
        host, slash, name = nic.strip().partition("/")
        if not (sep and instance and slash and host and name):
            raise InputError("--map", None, pair, "expected INSTANCE=host/nic, e.g. 'Intel(R) X710 #2=hv1/nic2'")
        maps[(host.casefold(), instance)] = f"{host}/{name}"
    return maps


def _nic(
    scenario: Scenario, log: Measurement, series: LogSeries, maps: Mapping[tuple[str, str], str], notes: list[str]
) -> str | None:
    instance = series.instance or ""
    host = host_of(scenario, series, log.host)
    if isinstance(host, str):
        notes.append(f"{log.file}: {series.source}: not replayed: {host}")
        return None
    if (host.name.casefold(), instance) in maps:
        return maps[(host.name.casefold(), instance)]
    name = nic_of(host, instance)
    if name is None:
        notes.append(
            f"{log.file}: {series.source}: not replayed: {why_not(host, instance)}; "
            f"or --map '{instance}={host.name}/NIC'"
        )
        return None
    return f"{host.name}/{name}"


def _replayed(
    nic: str, direction: str, log: Measurement, series: LogSeries, offset: float, width: float, notes: list[str]
) -> DemandSeries:
    """The series as bins of `width` s on the common time line, in bits/s, as steps."""
    gaps = sum(v is None for v in series.values[1:])
    if gaps:
        notes.append(f"{nic} {direction}: {gaps} samples without a value replayed as 0")
    times, rates = [], []  # rate k holds from times[k] to times[k + 1]
    for k in range(1, len(series.t_s)):
        if series.t_s[k] > series.t_s[k - 1]:  # a sample at the time of the one before says nothing
            times.append(offset + series.t_s[k - 1])
            rates.append(bits_per_s(series.values[k] or 0.0))
    end = offset + series.t_s[-1] if series.t_s else offset
    means = _bin_means(times, rates, end, width)
    steps: list[tuple[float, float]] = []
    for low, _, mean in means:
        if not steps or steps[-1][1] != mean:
            steps.append((low, mean))
    steps.append((end, 0.0))
    binned = Series.of([low for low, _, _ in means], [mean for _, _, mean in means])
    start, stop = (means[0][0], means[-1][1]) if means else (offset, offset)
    source = f"{log.file}: {series.source}"
    return DemandSeries(
        nic, direction, source, steps, len(series.values), binned.percentile(90, start, stop), binned.peak()
    )


def _bin_means(times: list[float], rates: list[float], end: float, width: float) -> list[tuple[float, float, float]]:
    """(from, to, mean) of each bin of `width` on the time line that the samples cover (rate k from
    times[k] to the next time, the last to `end`), the first and last cut to where they begin and
    end. Each bin's integral is exact (the core's `bin_integrals` over the step function), so the
    bytes of every bin are kept."""
    if not times:
        return []
    first, last = math.floor(times[0] / width + 1e-9), math.ceil(end / width - 1e-9)
    sums = _core.bin_integrals(times, rates, width, end, last)
    out = []
    for k in range(first, last):
        low, high = max(k * width, times[0]), min((k + 1) * width, end)
        if high > low:
            out.append((low, high, sums[k] / (high - low)))
    return out


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def with_demand(scenario_text: str, scenario_file: str, imported: ImportedDemand) -> str:
    """The scenario file's text as written, with the imported `demand:` section after it; InputError
    if it has a `demand:` already (nothing the user wrote is replaced)."""
    for number, line in enumerate(scenario_text.splitlines(), start=1):
        if re.match(r"demand\s*:", line):
            raise InputError(
                scenario_file, number, "demand", "the scenario has measured demand already; remove it to import new"
            )
    return scenario_text.rstrip("\n") + "\n\n" + imported.yaml()
