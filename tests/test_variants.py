"""Variants of a design: axes, their product and names, their errors, the metrics, and `hvnet compare`.

The metrics are checked on one small design worked out by hand. Two hosts
with one NIC each on a switch copy 12.5 GB; hv1's NIC fails at 2 s and is
repaired at 5 s. Every byte of payload takes FRAME bytes of line time (frames
of MTU 1500, docs/model.md "Frames"), so at 10 Gbps the copy takes 10 × FRAME
seconds of sending plus the 3 s outage, and at 1 Gbps 100 × FRAME + 3 s. If
the repair goes to hv2's NIC instead, hv1's stays down and the copy never
completes. The hosts have 6 GHz cores on the high-performance plan, so the
link, not a core, limits the copy.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from hvnet import ScenarioError, load_scenario
from hvnet.cli import app
from hvnet.compare import run_comparison
from hvnet.variants import METRICS, Metrics, Variants, best, load_variants
from tests.conftest import CLI_ENV

Invoke = Callable[..., Result]
WriteFile = Callable[[str, str], Path]

FRAME = 1538 / 1460

OUTAGE = """
name: One copy, one outage
hosts:
  - {name: hv1, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv2, cpu: {ghz: 6}, power_plan: high_performance, nics: [{name: nic1, speed: 10Gbps}]}
switches: [{name: sw}]
cables: [{a: hv1/nic1, b: sw/1}, {a: hv2/nic1, b: sw/2}]
traffic: [{name: copy, from: hv1, to: hv2, size: 12.5GB}]
events:
  - {at: 2s, action: nic_down, target: hv1/nic1}
  - {at: 5s, action: nic_up, target: hv1/nic1}
variants:
  speed: {set: "hosts[*].nics[nic1].speed", values: [1Gbps, 10Gbps]}
  repair: {set: "events[1].target", values: [hv1/nic1, hv2/nic1]}
"""

#: A team of two NICs per host; the axes below are appended to it.
TEAMS = """
name: Teams
hosts:
  - name: hv1
    nics:
      - {name: nic1, speed: 10Gbps}
      - {name: nic2, speed: 10Gbps}
    teams:
      - {name: team1, members: [nic1, nic2]}
  - name: hv2
    nics:
      - {name: nic1, speed: 10Gbps}
      - {name: nic2, speed: 10Gbps}
    teams:
      - {name: team1, members: [nic1, nic2]}
cables:
  - {a: hv1/nic1, b: hv2/nic1}
  - {a: hv1/nic2, b: hv2/nic2}
