"""A failure soak (issue 15, item 7): random sequences of NIC, cable, switch and port failures
and restorations during drains and rolling updates, on generated clusters, each simulated in
this process and checked against the engine's invariants (docs/reliability.md, "Failure soak").

    python3 bench/soak.py                      # 1000 sequences, seed 1
    python3 bench/soak.py --sequences 200 --seed 7
    hvnet simulate bench/out/soak/012.yaml     # a violating sequence, written out (below)

A cluster (drawn by bench/soak_sequences.py) has 4-8 hosts, each with two NICs in a team
(LBFO in any mode and balancing, or SET) under a virtual switch, one NIC on each of two stacked
top-of-rack switches joined by a 100 Gbps cable; 10-40 VMs; a few flows between VMs and hosts;
a drain or a rolling update (or both); and 1-10 failures, each restored or not, at random
times. Each sequence is simulated twice (the second run must give the same results). What is
checked (`violations`):

- the run returns (an exception is a crash);
- no NIC's send or receive series above its speed, no series negative or not finite;
- every migration has an end or says it has none (end_s None), and one that did not end had a
  reason: a failure still in force at the end of the run, or it waited on one that did not end;
  an ended one moved at least its VM's memory and has a blackout;
- every flow ended, or did not with a failure in force at the end and black-holed time > 0;
  its black-holed time is within its life;
- each operation's window holds its migrations (start before the first is queued, end the last
  end, or None if one never ended); a rolling update's nodes in order (drain, down, back, end),
  each down for its patch time; every migration belongs to exactly one operation;
- a drain moves every VM that was on its host (none silently missing);
- a second run gives the same results (wall time aside).

Each violating or crashing sequence is written to `bench/out/soak/NNN.yaml` (the scenario,
with the violations as comments): `hvnet simulate NNN.yaml` reproduces it. The same seed
draws the same sequences.
"""

from __future__ import annotations

import argparse
import math
import random
import resource
import sys
import time
import traceback
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

import hvnet
from hvnet.model.loader import scenario_from_data
from hvnet.results import MigrationResult, OperationResult, Results, TrafficResult
from hvnet.units import parse_bytes

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from soak_sequences import Sequence, generate  # noqa: E402  (bench/ scripts: the sequences the soak draws)

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "soak"
REL = 1e-9


def _in_force_at_end(seq: Sequence) -> bool:
    """Whether some failure was never restored."""
    return any(back is None for *_, back in seq.failures)


def _both_switches_down(seq: Sequence) -> list[tuple[float, float]]:
    """The intervals during which both switches are down (from their switch_down/up events)."""
    changes = sorted((at, target, -1) for kind, target, at, _ in seq.failures if kind == "switch_down")
    changes += sorted(
        (back, target, +1) for kind, target, _, back in seq.failures if kind == "switch_down" and back is not None
    )
    down: set[str] = set()
    out: list[tuple[float, float]] = []
    since: float | None = None
    for at, target, step in sorted(changes):
        (down.add if step < 0 else down.discard)(target)
        if len(down) == 2 and since is None:
            since = at
        elif len(down) < 2 and since is not None:
            out.append((since, at))
            since = None
    if since is not None:
        out.append((since, math.inf))
    return out


Violation = tuple[str, str]  # (kind, detail)


def _check_rates(results: Results) -> list[Violation]:
    """NICs within their speed, bytes conserved between NICs, cores busy within 0..1; all finite."""
    bad: list[Violation] = []
    end = results.end_s
    for a in results.adapters:
        for way, s in (("send", a.send_bps), ("receive", a.receive_bps)):
            values = list(s.values)
            if any(not math.isfinite(v) or v < 0 for v in values):
                bad.append(("negative_rate", f"{a.host}/{a.nic} {way}: a value < 0 or not finite"))
            if s.peak() > a.speed_bps * (1 + REL):
                bad.append(("over_capacity", f"{a.host}/{a.nic} {way} peaks at {s.peak()} over {a.speed_bps}"))
    # Bytes conserved: every byte that left a NIC arrived on one (a black-holed connection moves none).
    sent = sum(a.send_bps.integral(0.0, end) for a in results.adapters)
    received = sum(a.receive_bps.integral(0.0, end) for a in results.adapters)
    if abs(sent - received) > 1e-6 * max(sent, received, 1.0):
        bad.append(("bytes", f"the NICs sent {sent / 8:.0f} bytes and received {received / 8:.0f}"))
    for core in results.cores:
        if any(not math.isfinite(v) or v < 0 or v > 1 + REL for v in core.busy.values):
            bad.append(("over_capacity", f"core {core.host}/{core.core} busy outside 0..1"))
    return bad


