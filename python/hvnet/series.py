"""A resource's use over time, exactly: a step function kept as its change points.

The core records each resource's use as change points
(`crates/engine/src/record.rs`): `values[i]` from `t_s[i]` until the next
time, the last until the run's end, 0 before the first. `Series` holds them
as they are, and everything a face shows is computed from them exactly:

    integral over [a, b):  Σ_i values[i] · |[t_s[i], t_s[i+1]) ∩ [a, b)|
    mean over [a, b):      integral / (b − a)
    peak:                  max(0, max_i values[i])   (the true instantaneous maximum)
    percentile p:          the smallest v such that u(t) ≤ v for p % of [a, b) (time-weighted)
    busy time:             the time u(t) > threshold
    resample:              the mean over each bin of a grid (the output's edge only)

A `Series` does not hold the run's end (`Results.end_s`): what needs it
takes it as an argument. Resampling to a grid happens only where a face asks
for one (a report's chart, a counter log's interval).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, model_validator

from hvnet import _core

__all__ = ["ROUNDING", "Series", "bin_integrals", "step_means"]

#: A value this small relative to its series' peak is floating-point noise: 0.
ROUNDING = 1e-12


class Series(BaseModel):
    """A step function of time: `values[i]` from `t_s[i]` until `t_s[i+1]`, the
    last until the run's end, 0 before `t_s[0]` (docs/output.md). The unit of
    the values is the unit of the field that holds the series (`send_bps`:
    bits/s; `busy`: a share, 0 to 1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: When the value changed, in seconds from the start of the run, increasing strictly.
    t_s: list[float] = []
    #: The value from that time on.
    values: list[float] = []

    @model_validator(mode="after")
    def _check(self) -> Series:
        if len(self.t_s) != len(self.values):
            raise ValueError(f"a series needs one value per time: {len(self.t_s)} times, {len(self.values)} values")
        if any(b <= a for a, b in zip(self.t_s, self.t_s[1:])):
            raise ValueError("the times of a series must increase strictly")
        return self

    @classmethod
    def of(cls, times_s: Sequence[float], values: Sequence[float], scale: float = 1.0) -> Series:
        """The change points as the core gives them, each value times `scale`, without
        the points that say nothing: a leading 0 (0 is the value before the first point),
        a value equal to the one before, or an earlier point at the same time. A value
        within rounding of 0 (below `ROUNDING` of the series' peak) is 0, as the core
        makes it where it subtracts one use from another. Per point, in the core
        (`ChangePoints::scaled`)."""
        t_out, v_out = _core.scaled_points(list(times_s), list(values), scale, ROUNDING)
        return cls.model_construct(t_s=t_out, values=v_out)

    def nonzero(self) -> bool:
        """Whether the function is anywhere other than 0 (a float is true where it is not 0)."""
        return any(self.values)

    def _pieces(self, a: float, b: float) -> list[tuple[float, float]]:
        """`(value, duration)` of each piece of the function within `[a, b)`, the 0 before
        the first point included."""
        out: list[tuple[float, float]] = []
        if not b > a:
            return out
        first = self.t_s[0] if self.t_s else math.inf
        if a < first:
            out.append((0.0, min(first, b) - a))
        for i, (start, value) in enumerate(zip(self.t_s, self.values)):
            to = self.t_s[i + 1] if i + 1 < len(self.t_s) else math.inf
            overlap = min(to, b) - max(start, a)
            if overlap > 0.0:
                out.append((value, overlap))
        return out

    def integral(self, a: float, b: float) -> float:
        """`∫ u` over `[a, b)`: bits for a rate in bits/s, core-seconds for a share of a core. From 0
        (the common case: a whole run), in the core as one bin of `bin_integrals`, the same arithmetic."""
        if a == 0.0 and 0.0 < b < math.inf:
            return _core.bin_integrals(self.t_s, self.values, b, b, 1)[0]
        total = 0.0
        for i, (start, value) in enumerate(zip(self.t_s, self.values)):
            to = min(self.t_s[i + 1] if i + 1 < len(self.t_s) else b, b)
            overlap = to - max(start, a)
            if overlap > 0.0:
                total += value * overlap
        return total

    def mean(self, a: float, b: float) -> float:
        """The mean over `[a, b)` (0 for an empty interval)."""
        return self.integral(a, b) / (b - a) if b > a else 0.0

    def peak(self) -> float:
        """The highest value the function takes, exactly (0 before its first point)."""
        return max(0.0, max(self.values, default=0.0))

    def percentile(self, p: float, a: float, b: float) -> float:
        """The time-weighted `p`th percentile (0 to 100) over `[a, b)`: the smallest value
        `v` such that the function is at most `v` for `p` % of the interval. 0 is its
        least value over the interval, 100 its highest."""
        if not 0.0 <= p <= 100.0:
            raise ValueError(f"a percentile is from 0 to 100, not {p}")
        pieces = sorted(self._pieces(a, b))
        if not pieces:
            return 0.0
        wanted = p / 100.0 * (b - a)
        covered = 0.0
        for value, duration in pieces:
            covered += duration
            if covered >= wanted:
                return value
        return pieces[-1][0]

    def busy_time(self, threshold: float, end_s: float) -> float:
        """Seconds of `[0, end_s)` the function was above `threshold` (0: busy at all)."""
        return sum(duration for value, duration in self._pieces(0.0, end_s) if value > threshold)

    def resample(self, step_s: float, end_s: float) -> list[float]:
        """The exact mean over each bin `[k·step_s, (k+1)·step_s)` (`step_means`)."""
        return step_means(self.t_s, self.values, step_s, end_s)


def bin_integrals(
    times_s: Sequence[float], values: Sequence[float], width_s: float, end_s: float, bins: int
) -> list[float]:
    """The integral of the step function over each bin `[k·width_s, (k+1)·width_s)` of
    `bins`, up to `end_s` (nothing after it). Exact: each piece adds `value · overlap` to
    every bin it overlaps (`ChangePoints::bin_integrals`, in the core: per-point work).
    The one place a series meets a grid (`step_means`, and the report's `Grid`)."""
    return _core.bin_integrals(list(times_s), list(values), width_s, end_s, bins)


def step_means(times_s: Sequence[float], values: Sequence[float], step_s: float, end_s: float) -> list[float]:
    """The mean of the step function over each bin `[k·step_s, (k+1)·step_s)`:
    `ceil(end_s / step_s)` bins, the last one over the whole step even where
    `end_s` cuts it (Task Manager shows the same thing); exact (`bin_integrals`)."""
    if not step_s > 0:
        raise ValueError(f"a step must be longer than 0 s, not {step_s}")
    if not end_s > 0:
        return []
    bins = max(math.ceil(end_s / step_s), 1)
    return [total / step_s for total in bin_integrals(times_s, values, step_s, end_s, bins)]