"""


def bad_input(result: Result) -> list[str]:
    """Exit code 2, no traceback; the lines on stderr."""
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.stderr.splitlines()


# --- axes, their product and names ----------------------------------------------------------


def test_the_variants_are_the_product_of_the_axes_first_axis_slowest(write: WriteFile) -> None:
    variants = load_variants(
        write(
            "t.yaml",
            TEAMS
            + "variants:\n"
            + '  jumbo: {set: "hosts[*].nics[*].mtu", values: [1500, 9000]}\n'
            + '  algorithm: {set: "hosts[*].teams[*].load_balancing", values: [hyperv_port, dynamic, address_hash]}\n',
        )
    )
    assert len(variants) == 6
    assert [v.name for v in variants] == [
        "jumbo=1500, algorithm=hyperv_port",
        "jumbo=1500, algorithm=dynamic",
        "jumbo=1500, algorithm=address_hash",
        "jumbo=9000, algorithm=hyperv_port",
        "jumbo=9000, algorithm=dynamic",
        "jumbo=9000, algorithm=address_hash",
    ]
    last = variants.scenario(list(variants)[-1])
    assert [nic.mtu for host in last.hosts for nic in host.nics] == [9000] * 4
    assert [host.team("team1").load_balancing.value for host in last.hosts] == ["address_hash"] * 2


def test_a_path_selects_entries_by_name_or_number_and_sets_fields_the_file_leaves_out(write: WriteFile) -> None:
    """[hv2] is the host named hv2, [1] the second NIC; cpu is not in the file, so it is created."""
    variants = load_variants(
        write(
            "t.yaml",
            TEAMS
            + "variants:\n"
            + '  fast: {set: "hosts[hv2].nics[1].speed", values: [25Gbps]}\n'
            + '  clock: {set: "hosts[*].cpu.ghz", values: [3.5]}\n',
        )
    )
    (variant,) = variants
    assert variant.name == "fast=25Gbps, clock=3.5"
    scenario = variants.scenario(variant)
    assert [nic.speed for nic in scenario.host("hv2").nics] == [10e9, 25e9]
    assert [nic.speed for nic in scenario.host("hv1").nics] == [10e9, 10e9]
    assert [host.cpu.ghz for host in scenario.hosts] == [3.5, 3.5]


def test_a_value_can_be_a_mapping_and_its_name_is_compact_json(write: WriteFile) -> None:
    variants = load_variants(
        write("t.yaml", TEAMS + 'variants:\n  cpu: {set: "hosts[*].cpu", values: [{ghz: 2}, {ghz: 3, smt: false}]}\n')
    )
    assert [v.name for v in variants] == ['cpu={"ghz":2}', 'cpu={"ghz":3,"smt":false}']
    assert variants.scenario(list(variants)[1]).host("hv1").cpu.smt is False


def test_a_file_without_variants_is_one_variant_and_simulate_runs_the_base_design(write: WriteFile) -> None:
    plain = load_variants(write("plain.yaml", TEAMS))
    assert [v.name for v in plain] == ["base"] and plain.axes == ()
    with_axes = write("axes.yaml", TEAMS + 'variants:\n  jumbo: {set: "hosts[*].nics[*].mtu", values: [9000]}\n')
    assert load_scenario(with_axes) == load_scenario(write("plain.yaml", TEAMS)), "variants: is not the design"


def test_variants_pickle_for_the_workers_of_a_sweep(write: WriteFile) -> None:
    import pickle

    variants = load_variants(write("o.yaml", OUTAGE))
    again = pickle.loads(pickle.dumps(variants))
    assert isinstance(again, Variants)
    assert [again.data(v) for v in again] == [variants.data(v) for v in variants]


# --- errors: one clear line each --------------------------------------------------------------

TOO_MANY = "  a: {set: description, values: [" + ", ".join(f"a{i}" for i in range(101)) + "]}\n"
TOO_MANY += "  b: {set: name, values: [" + ", ".join(f"b{i}" for i in range(100)) + "]}\n"


@pytest.mark.parametrize(
    ("axes", "expected"),
    [
        pytest.param(
            '  algorithm: {set: "hosts[*].teams[*].load_balancing", values: [dynamic]}\n',
            "t.yaml:5: variants.algorithm.set: 'hosts[*].teams[*].load_balancing' matches nothing: "
            "the scenario has no hosts[*].teams[*]",
            id="matches-nothing",
        ),
        pytest.param(
            "  jumbo:\n    set: hosts[*].nics[*].mtu\n    values:\n      - 1500\n      - 9999\n",
            "t.yaml:9: variants.jumbo.values[1]: with 9999, hosts[0].nics[0].mtu: 9999 is too large; "
            "must be at most 9216 (and 1 more)",
            id="value-refused",
        ),
        pytest.param(
            '  speed: {set: "hosts[*].nics[*].speed", values: [10Gbs]}\n',
            "t.yaml:5: variants.speed.values[0]: with '10Gbs', hosts[0].nics[0].speed: '10Gbs' is not a bit rate; "
            "write a number and a unit: bps, Kbps, Mbps, Gbps, Tbps (e.g. 10Gbps) (and 1 more)",
            id="bad-unit",
        ),
        pytest.param(
            TOO_MANY,
            "t.yaml:4: variants: 101 × 100 = 10,100 variants; at most 10,000 (use fewer values, or split the file)",
            id="too-many",
        ),
        pytest.param(
            '  bad: {set: "hosts[*.mtu", values: [1500]}\n',
            "t.yaml:5: variants.bad.set: 'hosts[*.mtu' is not a path; write fields joined by dots, and after a list "
            "[*] for every entry, [N] for entry N (from 0) or [name] for the entry of that name "
            "(e.g. hosts[*].nics[*].mtu)",
            id="not-a-path",
        ),
        pytest.param(
            '  jumbo: {set: "hosts[*].nics[*].mtu", values: []}\n',
            "t.yaml:5: variants.jumbo.values: expected a list of one or more values, got an empty list",
            id="no-values",
        ),
        pytest.param(
            '  jumbo: {set: "hosts[*].nics[*].mtu", values: [9000, 9000]}\n',
            "t.yaml:5: variants.jumbo.values[1]: 9000 is listed twice (values[0]); each value makes one variant",
            id="twice",
        ),
        pytest.param(
            '  jumbo: {set: "hosts[*].nics[*].mtu", value: [9000]}\n',
            "t.yaml:5: variants.jumbo.value: unknown field; allowed: set, values\n"
            "t.yaml:5: variants.jumbo.values: required field is missing",
            id="misspelt",
        ),
        pytest.param(
            '  metric: {set: "hosts[*].nics[*].mtu", values: [9000]}\n',
            "t.yaml:5: variants.metric: 'metric' is reserved; name the axis otherwise (not variant, metric, value)",
            id="reserved",
        ),
        pytest.param(
            "  - jumbo\n",
            "t.yaml:4: variants: expected a mapping of axes, got a list; write name: {set: PATH, values: [...]}, "
            "e.g. jumbo: {set: hosts[*].nics[*].mtu, values: [1500, 9000]}",
            id="a-list",
        ),
    ],
)
def test_a_bad_axis_is_one_line_on_its_own_line(write: WriteFile, axes: str, expected: str) -> None:
    base = (
        "name: t\n"
        "hosts: [{name: hv1, nics: [{name: nic1, speed: 10Gbps}]}, {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}]\n"
        "cables: [{a: hv1/nic1, b: hv2/nic1}]\n"
    )
    path = write("t.yaml", base + "variants:\n" + axes)
    with pytest.raises(ScenarioError) as caught:
        load_variants(path)
    assert str(caught.value) == expected.replace("t.yaml", str(path))


def test_a_bad_base_design_is_reported_with_its_own_lines(write: WriteFile) -> None:
    path = write("t.yaml", "name: t\nhosts: [{name: hv1, nics: [{name: nic1, speed: 10}]}]\nvariants: {}\n")
    with pytest.raises(ScenarioError) as caught:
        load_variants(path)
    assert [(p.line, p.field) for p in caught.value.problems] == [(2, "hosts[0].nics[0].speed"), (3, "variants")]


def test_a_combination_refused_as_a_whole_is_reported_on_variants_by_name(cli: Invoke, write: WriteFile) -> None:
    """Each value is fine alone: a SET team of equal NICs, or an LBFO team of unequal ones; not both."""
    path = write(
        "t.yaml",
        TEAMS
        + "variants:\n"
        + '  kind: {set: "hosts[hv1].teams[team1].kind", values: [lbfo, set]}\n'
        + '  nic2: {set: "hosts[hv1].nics[nic2].speed", values: [10Gbps, 25Gbps]}\n',
    )
    lines = bad_input(cli("compare", path))
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}:18: variants: kind=set, nic2=25Gbps: hosts[0].teams[0].members[1]: ")
    assert "identical" in lines[0]


# --- metrics --------------------------------------------------------------------------------------


def test_metrics_of_a_known_design(write: WriteFile) -> None:
    variants = load_variants(write("o.yaml", OUTAGE))
    runs = {v.name: variants.simulate(v) for v in variants}
    metrics = {name: Metrics.of(results) for name, results in runs.items()}

    slow = metrics["speed=1Gbps, repair=hv1/nic1"]
    assert slow.end_s == pytest.approx(100 * FRAME + 3)
    assert slow.peak_send_bps == pytest.approx(1e9)
    assert slow.stalled == 0 and slow.blackholed_s == pytest.approx(3.0)

    fast = metrics["speed=10Gbps, repair=hv1/nic1"]
    assert fast.end_s == pytest.approx(10 * FRAME + 3)
    assert fast.peak_send_bps == pytest.approx(10e9)
    assert fast.stalled == 0 and fast.blackholed_s == pytest.approx(3.0)

    for name in ("speed=1Gbps, repair=hv2/nic1", "speed=10Gbps, repair=hv2/nic1"):
        never = metrics[name]
        assert (never.end_s, never.stalled, never.blackholed_s) == (None, 1, None), "a drain that never ends"
    assert metrics["speed=10Gbps, repair=hv2/nic1"].peak_send_bps == pytest.approx(10e9), "it sent for 2 s"

    # The same bytes cost the same CPU at either speed: the per-core series, added up.
    assert slow.cpu_core_s == pytest.approx(fast.cpu_core_s) and fast.cpu_core_s > 0
    results = runs["speed=10Gbps, repair=hv1/nic1"]
    assert fast.cpu_core_s == pytest.approx(sum(core.busy.integral(0.0, results.end_s) for core in results.cores))


def _metrics(
    end_s: float | None, peak: float = 10.0, stalled: int = 0, cpu: float = 1.0, blackout: float | None = 0.0
) -> Metrics:
    return Metrics(
        end_s=end_s,
        peak_send_bps=peak,
        stalled=stalled,
        blackholed_s=0.0 if end_s else None,
        cpu_core_s=cpu,
        blackout_s=blackout,
    )


def test_best_is_lowest_or_highest_per_metric_ties_share_it_and_agreement_marks_nothing() -> None:
    """A star singles out the best: a tie shares it, but a best shared by more than half of the runs, or
    no value at all, marks nothing (issue 26: not on 10 of 11 rows that tie, not on `-`)."""
    runs = [
        _metrics(20.0, peak=10.0, cpu=2.0, blackout=0.1),
        _metrics(10.0, peak=20.0, cpu=2.0, blackout=0.2),
        _metrics(10.0 + 1e-12, cpu=3.0, blackout=None),  # a migration that never ended: the worst blackout
    ]
    assert {m.name: m.better for m in METRICS} == {
        "end_s": "lower",
        "peak_send_bps": "higher",
        "stalled": "lower",
        "blackholed_s": "lower",
        "cpu_core_s": "lower",
        "blackout_s": "lower",
    }
    assert best(runs) == {
        "end_s": set(),  # 1 and 2 equal within floating-point noise: two of three, the common value
        "peak_send_bps": {1},
        "stalled": set(),  # all agree: nothing to choose
        "blackholed_s": set(),
        "cpu_core_s": set(),  # two of three
        "blackout_s": {0},
    }
    four = [*runs, _metrics(30.0, cpu=4.0, blackout=None)]
    assert best(four)["end_s"] == {1, 2} and best(four)["cpu_core_s"] == {0, 1}, "a tie of half still marks"
    no_migrations = [_metrics(10.0, blackout=None), _metrics(20.0, blackout=None)]
    assert best(no_migrations)["blackout_s"] == set(), "no value anywhere: no best"


def test_a_variant_that_loses_traffic_is_never_best() -> None:
    """It used less CPU only because it moved less data."""
    runs = [_metrics(10.0, cpu=5.0), _metrics(None, stalled=1, cpu=1.0)]
    marked = best(runs)
    assert marked["cpu_core_s"] == {0} and marked["stalled"] == {0} and marked["end_s"] == {0}
    assert best([_metrics(None, stalled=1), _metrics(None, stalled=2)])["stalled"] == {0}, "if none completed"


# --- hvnet compare --------------------------------------------------------------------------------


def _rows(stdout: str) -> list[list[str]]:
    """The table's rows, as lists of cells (it does not wrap at 200 columns)."""
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in stdout.splitlines()]
    return [row for row in rows if row]


