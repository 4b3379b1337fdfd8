"""Traffic matrices from CSV: reading and checking rows, and running them in one engine call.

The CLI side (one line per error on stderr, exit code 2) is in test_cli.py;
here the rows, their line numbers and the completion times are checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from hvnet import InputError, parse_scenario
from hvnet._version import __version__
from hvnet.flows import FlowRow, FlowsResult, flows_table, read_flows, run_flows, summary
from hvnet.model import Scenario
from hvnet.topology import star
from hvnet.units import human_duration

WriteFile = Callable[[str, str], Path]
HEADER = "src,dst,bytes,start_s\n"


@pytest.fixture(scope="module")
def four_hosts() -> Scenario:
    """hv1..hv4 with one 10 Gbps NIC each on a non-blocking switch, and a VM on hv4.

    Their cores are 6 GHz on the high-performance plan, so that the link, not
    the receiving core, limits a stream (the CPU model is tested elsewhere).
    """
    text = re.sub(
        r"(?m)^- name: (hv\d+)$", r"- name: \1\n  cpu: {ghz: 6}\n  power_plan: high_performance", star(4, "10Gbps")
    )
    return parse_scenario(text + "vms: [{name: vm1, host: hv4, memory: 1GiB}]\n")


def test_rows_keep_their_file_line(write: WriteFile, four_hosts: Scenario) -> None:
    """Blank lines are skipped but counted, names are trimmed, a VM is an endpoint, numbers may be floats."""
    path = write("m.csv", HEADER + "hv1,hv2,1250000000,0\n\n hv3 , vm1 ,1.5e9,2.5\n")
    assert read_flows(path, four_hosts) == [
        FlowRow(2, "hv1", "hv2", 1.25e9, 0.0),
        FlowRow(4, "hv3", "vm1", 1.5e9, 2.5),
    ]


def test_a_header_alone_is_an_empty_matrix(write: WriteFile, four_hosts: Scenario) -> None:
    assert read_flows(write("m.csv", HEADER), four_hosts) == []


def test_a_byte_order_mark_is_accepted(tmp_path: Path, four_hosts: Scenario) -> None:
    """Excel's "CSV UTF-8" starts the file with a byte-order mark; it is not part of the header."""
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbf" + (HEADER + "hv1,hv2,1000,0\r\n").encode())
    assert read_flows(path, four_hosts) == [FlowRow(2, "hv1", "hv2", 1000.0, 0.0)]


