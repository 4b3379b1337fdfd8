"""`hvnet serve`: hvnet in the browser — edit scenarios, run every command, see the report (docs/web.md).

    from hvnet.web import Settings, create_app
    app = create_app(Settings(root=Path("designs")))      # an ASGI app: uvicorn, or httpx's tests

By job:

- ``settings``: what the server was started with (folder, address, token, limits);
- ``guard``: what every request passes first: body size (413), host and origin (403), token (401);
- ``files``: the served folder's scenarios, read and written only inside it;
- ``runs_api``, ``tasks``, ``jobs``, ``worker``: the commands as HTTP calls, each run in a worker
  process of a bounded queue (429), with progress, cancel and a time limit (504); the answer is
  the CLI's ``--json`` document, made by the same functions;
- ``edit_api``, ``forms``: what the editor needs — checks as you type, the schema, templates, the
  form view;
- ``pages``, ``views``: the app's page, the login form, ``/docs``, and the terminal's tables as HTML;
- ``app``, ``server``: the FastAPI app and uvicorn.

Only `hvnet serve` imports this package: the CLI stays quick without it.
"""

from hvnet.web.app import create_app
from hvnet.web.settings import Settings

__all__ = ["Settings", "create_app"]
