"""The report page: self-contained, one chart per NIC with units, the terminal's traffic table.

The charts are checked through what each one's script hands to plotly
(`Plotly.newPlot(id, traces, layout, config)`); test_browser.py checks that a
browser draws them.
"""

from __future__ import annotations

import base64
import gzip
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from hvnet import Results, Scenario, parse_scenario, simulate
from hvnet.report import render_report, write_report
from hvnet.report.library import NOTICE, PLOTLY_VERSION, plotly_element, plotly_source
from hvnet.report.resample import significant
from hvnet.report.sections import NOT_SIMULATED, adapters_section
from hvnet.tables import results_tables
from hvnet.units import human_duration


class Page(HTMLParser):
    """What a page would load (every `src` and `href`), its tables' cells, and its scripts."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str, str]] = []
        self.scripts: list[str] = []
        self.rows: list[list[str]] = []
        self._in: str | None = None
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("src", "href", "srcset", "data"):
                self.links.append((tag, name, value or ""))
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th", "script"):
            self._in = tag
            if tag == "script":
                self.scripts.append("")
            else:
                self.rows[-1].append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts[-1] += data
        elif self._in in ("td", "th"):
            self.rows[-1][-1] += data


def charts(html: str) -> list[tuple[str, list[dict[str, Any]], dict[str, Any]]]:
    """Each chart's div id, traces and layout, in page order."""
    found = []
    decoder = json.JSONDecoder()
    for script in Page(html).scripts:
        if "Plotly.newPlot(" not in script:  # plotly.js is packed: it does not read so
            continue
        rest = script[script.index("Plotly.newPlot(") + len("Plotly.newPlot(") :].lstrip()
        div_id, end = decoder.raw_decode(rest)
        traces, end2 = decoder.raw_decode(rest[end:].lstrip(", \n"))
        rest = rest[end:].lstrip(", \n")[end2:]
        layout, _ = decoder.raw_decode(rest.lstrip(", \n"))
        found.append((div_id, traces, layout))
    return found


def test_the_page_loads_nothing_from_anywhere(failover_report: str) -> None:
    """No `src`/`href` reaches the network (or any other file): the report works offline."""
    links = Page(failover_report).links
    assert links, "the page has its navigation links and an icon"
    for tag, attribute, value in links:
        assert value.startswith(("#", "data:")), f"<{tag} {attribute}={value!r}> would load something"
    assert "<script src" not in failover_report and "<iframe" not in failover_report


def test_plotly_is_embedded_once_packed(failover_report: str) -> None:
    """plotly.js's cartesian bundle, gzip and base64 in a script element the page unpacks, with its
    licence notice in plain words; every chart waits for it."""
    element = plotly_element()
    assert failover_report.count(element) == 1 and failover_report.count('id="plotly-js"') == 1
    head = failover_report[: failover_report.index("</head>")]
    assert element in head, "plotly.js is there before the charts that use it"
    assert head.index(element) < head.index("window.hvnet"), "the runtime that unpacks it comes after it"
    assert f"<!-- {NOTICE} -->" in head and "MIT" in NOTICE
    packed = Page(failover_report).scripts[0]
    assert packed.startswith("H4sI")  # base64 of gzip's magic bytes
    assert gzip.decompress(base64.b64decode(packed)).decode() == plotly_source()
    assert plotly_source().startswith(f"/**\n* plotly.js (cartesian - minified) v{PLOTLY_VERSION}\n")
    assert 400_000 < len(packed) < 800_000, "the cartesian bundle packed, not the whole of plotly.js"
    drawn = [script for script in Page(failover_report).scripts if "Plotly.newPlot(" in script]
    assert drawn and all(script.startswith("hvnet.plotly.then(() => Plotly.newPlot(") for script in drawn)


def nic_charts(html: str) -> list[tuple[str, list[dict[str, Any]], dict[str, Any]]]:
    return [chart for chart in charts(html) if chart[0].startswith("nic-chart-")]


