"""The commands that answer about a design or a real cluster: import, explain, advise, cost,
check and design."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from hvnet.cli.app import (
    Force,
    JsonOut,
    Prices,
    app,
    console,
    error_console,
    import_app,
    json_to_stdout,
    option_value,
    refuse_to_overwrite,
    user_errors,
    write_json,
)
from hvnet.words import counted

__all__ = [
    "advise",
    "check",
    "cost",
    "design",
    "explain",
    "import_collect_script",
    "import_config_command",
    "import_measurement",
]


@import_app.command("measurement")
def import_measurement(
    files: Annotated[
        list[Path], typer.Argument(help="Measurement files: NTttcp, iperf3 -J, PDH-CSV, sar/sadf, ip, /proc/net/dev.")
    ],
    json_out: JsonOut = None,
    force: Force = False,
) -> None:
    """Detect each file's format and normalise it: throughput, threads, CPU, retransmits, counter series."""
    from hvnet.importers import measurement_document, read_measurement
    from hvnet.importers.show import measurement_table

    refuse_to_overwrite(json_out, force=force)
    with user_errors():
        records = [record for path in files for record in read_measurement(path)]
    if json_out is not None:
        write_json(json_out, measurement_document(records), force)
    if not json_to_stdout(json_out):
        for record in records:
            console().print(measurement_table(record))


@import_app.command("collect-script")
def import_collect_script(
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write the script to this file (default: standard output).")
    ] = None,
    force: Force = False,
) -> None:
    """Print the PowerShell script to run on each Hyper-V host: it writes HOSTNAME.json for `hvnet import config`."""
    from hvnet.importers.config import collect_script

    if out is None:
        sys.stdout.write(collect_script())
        return
    refuse_to_overwrite(out, force=force)
    with user_errors():
        out.write_text(collect_script(), encoding="utf-8")
    error_console().print(
        f"wrote {out}; run it on each host: powershell -ExecutionPolicy Bypass -File {out.name}", highlight=False
    )


@import_app.command("config")
def import_config_command(
    dumps: Annotated[list[Path], typer.Argument(help="One JSON dump per host, as the collection script writes them.")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write the scenario to this file (default: standard output).")
    ] = None,
    force: Force = False,
) -> None:
    """Turn hosts' configuration dumps into one scenario; what the dumps cannot tell is marked ASSUMED and listed."""
    from hvnet.importers.config import import_config

    if out is not None:
        refuse_to_overwrite(out, force=force)
    with user_errors():
        imported = import_config(dumps)
        if out is None:
            sys.stdout.write(imported.yaml)
        else:
            out.write_text(imported.yaml, encoding="utf-8")
    err = error_console()
    for assumption in imported.assumptions:
        err.print(f"assumed: {assumption}", style="yellow", highlight=False, markup=False)
    for problem in imported.problems:
        err.print(f"problem: {problem}", style="red", highlight=False, markup=False)
    if out is not None:
        err.print(
            f"wrote {out}: {len(imported.assumptions)} assumptions to check (marked ASSUMED in it)", highlight=False
        )
    if imported.problems:
        raise typer.Exit(1)


