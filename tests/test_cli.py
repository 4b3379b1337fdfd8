"""The `hvnet` command: what a user types, what they see, and the exit code.

Exit codes: 0 success, 2 bad input (a scenario or CSV problem, a file that
would be overwritten, a bad option). Bad input never shows a traceback: each
problem is one line `file:line: field: message` on stderr. The demo has its
own tests (test_demo.py); the golden files pin what users see (test_tables.py,
test_results.py, test_demo.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from hvnet import Results, __version__, parse_scenario
from hvnet.calibration import CpuParameters
from hvnet.topology import star

Invoke = Callable[..., Result]
WriteFile = Callable[[str, str], Path]

#: Line time per payload byte at MTU 1500 (hvnet.lower.frames: 1538-byte frames carry
#: 1460 bytes of payload): 2.5 GB at 10 Gbps takes 2 × FRAME = 2.11 s.
FRAME = 1538 / 1460

TWO_HOSTS = """
name: Two hosts
hosts:
  - {name: hv1, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv2, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv3, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
switches: [{name: sw}]
cables:
  - {a: hv1/nic1, b: sw/1}
  - {a: hv2/nic1, b: sw/2}
  - {a: hv3/nic1, b: sw/3}
traffic:
  - {name: copy, from: hv1, to: hv2, size: 2.5GB}
"""


def bad_input(result: Result) -> list[str]:
    """Checks the contract for bad input and returns the lines on stderr."""
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.stderr.splitlines()


def test_version(cli: Invoke) -> None:
    result = cli("--version")
    assert result.exit_code == 0
    assert result.stdout == f"hvnet {__version__}\n"


def test_no_command_prints_help(cli: Invoke) -> None:
    result = cli()
    assert "simulate" in result.output and "topology" in result.output


# simulate


def test_simulate_prints_the_tables(cli: Invoke, write: WriteFile) -> None:
    """2.5 GB at 10 Gbps in frames of MTU 1500: 2 × FRAME = 2.11 s."""
    result = cli("simulate", write("s.yaml", TWO_HOSTS))
    assert result.exit_code == 0, result.output
    assert "Two hosts: traffic" in result.stdout
    assert "2.11 s" in result.stdout
    assert "1 of 1 traffic entries completed" in result.stdout
    assert result.stderr == ""


def test_simulate_json_to_stdout_is_only_json(cli: Invoke, write: WriteFile) -> None:
    """`--json -` prints the JSON document and nothing else, so it can be piped."""
    result = cli("simulate", write("s.yaml", TWO_HOSTS), "--json", "-")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    results = Results.model_validate(document)
    assert results.hvnet == __version__
    assert [t.name for t in results.traffic] == ["copy"]
    assert [t.end_s for t in results.traffic] == [pytest.approx(2 * FRAME)]


def test_simulate_json_to_a_file_also_prints_the_tables(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    result = cli("simulate", write("s.yaml", TWO_HOSTS), "--json", out)
    assert result.exit_code == 0, result.output
    assert "Two hosts: traffic" in result.stdout
    assert Results.model_validate_json(out.read_text()).traffic[0].end_s == pytest.approx(2 * FRAME)


def test_simulate_json_has_change_points_at_no_resolution(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    """2.11 s of traffic: hv1/nic1 sends 10 Gbps (line rate) from 0 until the run ends, at 2 × FRAME s;
    the JSON holds that one change point, whatever --resolution says (it bins the report's charts)."""
    result = cli("simulate", write("s.yaml", TWO_HOSTS), "--json", "-")
    document = json.loads(result.stdout)
    assert "step_s" not in document and document["end_s"] == pytest.approx(2 * FRAME)
    assert document["adapters"][0]["send_bps"] == {"t_s": [0.0], "values": [10e9]}
    report = tmp_path / "r.html"
    finer = cli("simulate", write("s.yaml", TWO_HOSTS), "--resolution", "250ms", "--json", "-", "--report", str(report))
    assert json.loads(finer.stdout)["adapters"] == document["adapters"]
    assert "exact mean over each 250 ms" in report.read_text()
    alias = cli("simulate", write("s.yaml", TWO_HOSTS), "--step", "250ms", "--json", "-")
    assert alias.exit_code == 0 and json.loads(alias.stdout)["adapters"] == document["adapters"]


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ("0s", "--resolution '0s': the charts' resolution must be longer than 0 s"),
        ("1", "'1' has no unit"),
        ("-1s", "'-1s' is negative"),
    ],
)
def test_simulate_refuses_a_bad_step(cli: Invoke, write: WriteFile, step: str, message: str) -> None:
    (line,) = bad_input(cli("simulate", write("s.yaml", TWO_HOSTS), "--resolution", step))
    assert line.startswith(message)