@pytest.mark.parametrize(
    ("body", "line", "field", "message"),
    [
        ("src,dst,size,start_s\n", 1, "header", "expected the columns src,dst,bytes,start_s"),
        ("", 1, "header", "expected the columns src,dst,bytes,start_s"),
        ("src,dst,bytes\n", 1, "header", "expected the columns src,dst,bytes,start_s"),
        ("src,dst,bytes,start_s,src\n", 1, "header", "expected the columns src,dst,bytes,start_s"),
        (HEADER + "hv1,hv2,1,0\nhv9,hv2,1,0\n", 3, "src", "'hv9' is not a host or VM of the scenario"),
        (HEADER + "hv1,nowhere,1,0\n", 2, "dst", "'nowhere' is not a host or VM of the scenario"),
        (HEADER + "hv1,hv1,1,0\n", 2, "dst", "a flow needs two different endpoints"),
        (HEADER + "hv1,hv2,-5,0\n", 2, "bytes", "'-5' is not a number >= 0"),
        (HEADER + "hv1,hv2,10Gb,0\n", 2, "bytes", "'10Gb' is in bits, not bytes; write a size in bytes such as 10GB"),
        (HEADER + "hv1,hv2,lots,0\n", 2, "bytes", "'lots' is not a size; write a number and a unit: B, KB"),
        (HEADER + "hv1,hv2,-5GB,0\n", 2, "bytes", "'-5GB' is negative"),
        (HEADER + "hv1,hv2,2PB,0\n", 2, "bytes", "'2PB' is not a size"),
        (HEADER + "hv1,hv2,2000TB,0\n", 2, "bytes", "'2000TB' is too large; at most 1 PiB"),
        (HEADER + "hv1,hv2,1,soon\n", 2, "start_s", "'soon' is not a duration; write a number and a unit"),
        (HEADER + "hv1,hv2,1,5m\n", 2, "start_s", "'5m' is ambiguous; write 5min for minutes or 5ms"),
        (HEADER + "hv1,hv2,1,9000h\n", 2, "start_s", "'9000h' is too large; at most 8760 h"),
        (HEADER + "hv1,hv2,1,inf\n", 2, "start_s", "'inf' is not a number >= 0"),
        (HEADER + "hv1,hv2,1\n", 2, "row", "expected 4 values, got 3"),
        (HEADER + "hv1,hv2,1,0,extra\n", 2, "row", "expected 4 values, got 5"),
    ],
    ids=[
        "bad-header",
        "empty-file",
        "missing-column",
        "column-twice",
        "unknown-src",
        "unknown-dst",
        "src-is-dst",
        "negative-bytes",
        "bytes-in-bits",
        "bytes-not-a-size",
        "bytes-negative-with-unit",
        "bytes-unknown-unit",
        "bytes-past-the-bound",
        "start-not-a-duration",
        "start-ambiguous-unit",
        "start-past-the-horizon",
        "start-infinite",
        "too-few-columns",
        "too-many-columns",
    ],
)
def test_a_bad_row_names_file_line_and_field(
    write: WriteFile, four_hosts: Scenario, body: str, line: int, field: str, message: str
) -> None:
    path = write("m.csv", body)
    with pytest.raises(InputError) as caught:
        read_flows(path, four_hosts)
    problem = caught.value.problem
    assert (problem.file, problem.line, problem.field) == (str(path), line, field)
    assert problem.message.startswith(message)


def test_a_file_that_is_not_utf8_is_refused_with_its_line(tmp_path: Path, four_hosts: Scenario) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes((HEADER + "hv1,hv2,1,0\n").encode() + "hv1,hv2,1,0 # café\n".encode("latin-1"))
    with pytest.raises(InputError) as caught:
        read_flows(path, four_hosts)
    assert str(caught.value) == f"{path}:3: the file is not UTF-8 text (byte 0xe9); save it as UTF-8"


def test_end_times_come_in_row_order(write: WriteFile, four_hosts: Scenario) -> None:
    """hv1 sends 2.5 GB to hv2 from 0 s and 625 MB to hv3 from 1 s, on one 10 Gbps NIC.

    Each payload byte takes FRAME = 1538 / 1460 bytes of line time (MTU 1500,
    hvnet.lower.frames). From 1 s both run at 5 Gbps: the second's 625 MB takes
    FRAME s, done at 1 + FRAME; the NIC is busy throughout, so the first ends
    when all 3.125 GB have crossed it: 2.5 × FRAME. A third row, hv3 → hv4,
    1.25 GB on other NICs, takes FRAME s. The answer keeps the rows' order,
    not the order of completion.
    """
    frame = 1538 / 1460
    path = write("m.csv", HEADER + "hv1,hv2,2500000000,0\nhv1,hv3,625000000,1\nhv3,hv4,1250000000,0\n")
    result = run_flows(four_hosts, read_flows(path, four_hosts), path)
    assert result.end_s == [pytest.approx(2.5 * frame), pytest.approx(1 + frame), pytest.approx(frame)]
    assert result.wall_s >= 0.0


def test_to_json_names_the_engine() -> None:
    result = FlowsResult(wall_s=0.25, end_s=[1.0, None])
    assert result.to_json() == {"engine": f"hvnet {__version__}", "wall_s": 0.25, "end_s": [1.0, None], "flows": []}


