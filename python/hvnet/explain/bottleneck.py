"""What limits a predicted test: each resource on its connections' path, how full it was and for how long.

The test runs once more as `hvnet.ntttcp` runs it (the same connection
requests, through `lower` and `run`), recording each resource's use, and
read-back names what the run used exactly as `hvnet simulate` shows it
(`readback.adapter_series`, `core_series`, `vcpu_series`, `outcomes`).
Nothing here re-derives a rate; it reads the simulation's results:

    share(t)  a link's line rate / its speed; a core's or vCPU's busy share (0 to 1)
    mean      the mean share over the test, [0, T)
    full_s    the time the share is above FULL_SHARE (99 %)

In max-min sharing a connection that sends as fast as it can is held by a
resource on its path that is full. The path, in the order a byte goes:

- **send vCPUs** and **receive vCPUs**: the sending and the receiving VM's own stack;
- **send cores** and **receive cores**: the busy cores of the sender's and of the
  receiver's host (the run has the test's connections only, so a busy core of the
  receiver's host does the receive work; on one host: "cores", both);
- **NIC send** and **NIC receive**: each connection's team members, as the run chose
  them (`outcomes`), with how many connections each carried;
- **fabric**: links between switches and switch backplanes that carried the test.

A stage *holds* the test when its resources are full, together, for at least
half of it; a team member that is full while another member of its team
carries under `utilisation.COLD_SHARE` of the team's bytes is the team's hash
(or rule) at work, and is said so.
"""

from __future__ import annotations

from dataclasses import dataclass

from hvnet.calibration import Calibration
from hvnet.explain.recreate import Test
from hvnet.model import Scenario
from hvnet.ntttcp import ntttcp_run
from hvnet.outcomes import outcomes
from hvnet.readback import adapter_series, core_series, vcpu_series
from hvnet.results import AdapterSeries
from hvnet.run import NetworkRun
from hvnet.series import Series
from hvnet.utilisation import COLD_SHARE

__all__ = ["FULL_SHARE", "STAGES", "Chain", "Group", "Use", "bottleneck_chain", "cold_members", "run_test"]

#: A resource is full while its share is above this (99 %).
FULL_SHARE = 0.99
#: A stage holds the test when its resources are full for at least this share of it.
HOLDS_SHARE = 0.5
#: The stages of a test's path, in the order a byte goes.
STAGES = (
    "send vCPUs",
    "send cores",
    "cores",
    "NIC send",
    "fabric",
    "NIC receive",
    "receive cores",
    "receive vCPUs",
)


@dataclass(frozen=True)
class Use:
    """One resource on the test's path: how full it was over the test, and for how long."""

    stage: str
    #: As the results name it: "hv2 core 3", "hv2/nic2", "vm2 vCPU 0", "sw1 backplane".
    resource: str
    mean_share: float
    peak_share: float
    full_s: float
    #: The test's connections through it (a NIC's, from the run's choices); None for a core or
    #: vCPU (the run does not say which connection a core worked for).
    connections: int | None
    #: Its share over time (0 to 1).
    share: Series
    #: A link's speed (bits/s) and its host's team; None for a processor.
    speed_bps: float | None = None
    team: str | None = None


@dataclass(frozen=True)
class Group:
    """Threads that took the same NICs: their rates and what holds them."""

    threads: tuple[int, ...]
    #: Each thread's mean rate over the test, payload bits/s.
    rate_bps: tuple[float, ...]
    #: The NICs they used ("hv1/nic1 -> hv2/nic2"), every pair they moved over.
    nics: tuple[str, ...]
    #: The resources on their path that were full, in the stages that hold the test.
    held_by: tuple[str, ...]


@dataclass(frozen=True)
class Chain:
    """The bottleneck chain of a predicted test."""

    seconds: float
    uses: tuple[Use, ...]
    groups: tuple[Group, ...]
    #: The stages that hold the test, in path order.
    holding: tuple[str, ...]
    #: The receiving NICs' line rate scaled to payload (their sum is the test's throughput over time).
    payload_bps: tuple[Series, ...]

    def stage(self, name: str) -> list[Use]:
        return [u for u in self.uses if u.stage == name]


def run_test(scenario: Scenario, test: Test, calibration: Calibration | None = None) -> NetworkRun:
    """The test as `hvnet.ntttcp.run_ntttcp` runs it, recorded (`hvnet.ntttcp.ntttcp_run`)."""
    return ntttcp_run(scenario, test.sender, test.receiver, test.threads, test.seconds, calibration)


def _use(
    stage: str,
    name: str,
    share: Series,
    seconds: float,
    connections: int | None = None,
    adapter: AdapterSeries | None = None,
) -> Use:
    return Use(
        stage,
        name,
        share.mean(0.0, seconds),
        share.peak(),
        share.busy_time(FULL_SHARE, seconds),
        connections,
        share,
        None if adapter is None else adapter.speed_bps,
        None if adapter is None else adapter.team,
    )


