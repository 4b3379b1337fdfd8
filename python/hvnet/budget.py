"""A run's size, estimated before it runs (issue 15).

Every bound of a scenario holds on its own, and a valid scenario can still ask
for a run too large for the machine: 64,000 connections on dynamically
balanced teams rebalanced every second over a year of traffic. Before the one
call into the core (`hvnet.run`), `estimate` bounds from the lowered run
(`specs.RunSpec`), in one pass over it:

    horizon  = latest start (connection, migration + its delay, change)
               + every byte the run may move / the slowest NIC's speed
    events   = 2 · connections
             + Σ migrations (max passes + 2) · channels · 2
             + changes + 2 · guests
    ticks    = horizon / rebalance interval    (dynamic teams: one tick each)
             + horizon / dynamic VMQ interval  (two or more dynamic queues)
    changing = 2 · events (1 · events without ticks): a tick changes rates only
               when the event before it did (from a steady state the same spread
               comes out), so at most one tick's changes per other event
    points   = changing · min(resources, POINTS_PER_EVENT)   (when recording: change points)
    pairs    = changing · running   (when recording: each event may change the rate
               of every connection running, and each change is kept; running = connections
               + Σ host queues min(migrations, simultaneous) · channels)
    memory   = (events + ticks) · BYTES_PER_EVENT + points · BYTES_PER_POINT + pairs · BYTES_PER_PAIR

and `check` refuses a run whose memory is over the limit with one line that
names the cause and the knob. The limit is `max_memory_bytes` (a parameter of
`hvnet.simulate`), else the environment variable `HVNET_MAX_MEMORY` (`8GiB`),
else half the machine's physical memory.

The bytes per item are measured (docs/reliability.md, "A run's size"): a
change point is a (time, value) pair of f64 in the core (16 bytes), then two
Python floats in two lists in the run's report and again in the `Results`
series (2 × 2 × 32 bytes), and its JSON text; an event costs the core's
bookkeeping and a connection's or migration's report.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

from hvnet.errors import HvnetError, RunTooLarge
from hvnet.lower import specs
from hvnet.units import parse_bytes

__all__ = [
    "BYTES_PER_EVENT",
    "BYTES_PER_PAIR",
    "BYTES_PER_POINT",
    "Estimate",
    "check",
    "default_limit",
    "estimate",
    "limit",
]

#: Measured peak bytes per recorded change point (core, report, `Results`, JSON), with margin.
BYTES_PER_POINT = 400
#: Measured peak bytes per engine event that records nothing (the core's state per activity), with margin.
BYTES_PER_EVENT = 100
#: Measured peak bytes per (event, running connection): 23.6 to 23.9 with 2,000 and 8,000
#: staggered connections (7,226 and 28,911 events, 345 MiB and 5.2 GiB resident).
BYTES_PER_PAIR = 24
#: At most this many resources' rates change at one event, as measured (a path's links and cores), with margin.
POINTS_PER_EVENT = 24
#: Environment variable that sets the limit (`8GiB`, `512MiB`, or a number of bytes).
ENVIRONMENT = "HVNET_MAX_MEMORY"


@dataclass(frozen=True)
class Estimate:
    """An upper bound of a run's size, and what drives it."""

    events: float
    points: float
    memory_bytes: float
    horizon_s: float
    #: The largest term of `events`, in words ("64,000 connections rebalanced every 1 s over 1,000 h").
    cause: str


def _hours(seconds: float) -> str:
    if seconds >= 3600:
        return f"{seconds / 3600:,.0f} h"
    return f"{seconds:,.0f} s"


def _amount(value: float) -> str:
    return f"{value:.1e}" if value >= 1e6 else f"{value:,.0f}"