@pytest.mark.parametrize("command", ["simulate", "flows"])
def test_json_never_overwrites_without_force(cli: Invoke, write: WriteFile, tmp_path: Path, command: str) -> None:
    """An existing --json file is left untouched (exit 2) unless --force is given; refused before
    anything runs (no table printed), not after a long simulation."""
    args: list[str | Path] = [command, write("s.yaml", TWO_HOSTS)]
    if command == "flows":
        args.append(write("m.csv", "src,dst,bytes,start_s\nhv1,hv2,1,0\n"))
    out = tmp_path / "out.json"
    out.write_text("precious\n")
    refused = cli(*args, "--json", out)
    (line,) = bad_input(refused)
    assert line == f"{out}: exists; not overwritten (use --force to replace it)"
    assert refused.stdout == ""
    assert out.read_text() == "precious\n"
    result = cli(*args, "--json", out, "--force")
    assert result.exit_code == 0, result.output
    assert json.loads(out.read_text())["end_s"]


def test_json_into_a_missing_directory_is_one_line(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    out = tmp_path / "no" / "such" / "dir.json"
    (line,) = bad_input(cli("simulate", write("s.yaml", TWO_HOSTS), "--json", out))
    assert line == f"{out}: No such file or directory"


def test_a_scenario_error_prints_every_problem(cli: Invoke, write: WriteFile) -> None:
    """A bad unit (line 3), a bad choice (4), a NIC cabled twice and one that does not exist (7).

    All four are printed, one line each, in line order; then exit 2.
    """
    path = write(
        "bad.yaml",
        """
        name: Bad
        hosts:
          - {name: hv1, nics: [{name: nic1, speed: 10Gbs}]}
          - {name: hv2, nics: [{name: nic1, speed: 10Gbps}], power_plan: turbo}
        cables:
          - {a: hv1/nic1, b: hv2/nic1}
          - {a: hv1/nic1, b: hv2/nic9}
        """,
    )
    lines = bad_input(cli("simulate", path))
    assert [line.split(": ")[0:2] for line in lines] == [
        [f"{path}:3", "hosts[0].nics[0].speed"],
        [f"{path}:4", "hosts[1].power_plan"],
        [f"{path}:7", "cables[1].a"],
        [f"{path}:7", "cables[1].b"],
    ]


def test_a_missing_scenario_file_is_one_line(cli: Invoke, tmp_path: Path) -> None:
    (line,) = bad_input(cli("simulate", tmp_path / "nope.yaml"))
    assert line.startswith(f"{tmp_path / 'nope.yaml'}: cannot read the file")


def test_traffic_that_never_completes(cli: Invoke, write: WriteFile) -> None:
    """hv1's NIC fails at 1 s for good: the JSON has end_s null, the table says 'never'."""
    path = write("s.yaml", TWO_HOSTS + "events: [{at: 1s, action: nic_down, target: hv1/nic1}]\n")
    document = json.loads(cli("simulate", path, "--json", "-").stdout)
    traffic = document["traffic"][0]
    assert (traffic["end_s"], traffic["duration_s"], traffic["mean_bps"]) == (None, None, None)
    table = cli("simulate", path).stdout
    (row,) = [line for line in table.splitlines() if "copy" in line and "│" in line]
    assert "warning: traffic copy (hv1 → hv2) never completes" in table
    # Columns: traffic, from → to, via NICs, size, start, end, mean rate, black-holed.
    assert [cell.strip() for cell in row.split("│")[6:9]] == ["never", "-", "since 1.00 s"]
    assert "0 of 1 traffic entries completed" in table


# schema


def test_schema_is_json_with_an_id(cli: Invoke) -> None:
    result = cli("schema")
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["$id"]
    assert "hosts" in schema["properties"]


# topology


def test_topology_star_is_a_valid_scenario(cli: Invoke) -> None:
    result = cli("topology", "star", "--hosts", "3", "--nic", "25Gbps")
    assert result.exit_code == 0, result.output
    scenario = parse_scenario(result.stdout)
    assert len(scenario.hosts) == 3
    assert len(scenario.cables) == 3
    assert {n.speed for h in scenario.hosts for n in h.nics} == {25e9}
    assert result.stdout == star(3, "25Gbps")


def test_topology_leaf_spine_is_a_valid_scenario(cli: Invoke) -> None:
    result = cli("topology", "leaf-spine", "--hosts", "8", "--leaves", "2", "--spines", "2", "--uplink", "100Gbps")
    assert result.exit_code == 0, result.output
    scenario = parse_scenario(result.stdout)
    assert len(scenario.hosts) == 8
    assert len(scenario.switches) == 4
    assert len(scenario.cables) == 8 + 2 * 2


def test_topology_output_simulates(cli: Invoke, tmp_path: Path) -> None:
    """What `topology` prints, plus traffic, is a file `simulate` runs."""
    path = tmp_path / "star.yaml"
    path.write_text(cli("topology", "star", "--hosts", "2").stdout + "traffic: [{from: hv1, to: hv2, size: 1.25GB}]\n")
    document = json.loads(cli("simulate", path, "--json", "-").stdout)
    # The generated hosts have the default CPU (2.5 GHz, balanced plan: 0.85 of it), so the
    # receiving core, not the 10 Gbps link, caps the one stream (docs/model.md "Cores"); their
    # NICs are no virtual switch's uplink, so RSC coalesces what they receive.
    core = 2.5e9 * 0.85 / CpuParameters().receive_cost(1460, rsc=True)
    assert document["traffic"][0]["end_s"] == pytest.approx(1.25e9 / core)


def test_a_scenario_with_nothing_to_simulate_says_what_to_add(cli: Invoke, tmp_path: Path) -> None:
    """A fabric alone (what `topology` prints without --drain or --traffic) once printed empty tables and
    exit 0: now one line, exit 2, saying what to add, with its own hosts' names, and how to generate it."""
    path = tmp_path / "star.yaml"
    path.write_text(cli("topology", "star", "--hosts", "2").stdout)
    (line,) = bad_input(cli("simulate", path))
    assert line == (
        f"{path}: nothing to simulate: no traffic, demand, migration, drain or rolling update; add traffic, "
        "e.g. traffic: [{from: hv1, to: hv2, size: 10GB}], or VMs and a drain, e.g. "
        "vms: [{name: vm1, host: hv1, memory: 8GiB}] and events: [{at: 0s, action: drain, target: hv1}] "
        "(docs/scenario.md; hvnet topology star --help lists options that generate them)"
    )
    with path.open("a") as file:
        file.write("events: [{at: 1s, action: nic_down, target: hv1/nic1}]\n")
    (line,) = bad_input(cli("simulate", path))
    assert "no traffic, demand, migration, drain or rolling update (failures alone disturb nothing); add" in line
    path.write_text(cli("topology", "star", "--hosts", "2", "--vms", "1", "--drain", "hv2").stdout)
    assert cli("simulate", path).exit_code == 0


@pytest.mark.parametrize(
    "args",
    [["star", "--hosts", "0"], ["leaf-spine", "--hosts", "4", "--leaves", "0"]],
    ids=["star", "leaf-spine"],
)
def test_topology_refuses_zero(cli: Invoke, args: list[str]) -> None:
    result = cli("topology", *args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_topology_refuses_a_bad_speed(cli: Invoke) -> None:
    lines = bad_input(cli("topology", "star", "--hosts", "2", "--nic", "10Gbs"))
    assert lines and all("'10Gbs' is not a bit rate" in line for line in lines)


# flows

MATRIX = "src,dst,bytes,start_s\nhv1,hv2,2500000000,0\nhv1,hv3,625000000,1\nhv3,hv2,0,0\n"


def test_flows_json_gives_end_times_in_row_order(cli: Invoke, write: WriteFile) -> None:
    """Rows end at 2.5 × FRAME, 1 + FRAME and (0 bytes) at once: see test_flows.py for the arithmetic."""
    result = cli("flows", write("s.yaml", TWO_HOSTS), write("m.csv", MATRIX), "--json", "-")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert list(document) == ["engine", "wall_s", "end_s", "flows"]
    assert document["engine"] == f"hvnet {__version__}"
    assert isinstance(document["wall_s"], float) and document["wall_s"] >= 0
    assert document["end_s"] == [pytest.approx(2.5 * FRAME), pytest.approx(1 + FRAME), pytest.approx(0.0)]
    names = [(f["name"], f["src"], f["dst"], f["bytes"], f["start_s"]) for f in document["flows"]]
    assert names == [
        ("row 2", "hv1", "hv2", 2_500_000_000, 0.0),
        ("row 3", "hv1", "hv3", 625_000_000, 1.0),
        ("row 4", "hv3", "hv2", 0, 0.0),
    ]
    assert [f["end_s"] for f in document["flows"]] == document["end_s"]


def test_flows_prints_a_table_of_the_rows_and_a_summary(cli: Invoke, write: WriteFile) -> None:
    """One row per matrix row: its name (`row N` without a name column), ends, size, start, end and mean
    rate; then the run in one line. Row 2 sends 2.5 GB over 2.5 × FRAME = 2.63 s: 7.59 Gbps of payload."""
    result = cli("flows", write("s.yaml", TWO_HOSTS), write("m.csv", MATRIX))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Two hosts: m.csv")
    cells = [[cell.strip() for cell in line.split("│")[1:-1]] for line in lines if line.startswith("│")]
    assert cells[0] == ["row 2", "hv1", "hv2", "2.5 GB", "0 s", "2.63 s", "7.59 Gbps"]
    assert cells[2] == ["row 4", "hv3", "hv2", "0 B", "0 s", "0 s", "-"]
    assert lines[-1].startswith("3 flows, 3 completed, last at 2.63 s; engine ")  # 2.5 × FRAME


def test_flows_reads_units_and_names_from_the_matrix(cli: Invoke, write: WriteFile) -> None:
    """A matrix in a scenario's units, with names: 2.5GB from 1s is row 2 of MATRIX, a second later."""
    matrix = write("m.csv", "name,src,dst,bytes,start_s\nbackup,hv1,hv2,2.5GB,1s\nsync,hv3,hv2,500MiB,250ms\n")
    result = cli("flows", write("s.yaml", TWO_HOSTS), matrix, "--json", "-")
    assert result.exit_code == 0, result.output
    flows = json.loads(result.stdout)["flows"]
    assert [(f["name"], f["bytes"], f["start_s"]) for f in flows] == [
        ("backup", 2_500_000_000, 1.0),
        ("sync", 500 * 2**20, 0.25),
    ]
    table = cli("flows", write("s.yaml", TWO_HOSTS), matrix).stdout
    assert "│ backup │" in table and "│ sync   │" in table and "500 MiB" in table and "250 ms" in table


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ("source,dst,bytes,start_s\n", ":1: header: expected the columns src,dst,bytes,start_s and optionally name"),
        ("src,dst,bytes,start_s\nhv1,hv2,1,0\nhv7,hv2,1,0\n", ":3: src: 'hv7' is not a host or VM of the scenario"),
        ("src,dst,bytes,start_s\nhv1,hv9,1,0\n", ":2: dst: 'hv9' is not a host or VM of the scenario"),
        ("src,dst,bytes,start_s\nhv1,hv2,-1,0\n", ":2: bytes: '-1' is not a number >= 0"),
        ("src,dst,bytes,start_s\nhv1,hv2,lots,0\n", ":2: bytes: 'lots' is not a size; write a number and a unit"),
        ("src,dst,bytes,start_s\nhv1,hv2,1,soon\n", ":2: start_s: 'soon' is not a duration; write a number and"),
        ("src,dst,bytes,start_s\nhv1,hv2,1,-2\n", ":2: start_s: '-2' is not a number >= 0"),
        ("src,dst,bytes,start_s\nhv2,hv2,1,0\n", ":2: dst: a flow needs two different endpoints"),
        ("src,dst,bytes,start_s\nhv1,hv2,1\n", ":2: row: expected 4 values, got 3"),
        ("src,dst,bytes,start_s\nhv1,hv2,1,0,0\n", ":2: row: expected 4 values, got 5"),
    ],
    ids=[
        "bad-header",
        "unknown-src",
        "unknown-dst",
        "negative-bytes",
        "bytes-not-a-size",
        "start-not-a-duration",
        "negative-start",
        "src-is-dst",
        "too-few-columns",
        "too-many-columns",
    ],
)
def test_flows_csv_error_is_one_line(cli: Invoke, write: WriteFile, body: str, where: str) -> None:
    """Each mistake: exactly one line `file:line: field: message` on stderr, exit 2, nothing on stdout."""
    csv_path = write("matrix.csv", body)
    result = cli("flows", write("s.yaml", TWO_HOSTS), csv_path, "--json", "-")
    (line,) = bad_input(result)
    assert line.startswith(f"{csv_path}{where}")
    assert result.stdout == ""


