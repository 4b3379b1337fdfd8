"""What the lab's real tests need: a machine that can run a lab (else they skip, saying why), and a check that
they leave the machine's namespaces, links and qdiscs as they found them."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from hvnet.lab import names
from hvnet.lab.refusals import LabRefused, check_machine


def _ip(*args: str) -> str:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30, check=False).stdout


def machine_state() -> tuple[list[str], list[str], list[str]]:
    """The machine's own namespaces, links (names) and qdiscs, as the lab must leave them."""
    namespaces = sorted(line.split()[0] for line in _ip("netns", "list").splitlines() if line.strip())
    links = sorted(line.split(":")[1].strip() for line in _ip("-o", "link", "show").splitlines())
    qdiscs = subprocess.run(["tc", "qdisc", "show"], capture_output=True, text=True, timeout=30, check=False)
    return namespaces, links, sorted(qdiscs.stdout.splitlines())


def _why_not() -> str | None:
    """Why this machine cannot run a lab (not root, no ip or tc, no namespaces), or None."""
    try:
        check_machine()
    except LabRefused as refused:
        return str(refused)
    probe = names.host_namespace(names.new_run_id(), 0)
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, timeout=30, check=False)
    if made.returncode != 0:
        return f"ip netns add failed: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "delete", probe], capture_output=True, timeout=30, check=False)
    return None


@pytest.fixture(scope="session")
def lab_machine() -> None:
    """Skips the test where a lab cannot run, with the reason."""
    why = _why_not()
    if why is not None:
        pytest.skip(f"no lab on this machine: {why}")


@pytest.fixture
def untouched(lab_machine: None) -> Iterator[None]:
    """The test leaves the machine's namespaces, links and qdiscs as it found them."""
    before = machine_state()
    yield
    assert machine_state() == before
