"""`series.step_means`: the core's change points as one mean per step, exactly."""

from __future__ import annotations

from hvnet.series import step_means


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
    carried = sum(v * (min(t2, end) - t) for t, t2, v in zip(times, times[1:] + [end], values))
    assert abs(sum(step_means(times, values, step, end)) * step - carried) < 1e-12 * carried
