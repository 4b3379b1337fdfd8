"""Reports in a real browser: Debian's headless Chromium, driven by selenium.

The failover example's report and the one `hvnet demo` writes. Every chart
must be drawn (plotly puts an `svg.main-svg` in its div, and in it a group per
trace it drew: lines, bars, a heatmap), from plotly.js that the page unpacked
itself, with no error in the browser's console, and with the network cut off
(`--host-resolver-rules`): the report needs nothing but its own file. The test
saves a screenshot of each page beside its HTML and prints its path.

It needs Chromium and its driver from Debian (no browser download):

    apt-get update && apt-get install -y chromium chromium-driver

and selenium (in the `test` extra). Without them it fails and says so: the
report's promise to render is not checked otherwise.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from hvnet import Results, Scenario
from hvnet.report import write_report

INSTALL = "apt-get update && apt-get install -y chromium chromium-driver"

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND",  # nothing on the network resolves: the page is offline
    "--window-size=1320,1000",
]

#: The chart divs, and how many of them plotly has drawn: its svg, with at least one trace in it that
#: has a shape (a line or an area's path, a bar, a heatmap's image).
CHARTS = """
const charts = Array.from(document.querySelectorAll('.plotly-graph-div'));
const drawn = c => c.querySelector('svg.main-svg') &&
  c.querySelector('.cartesianlayer .trace path[d^="M"], .cartesianlayer .hm image');
return [charts.length, charts.filter(drawn).length];
"""

TITLES = """
return Array.from(document.querySelectorAll('.plotly-graph-div'))
  .map(c => (c.querySelector('.gtitle') || {}).textContent);
"""


@dataclass
class Rendered:
    """What Chromium made of a page: its charts, their titles, its console, a screenshot."""

    total: int
    drawn: int
    titles: list[str | None]
    console: list[dict[str, str]]
    screenshot: Path


def render(page: Path, tmp_path: Path, then: Callable[[Any], None] | None = None) -> Rendered:
    """Opens `page` offline in headless Chromium, waits for every chart, runs `then(driver)` if
    given (clicks, more checks), and takes a full-page screenshot."""
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if chromium is None or driver_path is None:
        pytest.fail(f"Debian's Chromium and its driver are needed for this test; install them with: {INSTALL}")
    try:
        from selenium import webdriver
        from selenium.webdriver.support.wait import WebDriverWait
    except ImportError:
        pytest.fail("selenium is needed for this test; install the test tools with: pip install -e '.[test]'")

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [*FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The driver's path is given, so selenium does not look for (or download) one.
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_path))
    try:
        driver.get(page.as_uri())
        WebDriverWait(driver, 120).until(lambda d: (c := d.execute_script(CHARTS))[0] > 0 and c[0] == c[1])
        total, drawn = driver.execute_script(CHARTS)
        titles = driver.execute_script(TITLES)
        if then is not None:
            then(driver)
        console = driver.get_log("browser")  # type: ignore[no-untyped-call]  # selenium leaves it untyped
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(1320, height + 100)
        screenshot = page.with_suffix(".png")
        assert driver.save_screenshot(str(screenshot))
    finally:
        driver.quit()
    print(f"screenshot: {screenshot}")
    return Rendered(total, drawn, titles, console, screenshot)


def test_every_chart_renders_in_chromium_without_console_errors(
    tmp_path: Path, failover_results: Results, failover_scenario: Scenario
) -> None:
    report = tmp_path / "report.html"
    write_report(failover_results, failover_scenario, report)
    page = render(report, tmp_path)

    nics = sum(len(host.nics) for host in failover_scenario.hosts)
    hosts = len(failover_scenario.hosts)
    idle = 1  # hv2 / nic2, the standby member of its team, carries nothing: named, not drawn
    assert page.total == page.drawn == nics - idle + hosts == 5, "a chart per busy NIC and a CPU heatmap per host"
    assert page.titles == [
        "hv1 / nic1 (10 Gbps)",
        "hv1 / nic2 (10 Gbps)",
        "hv2 / nic1 (10 Gbps)",
        "hv1: CPU per core (% busy)",
        "hv2: CPU per core (% busy)",
    ]
    severe = [entry for entry in page.console if entry["level"] == "SEVERE"]
    assert severe == [], f"errors in the browser console: {severe}"
    assert page.screenshot.stat().st_size > 10_000


def test_the_demo_report_renders_every_variants_charts(
    cli: Callable[..., Result], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the README's first command writes: 11 variants, each with 4 NIC charts (less the idle
    ones, named instead) and a migration timeline."""
    monkeypatch.chdir(tmp_path)
    assert cli("demo").exit_code == 0
    html = (tmp_path / "hvnet-demo.html").read_text(encoding="utf-8")
    idle = [int(n) for n in re.findall(r"Idle, not drawn: sent and received nothing \((\d+)\)", html)]
    page = render(tmp_path / "hvnet-demo.html", tmp_path)
    assert page.total == page.drawn == 11 * (4 + 1) - sum(idle)
    severe = [entry for entry in page.console if entry["level"] == "SEVERE"]
    assert severe == [], f"errors in the browser console: {severe}"
    assert page.screenshot.stat().st_size > 10_000


