"""Runs a scenario: builds the engine's inputs, runs the engine, shapes results.

Each traffic entry opens `connections` TCP connections that split its size
evenly; each connection is one engine transfer on the path its NICs and the
switches give it. Events change capacities: a NIC, cable or switch that goes
down, or a switch port that black-holes, gives its cable directions capacity
0 until it comes back (a resource is up only when none of its causes is
down). Connections keep their path; a connection whose path stays down never
completes and is reported as stalled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hvnet import _core
from hvnet.endpoints import Router
from hvnet.errors import Problem, ScenarioError
from hvnet.model import Scenario
from hvnet.fabric import Fabric, Port, build_fabric
from hvnet.results import AdapterSeries, Results, TrafficResult

__all__ = ["TransferPlan", "plan_transfers", "simulate"]

@dataclass
class TransferPlan:
    """The engine transfers of a scenario, and which traffic entry each serves."""

    fabric: Fabric
    starts: list[float]
    amounts: list[float]
    routes: list[list[tuple[int, float]]]
    traffic_index: list[int]


def plan_transfers(scenario: Scenario, filename: str = "<scenario>") -> TransferPlan:
    router = Router(scenario)
    plan = TransferPlan(router.fabric, [], [], [], [])
    problems: list[Problem] = []
    for index, traffic in enumerate(scenario.traffic):
        for _ in range(traffic.connections):
            route = router.route(traffic.src, traffic.dst)
            if isinstance(route, str):
                problems.append(Problem(filename, None, f"traffic[{index}]", route))
                break
            plan.starts.append(traffic.start)
            plan.amounts.append(traffic.size / traffic.connections)
            plan.routes.append(route)
            plan.traffic_index.append(index)
    if problems:
        raise ScenarioError(problems)
    return plan


def capacity_changes(scenario: Scenario, fabric: Fabric) -> list[tuple[float, int, float]]:
    """(time, resource, capacity) whenever a resource's up/down state changes."""
    causes: dict[int, set[str]] = {}
    changes: list[tuple[float, int, float]] = []
    for event in sorted(scenario.events, key=lambda e: e.at):
        down = event.action.endswith(("_down", "_blackhole"))
        cause = _cause(event.action, event.target, fabric)
        for resource in _resources_hit(event.action, event.target, fabric):
            was_up = not causes.get(resource)
            if down:
                causes.setdefault(resource, set()).add(cause)
            else:
                causes.get(resource, set()).discard(cause)
            is_up = not causes.get(resource)
            if was_up != is_up:
                changes.append((event.at, resource, fabric.capacities[resource] if is_up else 0.0))
    return changes


def _cause(action: str, target: str, fabric: Fabric) -> str:
    """What an event acts on, the same for its down and up actions: `nic:hv1/nic1`.

    A cable may be named by either end, so both ends give one name.
    """
    kind = action.rsplit("_", 1)[0]
    if kind == "cable":
        node, _, port = target.partition("/")
        peer = fabric.peer(Port(node, port))
        target = target if peer is None else min(target, str(peer))
    return f"{kind}:{target}"


def _resources_hit(action: str, target: str, fabric: Fabric) -> list[int]:
    if action.startswith("switch"):
        hit = [d.resource for p, d in fabric.out_of.items() if p.node == target or d.target.node == target]
        if target in fabric.backplane:
            hit.append(fabric.backplane[target])
        return hit
    node, _, port = target.partition("/")
    here = Port(node, port)
    return [d.resource for d in (fabric.out_of.get(here), fabric.into.get(here)) if d is not None]


def simulate(scenario: Scenario, step_s: float = 1.0, filename: str = "<scenario>") -> Results:
    """Simulates the scenario; `step_s` is the resolution of the time series."""
    plan = plan_transfers(scenario, filename)
    fabric = plan.fabric
    run = _core.run_workload(
        fabric.capacities,
        fabric.fatpipe,
        plan.starts,
        plan.amounts,
        plan.routes,
        changes=capacity_changes(scenario, fabric),
        record_step=step_s,
    )
    ends: Sequence[float | None] = run["end"]
    # A traffic entry ends when its last connection ends; never, if one never does.
    last_end: list[float | None] = [0.0] * len(scenario.traffic)
    for index, end in zip(plan.traffic_index, ends):
        so_far = last_end[index]
        last_end[index] = None if end is None or so_far is None else max(so_far, end)
    traffic_results = [TrafficResult.of(t, end) for t, end in zip(scenario.traffic, last_end)]
    adapters = []
    for host in scenario.hosts:
        for nic in host.nics:
            port = Port(host.name, nic.name)
            send, receive = fabric.out_of.get(port), fabric.into.get(port)
            adapters.append(
                AdapterSeries(
                    host=host.name,
                    nic=nic.name,
                    speed_bps=nic.speed,
                    send_bps=[8 * x for x in run["series"][send.resource]] if send else [],
                    receive_bps=[8 * x for x in run["series"][receive.resource]] if receive else [],
                )
            )
    return Results(
        scenario=scenario.name,
        step_s=step_s,
        end_s=run["end_time"],
        events=run["events"],
        wall_s=run["wall_s"],
        traffic=traffic_results,
        adapters=adapters,
    )
