"""The demo scenario and its results, shared by the report's tests."""

from __future__ import annotations

from importlib import resources

import pytest

from hvnet import Results, Scenario, parse_scenario, simulate
from hvnet.report import render_report


@pytest.fixture(scope="session")
def demo_scenario() -> Scenario:
    text = resources.files("hvnet.examples").joinpath("demo.yaml").read_text()
    return parse_scenario(text, "demo.yaml")


@pytest.fixture(scope="session")
def demo_results(demo_scenario: Scenario) -> Results:
    return simulate(demo_scenario, filename="demo.yaml")


@pytest.fixture(scope="session")
def demo_report(demo_results: Results, demo_scenario: Scenario) -> str:
    """The demo's report as HTML (about 5 MB: plotly.js is inside)."""
    return render_report(demo_results, demo_scenario)
