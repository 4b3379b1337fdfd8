"""`hvnet simulate FILE --report OUT.html`: writes the report, never overwrites without --force,
and a path it cannot write is one line on stderr with exit code 2."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

Invoke = Callable[..., Result]
WriteFile = Callable[[str, str], Path]

SCENARIO = """
name: Two hosts
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}
switches: [{name: sw}]
cables: [{a: hv1/nic1, b: sw/1}, {a: hv2/nic1, b: sw/2}]
traffic: [{name: copy, from: hv1, to: hv2, size: 2.5GB}]
"""


def bad_input(result: Result) -> list[str]:
    """Exit code 2, no traceback; the lines on stderr."""
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.stderr.splitlines()


def test_writes_the_report_and_says_where(
    cli: Invoke, write: WriteFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a short path: the line says it as given, in a terminal of 80 columns
    out = Path("report.html")
    result = cli("simulate", write("s.yaml", SCENARIO), "--report", out)
    assert result.exit_code == 0, result.output
    assert "1 of 1 traffic entries completed" in result.stdout
    assert result.stdout.splitlines()[-1] == f"report written to {out}"
    assert result.stderr == ""
    html = (tmp_path / out).read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and 'id="nic-chart-1"' in html


def test_refuses_to_overwrite_without_force(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    out.write_text("keep me")
    scenario = write("s.yaml", SCENARIO)
    assert bad_input(cli("simulate", scenario, "--report", out)) == [
        f"{out}: exists; not overwritten (use --force to replace it)"
    ]
    assert out.read_text() == "keep me"
    result = cli("simulate", scenario, "--report", out, "--force")
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_path_that_cannot_be_written_is_one_line(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    out = tmp_path / "no such folder" / "report.html"
    result = cli("simulate", write("s.yaml", SCENARIO), "--report", out)
    assert bad_input(result) == [f"{out}: No such file or directory"]
    assert result.stdout == "", "nothing is printed when the report cannot be written"


def test_with_json_on_stdout_the_report_line_goes_to_stderr(
    cli: Invoke, write: WriteFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = Path("report.html")
    result = cli("simulate", write("s.yaml", SCENARIO), "--json", "-", "--report", out)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["scenario"] == "Two hosts"
    assert result.stderr == f"report written to {out}\n"
    assert out.exists()
