"""What each failure cost: the same run without it.

For each failure of a run (`Results.failures`), the scenario is simulated
again without that failure and its repair, every other event kept; each
traffic entry's and migration's end is set beside its end without it
(`FlowHit.end_without_s`). What ends later (or never) without its own
connections being hit was delayed by the traffic the failure moved onto
its path: it is added as a hit of its own. The costs are exact differences
of two runs of the same model, one run per failure; `limit` bounds how
many runs a simulation asks for.
"""

from __future__ import annotations

from collections.abc import Callable

from hvnet.lower.changes import failure_pairs
from hvnet.lower.fabric import build_fabric
from hvnet.model import Scenario
from hvnet.results import FailureResult, FlowHit, Results
from hvnet.simulation import simulate

__all__ = ["DEFAULT_LIMIT", "with_costs"]

#: Failures whose cost a simulation computes by default (one more run each).
DEFAULT_LIMIT = 16

#: Ends closer than this are the same.
_SAME_S = 1e-9


def _ends(results: Results) -> dict[tuple[str, int], tuple[str, float | None]]:
    """Each traffic entry's and migration's name and end, by (kind, index)."""
    ends: dict[tuple[str, int], tuple[str, float | None]] = {}
    for i, t in enumerate(results.traffic):
        ends[("traffic", i)] = (t.name or f"{t.source} → {t.destination}", t.end_s)
    for i, m in enumerate(results.migrations):
        ends[("migration", i)] = (m.vm, m.end_s)
    return ends


def _later(end: float | None, without: float | None) -> bool:
    if end is None:
        return without is not None
    return without is not None and end > without + _SAME_S


def with_costs(
    scenario: Scenario,
    results: Results,
    filename: str | None = None,
    limit: int = DEFAULT_LIMIT,
    step: Callable[[], None] = lambda: None,
) -> Results:
    """`results` with each failure's cost: the end of every entry and migration without it
    (`limit` failures at most; the others are left uncosted). `step` is called after each run."""
    pairs = dict(failure_pairs(scenario, build_fabric(scenario)))
    ends = _ends(results)
    costed: list[FailureResult] = []
    for n, failure in enumerate(results.failures):
        if n >= limit:
            costed.append(failure)
            continue
        dropped = {failure.event, pairs.get(failure.event)}
        events = tuple(e for i, e in enumerate(scenario.events) if i not in dropped)
        without = _ends(simulate(scenario.model_copy(update={"events": events}), filename))
        step()
        hits = []
        hit_keys = set()
        for hit in failure.hits:
            key = (hit.kind, hit.index)
            hit_keys.add(key)
            hits.append(hit.model_copy(update={"end_without_s": without[key][1]}))
        for key, (name, end) in ends.items():
            if key in hit_keys or not _later(end, without[key][1]):
                continue
            kind, index = key
            hits.append(
                FlowHit(
                    kind=kind,
                    index=index,
                    name=name,
                    connections=None,
                    blackholed_connections=0,
                    moved_connections=0,
                    blackholed_s=0.0,
                    never=False,
                    end_s=end,
                    end_without_s=without[key][1],
                )
            )
        costed.append(failure.model_copy(update={"hits": hits, "costed": True}))
    return results.model_copy(update={"failures": costed})


def runs_needed(results: Results, limit: int = DEFAULT_LIMIT) -> int:
    """How many more runs `with_costs` makes."""
    return min(len(results.failures), limit)
