"""`hvnet cost` as a user runs it."""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from typer.testing import Result

Invoke = Callable[..., Result]
ROLLING = Path(str(resources.files("hvnet") / "examples" / "rolling-update.yaml"))


def test_cost_prints_the_bill_and_its_example_prices_label(cli: Invoke) -> None:
    result = cli("cost", ROLLING)
    assert result.exit_code == 0, result.stderr
    assert "12,240.00" in result.stdout and "EXAMPLE PRICES" in result.stdout


def test_cost_json_and_a_price_file_that_overrides_a_line(cli: Invoke, tmp_path: Path) -> None:
    mine = tmp_path / "prices.yaml"
    mine.write_text("currency: USD\nprices:\n  dac_10g: 25\n")
    result = cli("cost", ROLLING, "--prices", mine, "--json", "-")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["total"] == 12240.0 - 6 * (40.0 - 25.0)


def test_a_bad_price_file_is_one_line(cli: Invoke, tmp_path: Path) -> None:
    bad = tmp_path / "prices.yaml"
    bad.write_text("currency: USD\nprices:\n  dac_10g: cheap\n")
    result = cli("cost", ROLLING, "--prices", bad)
    assert result.exit_code == 2 and result.stderr.startswith(f"{bad}:3:")
