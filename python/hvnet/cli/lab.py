"""`hvnet lab`: real TCP on an emulated cluster beside the twin's prediction (docs/lab.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hvnet.cli.app import (
    Force,
    JsonOut,
    app,
    console,
    error_console,
    json_to_stdout,
    option_value,
    user_errors,
    write_json,
)

__all__ = ["lab_app", "lab_down_command", "lab_run_command"]

lab_app = typer.Typer(
    help="Run a scenario's traffic as real TCP on an emulated cluster (network namespaces, veth, bridges, tc) "
    "and set it beside the twin's prediction. Linux, as root.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
app.add_typer(lab_app, name="lab")


@lab_app.command("run")
def lab_run_command(
    scenario: Annotated[Path, typer.Argument(help="The scenario file (YAML).")],
    scale: Annotated[
        str, typer.Option("--scale", help="Every rate times this: 1/100 makes 10 GbE 100 Mbit/s (sizes follow).")
    ] = "1/100",
    time_scale: Annotated[
        str, typer.Option("--time-scale", help="Every time times this (sizes follow): 1/4 runs 4 times shorter.")
    ] = "1",
    out: Annotated[
        Path | None, typer.Option("--out", help="Directory for the measurements (default: ./hvnet-lab).")
    ] = None,
    json_out: JsonOut = None,
    keep: Annotated[
        bool, typer.Option("--keep", help="Leave the namespaces up for inspection (hvnet lab down removes them).")
    ] = False,
    buffer: Annotated[
        str, typer.Option("--buffer", help="A switch port's buffer, as time at its rate (default 20ms; docs/lab.md).")
    ] = "20ms",
    max_seconds: Annotated[
        float, typer.Option("--max-seconds", help="The longest predicted run the lab starts, in its seconds.")
    ] = 120.0,
    force: Force = False,
) -> None:
    """Real TCP on the scenario, emulated, beside the twin's prediction.

    Builds the scenario at a scale as network namespaces, veth pairs, bridges and token buckets, runs its
    traffic, migrations and failures as real TCP, measures, prints measured beside predicted, writes the
    measurements (hvnet explain reads them) and tears it all down."""
    from hvnet.lab.refusals import Limits
    from hvnet.lab.runner import Interrupted
    from hvnet.lab.scaling import Scale, parse_factor
    from hvnet.lab.session import lab_run
    from hvnet.lab.show import lines_after, nics_table, title, transfers_table
    from hvnet.model import load_scenario
    from hvnet.units import parse_duration

    directory = out or Path("hvnet-lab")
    if (directory / "lab.json").exists() and not force:
        error_console().print(
            f"{directory}: holds a lab run's measurements; not overwritten (use --force, or --out DIR)",
            style="red",
            highlight=False,
            markup=False,
        )
        raise typer.Exit(2)
    to_stdout = json_to_stdout(json_out)

    def say(line: str) -> None:
        error_console().print(line, highlight=False, markup=False)

    with user_errors():
        factors = Scale(parse_factor("--scale", scale), parse_factor("--time-scale", time_scale))
        buffer_s = option_value("--buffer", buffer, parse_duration)
        loaded = load_scenario(scenario)
        try:
            report = lab_run(loaded, factors, directory, keep, Limits(seconds=max_seconds), say, buffer_s)
        except (KeyboardInterrupt, Interrupted) as stopped:
            signum = stopped.signum if isinstance(stopped, Interrupted) else 2
            what = "kept" if keep else "torn down"
            error_console().print(f"interrupted: the lab is {what}", style="red", highlight=False, markup=False)
            raise typer.Exit(128 + signum) from None
    if json_out is not None:
        write_json(json_out, report, force)
    if to_stdout:
        return
    shown = console()
    shown.print(title(report), highlight=False, markup=False)
    shown.print(transfers_table(report))
    shown.print(nics_table(report))
    for line in lines_after(report):
        shown.print(line, highlight=False, markup=False)


@lab_app.command("down")
def lab_down_command(
    run: Annotated[str | None, typer.Argument(help="One run's id (six hex digits); default: every ended run.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Also stop and remove runs whose process is alive.")] = False,
) -> None:
    """Remove what lab runs left behind; idempotent.

    Every run whose process has ended (killed, or --keep), or the one named: its namespaces and everything
    in them, and its record."""
    from hvnet.lab.netns import lab_down
    from hvnet.lab.refusals import check_machine

    with user_errors():
        check_machine()
        removed, live = lab_down(run, force)
    shown = console()
    for each in removed:
        shown.print(f"removed lab {each.run}: {len(each.namespaces)} namespaces", highlight=False, markup=False)
    for alive, pid in live:
        shown.print(
            f"left lab {alive}: its run is alive (process {pid}); stop it, or use --force",
            highlight=False,
            markup=False,
        )
    if not removed and not live:
        shown.print("no lab to remove", highlight=False, markup=False)