def _link_uses(
    adapters: list[AdapterSeries], test: Test, scenario: Scenario, run: NetworkRun
) -> tuple[list[Use], list[Series]]:
    """Each team member (or NIC) of the sender's uplink sending, and of the receiver's receiving."""
    sender, receiver = scenario.endpoint_host(test.sender).name, scenario.endpoint_host(test.receiver).name
    carried: dict[tuple[str, str], int] = {}
    for outcome in outcomes(run).connections:
        used = {(d, nic) for _, out, into in outcome.nics for d, nic in (("send", out), ("receive", into)) if nic}
        for key in used:
            carried[key] = carried.get(key, 0) + 1
    uses, payload = [], []
    for direction, host in (("send", sender), ("receive", receiver)):
        touched = {a.team for a in adapters if a.host == host and carried.get((direction, f"{a.host}/{a.nic}"))}
        for a in adapters:
            if a.host != host or not (carried.get((direction, f"{a.host}/{a.nic}")) or a.team in touched - {None}):
                continue
            line = a.send_bps if direction == "send" else a.receive_bps
            share = Series.of(line.t_s, line.values, 1 / a.speed_bps) if a.speed_bps > 0 else Series()
            name = f"{a.host}/{a.nic}"
            uses.append(_use(f"NIC {direction}", name, share, test.seconds, carried.get((direction, name), 0), a))
            if direction == "receive":
                payload.append(line)
    return uses, payload


def _processor_uses(scenario: Scenario, test: Test, run: NetworkRun) -> list[Use]:
    """The busy cores of both hosts and the busy vCPUs of both VMs."""
    model = run.lowered.model
    sender, receiver = scenario.endpoint_host(test.sender).name, scenario.endpoint_host(test.receiver).name
    uses = []
    for c in core_series(model, run):
        if not c.busy.nonzero() or c.host not in (sender, receiver):
            continue
        stage = "cores" if sender == receiver else "send cores" if c.host == sender else "receive cores"
        uses.append(_use(stage, f"{c.host} core {c.core}", c.busy, test.seconds))
    for v in vcpu_series(model, run):
        if v.busy.nonzero() and v.vm in (test.sender, test.receiver):
            stage = "send vCPUs" if v.vm == test.sender else "receive vCPUs"
            uses.append(_use(stage, f"{v.vm} vCPU {v.vcpu}", v.busy, test.seconds))
    return uses


def _fabric_uses(test: Test, run: NetworkRun) -> list[Use]:
    """Links between switches and switch backplanes that carried the test."""
    fabric = run.lowered.model.fabric
    resources = [d.resource for links in fabric.uplinks.values() for _, d in links] + list(fabric.backplane.values())
    uses = []
    for r in sorted(resources):
        capacity = fabric.capacities[r]
        if run.series is None or capacity <= 0:
            continue
        share = Series.of(*run.series[r], 1 / capacity)
        if share.nonzero():
            uses.append(_use("fabric", fabric.names[r], share, test.seconds))
    return uses


def _holding(uses: list[Use], seconds: float) -> list[str]:
    """The stages whose resources are full, together, for at least half the test."""
    held = []
    for stage in STAGES:
        full = min(seconds, sum(u.full_s for u in uses if u.stage == stage))
        if seconds > 0 and full >= HOLDS_SHARE * seconds:
            held.append(stage)
    return held


def _groups(run: NetworkRun, test: Test, uses: list[Use], holding: list[str]) -> list[Group]:
    """Threads grouped by the NICs they used, each group with the full resources on its path."""
    by_nics: dict[tuple[str, ...], list[int]] = {}
    rates: list[float] = []
    for k, outcome in enumerate(outcomes(run).connections):
        pairs = tuple(sorted({f"{out or 'none'} -> {into or 'none'}" for _, out, into in outcome.nics}))
        by_nics.setdefault(pairs, []).append(k)
        rates.append(8 * outcome.sent_bytes / test.seconds)
    groups = []
    for pairs, threads in by_nics.items():
        ends = {nic for pair in pairs for nic in pair.split(" -> ")}
        held = [
            u.resource
            for u in uses
            if u.stage in holding and u.full_s > 0 and (not u.stage.startswith("NIC") or u.resource in ends)
        ]
        groups.append(Group(tuple(threads), tuple(rates[k] for k in threads), pairs, tuple(held)))
    return groups


def bottleneck_chain(scenario: Scenario, test: Test, calibration: Calibration | None = None) -> Chain:
    """The test's path, stage by stage, from a recorded run of it (see the module's header)."""
    run = run_test(scenario, test, calibration)
    links, receiving = _link_uses(adapter_series(scenario, run), test, scenario, run)
    uses = _processor_uses(scenario, test, run) + links + _fabric_uses(test, run)
    uses.sort(key=lambda u: STAGES.index(u.stage))
    holding = _holding(uses, test.seconds)
    groups = _groups(run, test, uses, holding)
    payload = sum(8 * o.sent_bytes for o in outcomes(run).connections)
    wire = sum(s.integral(0.0, test.seconds) for s in receiving)
    scaled = tuple(Series.of(s.t_s, s.values, payload / wire) for s in receiving) if wire > 0 else ()
    return Chain(test.seconds, tuple(uses), tuple(groups), tuple(holding), scaled)


def cold_members(uses: tuple[Use, ...], use: Use) -> list[Use]:
    """The other members of `use`'s team in the same direction that carried under COLD_SHARE of its bytes,
    when `use` carried two connections or more (one connection is on one member whatever the hash)."""
    if use.team is None or use.speed_bps is None or (use.connections or 0) < 2:
        return []
    members = [u for u in uses if u.stage == use.stage and u.team == use.team and u.speed_bps is not None]
    total = sum(u.mean_share * (u.speed_bps or 0.0) for u in members)
    return [
        u for u in members if u is not use and total > 0 and u.mean_share * (u.speed_bps or 0.0) < COLD_SHARE * total
    ]
