"""A real `hvnet serve` for the web tests: uvicorn in a thread, on 127.0.0.1 and a free port, serving a
folder of the test's own scenarios; `serve(...)` starts one with other settings (limits, a token).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from hvnet.topology import star
from hvnet.web import Settings, create_app

EXAMPLES = Path(__file__).parents[2] / "python" / "hvnet" / "examples"


def slow_scenario() -> str:
    """A scenario whose check runs for tens of seconds (a test cancels it long before)."""
    from hvnet.model import TeamKind
    from hvnet.topology import Design, leaf_spine

    text = leaf_spine(24, "10Gbps", 2, 2, "40Gbps", design=Design(nics=2, team=TeamKind.SET, vms=4, drain="hv1"))
    return text + "requirements: {max_drain: 10min, survive: [nic, cable, switch]}\n"


def drained_star(nic: str = "10Gbps") -> str:
    """hvnet topology star --hosts 2 --vms 2 --drain hv1 --nic NIC."""
    from hvnet.topology import Design

    return star(2, nic, design=Design(vms=2, drain="hv1"))


@dataclass(frozen=True)
class Served:
    """A running server: its address, folder and settings, and a client for it."""

    url: str
    root: Path
    settings: Settings
    client: httpx.Client


@contextmanager
def serving(settings: Settings) -> Iterator[Served]:
    """Serves `settings` on 127.0.0.1 (whatever `settings.host` says: the guard follows the settings)."""
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=0, log_level="warning", ws="none", lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=60) as client:
            yield Served(url, settings.root, settings, client)
    finally:
        server.should_exit = True
        thread.join(15)


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    """Starts servers of the test's folder with the given settings; each stops when the test ends."""
    stack: list[Any] = []

    def start(**settings: Any) -> Served:
        manager = serving(Settings(root=tmp_path, **settings))
        stack.append(manager)
        return manager.__enter__()

    yield start
    for manager in reversed(stack):
        manager.__exit__(None, None, None)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One server for a module's tests, with the default settings, serving a folder holding
    star.yaml (a drain to simulate) and failover.yaml (the example)."""
    root = tmp_path_factory.mktemp("served")
    (root / "star.yaml").write_text(drained_star())
    (root / "failover.yaml").write_text((EXAMPLES / "failover.yaml").read_text())
    with serving(Settings(root=root)) as server:
        yield server