def test_compare_prints_one_row_per_variant_and_marks_the_best(write: WriteFile) -> None:
    # every column, in a terminal wide enough for them (tests/test_widths.py checks 80 columns)
    result = CliRunner(env={**CLI_ENV, "COLUMNS": "200"}).invoke(app, ["compare", str(write("o.yaml", OUTAGE))])
    assert result.exit_code == 0, result.output
    assert (
        "┃ speed  ┃ repair   ┃ last transfer ┃ peak send ┃ stalled ┃ black-holed ┃           CPU ┃  (USD) ┃"
        in result.stdout
    )
    # one column per axis, then drain time, peak send, stalled, black-holed, CPU
    rows = [row[:6] for row in _rows(result.stdout)]
    assert rows == [
        ["1Gbps", "hv1/nic1", "1 min 48 s", "1 Gbps", "0 ★", "3.00 s ★"],
        ["1Gbps", "hv2/nic1", "never", "1 Gbps", "1", "forever"],
        ["10Gbps", "hv1/nic1", "13.5 s ★", "10 Gbps ★", "0 ★", "3.00 s ★"],
        ["10Gbps", "hv2/nic1", "never", "10 Gbps", "1", "forever"],
    ]
    assert "★ marks the best: the earliest end of the last transfer" in " ".join(result.stdout.split())