def test_one_chart_per_nic_that_carried_traffic_with_title_and_units(
    failover_report: str, failover_results: Results
) -> None:
    found = nic_charts(failover_report)
    assert [div_id for div_id, _, _ in found] == [f"nic-chart-{i}" for i in range(3)]
    titles = [layout["title"]["text"] for _, _, layout in found]
    assert titles == ["hv1 / nic1 (10 Gbps)", "hv1 / nic2 (10 Gbps)", "hv2 / nic1 (10 Gbps)"]
    # hv2's nic2 is the standby member of its team: it carries nothing, so it is named, not drawn.
    assert "Idle, not drawn: sent and received nothing (1): hv2 / nic2." in failover_report
    for (_, traces, layout), adapter in zip(found, failover_results.adapters):
        assert layout["xaxis"]["title"]["text"] == "time (s)"
        assert layout["yaxis"]["title"]["text"] == "Gbps"
        receive, send, link = traces
        assert (receive["name"], send["name"], link["name"]) == ("Receive", "Send", "Link speed")
        assert link["y"] == [10, 10] and link["line"]["dash"] == "dash"
        # Gbps (4 significant digits), one point per second (33 s: fits the chart), the exact mean
        # of the change points, and one closing the last bin: the axis ends with the last second.
        end = failover_results.end_s
        assert (send["x0"], send["dx"]) == (0, 1)
        assert send["y"][:-1] == [significant(v / 1e9) for v in adapter.send_bps.resample(1.0, end)]
        assert receive["y"][:-1] == [significant(v / 1e9) for v in adapter.receive_bps.resample(1.0, end)]
        assert layout["xaxis"]["range"] == [0, 33]


def test_the_traffic_table_is_the_terminal_tables(failover_report: str, failover_results: Results) -> None:
    """Same columns, same cells, row for row."""
    terminal = results_tables(failover_results)[0]
    header = [
        str(column.header).replace("-\n", "-").replace("\n", " ") for column in terminal.columns
    ]  # a header may wrap there
    cells = [[str(cell) for cell in column.cells] for column in terminal.columns]
    expected = [header] + [[column[i] for column in cells] for i in range(terminal.row_count)]
    rows = Page(failover_report).rows
    start = rows.index(header)
    assert rows[start : start + len(expected)] == expected
    assert header[:2] == ["traffic", "from → to"] and "mean rate" in header
    assert [row[:2] for row in expected[1:]] == [
        ["copy-1", "hv1 → hv2"],
        ["copy-2", "hv1 → hv2"],
        ["copy-back", "hv2 → hv1"],
    ]


def test_the_summary_and_what_is_not_there_yet(failover_report: str) -> None:
    rows = Page(failover_report).rows
    assert ["traffic entries completed", "3 of 3"] in rows
    # The example's copies end at 32 × 9038 / 8960 = 32.28 s (jumbo frames): the run ends with them,
    # and reads as every time of the report does (human_duration).
    assert ["simulated time", "32.3 s (charts: the exact mean over each 1.00 s)"] in rows
    assert ["design", "2 hosts, 4 NICs, 1 switch, 4 cables, 7 VMs"] in rows
    assert failover_report.count(NOT_SIMULATED) == 1
    assert "not simulate" in NOT_SIMULATED and "dynamics of TCP" in NOT_SIMULATED
    for section in ("summary", "design", "network", "cpu", "traffic"):
        assert f'<section id="{section}">' in failover_report


def test_a_stalled_entry_reads_never_and_an_idle_nic_gets_no_chart() -> None:
    scenario = parse_scenario(
        """
name: Stalled
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 10Gbps}, {name: spare, speed: 1Gbps}]}
  - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}
switches: [{name: sw}]
cables: [{a: hv1/nic1, b: sw/1}, {a: hv2/nic1, b: sw/2}]
traffic: [{name: stuck, from: hv1, to: hv2, size: 10GB}]
events: [{at: 1s, action: nic_down, target: hv2/nic1}]
""",
        "stalled.yaml",
    )
    html = render_report(simulate(scenario), scenario)
    rows = Page(html).rows
    stuck = next(row for row in rows if row[0] == "stuck")
    assert stuck[:2] == ["stuck", "hv1 → hv2"] and "10 GB" in stuck and "never" in stuck
    assert html.count('<tr class="stalled">') == 1
    titles = [layout["title"]["text"] for _, _, layout in nic_charts(html)]
    assert titles == ["hv1 / nic1 (10 Gbps)", "hv2 / nic1 (10 Gbps)"]
    assert "Idle, not drawn: sent and received nothing (1): hv1 / spare." in html


def test_charts_are_laid_out_two_or_three_per_row(failover_results: Results) -> None:
    """As many columns as a host has NICs, at least two and at most three."""
    assert "--columns: 2" in adapters_section(failover_results).body
    one = failover_results.model_copy(update={"adapters": failover_results.adapters[:1]})
    assert "--columns: 2" in adapters_section(one).body
    many = [a.model_copy(update={"nic": f"nic{i}"}) for i, a in enumerate(failover_results.adapters[:1] * 5)]
    assert "--columns: 3" in adapters_section(failover_results.model_copy(update={"adapters": many})).body


