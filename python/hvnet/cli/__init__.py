"""The `hvnet` command: a thin face over the model and the engine.

`app` (`cli.app`) holds what every command shares; the commands that run the simulator are in
`cli.running`, those that answer about a design or a real cluster in `cli.answering`, the topology
generators in `cli.topology`, `serve` and `lab` in their own. `hvnet --help` imports neither the model
nor the engine: each command imports what it runs.
"""

from __future__ import annotations

import gc
from typing import Annotated

import typer

from hvnet.cli import answering, lab, running, serving, topology  # noqa: F401  (their commands join the app)
from hvnet.cli.app import app, console

__all__ = ["YOUNG_COLLECTION", "app", "main"]

#: Allocations between two collections of the youngest objects (Python's default: 700). A command
#: builds hundreds of thousands of objects that live until it exits (the model, the core's specs,
#: the results), and at the default each is scanned again and again: some 0.1 s of loading
#: a 10,000-VM scenario, and of each step after it. Cycles are still collected, just less often.
YOUNG_COLLECTION = 10_000


def _version_callback(value: bool) -> None:
    if value:
        from hvnet._version import __version__

        console().print(f"hvnet {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version.")
    ] = False,
) -> None:
    """A digital twin of a Hyper-V cluster's network."""


def main() -> None:
    gc.set_threshold(YOUNG_COLLECTION, *gc.get_threshold()[1:])
    app()
