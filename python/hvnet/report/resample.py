"""Time series at the resolution of a chart: the results hold each series as
exact change points (`hvnet.series.Series`); a chart needs one number per
point of its width. A run of 17 hours has 61,000 seconds, far more than a
chart 700 pixels wide can show, and far more than a report should carry.

A report draws on a `Grid`: bins of a round duration (`bin_factor` steps of
the resolution, 1 s unless `--resolution` says otherwise), so that a chart
has at most `MAX_POINTS` points. Each point is the exact mean of the step
function over its bin (`Grid.means`, from the change points, never through a
finer grid). The axis ends at the end of the run rounded up to the
resolution, and the last bin is a mean over what of it lies before that end.
Values are then rounded to what a chart shows (`significant`).

A mean over a long bin flattens a short burst (20 s at 10 Gbps is 2.2 Gbps
over 90 s), and a bin narrower than a pixel draws it as a hairline: where a
point is more than one resolution, a chart also draws the peak of the step
function over buckets of a few bins (`Grid.peaks`, `peak_bins`: about
`PEAK_POINTS` over the chart, two pixels or more each), exact too.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

from hvnet import _core
from hvnet.series import Series

__all__ = ["MAX_POINTS", "PEAK_POINTS", "Grid", "bin_factor", "rounded", "significant"]

#: The most points a chart gets: about one per pixel of a chart in a two-column grid.
MAX_POINTS = 800
#: The most buckets a chart's peaks get: some two pixels each in a chart of a two-column grid.
PEAK_POINTS = 270

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


@dataclass(frozen=True)
class Grid:
    """The time axis of a report's charts: `bins` bins of `width_s`, the last cut at `end_s`."""

    #: The finest bin a chart may have (`--resolution`; 1 s by default).
    resolution_s: float
    #: How many resolutions a bin holds.
    factor: int
    #: The end of the axis: the end of the run, rounded up to a whole resolution.
    end_s: float
    bins: int

    @property
    def width_s(self) -> float:
        return self.factor * self.resolution_s

    @classmethod
    def fit(cls, end_s: float, resolution_s: float | None = None, max_points: int = MAX_POINTS) -> Grid:
        """The grid of a run that ended at `end_s`: the finest round bin, a whole number of
        resolutions, that gives at most `max_points` bins."""
        resolution = resolution_s if resolution_s is not None else 1.0
        if not resolution > 0:
            raise ValueError(f"a resolution must be longer than 0 s, not {resolution}")
        steps = max(math.ceil(end_s / resolution), 1)  # a run that did nothing still gets one bin
        factor = bin_factor(steps, max_points)
        return cls(resolution, factor, steps * resolution, math.ceil(steps / factor))

    def means(self, series: Series, end_s: float, scale: float = 1.0) -> list[float]:
        """The exact mean of `series` over each bin (the run ended at `end_s`: nothing after
        it), times `scale`; the last bin is a mean over its part before the axis's end. Per
        bin, in the core (`ChangePoints::bin_means`)."""
        width, axis_end = self.width_s, self.end_s
        return _core.bin_means(series.t_s, series.values, width, min(end_s, axis_end), axis_end, self.bins, scale)

    @property
    def shows_peaks(self) -> bool:
        """Whether a chart on this grid draws peaks too: a bucket of peaks holds more than one
        resolution (a point of a short run is its one resolution: its mean is all there is)."""
        return self.factor * self.peak_bins > 1

    @property
    def peak_bins(self) -> int:
        """How many bins a bucket of peaks holds: at most `PEAK_POINTS` buckets over the axis."""
        return max(math.ceil(self.bins / PEAK_POINTS), 1)

    def peaks(self, series: Series, end_s: float, scale: float = 1.0) -> list[float]:
        """The highest value of `series` in each bucket of `peak_bins` bins (the run ended at
        `end_s`: nothing after it), times `scale`: exact, from the change points (the value in
        force when a bucket starts, and each one that starts in it)."""
        width = self.width_s * self.peak_bins
        buckets = math.ceil(self.bins / self.peak_bins)
        end = min(end_s, self.end_s)
        times, values = series.t_s, series.values
        peaks, current, i = [0.0] * buckets, 0.0, 0
        for b in range(buckets):
            start, stop = b * width, min((b + 1) * width, end)
            if start >= end:
                break
            while i < len(times) and times[i] <= start:
                current, i = values[i], i + 1
            peak = current
            while i < len(times) and times[i] < stop:
                current, i = values[i], i + 1
                peak = max(peak, current)
            peaks[b] = max(peak, 0.0) * scale
        return peaks


def significant(value: float, digits: int = 4) -> float:
    """`value` rounded to `digits` significant digits, which JSON writes short: a whole
    number comes back as an int (``0``, not ``0.0``)."""
    return _rounders(digits)(value)


def rounded(values: list[float], digits: int = 4) -> list[float]:
    """Each of `values` rounded as `significant` does: a report rounds hundreds of thousands of
    points that take a few thousand values (a step function's bins repeat), so each value's
    rounding is remembered."""
    return list(map(_rounders(digits), values))


@functools.cache
def _rounders(digits: int) -> Callable[[float], float]:
    """A remembering rounder to `digits` significant digits."""

    @functools.lru_cache(maxsize=1 << 16)
    def rounder(value: float) -> float:
        if not math.isfinite(value):
            return value
        rounded = float(f"{value:.{digits}g}")
        return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded

    return rounder
