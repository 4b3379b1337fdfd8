"""Reports that stay readable at scale (issue 12): change points binned exactly to the chart's width, the
busiest NICs and hosts drawn and the others picked from a list, the migration timeline grouped
per source host, nothing idle drawn. On 12 hosts × 5 VMs in a rolling update (scale.py), which
passes the grouping thresholds (10 hosts, 50 migrations); docs/report.md has the 64-host figures."""

from __future__ import annotations

import json
import re

import pytest

from hvnet import Results
from hvnet.report.embed import pack, unpack
from hvnet.report.migrations import migrations_section
from hvnet.report.resample import MAX_POINTS, PEAK_POINTS, Grid, bin_factor, significant
from hvnet.report.sections import adapters_section, cpu_section
from hvnet.series import Series
from hvnet.units import human_duration


def test_a_grid_bins_the_change_points_exactly_and_weights_the_last_partial_bin() -> None:
    # 1, 3, 5, 7 and 2 over five seconds; the run ends at 4.5 s.
    series = Series(t_s=[0.0, 1.0, 2.0, 3.0, 4.0], values=[1.0, 3.0, 5.0, 7.0, 2.0])
    grid = Grid.fit(4.5)
    assert (grid.resolution_s, grid.factor, grid.end_s, grid.bins) == (1.0, 1, 5.0, 5)
    assert grid.means(series, 4.5) == [1.0, 3.0, 5.0, 7.0, 1.0]  # nothing after the run's end
    two = Grid(1.0, 2, 5.0, 3)
    assert two.means(series, 4.5) == [2.0, 6.0, 1.0]  # the last bin holds one second: its own mean
    assert Grid(1.0, 5, 5.0, 1).means(series, 4.5) == [3.4]
    assert Grid.fit(0.0).bins == 1 and Grid.fit(0.0).means(Series(), 0.0) == [0.0]
    # Each bin times its width gives back the integral: the same bytes, the same core·s.
    times = [k * 0.37 for k in range(1001)]
    series = Series(t_s=times, values=[float((k * 37) % 11) for k in range(1001)])
    end = 370.3
    for factor in (1, 2, 7, 90, 1000):
        grid = Grid(1.0, factor, 371.0, -(-371 // factor))
        bins = grid.means(series, end)
        widths = [min(factor, 371 - k * factor) for k in range(len(bins))]
        assert sum(b * w for b, w in zip(bins, widths)) == pytest.approx(series.integral(0.0, end), rel=1e-12)


def test_a_grid_fits_the_chart_in_round_bins_of_its_resolution() -> None:
    assert Grid.fit(61_068.0).width_s == 90 and Grid.fit(61_068.0).bins == 679  # 17 h: a point per 1 min 30 s
    quarter = Grid.fit(200.0, 0.25)  # 800 quarters of a second: one each
    assert (quarter.factor, quarter.bins, quarter.end_s) == (1, 800, 200.0)
    assert Grid.fit(201.0, 0.25).width_s == 0.5


def test_bin_factor_fits_the_chart_with_round_durations() -> None:
    assert bin_factor(0) == bin_factor(33) == bin_factor(MAX_POINTS) == 1
    assert bin_factor(MAX_POINTS + 1) == 2
    assert bin_factor(61_068) == 90  # 17 h at 1 s: a point per 1 min 30 s, 679 points
    assert bin_factor(1_018) == 2  # the same run at 60 s
    for steps in (801, 5_000, 61_068, 10**6, 10**8):
        factor = bin_factor(steps)
        assert -(-steps // factor) <= MAX_POINTS and -(-steps // bin_factor(steps, 600)) <= 600


def test_significant_rounds_for_a_chart_and_writes_whole_numbers_short() -> None:
    assert significant(9.87654321) == 9.877 and significant(0.000123456) == 0.0001235
    assert significant(0.0) == 0 and isinstance(significant(0.0), int)
    assert significant(59.98919, 2) == 60 and significant(26.59363, 2) == 27
    assert pack({"a": [0, 1.5]}) == pack({"a": [0, 1.5]}) and unpack(pack({"a": [0, 1.5]})) == {"a": [0, 1.5]}


def test_nic_charts_are_the_busiest_eight_and_the_others_a_pick_away(scale_results: Results) -> None:
    body = adapters_section(scale_results).body
    drawn = re.findall(r'Plotly\.newPlot\("nic-chart-(\d+)", (\[.*?\]), \{"title":\{"text":"([^"]+)"', body)
    assert [int(i) for i, _, _ in drawn] == list(range(8))
    end = scale_results.end_s
    moved = {
        f"{a.host} / {a.nic}": a.send_bps.integral(0, end) + a.receive_bps.integral(0, end)
        for a in scale_results.adapters
    }
    busy = [name for name, total in moved.items() if total > 0]
    idle = [name for name, total in moved.items() if total == 0]
    busiest = sorted(busy, key=lambda name: -moved[name])[:8]
    assert sorted(title.split(" (")[0] for _, _, title in drawn) == sorted(busiest)
    # The others: one chart, a list of them, their figures packed in the page.
    options = re.findall(r'<option value="(\d+)">([^<]+)</option>', body)
    assert len(options) == len(busy) - 8 > 0
    figures = unpack(re.search(r'id="nic-chart-data" class="packed">([^<]+)<', body).group(1))  # type: ignore[union-attr]
    assert [f["layout"]["title"]["text"] for f in figures] == [label.split(":")[0] for _, label in options]
    # The idle NICs (each team's second member: Hyper-V port puts both migrations on nic1) are named.
    assert idle and f"Idle, not drawn: sent and received nothing ({len(idle)}): {', '.join(idle)}." in body
    # Binned: 8,248 s to 688 points, a point per 12 s, at most MAX_POINTS; the axis in hours
    # (2 h 17 min); the peaks over buckets of 3 bins (36 s) behind the means.
    steps = Grid.fit(end).end_s
    assert steps == 8248 and bin_factor(8248) == 12 and "exact mean over each 12.0 s" in body
    for figure in figures:
        receive_peak, send_peak, receive, send, _ = figure["data"]
        assert len(send["y"]) == len(receive["y"]) == -(-steps // 12) + 1 <= MAX_POINTS + 1
        assert len(send_peak["y"]) == len(receive_peak["y"]) == -(-steps // 36) + 1 <= PEAK_POINTS + 1
        assert figure["layout"]["xaxis"]["range"] == [0, significant(steps / 3600, 10)]
        assert figure["layout"]["xaxis"]["title"]["text"] == "time (h)"
    # Exact means: the busiest NIC's bytes survive resampling (to the 4 digits kept).
    first = next(
        a
        for a in scale_results.adapters
        if f"{a.host} / {a.nic}" == figures[0]["layout"]["title"]["text"].split(" (")[0]
    )
    points = figures[0]["data"][3]["y"][:-1]  # the last repeats the last bin, to close the step line
    widths = [12] * (len(points) - 1) + [steps - 12 * (len(points) - 1)]
    total = sum(v * w for v, w in zip(points, widths)) * 1e9
    assert total == pytest.approx(first.send_bps.integral(0, end), rel=1e-3)


def test_the_timeline_is_grouped_per_source_host(scale_results: Results) -> None:
    section = migrations_section(scale_results)
    assert section is not None
    body = section.body
    sources = list(dict.fromkeys(m.source for m in scale_results.migrations))
    assert len(sources) == 12 and len(scale_results.migrations) == 120
    # Past the thresholds: a row per host in the chart, every group closed and filled on demand.
    overview = re.search(r'Plotly\.newPlot\("migration-chart-0", (\[.*?\]), (\{.*?"categoryarray":(\[.*?\]))', body)
    assert overview is not None and overview.group(3) == str(list(reversed(sources))).replace("'", '"').replace(" ", "")
    assert body.count('<details class="group" data-pack="migration-groups"') == 12 and " open>" not in body
    packed = unpack(re.search(r'id="migration-groups" class="packed">([^<]+)<', body).group(1))  # type: ignore[union-attr]
    for key, host in enumerate(sources):
        mine = [m for m in scale_results.migrations if m.source == host]
        table, figure = packed["tables"][str(key)], packed["figures"][str(key)]
        assert table.count("<tr>") == len(mine) + 1  # the header and a row per migration
        bars = {trace["name"]: trace["y"] for trace in figure["data"]}
        assert bars["node down"] == [f"{host} down for its patch"] and len(bars["blackout"]) == len(mine)
        # The summary row: migrations, first start, last end, longest blackout, bytes moved.
        longest = max(m.blackout_s or 0 for m in mine)
        row = re.search(rf"<summary><span>{host}</span>(.*?)</summary>", body).group(1)  # type: ignore[union-attr]
        assert (
            row.startswith(f"<span>{len(mine)} migrations</span>") and f"<span>{human_duration(longest)}</span>" in row
        )
    # The same scenario under higher thresholds looks like a small one: a bar per VM, groups open.
    small = migrations_section(scale_results, group_hosts=100, group_migrations=1000)
    assert small is not None and small.body.count('<details class="group" open>') == 12
    assert 'class="packed"' not in small.body
    assert '"categoryarray":["vm' in small.body, "a row per VM"


def test_heatmaps_for_the_busiest_hosts_and_their_working_cores(scale_results: Results) -> None:
    section = cpu_section(scale_results)
    assert section is not None
    drawn = re.findall(r'Plotly\.newPlot\("cpu-chart-(\d)", \[\{"type":"heatmap","z":(\[.*?\]\]),', section.body)
    assert len(drawn) == 4 and "pick any other below" in section.body
    assert 'data-pack="cpu-chart-data"' in section.body and "<option" in section.body
    # 32 cores: only the cores that did network work get a row, none of them all zero.
    for _, z in drawn:
        rows = json.loads(z)
        assert 0 < len(rows) < 32 and all(any(row) for row in rows)
        assert all(len(row) <= MAX_POINTS for row in rows)
