"""The commands that run the simulator: demo, simulate, compare, sweep, flows, ntttcp, validate and
schema (the topology generators are in `cli.topology`)."""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from hvnet.cli.app import (
    Force,
    JsonOut,
    Prices,
    Resolution,
    app,
    console,
    error_console,
    json_to_stdout,
    refuse_to_overwrite,
    user_errors,
    write_json,
)
from hvnet.words import counted

if TYPE_CHECKING:
    from hvnet.model import Scenario
    from hvnet.results import Results

__all__ = ["compare", "demo", "flows", "ntttcp", "schema", "simulate", "sweep", "validate"]


@app.command()
def demo(
    report: Annotated[
        Path | None, typer.Option("--report", help="Where to write the demo's HTML report (default: hvnet-demo.html).")
    ] = None,
    prices: Prices = None,
    force: Force = False,
) -> None:
    """Drain the built-in two-node cluster over each transport and three team designs; compare, write a report.

    A report hvnet wrote before (a previous demo's) is replaced; any other file is kept unless --force."""
    from hvnet.compare import comparison_tables
    from hvnet.demo import LEFT_OUT, REPORT, is_hvnet_page, run_demo
    from hvnet.report import write_comparison

    report = report or REPORT
    if not is_hvnet_page(report):
        refuse_to_overwrite(report, force=force)
    with user_errors():
        runs = run_demo(prices=prices)
        write_comparison(runs, report)
    for table in comparison_tables(runs):
        console().print(table)
    console().print(LEFT_OUT, highlight=False, markup=False)
    console().print(f"report written to {report.resolve()}", highlight=False, markup=False, soft_wrap=True)


@app.command()
def simulate(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML).")],
    json_out: JsonOut = None,
    resolution: Resolution = None,
    report: Annotated[
        Path | None, typer.Option("--report", help="Write a self-contained HTML report to this file.")
    ] = None,
    uncertainty: Annotated[
        bool,
        typer.Option(
            "--uncertainty",
            help="Also band each headline figure: simulated again with every unconfirmed parameter at either end "
            "of its range, one at a time (two runs a parameter), durations widened to the validation's "
            'leave-one-out residuals (docs/model.md, "Uncertainty").',
        ),
    ] = False,
    failure_costs: Annotated[
        int | None,
        typer.Option(
            "--failure-costs",
            min=0,
            help="Cost this many of the scenario's failures, the first in time: each simulated again without it "
            "(one more run each; 0: none; default: the first 16).",
        ),
    ] = None,
    force: Force = False,
) -> None:
    """Simulate a scenario; print a table, and optionally write JSON and an HTML report."""
    from hvnet.errors import ScenarioError
    from hvnet.failure_costs import DEFAULT_LIMIT
    from hvnet.model import load_scenario
    from hvnet.report import write_report
    from hvnet.simulation import nothing_to_simulate
    from hvnet.simulation import simulate as run_simulation
    from hvnet.tables import results_tables

    refuse_to_overwrite(report, json_out, force=force)  # before the run, not after it
    with user_errors():
        resolution_s = _resolution_s(resolution)
        scenario = load_scenario(file)
        idle = nothing_to_simulate(scenario, str(file))
        if idle is not None:  # bad input, as check without requirements is: one line, exit 2
            raise ScenarioError([idle])
        if scenario.had_variants:
            error_console().print(
                f"{file}: its variants: are not simulated here; this is its base design "
                f"(hvnet compare {file} runs every variant)",
                style="yellow",
                highlight=False,
                markup=False,
            )
        results = run_simulation(scenario, filename=str(file))
        limit = DEFAULT_LIMIT if failure_costs is None else failure_costs
        if results.failures and limit:
            results = _with_costs(results, scenario, str(file), limit)
        if uncertainty:
            results = _with_bands(results, scenario, str(file))
    if json_out is not None:
        write_json(json_out, results, force)
    if report is not None:
        with user_errors():
            write_report(results, scenario, report, resolution_s)
    json_on_stdout = json_to_stdout(json_out)
    if not json_on_stdout:
        for table in results_tables(results):
            console().print(table)
    if report is not None:  # with `--json -`, standard output holds only the JSON document
        (error_console() if json_on_stdout else console()).print(
            f"report written to {report}", highlight=False, markup=False, soft_wrap=True
        )


