"""`hvnet sweep`: every variant of a file simulated on a Dask cluster, the metrics to Parquet.

    variants = load_variants("cluster.yaml")
    sweep = run_sweep(variants, workers=2)                       # a local cluster
    sweep = run_sweep(variants, scheduler="tcp://sched:8786")    # an existing one
    write_parquet(sweep, "results.parquet")

The base design and the axes go to the workers once (``Client.scatter``);
each task builds one variant from them, validates and simulates it, and
returns its ``Metrics`` or its problems. Tasks run in any order and on any
worker; results are put back in variant order. The local cluster is one
process per worker with one thread each (the engine holds the GIL while it
runs), started and shut down by ``run_sweep``. A remote cluster's workers
need hvnet installed, the same version (docs/sweeps.md).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from rich.table import Table

from hvnet._version import __version__
from hvnet.compare import format_metric
from hvnet.errors import HvnetError, Problem, ScenarioError
from hvnet.tables.fit import FittedTable
from hvnet.variants import METRICS, Metrics, Variant, Variants, best, show_axis_value
from hvnet.words import counted

__all__ = ["DEFAULT_WORKERS", "Sweep", "run_sweep", "summary_table", "sweep_rows", "write_parquet"]

#: Workers of the local cluster: one process each, one thread each.
DEFAULT_WORKERS = 2

#: How long to wait for a remote scheduler to answer, and for its first worker.
CONNECT_TIMEOUT_S = 10


@dataclass(frozen=True)
class Sweep:
    """What a sweep produced: the metrics of every variant, in variant order."""

    variants: Variants
    metrics: tuple[Metrics, ...]
    #: Workers the cluster had when the sweep started, and the sweep's wall-clock time.
    workers: int
    wall_s: float


def _simulate_one(variants: Variants, variant: Variant) -> Metrics | tuple[Problem, ...]:
    """One task, run on a worker: a variant's metrics, or its problems (plain data, so they pickle)."""
    try:
        return Metrics.of(variants.simulate(variant))
    except ScenarioError as error:
        return error.problems


def run_sweep(
    variants: Variants,
    *,
    scheduler: str | None = None,
    workers: int = DEFAULT_WORKERS,
    on_done: Callable[[], None] | None = None,
) -> Sweep:
    """Simulates every variant on Dask: a local cluster of `workers` processes, or the cluster whose
    scheduler is at `scheduler` (``tcp://host:8786``). `on_done` is called as each variant completes.

    ScenarioError lists the problems of every variant that could not run; HvnetError says why a
    cluster could not be reached or a worker failed."""
    from distributed import Client, LocalCluster, as_completed  # slow to import: only when a sweep runs

    started = time.perf_counter()
    with ExitStack() as stack:
        if scheduler is None:
            cluster = LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
            )
            stack.enter_context(cluster)
            client = stack.enter_context(Client(cluster))  # type: ignore[no-untyped-call]
        else:
            client = stack.enter_context(_connect(scheduler))
        count = len(client.scheduler_info()["workers"])
        [design] = client.scatter([variants], broadcast=True, hash=False)
        futures = {client.submit(_simulate_one, design, variant, pure=False): variant.index for variant in variants}
        outcomes: dict[int, Metrics | tuple[Problem, ...]] = {}
        for future in as_completed(futures):  # type: ignore[no-untyped-call]
            index = futures[future]
            try:
                outcomes[index] = future.result()
            except Exception as error:  # raised on a worker: hvnet missing there, a version mismatch, a bug
                why = f"{type(error).__name__}: {error}"
                raise HvnetError(f"a Dask worker failed on variant {index + 1}: {why}") from None
            if on_done is not None:
                on_done()
    problems = [p for outcome in outcomes.values() if isinstance(outcome, tuple) for p in outcome]
    if problems:
        raise ScenarioError(dict.fromkeys(problems))
    metrics = tuple(outcome for _, outcome in sorted(outcomes.items()) if isinstance(outcome, Metrics))
    return Sweep(variants, metrics, count, time.perf_counter() - started)


