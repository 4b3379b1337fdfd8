"""Serving the app on uvicorn, a production ASGI server: what `hvnet serve` runs.

    serve(Settings(root=Path("."), port=8765))     # until Ctrl-C; running runs are cancelled

uvicorn's access log shows each request's method, path and status; no token is ever in a path
(`guard`), so none is logged.
"""

from __future__ import annotations

import uvicorn

from hvnet.web.app import create_app
from hvnet.web.settings import Settings

__all__ = ["serve"]


def serve(settings: Settings, log_level: str = "info") -> None:
    """Serves `settings.root` at `settings.host`:`settings.port` until interrupted."""
    config = uvicorn.Config(
        create_app(settings),
        host=settings.host.strip("[]"),
        port=settings.port,
        log_level=log_level,
        server_header=False,
        timeout_graceful_shutdown=5,
    )
    uvicorn.Server(config).run()