def _check_unended(i: int, m: MigrationResult, in_force: bool, results: Results) -> list[Violation]:
    """A migration with no end: a failure in force at the end, or it waited on one stuck; no duration."""
    bad: list[Violation] = []
    waited = m.start_s is None
    if not in_force and not waited:
        bad.append(("lost_migration", f"migration {i} ({m.vm}) never ended, with every failure restored"))
    if waited and not any(o.end_s is None and o.start_s is not None for o in results.migrations):
        bad.append(("lost_migration", f"migration {i} ({m.vm}) never started, and none it could wait for is stuck"))
    if m.duration_s is not None or m.blackout_s is not None:
        bad.append(("lost_migration", f"migration {i} ({m.vm}) has no end but a duration or blackout"))
    return bad


def _check_ended(i: int, m: MigrationResult, vm_memory: dict[str, int]) -> list[Violation]:
    """A migration that ended: in its window, its VM's memory moved, a blackout."""
    bad: list[Violation] = []
    assert m.end_s is not None
    if m.start_s is None or not (m.queued_s <= m.start_s + REL <= m.end_s + 2 * REL):
        bad.append(("window", f"migration {i} ({m.vm}): queued {m.queued_s}, start {m.start_s}, end {m.end_s}"))
    if m.bytes_sent < vm_memory[m.vm] * (1 - REL):
        bad.append(("bytes", f"migration {i} ({m.vm}) ended having sent {m.bytes_sent} of {vm_memory[m.vm]}"))
    if m.blackout_s is None or m.blackout_s < 0:
        bad.append(("lost_migration", f"migration {i} ({m.vm}) ended with no blackout"))
    return bad


def _check_migrations(seq: Sequence, results: Results) -> list[Violation]:
    bad: list[Violation] = []
    vm_memory = {v["name"]: parse_bytes(v["memory"]) for v in seq.data["vms"]}
    in_force = _in_force_at_end(seq)
    for i, m in enumerate(results.migrations):
        if m.end_s is None:
            bad += _check_unended(i, m, in_force, results)
        else:
            bad += _check_ended(i, m, vm_memory)
        if m.bytes_sent < 0 or (m.peak_bps / 1e9) < 0:
            bad.append(("negative_rate", f"migration {i}: negative bytes or rate"))
    return bad


def _check_connections(t: TrafficResult, end: float, in_force: bool) -> list[Violation]:
    """A flow's connections: each ended or reported stalled, black-holed since it stalled."""
    bad: list[Violation] = []
    for c in t.connection_results:
        if c.end_s is None and (c.stalled_since_s is None or not in_force):
            bad.append(
                (
                    "blackhole",
                    f"flow {t.name}: a connection never ended and is not reported stalled "
                    f"(failure in force at the end: {in_force})",
                )
            )
        if c.stalled_since_s is not None and c.blackholed_s < end - c.stalled_since_s - 1e-6:
            bad.append(
                (
                    "blackhole",
                    f"flow {t.name}: stalled since {c.stalled_since_s} but black-holed {c.blackholed_s} s",
                )
            )
    return bad


def _check_traffic(seq: Sequence, results: Results) -> list[Violation]:
    bad: list[Violation] = []
    end = results.end_s
    in_force = _in_force_at_end(seq)
    hosts = {h["name"] for h in seq.data["hosts"]}
    dark = _both_switches_down(seq)
    for t in results.traffic:
        life = (t.end_s if t.end_s is not None else end) - t.start_s
        if not (0 <= t.blackholed_s <= life + 1e-6):
            bad.append(("blackhole", f"flow {t.name}: black-holed {t.blackholed_s} s of a {life} s life"))
        bad += _check_connections(t, end, in_force)
        # Between two hosts (which never move), every path crosses a switch: while both are
        # down the flow is black-holed, and says so.
        if t.source in hosts and t.destination in hosts:
            t_end = t.end_s if t.end_s is not None else end
            overlap = max((min(b, t_end) - max(a, t.start_s) for a, b in dark), default=0.0)
            if overlap > 1e-6 and t.blackholed_s < overlap - 1e-6:
                bad.append(
                    (
                        "blackhole",
                        f"flow {t.name}: both switches down for {overlap} s of its life, "
                        f"black-holed {t.blackholed_s} s",
                    )
                )
    return bad


def _check_nodes(op: OperationResult) -> list[Violation]:
    """A rolling update's nodes in order: drain, down, back, end; none before the one before it."""
    bad: list[Violation] = []
    last = op.start_s
    for node in op.nodes:
        times = [node.drain_start_s, node.down_s, node.back_s, node.end_s]
        known = [x for x in times if x is not None]
        if known != sorted(known) or (known and known[0] < last - REL) or times[: len(known)] != known:
            bad.append(("operation", f"rolling update node {node.node}: times out of order {times}"))
        if known:
            last = known[-1]
    return bad


