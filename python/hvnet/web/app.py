"""The web app: FastAPI with the API (`runs_api`, `edit_api`), the pages (`pages`) and the guard.

    app = create_app(Settings(root=Path("designs")))
    uvicorn.run(app, host="127.0.0.1", port=8765)      # what `hvnet serve` does (`server.serve`)

One app serves one folder; its state (the settings, the folder, the queue of runs) hangs on
``app.state``, made here and closed when the app stops — no module-level singletons.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI, Request
from fastapi.responses import Response

from hvnet._version import __version__
from hvnet.web import edit_api, pages, runs_api
from hvnet.web.files import Workspace
from hvnet.web.guard import Guard
from hvnet.web.jobs import JobQueue
from hvnet.web.runs_api import ApiFailure, failure_response
from hvnet.web.settings import Settings

__all__ = ["create_app"]

_DESCRIPTION = """\
hvnet's HTTP API: the commands of the `hvnet` CLI, each answering the JSON document of its `--json`.

Send a scenario as the body (`Content-Type: application/yaml`), e.g.
`curl --data-binary @cluster.yaml -H 'Content-Type: application/yaml' http://127.0.0.1:8765/api/simulate?name=cluster.yaml`.
A scenario with problems answers 422 with the lines hvnet prints (`file:line: field: message`).
Off loopback, send the token printed by `hvnet serve`: `Authorization: Bearer TOKEN` (docs/web.md).
"""


def create_app(settings: Settings) -> FastAPI:
    """The app serving `settings.root`, with its own queue of runs."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        app.state.queue.close()

    app = FastAPI(
        title="hvnet",
        version=__version__,
        description=_DESCRIPTION,
        docs_url=None,  # pages.docs serves Swagger UI from the package, not from a CDN
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.workspace = Workspace(settings.root)
    app.state.queue = JobQueue(settings)

    @app.exception_handler(ApiFailure)
    async def api_failure(request: Request, failure: ApiFailure) -> Response:
        return failure_response(failure.status, failure.kind, failure.problems, failure.headers)

    app.include_router(runs_api.router)
    app.include_router(edit_api.router)
    app.include_router(pages.router)
    app.add_middleware(Guard, settings=settings)
    return app
