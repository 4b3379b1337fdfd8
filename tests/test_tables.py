"""The terminal tables, pinned by a golden file of the failover example.

tests/golden/failover.txt is what `hvnet simulate` prints for
python/hvnet/examples/failover.yaml in an 80-column terminal
without colour. The engine's wall-clock time varies from run to run and is
replaced by `<wall>`; trailing spaces (rich pads table titles) are dropped so
that an editor that trims them does not break the test. Rewrite the file with
`pytest --update-golden` and read the diff.

What the example shows, worked out by hand (failover.yaml): the NICs use jumbo
frames (MTU 9000), so each byte of payload takes JUMBO = 9038 / 8960 bytes
of line time (hvnet.lower.frames). copy-1 and copy-2 both arrive on hv2/nic1 (a
dynamic team receives on the member that hv2's own vSwitch port is
affinitized to), so they share its 10 Gbps, 5 Gbps each, the whole time:
40 GB at 10 Gbps, both end at 32 × JUMBO = 32.28 s (at 5 Gbps each, no core
limits them). copy-back has hv2 → hv1 to itself, but its one stream is
received on one of hv1's cores (2.9 GHz × 0.85 on the balanced plan, at
1.55 + 3800 / 8960 cycles per byte: just over 10 Gbps alone), a core that
also sends part of the copies: it ends after 4 × JUMBO = 4.03 s, at 5.45 s.
hv1/nic2, which carries copy-2, loses its link from 5 s to 12 s: the team
sees it at once and copy-2 moves to nic1 (no time black-holed), then back to
nic2 when rebalancing spreads the two copies again at 12 s (2 moves). The
run ends when the copies do.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table
from typer.testing import Result

from hvnet import parse_scenario, simulate
from hvnet.tables import MIGRATION_ROWS, results_tables
from hvnet.units import human_duration

Invoke = Callable[..., Result]
CheckGolden = Callable[[str, str], None]


def normalise(text: str) -> str:
    text = re.sub(r"engine (\d+) events in [0-9.]+ ms", r"engine \1 events in <wall> ms", text)
    return "".join(line.rstrip() + "\n" for line in text.splitlines())


def test_failover_output(cli: Invoke, golden: CheckGolden) -> None:
    with resources.as_file(resources.files("hvnet.examples").joinpath("failover.yaml")) as example:
        result = cli("simulate", example)
    assert result.exit_code == 0, result.output
    assert "\x1b[" not in result.stdout, "no colour codes when the output is not a terminal"
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    golden("failover.txt", normalise(result.stdout))


def test_failover_completion_times() -> None:
    """The hand-worked answers of the module docstring, independent of the table layout."""
    text = resources.files("hvnet.examples").joinpath("failover.yaml").read_text()
    results = simulate(parse_scenario(text))
    jumbo = 9038 / 8960
    ends = {t.name: t.end_s for t in results.traffic}
    assert ends["copy-1"] == pytest.approx(32 * jumbo) and ends["copy-2"] == pytest.approx(32 * jumbo)
    back = ends["copy-back"]
    assert back is not None and 4 * jumbo < back < 2 * 4 * jumbo, "slowed by its core, not by half"
    assert results.end_s == pytest.approx(32 * jumbo)
    copy_2 = results.traffic[1].connection_results[0]
    assert copy_2.blackholed_s == 0.0
    assert [(n.at_s, n.out_nic) for n in copy_2.nics][:2] == [(0.0, "hv1/nic2"), (5.0, "hv1/nic1")]


def render(text: str) -> str:
    """The tables of a scenario's results, as a 120-column terminal without colour shows them."""
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None)
    for table in results_tables(simulate(parse_scenario(text))):
        console.print(table)
    return out.getvalue()


def cells(line: str) -> list[str]:
    """The cells of a table row: `│ a │ b │` → ["a", "b"]."""
    return [cell.strip() for cell in line.split("│")[1:-1]]


STALLED = """
name: Stalled
hosts:
  - {name: hv1, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv2, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
cables: [{a: hv1/nic1, b: hv2/nic1}]
traffic:
  - {name: stuck, from: hv1, to: hv2, size: 2.5GB}
  - {from: hv2, to: hv1, size: 1.25GB}
events: [{at: 2s, action: nic_down, target: hv1/nic1}]
"""


