"""Removing a lab: `hvnet lab down` removes what a run made, and only that, as often as it is asked."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

from hvnet.cli import app
from hvnet.lab import names, netns
from hvnet.lab.plan import Batch
from hvnet.lab.refusals import LabRefused
from tests.conftest import CLI_ENV


def _made(run: str) -> list[str]:
    """A run's leftovers as a killed run leaves them: two namespaces, a veth pair between them, a token bucket."""
    host, switch = names.host_namespace(run, 0), names.switch_namespace(run, 0)
    netns.run_batch(Batch("ip", None, (f"netns add {host}", f"netns add {switch}")))
    netns.run_batch(Batch("ip", host, (f"link add nic1 type veth peer name p1 netns {switch}",)))
    netns.run_batch(Batch("tc", host, ("qdisc replace dev nic1 root tbf rate 10mbit burst 3076 limit 30000",)))
    return [host, switch]


def test_down_removes_a_dead_runs_namespaces_and_record_and_is_idempotent(untouched: None) -> None:
    run = names.new_run_id()
    made = _made(run)
    netns.write_record(run, made, None)
    removed, live = netns.lab_down(run)
    assert [(r.run, sorted(r.namespaces)) for r in removed] == [(run, sorted(made))]
    assert live == []
    assert not (netns.STATE / f"{run}.json").exists()
    assert not [ns for ns in netns.list_namespaces() if ns.startswith(names.run_prefix(run))]
    again, _ = netns.lab_down(run)
    assert [r.namespaces for r in again] == []
    assert netns.remove_run(run) == []


def test_down_finds_a_run_by_its_namespaces_when_it_left_no_record(untouched: None) -> None:
    run = names.new_run_id()
    made = _made(run)
    removed, _ = netns.lab_down(run)
    assert sorted(removed[0].namespaces) == sorted(made)


def test_down_leaves_a_live_run_alone_unless_forced(untouched: None) -> None:
    run = names.new_run_id()
    made = _made(run)
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        netns.write_record(run, made, None, pid=owner.pid)
        removed, live = netns.lab_down()
        assert (run, owner.pid) in live and run not in [r.run for r in removed]
        removed, live = netns.lab_down(run, force=True)
        assert [r.run for r in removed] == [run]
    finally:
        owner.kill()
        owner.wait()
        netns.remove_run(run)


def test_down_refuses_what_is_not_a_run_id() -> None:
    with pytest.raises(LabRefused, match="is not a lab run"):
        netns.lab_down("../etc")


def test_the_down_command_says_what_it_removed_then_that_nothing_is_left(untouched: None) -> None:
    run = names.new_run_id()
    _made(run)
    runner = CliRunner(env=CLI_ENV)
    first = runner.invoke(app, ["lab", "down", run])
    assert first.exit_code == 0 and first.stdout == f"removed lab {run}: 2 namespaces\n"
    again = runner.invoke(app, ["lab", "down", run])
    assert again.exit_code == 0 and again.stdout == "no lab to remove\n"
