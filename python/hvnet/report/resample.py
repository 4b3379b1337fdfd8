"""Time series at the resolution of a chart: a run of 17 hours at a 1 s step has
61,000 points per series, far more than a chart 700 pixels wide can show, and
far more than a report should carry.

The series are per-step means (docs/output.md), so a wider bin is the exact
mean of the whole steps it holds (`resample`); its width is a whole number of
steps, picked so that a chart has at most `MAX_POINTS` points and the bin is a
round duration (`bin_factor`). Values are then rounded to what a chart shows
(`significant`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["MAX_POINTS", "bin_factor", "resample", "significant"]

#: The most points a chart gets: about one per pixel of a chart in a two-column grid.
MAX_POINTS = 800

#: Bin widths, in steps, that read as round durations at a step of 1 s (1 min 30 s, 2 min, 5 min...).
_ROUND = (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 40, 60, 90, 120, 180, 240, 300, 600, 900, 1200, 1800, 3600)


def bin_factor(steps: int, max_points: int = MAX_POINTS) -> int:
    """How many steps a bin holds so that `steps` steps make at most `max_points` bins:
    the smallest round width (`_ROUND`, then whole hours' worth) that does."""
    needed = max(math.ceil(steps / max(max_points, 1)), 1)
    for factor in _ROUND:
        if factor >= needed:
            return factor
    return math.ceil(needed / 3600) * 3600


def resample(values: Sequence[float], factor: int) -> list[float]:
    """Means over bins of `factor` whole steps: bin k is the mean of steps
    k*factor .. (k+1)*factor - 1. The last bin holds what is left (1 to `factor`
    steps) and is the mean of those steps only, so each bin times its width in
    steps sums to the same total as the steps themselves."""
    if factor <= 1:
        return list(values)
    out = []
    for start in range(0, len(values), factor):
        chunk = values[start : start + factor]
        out.append(sum(chunk) / len(chunk))
    return out


def significant(value: float, digits: int = 4) -> float:
    """`value` rounded to `digits` significant digits, which JSON writes short: a whole
    number comes back as an int (``0``, not ``0.0``)."""
    if not math.isfinite(value):
        return value
    rounded = float(f"{value:.{digits}g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded
