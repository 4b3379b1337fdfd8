"""`hvnet explain --report`: the charts that show the answer, and banners only for what applies (issue 24)."""

from __future__ import annotations

import json
import re
from html import escape
from pathlib import Path
from typing import Any

import pytest

from hvnet.explain.charts import BOTTLENECK_TRACES, bottleneck_figure, thread_figure, throughput_figure
from hvnet.explain.report import COUNTER_NOTE, render_explain_report
from tests.conftest import Invoke
from tests.explain.cases import LACP_JUMBO, RECEIVE_CORES, TWO_VMS, explained, ntttcp_receiver, worked_example
from tests.explain.test_explain import pdh_log


def plots(html: str) -> dict[str, list[dict[str, Any]]]:
    """Each chart's traces as the page hands them to plotly, by div id."""
    found = re.finditer(r'Plotly\.newPlot\("([^"]+)", (\[.*?\]), \{', html)
    return {m.group(1): json.loads(m.group(2)) for m in found}


def test_a_test_alone_gets_its_charts_and_no_counter_log_banner() -> None:
    """Issue 24's page had no chart and a banner about counter logs that were not given. Expected now:
    three charts (throughput over time, the bottleneck's use, per thread), no banner paragraph at all,
    and no per-NIC section."""
    html = render_explain_report(explained(TWO_VMS, RECEIVE_CORES))
    assert set(plots(html)) == {"explain-0-throughput", "explain-0-bottleneck", "explain-0-threads"}
    assert 'class="note"' not in html and "Counter logs" not in html and 'id="nics"' not in html
    assert "vm2&#x27;s receive work lands on cores 3 and 4 of hv2" in html
    assert "not the cause: member-down, rss-one-core" in html


def test_a_counter_log_brings_its_charts_and_its_banner(tmp_path: Path) -> None:
    """With a counter log the banner applies (how the log is aligned): once, beside the log's charts."""
    run = ntttcp_receiver(tmp_path / "run.txt", 1, 572.0)
    html = render_explain_report(explained(LACP_JUMBO, run, pdh_log(tmp_path / "hv1.csv", 5, 600e6)))
    assert html.count(escape(COUNTER_NOTE)) == 1 and 'id="nics"' in html
    assert "explain-counter-0" in plots(html)


def test_throughput_over_time_draws_measured_beside_predicted() -> None:
    """The NTttcp file gives totals only: measured is drawn flat at its 6.00 Gbps and says so; predicted
    is the receiving NICs' line rate scaled to payload, 7.86 Gbps in every bin of the 15.002 s test."""
    figure, caption = throughput_figure(worked_example())
    measured, predicted = figure["data"]
    assert measured["y"] == [6, 6] and measured["x"] == [0, 15.002] and measured["name"] == "measured (mean)"
    assert len(predicted["y"]) == 150 and all(y == pytest.approx(7.86, abs=0.005) for y in predicted["y"])
    assert "totals only" in caption and "scaled to payload" in caption


def test_the_bottleneck_chart_draws_what_holds_the_test_first() -> None:
    """Cores 3 and 4 of hv2, solid at 100 %; then the fullest others, dotted (hv2/nic2 at 83 %)."""
    chain = worked_example().chain
    assert chain is not None
    traces = bottleneck_figure(chain)["data"]
    drawn = traces[:-1]  # the last is the 100 % line
    assert len(drawn) == BOTTLENECK_TRACES
    assert [t["name"] for t in drawn[:3]] == [
        "hv2 core 3 (receive cores)",
        "hv2 core 4 (receive cores)",
        "hv2/nic2 (NIC receive)",
    ]
    assert all(y == 100 for y in drawn[0]["y"]) and "dash" not in drawn[0]["line"]
    assert drawn[2]["line"]["dash"] == "dot" and drawn[2]["y"][0] == pytest.approx(82.8, abs=0.1)


def test_per_thread_measured_beside_predicted() -> None:
    """Each of the 8 threads measured (thread 3: the slowest, 652.5 Mbps) beside the twin's equal 982.5 Mbps."""
    figure = thread_figure(worked_example())
    assert figure is not None
    measured, predicted = figure["data"]
    assert measured["y"][3] == pytest.approx(0.6525, abs=1e-4) and predicted["y"] == [0.9825] * 8


def test_the_cli_writes_the_page(cli: Invoke, tmp_path: Path) -> None:
    page = tmp_path / "explain.html"
    result = cli("explain", TWO_VMS, RECEIVE_CORES, "--from", "vm1", "--to", "vm2", "--report", page)
    assert result.exit_code == 0, result.output
    assert "report written to" in result.stderr and "explain-0-bottleneck" in page.read_text()