def test_compare_names_each_file_and_a_file_without_variants_is_one_row(cli: Invoke, write: WriteFile) -> None:
    plain, outage = write("plain.yaml", OUTAGE.split("variants:", maxsplit=1)[0]), write("o.yaml", OUTAGE)
    result = cli("compare", plain, outage, "--json", "-")
    assert result.exit_code == 0, result.output
    labels = [variant["label"] for variant in json.loads(result.stdout)["variants"]]
    assert labels[:2] == [str(plain), f"{outage}: speed=1Gbps, repair=hv1/nic1"]
    assert len(labels) == 5


def test_compare_json_and_its_refusal_to_overwrite(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    scenario, out = write("o.yaml", OUTAGE), tmp_path / "compare.json"
    out.write_text("keep me")
    assert bad_input(cli("compare", scenario, "--json", out)) == [
        f"{out}: exists; not overwritten (use --force to replace it)"
    ]
    assert out.read_text() == "keep me"
    result = cli("compare", scenario, "--json", out, "--force")
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert document["better"]["peak_send_bps"] == "higher"
    first, second = document["variants"][:2]
    assert first["variant"] == "speed=1Gbps, repair=hv1/nic1"
    assert first["values"] == {"speed": "1Gbps", "repair": "hv1/nic1"}
    assert first["metrics"]["end_s"] == pytest.approx(100 * FRAME + 3)
    assert first["best"] == ["stalled", "blackholed_s", "cpu_core_s", "blackout_s"]
    assert second["metrics"]["end_s"] is None and second["best"] == []


def test_compare_json_on_stdout_is_only_json(cli: Invoke, write: WriteFile) -> None:
    result = cli("compare", write("o.yaml", OUTAGE), "--json", "-")
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["variants"]) == 4


