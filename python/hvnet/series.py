"""The core's recorded use over time, turned into per-step means.

The core records each resource's use exactly, as change points: `values[i]`
from `times_s[i]` until the next time (the last until the run's end), 0
before the first (`crates/engine/src/record.rs`). `Results` still hold one
mean per step, so the read-back turns the points into steps here, once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["step_means"]


def step_means(times_s: Sequence[float], values: Sequence[float], step_s: float, end_s: float) -> list[float]:
    """The mean of the step function over each bin `[k·step_s, (k+1)·step_s)`:
    `ceil(end_s / step_s)` bins, the last one over the whole step even where
    `end_s` cuts it (Task Manager shows the same thing).

    This is the output edge, and the only place a step is applied: it is
    here only because `Results` are per step. It is exact: each piece adds
    `value · overlap / step_s` to every bin it overlaps, with the same
    arithmetic as `ChangePoints::means` in the engine (and the per-event bins
    the engine used to keep)."""
    if not end_s > 0:
        return []
    bins = max(math.ceil(end_s / step_s), 1)
    means = [0.0] * bins
    for i, (start, value) in enumerate(zip(times_s, values)):
        to = min(times_s[i + 1] if i + 1 < len(times_s) else end_s, end_s)
        start = max(start, 0.0)
        if to <= start or value == 0.0:
            continue
        first = max(math.floor(start / step_s), 0)
        last = min(max(math.ceil(to / step_s), first + 1), bins)
        for k in range(first, last):
            low = k * step_s
            overlap = min(to, low + step_s) - max(start, low)
            if overlap > 0.0:
                means[k] += value * overlap / step_s
    return means