@import_app.command("demand")
def import_demand_command(
    logs: Annotated[
        list[Path],
        typer.Argument(
            help="Counter logs of the hosts: PDH-CSV (typeperf, relog), sar/sadf, recorded /proc/net/dev or "
            "ip -s -j link snapshots (docs/import.md)."
        ),
    ],
    scenario_file: Annotated[Path, typer.Option("--scenario", help="The scenario of the hosts that wrote the logs.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Write the scenario with the measured demand to this file.")],
    resolution: Annotated[
        str, typer.Option("--resolution", help="Merge the samples into bins this long (exact means).")
    ] = "60s",
    mapping: Annotated[
        list[str] | None,
        typer.Option("--map", help="INSTANCE=host/nic: the NIC a log's instance is, where names do not tell."),
    ] = None,
    force: Force = False,
) -> None:
    """Replay what the hosts' NICs carried: each NIC's bytes sent and received per second become the
    scenario's demand (docs/import.md, "Demand from counter logs")."""
    from hvnet.importers import read_measurement
    from hvnet.importers.demand import import_demand, with_demand
    from hvnet.importers.show import demand_table
    from hvnet.model import load_scenario, parse_scenario
    from hvnet.units import parse_duration

    refuse_to_overwrite(out, force=force)
    with user_errors():
        scenario = load_scenario(scenario_file)
        records = [record for path in logs for record in read_measurement(path)]
        resolution_s = option_value("--resolution", resolution, parse_duration)
        imported = import_demand(scenario, records, resolution_s, mapping or [])
        text = with_demand(scenario_file.read_text(encoding="utf-8"), str(scenario_file), imported)
        parse_scenario(text, str(out))  # what will be written loads, or nothing is written
        out.write_text(text, encoding="utf-8")
    console().print(demand_table(imported))
    err = error_console()
    for note in imported.notes:
        err.print(f"note: {note}", style="yellow", highlight=False, markup=False)
    err.print(f"wrote {out}: {scenario_file} with the measured demand of {len(imported.series)} NIC directions")


@app.command()
def explain(
    scenario_file: Annotated[
        Path, typer.Argument(help="Scenario file (YAML) of the cluster the measurement was taken on.")
    ],
    measurements: Annotated[
        list[Path], typer.Argument(help="NTttcp or iperf3 -J output, counter logs (PDH-CSV, sar, sadf).")
    ],
    sender: Annotated[
        str | None, typer.Option("--from", help="Host or VM that sent (when the file cannot tell).")
    ] = None,
    receiver: Annotated[
        str | None, typer.Option("--to", help="Host or VM that received (when the file cannot tell).")
    ] = None,
    json_out: JsonOut = None,
    report: Annotated[
        Path | None,
        typer.Option("--report", help="Write measured beside predicted and the bottleneck's use, as HTML."),
    ] = None,
    force: Force = False,
) -> None:
    """Re-create a measured test on the twin: what holds the prediction, how the measurement differs, and
    the changes (one, or two at once) that would explain a gap (docs/import.md)."""
    from hvnet.explain import explain as run_explain
    from hvnet.explain import explanation_document
    from hvnet.explain.show import print_explanation
    from hvnet.importers import read_measurement
    from hvnet.model import load_scenario

    refuse_to_overwrite(json_out, report, force=force)
    with user_errors():
        scenario = load_scenario(scenario_file)
        records = [record for path in measurements for record in read_measurement(path)]
        explanation = run_explain(scenario, records, sender, receiver)
    if json_out is not None:
        write_json(json_out, explanation_document(explanation), force)
    if report is not None:
        from hvnet.explain.report import write_explain_report

        with user_errors():
            write_explain_report(explanation, report)
        error_console().print(f"report written to {report}", highlight=False, markup=False)
    if not json_to_stdout(json_out):
        print_explanation(console(), explanation)


@app.command()
def advise(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML).")],
    json_out: JsonOut = None,
    no_effects: Annotated[
        bool, typer.Option("--no-effects", help="Do not simulate each fix to state its effect (faster).")
    ] = False,
    force: Force = False,
) -> None:
    """Check a design against Microsoft's documentation and practice: each finding with its evidence, fix and source
    (docs/advise.md).

    Exit code 1 when a finding is an error (the design will not work or is unsupported)."""
    from hvnet.advise import advise as advise_design
    from hvnet.advise import findings_document, findings_text
    from hvnet.model import load_scenario

    refuse_to_overwrite(json_out, force=force)
    with user_errors():
        findings = advise_design(load_scenario(file), simulate_effects=not no_effects)
    if json_out is not None:
        write_json(json_out, findings_document(findings), force)
    if not json_to_stdout(json_out):
        if findings:
            console().print(findings_text(findings))
        else:
            console().print("no findings: the design follows every rule hvnet checks (docs/advise.md)", highlight=False)
    if any(f.severity == "error" for f in findings):
        raise typer.Exit(1)


