"""README's command lines are what a user pastes: those that name files hvnet ships, or make, run as written.

`hvnet ntttcp` runs against the example it names (C9's testbed); `hvnet topology star ... > star.yaml`
makes the file that `hvnet simulate star.yaml` and `hvnet flows star.yaml matrix.csv` then run (the
matrix, the user's own, is written here with the columns README names).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from hvnet.cli import app

ROOT = Path(__file__).resolve().parents[1]


def readme_command(start: str) -> list[str]:
    """The arguments of README's command line that starts with `start` (its comment left out)."""
    block = (ROOT / "README.md").read_text().split("## Using it", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    (line,) = [line for line in block.splitlines() if line.startswith(start)]
    words = shlex.split(line.split("  #", 1)[0])
    assert words[0] == "hvnet"
    return words[1:]


def run(args: list[str]) -> Result:
    result = CliRunner(env={"COLUMNS": "100"}).invoke(app, args)
    assert result.exit_code == 0, result.output
    return result


def test_readmes_ntttcp_line_runs_against_the_example_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    args = readme_command("hvnet ntttcp ")
    assert Path(args[1]).is_file(), f"README's ntttcp line names {args[1]}, which hvnet does not ship"
    out = run(args).stdout
    assert out.startswith("hvnet prediction of: ntttcp -r -m 8,*,vm2 -l 128k -t 15  (sender vm1)")
    assert "Throughput(MB/s)" in out


def test_readmes_topology_line_makes_a_file_that_simulate_and_flows_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    made = readme_command("hvnet topology star ")
    assert made[-2:] == [">", "star.yaml"]
    Path("star.yaml").write_text(run(made[:-2]).stdout)
    simulated = run(readme_command("hvnet simulate star.yaml"))
    assert "drain of hv1: 4 migrations" in simulated.stdout and "4 of 4 live migrations ended" in simulated.stdout
    Path("matrix.csv").write_text("src,dst,bytes,start_s,name\nhv1,hv2,10GB,0,backup\nvm1,hv3,2GiB,250ms,\n")
    flows = run(readme_command("hvnet flows star.yaml matrix.csv"))
    assert "backup" in flows.stdout and "row 3" in flows.stdout
    ends = json.loads(Path("ends.json").read_text())
    assert [(f["name"], f["src"], f["dst"]) for f in ends["flows"]] == [
        ("backup", "hv1", "hv2"),
        ("row 3", "vm1", "hv3"),
    ]


def test_readmes_demo_output_is_what_the_demo_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README shows `hvnet demo` as an 80-column terminal prints it (its report's path aside)."""
    monkeypatch.chdir(tmp_path)
    shown = (ROOT / "README.md").read_text().split("```text demo\n", 1)[1].split("```", 1)[0]
    result = CliRunner(env={"COLUMNS": "80"}).invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    printed = [line.rstrip() for line in result.stdout.splitlines() if not line.startswith("report written to ")]
    assert printed == shown.splitlines()