def _with_costs(results: Results, scenario: Scenario, filename: str, limit: int) -> Results:
    """`results` with what each failure cost (`hvnet.failure_costs`), a progress bar on standard error."""
    from hvnet.failure_costs import runs_needed, with_costs

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, TimeRemainingColumn(), console=error_console(), transient=True) as progress:
        task = progress.add_task("failure costs", total=runs_needed(results, limit))
        return with_costs(scenario, results, filename, limit, step=lambda: progress.advance(task))


def _with_bands(results: Results, scenario: Scenario, filename: str) -> Results:
    """`results` with each headline figure's band (`hvnet.uncertainty`), a progress bar on standard error."""
    from hvnet.uncertainty import bands, runs_needed

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, TimeRemainingColumn(), console=error_console(), transient=True) as progress:
        task = progress.add_task("uncertainty", total=runs_needed())
        found = bands(scenario, results, filename=filename, step=lambda: progress.advance(task))
    return results.model_copy(update={"uncertainty": found})


def _resolution_s(resolution: str | None) -> float | None:
    """`--resolution` in seconds (None: not given); UnitError unless it is a duration longer than 0 s."""
    from hvnet.errors import UnitError
    from hvnet.units import parse_duration

    if resolution is None:
        return None
    resolution_s = parse_duration(resolution)
    if resolution_s <= 0:
        raise UnitError(f"--resolution {resolution!r}: the charts' resolution must be longer than 0 s (e.g. 1s, 250ms)")
    return resolution_s


@app.command()
def compare(
    files: Annotated[
        list[Path], typer.Argument(help="Scenario files (YAML); a file with variants: counts as each of its variants.")
    ],
    json_out: JsonOut = None,
    resolution: Resolution = None,
    report: Annotated[
        Path | None, typer.Option("--report", help="Write the comparison as a self-contained HTML report.")
    ] = None,
    prices: Prices = None,
    force: Force = False,
) -> None:
    """Simulate every variant of every file; one table, the best of each metric marked (docs/sweeps.md)."""
    from hvnet.compare import comparison_document, comparison_tables, run_comparison
    from hvnet.report import write_comparison

    refuse_to_overwrite(report, json_out, force=force)
    with user_errors():
        resolution_s = _resolution_s(resolution)
        runs = run_comparison(files, prices=prices)
    if json_out is not None:
        write_json(json_out, comparison_document(runs), force)
    if report is not None:
        with user_errors():
            write_comparison(runs, report, resolution_s)
    json_on_stdout = json_to_stdout(json_out)
    if not json_on_stdout:
        for table in comparison_tables(runs):
            console().print(table)
    if report is not None:
        (error_console() if json_on_stdout else console()).print(
            f"report written to {report}", highlight=False, markup=False, soft_wrap=True
        )