def test_a_stalled_entry_reads_never() -> None:
    """'stuck' never ends: its end reads 'never', its rate '-', and it is black-holed
    since the NIC failed at 2 s; the summary counts it out.

    The unnamed entry (hv2 → hv1) had finished before: 1.25 GB at 10 Gbps in
    frames of MTU 1500 takes 1538 / 1460 = 1.06 s, at 9.41 Gbps of payload.
    """
    text = render(STALLED)
    rows = [cells(line) for line in text.splitlines() if line.startswith("│") and " → " in line]
    assert rows == [
        ["stuck", "hv1 → hv2", "nic1 → nic1", "2.5 GB", "0 s", "never", "-", "since 2.00 s"],
        ["", "hv2 → hv1", "nic1 → nic1", "1.25 GB", "0 s", "1.05 s", "9.49 Gbps", "-"],
    ]
    assert "1 of 2 traffic entries completed" in text


def test_adapters_show_peak_send_and_receive() -> None:
    """hv1/nic1 sends and receives at 10 Gbps of line rate (0-1 s); speeds in the NIC's units."""
    text = render(STALLED)
    hv1 = next(line for line in text.splitlines() if line.startswith("│ hv1"))  # the adapters table's
    assert cells(hv1) == ["hv1", "nic1", "10 Gbps", "10 Gbps", "10 Gbps"]


def test_past_fifty_migrations_the_terminal_shows_one_row_per_source_host() -> None:
    """A 64-host rolling update has 2,560 migrations: the table groups them by source host
    (each VM's row stays in the JSON and the report), so it fits a screen and prints fast."""
    lines = ["name: many", "hosts:"]
    lines += [f"  - {{name: hv{h}, nics: [{{name: nic1, speed: 10Gbps}}]}}" for h in (1, 2)]
    lines += ["switches: [{name: sw, ports: 4, port_speed: 10Gbps}]", "cables:"]
    lines += [f"  - {{a: hv{h}/nic1, b: sw/{h}}}" for h in (1, 2)]
    lines += ["vms:"] + [f"  - {{name: vm{i}, host: hv1, memory: 1GiB}}" for i in range(MIGRATION_ROWS + 1)]
    lines += ["events: [{at: 0s, action: drain, target: hv1}]"]
    results = simulate(parse_scenario("\n".join(lines) + "\n"))
    tables = results_tables(results)
    grouped = [t for t in tables if str(t.title).startswith("live migrations:")]
    assert len(grouped) == 1 and grouped[0].row_count == 1
    assert f"{MIGRATION_ROWS + 1}" in [str(c) for c in grouped[0].columns[1].cells]


def many_migrations() -> str:
    """A drain of MIGRATION_ROWS + 1 VMs: the terminal groups them by source host."""
    lines = ["name: many", "hosts:"]
    lines += [f"  - {{name: hv{h}, nics: [{{name: nic1, speed: 10Gbps}}]}}" for h in (1, 2)]
    lines += ["switches: [{name: sw, ports: 4, port_speed: 10Gbps}]", "cables:"]
    lines += [f"  - {{a: hv{h}/nic1, b: sw/{h}}}" for h in (1, 2)]
    lines += ["vms:"] + [f"  - {{name: vm{i}, host: hv1, memory: 1GiB}}" for i in range(MIGRATION_ROWS + 1)]
    lines += ["events: [{at: 0s, action: drain, target: hv1}]"]
    return "\n".join(lines) + "\n"


def example(name: str) -> str:
    return resources.files("hvnet.examples").joinpath(name).read_text()


EXAMPLES = sorted(
    str(path.relative_to(Path(str(resources.files("hvnet") / "examples"))))
    for path in Path(str(resources.files("hvnet") / "examples")).rglob("*.yaml")
)