def test_write_report_writes_utf8(tmp_path: Path, failover_results: Results, failover_scenario: Scenario) -> None:
    path = tmp_path / "report.html"
    write_report(failover_results, failover_scenario, path)
    html = path.read_bytes().decode("utf-8")
    assert html == render_report(failover_results, failover_scenario)
    assert html.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in html


def test_a_cpu_heatmap_per_host_shows_each_core_in_percent(failover_report: str, failover_results: Results) -> None:
    """One heatmap per host, a row per physical core, cells the % busy over each second."""
    heatmaps = [chart for chart in charts(failover_report) if chart[0].startswith("cpu-chart-")]
    assert [layout["title"]["text"] for _, _, layout in heatmaps] == [
        "hv1: CPU per core (% busy)",
        "hv2: CPU per core (% busy)",
    ]
    (trace,) = heatmaps[0][1]
    hv1 = [c for c in failover_results.cores if c.host == "hv1"]
    assert trace["y"] == [f"core {c.core}" for c in hv1]
    end = failover_results.end_s
    assert trace["z"] == [[significant(100 * b, 2) for b in c.busy.resample(1.0, end)] for c in hv1]
    assert (trace["zmin"], trace["zmax"], trace["dx"]) == (0, 100, 1)


def test_a_migration_timeline_shows_queue_passes_and_blackout() -> None:
    """Three VMs migrated two at a time over TCP/IP: one bar per VM, the third with a queued part,
    every pass and a blackout drawn, and the table of migrations beside it."""
    from hvnet import parse_scenario, simulate
    from hvnet.report import render_report

    hosts = "".join(
        f"  - {{name: {h}, live_migration: {{option: tcp_ip}}, nics: [{{name: nic1, speed: 10Gbps}}]}}\n"
        for h in ("hv1", "hv2")
    )
    vms = "".join(f"  - {{name: vm{i}, host: hv1, memory: 2GiB}}\n" for i in (1, 2, 3))
    events = "".join(f"  - {{at: 0s, action: migrate, target: vm{i}, to: hv2}}\n" for i in (1, 2, 3))
    text = f"name: t\nhosts:\n{hosts}cables: [{{a: hv1/nic1, b: hv2/nic1}}]\nvms:\n{vms}events:\n{events}"
    scenario = parse_scenario(text)
    html = render_report(simulate(scenario), scenario)
    (timeline,) = [chart for chart in charts(html) if chart[0] == "migration-chart-0"]
    bars = {trace["name"]: trace["y"] for trace in timeline[1]}  # one trace per kind, a bar per point
    assert len(bars["blackout"]) == 3 and len(bars["pre-copy pass"]) == 3
    assert bars["queued"] == ["vm3 (hv1 → hv2, tcp_ip)"]
    assert '<section id="migrations">' in html
    # Small: the migrations grouped under their source host, the group open, its summary row first.
    assert html.count('<details class="group" open>') == 1 and "data-pack=" not in html
    assert "<summary><span>hv1</span><span>3 migrations</span>" in html
    assert "Maintenance windows" not in html, "migrate events alone have no maintenance window"


def test_a_rolling_update_shows_its_window_and_each_node() -> None:
    """A rolling update of two hosts: under the timeline, the maintenance-window table has the
    update's row and one row per node with when it was down and back."""
    from hvnet import parse_scenario, simulate
    from hvnet.report import render_report

    hosts = "".join(
        f"  - {{name: {h}, live_migration: {{option: tcp_ip}}, nics: [{{name: nic1, speed: 10Gbps}}]}}\n"
        for h in ("hv1", "hv2")
    )
    text = (
        f"name: t\nhosts:\n{hosts}cables: [{{a: hv1/nic1, b: hv2/nic1}}]\n"
        "vms: [{name: vm1, host: hv1, memory: 2GiB}]\n"
        "events: [{at: 0s, action: rolling_update, patch_time: 10min}]\n"
    )
    scenario = parse_scenario(text)
    results = simulate(scenario)
    html = render_report(results, scenario)
    assert "Maintenance windows" in html
    assert "rolling update of 2 nodes" in html
    rows = Page(html).rows
    assert ["live migrations ended", "2 of 2"] in rows and not [r for r in rows if r[0] == "traffic entries completed"]
    hv1 = results.operations[0].nodes[0]
    assert hv1.down_s is not None and hv1.back_s is not None
    assert f"{human_duration(hv1.down_s)} → {human_duration(hv1.back_s)}" in html
    # The timeline has a bar per node while it is down, from down_s for patch_time (10 min), in
    # minutes (the run is longer than 2 min), and says when in words.
    (timeline,) = [chart for chart in charts(html) if chart[0] == "migration-chart-0"]
    assert timeline[2]["xaxis"]["title"]["text"] == "time (min)"
    (down,) = [trace for trace in timeline[1] if trace["name"] == "node down"]
    assert down["y"] == ["hv1 down for its patch", "hv2 down for its patch"]
    assert down["base"][0] == pytest.approx(hv1.down_s / 60) and down["x"][0] == pytest.approx(10)
    assert down["customdata"][0] == f"down at {human_duration(hv1.down_s)}, back at {human_duration(hv1.back_s)}"


