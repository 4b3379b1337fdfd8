"""Operations: what the scenario's `migrate`, `drain` and `rolling_update`
events ask for, as the live migrations that carry them out.

- **migrate** moves one VM to the host it names.
- **drain** moves every VM of a host to the other hosts it fits on (a
  host's `memory` less its VMs'; a host that does not state its memory has
  room for any), chosen by its placement policy: `balanced` (the most free
  memory, then the least VM memory assigned, then file order) or
  `round_robin` (the other hosts in turn, in file order, skipping those it
  does not fit on). A VM that fits nowhere is refused with the free memory
  of each host. VMs go in file order; the source host's queue
  (`simultaneous`) paces them.
- **rolling_update** patches nodes one after the other, as Cluster-Aware
  Updating does: drain the node to the others; when its last migration ends,
  it is down for `patch_time`; it comes back; if `fail_back` (default), the
  VMs it had move back to it; then the next node.

Placement is decided here, before the run, in time order of the events,
with each VM where earlier operations left it (assumed: they all complete).
What waits for what is handed to the core as dependencies: a migration is
asked for only when the migrations it waits for have ended, plus a delay
(the patch time); each node's part and the whole window are read back from
the migrations' end times (`hvnet.readback`).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from typing import NamedTuple

from hvnet.errors import Problem
from hvnet.model import Event, Scenario
from hvnet.units import format_bytes

__all__ = ["Gate", "Move", "Operation", "Plan", "plan_operations"]


@dataclass(frozen=True)
class Gate:
    """When something may begin: `delay_s` after the last of `after`
    (migration indices) ends, and not before `at_s`. With no `after`: at `at_s` + `delay_s`."""

    at_s: float
    after: tuple[int, ...] = ()
    delay_s: float = 0.0

    def then(self, moves: list[int], delay_s: float = 0.0) -> Gate:
        """The gate after `moves` end (or after this gate, if there are none), plus `delay_s`."""
        if moves:
            return Gate(self.at_s, tuple(moves), delay_s)
        if self.after:
            return Gate(self.at_s, self.after, self.delay_s + delay_s)
        # Nothing to wait for: a time. (The core asks for a migration with no `after` at its
        # time and reads no delay: a node with no VMs kept its successor from waiting for its patch.)
        return Gate(self.at_s + self.delay_s + delay_s)

    def time(self, ends: list[float | None]) -> float | None:
        """When it opens, given every migration's end time; None if one it waits for never ended."""
        waited = [ends[i] for i in self.after]
        if any(end is None for end in waited):
            return None
        last = max((end for end in waited if end is not None), default=self.at_s)
        return max(self.at_s, last + self.delay_s)


class Move(NamedTuple):
    """One VM's live migration that an operation asks for (thousands in a rolling update: a tuple)."""

    vm: str
    source: str
    target: str
    gate: Gate
    #: Index of the operation it belongs to, and of its event in the scenario.
    operation: int
    event: int


@dataclass
class NodePlan:
    """One node's part of a rolling update: its drain, its downtime, its fail-back."""

    node: str
    start: Gate
    drain: list[int] = field(default_factory=list)
    fail_back: list[int] = field(default_factory=list)


@dataclass
class Operation:
    """A migrate, drain or rolling_update event and the migrations it makes."""

    kind: str
    event: int
    at_s: float
    #: The drained host, or the migrated VM's source; None for a rolling update.
    host: str | None
    moves: list[int] = field(default_factory=list)
    nodes: list[NodePlan] = field(default_factory=list)
    patch_time_s: float = 0.0


@dataclass
class Plan:
    moves: list[Move] = field(default_factory=list)
    operations: list[Operation] = field(default_factory=list)


