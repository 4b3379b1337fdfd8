"""The failover example (examples/failover.yaml), a large cluster (scale.py), their results and
reports, shared by the report's tests."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from importlib import resources
from pathlib import Path

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
    """The failover example's report as HTML (about 0.7 MB: plotly.js is inside, packed)."""
    return render_report(failover_results, failover_scenario)


def _load_scale() -> Callable[[int, int], str]:
    """`cluster_yaml` from scale.py beside this file (a script too: tests import no sibling modules)."""
    spec = importlib.util.spec_from_file_location("hvnet_report_scale", Path(__file__).with_name("scale.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.cluster_yaml  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def cluster_yaml() -> Callable[[int, int], str]:
    """Issue 12's large cluster as YAML for `(hosts, vms_per_host)`: SET teams, two ToRs, a rolling update."""
    return _load_scale()


@pytest.fixture(scope="session")
def scale_scenario(cluster_yaml: Callable[[int, int], str]) -> Scenario:
    """12 hosts × 5 VMs: past the report's thresholds (10 hosts, 50 migrations), 2 h 16 min at 1 s."""
    return parse_scenario(cluster_yaml(12, 5), "c12.yaml")


@pytest.fixture(scope="session")
def scale_results(scale_scenario: Scenario) -> Results:
    return simulate(scale_scenario, filename="c12.yaml")


@pytest.fixture(scope="session")
def scale_report(scale_results: Results, scale_scenario: Scenario) -> str:
    return render_report(scale_results, scale_scenario)
