"""Where the lab cannot run, and what it will not try: each refusal one line, with the limit and the knob.

The machine: Linux, root (network namespaces, veth pairs and qdiscs need CAP_NET_ADMIN), the
`ip`, `tc` and `bridge` commands of iproute2, and network namespaces in the kernel. `ip netns add` and a
token bucket (`tc ... tbf`) are tried for real when the lab is built (`lab.netns`): a kernel
without them is refused there, with what the command said.

The scenario, at the lab's scale (`lab.scaling`):

- **what one machine can emulate**: hosts, host NICs, switches, connections, the fastest scaled
  link (the lab's TCP and shaping run on the machine's own CPU; above about a gigabit per second
  its CPU, not the scenario, would set the rates), the bytes all transfers move, and how long the
  predicted run lasts. Each limit names the knob: `--scale` (slower links, fewer bytes),
  `--time-scale` (shorter runs, fewer bytes), `--max-seconds`, or a smaller scenario;
- **what the lab's network cannot be**: switches cabled in a loop (a Linux bridge has no routing,
  and its spanning tree would block a link that the twin's ECMP uses), a switch backplane limit
  (a shared capacity no qdisc on one port shapes).
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass

from hvnet.errors import HvnetError
from hvnet.lower.fabric import Port
from hvnet.model import Scenario
from hvnet.units import format_bitrate, format_bytes, human_duration

__all__ = ["LabRefused", "Limits", "check_machine", "check_network", "check_size"]


class LabRefused(HvnetError):
    """The lab cannot run here, or cannot run this scenario: one line, what and why, and what to change."""


@dataclass(frozen=True)
class Limits:
    """What one machine runs: each limit with the knob that changes it."""

    hosts: int = 16
    nics: int = 64
    switches: int = 16
    connections: int = 256
    #: The fastest scaled link: the lab's senders and qdiscs share the machine's cores.
    link_bps: float = 1e9
    #: All the bytes the scaled transfers and migrations move.
    bytes: int = 4 * 2**30
    #: The predicted run's end, in the lab's (scaled) seconds.
    seconds: float = 120.0


def check_machine() -> None:
    """LabRefused unless this is Linux, run as root, with `ip`, `tc` and network namespaces."""
    if not sys.platform.startswith("linux"):
        raise LabRefused(f"hvnet lab needs Linux (network namespaces, veth, tc); this is {sys.platform}")
    if os.geteuid() != 0:
        raise LabRefused(
            "hvnet lab needs root: it creates network namespaces, veth pairs and qdiscs (run it as root, e.g. sudo)"
        )
    for tool, package in (("ip", "iproute2"), ("tc", "iproute2"), ("bridge", "iproute2")):
        if shutil.which(tool) is None:
            raise LabRefused(f"hvnet lab needs the {tool} command ({package}), which is not on PATH")
    if not os.path.exists("/proc/self/ns/net"):
        raise LabRefused("hvnet lab needs network namespaces, which this kernel does not have (/proc/self/ns/net)")


def _switch_loop(scenario: Scenario) -> list[str] | None:
    """A cycle of switches joined by cables (two cables between the same two switches are one), or None."""
    parent: dict[str, str] = {s.name: s.name for s in scenario.switches}

    def root(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    switches = set(parent)
    for cable in scenario.cables:
        a, b = Port.parse(cable.a).node, Port.parse(cable.b).node
        if a in switches and b in switches:
            ra, rb = root(a), root(b)
            if ra == rb:
                return [a, b]
            parent[ra] = rb
    return None


def check_network(scenario: Scenario) -> None:
    """LabRefused for a fabric the lab's bridges cannot be: switches in a loop, a backplane limit."""
    loop = _switch_loop(scenario)
    if loop is not None:
        raise LabRefused(
            f"the cables between switches form a loop (through {loop[0]} and {loop[1]}); the lab's switches are Linux "
            "bridges, without the routing that spreads traffic over equal paths: give the lab a tree of switches"
        )
    limited = [s.name for s in scenario.switches if s.backplane is not None]
    if limited:
        raise LabRefused(
            f"switch {limited[0]} has a backplane limit, a capacity its ports share that the lab cannot shape; "
            "leave backplane out for the lab"
        )


def check_size(scenario: Scenario, streams: int, total_bytes: int, end_s: float, limits: Limits) -> None:
    """LabRefused for a scaled scenario beyond one machine (each message names the limit and the knob)."""
    nics = sum(len(h.nics) for h in scenario.hosts)
    counted = (
        (len(scenario.hosts), limits.hosts, "hosts", "network namespaces"),
        (nics, limits.nics, "host NICs", "veth pairs"),
        (len(scenario.switches), limits.switches, "switches", "bridges"),
        (streams, limits.connections, "TCP connections", "senders"),
    )
    for count, limit, what, made in counted:
        if count > limit:
            raise LabRefused(
                f"{count} {what} is more than the lab runs on one machine ({limit} {what}, as {made}); "
                "give the lab a smaller scenario (e.g. hvnet topology star --hosts 2)"
            )
    fastest = max((scenario.cable_speed(c) for c in scenario.cables), default=0.0)
    if fastest > limits.link_bps:
        raise LabRefused(
            f"the fastest scaled link is {format_bitrate(fastest)}, above the lab's {format_bitrate(limits.link_bps)} "
            "(its TCP and shaping run on this machine's cores); lower --scale (e.g. --scale 1/1000)"
        )
    if total_bytes > limits.bytes:
        raise LabRefused(
            f"the scaled transfers and migrations move {format_bytes(total_bytes)}, above the lab's "
            f"{format_bytes(limits.bytes)}; lower --scale or --time-scale"
        )
    if end_s > limits.seconds:
        raise LabRefused(
            f"the scaled run is predicted to last {human_duration(end_s)}, above the lab's "
            f"{human_duration(limits.seconds)}; lower --time-scale (e.g. --time-scale 1/10) or raise --max-seconds"
        )
