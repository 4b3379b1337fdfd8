"""What a variant scores: ``Metrics.of(results)`` sums a run up in the numbers a
comparison ranks, and ``best(metrics)`` says which runs are best at each (docs/sweeps.md)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Literal

from hvnet.results import Results

__all__ = ["END_BEST", "METRICS", "Metric", "Metrics", "best", "end_heading", "what_ended"]


@dataclass(frozen=True)
class Metrics:
    """One run summed up in the numbers a comparison ranks (docs/sweeps.md)."""

    #: When the last traffic entry or live migration ended (the drain time); None if one never completed.
    end_s: float | None
    #: The highest send of any NIC, in bits/s (frame overhead included): the exact instantaneous peak.
    peak_send_bps: float
    #: Traffic entries and live migrations that never completed.
    stalled: int
    #: The longest time any traffic entry was black-holed; None (forever) if one never completed.
    blackholed_s: float | None
    #: Core-seconds the hosts' physical cores were busy (the integral of each core's series, added up).
    cpu_core_s: float
    #: The longest blackout of any live migration, in seconds; 0 without migrations, None if one never ended.
    blackout_s: float | None

    @classmethod
    def of(cls, results: Results) -> Metrics:
        ends = [t.end_s for t in results.traffic] + [m.end_s for m in results.migrations]
        sends = [a.send_bps.peak() for a in results.adapters]
        stalled = ends.count(None)
        blackouts = [m.blackout_s for m in results.migrations]
        return cls(
            end_s=None if stalled else max((e for e in ends if e is not None), default=0.0),
            peak_send_bps=max(sends, default=0.0),
            stalled=stalled,
            blackholed_s=None if stalled else max((t.blackholed_s for t in results.traffic), default=0.0),
            cpu_core_s=sum(core.busy.integral(0.0, results.end_s) for core in results.cores),
            blackout_s=None if None in blackouts else max((b for b in blackouts if b is not None), default=0.0),
        )

    def as_dict(self) -> dict[str, float | int | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class Metric:
    """A column of a comparison: its name in ``Metrics``, its heading, which way is better, and the best in words."""

    name: str
    heading: str
    better: Literal["lower", "higher"]
    best: str


METRICS = (
    Metric("end_s", "drain time", "lower", "the shortest drain time"),
    Metric("peak_send_bps", "peak send", "higher", "the highest peak send"),
    Metric("stalled", "stalled", "lower", "the fewest stalled traffic entries and migrations"),
    Metric("blackholed_s", "black-holed", "lower", "the shortest black hole"),
    Metric("cpu_core_s", "CPU", "lower", "the least CPU time"),
    Metric("blackout_s", "blackout", "lower", "the shortest blackout"),
)


#: What ``end_s`` is called, by what ended last (``what_ended``).
_ENDED = {
    "drain": "drain time",
    "rolling_update": "rolling update",
    "migrate": "migrations",
    "traffic": "last transfer",
    "mixed": "end",
}


def what_ended(results: Results) -> str:
    """What ``end_s`` measures: ``drain``, ``rolling_update``, ``migrate`` (the run's operations,
    all of one kind), ``traffic`` (no migration: plain traffic), or ``mixed``."""
    kinds = {op.kind for op in results.operations}
    if not results.migrations and not kinds:
        return "traffic"
    if len(kinds) == 1:
        return next(iter(kinds))
    return "mixed"


#: The best ``end_s`` in words, by its heading (for the legend).
END_BEST = {
    "drain time": "the shortest drain time",
    "rolling update": "the shortest rolling update",
    "migrations": "the earliest end of the migrations",
    "last transfer": "the earliest end of the last transfer",
    "end": "the earliest end",
}


def end_heading(results: Sequence[Results]) -> str:
    """The heading of ``end_s`` for these runs: ``drain time``, ``rolling update``, ``migrations``,
    ``last transfer``; ``end`` when they differ."""
    kinds = {what_ended(r) for r in results}
    return _ENDED[next(iter(kinds))] if len(kinds) == 1 else _ENDED["mixed"]


def best(runs: Sequence[Metrics]) -> dict[str, frozenset[int]]:
    """For each metric, the runs (by index) with the best value, where that says something: none
    where no run has a value (no migrations: no best blackout), and none where the best is shared by
    more than half of the runs (a star on 10 of 11 rows marks nothing).

    Only runs whose traffic all completed are candidates (a design that loses
    traffic is not the best at anything, however little CPU it used), unless
    no run completed. Values within a relative 1e-9 of each other are equal.
    """
    candidates = [i for i, run in enumerate(runs) if not run.stalled] or list(range(len(runs)))
    marked: dict[str, frozenset[int]] = {}
    for metric in METRICS:
        keys = {i: _key(metric, getattr(runs[i], metric.name)) for i in candidates}
        top = min(keys.values(), default=math.inf)
        winners = frozenset(i for i, k in keys.items() if math.isclose(k, top, rel_tol=1e-9, abs_tol=1e-12))
        telling = not math.isinf(top) and 2 * len(winners) <= len(runs)
        marked[metric.name] = winners if telling else frozenset()
    return marked


def _key(metric: Metric, value: float | None) -> float:
    """Lower is better; None (never, forever) is the worst."""
    if value is None:
        return math.inf
    return -float(value) if metric.better == "higher" else float(value)
