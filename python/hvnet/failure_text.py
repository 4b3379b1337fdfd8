"""The failures of a run in words: one block per failure, for the terminal and the report.

    1.00 s  switch_down spine1, repaired 3.00 s (switch_up)
      routing: leaf1/3 – spine1/1 seen 1.10 s (link down), routed around 1.60 s, back 3.50 s
      t1: 2 of 4 connections black-holed 0.60 s, 2 moved; ends 4.21 s, +0.60 s (3.61 s without it)

A block fits any width: each line is a sentence that wraps, not a table
column that shrinks.
"""

from __future__ import annotations

from hvnet.results import FailureResult, FlowHit, Results
from hvnet.units import human_duration

__all__ = ["HITS_SHOWN", "failure_blocks"]

#: Hits named per failure; the rest are counted (all are in the JSON and the report).
HITS_SHOWN = 8


def _at(t: float | None) -> str:
    return "never" if t is None else human_duration(t)


def _cost(hit: FlowHit, costed: bool) -> str:
    """When it ended, and against its end without the failure."""
    end = "never ends" if hit.end_s is None else f"ends {_at(hit.end_s)}"
    if not costed:
        return end
    if hit.end_without_s is None:
        return end + (" (never without it either)" if hit.end_s is None else "")
    if hit.end_s is None:
        return f"{end} ({_at(hit.end_without_s)} without it)"
    extra = hit.end_s - hit.end_without_s
    sign = "+" if extra >= 0 else "−"
    return f"{end}, {sign}{human_duration(abs(extra))} ({_at(hit.end_without_s)} without it)"


def _hit(hit: FlowHit, costed: bool) -> str:
    what = f"migration of {hit.name}" if hit.kind == "migration" else hit.name
    done = []
    if hit.connections is None:
        done.append("delayed by the traffic it moved")
    else:
        if hit.blackholed_connections:
            of = (
                f"{hit.blackholed_connections} of {hit.connections} connections"
                if hit.connections > 1
                else "its connection"
            )
            done.append(f"{of} black-holed {human_duration(hit.blackholed_s)}")
        if hit.moved_connections:
            done.append(f"{hit.moved_connections} moved")
        if hit.never:
            done.append("cut for good")
    return f"{what}: {', '.join(done)}; {_cost(hit, costed)}"


def _block(failure: FailureResult) -> list[str]:
    repaired = "never repaired" if failure.repaired_s is None else f"repaired {_at(failure.repaired_s)}"
    lines = [f"{_at(failure.at_s)}  {failure.action} {failure.target}, {repaired}"]
    for change in failure.routing:
        seen = (
            "not seen before its repair" if change.seen_s is None else f"seen {_at(change.seen_s)} ({change.seen_by})"
        )
        around = "" if change.rerouted_s is None else f", routed around {_at(change.rerouted_s)}"
        back = "" if change.restored_s is None else f", back {_at(change.restored_s)}"
        lines.append(f"  routing: {change.link} {seen}{around}{back}")
    for hit in failure.hits[:HITS_SHOWN]:
        lines.append(f"  {_hit(hit, failure.costed)}")
    if len(failure.hits) > HITS_SHOWN:
        lines.append(f"  and {len(failure.hits) - HITS_SHOWN} more hit (all in --json and --report)")
    if not failure.hits:
        lines.append("  nothing black-holed, moved or delayed")
    if not failure.costed:
        lines.append("  (its cost not computed: hvnet simulate --failure-costs)")
    return lines


def failure_blocks(results: Results) -> list[list[str]]:
    """One block of lines per failure, in time order."""
    return [_block(f) for f in results.failures]
