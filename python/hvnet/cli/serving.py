"""`hvnet serve`: the web app on this machine (docs/web.md). The web stack is imported only here,
when the command runs, so `hvnet --help` stays quick."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated

import typer

from hvnet.cli.app import app, console, error_console, option_value, user_errors
from hvnet.errors import InputError

__all__ = ["serve"]


@app.command()
def serve(
    directory: Annotated[
        Path | None, typer.Option("--dir", help="The folder of scenarios to serve (default: the current folder).")
    ] = None,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; any but loopback needs the token.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port to listen on.")] = 8765,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="HVNET_TOKEN",
            help="The token every request must carry (default: none on loopback, else one generated and printed).",
        ),
    ] = None,
    max_body: Annotated[str, typer.Option("--max-body", help="Largest request body accepted (413 past it).")] = "64MiB",
    workers: Annotated[
        int | None, typer.Option("--workers", min=1, max=64, help="Runs at once (default: one per core, at most 4).")
    ] = None,
    queue: Annotated[int, typer.Option("--queue", min=0, help="Runs that may wait for a worker (429 past them).")] = 8,
    time_limit: Annotated[
        str, typer.Option("--time-limit", help="Longest a run may take; it is then stopped (504).")
    ] = "10min",
) -> None:
    """Serve the web app: edit scenarios, run every command, see the reports and the API at /docs."""
    from hvnet.budget import limit
    from hvnet.units import parse_bytes, parse_duration
    from hvnet.web.server import serve as run_server
    from hvnet.web.settings import Settings, is_loopback

    root = (directory or Path.cwd()).resolve()
    if not root.is_dir():
        error_console().print(f"{root}: not a folder; --dir names the folder of scenarios", style="red", markup=False)
        raise typer.Exit(2)
    with user_errors():
        limit()  # HVNET_MAX_MEMORY, if set, is a size: said now, in one line, not by the server
        if token is not None and len(token) < 8:
            raise InputError("--token", None, "", "a token must have at least 8 characters")
        _port_is_free(host, port)
        settings = Settings(
            root=root,
            host=host,
            port=port,
            token=token,
            max_body_bytes=int(option_value("--max-body", max_body, parse_bytes)),
            queue=queue,
            time_limit_s=option_value("--time-limit", time_limit, parse_duration),
            **({"workers": workers} if workers is not None else {}),
        )
    out = console()
    out.print(f"hvnet serves {root} at {settings.url}", highlight=False, markup=False, soft_wrap=True)
    if settings.token is not None and token is None:
        out.print(f"token: {settings.token}", highlight=False, markup=False, soft_wrap=True)
        out.print("(the page asks for it once; scripts send it as 'Authorization: Bearer TOKEN')", highlight=False)
    elif settings.token is not None:
        out.print("token: the one given (--token or HVNET_TOKEN)", highlight=False)
    if not is_loopback(host):
        out.print(f"listening on {host}: anyone who can reach it and has the token can run and save", highlight=False)
    run_server(settings)


def _port_is_free(host: str, port: int) -> None:
    """Says in one line, before anything is printed, that the address cannot be listened on (the server
    would otherwise log its own error after "hvnet serves ... at")."""
    try:
        infos = socket.getaddrinfo(host.strip("[]"), port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        raise InputError("--host", None, "", f"{host!r} is not an address of this machine ({error.strerror})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as error:
            raise InputError(
                "--port", None, "", f"{host}:{port} cannot be listened on ({error.strerror}); choose another --port"
            ) from None