def test_compare_report_shows_the_table_and_each_variants_nics(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    out = tmp_path / "compare.html"
    result = cli("compare", write("o.yaml", OUTAGE), "--report", out)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == f"report written to {out}"
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert html.count('<td class="right best">13.5 s ★</td>') == 1
    assert [f'id="v{i}-network"' in html for i in (1, 2, 3, 4)] == [True] * 4
    assert 'id="v4-nic-chart-1"' in html and html.count('id="v1-nic-chart-0"') == 1
    assert bad_input(cli("compare", write("o.yaml", OUTAGE), "--report", out)) == [
        f"{out}: exists; not overwritten (use --force to replace it)"
    ]


def test_compare_reports_the_problems_of_every_file_at_once(cli: Invoke, write: WriteFile) -> None:
    one = write("one.yaml", "name: one\nhosts: []\n")
    two = write("two.yaml", OUTAGE.replace("values: [1Gbps, 10Gbps]", "values: [1Gbps, 10Gbs]"))
    lines = bad_input(cli("compare", one, two))
    assert [line.split(": ")[0] for line in lines] == [f"{one}:2", f"{two}:12"]


def test_run_comparison_from_python(write: WriteFile) -> None:
    runs = run_comparison([write("o.yaml", OUTAGE)])
    assert [run.values["speed"] for run in runs] == ["1Gbps", "1Gbps", "10Gbps", "10Gbps"]
    assert runs[2].metrics.end_s == pytest.approx(10 * FRAME + 3)


def test_the_json_schema_accepts_variants(write: WriteFile) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from hvnet.model import load_yaml, plain_data, scenario_json_schema

    validator = jsonschema.Draft202012Validator(scenario_json_schema())
    data = plain_data(load_yaml(write("o.yaml", OUTAGE)))
    assert isinstance(data, dict) and "variants" in data
    assert list(validator.iter_errors(data)) == []
    data["variants"]["speed"]["value"] = [1]
    assert list(validator.iter_errors(data)) != [], "an axis has set and values, nothing else"


def test_the_documented_variants_load(tmp_path: Path) -> None:
    """docs/sweeps.md's example, and docs/scenario.md's axes added to its two-node cluster."""
    docs = Path(__file__).parent.parent / "docs"
    (sweeps,) = re.findall(r"```yaml variants\n(.*?)```", (docs / "sweeps.md").read_text(), flags=re.DOTALL)
    (tmp_path / "sweeps.yaml").write_text(sweeps)
    assert len(load_variants(tmp_path / "sweeps.yaml")) == 4
    scenario_md = (docs / "scenario.md").read_text()
    (axes,) = re.findall(r"```yaml variants\n(.*?)```", scenario_md, flags=re.DOTALL)
    two_node = re.findall(r"```yaml\n(.*?)```", scenario_md, flags=re.DOTALL)[0]
    (tmp_path / "scenario.yaml").write_text(two_node + axes)
    names = [v.name for v in load_variants(tmp_path / "scenario.yaml")]
    assert names[0] == "jumbo=1500, algorithm=hyperv_port" and names[-1] == "jumbo=9000, algorithm=dynamic"


def test_the_documented_comparison_is_what_compare_prints(cli: Invoke, tmp_path: Path) -> None:
    """docs/sweeps.md shows `hvnet compare` of its example; the page must not drift from the program."""
    text = (Path(__file__).parent.parent / "docs" / "sweeps.md").read_text()
    (sweeps,) = re.findall(r"```yaml variants\n(.*?)```", text, flags=re.DOTALL)
    (shown,) = re.findall(r"```text compare\n(.*?)```", text, flags=re.DOTALL)
    (tmp_path / "cluster.yaml").write_text(sweeps)
    result = cli("compare", tmp_path / "cluster.yaml")
    assert result.exit_code == 0, result.output
    assert "".join(line.rstrip() + "\n" for line in result.stdout.splitlines()) == shown


def test_an_axis_that_matches_nothing_after_an_earlier_one_is_reported_by_variant(write: WriteFile) -> None:
    """The first axis replaces the traffic list; where it empties it, the second axis finds no entry."""
    path = write(
        "o.yaml",
        OUTAGE.split("variants:", maxsplit=1)[0]
        + "variants:\n"
        + "  traffic: {set: traffic, values: [[], [{from: hv1, to: hv2, size: 1GB}]]}\n"
        + '  connections: {set: "traffic[*].connections", values: [2]}\n',
    )
    variants = load_variants(path)
    first, second = variants
    with pytest.raises(ScenarioError) as caught:
        variants.scenario(first)
    assert str(caught.value) == (
        f"{path}:11: variants: traffic=[], connections=2: 'traffic[*].connections' matches nothing: "
        "the scenario has no traffic[*]"
    )
    assert variants.scenario(second).traffic[0].connections == 2


def test_live_migrations_count_in_the_drain_time_and_rank_by_blackout(write: WriteFile) -> None:
    """The calibration testbed's 55 GB VM over SMB and over TCP/IP (C1, C4): SMB spreads over both
    NICs, so it drains sooner; the metrics read the migration's own end and blackout."""
    base = resources.files("hvnet.examples").joinpath("validation").joinpath("c4-smb.yaml").read_text()
    axes = '\nvariants:\n  option: {set: "hosts[*].live_migration.option", values: [tcp_ip, smb]}\n'
    runs = run_comparison([write("lm.yaml", base + axes)])
    tcp, smb = (run.metrics for run in runs)
    for run in runs:
        (migration,) = run.results.migrations
        assert run.metrics.end_s == pytest.approx(migration.end_s) and run.metrics.stalled == 0
        assert migration.blackout_s is not None and run.metrics.blackout_s == pytest.approx(migration.blackout_s)
    assert smb.end_s is not None and tcp.end_s is not None and smb.end_s < tcp.end_s
    assert best([tcp, smb])["end_s"] == {1}


def test_an_axis_named_with_a_line_break_is_still_one_line(write: WriteFile) -> None:
    """The fuzzer found an axis name with U+2028 split its problem over two lines (issue 15)."""
    path = write(
        "v.yaml",
        "name: v\nhosts: [{name: hv1, nics: [{name: nic1, speed: 10Gbps}]}]\n"
        'variants:\n  "a\\u2028b": {set: "hosts[*].nics[*].speed", values: [fast]}\n',
    )
    with pytest.raises(ScenarioError) as error:
        load_variants(path)
    assert len(str(error.value).splitlines()) == 1 and "a\\u2028b" in str(error.value)