def _check_operation(seq: Sequence, results: Results, k: int, op: OperationResult) -> list[Violation]:
    """An operation's window holds its migrations; a drain moves every VM that was on its host."""
    bad: list[Violation] = []
    ms = [results.migrations[i] for i in op.migrations]
    if any(m.operation != k for m in ms):
        bad.append(("operation", f"operation {k}: a migration names another operation"))
    if any(m.queued_s < op.start_s - REL for m in ms):
        bad.append(("operation", f"operation {k} starts at {op.start_s}, after a migration was queued"))
    ends = [m.end_s for m in ms]
    if any(e is None for e in ends):
        if op.end_s is not None:
            bad.append(("operation", f"operation {k} ends at {op.end_s} with a migration that never ended"))
    elif ms and (op.end_s is None or op.end_s < max(e for e in ends if e is not None) - REL):
        bad.append(("operation", f"operation {k} ends at {op.end_s}, before its last migration"))
    if op.kind == "drain" and op.host in seq.drained and len(ms) != len(seq.drained[op.host]):
        bad.append(("lost_migration", f"drain of {op.host}: {len(ms)} migrations for {len(seq.drained[op.host])} VMs"))
    return bad


def _check_operations(seq: Sequence, results: Results) -> list[Violation]:
    bad: list[Violation] = []
    owner: Counter[int] = Counter()
    for k, op in enumerate(results.operations):
        owner.update(op.migrations)
        bad += _check_operation(seq, results, k, op)
        bad += _check_nodes(op)
    if set(owner) != set(range(len(results.migrations))) or any(v != 1 for v in owner.values()):
        bad.append(("operation", "a migration in no operation or in two"))
    return bad


def check(seq: Sequence, results: Results) -> list[Violation]:
    """Every invariant on one run's results: a list of (kind, detail) violations."""
    return [
        *_check_rates(results),
        *_check_migrations(seq, results),
        *_check_traffic(seq, results),
        *_check_operations(seq, results),
    ]


def _comparable(results: Results) -> dict[str, Any]:
    data = results.model_dump(mode="json")
    data.pop("wall_s", None)
    return data


def tally(results: Results, stats: Counter[str]) -> None:
    """What a run did, summed over the soak (to show what it exercised)."""
    stats["migrations"] += len(results.migrations)
    stats["migrations not ended"] += sum(m.end_s is None for m in results.migrations)
    stats["migrations never started"] += sum(m.start_s is None for m in results.migrations)
    stats["flows"] += len(results.traffic)
    stats["flows black-holed"] += sum(t.blackholed_s > 0 for t in results.traffic)
    stats["flows not ended"] += sum(t.end_s is None for t in results.traffic)


def run_one(seq: Sequence, filename: str, stats: Counter[str] | None = None) -> tuple[list[tuple[str, str]], int]:
    """Simulates a sequence twice and checks it; returns the violations and the simulations run."""
    scenario = scenario_from_data(seq.data, filename)
    first = hvnet.simulate(scenario)
    if stats is not None:
        tally(first, stats)
    bad = check(seq, first)
    second = hvnet.simulate(scenario)
    if _comparable(first) != _comparable(second):
        bad.append(("determinism", "a second run gave other results"))
    return bad, 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sequences", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a sequence may take (both runs)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    counts: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    stats: Counter[str] = Counter()
    simulations = failures = 0
    slowest = 0.0
    began = time.perf_counter()
    for n in range(args.sequences):
        seq = generate(rng)
        failures += len(seq.failures)
        t0 = time.perf_counter()
        try:
            bad, sims = run_one(seq, f"soak-{n:03d}.yaml", stats)
            simulations += sims
        except Exception:
            bad = [("crash", traceback.format_exc(limit=4))]
            counts["crash"] += 1
        took = time.perf_counter() - t0
        slowest = max(slowest, took)
        if took > args.timeout:
            bad.append(("slow", f"took {took:.1f} s, over {args.timeout} s"))
        for kind, _ in bad:
            kinds[kind] += 1
        if bad:
            counts["violating"] += 1
            args.out.mkdir(parents=True, exist_ok=True)
            path = args.out / f"{n:03d}.yaml"
            notes = "".join(f"# {kind}: {line}\n" for kind, detail in bad for line in detail.splitlines())
            path.write_text(
                f"# bench/soak.py --seed {args.seed}, sequence {n}\n{notes}" + yaml.safe_dump(seq.data, sort_keys=False)
            )
        if not args.quiet and (n + 1) % 50 == 0:
            print(
                f"{n + 1} sequences, {counts['violating']} violating, {time.perf_counter() - began:.0f} s",
                file=sys.stderr,
            )
    elapsed = time.perf_counter() - began
    print(
        f"sequences: {args.sequences} (seed {args.seed}), simulations: {simulations}, "
        f"failures injected: {failures}, time: {elapsed:.1f} s (slowest sequence {slowest:.2f} s)"
    )
    print(
        f"violations: {sum(v for k, v in kinds.items() if k != 'crash')}"
        + "".join(f", {k}: {v}" for k, v in sorted(kinds.items()) if k != "crash")
    )
    print(
        f"crashes: {counts['crash']}; sequences with a violation or crash: {counts['violating']}"
        + (f" (written to {args.out})" if counts["violating"] else "")
    )
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory: {peak_mib:.0f} MiB")
    print("exercised: " + ", ".join(f"{k}: {v}" for k, v in stats.items()))
    return 1 if counts["violating"] else 0


if __name__ == "__main__":
    sys.exit(main())