@app.command()
def sweep(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML) with variants:.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Parquet file: one row per variant and metric.")],
    scheduler: Annotated[
        str | None,
        typer.Option(
            help="Address of a running Dask scheduler, e.g. tcp://scheduler.example:8786 (default: a local cluster)."
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help="Worker processes of the local cluster (default: 2).")
    ] = None,
    force: Force = False,
) -> None:
    """Simulate every variant of a file on Dask; write the metrics to Parquet, print the best (docs/sweeps.md)."""
    from hvnet.sweep import DEFAULT_WORKERS, run_sweep, summary_table, write_parquet
    from hvnet.variants import load_variants

    refuse_to_overwrite(out, force=force)
    if scheduler is not None and workers is not None:
        message = "--workers sizes the local cluster; with --scheduler, the workers of that cluster run the sweep"
        error_console().print(message, style="red", highlight=False, markup=False)
        raise typer.Exit(2)
    with user_errors():
        variants = load_variants(file)
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, TimeRemainingColumn(), console=error_console()) as progress:
            task = progress.add_task("simulating", total=len(variants))
            result = run_sweep(
                variants,
                scheduler=scheduler,
                workers=workers or DEFAULT_WORKERS,
                on_done=lambda: progress.advance(task),
            )
        rows = write_parquet(result, out)
    console().print(summary_table(result))
    console().print(
        f"{counted(len(result.metrics), 'variant')} on {counted(result.workers, 'Dask worker')} "
        f"in {result.wall_s:.1f} s; "
        f"{rows} rows written to {out}",
        highlight=False,
        markup=False,
        soft_wrap=True,  # a path stays whole, to copy
    )


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    from hvnet.model import scenario_json_schema

    sys.stdout.write(json.dumps(scenario_json_schema(), indent=2) + "\n")


@app.command()
def flows(
    scenario_file: Annotated[Path, typer.Argument(help="Scenario file (YAML) that names the hosts.")],
    flows_csv: Annotated[
        Path,
        typer.Argument(
            help="Traffic matrix: CSV with columns src,dst,bytes,start_s and optionally name; "
            "bytes as 5GB or a number of bytes, start_s as 250ms or a number of seconds."
        ),
    ],
    json_out: JsonOut = None,
    force: Force = False,
    links_only: Annotated[
        bool,
        typer.Option(
            "--links-only",
            help="Model the links alone at line rate (no frame overhead, no CPU): the pure max-min model.",
        ),
    ] = False,
) -> None:
    """Run a traffic matrix; print each row's ends, size, start, end and mean rate."""
    from hvnet.flows import flows_table, read_flows, run_flows, summary
    from hvnet.model import load_scenario

    refuse_to_overwrite(json_out, force=force)  # before the run, not after it
    with user_errors():
        scenario = load_scenario(scenario_file)
        result = run_flows(scenario, read_flows(flows_csv, scenario), flows_csv, links_only=links_only)
    if json_out is not None:
        write_json(json_out, result.to_json(), force)
    if not json_to_stdout(json_out):  # with `--json -`, standard output holds only the JSON
        console().print(flows_table(result, f"{scenario.name}: {flows_csv.name}"))
        console().print(summary(result), highlight=False, markup=False)


@app.command()
def ntttcp(
    scenario_file: Annotated[Path, typer.Argument(help="Scenario file (YAML) with the two endpoints.")],
    sender: Annotated[str, typer.Option("--sender", "-s", help="Host or VM that sends.")],
    receiver: Annotated[str, typer.Option("--receiver", "-r", help="Host or VM that receives.")],
    threads: Annotated[int, typer.Option("--threads", "-m", min=1, max=64, help="Threads (connections), as -m N.")] = 8,
    time: Annotated[str, typer.Option("--time", "-t", help="Test duration, as -t (e.g. 15s).")] = "15s",
    buffer: Annotated[str, typer.Option("--buffer", "-l", help="Buffer size, as -l (e.g. 128KiB).")] = "128KiB",
    json_out: JsonOut = None,
    force: Force = False,
) -> None:
    """Predict an `ntttcp -m N,*,ip -l 128k -t T` run, printed the way ntttcp prints it."""
    from hvnet.model import load_scenario
    from hvnet.ntttcp import format_ntttcp, run_ntttcp
    from hvnet.units import parse_bytes, parse_duration, parse_option

    with user_errors():
        scenario = load_scenario(scenario_file)
        seconds, buffer_bytes = (
            parse_option("--time", time, parse_duration),
            parse_option("--buffer", buffer, parse_bytes),
        )
        result = run_ntttcp(scenario, sender, receiver, threads, seconds, buffer_bytes)
    if json_out is not None:
        document = {
            "sender": result.sender,
            "receiver": result.receiver,
            "seconds": result.seconds,
            "thread_mb_per_s": result.thread_mb_per_s(),
            "total_mb_per_s": result.total_mb_per_s,
            "avg_frame_bytes": result.avg_frame_bytes,
            "cpu_percent": result.cpu_percent,
            "cycles_per_byte": result.cycles_per_byte,
        }
        write_json(json_out, document, force)
    if not json_to_stdout(json_out):
        sys.stdout.write(format_ntttcp(result))


