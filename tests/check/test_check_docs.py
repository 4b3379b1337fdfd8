"""docs/check.md's example is a valid scenario, and `hvnet check` prints what the page shows."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

Invoke = Callable[..., Result]
DOC = Path(__file__).resolve().parents[2] / "docs" / "check.md"


def _blocks() -> list[str]:
    return re.findall(r"```\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.DOTALL)


def _lines(text: str) -> list[str]:
    """Lines without trailing spaces, the run time left out (it varies)."""
    return [re.sub(r" in \d+\.\d s$", " in … s", line.rstrip()) for line in text.strip("\n").splitlines()]


def test_the_example_prints_as_documented(cli: Invoke, tmp_path: Path) -> None:
    blocks = _blocks()
    (index,) = [i for i, block in enumerate(blocks) if block.startswith("name: Two hosts on one switch")]
    scenario = tmp_path / "cluster.yaml"
    scenario.write_text(blocks[index])
    result = cli("check", scenario)  # an 80-column terminal (tests/conftest.py)
    assert result.exit_code == 1, result.stderr
    assert _lines(result.stdout) == _lines(blocks[index + 1])


def test_the_requirements_block_is_the_issue_s_and_loads(tmp_path: Path) -> None:
    from hvnet.model import parse_scenario

    (block,) = [b for b in _blocks() if b.startswith("requirements:")]
    design = parse_scenario(
        "name: x\nhosts: [{name: hv1, nics: [{name: n, speed: 1Gbps}]}, {name: hv2, nics: [{name: n, speed: 1Gbps}]}]\n"
        + block
    )
    assert design.requirements is not None
    assert (
        design.requirements.maintenance_window,
        design.requirements.max_drain,
        design.requirements.max_blackout,
    ) == (7200, 600, 0.5)
