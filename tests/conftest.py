"""Shared fixtures: the CLI runner, scenario files, and golden files.

Golden files (tests/golden/) hold output that a person has read and judged
right. A test compares what hvnet prints today with them and fails with a
unified diff; `pytest --update-golden` rewrites them instead (then read the
diff before committing it).
"""

from __future__ import annotations

import difflib
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from hvnet.cli import app

GOLDEN = Path(__file__).parent / "golden"

#: What the CLI sees in the golden and CLI tests: an 80-column terminal without colour (a pipe,
#: `less`, a CI log), whatever the terminal or CI that runs pytest (None unsets a variable);
#: tests/test_widths.py prints the tables at 200 columns too.
CLI_ENV: dict[str, str | None] = {"COLUMNS": "80", "FORCE_COLOR": None, "TTY_COMPATIBLE": None}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="Rewrite tests/golden/ with the current output instead of comparing with it.",
    )


Invoke = Callable[..., Result]


@pytest.fixture
def cli() -> Invoke:
    """Runs `hvnet ARGS...` in-process; stdout and stderr stay apart."""
    runner = CliRunner(env=CLI_ENV)

    def invoke(*args: str | Path) -> Result:
        return runner.invoke(app, [str(a) for a in args])

    return invoke


WriteFile = Callable[[str, str], Path]


@pytest.fixture
def write(tmp_path: Path) -> WriteFile:
    """Writes a (dedented) text file into the test's directory and returns its path."""

    def write_file(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return path

    return write_file


CheckGolden = Callable[[str, str], None]


@pytest.fixture
def golden(request: pytest.FixtureRequest) -> CheckGolden:
    """`golden(name, actual)`: compares `actual` with tests/golden/NAME, or rewrites it in update mode."""
    update = bool(request.config.getoption("--update-golden"))

    def check(name: str, actual: str) -> None:
        path = GOLDEN / name
        if update:
            path.parent.mkdir(exist_ok=True)
            path.write_text(actual)
            return
        if not path.exists():
            pytest.fail(f"{path} does not exist; create it with: pytest --update-golden", pytrace=False)
        expected = path.read_text()
        if actual != expected:
            diff = difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"golden/{name} (expected)",
                tofile=f"{name} (actual)",
            )
            pytest.fail(
                f"output differs from golden/{name}; if the change is intended, run pytest --update-golden\n"
                + "".join(diff),
                pytrace=False,
            )

    return check
