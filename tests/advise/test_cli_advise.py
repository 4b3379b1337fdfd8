"""`hvnet advise` as a user runs it: a table, JSON on request, exit code 1 only for errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from typer.testing import Result

Invoke = Callable[..., Result]
EXAMPLES = Path(str(resources.files("hvnet") / "examples"))


def test_advise_prints_findings_and_exits_0_when_none_is_an_error(cli: Invoke) -> None:
    result = cli("advise", EXAMPLES / "rolling-update.yaml", "--no-effects")
    assert result.exit_code == 0, result.stderr
    assert "single-switch-spof" in result.stdout and "rss-core0" in result.stdout


def test_advise_json_on_standard_output_holds_only_the_document(cli: Invoke) -> None:
    result = cli("advise", EXAMPLES / "failover.yaml", "--no-effects", "--json", "-")
    assert result.exit_code == 0, result.stderr
    rules = {f["rule"] for f in json.loads(result.stdout)["findings"]}
    assert {"lbfo-rdma-lost", "power-plan"} <= rules


def test_advise_on_a_bad_file_is_one_line(cli: Invoke, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nhosts: []\n")
    result = cli("advise", bad)
    assert result.exit_code == 2 and result.stderr.startswith(f"{bad}:")