def test_sizes_and_starts_take_the_units_a_scenario_takes(write: WriteFile, four_hosts: Scenario) -> None:
    """`bytes` as a scenario's sizes (5GB, 5GiB, 1.5 KB) or a plain number; `start_s` as its durations
    (250ms, 2min) or a plain number of seconds; both parsed by hvnet.units, spaces around them trimmed."""
    path = write("m.csv", HEADER + "hv1,hv2,5GB,250ms\nhv1,hv3,5GiB, 2min \nhv2,hv3, 1.5 KB ,1.5\nhv3,hv4,7,0s\n")
    assert [(row.size_bytes, row.start_s) for row in read_flows(path, four_hosts)] == [
        (5e9, 0.25),
        (5 * 2**30, 120.0),
        (1500.0, 1.5),
        (7.0, 0.0),
    ]


def test_a_name_column_names_rows_and_the_others_are_called_by_their_row(
    write: WriteFile, four_hosts: Scenario
) -> None:
    """`name` may come anywhere among the columns; a blank name, or no name column, calls the row
    `row N`, N its line in the file (the header is row 1, as a spreadsheet numbers them)."""
    path = write("m.csv", "name,dst,src,start_s,bytes\nbackup,hv2,hv1,0,5GB\n ,hv3,hv1,1s,1GB\n")
    rows = read_flows(path, four_hosts)
    assert rows == [FlowRow(2, "hv1", "hv2", 5e9, 0.0, "backup"), FlowRow(3, "hv1", "hv3", 1e9, 1.0)]
    assert [row.label for row in rows] == ["backup", "row 3"]
    unnamed = read_flows(write("n.csv", HEADER + "hv1,hv2,1,0\n\nhv2,hv3,1,0\n"), four_hosts)
    assert [row.label for row in unnamed] == ["row 2", "row 4"]


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("a,hv1,hv2,1,0\na,hv2,hv3,1,0\n", 3, "'a' is already the name of the row at line 2"),
        ("row 3,hv1,hv2,1,0\n,hv2,hv3,1,0\n", 3, "'row 3' is already the name of the row at line 2"),
        ('"a\u200bb",hv1,hv2,1,0\n', 2, "'a\\u200bb' holds a character that does not print"),
    ],
    ids=["twice", "a-generated-name-taken", "hidden-character"],
)
def test_a_rows_name_is_unique_and_visible(
    write: WriteFile, four_hosts: Scenario, body: str, line: int, message: str
) -> None:
    path = write("m.csv", "name," + HEADER + body)
    with pytest.raises(InputError) as caught:
        read_flows(path, four_hosts)
    assert (caught.value.problem.line, caught.value.problem.field) == (line, "name")
    assert caught.value.problem.message.startswith(message)


def test_json_names_each_rows_ends_and_its_mean_rate(write: WriteFile, four_hosts: Scenario) -> None:
    """Each row in `flows`: its name, line, ends, size, start, end and mean rate (payload bits/s from
    start to end; null for 0 bytes); `end_s` still lists the ends in row order."""
    frame = 1538 / 1460
    path = write("m.csv", "name," + HEADER + "copy,hv1,hv2,1.25GB,1s\n,hv3,vm1,0,0\n")
    document = run_flows(four_hosts, read_flows(path, four_hosts), path).to_json()
    assert document["end_s"] == [pytest.approx(1 + frame), 0.0]
    assert document["flows"] == [
        {
            "name": "copy",
            "line": 2,
            "src": "hv1",
            "dst": "hv2",
            "bytes": 1_250_000_000,
            "start_s": 1.0,
            "end_s": pytest.approx(1 + frame),
            "mean_bps": pytest.approx(10e9 / frame),
        },
        {
            "name": "row 3",
            "line": 3,
            "src": "hv3",
            "dst": "vm1",
            "bytes": 0,
            "start_s": 0.0,
            "end_s": 0.0,
            "mean_bps": None,
        },
    ]


