"""What every request passes before the app sees it: the body's size, where it comes from, the token.

One ASGI middleware, in this order:

1. **size**: a body larger than `Settings.max_body_bytes` is refused with 413, from its
   Content-Length before a byte is read, or as it streams in when it has none;
2. **host**: served on a loopback address, a request must name a loopback host (``Host:
   127.0.0.1:8765``, ``localhost``): a web page whose name resolves to 127.0.0.1 (DNS rebinding)
   gets 403;
3. **origin**: a request that changes something (any method but GET, HEAD, OPTIONS) sent by a page
   of another origin (its ``Origin`` header is not this server) gets 403: another site open in the
   same browser cannot run, save or upload through it;
4. **token**: when one is required (`Settings.token_required`), a request carries it as
   ``Authorization: Bearer TOKEN``, ``X-Hvnet-Token: TOKEN`` or the cookie the login form sets;
   without it an API call gets 401 and a page is sent to the login form. The token is never
   taken from a URL, so it stays out of addresses, histories and access logs.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException

from hvnet.web.settings import Settings, is_loopback

__all__ = ["COOKIE", "LOGIN_PATH", "Guard", "token_matches"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: The cookie the login form sets: HttpOnly (no script reads it), SameSite=Strict (no other site sends it).
COOKIE = "hvnet_token"
LOGIN_PATH = "/login"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def token_matches(given: str | None, token: str) -> bool:
    """Whether `given` is the token, compared in constant time."""
    return given is not None and secrets.compare_digest(given.encode(), token.encode())


def _headers(scope: Scope) -> dict[str, str]:
    return {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope.get("headers", [])}


def _host_name(host_header: str) -> str:
    """The name in a Host header, without its port: ``[::1]:8765`` -> ``::1``."""
    return urlsplit(f"//{host_header}").hostname or ""


def _given_token(headers: dict[str, str]) -> str | None:
    """The token a request carries: a Bearer header, X-Hvnet-Token, or the login cookie."""
    authorization = headers.get("authorization", "")
    if authorization[:7].lower() == "bearer ":
        return authorization[7:].strip()
    if "x-hvnet-token" in headers:
        return headers["x-hvnet-token"].strip()
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header: no token
        return None
    morsel = cookie.get(COOKIE)
    return morsel.value if morsel is not None else None


async def _answer(send: Send, status: int, detail: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    """A JSON answer ``{"detail": ...}`` with `status`."""
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """The middleware of the module docstring, around `app`."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            status, detail = refusal
            if status == 401 and self._wants_page(scope, headers):
                location = LOGIN_PATH.encode()
                await send({"type": "http.response.start", "status": 303, "headers": [(b"location", location)]})
                await send({"type": "http.response.body", "body": b""})
                return
            extra = [(b"www-authenticate", b'Bearer realm="hvnet"')] if status == 401 else []
            await _answer(send, status, detail, extra)
            return
        await self.app(scope, self._counted(receive), send)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        """(status, why) for a request refused before the app, or None."""
        limit = self.settings.max_body_bytes
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > limit:
            return 413, f"the request body is {int(length):,} bytes; at most {limit:,} are accepted (--max-body)"
        if is_loopback(self.settings.host) and not is_loopback(_host_name(headers.get("host", ""))):
            return 403, "this server answers only to a loopback host name (127.0.0.1, localhost, ::1)"
        method = scope.get("method", "GET")
        origin = headers.get("origin")
        if method not in _SAFE_METHODS and origin is not None and urlsplit(origin).netloc != headers.get("host"):
            return 403, f"a request from another origin ({origin}) may not change anything here"
        token = self.settings.token
        if token is None or scope.get("path") == LOGIN_PATH:
            return None
        if not token_matches(_given_token(headers), token):
            return 401, "a token is required: send 'Authorization: Bearer TOKEN' (hvnet serve printed it)"
        return None

    @staticmethod
    def _wants_page(scope: Scope, headers: dict[str, str]) -> bool:
        """A browser asking for a page (not the API, not a script): it is sent to the login form."""
        path = str(scope.get("path", ""))
        return scope.get("method") == "GET" and not path.startswith("/api") and "text/html" in headers.get("accept", "")

    def _counted(self, receive: Receive) -> Receive:
        """`receive` that stops a body without Content-Length once it passes the limit (413)."""
        limit = self.settings.max_body_bytes
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message.get("type") == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise HTTPException(
                        413, f"the request body is over {limit:,} bytes, the most accepted (--max-body)"
                    )
            return message

        return counted