def test_flows_csv_missing(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    (line,) = bad_input(cli("flows", write("s.yaml", TWO_HOSTS), tmp_path / "none.csv"))
    assert line == f"{tmp_path / 'none.csv'}: No such file or directory"


def test_simulate_says_a_files_variants_are_not_simulated(cli: Invoke, write: WriteFile) -> None:
    """A file with variants: simulates its base design; the user is told, and pointed to compare (issue 14)."""
    path = write(
        "v.yaml",
        """
        name: v
        hosts:
          - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
          - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}
        cables: [{a: hv1/nic1, b: hv2/nic1}]
        traffic: [{from: hv1, to: hv2, size: 1GB}]
        variants:
          mtu: {set: "hosts[*].nics[*].mtu", values: [1500, 9000]}
        """,
    )
    result = cli("simulate", path)
    assert result.exit_code == 0
    assert f"{path}: its variants: are not simulated here" in result.stderr and "hvnet compare" in result.stderr


def test_flows_prints_its_summary_beside_a_json_file(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    """--json FILE writes the file and still says what happened; only --json - keeps stdout for the JSON."""
    scenario = write(
        "s.yaml",
        "name: s\nhosts:\n  - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}\n"
        "  - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}\ncables: [{a: hv1/nic1, b: hv2/nic1}]\n",
    )
    matrix = write("m.csv", "src,dst,bytes,start_s\nhv1,hv2,1000000000,0\n")
    result = cli("flows", scenario, matrix, "--json", tmp_path / "ends.json")
    assert result.exit_code == 0 and "1 flow, 1 completed" in result.stdout
    on_stdout = cli("flows", scenario, matrix, "--json", "-")
    assert json.loads(on_stdout.stdout)["end_s"][0] > 0


def test_help_never_labels_a_flag_as_taking_a_value(cli: Invoke) -> None:
    """Issue 14: rich's help boxes showed `--help <bool>` and `--force <bool>`; a flag takes no value."""
    for command in (["--help"], ["simulate", "--help"], ["flows", "--help"], ["import", "config", "--help"]):
        result = cli(*command)
        assert result.exit_code == 0 and "<bool>" not in result.stdout, command


def test_compare_prices_each_design_from_a_price_file(cli: Invoke, tmp_path: Path) -> None:
    """--prices reaches the cost column: cheaper DACs lower every design's cost (issue 14)."""
    from importlib import resources

    design = Path(str(resources.files("hvnet") / "examples" / "demo" / "no-team.yaml"))
    default = json.loads(cli("compare", design, "--json", "-").stdout)
    mine = tmp_path / "prices.yaml"
    mine.write_text("currency: USD\nprices:\n  dac_10g: 1\n")
    cheaper = json.loads(cli("compare", design, "--prices", mine, "--json", "-").stdout)
    assert all(c["cost"]["total"] < d["cost"]["total"] for c, d in zip(cheaper["variants"], default["variants"]))