class _Planner:
    def __init__(self, scenario: Scenario, filename: str) -> None:
        self.scenario = scenario
        self.filename = filename
        self.where = {vm.name: vm.host for vm in scenario.vms}
        self.memory = {vm.name: vm.memory for vm in scenario.vms}
        #: Each VM's place in the file, and the VMs each host has in the plan so far.
        self.position = {vm.name: i for i, vm in enumerate(scenario.vms)}
        self.on = {host.name: set[str]() for host in scenario.hosts}
        #: Each host's memory (None: not stated, unlimited), and the VM memory
        #: assigned on it where the plan has put its VMs so far.
        self.capacity = {host.name: host.memory for host in scenario.hosts}
        self.assigned = {host.name: 0 for host in scenario.hosts}
        for vm in scenario.vms:
            self.on[vm.host].add(vm.name)
            self.assigned[vm.host] += vm.memory
        self.plan = Plan()
        self.problems: list[Problem] = []

    def move(self, vm: str, target: str, gate: Gate, operation: int, event: int) -> int:
        source, moves, on, assigned, memory = self.where[vm], self.plan.moves, self.on, self.assigned, self.memory[vm]
        moves.append(Move(vm, source, target, gate, operation, event))
        self.where[vm] = target
        on[source].discard(vm)
        on[target].add(vm)
        assigned[source] -= memory
        assigned[target] += memory
        return len(moves) - 1

    def free(self, host: str) -> float:
        """Memory `host` can still give a VM; unlimited when it does not state its memory."""
        memory = self.capacity[host]
        return math.inf if memory is None else memory - self.assigned[host]

    def room(self, hosts: list[str]) -> str:
        return ", ".join(f"{h} {format_bytes(int(self.free(h)))}" for h in hosts if self.free(h) != math.inf)

    def drain(self, host: str, others: list[str], placement: str, gate: Gate, operation: int, event: int) -> list[int]:
        """Moves every VM of `host` to `others` by the placement policy, each where it fits."""
        moves, turn = [], 0
        balanced = _Balanced(self, others)
        for name in sorted(self.on[host], key=self.position.__getitem__):  # in file order
            vm = self.scenario.vms[self.position[name]]
            if placement == "round_robin":
                fits = [h for h in others if self.free(h) >= vm.memory]
                ring = others[turn % len(others) :] + others[: turn % len(others)]
                target = next((h for h in ring if h in fits), None)
                turn = others.index(target) + 1 if target is not None else turn
            else:
                target = balanced.best(vm.memory)
            if target is None:
                why = f"{vm.name} ({format_bytes(vm.memory)}) fits on no other host (free: {self.room(others)})"
                self.problems.append(Problem(self.filename, None, f"events[{event}]", why))
                continue
            moves.append(self.move(vm.name, target, gate, operation, event))
        return moves

    def add(self, index: int, event: Event) -> None:
        action = str(event.action.value)
        operation = len(self.plan.operations)
        gate = Gate(event.at)
        placement = "balanced" if event.placement is None else str(event.placement.value)
        hosts = [h.name for h in self.scenario.hosts]
        if action == "migrate" and event.target is not None and event.to is not None:
            source = self.where[event.target]
            if source == event.to:
                message = f"{event.target} already runs on {event.to} then (after the operations before it)"
                self.problems.append(Problem(self.filename, None, f"events[{index}].to", message))
                return
            memory = self.scenario.vm(event.target).memory
            if self.free(event.to) < memory:
                free = self.room([event.to])
                message = f"{event.target} ({format_bytes(memory)}) does not fit on {event.to} then (free: {free})"
                self.problems.append(Problem(self.filename, None, f"events[{index}].to", message))
                return
            self.plan.operations.append(Operation("migrate", index, event.at, source))
            self.plan.operations[-1].moves = [self.move(event.target, event.to, gate, operation, index)]
        elif action == "drain" and event.target is not None:
            self.plan.operations.append(Operation("drain", index, event.at, event.target))
            others = [h for h in hosts if h != event.target]
            self.plan.operations[-1].moves = self.drain(event.target, others, placement, gate, operation, index)
        elif action == "rolling_update":
            patch = event.patch_time or 0.0
            done = Operation("rolling_update", index, event.at, None, patch_time_s=patch)
            self.plan.operations.append(done)
            for node in event.nodes or hosts:
                part = NodePlan(node, gate)
                had = sorted(self.on[node], key=self.position.__getitem__)  # in file order
                part.drain = self.drain(node, [h for h in hosts if h != node], placement, gate, operation, index)
                back = gate.then(part.drain, patch)
                if event.fail_back is not False:
                    part.fail_back = [self.move(vm, node, back, operation, index) for vm in had]
                gate = back.then(part.fail_back)
                done.nodes.append(part)
                done.moves += part.drain + part.fail_back


class _Balanced:
    """The balanced placement over `others`: the host with the most free memory, then the least
    assigned, then the first in file order. A heap of those keys: a host that takes a VM only
    loses rank, so its entry is refreshed when it comes to the top, and a drain of V VMs over H
    hosts takes about V log H steps rather than V × H."""

    def __init__(self, planner: _Planner, others: list[str]) -> None:
        self.planner = planner
        self.heap = [self._key(k, h) for k, h in enumerate(others)]
        heapq.heapify(self.heap)

    def _key(self, order: int, host: str) -> tuple[float, int, int, str]:
        return (-self.planner.free(host), self.planner.assigned[host], order, host)

    def best(self, memory: int) -> str | None:
        """The host a VM of `memory` goes to; None when it fits on none (the best has too little)."""
        while self.heap:
            key = self.heap[0]
            if key == self._key(key[2], key[3]):
                return key[3] if -key[0] >= memory else None
            heapq.heapreplace(self.heap, self._key(key[2], key[3]))  # stale: the host took a VM since
        return None


def plan_operations(scenario: Scenario, filename: str = "<scenario>") -> tuple[Plan, list[Problem]]:
    """The migrations the scenario's operations make, in an order where each
    comes after those it waits for; and the operations that cannot be planned."""
    planner = _Planner(scenario, filename)
    for index, event in sorted(enumerate(scenario.events), key=lambda pair: pair[1].at):
        planner.add(index, event)
    return planner.plan, planner.problems
