"""`hvnet check` as CI runs it: a row per requirement, exit 1 when one fails, 2 on bad input, --json."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

from hvnet.check import NOTHING_TO_CHECK

Invoke = Callable[..., Result]

#: A host's two 10 GbE NICs in a team. Each host stays one line of ONE_SWITCH: an error names a line number.
TEAMED_NICS = (
    "nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}], teams: [{name: t1, members: [nic1, nic2]}]"
)
ONE_SWITCH = (
    "name: two hosts on one switch\n"
    "hosts:\n"
    f"  - {{name: hv1, {TEAMED_NICS}}}\n"
    f"  - {{name: hv2, {TEAMED_NICS}}}\n"
    """\
switches: [{name: tor1}]
cables:
  - {a: hv1/nic1, b: tor1/1}
  - {a: hv1/nic2, b: tor1/2}
  - {a: hv2/nic1, b: tor1/3}
  - {a: hv2/nic2, b: tor1/4}
vms:
  - {name: vm1, host: hv1, memory: 8GiB}
"""
)


def write(tmp_path: Path, requirements: str | None) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(ONE_SWITCH + ("" if requirements is None else f"requirements: {requirements}\n"))
    return path


def test_met_requirements_exit_0_with_a_row_each(cli: Invoke, tmp_path: Path) -> None:
    result = cli(
        "check", write(tmp_path, "{maintenance_window: 1h, max_drain: 10min, max_blackout: 500ms, survive: [nic]}")
    )
    assert result.exit_code == 0, result.stderr
    for row in ("maintenance_window", "max_drain", "max_blackout", "survive nic", "drain of hv1", "0 of 4 fail"):
        assert row in result.stdout
    assert "FAIL" not in result.stdout
    assert "every requirement is met; 15 simulations" in result.stdout  # 3 per condition: as is and 4 NICs down


def test_a_single_switch_fails_survive_switch_and_exits_1(cli: Invoke, tmp_path: Path) -> None:
    result = cli("check", write(tmp_path, "{max_drain: 10min, survive: [switch]}"))
    assert result.exit_code == 1, result.stderr
    assert "survive switch" in result.stdout and "1 of 1 fail" in result.stdout
    assert "with switch tor1 down" in result.stdout and "never" in result.stdout
    assert "a requirement fails" in result.stdout


def test_json_shape(cli: Invoke, tmp_path: Path) -> None:
    result = cli("check", write(tmp_path, "{max_drain: 10min, max_blackout: 1ms, survive: [switch]}"), "--json", "-")
    assert result.exit_code == 1, result.stderr
    document = json.loads(result.stdout)  # standard output holds only the document
    assert set(document) == {
        "hvnet",
        "scenario",
        "checked",
        "passed",
        "simulations",
        "wall_s",
        "assumptions",
        "requirements",
        "survive",
    }
    assert (document["checked"], document["passed"], document["simulations"]) == (
        True,
        False,
        4,
    )  # 2 drains, as is and tor1 down
    assert document["assumptions"] == {"patch_time_s": 0.0, "placement": "balanced", "fail_back": True}
    drain, blackout = document["requirements"]
    assert set(drain) == {"requirement", "figure", "limit", "unit", "margin", "passed", "worst", "failure"}
    assert (drain["requirement"], drain["limit"], drain["unit"], drain["passed"], drain["failure"]) == (
        "max_drain",
        600.0,
        "s",
        True,
        None,
    )
    assert drain["margin"] == drain["limit"] - drain["figure"]
    assert (blackout["requirement"], blackout["passed"]) == ("max_blackout", False) and blackout["margin"] < 0
    (switch,) = document["survive"]
    assert {k: switch[k] for k in ("kind", "cases", "total_cases", "failed_cases", "passed")} == {
        "kind": "switch",
        "cases": 1,
        "total_cases": 1,
        "failed_cases": 1,
        "passed": False,
    }
    failed = switch["failures"][0]
    assert failed["figure"] is None and failed["margin"] is None
    assert failed["failure"] == {
        "kind": "switch",
        "action": "switch_down",
        "target": "tor1",
        "label": "switch tor1 down",
    }


def test_json_to_a_file_keeps_the_table(cli: Invoke, tmp_path: Path) -> None:
    out = tmp_path / "check.json"
    result = cli("check", write(tmp_path, "{max_drain: 10min}"), "--json", out)
    assert result.exit_code == 0 and "max_drain" in result.stdout
    assert json.loads(out.read_text())["passed"] is True


def test_without_requirements_there_is_nothing_to_check(cli: Invoke, tmp_path: Path) -> None:
    """Bad input, as `hvnet design` has it (issue 26): one line on standard error, exit 2, no document."""
    result = cli("check", write(tmp_path, None))
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.strip() == NOTHING_TO_CHECK.strip()
    assert "requirements:" in NOTHING_TO_CHECK and "docs/check.md" in NOTHING_TO_CHECK
    out = tmp_path / "check.json"
    as_json = cli("check", write(tmp_path, None), "--json", out)
    assert as_json.exit_code == 2 and not out.exists()
    empty = cli("check", write(tmp_path, "{}"))
    assert (empty.exit_code, empty.stderr.strip()) == (2, NOTHING_TO_CHECK.strip())


def test_bad_input_exits_2_with_one_line(cli: Invoke, tmp_path: Path) -> None:
    path = write(tmp_path, "{max_utilisation: {p99: 0.7}}")
    result = cli("check", path)
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"{path}:13: requirements.max_utilisation.p99: 0.7 has no '%';"
        " write a share of the link as a percentage, e.g. 70% (not 0.7 or 70)"
    )
