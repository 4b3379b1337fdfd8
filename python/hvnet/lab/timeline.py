"""What happens in the lab and when: each connection's pinning, the failures and moves in time, the agents' work.

A pure function of the topology (`lab.plan`) and the prediction (`lab.prediction`):

- **Addresses and rules** (before the run): connection k's source address on its sender's
  loopback and its destination address on its receiver's (`names.addresses`), and on each side a
  rule that sends what leaves from that address to the connection's own table (`names.table`).
- **Pins** (before the run, and at every move): in the sender's table, a route to the destination
  by the NIC the connection leaves by, and a static neighbour entry giving the MAC of the NIC it
  arrives on; in the receiver's, the same backwards (its ACKs). So every packet of the connection
  goes by the team members hvnet's teaming chose, and follows hvnet's moves: where the kernel has
  no bonding (these machines have none) this *is* the team; where it has, the lab still pins, so
  that it measures the network's sharing given the team's choices (`lab.runner` says which).
- **Failures** at their scaled times: `nic_down`/`nic_up` set the host's interface down and up;
  `cable_down`/`cable_up` the cable's switch end (else its `b` end), so the host sees its carrier
  go; `switch_down`/`switch_up` every port of the switch and its bridge; `port_blackhole`/
  `port_restore` the bridge port's state (disabled, forwarding) with the link left up. Setting a
  host's interface down removes the routes through it; when it comes back, the connections pinned
  to it get theirs again. A pin onto an interface that is down waits until it is up.
- **Agents' work** (`lab.agent`): per host, the connections it receives and the transfers it
  sends, each transfer's streams in steps with their bytes, rates and waits (`AgentJob`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hvnet.lab import names
from hvnet.lab.plan import End, Topology
from hvnet.lab.prediction import Pin, Prediction, Stream, Transfer
from hvnet.lower.fabric import Port
from hvnet.model import Scenario

__all__ = ["Action", "Timeline", "agent_jobs", "plan_timeline", "runnable"]

#: Events whose work is the migrations' (from the prediction), not a change to the lab's network.
_OPERATIONS = frozenset({"migrate", "drain", "rolling_update"})


@dataclass(frozen=True)
class Action:
    """`ip` lines per namespace at a time of the scaled run (0: before it starts)."""

    at_s: float
    what: str
    lines: dict[str, tuple[str, ...]]


@dataclass
class Timeline:
    #: Before the run: addresses, rules and each connection's first pin.
    setup: dict[str, list[str]] = field(default_factory=dict)
    actions: list[Action] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def runnable(topology: Topology, stream: Stream) -> bool:
    """Whether the lab runs a stream: between two hosts, each with a cabled NIC."""
    hosts = topology.host_interfaces
    return stream.source != stream.target and bool(hosts(stream.source)) and bool(hosts(stream.target))


def _first_pin(stream: Stream, topology: Topology, scenario: Scenario) -> Pin:
    """The NICs a stream starts on; where its team had no working member at its start, the first it later
    used, else its hosts' first cabled NICs (its path is down: it waits as the twin's does)."""
    for pin in stream.pins:
        if pin.out_nic is not None and pin.in_nic is not None:
            return Pin(stream.start_s, pin.out_nic, pin.in_nic)
    ends = topology.ends

    def first(host: str) -> Port:
        return next(Port(host, n.name) for n in scenario.host(host).nics if Port(host, n.name) in ends)

    return Pin(stream.start_s, first(stream.source), first(stream.target))


def _pin_lines(stream: Stream, out: End, into: End, down: set[tuple[str, str]]) -> dict[str, list[str]]:
    """The routes and neighbour entries that put `stream` on `out` -> `into` (a route on a down interface waits)."""
    source, target = names.addresses(stream.index)
    table = names.table(stream.index)
    lines: dict[str, list[str]] = {out.namespace: [], into.namespace: []}
    for here, there, address in ((out, into, target), (into, out, source)):
        if (here.namespace, here.ifname) not in down:
            lines[here.namespace].append(f"route replace {address}/32 dev {here.ifname} table {table}")
        lines[here.namespace].append(f"neigh replace {address} lladdr {there.mac} dev {here.ifname} nud permanent")
    return lines


def _merge(into: dict[str, list[str]], more: dict[str, list[str]]) -> None:
    for namespace, lines in more.items():
        into.setdefault(namespace, []).extend(lines)


class _Planner:
    def __init__(self, topology: Topology, prediction: Prediction) -> None:
        self.topology = topology
        self.ends = topology.ends
        self.scenario = prediction.scenario
        self.streams = [s for s in prediction.streams if runnable(topology, s)]
        self.current: dict[int, tuple[End, End]] = {}
        self.down: set[tuple[str, str]] = set()
        self.timeline = Timeline()
        skipped = len(prediction.streams) - len(self.streams)
        if skipped:
            self.timeline.notes.append(f"{skipped} connections cross no cabled NIC of the lab and are not run")

    def setup(self) -> None:
        setup: dict[str, list[str]] = {}
        for stream in self.streams:
            source, target = names.addresses(stream.index)
            table = names.table(stream.index)
            pin = _first_pin(stream, self.topology, self.scenario)
            out, into = self.ends[pin.out_nic], self.ends[pin.in_nic]  # type: ignore[index]
            for end, address in ((out, source), (into, target)):
                setup.setdefault(end.namespace, []).extend(
                    [f"address add {address}/32 dev lo", f"rule add from {address} lookup {table} pref {table}"]
                )
            self.current[stream.index] = (out, into)
            _merge(setup, _pin_lines(stream, out, into, self.down))
        self.timeline.setup = setup

    def _end(self, target: str) -> End | None:
        return self.ends.get(Port.parse(target))

    def _cable_end(self, target: str) -> End | None:
        """The end a cable failure sets down: its switch end, else its `b` end."""
        port = Port.parse(target)
        link = next((lk for lk in self.topology.links if port in (lk.a.port, lk.b.port)), None)
        if link is None:
            return None
        return link.a if link.a.bridged else link.b

    def _failure(self, action: str, target: str) -> tuple[dict[str, list[str]], list[End]]:
        """The lines of one failure or repair, and the host interfaces it brings back up."""
        down = action.endswith("_down") or action == "port_blackhole"
        state = "down" if down else "up"
        if action.startswith(("nic_", "cable_")):
            end = self._end(target) if action.startswith("nic_") else self._cable_end(target)
            if end is None:
                return {}, []
            key = (end.namespace, end.ifname)
            (self.down.add if down else self.down.discard)(key)
            return {end.namespace: [f"link set {end.ifname} {state}"]}, [] if down or end.bridged else [end]
        if action.startswith("switch_"):
            namespace = self.topology.switches[target]
            ports = [e.ifname for e in self.ends.values() if e.namespace == namespace]
            lines = [f"link set {p} {state}" for p in ports]
            return {namespace: [*lines, "link set br0 down"] if down else ["link set br0 up", *lines]}, []
        end = self._end(target)  # port_blackhole / port_restore: the bridge port stops forwarding, its link up
        if end is None:
            return {}, []
        return {end.namespace: [f"link set dev {end.ifname} type bridge_slave state {0 if down else 3}"]}, []

    def _repin(self, upped: list[End]) -> dict[str, list[str]]:
        lines: dict[str, list[str]] = {}
        for stream in self.streams:
            out, into = self.current[stream.index]
            if out in upped or into in upped:
                _merge(lines, _pin_lines(stream, out, into, self.down))
        return lines

    def _moves(self, at: float, moves: list[tuple[Stream, Pin]]) -> dict[str, list[str]]:
        lines: dict[str, list[str]] = {}
        for stream, pin in moves:
            if pin.out_nic is None or pin.in_nic is None:
                continue  # no working member: it stays where it was, on a link that is down
            out, into = self.ends.get(pin.out_nic), self.ends.get(pin.in_nic)
            if out is None or into is None or (out, into) == self.current[stream.index]:
                continue
            self.current[stream.index] = (out, into)
            _merge(lines, _pin_lines(stream, out, into, self.down))
        return lines

    def actions(self) -> None:
        times: dict[float, tuple[list[tuple[str, str]], list[tuple[Stream, Pin]]]] = {}
        for event in self.scenario.events:
            if event.action.value not in _OPERATIONS and event.target is not None:
                times.setdefault(event.at, ([], []))[0].append((event.action.value, event.target))
        for stream in self.streams:
            for pin in stream.pins[1:]:
                times.setdefault(pin.at_s, ([], []))[1].append((stream, pin))
        for at in sorted(times):
            failures, moves = times[at]
            lines: dict[str, list[str]] = {}
            what = []
            for action, target in failures:
                failure, upped = self._failure(action, target)
                _merge(lines, failure)
                _merge(lines, self._repin(upped))
                what.append(f"{action} {target}")
            moved = self._moves(at, moves)
            _merge(lines, moved)
            if moves:
                what.append(f"{len(moves)} connection moves")
            lines = {ns: ls for ns, ls in lines.items() if ls}
            if lines:
                self.timeline.actions.append(Action(at, ", ".join(what), {ns: tuple(ls) for ns, ls in lines.items()}))


def plan_timeline(topology: Topology, prediction: Prediction) -> Timeline:
    """The run's setup lines and timed actions (module doc)."""
    planner = _Planner(topology, prediction)
    planner.setup()
    planner.actions()
    return planner.timeline


