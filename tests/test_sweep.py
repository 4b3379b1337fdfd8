"""`hvnet sweep`: every variant on a Dask cluster, one Parquet row per variant and metric, the best of each.

The main test runs 100 variants (10 sizes × 10 connection counts of one
copy between two hosts) on a local cluster of 2 worker processes, as
`hvnet sweep` does by default, and checks every row against the same
variant simulated in this process. Another runs on an existing cluster
(`--scheduler`), one in this process, so that it starts fast.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import Result

import hvnet.sweep
from hvnet.variants import METRICS, Metrics, best, load_variants

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
distributed = pytest.importorskip("distributed")

Invoke = Callable[..., Result]
WriteFile = Callable[[str, str], Path]

SIZES = ", ".join(f"{k}GB" for k in range(1, 11))
CONNECTIONS = ", ".join(str(k) for k in range(1, 11))

HUNDRED = f"""
name: A hundred copies
hosts:
  - {{name: hv1, cpu: {{ghz: 6}}, power_plan: high_performance, nics: [{{name: nic1, speed: 10Gbps}}]}}
  - {{name: hv2, cpu: {{ghz: 6}}, power_plan: high_performance, nics: [{{name: nic1, speed: 10Gbps}}]}}
switches: [{{name: sw}}]
cables: [{{a: hv1/nic1, b: sw/1}}, {{a: hv2/nic1, b: sw/2}}]
traffic: [{{name: copy, from: hv1, to: hv2, size: 1GB}}]
variants:
  size: {{set: "traffic[copy].size", values: [{SIZES}]}}
  connections: {{set: "traffic[copy].connections", values: [{CONNECTIONS}]}}
"""

FOUR = """
name: Four
hosts:
  - {name: hv1, nics: [{name: nic1, speed: 10Gbps}]}
  - {name: hv2, nics: [{name: nic1, speed: 10Gbps}]}
cables: [{a: hv1/nic1, b: hv2/nic1}]
traffic: [{name: copy, from: hv1, to: hv2, size: 1GB}]
variants:
  speed: {set: "hosts[*].nics[*].speed", values: [1Gbps, 10Gbps]}
  jumbo: {set: "hosts[*].nics[*].mtu", values: [1500, 9000]}
"""


def bad_input(result: Result) -> list[str]:
    """Exit code 2, no traceback; the lines on stderr."""
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result.stderr.splitlines()


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """An existing Dask cluster, in this process (threads): its scheduler's address."""
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as c:
        yield c.scheduler_address


