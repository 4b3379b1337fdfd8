"""The `hvnet` command: a thin face over the model and the engine."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from hvnet._version import __version__
from hvnet.compare import comparison_document, comparison_tables, run_comparison
from hvnet.demo import LEFT_OUT, REPORT, is_hvnet_page, run_demo
from hvnet.errors import HvnetError, UnitError
from hvnet.failure_costs import DEFAULT_LIMIT as DEFAULT_COSTED
from hvnet.model import Scenario, load_scenario, parse_scenario, scenario_json_schema
from hvnet.results import Results
from hvnet.simulate import simulate as run_simulation
from hvnet.sweep import DEFAULT_WORKERS, run_sweep, summary_table, write_parquet
from hvnet.tables import results_tables
from hvnet.units import parse_bytes, parse_duration, parse_option
from hvnet.variants import load_variants

app = typer.Typer(
    name="hvnet",
    help="A digital twin of a Hyper-V cluster's network.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain help, as click writes it: rich's help boxes label every flag and --help itself
    # "<bool>", which reads as if a flag took a value.
    rich_markup_mode=None,
)
topology_app = typer.Typer(
    help="Print a generated scenario (YAML) for a common fabric.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(topology_app, name="topology")


def _out() -> Console:
    """Standard output, made per use: width and colour follow this run's environment and stream. No emoji
    codes: a name or a message holding `:100:` is printed as written."""
    return Console(emoji=False)


def _err() -> Console:
    """Standard error; a message is never wrapped, so each problem stays one line, and never rewritten:
    no emoji codes (`case.yaml:100: ...` once printed as `case.yaml💯 ...`)."""
    return Console(stderr=True, soft_wrap=True, emoji=False)


F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def _user_errors() -> Iterator[None]:
    """Bad input ends the command with its message and exit code 2, never a traceback."""
    try:
        yield
    except HvnetError as e:
        _err().print(str(e), style="red", highlight=False, markup=False)
        raise typer.Exit(2) from None
    except OSError as e:
        _err().print(f"{e.filename or ''}: {e.strerror or e}", style="red", highlight=False, markup=False)
        raise typer.Exit(2) from None


def _refuse_to_overwrite(path: Path, force: bool) -> None:
    """Ends the command (exit 2) if `path` exists, unless `force`."""
    if path.exists() and not force:
        _err().print(
            f"{path}: exists; not overwritten (use --force to replace it)", style="red", highlight=False, markup=False
        )
        raise typer.Exit(2)


def _write_json(path: Path, document: object, force: bool) -> None:
    """Writes JSON to `path` (`-`: standard output); never overwrites unless `force`."""
    text = json.dumps(document, indent=2) + "\n"
    if str(path) == "-":
        sys.stdout.write(text)
        return
    _refuse_to_overwrite(path, force)
    with _user_errors():
        path.write_text(text)


JsonOut = Annotated[Path | None, typer.Option("--json", help="Write results as JSON to this file ('-': stdout).")]
Force = Annotated[bool, typer.Option("--force", "-f", help="Overwrite an existing output file.")]
Prices = Annotated[
    Path | None,
    typer.Option("--prices", help="Your price list (YAML) for each design's cost; default: dated example prices (docs/cost.md)."),
]
#: The results hold exact change points; only a report bins them, and this is its finest bin.
Resolution = Annotated[
    str | None,
    typer.Option(
        "--resolution",
        "--step",
        help="Finest bin of the report's charts, e.g. 1s, 250ms (default: 1 s, widened to fit a chart). "
        "JSON and tables are exact; --step is an alias.",
    ),
]


@app.command()
def demo(
    report: Annotated[Path, typer.Option("--report", help="Where to write the demo's HTML report.")] = REPORT,
    prices: Prices = None,
    force: Force = False,
) -> None:
    """Drain the built-in two-node cluster over each transport and three team designs; compare, write a report.

    A report hvnet wrote before (a previous demo's) is replaced; any other file is kept unless --force."""
    from hvnet.report import write_comparison

    if not is_hvnet_page(report):
        _refuse_to_overwrite(report, force)
    with _user_errors():
        runs = run_demo(prices=prices)
        write_comparison(runs, report)
    for table in comparison_tables(runs):
        _out().print(table)
    _out().print(LEFT_OUT, highlight=False, markup=False)
    _out().print(f"report written to {report.resolve()}", highlight=False, markup=False)


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
            "of its range, one at a time (docs/model.md, \"Uncertainty\"; some 48 more runs).",
        ),
    ] = False,
    failure_costs: Annotated[
        int,
        typer.Option(
            "--failure-costs",
            min=0,
            help="Cost this many of the scenario's failures, the first in time: each simulated again without it "
            "(one more run each; 0: none).",
        ),
    ] = DEFAULT_COSTED,
    force: Force = False,
) -> None:
    """Simulate a scenario; print a table, and optionally write JSON and an HTML report."""
    from hvnet.report import write_report

    if report is not None:
        _refuse_to_overwrite(report, force)
    with _user_errors():
        resolution_s = _resolution_s(resolution)
        scenario = load_scenario(file)
        if scenario.had_variants:
            _err().print(
                f"{file}: its variants: are not simulated here; this is its base design "
                f"(hvnet compare {file} runs every variant)",
                style="yellow",
                highlight=False,
                markup=False,
            )
        results = run_simulation(scenario, filename=str(file))
        if results.failures and failure_costs:
            results = _with_costs(results, scenario, str(file), failure_costs)
        if uncertainty:
            results = _with_bands(results, scenario, str(file))
    if json_out is not None:
        _write_json(json_out, results.model_dump(mode="json"), force)
    if report is not None:
        with _user_errors():
            write_report(results, scenario, report, resolution_s)
    json_on_stdout = json_out is not None and str(json_out) == "-"
    if not json_on_stdout:
        for table in results_tables(results):
            _out().print(table)
    if report is not None:  # with `--json -`, standard output holds only the JSON document
        (_err() if json_on_stdout else _out()).print(f"report written to {report}", highlight=False, markup=False)


