"""The failover example (examples/failover.yaml) and its results, shared by the report's tests."""

from __future__ import annotations

from importlib import resources

import pytest

from hvnet import Results, Scenario, parse_scenario, simulate
from hvnet.report import render_report


@pytest.fixture(scope="session")
def failover_scenario() -> Scenario:
    text = resources.files("hvnet.examples").joinpath("failover.yaml").read_text()
    return parse_scenario(text, "failover.yaml")


@pytest.fixture(scope="session")
def failover_results(failover_scenario: Scenario) -> Results:
    return simulate(failover_scenario, filename="failover.yaml")


@pytest.fixture(scope="session")
def failover_report(failover_results: Results, failover_scenario: Scenario) -> str:
    """The failover example's report as HTML (about 5 MB: plotly.js is inside)."""
    return render_report(failover_results, failover_scenario)
