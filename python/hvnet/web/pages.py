"""The pages: the app, the login form, the API's documentation, and the files they load.

Everything a page loads ships in the package (`static/`): the app's script and style, the editor
(CodeMirror, bundled: `static/vendor/README.md`) and Swagger UI for ``/docs``, so the app works
with no network. A vendored file is stored gzipped (``NAME.gz``) and sent as it is, with
``Content-Encoding: gzip``, to a browser that accepts it (all do); unpacked for one that does not.
"""

from __future__ import annotations

import gzip
from functools import cache
from html import escape
from importlib.resources import files
from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from hvnet.web.guard import COOKIE, LOGIN_PATH, token_matches
from hvnet.web.settings import Settings

__all__ = ["router", "static_files"]

router = APIRouter(include_in_schema=False)

_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
}
_TYPES |= {".png": "image/png", ".svg": "image/svg+xml", ".txt": "text/plain; charset=utf-8"}
_NO_STORE = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}


@cache
def static_files() -> dict[str, tuple[bytes, bool]]:
    """Every file under static/: its URL path (without .gz) -> (bytes, whether they are gzipped)."""
    found: dict[str, tuple[bytes, bool]] = {}
    root = files("hvnet.web") / "static"

    def walk(folder: object, prefix: str) -> None:
        for entry in folder.iterdir():  # type: ignore[attr-defined]
            if entry.is_dir():
                walk(entry, f"{prefix}{entry.name}/")
            elif entry.name.endswith(".gz"):
                found[f"{prefix}{entry.name[:-3]}"] = (entry.read_bytes(), True)
            elif not entry.name.endswith(".md"):
                found[f"{prefix}{entry.name}"] = (entry.read_bytes(), False)

    walk(root, "")
    return found


@router.get("/static/{path:path}")
async def static(request: Request, path: str) -> Response:
    """A file of the package's static/ folder (no other path is served)."""
    found = static_files().get(path)
    if found is None:
        return Response("not found", status_code=404, media_type="text/plain")
    data, packed = found
    kind = _TYPES.get(path[path.rfind(".") :], "application/octet-stream")
    headers = dict(_NO_STORE)
    if packed and "gzip" in request.headers.get("accept-encoding", ""):
        headers["Content-Encoding"] = "gzip"
    elif packed:
        data = gzip.decompress(data)
    return Response(data, media_type=kind, headers=headers)


@router.get("/")
async def index() -> Response:
    """The app: one page (static/app.html)."""
    data, _ = static_files()["app.html"]
    return Response(data, media_type=_TYPES[".html"], headers=_NO_STORE)


_LOGIN = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>hvnet · sign in</title>
<style>
body {{ font: 15px/1.5 system-ui, sans-serif; background: #f0f3f7; color: #1f2933; display: grid;
  place-items: center; min-height: 90vh; margin: 0; }}
form {{ background: #fff; border: 1px solid #d9e2ec; border-radius: 6px; padding: 24px 28px; width: 380px; }}
h1 {{ font-size: 18px; margin: 0 0 8px; }} p {{ color: #52606d; font-size: 13px; }}
input {{ width: 100%; font: inherit; padding: 6px 8px; margin: 6px 0 12px; box-sizing: border-box; }}
button {{ font: inherit; padding: 6px 16px; }} .error {{ color: #c62828; }}
</style></head>
<body><form method="post" action="/login">
<h1>hvnet</h1>
<p>This server needs its token: <code>hvnet serve</code> printed it where it was started.</p>
{error}
<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="current-password" autofocus required>
<button type="submit">Sign in</button>
</form></body></html>
"""


def _settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


@router.get(LOGIN_PATH)
async def login_form(request: Request) -> Response:
    """The one-time login form: the token typed here becomes an HttpOnly cookie, never a URL."""
    if _settings(request).token is None:
        return RedirectResponse("/", status_code=303)
    return HTMLResponse(_LOGIN.format(error=""), headers=_NO_STORE)


@router.post(LOGIN_PATH)
async def login(request: Request, token: Annotated[str, Form()] = "") -> Response:
    expected = _settings(request).token
    if expected is None:
        return RedirectResponse("/", status_code=303)
    if not token_matches(token.strip(), expected):
        error = f'<p class="error">{escape("That is not the token; look again where hvnet serve was started.")}</p>'
        return HTMLResponse(_LOGIN.format(error=error), status_code=401, headers=_NO_STORE)
    answer = RedirectResponse("/", status_code=303)
    answer.set_cookie(COOKIE, expected, httponly=True, samesite="strict", path="/")
    return answer


@router.get("/docs")
async def docs() -> HTMLResponse:
    """Swagger UI for the OpenAPI document, from the package's own copy (no CDN)."""
    return get_swagger_ui_html(
        openapi_url="/openapi.json",
        title="hvnet API",
        swagger_js_url="/static/vendor/swagger-ui/swagger-ui-bundle.js",
        swagger_css_url="/static/vendor/swagger-ui/swagger-ui.css",
        swagger_favicon_url="/static/favicon.svg",
        swagger_ui_parameters={"validatorUrl": None, "tryItOutEnabled": True},
    )
