"""Comparing variants: the metrics of each, the best of each metric, and `hvnet compare`.

The metrics are checked on one small design worked out by hand, OUTAGE
(tests/variants_cases.py). Two hosts with one NIC each on a switch copy 12.5
GB; hv1's NIC fails at 2 s and is repaired at 5 s. Every byte of payload takes
FRAME bytes of line time (frames of MTU 1500, docs/model.md "Frames"), so at 10
Gbps the copy takes 10 × FRAME seconds of sending plus the 3 s outage, and at 1
Gbps 100 × FRAME + 3 s. If the repair goes to hv2's NIC instead, hv1's stays
down and the copy never completes. The hosts have 6 GHz cores on the
high-performance plan, so the link, not a core, limits the copy.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hvnet.cli import app
from hvnet.compare import run_comparison
from hvnet.variants import METRICS, Metrics, best, load_variants
from tests.conftest import CLI_ENV, Invoke, WriteFile
from tests.variants_cases import FRAME, OUTAGE, bad_input

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


def test_the_documented_comparison_is_what_compare_prints(cli: Invoke, tmp_path: Path) -> None:
    """docs/sweeps.md shows `hvnet compare` of its example; the page must not drift from the program."""
    text = (Path(__file__).parent.parent / "docs" / "sweeps.md").read_text()
    (sweeps,) = re.findall(r"```yaml variants\n(.*?)```", text, flags=re.DOTALL)
    (shown,) = re.findall(r"```text compare\n(.*?)```", text, flags=re.DOTALL)
    (tmp_path / "cluster.yaml").write_text(sweeps)
    result = cli("compare", tmp_path / "cluster.yaml")
    assert result.exit_code == 0, result.output
    assert "".join(line.rstrip() + "\n" for line in result.stdout.splitlines()) == shown


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