def _stream_job(stream: Stream) -> dict[str, Any]:
    source, target = names.addresses(stream.index)
    return {
        "id": stream.index,
        "src": source,
        "dst": target,
        "port": names.PORT,
        "bytes": stream.bytes,
        "rate_bytes_per_s": None if stream.rate_bps is None else stream.rate_bps / 8,
        "stop_s": stream.stop_s,
    }


def _transfer_job(index: int, transfer: Transfer, run: set[int]) -> dict[str, Any]:
    steps = [[_stream_job(s) for s in step if s.index in run] for step in transfer.steps]
    return {
        "id": f"x{index}",
        "start_s": transfer.start_s,
        "after": [f"x{a}" for a in transfer.after],
        "gap_s": transfer.gap_s,
        "steps": [step for step in steps if step],
        "step_gaps_s": list(transfer.step_gaps_s),
    }


def agent_jobs(topology: Topology, prediction: Prediction) -> dict[str, dict[str, Any]]:
    """Each host's agent's work: the connections it receives, the transfers it sends (by host name)."""
    run = {s.index for s in prediction.streams if runnable(topology, s)}
    jobs: dict[str, dict[str, Any]] = {}
    for host, namespace in topology.hosts.items():
        interfaces = topology.host_interfaces(host)
        receives = [
            {"id": s.index, "address": names.addresses(s.index)[1]}
            for s in prediction.streams
            if s.target == host and s.index in run
        ]
        sends = [
            _transfer_job(i, t, run)
            for i, t in enumerate(prediction.transfers)
            if t.source == host and any(s.index in run for s in t.streams)
        ]
        jobs[host] = {
            "host": host,
            "namespace": namespace,
            "interfaces": interfaces,
            "receive": receives,
            "send": sends,
        }
    return jobs
