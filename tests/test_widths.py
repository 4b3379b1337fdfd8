"""Every table fits the terminal it is printed on, at 80 columns (a pipe, `less`, a CI log) and
at 200, without cutting a name or a number (issue 26, "Readable everywhere").

What each test expects: no line is wider than the terminal; rich's cut mark (``…``) appears
nowhere; every cell of a column that must stay whole (``no_wrap``: hosts, NICs, VMs, files,
options, numbers) is printed whole on one line, so that no two rows read alike; and where a
table cannot fit, the columns left out are named under it.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from importlib import resources
from pathlib import Path

import pytest
from rich.console import Console, RenderableType
from rich.table import Table
from typer.testing import CliRunner

from hvnet import parse_scenario, simulate
from hvnet.cli import app
from hvnet.tables import results_tables
from hvnet.tables.fit import FittedTable

WIDTHS = (80, 200)


def printed(renderables: Iterable[RenderableType], width: int) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    for renderable in renderables:
        console.print(renderable)
    return console.export_text()


def assert_fits(renderables: list[RenderableType], width: int) -> str:
    text = printed(renderables, width)
    assert all(len(line) <= width for line in text.splitlines()), text
    assert "…" not in text, text
    lines = text.splitlines()
    for table in (r for r in renderables if isinstance(r, Table)):
        left_out = "left out at" in text
        for column in table.columns:
            if not column.no_wrap:
                continue
            header = " ".join(str(column.header).replace("-\n", "-").split())
            if left_out and header in " ".join(text.split("left out at", 1)[1].split()):
                continue  # a column the table had to leave out, and says so
            for cell in column.cells:
                plain = (cell.plain if hasattr(cell, "plain") else str(cell)).strip()  # a Text cell, or markup
                if "\n" in plain or "[" in plain:
                    continue  # a two-line cell or markup: its parts are checked as text above
                assert any(plain in line for line in lines), (header, plain, text)
    return text


def example(name: str) -> str:
    return resources.files("hvnet.examples").joinpath(name).read_text()


def long_names() -> str:
    """Hosts and VMs with long names, and enough migrations to group them by source host: the
    table whose source column came out zero characters wide in an 80-column pipe."""
    hosts = [f"hyperv-node-{h:02d}.cluster.example" for h in (1, 2, 3)]
    lines = ["name: long names", "hosts:"]
    lines += [f"  - {{name: {h}, nics: [{{name: ethernet-slot-1, speed: 10Gbps}}]}}" for h in hosts]
    lines += ["switches: [{name: top-of-rack-switch, ports: 4, port_speed: 10Gbps}]", "cables:"]
    lines += [f"  - {{a: {h}/ethernet-slot-1, b: top-of-rack-switch/{k + 1}}}" for k, h in enumerate(hosts)]
    lines += ["vms:"] + [f"  - {{name: sql-server-vm-{i:03d}, host: {hosts[i % 2]}, memory: 1GiB}}" for i in range(60)]
    lines += [f"events: [{{at: 0s, action: drain, target: {hosts[0]}}}, {{at: 0s, action: drain, target: {hosts[1]}}}]"]
    return "\n".join(lines) + "\n"


SCENARIOS = {
    "failover": lambda: example("failover.yaml"),
    "rolling-update": lambda: example("rolling-update.yaml"),
    "leaf-spine-failures": lambda: example("leaf-spine-failures.yaml"),
    "long-names": long_names,
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", SCENARIOS)
def test_simulate_tables_fit(name: str, width: int) -> None:
    results = simulate(parse_scenario(SCENARIOS[name]()))
    assert_fits(list(results_tables(results)), width)


def test_the_long_names_keep_their_width_at_80_columns() -> None:
    """The by-host table's source column holds every host's whole name (it was `┏┳┳━━━━`)."""
    results = simulate(parse_scenario(long_names()))
    text = printed(results_tables(results), 80)
    assert "hyperv-node-01.cluster.example" in text and "hyperv-node-02.cluster.example" in text


@pytest.mark.parametrize("width", WIDTHS)
def test_the_demo_comparison_fits(width: int) -> None:
    """The demo's eleven variants: files and options whole (`no-team.yaml` and `no-team-rdma.yaml`
    were both `no-t…`), whatever does not fit named under the table."""
    from hvnet.compare import comparison_tables
    from hvnet.demo import run_demo

    text = assert_fits(comparison_tables(run_demo()), width)
    assert "no-team-rdma.yaml" in text and "compression" in text
    assert ("left out at 80 columns" in text) == (width == 80)


@pytest.mark.parametrize("width", WIDTHS)
def test_validate_fits(width: int) -> None:
    from hvnet.validate import run_validation
    from hvnet.validate.show import validation_table

    checks = run_validation()
    text = assert_fits([validation_table(checks, role) for role in ("calibration", "check")], width)
    for check in checks:
        assert check.id in text  # each id is one word, never cut


def test_a_table_that_fits_prints_as_rich_prints_it() -> None:
    def build(kind: type[Table]) -> Table:
        table = kind(title="t")
        table.add_column("name", no_wrap=True)
        table.add_column("words")
        table.add_row("hv1", "a few words")
        return table

    assert printed([build(FittedTable)], 80) == printed([build(Table)], 80)


def test_too_many_columns_leave_out_the_rightmost_and_say_so() -> None:
    """Twelve number columns of 9 characters cannot fit 80: the first (the row's name) and as many
    as fit stay whole; the caption names the others."""
    table = FittedTable(title="wide")
    table.add_column("host", no_wrap=True)
    for k in range(12):
        table.add_column(f"figure{k:02d}", justify="right", no_wrap=True)
    table.add_row("hyperv-node-01", *(f"{k:>9.3f}" for k in range(12)))
    text = printed([table], 80)
    assert "hyperv-node-01" in text and "figure00" in text and "figure11" not in text.split("left out")[0]
    assert "left out at 80 columns:" in text and "figure11" in text.split("left out")[1]
    assert all(len(line) <= 80 for line in text.splitlines())


def test_text_folds_before_a_column_goes() -> None:
    """A long sentence wraps in what the names leave; nothing is left out."""
    table = FittedTable()
    table.add_column("host", no_wrap=True)
    table.add_column("finding")
    table.add_row("hyperv-node-01.cluster.example", "word " * 60)
    text = printed([table], 80)
    assert "left out" not in text and "hyperv-node-01.cluster.example" in text


# --- every command, as a user runs it, at both widths ------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def _doc_block(doc: str, start: str) -> str:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    blocks: list[str] = re.findall(r"^```[a-z ]*\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE)
    (block,) = [b for b in blocks if b.startswith(start)]
    return block


def _commands(tmp: Path) -> dict[str, list[str]]:
    from tests.explain.cases import C9_RECEIVER, C9_SET

    (tmp / "check.yaml").write_text(_doc_block("check.md", "name: Two hosts on one switch"))
    (tmp / "variants.yaml").write_text(
        re.findall(r"```yaml variants\n(.*?)```", (ROOT / "docs" / "sweeps.md").read_text(), flags=re.DOTALL)[0]
    )
    examples = ROOT / "python" / "hvnet" / "examples"
    (tmp / "matrix.csv").write_text(
        "name,src,dst,bytes,start_s\nnightly-backup-of-sql,hv1,hv2,5GB,0\n,hv2,hv1,1GiB,250ms\n"
    )
    return {
        "simulate --uncertainty": ["simulate", str(examples / "demo" / "set.yaml"), "--uncertainty"],
        "check": ["check", str(tmp / "check.yaml")],
        "design": ["design", str(ROOT / "tests" / "candidates" / "two_hosts.yaml")],
        "advise": ["advise", str(examples / "failover.yaml")],
        "cost of variants": ["cost", str(tmp / "variants.yaml")],
        "flows": ["flows", str(examples / "demo" / "set.yaml"), str(tmp / "matrix.csv")],
        "import measurement": ["import", "measurement", str(C9_RECEIVER)],
        "explain": ["explain", str(C9_SET), str(C9_RECEIVER), "--from", "vm1", "--to", "vm2"],
    }


COMMANDS = [
    "simulate --uncertainty",
    "check",
    "design",
    "advise",
    "cost of variants",
    "flows",
    "import measurement",
    "explain",
]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_fits_the_terminal(name: str, width: int, tmp_path: Path) -> None:
    args = _commands(tmp_path)[name]
    result = CliRunner(env={"COLUMNS": str(width), "FORCE_COLOR": None, "TTY_COMPATIBLE": None}).invoke(app, args)
    assert result.exit_code in (0, 1), result.output  # check and design exit 1 when a requirement fails
    lines = result.stdout.splitlines()
    assert lines, result.output
    assert all(len(line) <= width for line in lines), "\n".join(line for line in lines if len(line) > width)
    assert "…" not in result.stdout, result.stdout
