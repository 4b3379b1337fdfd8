"""`hvnet.series`: the core's change points as a `Series`, and what is computed from them exactly."""

from __future__ import annotations

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hvnet.series import Series, step_means


def test_each_bin_is_the_mean_of_the_step_function_over_it() -> None:
    # 4 on [1, 2.5), 8 on [2.5, 3), 0 from 3; the run ends at 3.5: four bins
    # of 1 s, the last cut by the end but still a mean over the whole second.
    assert step_means([1.0, 2.5, 3.0], [4.0, 8.0, 0.0], 1.0, 3.5) == [0.0, 4.0, 6.0, 0.0]
    # Half-second bins: the same function, finer.
    assert step_means([1.0, 2.5, 3.0], [4.0, 8.0, 0.0], 0.5, 3.5) == [0.0, 0.0, 4.0, 4.0, 4.0, 8.0, 0.0]


def test_the_last_value_holds_until_the_end_and_nothing_is_recorded_before_the_first() -> None:
    assert step_means([], [], 1.0, 2.5) == [0.0, 0.0, 0.0]
    assert step_means([0.5], [2.0], 1.0, 2.5) == [1.0, 2.0, 1.0]
    assert step_means([0.0], [2.0], 1.0, 0.0) == []


def test_the_bins_hold_what_was_carried() -> None:
    times, values = [0.0, 0.3, 1.7, 2.2], [3.0, 5.0, 1.0, 7.0]
    end, step = 4.1, 0.7
    carried = sum(v * (min(t2, end) - t) for t, t2, v in zip(times, [*times[1:], end], values))
    assert abs(sum(step_means(times, values, step, end)) * step - carried) < 1e-12 * carried


# `Series`: the change points themselves, and everything computed from them exactly.


@st.composite
def series(draw: st.DrawFn) -> tuple[Series, float]:
    """A random step function and a run's end at or after its last point."""
    gaps = draw(st.lists(st.floats(0.001, 10.0), max_size=30))
    start = draw(st.floats(0.0, 5.0))
    times = [start + sum(gaps[:i]) for i in range(len(gaps))]
    times = [t for i, t in enumerate(times) if i == 0 or t > times[i - 1]]
    values = draw(st.lists(st.floats(0.0, 1e10), min_size=len(times), max_size=len(times)))
    end = (times[-1] if times else 0.0) + draw(st.floats(0.0, 10.0))
    return Series(t_s=times, values=values), end


def test_a_series_is_its_change_points() -> None:
    s = Series(t_s=[1.0, 2.5, 3.0], values=[4.0, 8.0, 0.0])
    assert s.integral(0.0, 3.5) == 4 * 1.5 + 8 * 0.5
    assert s.integral(2.0, 2.75) == 4 * 0.5 + 8 * 0.25
    assert s.mean(1.0, 3.0) == pytest.approx(10.0 / 2)
    assert s.peak() == 8.0 and Series().peak() == 0.0
    assert s.busy_time(0.0, 3.5) == 2.0 and s.busy_time(5.0, 3.5) == 0.5
    # Time-weighted: over [0, 4), 0 for 2 s (before 1 s, after 3 s), 4 for 1.5 s, 8 for 0.5 s.
    assert s.percentile(50, 0.0, 4.0) == 0.0 and s.percentile(51, 0.0, 4.0) == 4.0
    assert s.percentile(87.5, 0.0, 4.0) == 4.0 and s.percentile(90, 0.0, 4.0) == 8.0
    assert s.percentile(100, 0.0, 4.0) == 8.0 and s.percentile(0, 1.0, 2.0) == 4.0
    assert s.resample(1.0, 3.5) == step_means(s.t_s, s.values, 1.0, 3.5) == [0.0, 4.0, 6.0, 0.0]
    assert s.nonzero() and not Series().nonzero()


def test_of_keeps_only_the_points_that_say_something() -> None:
    s = Series.of([0.0, 1.0, 2.0, 2.0, 3.0, 4.0], [0.0, 5.0, 5.0, 7.0, 7.0, 1e-30], scale=2.0)
    # The leading 0, the repeated 5, the 5 replaced at 2 s, the repeated 7; 1e-30 is rounding: 0.
    assert (s.t_s, s.values) == ([1.0, 2.0, 4.0], [10.0, 14.0, 0.0])
    with pytest.raises(pydantic.ValidationError):
        Series(t_s=[1.0, 1.0], values=[1.0, 2.0])
    with pytest.raises(pydantic.ValidationError):
        Series(t_s=[1.0], values=[])


@settings(max_examples=200, deadline=None)
@given(series(), st.sampled_from([0.1, 0.25, 0.7, 1.0, 3.0]))
def test_resampling_then_integrating_is_integrating(case: tuple[Series, float], step: float) -> None:
    s, end = case
    exact = s.integral(0.0, end)
    assert sum(s.resample(step, end)) * step == pytest.approx(exact, rel=1e-9, abs=1e-6)
    assert s.mean(0.0, end) * end == pytest.approx(exact, rel=1e-9, abs=1e-6) if end > 0 else True


@settings(max_examples=200, deadline=None)
@given(series(), st.floats(0.0, 100.0))
def test_peak_percentiles_and_busy_time_bound_each_other(case: tuple[Series, float], p: float) -> None:
    s, end = case
    if end <= 0:
        return
    low, mid, high = s.percentile(0, 0.0, end), s.percentile(p, 0.0, end), s.percentile(100, 0.0, end)
    assert low <= mid <= high <= s.peak()
    assert 0.0 <= s.busy_time(0.0, end) <= end
    # The time above the p-th percentile is at most (100 - p) % of the run.
    assert s.busy_time(mid, end) <= (100 - p) / 100 * end + 1e-9 * end
    # Every bin's mean lies between 0 and the peak.
    assert all(-1e-6 <= m <= s.peak() * (1 + 1e-12) + 1e-6 for m in s.resample(1.0, end))