def test_the_table_shows_every_rows_name_ends_size_times_and_rate(write: WriteFile, four_hosts: Scenario) -> None:
    """Names are never cut, whatever the width; a row that never completed says so; past its rows
    (TABLE_ROWS) the caption says that --json has them all."""
    frame = 1538 / 1460
    name = "the nightly backup of the file server"
    path = write("m.csv", "name," + HEADER + f"{name},hv1,hv2,1.25GB,1s\n,hv3,vm1,0,0\n")
    result = run_flows(four_hosts, read_flows(path, four_hosts), path)
    narrow = Console(width=60, record=True)
    narrow.print(flows_table(result, "four hosts: m.csv"))
    assert f"│ {name} │" in narrow.export_text()  # columns left out, from the right, before a name is cut
    console = Console(width=100, record=True)
    console.print(flows_table(result, "four hosts: m.csv"))
    text = console.export_text()
    assert f"│ {name} │ hv1 │ hv2 │ 1.25 GB │ 1.00 s │ {human_duration(1 + frame)} │ 9.49 Gbps │" in text
    assert "│ row 3" in text and "│ hv3 │ vm1 │     0 B │    0 s │    0 s │         - │" in text
    late = FlowsResult(1.0, [None], (FlowRow(2, "hv1", "hv2", 1.0, 0.0),))
    console.print(flows_table(late, "t"))
    assert "│ never │" in console.export_text()
    many = FlowsResult(1.0, [1.0] * 3, tuple(FlowRow(k, "hv1", "hv2", 1.0, 0.0) for k in (2, 3, 4)))
    console.print(flows_table(many, "t", rows=2))
    shown = console.export_text()
    assert "row 3" in shown and "row 4" not in shown and "the first 2 of 3 rows; --json has every row" in shown
    assert summary(many) == "3 flows, 3 completed, last at 1.00 s; engine 1.00 s"


def test_a_row_without_a_path_is_an_input_error_at_its_line(write: WriteFile) -> None:
    island = parse_scenario(
        "name: island\n"
        "hosts:\n"
        "  - {name: hv1, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}\n"
        "  - {name: hv2, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}\n"
        "  - {name: hv3, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}\n"
        "cables: [{a: hv1/nic1, b: hv2/nic1}]\n"
    )
    path = write("m.csv", HEADER + "hv1,hv2,1,0\nhv1,hv3,1,0\n")
    with pytest.raises(InputError) as caught:
        run_flows(island, read_flows(path, island), path)
    assert (caught.value.problem.line, caught.value.problem.field) == (3, "src")
    assert "no cabled path from hv1/nic1 to hv3/nic1" in caught.value.problem.message


def test_an_unknown_name_in_a_matrix_lists_the_valid_ones(tmp_path: Path) -> None:
    """Issue 14: every 'unknown name' error lists what the scenario has."""
    scenario = parse_scenario(
        "name: s\nhosts:\n  - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}\n"
        "  - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}\ncables: [{a: hv1/nic1, b: hv2/nic1}]\n"
    )
    matrix = tmp_path / "m.csv"
    matrix.write_text("src,dst,bytes,start_s\nhv1,hv9,1000,0\n")
    with pytest.raises(InputError) as error:
        read_flows(matrix, scenario)
    assert str(error.value) == f"{matrix}:2: dst: 'hv9' is not a host or VM of the scenario (hosts: hv1, hv2)"


def test_output_md_documents_each_rows_fields(write: WriteFile, four_hosts: Scenario) -> None:
    """docs/output.md's table of `flows[]` lists each field of a row, in the document's order."""
    path = write("m.csv", HEADER + "hv1,hv2,1GB,0\n")
    flows = run_flows(four_hosts, read_flows(path, four_hosts), path).to_json()["flows"]
    assert isinstance(flows, list)
    (row,) = flows
    text = (Path(__file__).parents[1] / "docs" / "output.md").read_text()
    section = text.split("### Each row: `flows[]`", 1)[1].split("\n#", 1)[0]
    assert re.findall(r"^\| `(\w+)` \|", section, flags=re.MULTILINE) == list(row)