@app.command()
def validate(
    json_out: JsonOut = None,
    markdown: Annotated[
        Path | None,
        typer.Option("--markdown", help="Write the comparison as Markdown (e.g. docs/validation.md)."),
    ] = None,
    loo: Annotated[
        bool,
        typer.Option(
            "--loo",
            help="Also fit the calibrated parameters on every figure and predict each figure without it "
            "(leave-one-out; several minutes).",
        ),
    ] = False,
    residuals_out: Annotated[
        Path | None,
        typer.Option(
            "--residuals",
            help="With --loo: write the leave-one-out residuals as JSON (python/hvnet/calibration/residuals.json "
            "is the file `simulate --uncertainty` reads).",
        ),
    ] = None,
    force: Force = False,
) -> None:
    """Compare hvnet's predictions with public measurements: the calibration figures, and the checks."""
    from rich.console import RenderableType

    from hvnet.tables.paragraph import Paragraph
    from hvnet.validate import run_validation, validation_markdown
    from hvnet.validate.fit import CrossValidation, cross_validate, residuals
    from hvnet.validate.show import fit_table, loo_table, validation_table

    if residuals_out is not None and not loo:
        message = "--residuals: the residuals come from the leave-one-out run; add --loo"
        error_console().print(message, style="red", highlight=False, markup=False)
        raise typer.Exit(2)
    if residuals_out is not None:
        refuse_to_overwrite(residuals_out, force=force)
    with user_errors():
        checks = run_validation()
    tables: list[RenderableType] = [validation_table(checks, role) for role in ("calibration", "check")]
    crossed: CrossValidation | None = None
    if loo:
        with Progress(
            TextColumn("leave-one-out"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            console=error_console(), transient=True,
        ) as bar:  # fmt: skip
            task = bar.add_task("figures", total=None)
            crossed = cross_validate(run_validation, lambda done, total: bar.update(task, completed=done, total=total))
        tables += [fit_table(crossed), loo_table(crossed)]
    # With `--json -`, standard output holds only the JSON document.
    if not json_to_stdout(json_out):
        for table in tables:
            console().print(table)
        for c in checks:
            if c.note:
                console().print(Paragraph(f"{c.id}: {c.note}."))
    if json_out is not None:
        left_out = {r.id: r for r in crossed.rows} if crossed is not None else {}
        document = [
            c.to_json()
            | (
                {"loo_predicted": left_out[c.id].loo_predicted, "loo_error_pct": left_out[c.id].loo_error_pct}
                if c.id in left_out
                else {}
            )
            for c in checks
        ]
        write_json(json_out, document, force)
    if residuals_out is not None and crossed is not None:
        made = f"{datetime.date.today().isoformat()}, hvnet validate --loo ({len(crossed.rows)} figures)"
        with user_errors():
            residuals_out.write_text(json.dumps(residuals(crossed.rows, made).to_json(), indent=1) + "\n")
        error_console().print(f"wrote {residuals_out}", highlight=False)
    if markdown is not None:
        generated = markdown.exists() and markdown.read_text().startswith("# Validation: hvnet beside")
        refuse_to_overwrite(markdown, force=force or generated)
        with user_errors():
            markdown.write_text(validation_markdown(checks, crossed))
        error_console().print(f"wrote {markdown}", highlight=False)
