"""`hvnet import collect-script` and `hvnet import config` as a user runs them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

from hvnet import parse_scenario
from hvnet.importers.config import collect_script

FIXTURES = Path(__file__).parent / "fixtures"
Invoke = Callable[..., Result]
DUMPS = [FIXTURES / "lbfo_dynamic_hv1.json", FIXTURES / "lbfo_dynamic_hv2.json"]


def test_collect_script_prints_the_shipped_script(cli: Invoke) -> None:
    result = cli("import", "collect-script")
    assert result.exit_code == 0 and result.stdout == collect_script()


def test_config_writes_a_scenario_that_loads_and_lists_what_it_assumed(cli: Invoke, tmp_path: Path) -> None:
    out = tmp_path / "cluster.yaml"
    result = cli("import", "config", *DUMPS, "-o", out)
    assert result.exit_code == 0, result.stderr
    scenario = parse_scenario(out.read_text(), str(out))
    assert [h.name for h in scenario.hosts] == ["hv1", "hv2"]
    assert "assumed: fabric:" in result.stderr and f"wrote {out}" in result.stderr


def test_config_never_overwrites_a_file_without_force(cli: Invoke, tmp_path: Path) -> None:
    out = tmp_path / "cluster.yaml"
    out.write_text("mine\n")
    result = cli("import", "config", *DUMPS, "-o", out)
    assert result.exit_code == 2 and out.read_text() == "mine\n"
    assert "not overwritten (use --force to replace it)" in result.stderr


def test_a_bad_dump_is_one_line_and_exit_code_2(cli: Invoke, tmp_path: Path) -> None:
    bad = tmp_path / "other.json"
    bad.write_text("{}")
    result = cli("import", "config", bad)
    assert result.exit_code == 2
    assert result.stderr.strip().startswith(f"{bad}: not an hvnet configuration dump")
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_non_finite_whole_number_is_one_line(cli: Invoke, tmp_path: Path) -> None:
    """The fuzzer found VmqWeight "nan" raised ValueError (a traceback); it is one line now (issue 15)."""
    dump = json.loads((FIXTURES / "vm_vrss.json").read_text())
    adapters = dump["VMNetworkAdapter"]
    (adapters[0] if isinstance(adapters, list) else adapters)["VmqWeight"] = "nan"
    bad = tmp_path / "hv.json"
    bad.write_text(json.dumps(dump))
    result = cli("import", "config", bad)
    assert result.exit_code == 2
    assert result.stderr.strip().endswith("VmqWeight: expected a whole number, not nan")


def test_a_whole_number_past_any_float_is_one_line(cli: Invoke, tmp_path: Path) -> None:
    """The 100,000-case fuzz run found a 401-digit whole number (BaseProcessorNumber) raised OverflowError
    (a traceback)."""
    dump = json.loads((FIXTURES / "vm_vrss.json").read_text())
    adapters = dump["VMNetworkAdapter"]
    (adapters[0] if isinstance(adapters, list) else adapters)["VmqWeight"] = 10**400
    bad = tmp_path / "hv.json"
    bad.write_text(json.dumps(dump))
    result = cli("import", "config", bad)
    assert result.exit_code == 2
    assert result.stderr.strip().endswith(f"VmqWeight: {10**400} is too large for a number")