def _with_costs(results: Results, scenario: Scenario, filename: str, limit: int) -> Results:
    """`results` with what each failure cost (`hvnet.failure_costs`), a progress bar on standard error."""
    from hvnet.failure_costs import runs_needed, with_costs

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, TimeRemainingColumn(), console=_err(), transient=True) as progress:
        task = progress.add_task("failure costs", total=runs_needed(results, limit))
        return with_costs(scenario, results, filename, limit, step=lambda: progress.advance(task))


def _with_bands(results: Results, scenario: Scenario, filename: str) -> Results:
    """`results` with each headline figure's band (`hvnet.uncertainty`), a progress bar on standard error."""
    from hvnet.uncertainty import bands, runs_needed

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, TimeRemainingColumn(), console=_err(), transient=True) as progress:
        task = progress.add_task("uncertainty", total=runs_needed())
        found = bands(scenario, results, filename=filename, step=lambda: progress.advance(task))
    return results.model_copy(update={"uncertainty": found})


def _resolution_s(resolution: str | None) -> float | None:
    """`--resolution` in seconds (None: not given); UnitError unless it is a duration longer than 0 s."""
    if resolution is None:
        return None
    resolution_s = parse_duration(resolution)
    if resolution_s <= 0:
        raise UnitError(
            f"--resolution {resolution!r}: the charts' resolution must be longer than 0 s (e.g. 1s, 250ms)"
        )
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
    from hvnet.report import write_comparison

    for path in (report, json_out):
        if path is not None and str(path) != "-":
            _refuse_to_overwrite(path, force)
    with _user_errors():
        resolution_s = _resolution_s(resolution)
        runs = run_comparison(files, prices=prices)
    if json_out is not None:
        _write_json(json_out, comparison_document(runs), force)
    if report is not None:
        with _user_errors():
            write_comparison(runs, report, resolution_s)
    json_on_stdout = json_out is not None and str(json_out) == "-"
    if not json_on_stdout:
        for table in comparison_tables(runs):
            _out().print(table)
    if report is not None:
        (_err() if json_on_stdout else _out()).print(f"report written to {report}", highlight=False, markup=False)