@app.command()
def cost(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML); with variants:, every variant is priced.")],
    prices: Prices = None,
    json_out: JsonOut = None,
    force: Force = False,
) -> None:
    """The design's bill of materials (switch ports, NIC cards, DACs and optics, cables), priced (docs/cost.md);
    a file's variants side by side."""
    from hvnet.cost import bill_document, bill_table, design_cost
    from hvnet.model import load_scenario

    refuse_to_overwrite(json_out, force=force)
    with user_errors():
        scenario = load_scenario(file)
        if scenario.had_variants:
            from hvnet.cost.variants import price_variants, variants_document, variants_table

            variants = price_variants(file, prices)
            if json_out is not None:
                write_json(json_out, variants_document(variants), force)
            if not json_to_stdout(json_out):
                console().print(variants_table(variants))
            return
        priced = design_cost(scenario, prices)
    if json_out is not None:
        write_json(json_out, bill_document(priced), force)
    if not json_to_stdout(json_out):
        console().print(bill_table(priced))


@app.command()
def check(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML) with requirements:.")],
    json_out: JsonOut = None,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit",
            min=1,
            help="At most this many failures of each kind survive names, spread evenly (default: all).",
        ),
    ] = None,
    force: Force = False,
) -> None:
    """Evaluate the scenario's requirements: the rolling update, each host's drain, blackouts, NIC utilisation,
    and every single failure of the kinds it must survive (docs/check.md).

    Exit code 1 when a requirement fails, 2 on bad input."""
    from hvnet.check import NOTHING_TO_CHECK, check_document, check_table, simulations_needed
    from hvnet.check import check as check_requirements
    from hvnet.model import load_scenario

    refuse_to_overwrite(json_out, force=force)
    with user_errors():
        scenario = load_scenario(file)
        total = simulations_needed(scenario, limit)
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(
            *columns, TimeRemainingColumn(), console=error_console(), transient=True, disable=total < 50
        ) as progress:
            task = progress.add_task("simulating", total=total)
            result = check_requirements(scenario, lambda done, _: progress.update(task, completed=done), limit)
    if not result.checked:  # bad input, as hvnet design has it: one line, exit 2, no document
        error_console().print(NOTHING_TO_CHECK, style="red", highlight=False, markup=False, soft_wrap=True)
        raise typer.Exit(2)
    if json_out is not None:
        write_json(json_out, check_document(result), force)
    if not json_to_stdout(json_out):
        console().print(check_table(result))
        verdict = "every requirement is met" if result.passed else "a requirement fails"
        console().print(
            f"{verdict}; {counted(result.simulations, 'simulation')} in {result.wall_s:.1f} s",
            highlight=False,
            markup=False,
        )
    if not result.passed:
        raise typer.Exit(1)


@app.command()
def design(
    file: Annotated[Path, typer.Argument(help="Scenario file (YAML) with requirements:.")],
    candidates: Annotated[
        Path | None,
        typer.Option(
            "--candidates", help="Your candidate designs (YAML) instead of the default list (docs/advise.md)."
        ),
    ] = None,
    prices: Prices = None,
    json_out: JsonOut = None,
    force: Force = False,
) -> None:
    """The cheapest candidate design that meets the scenario's requirements, and why (docs/advise.md).

    Exit code 1 when no candidate meets them, 2 on bad input."""
    from hvnet.candidates import DEFAULT_CANDIDATES, load_candidates, not_tried, search, search_document, search_table
    from hvnet.model import load_scenario
    from hvnet.tables.paragraph import Paragraph

    refuse_to_overwrite(json_out, force=force)
    with user_errors():
        scenario = load_scenario(file)
        tried = DEFAULT_CANDIDATES if candidates is None else load_candidates(candidates)
        with Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), console=error_console(), transient=True
        ) as bar:
            task = bar.add_task("candidates", total=len(tried))
            result = search(
                scenario,
                tried,
                None if prices is None else str(prices),
                progress=lambda done, _: bar.update(task, completed=done),
            )
    if json_out is not None:
        write_json(json_out, search_document(result), force)
    if not json_to_stdout(json_out):
        console().print(search_table(result))
        for line in not_tried(result):
            console().print(Paragraph(line))
        console().print()
        console().print(Paragraph(result.reasoning()))
    if result.best is None:
        raise typer.Exit(1)