def test_a_hundred_variants_on_a_local_cluster(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    scenario, out = write("hundred.yaml", HUNDRED), tmp_path / "sweep.parquet"
    started = time.perf_counter()
    result = cli("sweep", scenario, "--out", out, "--workers", "2")
    took = time.perf_counter() - started
    assert result.exit_code == 0, result.output
    print(f"100 variants on a local cluster of 2 workers: {took:.1f} s")

    variants = load_variants(scenario)
    expected = [Metrics.of(variants.simulate(v)) for v in variants]
    table = pq.read_table(out)
    assert table.column_names == ["variant", "size", "connections", "metric", "value"]
    assert table.num_rows == 100 * len(METRICS)
    assert table.schema.field("size").type == pa.string()
    assert table.schema.field("connections").type == pa.int64()
    assert table.schema.metadata[b"file"] == str(scenario).encode()
    rows = table.to_pylist()
    assert rows[0] == {
        "variant": "size=1GB, connections=1",
        "size": "1GB",
        "connections": 1,
        "metric": "end_s",
        "value": pytest.approx(expected[0].end_s),
    }
    for k, (variant, metrics) in enumerate(zip(variants, expected)):
        mine = rows[k * len(METRICS) : (k + 1) * len(METRICS)]
        assert {r["variant"] for r in mine} == {variant.name}
        assert [r["metric"] for r in mine] == [m.name for m in METRICS]
        assert [r["value"] for r in mine] == [pytest.approx(getattr(metrics, m.name)) for m in METRICS]

    # The summary names the best of each metric: the smallest copy drains first, with any number of
    # connections (1 GB at 10 Gbps: 0.8 × FRAME = 843 ms); every variant completes.
    marked = best(expected)
    assert sorted(marked["end_s"]) == list(range(10))
    summary = _rows(result.stdout)
    assert summary["drain time"] == ["843 ms", "size=1GB, connections=1 (and 9 more)"]
    assert summary["stalled"] == ["0", "all variants agree"]
    assert (
        "100 variants on 2 Dask workers in " in result.stdout
        and f"{100 * len(METRICS)} rows written to {out}" in result.stdout
    )
    assert "100/100" in result.stderr, "the progress bar, finished"


def _rows(stdout: str) -> dict[str, list[str]]:
    """A table's rows: first cell -> the other cells."""
    rows = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if cells and cells[0]:
            rows[cells[0]] = cells[1:]
    return rows


def test_on_an_existing_cluster(cli: Invoke, write: WriteFile, tmp_path: Path, cluster: str) -> None:
    out = tmp_path / "four.parquet"
    result = cli("sweep", write("four.yaml", FOUR), "--out", out, "--scheduler", cluster)
    assert result.exit_code == 0, result.output
    assert "4 variants on 1 Dask worker in" in " ".join(result.stdout.split())
    table = pq.read_table(out)
    assert table.num_rows == 4 * len(METRICS)
    assert table.schema.field("jumbo").type == pa.int64()
    assert sorted(set(table.column("variant").to_pylist())) == [
        "speed=10Gbps, jumbo=1500",
        "speed=10Gbps, jumbo=9000",
        "speed=1Gbps, jumbo=1500",
        "speed=1Gbps, jumbo=9000",
    ]


def test_a_variant_refused_on_a_worker_is_reported_and_nothing_written(
    cli: Invoke, write: WriteFile, tmp_path: Path, cluster: str
) -> None:
    """Each value is fine alone; the SET team refuses the combination (unequal members)."""
    scenario = write(
        "t.yaml",
        """
        name: t
        hosts:
          - name: hv1
            nics: [{name: nic1, speed: 10Gbps}, {name: nic2, speed: 10Gbps}]
            teams: [{name: team1, members: [nic1, nic2]}]
        variants:
          kind: {set: "hosts[0].teams[0].kind", values: [lbfo, set]}
          nic2: {set: "hosts[0].nics[nic2].speed", values: [10Gbps, 25Gbps]}
        """,
    )
    out = tmp_path / "t.parquet"
    lines = bad_input(cli("sweep", scenario, "--out", out, "--scheduler", cluster))
    problems = [line for line in lines if line.startswith(str(scenario))]
    assert len(problems) == 1 and problems[0].startswith(f"{scenario}:6: variants: kind=set, nic2=25Gbps: ")
    assert not out.exists()


def test_refuses_to_overwrite_before_starting_anything(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    out = tmp_path / "sweep.parquet"
    out.write_text("keep me")
    assert bad_input(cli("sweep", write("four.yaml", FOUR), "--out", out)) == [
        f"{out}: exists; not overwritten (use --force to replace it)"
    ]
    assert out.read_text() == "keep me"


def test_workers_are_for_the_local_cluster_only(cli: Invoke, write: WriteFile, tmp_path: Path) -> None:
    out = tmp_path / "o.parquet"
    result = cli("sweep", write("four.yaml", FOUR), "--out", out, "--scheduler", "tcp://x:1", "--workers", "3")
    assert bad_input(result) == [
        "--workers sizes the local cluster; with --scheduler, the workers of that cluster run the sweep"
    ]


def test_a_scheduler_that_does_not_answer_is_one_line(
    cli: Invoke, write: WriteFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hvnet.sweep, "CONNECT_TIMEOUT_S", 1)
    out = tmp_path / "o.parquet"
    lines = bad_input(cli("sweep", write("four.yaml", FOUR), "--out", out, "--scheduler", "tcp://127.0.0.1:1"))
    assert lines[-1].startswith("--scheduler tcp://127.0.0.1:1: no Dask scheduler answers there (")
    assert lines[-1].endswith(
        "start one with `dask scheduler`, and give its address as tcp://HOST:8786 (docs/sweeps.md)"
    )