def test_a_large_clusters_report_draws_what_is_picked_and_opened(
    tmp_path: Path, scale_results: Results, scale_scenario: Scenario
) -> None:
    """12 hosts × 5 VMs in a rolling update: 8 NIC charts and one whose NIC is picked from a list,
    the timeline by host, 4 host heatmaps and one picked. Picking another NIC redraws that chart;
    opening a host's group draws its migrations and fills their table. The run is 2 h 17 min long:
    the axes are in hours, a hovered time reads in words; the 12 hosts wrap to fit the page."""
    report = tmp_path / "scale.html"
    write_report(scale_results, scale_scenario, report)
    seen: dict[str, Any] = {}

    def pick_and_open(driver: Any) -> None:
        from selenium.webdriver.support.wait import WebDriverWait

        seen["picked"] = driver.execute_script(
            """const select = document.querySelector('select[data-pack="nic-chart-data"]');
            select.selectedIndex = select.options.length - 1;
            select.dispatchEvent(new Event("change"));
            return select.options[select.selectedIndex].textContent;"""
        )
        title = "return (document.querySelector('#nic-chart-other .gtitle') || {}).textContent"
        WebDriverWait(driver, 30).until(lambda d: seen["picked"].startswith(d.execute_script(title) + ":"))
        driver.execute_script("document.querySelectorAll('details.group')[2].open = true")
        group = "const g = document.querySelectorAll('details.group')[2]; "
        drawn = group + "return [!!g.querySelector('.group-chart svg.main-svg'), g.querySelectorAll('tbody tr').length]"
        WebDriverWait(driver, 30).until(lambda d: d.execute_script(drawn)[0])
        seen["rows"] = driver.execute_script(drawn)[1]
        seen["closed"] = driver.execute_script(
            "return [...document.querySelectorAll('details.group')].filter(d => !d.open).length"
        )
        seen["axis"] = driver.execute_script("return document.querySelector('#nic-chart-0 .xtitle').textContent")
        hover = "Plotly.Fx.hover('{0}', {1}); return document.querySelector('#{0} .hoverlayer').textContent"
        seen["hover"] = driver.execute_script(hover.format("nic-chart-0", "{xval: 1.002}"))
        heatmap = driver.execute_script(hover.format("cpu-chart-0", "{xval: 1.002, yval: 0}"))
        seen["heatmap"] = heatmap[heatmap.index("at ") :]
        seen["design"] = driver.execute_script(
            "const box = document.getElementById('design-diagram'); return [box.scrollWidth, box.clientWidth]"
        )
        seen["fit button hidden"] = driver.execute_script("return document.getElementById('design-fit').hidden")

    page = render(report, tmp_path, pick_and_open)
    assert page.total == page.drawn == 8 + 1 + 1 + 4 + 1
    # 2 h 17 min: time in hours on the axes, in words when hovered; the design fits the page.
    assert seen["axis"] == "time (h)"
    assert seen["hover"].startswith("1 h 00 min") and "Gbps" in seen["hover"]
    assert seen["heatmap"] == "at 1 h 00 min"
    assert seen["design"][0] <= seen["design"][1] and seen["fit button hidden"]
    assert page.titles[8] not in page.titles[:8], "the list offers the NICs not drawn above"
    assert seen["picked"].split(":")[0] not in page.titles[:9]
    hv3 = [m for m in scale_results.migrations if m.source == "hv3"]
    assert seen["rows"] == len(hv3) > 0
    assert seen["closed"] == 11
    severe = [entry for entry in page.console if entry["level"] == "SEVERE"]
    assert severe == [], f"errors in the browser console: {severe}"
