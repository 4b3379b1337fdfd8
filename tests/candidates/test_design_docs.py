"""docs/advise.md's "Do I need 10 GbE?" example is the tests' scenario, and `hvnet design` prints what
the page shows."""

from __future__ import annotations

import re
from pathlib import Path

from typer.testing import CliRunner

from hvnet.candidates import load_candidates
from hvnet.cli import app
from tests.conftest import CLI_ENV

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "advise.md"


def _blocks() -> list[str]:
    return re.findall(r"^```[a-z]*\n(.*?)^```$", DOC.read_text(encoding="utf-8"), flags=re.DOTALL | re.MULTILINE)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def test_the_worked_answer_prints_as_documented(tmp_path: Path) -> None:
    blocks = _blocks()
    (index,) = [i for i, block in enumerate(blocks) if block.startswith("name: Two hosts, two switches")]
    tests_copy = (Path(__file__).parent / "two_hosts.yaml").read_text()
    assert _lines(blocks[index]) == [line for line in _lines(tests_copy) if not line.startswith("#")]
    scenario = tmp_path / "two_hosts.yaml"
    scenario.write_text(blocks[index])
    result = CliRunner(env=CLI_ENV).invoke(app, ["design", str(scenario)])  # 80 columns, as the page
    assert result.exit_code == 0, result.stderr
    assert _lines(result.stdout) == _lines(blocks[index + 1])


def test_the_candidates_example_loads(tmp_path: Path) -> None:
    (block,) = [b for b in _blocks() if b.startswith("candidates:")]
    path = tmp_path / "mine.yaml"
    path.write_text(block)
    names = [c.name for c in load_candidates(path)]
    assert names == [
        "2 × 1 GbE SET, Compression",
        "2 × 10 GbE LBFO, Compression",
        "2 × 10 GbE LBFO, SMB",
        "2 × 10 GbE SET, Compression",
        "2 × 10 GbE SET, SMB",
        "RDMA pair",
    ]
