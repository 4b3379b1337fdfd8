"""Long runs read as long runs: a time axis in the unit of the run's length (hours past 2 h,
minutes past 2 min), bursts that keep their height (the peak over a few bins behind each mean),
hover labels in `human_duration`'s words, and a report that stays small (plotly.js packed)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from hvnet.report.charts import Mark, TimeAxis, adapter_figure, cpu_figure, marked, time_labels, time_labels_id
from hvnet.report.embed import time_labels_script, unpack
from hvnet.report.resample import PEAK_POINTS, Grid
from hvnet.results import AdapterSeries
from hvnet.series import Series
from hvnet.units import human_duration

HOURS_14 = 14 * 3600.0


def burst_nic(end_s: float, at_s: float = 30_000.0, for_s: float = 20.0) -> AdapterSeries:
    """A 10 GbE NIC that sends at line rate for `for_s` seconds from `at_s`, and nothing else."""
    send = Series(t_s=[at_s, at_s + for_s], values=[10e9, 0.0])
    return AdapterSeries(host="hv1", nic="nic1", speed_bps=10e9, send_bps=send, receive_bps=Series())


def test_the_unit_of_a_time_axis_follows_the_runs_length() -> None:
    assert [TimeAxis.of(t).unit for t in (0, 33, 120, 121, 7200, 7201, HOURS_14)] == [
        "s",
        "s",
        "s",
        "min",
        "min",
        "h",
        "h",
    ]
    hours = TimeAxis.of(HOURS_14)
    assert hours.x(5400) == 1.5 and hours.layout()["title"]["text"] == "time (h)"


def test_a_fourteen_hour_runs_nic_chart_is_in_hours_and_keeps_a_burst_at_its_height() -> None:
    """Over 14 h a point is the mean over 90 s: a 20 s burst at 10 Gbps is 2.2 Gbps of it. The
    axis reads in hours (not to "50k s"), and the peak over each bucket of bins stands at 10 Gbps."""
    grid = Grid.fit(HOURS_14)
    assert grid.width_s == 90 and grid.bins == 560 and grid.peak_bins == 3
    figure = adapter_figure(burst_nic(HOURS_14), grid, HOURS_14)
    layout = figure["layout"]
    assert layout["xaxis"]["title"]["text"] == "time (h)"
    assert layout["xaxis"]["range"] == [0, 14]
    receive_peak, send_peak, _, send, link = figure["data"]
    assert (send["x0"], send["dx"]) == (0, 0.025)  # 90 s in hours
    assert max(send["y"]) == pytest.approx(10 * 20 / 90, rel=1e-3)  # the mean flattens the burst
    assert max(send_peak["y"]) == 10 and send_peak["dx"] == 0.075 and send_peak["fill"] == "tozeroy"
    assert len(send_peak["y"]) <= PEAK_POINTS + 1 and max(receive_peak["y"]) == 0
    assert (send_peak["legendgroup"], send_peak["showlegend"]) == ("Send", False)
    # its bucket: buckets of 270 s; 30,000 s is in the 112th, [29,970 s, 30,240 s)
    assert send_peak["y"][111] == 10 and send_peak["y"][110] == send_peak["y"][112] == 0
    assert link["x"] == [0, 14]
    # a failure at 5 h is marked at 5 on the axis, and named in words
    (line,) = marked(figure, [Mark(18_000.0, "nic_down hv1/nic1", repair=False)], TimeAxis.of(grid.end_s))["layout"][
        "shapes"
    ]
    assert line["x0"] == 5


def test_a_short_runs_chart_stays_in_seconds_without_peaks() -> None:
    grid = Grid.fit(33.0)
    figure = adapter_figure(burst_nic(33.0, 10.0, 5.0), grid, 33.0)
    assert figure["layout"]["xaxis"]["title"]["text"] == "time (s)"
    assert [trace["name"] for trace in figure["data"]] == ["Receive", "Send", "Link speed"]


def test_grid_peaks_are_the_exact_maximum_of_each_bucket() -> None:
    rng = random.Random(7)
    times = sorted(rng.sample(range(1, 100_000), 400))
    values = [rng.choice([0.0, rng.uniform(0, 10)]) for _ in times]
    series = Series(t_s=[t / 10 for t in times], values=values)
    end = 9_876.5
    grid = Grid.fit(end)
    peaks = grid.peaks(series, end)
    width = grid.width_s * grid.peak_bins
    assert len(peaks) == -(-grid.bins // grid.peak_bins)

    def brute(a: float, b: float) -> float:
        """The highest value in [a, b): the value in force at a, and each that starts inside."""
        before = [v for t, v in zip(series.t_s, series.values) if t <= a]
        inside = [v for t, v in zip(series.t_s, series.values) if a < t < b]
        return max([before[-1] if before else 0.0, *inside])

    assert peaks == [brute(k * width, min((k + 1) * width, end)) for k in range(len(peaks))]


def test_hover_labels_read_each_points_start_in_words() -> None:
    """One map per grid, once in the page: each chart names it in `layout.meta`, and the runtime
    gives it to the chart as its time axis's `labelalias`."""
    grid = Grid.fit(HOURS_14)
    labels = time_labels(grid)
    assert labels["1.000000"] == "1 h 00 min" and labels["0.025000"] == "1 min 30 s"  # a NIC chart's points
    assert labels["0.012500"] == "0 s" and labels["1.012500"] == "1 h 00 min"  # a heatmap's columns, centred
    assert all(not re.fullmatch(r"[\d.]+", label) for label in labels.values())
    assert unpack(re.search(r'class="packed">([^<]+)<', time_labels_script(grid)).group(1)) == labels  # type: ignore[union-attr]
    figure = cpu_figure("hv1: CPU per core (% busy)", [("core 0", Series())], grid, HOURS_14)
    assert figure["layout"]["meta"] == {"time_labels": time_labels_id(grid)}
    assert figure["layout"]["xaxis"]["hoverformat"] == ".6f"
    assert figure["data"][0]["hovertemplate"] == "%{y}: %{z:.0f} % busy at %{x}<extra></extra>"
    assert human_duration(3600) == "1 h 00 min"


def test_the_demos_report_is_small(cli: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`hvnet demo` writes 11 variants' charts in one page: 5.0 MB when the whole of plotly.js was
    in it, about 0.85 MB with its cartesian bundle packed (report/library.py)."""
    monkeypatch.chdir(tmp_path)
    assert cli("demo").exit_code == 0
    size = (tmp_path / "hvnet-demo.html").stat().st_size
    assert 500_000 < size < 1_200_000, f"the demo's report is {size:,} bytes"
