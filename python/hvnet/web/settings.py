"""What `hvnet serve` was started with: the folder it serves, where it listens, the token, the limits.

    settings = Settings(root=Path("."), host="0.0.0.0")   # token: one is generated (a non-loopback address)
    settings.token_required                                # True

Binding to a loopback address (127.0.0.1, ::1, localhost) needs no token unless one is given;
any other address always needs one (docs/web.md, "Security").
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_PORT",
    "DEFAULT_QUEUE",
    "DEFAULT_TIME_LIMIT_S",
    "Settings",
    "is_loopback",
    "new_token",
]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
#: A request body larger than this is refused (413): a 10,000-VM scenario is a few MB, a measurement
#: log some tens.
DEFAULT_MAX_BODY_BYTES = 64 * 2**20
#: Runs that may wait for a free worker; past them a request is refused (429, Retry-After).
DEFAULT_QUEUE = 8
#: A run is stopped after this long (its worker process is killed) and answered 504.
DEFAULT_TIME_LIMIT_S = 600.0


def is_loopback(host: str) -> bool:
    """Whether `host` only reaches this machine: 127.0.0.0/8, ::1 or the name localhost."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def new_token() -> str:
    """A random token of 32 URL-safe characters (192 bits)."""
    return secrets.token_urlsafe(24)


def _default_workers() -> int:
    """One run per core, at most 4: a run is one process busy on one core."""
    return max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class Settings:
    """How the app serves. `token` None on a non-loopback `host` is replaced by a new one."""

    root: Path
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str | None = None
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    #: Runs at once, each in its own worker process.
    workers: int = field(default_factory=_default_workers)
    #: Runs that may wait for a worker.
    queue: int = DEFAULT_QUEUE
    time_limit_s: float = DEFAULT_TIME_LIMIT_S
    #: The run budget of each worker (`hvnet.budget`); None: hvnet's default (HVNET_MAX_MEMORY, else
    #: half the machine's memory) shared out between the workers.
    max_memory_bytes: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).resolve())
        if self.token is None and not is_loopback(self.host):
            object.__setattr__(self, "token", new_token())
        if self.token is not None and len(self.token) < 8:
            raise ValueError("a token must have at least 8 characters")

    @property
    def token_required(self) -> bool:
        """Whether a request must carry the token: always off loopback, and on it when one was given."""
        return self.token is not None

    @property
    def url(self) -> str:
        """Where a browser opens the app (no token in it: the page asks for it)."""
        host = self.host if ":" not in self.host else f"[{self.host.strip('[]')}]"
        if host in ("0.0.0.0", "[::]"):
            host = "127.0.0.1" if host == "0.0.0.0" else "[::1]"
        return f"http://{host}:{self.port}/"
