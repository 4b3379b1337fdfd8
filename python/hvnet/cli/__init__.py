"""The `hvnet` command: a thin face over the model and the engine.

`app` (`cli.app`) holds what every command shares; the commands that run the simulator are in
`cli.running`, those that answer about a design or a real cluster in `cli.answering`. `hvnet
--help` imports neither the model nor the engine: each command imports what it runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from hvnet.cli import answering, running  # noqa: F401  (their commands join the app)
from hvnet.cli.app import app, console

__all__ = ["app", "main"]


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
    app()