@app.command()
def sweep(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML) with variants:.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Parquet file: one row per variant and metric.")],
    scheduler: Annotated[
        str | None,
        typer.Option(help="Address of a running Dask scheduler, e.g. tcp://scheduler.example:8786 (default: a local cluster)."),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(min=1, help=f"Worker processes of the local cluster (default: {DEFAULT_WORKERS}).")
    ] = None,
    force: Force = False,
) -> None:
    """Simulate every variant of a file on Dask; write the metrics to Parquet, print the best (docs/sweeps.md)."""
    _refuse_to_overwrite(out, force)
    if scheduler is not None and workers is not None:
        message = "--workers sizes the local cluster; with --scheduler, the workers of that cluster run the sweep"
        _err().print(message, style="red", highlight=False, markup=False)
        raise typer.Exit(2)
    with _user_errors():
        variants = load_variants(file)
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, TimeRemainingColumn(), console=_err()) as progress:
            task = progress.add_task("simulating", total=len(variants))
            result = run_sweep(
                variants,
                scheduler=scheduler,
                workers=workers or DEFAULT_WORKERS,
                on_done=lambda: progress.advance(task),
            )
        rows = write_parquet(result, out)
    _out().print(summary_table(result))
    _out().print(
        f"{_count(len(result.metrics), 'variant')} on {_count(result.workers, 'Dask worker')} in {result.wall_s:.1f} s; "
        f"{rows} rows written to {out}",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files."""
    sys.stdout.write(json.dumps(scenario_json_schema(), indent=2) + "\n")


@app.command()
def flows(
    scenario_file: Annotated[Path, typer.Argument(help="Scenario file (YAML) that names the hosts.")],
    flows_csv: Annotated[Path, typer.Argument(help="Traffic matrix: CSV with columns src,dst,bytes,start_s.")],
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
    """Run a traffic matrix; report each row's completion time."""
    from hvnet.flows import read_flows, run_flows

    with _user_errors():
        scenario = load_scenario(scenario_file)
        result = run_flows(scenario, read_flows(flows_csv, scenario), flows_csv, links_only=links_only)
    if json_out is not None:
        _write_json(json_out, result.to_json(), force)
    if json_out is None or str(json_out) != "-":  # with `--json -`, standard output holds only the JSON
        done = [e for e in result.end_s if e is not None]
        _out().print(
            f"{_count(len(result.end_s), 'flow')}, {len(done)} completed, last at "
            f"{max(done, default=0.0):.3f} s; engine {result.wall_s:.3f} s"
        )


@topology_app.command("star")
def topology_star(
    hosts: Annotated[int, typer.Option(min=1, help="Number of hosts.")],
    nic: Annotated[str, typer.Option(help="NIC speed, e.g. 10Gbps.")] = "10Gbps",
) -> None:
    """N hosts, one NIC each, cabled to one non-blocking switch."""
    from hvnet.topology import star

    with _user_errors():
        text = star(hosts, nic)
        parse_scenario(text, "<star>")
    sys.stdout.write(text)


@topology_app.command("leaf-spine")
def topology_leaf_spine(
    hosts: Annotated[int, typer.Option(min=1, help="Number of hosts.")],
    nic: Annotated[str, typer.Option(help="NIC speed, e.g. 25Gbps.")] = "10Gbps",
    leaves: Annotated[int, typer.Option(min=1, help="Number of leaf switches.")] = 2,
    spines: Annotated[int, typer.Option(min=1, help="Number of spine switches.")] = 2,
    uplink: Annotated[str, typer.Option(help="Leaf-to-spine cable speed.")] = "40Gbps",
) -> None:
    """Hosts spread over leaf switches; every leaf cabled to every spine."""
    from hvnet.topology import leaf_spine

    with _user_errors():
        text = leaf_spine(hosts, nic, leaves, spines, uplink)
        parse_scenario(text, "<leaf-spine>")
    sys.stdout.write(text)


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
    from hvnet.ntttcp import format_ntttcp, run_ntttcp

    with _user_errors():
        scenario = load_scenario(scenario_file)
        seconds, buffer_bytes = parse_option("--time", time, parse_duration), parse_option("--buffer", buffer, parse_bytes)
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
        _write_json(json_out, document, force)
    if json_out is None or str(json_out) != "-":
        sys.stdout.write(format_ntttcp(result))


@app.command()
def validate(
    json_out: JsonOut = None,
    markdown: Annotated[
        Path | None,
        typer.Option("--markdown", help="Write the comparison as Markdown (e.g. docs/validation.md)."),
    ] = None,
    force: Force = False,
) -> None:
    """Compare hvnet's predictions with public measurements: the calibration figures, and the checks."""
    from hvnet.validate import run_validation, validation_markdown

    with _user_errors():
        checks = run_validation()
    table = Table(title="hvnet beside public measurements", title_justify="left")
    table.caption = "role: calibration = a parameter was fitted on it; check = predicted, not fitted"
    for column in ("id", "role", "figure", "reported", "predicted", "error", "explained"):
        table.add_column(column, justify="right" if column in ("reported", "predicted", "error") else "left")
    for c in checks:
        error = "" if c.error_pct is None else f"{c.error_pct:+.1f} %"
        explained = "yes" if c.explained else "[red]no[/]"
        table.add_row(c.id, c.role, c.figure, str(c.reported), str(c.predicted), error, explained)
    # With `--json -`, standard output holds only the JSON document.
    if json_out is None or str(json_out) != "-":
        _out().print(table)
        for c in checks:
            if c.note:
                _out().print(f"{c.id}: {c.note}.", highlight=False, markup=False)
    if json_out is not None:
        _write_json(json_out, [c.to_json() for c in checks], force)
    if markdown is not None:
        generated = markdown.exists() and markdown.read_text().startswith("# Validation: hvnet beside")
        _refuse_to_overwrite(markdown, force or generated)
        with _user_errors():
            markdown.write_text(validation_markdown(checks))
        _err().print(f"wrote {markdown}", highlight=False)


# --- hvnet import: files from real systems, normalised (docs/import.md) -------------

import_app = typer.Typer(
    help="Read files from real systems and tools into hvnet's records.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(import_app, name="import")


@import_app.command("measurement")
def import_measurement(
    files: Annotated[list[Path], typer.Argument(help="Measurement files: NTttcp, iperf3 -J, PDH-CSV, sar/sadf, ip, /proc/net/dev.")],
    json_out: JsonOut = None,
    force: Force = False,
) -> None:
    """Detect each file's format and normalise it: throughput, threads, CPU, retransmits, counter series."""
    from hvnet.importers import measurement_document, read_measurement
    from hvnet.importers.show import measurement_table

    if json_out is not None and str(json_out) != "-":
        _refuse_to_overwrite(json_out, force)
    with _user_errors():
        records = [record for path in files for record in read_measurement(path)]
    if json_out is not None:
        _write_json(json_out, measurement_document(records), force)
    if json_out is None or str(json_out) != "-":
        for record in records:
            _out().print(measurement_table(record))


@import_app.command("collect-script")
def import_collect_script(
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the script to this file (default: standard output).")] = None,
    force: Force = False,
) -> None:
    """Print the PowerShell script to run on each Hyper-V host: it writes HOSTNAME.json for `hvnet import config`."""
    from hvnet.importers.config import collect_script

    if out is None:
        sys.stdout.write(collect_script())
        return
    _refuse_to_overwrite(out, force)
    with _user_errors():
        out.write_text(collect_script(), encoding="utf-8")
    _err().print(f"wrote {out}; run it on each host: powershell -ExecutionPolicy Bypass -File {out.name}", highlight=False)


@import_app.command("config")
def import_config_command(
    dumps: Annotated[list[Path], typer.Argument(help="One JSON dump per host, as the collection script writes them.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Write the scenario to this file (default: standard output).")] = None,
    force: Force = False,
) -> None:
    """Turn hosts' configuration dumps into one scenario; what the dumps cannot tell is marked ASSUMED and listed."""
    from hvnet.importers.config import import_config

    if out is not None:
        _refuse_to_overwrite(out, force)
    with _user_errors():
        imported = import_config(dumps)
        if out is None:
            sys.stdout.write(imported.yaml)
        else:
            out.write_text(imported.yaml, encoding="utf-8")
    err = _err()
    for assumption in imported.assumptions:
        err.print(f"assumed: {assumption}", style="yellow", highlight=False, markup=False)
    for problem in imported.problems:
        err.print(f"problem: {problem}", style="red", highlight=False, markup=False)
    if out is not None:
        err.print(f"wrote {out}: {len(imported.assumptions)} assumptions to check (marked ASSUMED in it)", highlight=False)
    if imported.problems:
        raise typer.Exit(1)


@app.command()
def explain(
    scenario_file: Annotated[Path, typer.Argument(help="Scenario file (YAML) of the cluster the measurement was taken on.")],
    measurements: Annotated[list[Path], typer.Argument(help="NTttcp or iperf3 -J output, counter logs (PDH-CSV, sar, sadf).")],
    sender: Annotated[str | None, typer.Option("--from", help="Host or VM that sent (when the file cannot tell).")] = None,
    receiver: Annotated[str | None, typer.Option("--to", help="Host or VM that received (when the file cannot tell).")] = None,
    json_out: JsonOut = None,
    report: Annotated[Path | None, typer.Option("--report", help="Write measured beside predicted, a chart per NIC, as HTML.")] = None,
    force: Force = False,
) -> None:
    """Re-create a measured test on the twin, compare, and rank single changes that would explain a gap (docs/import.md)."""
    from hvnet.explain import explain as run_explain
    from hvnet.explain import explanation_document
    from hvnet.explain.show import counter_table, figure_table, ranking_table
    from hvnet.importers import read_measurement

    for path in (json_out, report):
        if path is not None and str(path) != "-":
            _refuse_to_overwrite(path, force)
    with _user_errors():
        scenario = load_scenario(scenario_file)
        records = [record for path in measurements for record in read_measurement(path)]
        explanation = run_explain(scenario, records, sender, receiver)
    if json_out is not None:
        _write_json(json_out, explanation_document(explanation), force)
    if report is not None:
        from hvnet.explain.report import write_explain_report

        with _user_errors():
            write_explain_report(explanation, report)
        _err().print(f"report written to {report}", highlight=False, markup=False)
    if json_out is not None and str(json_out) == "-":
        return
    out = _out()
    for result in explanation.tests:
        out.print(figure_table(result))
        if result.format.startswith("ntttcp-windows"):
            measured, predicted = (f / 8 / 2**20 for f in (result.throughput.measured, result.throughput.predicted))
            out.print(f"in NTttcp's MB/s (2^20 bytes/s): measured {measured:.3f}, predicted {predicted:.3f}", highlight=False)
        out.print(f"model's band: {result.band.rule}", highlight=False, markup=False, soft_wrap=True)
        if result.counterfactuals:
            out.print(ranking_table(result))
        out.print(result.verdict, highlight=False, markup=False, soft_wrap=True)
    for comparison in explanation.counters:
        out.print(counter_table(comparison))


@app.command()
def advise(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML).")],
    json_out: JsonOut = None,
    no_effects: Annotated[
        bool, typer.Option("--no-effects", help="Do not simulate each fix to state its effect (faster).")
    ] = False,
    force: Force = False,
) -> None:
    """Check a design against Microsoft's documentation and practice: each finding with its evidence, fix and source (docs/advise.md).

    Exit code 1 when a finding is an error (the design will not work or is unsupported)."""
    from hvnet.advise import advise as advise_design
    from hvnet.advise import findings_document, findings_table

    if json_out is not None and str(json_out) != "-":
        _refuse_to_overwrite(json_out, force)
    with _user_errors():
        findings = advise_design(load_scenario(file), simulate_effects=not no_effects)
    if json_out is not None:
        _write_json(json_out, findings_document(findings), force)
    if json_out is None or str(json_out) != "-":
        if findings:
            _out().print(findings_table(findings))
        else:
            _out().print("no findings: the design follows every rule hvnet checks (docs/advise.md)", highlight=False)
    if any(f.severity == "error" for f in findings):
        raise typer.Exit(1)


@app.command()
def cost(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML).")],
    prices: Prices = None,
    json_out: JsonOut = None,
    force: Force = False,
) -> None:
    """The design's bill of materials (switch ports, NIC cards, DACs and optics, cables), priced (docs/cost.md)."""
    from hvnet.cost import bill_document, bill_table, design_cost

    if json_out is not None and str(json_out) != "-":
        _refuse_to_overwrite(json_out, force)
    with _user_errors():
        priced = design_cost(load_scenario(file), prices)
    if json_out is not None:
        _write_json(json_out, bill_document(priced), force)
    if json_out is None or str(json_out) != "-":
        _out().print(bill_table(priced))