def _connect(address: str) -> Any:
    """A client of the scheduler at `address` that has at least one worker, or HvnetError."""
    from distributed import Client

    try:
        connected = Client(address, timeout=CONNECT_TIMEOUT_S)  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as error:
        raise HvnetError(
            f"--scheduler {address}: no Dask scheduler answers there ({error}); start one with "
            "`dask scheduler`, and give its address as tcp://HOST:8786 (docs/sweeps.md)"
        ) from None
    try:
        connected.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError) as error:
        connected.close()  # type: ignore[no-untyped-call]
        raise HvnetError(
            f"--scheduler {address}: the scheduler has no workers ({error}); start some with "
            f"`dask worker {address}` on machines with hvnet installed (docs/sweeps.md)"
        ) from None
    return connected


# --- Parquet and the summary -----------------------------------------------------------------


def sweep_rows(sweep: Sweep) -> dict[str, list[Any]]:
    """The long table: one row per variant and metric; columns variant, one per axis, metric, value."""
    columns: dict[str, list[Any]] = {"variant": []}
    columns.update({axis.name: [] for axis in sweep.variants.axes})
    columns.update({"metric": [], "value": []})
    for variant, metrics in zip(sweep.variants, sweep.metrics):
        for metric in METRICS:
            columns["variant"].append(variant.name)
            for axis, value in zip(sweep.variants.axes, variant.values):
                columns[axis.name].append(value)
            columns["metric"].append(metric.name)
            value = getattr(metrics, metric.name)
            columns["value"].append(None if value is None else float(value))
    return columns


def _axis_type(values: list[Any]) -> tuple[Any, list[Any]]:
    """The Arrow type of an axis's column, and its values in that type (text if they are mixed)."""
    import pyarrow as pa  # type: ignore[import-untyped]

    kinds = {type(v) for v in values}
    if kinds <= {bool}:
        return pa.bool_(), values
    if kinds <= {int}:
        return pa.int64(), values
    if kinds <= {int, float}:
        return pa.float64(), [float(v) for v in values]
    return pa.string(), [show_axis_value(v) for v in values]


def write_parquet(sweep: Sweep, path: str | os.PathLike[str]) -> int:
    """Writes the long table to `path` (replacing the file if there is one); returns its rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    columns = sweep_rows(sweep)
    arrays = {}
    for name, values in columns.items():
        if name in ("variant", "metric"):
            arrays[name] = pa.array(values, pa.string())
        elif name == "value":
            arrays[name] = pa.array(values, pa.float64())
        else:
            kind, typed = _axis_type(values)
            arrays[name] = pa.array(typed, kind)
    axes = [{"name": a.name, "set": a.path, "values": list(a.values)} for a in sweep.variants.axes]
    metadata = {"hvnet": __version__, "file": sweep.variants.filename, "axes": json.dumps(axes)}
    table = pa.table(arrays, metadata=metadata)
    pq.write_table(table, os.fspath(path))
    return int(table.num_rows)


def summary_table(sweep: Sweep) -> Table:
    """The best variant of each metric (the first, and how many share its value)."""
    marked = best(sweep.metrics)
    names = [variant.name for variant in sweep.variants]
    count = len(sweep.metrics)
    table = FittedTable(title=f"best of {counted(count, 'variant')}", title_justify="left")
    for column in ("metric", "best", "variant"):
        table.add_column(column, justify="right" if column == "best" else "left", no_wrap=column == "best")
    for metric in METRICS:
        winners = marked[metric.name]
        if not winners:
            value = getattr(sweep.metrics[0], metric.name) if sweep.metrics else None
            table.add_row(metric.heading, format_metric(metric, value), "all variants agree")
            continue
        first = min(winners)
        more = f" (and {len(winners) - 1} more)" if len(winners) > 1 else ""
        value = format_metric(metric, getattr(sweep.metrics[first], metric.name))
        table.add_row(metric.heading, value, names[first] + more)
    return table
