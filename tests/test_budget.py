"""A run's size, estimated before it runs (hvnet.budget, docs/reliability.md): every example
fits the default limit; a run over `max_memory_bytes` or `HVNET_MAX_MEMORY` is refused with one
line naming the cause and the knob; the scenarios the fuzzer once ran out of memory on run."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import hvnet
from hvnet import budget
from hvnet.errors import RunTooLarge
from hvnet.lower import lower, specs
from tests.test_lowering_shared import cluster

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "python" / "hvnet" / "examples").rglob("*.yaml"))
FAILOVER = ROOT / "python" / "hvnet" / "examples" / "failover.yaml"
C3 = ROOT / "python" / "hvnet" / "examples" / "validation" / "c3-live-migration.yaml"
#: The fuzzer's 1 Mbps NIC carrying a 55 GiB live migration (once `MemoryError` writing its JSON).
SLOW_MIGRATION = C3.read_text().replace("speed: 10Gbps", "speed: 1Mbps", 1)


def _estimate(scenario: hvnet.Scenario) -> budget.Estimate:
    found: list[budget.Estimate] = []
    real = budget.check

    def spy(spec: specs.RunSpec, source: str, max_memory_bytes: int | None = None) -> budget.Estimate:
        found.append(budget.estimate(spec))
        return found[-1]

    budget.check = spy
    try:
        hvnet.simulate(scenario)
    finally:
        budget.check = real
    return found[0]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_fits_the_default_limit_and_its_estimate_bounds_its_events(path: Path) -> None:
    scenario = hvnet.load(path)
    results = hvnet.simulate(scenario)
    estimate = _estimate(scenario)
    assert estimate.memory_bytes < budget.default_limit()
    assert results.events <= estimate.events


def test_the_default_limit_is_half_the_machines_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.delenv(budget.ENVIRONMENT, raising=False)
    physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    assert budget.limit() == physical // 2
    assert budget.limit(1234) == 1234


def test_the_environment_sets_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(budget.ENVIRONMENT, "8GiB")
    assert budget.limit() == 8 * 2**30
    monkeypatch.setenv(budget.ENVIRONMENT, "1000")
    assert budget.limit() == 1000
    monkeypatch.setenv(budget.ENVIRONMENT, "lots")
    with pytest.raises(hvnet.HvnetError, match="HVNET_MAX_MEMORY: 'lots' is not a size"):
        budget.limit()


def test_a_run_over_the_limit_is_refused_with_its_cause_and_the_knob(monkeypatch: pytest.MonkeyPatch) -> None:
    scenario = hvnet.load(FAILOVER)
    estimate = _estimate(scenario)
    with pytest.raises(RunTooLarge) as caught:
        hvnet.simulate(scenario, max_memory_bytes=int(estimate.memory_bytes) - 1)
    message = str(caught.value)
    assert len(message.splitlines()) == 1
    assert message.startswith(f"{FAILOVER}: this run is too large to simulate: about ")
    assert "events" in message and "HVNET_MAX_MEMORY" in message and "max_memory_bytes" in message
    # Just over the estimate, it runs; the environment variable is the same knob.
    assert hvnet.simulate(scenario, max_memory_bytes=int(estimate.memory_bytes) + 1).events > 0
    monkeypatch.setenv(budget.ENVIRONMENT, "1KiB")
    with pytest.raises(RunTooLarge):
        hvnet.simulate(scenario)


def test_a_long_run_on_dynamic_teams_names_its_rebalancing(tmp_path: Path) -> None:
    # Two 1000 TB copies on teams rebalanced every second: 1.6 million ticks, which record
    # nothing once the spread is steady (73 MiB measured), so it runs under the default limit.
    path = tmp_path / "cluster.yaml"
    path.write_text(FAILOVER.read_text().replace("size: 20GB", "size: 1000TB"))
    scenario = hvnet.load(path)
    estimate = _estimate_refused(scenario)
    assert estimate.events > 1e6 and estimate.memory_bytes < 2**30
    with pytest.raises(RunTooLarge) as caught:
        hvnet.simulate(scenario, max_memory_bytes=10 * 2**20)
    assert "3 connections on dynamic teams rebalanced every 1 s over 444 h" in str(caught.value)
    assert "the limit is 10.0 MiB" in str(caught.value)


def _estimate_refused(scenario: hvnet.Scenario) -> budget.Estimate:
    found: list[budget.Estimate] = []
    real = budget.estimate

    def spy(spec: specs.RunSpec) -> budget.Estimate:
        found.append(real(spec))
        return found[-1]

    budget.estimate = spy
    try:
        with pytest.raises(RunTooLarge):
            hvnet.simulate(scenario, max_memory_bytes=0)
    finally:
        budget.estimate = real
    return found[0]


def test_the_fuzzers_slow_migration_runs_quickly_or_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "slow.yaml"
    path.write_text(SLOW_MIGRATION)
    scenario = hvnet.load(path)
    results = hvnet.simulate(scenario)  # under the default limit: it runs (change points), fast
    assert results.end_s > 400_000 and results.wall_s < 5
    with pytest.raises(RunTooLarge, match=r"slow\.yaml: this run is too large"):
        hvnet.simulate(scenario, max_memory_bytes=1000)


def test_a_migration_a_year_in_runs_or_is_refused(tmp_path: Path) -> None:
    text = C3.read_text().replace("at: 0s", "at: 8760h")
    path = tmp_path / "late.yaml"
    path.write_text(text)
    scenario = hvnet.load(path)
    assert hvnet.simulate(scenario).end_s >= 8760 * 3600
    with pytest.raises(RunTooLarge):
        hvnet.simulate(scenario, max_memory_bytes=1000)


def test_a_long_replay_after_the_work_is_done_counts_a_point_a_step() -> None:
    """A day of measured demand in one-minute steps beside a one-second transfer: the steps after the
    transfer can only change their own link's use, so the estimate grows by a point a step, not by
    every resource at every step; and it still bounds the run's events and change points."""
    steps = ", ".join(f"[{60 * k}s, {1 + k % 3}Gbps]" for k in range(1440)) + ", [86400s, 0bps]"
    scenario = hvnet.parse_scenario(
        "name: replay\nhosts:\n  - {name: h1, nics: [{name: nic1, speed: 10Gbps}]}\n"
        "  - {name: h2, nics: [{name: nic1, speed: 10Gbps}]}\n"
        "cables: [{a: h1/nic1, b: h2/nic1}]\n"
        "traffic: [{from: h1, to: h2, size: 1GB}]\n"
        f"demand: [{{nic: h1/nic1, send: [{steps}]}}]\n"
    )
    results = hvnet.simulate(scenario)
    estimate = _estimate(scenario)
    loaded = next(a.send_bps for a in results.adapters if a.host == "h1")  # the link the demand is on
    assert results.events <= estimate.events and len(loaded.t_s) <= estimate.points
    assert estimate.points < 3 * 1441 + 100


@pytest.mark.parametrize("option", ["smb", "compression"])
def test_a_migration_table_is_estimated_as_its_migrations_one_by_one(option: str) -> None:
    """A lowered rolling update gives its migrations as a table (`RunSpec.migration_table`): the
    estimate is exactly the one of the same migrations given one by one (`RunSpec.all_migrations`)."""
    spec = lower(cluster(16, option)).spec
    assert spec.migration_table is not None and not spec.migrations
    expanded = dataclasses.replace(spec, migrations=spec.all_migrations(), migration_table=None)
    assert len(expanded.migrations) == len(spec.migration_table.route) > 16
    assert budget.estimate(spec) == budget.estimate(expanded)
    unrecorded = dataclasses.replace(spec, record=False)
    assert budget.estimate(unrecorded) == budget.estimate(dataclasses.replace(expanded, record=False))
