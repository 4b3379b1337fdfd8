"""Traffic matrices from CSV: reading and checking rows, and running them in one engine call.

The CLI side (one line per error on stderr, exit code 2) is in test_cli.py;
here the rows, their line numbers and the completion times are checked.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from hvnet import InputError, parse_scenario
from hvnet._version import __version__
from hvnet.flows import FlowRow, FlowsResult, read_flows, run_flows
from hvnet.model import Scenario
from hvnet.topology import star

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
        (HEADER + "hv1,hv2,1,0\nhv9,hv2,1,0\n", 3, "src", "'hv9' is not a host or VM of the scenario"),
        (HEADER + "hv1,nowhere,1,0\n", 2, "dst", "'nowhere' is not a host or VM of the scenario"),
        (HEADER + "hv1,hv1,1,0\n", 2, "dst", "a flow needs two different endpoints"),
        (HEADER + "hv1,hv2,-5,0\n", 2, "bytes", "'-5' is not a number >= 0"),
        (HEADER + "hv1,hv2,10GB,0\n", 2, "bytes", "'10GB' is not a number >= 0"),
        (HEADER + "hv1,hv2,1,soon\n", 2, "start_s", "'soon' is not a number >= 0"),
        (HEADER + "hv1,hv2,1,inf\n", 2, "start_s", "'inf' is not a number >= 0"),
        (HEADER + "hv1,hv2,1\n", 2, "row", "expected 4 values, got 3"),
        (HEADER + "hv1,hv2,1,0,extra\n", 2, "row", "expected 4 values, got 5"),
    ],
    ids=[
        "bad-header",
        "empty-file",
        "unknown-src",
        "unknown-dst",
        "src-is-dst",
        "negative-bytes",
        "bytes-with-unit",
        "start-not-a-number",
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
    assert result.to_json() == {"engine": f"hvnet {__version__}", "wall_s": 0.25, "end_s": [1.0, None]}


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