def _bytes(value: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= size:
            return f"{value / size:.1f} {unit}"
    return f"{value:.0f} B"


class _Route(NamedTuple):
    """What the estimate reads of a migration's route: its source endpoint, pre-copy's passes, its SMB
    channels, and its source host with the migrations that host runs at once (`specs.Migration`'s)."""

    source: int
    max_passes: int
    channels: int
    host: int
    simultaneous: int
    #: A migration's events at most: each pass and the blackout copy starting and ending on each channel.
    events: int

    @classmethod
    def of(cls, m: specs.Migration | specs.MigrationRoute) -> _Route:
        passes, channels = m.precopy.max_passes, len(m.channels)
        return cls(m.source, passes, channels, m.hosts[0], m.simultaneous[0], (passes + 2) * max(1, channels) * 2)


def _migrations(spec: specs.RunSpec) -> list[tuple[_Route, specs.GuestMemory, float, float]]:
    """Every migration of `spec` in the core's order (`RunSpec.all_migrations`) as its route, memory,
    `at_s` and `delay_s`; a table's rows read through their routes, each route read once."""
    out = [(_Route.of(m), m.memory, m.at_s, m.delay_s) for m in spec.migrations]
    table = spec.migration_table
    if table is not None:
        routes, memories = [_Route.of(route) for route in table.routes], table.memories
        out += [
            (routes[r], memories[m], at_s, delay_s)
            for r, m, at_s, delay_s in zip(table.route, table.memory, table.at_s, table.delay_s, strict=True)
        ]
    return out


def estimate(spec: specs.RunSpec) -> Estimate:
    """Bounds the events, change points and memory of running `spec` (linear in its size)."""
    network = spec.network
    migrations = _migrations(spec)
    speeds = [network.resources[n.send].capacity for n in network.nics if network.resources[n.send].capacity > 0]
    slowest = min(speeds) if speeds else 1.0
    latest = 0.0
    moved = 0.0
    for connection in spec.connections:
        latest = max(latest, connection.start_s, connection.stop_s or 0.0)
        moved += connection.amount_bytes
    migration_events = 0.0
    latest = max(latest, max((at_s + delay_s for _, _, at_s, delay_s in migrations), default=latest))
    for route, guest, _, _ in migrations:
        moved += (route.max_passes + 1) * guest.assigned_bytes + guest.device_state_bytes
        migration_events += route.events
    for change in spec.changes:
        latest = max(latest, change.at_s)
    # The other work ends by `horizon`; a step of measured demand after it changes its own resource
    # alone (nothing else runs to share it with), one before it may move every rate, as any event.
    horizon = latest + moved / slowest
    steps = sum(len(load.steps) for load in network.loads)
    busy_steps = sum(1 for load in network.loads for at, _ in load.steps if at <= horizon)
    idle_steps = steps - busy_steps
    terms: list[tuple[float, str]] = [
        (2.0 * len(spec.connections), f"{len(spec.connections):,} connections"),
        (migration_events, f"{len(migrations):,} migrations, their passes and channels"),
        (float(len(spec.changes)), f"{len(spec.changes):,} changes"),
        (2.0 * len(spec.guests), f"{len(spec.guests):,} guests"),
        (float(steps), f"{steps:,} steps of measured demand"),
    ]
    ticks: list[tuple[float, str]] = []
    dynamic = {t for t, team in enumerate(network.teams) if team.balancing == "dynamic"}
    if dynamic and network.rebalance_interval_s is not None and network.rebalance_interval_s > 0:
        # One tick per interval while a connection moves data.
        def on_dynamic(endpoint: int) -> bool:
            uplink = network.endpoints[endpoint].uplink
            return uplink.kind == "team" and uplink.index in dynamic

        leaving = sum(1 for c in spec.connections if on_dynamic(c.source))
        leaving += sum(max(1, route.channels) for route, *_ in migrations if on_dynamic(route.source))
        what = (
            f"{leaving:,} connections on dynamic teams rebalanced every "
            f"{network.rebalance_interval_s:g} s over {_hours(horizon)}"
        )
        ticks.append((horizon / network.rebalance_interval_s, what))
    queues = sum(1 for e in network.endpoints if e.queue_cores)
    if queues > 1 and network.dynamic_vmq is not None and network.dynamic_vmq.interval_s > 0:
        # One tick per interval while a core holds two queues in use.
        what = (
            f"{queues:,} dynamic VM queues rebalanced every {network.dynamic_vmq.interval_s:g} s over {_hours(horizon)}"
        )
        ticks.append((horizon / network.dynamic_vmq.interval_s, what))
    base = sum(value for value, _ in terms)
    events = base + sum(value for value, _ in ticks)
    # A tick changes rates only when the event before it did (from a steady state the same
    # spread comes out): at most one tick's changes per other event.
    changing = 2 * (base - idle_steps) if ticks else base - idle_steps
    points = changing * min(len(network.resources), POINTS_PER_EVENT) + idle_steps if spec.record else 0.0
    # Migrations run at most `simultaneous` at a time per source host (bounding them by it alone
    # over-counts where destinations hold them back: an upper bound).
    queued: dict[int, tuple[int, int, int]] = {}
    for route, count in Counter(route for route, *_ in migrations).items():  # each route once, with its migrations
        total, most, channels = queued.get(route.host, (0, 0, 0))
        queued[route.host] = (total + count, max(most, route.simultaneous), max(channels, route.channels, 1))
    running = len(spec.connections) + sum(min(count, most) * channels for count, most, channels in queued.values())
    pairs = changing * running if spec.record else 0.0  # (kept only when the run records)
    parts = [
        (events * BYTES_PER_EVENT, max(ticks + terms)[1]),
        (points * BYTES_PER_POINT, f"{_amount(points)} change points from {max(terms)[1]}"),
        (
            pairs * BYTES_PER_PAIR,
            f"{running:,} connections whose rates may change at each of {_amount(changing)} events",
        ),
    ]
    memory = sum(value for value, _ in parts)
    what = max(parts)[1]
    cause = f"about {_amount(events)} events, {_amount(points)} change points ({_bytes(memory)}): {what}"
    return Estimate(events, points, memory, horizon, cause)


def default_limit() -> int:
    """Half the machine's physical memory (4 GiB where the machine does not say)."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")) // 2
    except (AttributeError, ValueError, OSError):
        return 4 * 2**30


def limit(max_memory_bytes: int | None = None) -> int:
    """The limit in force: the argument, else `HVNET_MAX_MEMORY`, else `default_limit()`."""
    if max_memory_bytes is not None:
        return max_memory_bytes
    text = os.environ.get(ENVIRONMENT, "").strip()
    if text:
        try:
            return int(text) if text.isdigit() else parse_bytes(text)
        except (HvnetError, ValueError, OverflowError):
            raise HvnetError(f"{ENVIRONMENT}: {text!r} is not a size; write e.g. 8GiB or 512MiB") from None
    return default_limit()


def check(spec: specs.RunSpec, source: str, max_memory_bytes: int | None = None) -> Estimate:
    """The run's estimate, or RunTooLarge when it would need more than the limit."""
    allowed = limit(max_memory_bytes)
    found = estimate(spec)
    if found.memory_bytes > allowed:
        raise RunTooLarge(
            f"{source}: this run is too large to simulate: {found.cause}; the limit is {_bytes(allowed)} "
            f"(set {ENVIRONMENT}, e.g. {ENVIRONMENT}=16GiB, or simulate(max_memory_bytes=...)), "
            "or shorten the run, slow the rebalancing or split the scenario"
        )
    return found