@app.command()
def check(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML) with requirements:.")],
    json_out: JsonOut = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", min=1, help="At most this many failures of each kind survive names, spread evenly (default: all)."),
    ] = None,
    force: Force = False,
) -> None:
    """Evaluate the scenario's requirements: the rolling update, each host's drain, blackouts, NIC utilisation,
    and every single failure of the kinds it must survive (docs/check.md).

    Exit code 1 when a requirement fails, 2 on bad input."""
    from hvnet.check import NOTHING_TO_CHECK, check_document, check_table, simulations_needed
    from hvnet.check import check as check_requirements

    if json_out is not None and str(json_out) != "-":
        _refuse_to_overwrite(json_out, force)
    with _user_errors():
        scenario = load_scenario(file)
        total = simulations_needed(scenario, limit)
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, TimeRemainingColumn(), console=_err(), transient=True, disable=total < 50) as progress:
            task = progress.add_task("simulating", total=total)
            result = check_requirements(scenario, lambda done, _: progress.update(task, completed=done), limit)
    if json_out is not None:
        _write_json(json_out, check_document(result), force)
    if json_out is None or str(json_out) != "-":
        if not result.checked:
            _out().print(NOTHING_TO_CHECK, highlight=False, markup=False, soft_wrap=True)
            return
        _out().print(check_table(result))
        verdict = "every requirement is met" if result.passed else "a requirement fails"
        _out().print(
            f"{verdict}; {_count(result.simulations, 'simulation')} in {result.wall_s:.1f} s", highlight=False, markup=False
        )
    if not result.passed:
        raise typer.Exit(1)