@pytest.mark.parametrize("name", [*EXAMPLES, "<stalled>", "<many migrations>"])
def test_at_80_columns_no_number_is_cut(name: str) -> None:
    """Every table of every example, a stalled entry and a drain grouped by host fit an
    80-column terminal with no cell cut ("…"): numbers keep their width, names wrap."""
    text = {"<stalled>": STALLED, "<many migrations>": many_migrations()}.get(name) or example(name)
    out = io.StringIO()
    console = Console(file=out, width=80, color_system=None)
    for table in results_tables(simulate(parse_scenario(text))):
        console.print(table)
    printed = out.getvalue()
    assert "…" not in printed
    assert max(len(line) for line in printed.splitlines()) <= 80


def test_the_rolling_update_at_80_columns_keeps_every_start_whole() -> None:
    """The case of the issue: at 80 columns the migrations table cut its starts ("20 min 51 s"
    to "20 min…") and its options; now each start is on one line, whole."""
    out = io.StringIO()
    for table in results_tables(simulate(parse_scenario(example("rolling-update.yaml")))):
        Console(file=out, width=80, color_system=None).print(table)
    text = out.getvalue()
    assert "│ sql1  │ hv3 → hv1 │ 20 min 51 s │" in text and "smb_direct" in text


#: Which printed table each row of docs/output.md's column list is (by its title).
DOCUMENTED_TABLES: dict[str, Callable[[str], bool]] = {
    "traffic": lambda title: title.endswith(": traffic"),
    "adapters": lambda title: title.startswith("adapters:"),
    "utilisation": lambda title: title.startswith("utilisation:"),
    "cores": lambda title: title.startswith("cores:"),
    "live migrations": lambda title: title == "live migrations",
    "live migrations: how": lambda title: title.startswith("live migrations: how"),
    "live migrations: by source host": lambda title: "by source host" in title,
    "operations": lambda title: title.startswith("operations:"),
    "rolling update nodes": lambda title: title.startswith("rolling update:"),
}


def test_output_md_lists_exactly_the_columns_each_table_prints() -> None:
    """docs/output.md's column list, table by table, is the program's headers (a header's
    line break read as a space, or nothing after a hyphen), and every printed table is in it."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "output.md").read_text()
    section = doc[doc.index("## The terminal table") : doc.index("## Errors and exit codes")]
    documented = {
        name: re.findall(r"`([^`]+)`", columns)
        for name, columns in re.findall(r"^\| ([a-z:' ]+) \| (`.+`) \|$", section, flags=re.MULTILINE)
    }
    assert set(documented) == set(DOCUMENTED_TABLES)
    printed: dict[str, list[str]] = {}
    for text in (example("failover.yaml"), example("rolling-update.yaml"), many_migrations()):
        for table in results_tables(simulate(parse_scenario(text))):
            if table.title is None:
                continue  # the summary and warning lines
            (name,) = [n for n, matches in DOCUMENTED_TABLES.items() if matches(str(table.title))]
            printed[name] = [str(c.header).replace("-\n", "-").replace("\n", " ") for c in table.columns]
    assert printed == documented


def test_blackouts_read_in_milliseconds_in_every_table() -> None:
    """Results keep a blackout in seconds (docs/output.md); each table prints it as a person reads
    a time (`human_duration`: milliseconds below a second), the same number: a migration's row, a
    host's row when grouped (past MIGRATION_ROWS), an operation's row."""
    from hvnet.tables import migrations_by_host_table, migrations_table, operations_table

    def cells(table: Table) -> list[str]:
        return [str(c) for column in table.columns for c in column.cells]

    many = simulate(parse_scenario(many_migrations()))
    longest = human_duration(max(m.blackout_s or 0.0 for m in many.migrations))
    assert longest in cells(migrations_by_host_table(many))
    assert longest in cells(operations_table(many))
    few = simulate(parse_scenario(example("rolling-update.yaml")))
    first = few.migrations[0]
    assert first.blackout_s is not None and human_duration(first.blackout_s) in cells(migrations_table(few, "time"))


def test_output_md_shows_the_failover_example_as_printed_at_80_columns() -> None:
    """docs/output.md's example is this golden file, word for word: the page shows what a reader sees."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "output.md").read_text()
    section = doc[doc.index("## The terminal table") :]
    shown = section[section.index("```\n") + 4 :]
    shown = shown[: shown.index("```\n")]
    assert shown == (Path(__file__).parent / "golden" / "failover.txt").read_text()
