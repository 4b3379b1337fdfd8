"""Engine invariants on whole scenarios (issue 15, item 6), with hypothesis: small random clusters
with teams, a drain or a rolling update, and random NIC, cable, switch and port failures and
restorations. The run returns; no NIC series is above its speed; every migration ends or says
it did not (never silently missing); operations' windows hold their migrations; flows that
stalled are reported black-holed; a rerun gives the same results. The checks are
bench/soak.py's (the failure soak runs 1,000 larger sequences: docs/reliability.md)."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from hvnet import parse_scenario, simulate

ROOT = Path(__file__).resolve().parents[1]


def _soak_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hvnet_bench_soak", ROOT / "bench" / "soak.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


soak = _soak_module()
SMALL = settings(
    max_examples=40,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


@SMALL
@given(st.randoms(use_true_random=False))
def test_random_failures_during_drains_and_rolling_updates_keep_every_invariant(rng: random.Random) -> None:
    seq = soak.generate(rng, hosts=(3, 5), vms=(2, 10), failures=(1, 6), flows=(0, 3))
    violations, _ = soak.run_one(seq, "invariants.yaml")
    assert violations == [], violations


def test_the_checks_see_a_rolling_update_that_does_not_wait_for_an_empty_node() -> None:
    """The soak's first find (fixed in lower/operations.py, Gate.then): a rolling update whose
    first node had no VMs (a drain had emptied it) drained the next node at once, into the
    node down for its patch, instead of after the patch: the next node's drain started before
    the previous node was back."""
    hosts = "".join(
        f"  - {{name: {h}, cpu: {{ghz: 6}}, power_plan: high_performance, "
        f"live_migration: {{option: tcp_ip}}, nics: [{{name: nic1, speed: 10Gbps}}]}}\n"
        for h in ("hv1", "hv2", "hv3")
    )
    text = (
        "name: empty node first\nhosts:\n" + hosts + "switches: [{name: tor1, ports: 8}]\n"
        "cables:\n  - {a: hv1/nic1, b: tor1/1}\n  - {a: hv2/nic1, b: tor1/2}\n  - {a: hv3/nic1, b: tor1/3}\n"
        "vms:\n  - {name: vm1, host: hv2, memory: 4GiB}\n  - {name: vm2, host: hv2, memory: 4GiB}\n"
        "events:\n  - {at: 0s, action: rolling_update, nodes: [hv1, hv2], patch_time: 60s}\n"
    )
    results = simulate(parse_scenario(text))
    (update,) = results.operations
    first, second = update.nodes
    assert (first.node, first.vms, first.down_s, first.back_s) == ("hv1", 0, 0.0, 60.0)
    assert second.drain_start_s == 60.0
    drained = [m for m in results.migrations if m.source == "hv2"]
    assert len(drained) == 2 and all(m.queued_s >= 60.0 for m in drained)
    assert second.down_s is not None and second.down_s >= second.drain_start_s