@app.command()
def design(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML) with requirements:.")],
    candidates: Annotated[
        Path | None, typer.Option("--candidates", help="Your candidate designs (YAML) instead of the default list (docs/advise.md).")
    ] = None,
    prices: Prices = None,
    json_out: JsonOut = None,
    force: Force = False,
) -> None:
    """The cheapest candidate design that meets the scenario's requirements, and why (docs/advise.md).

    Exit code 1 when no candidate meets them, 2 on bad input."""
    from hvnet.candidates import DEFAULT_CANDIDATES, load_candidates, not_tried, search, search_document, search_table

    if json_out is not None and str(json_out) != "-":
        _refuse_to_overwrite(json_out, force)
    with _user_errors():
        scenario = load_scenario(file)
        tried = DEFAULT_CANDIDATES if candidates is None else load_candidates(candidates)
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=_err(), transient=True) as bar:
            task = bar.add_task("candidates", total=len(tried))
            result = search(scenario, tried, None if prices is None else str(prices), progress=lambda done, _: bar.update(task, completed=done))
    if json_out is not None:
        _write_json(json_out, search_document(result), force)
    if json_out is None or str(json_out) != "-":
        _out().print(search_table(result))
        for line in not_tried(result):
            _out().print(line, highlight=False, markup=False, soft_wrap=True)
        _out().print()
        _out().print(result.reasoning(), highlight=False, markup=False)
    if result.best is None:
        raise typer.Exit(1)


def _count(n: int, noun: str) -> str:
    """`1 variant`, `12 variants`."""
    return f"{n} {noun}{'s' * (n != 1)}"


def _version_callback(value: bool) -> None:
    if value:
        _out().print(f"hvnet {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """A digital twin of a Hyper-V cluster's network."""


def main() -> None:
    app()