def test_a_vm_whose_stack_worked_gets_a_vcpu_heatmap() -> None:
    """VM traffic at 1 GbE (no vRSS): vm2's own stack receives on its vCPU 0, so vm2 gets a heatmap
    of its vCPUs after the hosts'; vm1 sends from one vCPU and gets one too; idle VMs get none."""
    from hvnet import parse_scenario, simulate
    from hvnet.report import render_report

    vm = "  - {name: %s, host: %s, vcpus: 2, memory: 1GiB, vswitch: vs}\n"
    scenario = parse_scenario(
        "name: t\nhosts:\n"
        + "".join(
            f"  - {{name: {h}, nics: [{{name: nic1, speed: 1Gbps}}], vswitches: [{{name: vs, uplink: nic1}}]}}\n"
            for h in ("hv1", "hv2")
        )
        + "cables: [{a: hv1/nic1, b: hv2/nic1}]\nvms:\n"
        + vm % ("vm1", "hv1")
        + vm % ("vm2", "hv2")
        + vm % ("idle", "hv2")
        + "traffic: [{from: vm1, to: vm2, size: 1GB}]\n"
    )
    results = simulate(scenario)
    html = render_report(results, scenario)
    heatmaps = [chart for chart in charts(html) if chart[0].startswith(("cpu-chart-", "vcpu-chart-"))]
    titles = [layout["title"]["text"] for _, _, layout in heatmaps]
    assert titles == [
        "hv1: CPU per core (% busy)",
        "hv2: CPU per core (% busy)",
        "vm1: CPU per vCPU (% busy)",
        "vm2: CPU per vCPU (% busy)",
    ]
    (trace,) = heatmaps[3][1]
    assert trace["y"] == ["vCPU 0", "vCPU 1"]
    assert max(trace["z"][0]) > 0 and max(trace["z"][1]) == 0
    assert "VMs whose vCPUs did no network work" not in html, "a VM without a stack at work has no vCPU series"


def test_the_utilisation_section_lists_every_nic_busiest_first(failover_report: str, failover_results: Results) -> None:
    """All 8 NIC directions of the failover example (not capped), busiest first, hot spots named."""
    rows = Page(failover_report).rows
    start = rows.index(["NIC", "direction", "p50", "p90", "p99", "max", "busy", "head-room", "of team"])
    assert rows[start + 1][:2] == ["hv1/nic1", "send"] and len(rows[start + 1 : start + 9]) == 8
    assert "Hot spots: hv1 / team1 (receive), hv2 / team1 (send), hv2 / team1 (receive)." in failover_report


def test_a_host_with_no_cpu_activity_gets_no_heatmap() -> None:
    """Issue 14: the report drew empty CPU heatmaps for hosts whose cores did nothing. hv3 carries
    no traffic: it gets no heatmap, one line names it, and every heatmap drawn has a busy cell."""
    from hvnet import parse_scenario, simulate
    from hvnet.report import render_report

    hosts = "".join(f"  - {{name: {h}, nics: [{{name: nic1, speed: 10Gbps}}]}}\n" for h in ("hv1", "hv2", "hv3"))
    scenario = parse_scenario(
        "name: t\nhosts:\n" + hosts + "switches: [{name: sw, ports: 4, port_speed: 10Gbps}]\n"
        "cables: [{a: hv1/nic1, b: sw/1}, {a: hv2/nic1, b: sw/2}, {a: hv3/nic1, b: sw/3}]\n"
        "traffic: [{from: hv1, to: hv2, size: 1GB}]\n"
    )
    html = render_report(simulate(scenario), scenario)
    heatmaps = [chart for chart in charts(html) if chart[0].startswith("cpu-chart-")]
    assert [layout["title"]["text"] for _, _, layout in heatmaps] == [
        "hv1: CPU per core (% busy)",
        "hv2: CPU per core (% busy)",
    ]
    assert all(any(max(row) > 0 for row in trace["z"]) for _, traces, _ in heatmaps for trace in traces)
    assert "Hosts whose cores did no network work, not drawn (1): hv3." in html
