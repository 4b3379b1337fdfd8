"""The `hvnet` command's application, and what its commands share: the consoles, bad input
ended in one line, files never overwritten unasked, and the options several commands take.

Light to import: `hvnet --help` loads none of the model, the engine or the faces; each command
imports what it runs."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console

from hvnet.errors import HvnetError, UnitError

T = TypeVar("T")

__all__ = [
    "Force",
    "JsonOut",
    "Prices",
    "Resolution",
    "app",
    "console",
    "error_console",
    "import_app",
    "json_to_stdout",
    "option_value",
    "refuse_to_overwrite",
    "topology_app",
    "user_errors",
    "write_json",
]

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
import_app = typer.Typer(
    help="Read files from real systems and tools into hvnet's records.", no_args_is_help=True, rich_markup_mode=None
)
app.add_typer(import_app, name="import")


def console() -> Console:
    """Standard output, made per use: width and colour follow this run's environment and stream. No emoji
    codes: a name or a message holding `:100:` is printed as written."""
    return Console(emoji=False)


def error_console() -> Console:
    """Standard error; a message is never wrapped, so each problem stays one line, and never rewritten:
    no emoji codes (`case.yaml:100: ...` once printed as `case.yaml💯 ...`)."""
    return Console(stderr=True, soft_wrap=True, emoji=False)


@contextmanager
def user_errors() -> Iterator[None]:
    """Bad input ends the command with its message and exit code 2, never a traceback."""
    try:
        yield
    except HvnetError as e:
        error_console().print(str(e), style="red", highlight=False, markup=False)
        raise typer.Exit(2) from None
    except OSError as e:
        error_console().print(f"{e.filename or ''}: {e.strerror or e}", style="red", highlight=False, markup=False)
        raise typer.Exit(2) from None


def option_value(option: str, value: str, parse: Callable[[str], T]) -> T:
    """An option's value parsed where the user wrote it: a UnitError names the option (`--nic: '10GbE' is
    not a bit rate ...`), not a line of a file the command made from it."""
    try:
        return parse(value)
    except UnitError as error:
        raise UnitError(f"{option}: {error}") from None


def json_to_stdout(json_out: Path | None) -> bool:
    """`--json -`: the document goes to standard output, which then holds nothing else."""
    return json_out is not None and str(json_out) == "-"


def refuse_to_overwrite(*paths: Path | None, force: bool) -> None:
    """Ends the command (exit 2) if one of the output files exists, unless `force`; None (not asked
    for) and `-` (standard output) are no files."""
    for path in paths:
        if path is None or str(path) == "-" or force or not path.exists():
            continue
        error_console().print(
            f"{path}: exists; not overwritten (use --force to replace it)", style="red", highlight=False, markup=False
        )
        raise typer.Exit(2)


def write_json(path: Path, document: object, force: bool) -> None:
    """Writes JSON to `path` (`-`: standard output); never overwrites unless `force`. A pydantic
    model is written by its own (Rust) serializer, a plain document by `json`."""
    dump = getattr(document, "model_dump_json", None)  # a pydantic model (not imported here: --help stays quick)
    text = dump(indent=2) + "\n" if dump is not None else json.dumps(document, indent=2) + "\n"
    if json_to_stdout(path):
        sys.stdout.write(text)
        return
    refuse_to_overwrite(path, force=force)
    with user_errors():
        path.write_text(text)


JsonOut = Annotated[Path | None, typer.Option("--json", help="Write results as JSON to this file ('-': stdout).")]
Force = Annotated[bool, typer.Option("--force", "-f", help="Overwrite an existing output file.")]
Prices = Annotated[
    Path | None,
    typer.Option(
        "--prices", help="Your price list (YAML) for each design's cost; default: dated example prices (docs/cost.md)."
    ),
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
