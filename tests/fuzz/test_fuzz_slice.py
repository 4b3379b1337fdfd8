"""A seeded, fast slice of bench/fuzz.py, in this process: each mutated scenario or traffic
matrix is either run to a clean result (strict JSON, no NaN or infinity) or refused with one
clear line per problem, `file[:line]: [field: ]message`. The full fuzzer runs each case in a
child process with time and memory limits (docs/reliability.md). Its cases, entry points and
classes come from its package, bench/fuzzing/ (conftest.py puts bench/ on the path)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from fuzzing import cases, entries, outcomes
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

import hvnet
from hvnet.flows import read_flows, run_flows

SLICE = settings(
    max_examples=40,
    database=None,
    phases=[Phase.generate],
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
#: What the slice leaves to the fuzzer's child processes: a run whose time series would not fit
#: in memory (a year at a 1 s step; docs/reliability.md, "Not covered yet").
LONGEST_RUN_S = 86_400.0


def assert_clean_refusal(error: hvnet.HvnetError, name: str) -> None:
    lines = str(error).splitlines()
    assert lines, "a refusal says why"
    for line in lines:
        assert outcomes.CLEAN_LINE.match(line) and line.startswith(name), f"not one clear line: {line!r}"


def _simulable(scenario: hvnet.Scenario) -> bool:
    times = [e.at for e in scenario.events] + [f.start for f in scenario.traffic] + [0.0]
    slow = any(nic.speed < 1e9 for host in scenario.hosts for nic in host.nics)
    return max(times) <= LONGEST_RUN_S and not slow


@seed(15)
@SLICE
@given(st.data())
def test_mutated_scenarios_give_a_result_or_one_clear_line_each(data: st.DataObject) -> None:
    _, _, raw = cases.scenario_case(data)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "case.yaml"
        path.write_bytes(raw)
        try:
            scenario = hvnet.load(path)
            if _simulable(scenario):
                results = hvnet.simulate(scenario)
                json.dumps(results.model_dump(mode="json"), allow_nan=False)
        except hvnet.HvnetError as error:
            assert_clean_refusal(error, str(path))


@seed(15)
@settings(SLICE, max_examples=20)
@given(st.data())
def test_mutated_traffic_matrices_give_a_result_or_one_clear_line_each(data: st.DataObject) -> None:
    _, _, raw = cases.flows_case(data)
    scenario = hvnet.load(cases.FLOWS_SCENARIO)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "case.csv"
        path.write_bytes(raw)
        try:
            result = run_flows(scenario, read_flows(path, scenario), path)
            json.dumps(result.to_json(), allow_nan=False)
        except hvnet.HvnetError as error:
            assert_clean_refusal(error, str(path))


def _entry_case(target: str, raw: bytes, origin: str, folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (folder / cases.case_file(target, origin)).write_bytes(raw)
    if target == "ntttcp":
        (folder / "scenario.yaml").write_bytes(cases.FLOWS_SCENARIO.read_bytes())
    if target in ("prices", "candidates"):
        (folder / "scenario.yaml").write_bytes(cases.DESIGN_SCENARIO.read_bytes())
    capsys.readouterr()
    code = entries.entry(target)
    err = capsys.readouterr().err
    if code == 0:
        json.loads((folder / "out.json").read_text(), parse_constant=lambda c: pytest.fail(f"the result holds {c}"))
        return
    assert code == 2
    named = outcomes.NTTTCP_NAMED
    assert err.strip(), "a refusal with nothing on standard error"
    for line in err.splitlines():
        assert outcomes.CLEAN_LINE.match(line) and line.startswith(named), f"not one clear line: {line!r}"


@pytest.mark.parametrize("target", ["ntttcp", "variants", "measurement", "config", "prices", "candidates"])
def test_the_other_entry_points_give_a_result_or_one_clear_line_each(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    drawn = cases.generate(target, 12, 15)
    for case in drawn:
        folder = tmp_path / f"{case.number:03d}"
        folder.mkdir()
        monkeypatch.chdir(folder)
        _entry_case(target, case.raw, case.origin, folder, capsys)
