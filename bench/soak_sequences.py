"""The failure soak's sequences (bench/soak.py, tests/test_invariants.py): random clusters, each with
a drain or a rolling update (or both) and failures during it, drawn from a seeded `random.Random`.

What a cluster holds and the failures it has are described in bench/soak.py's docstring.
`generate` returns the scenario's data with what the soak's checks need to know of it
(`Sequence`): each failure's kind, target and times, and the VMs of each drained host.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

LBFO_MODES = ("switch_independent", "static", "lacp")
LBFO_BALANCING = ("address_hash", "hyperv_port", "dynamic")
ADDRESS_HASH = ("transport_ports", "ip_addresses", "mac_addresses")
OPTIONS = ("tcp_ip", "compression", "smb")
#: Failure kinds and the event that restores each.
FAILURES = {
    "nic_down": "nic_up",
    "cable_down": "cable_up",
    "switch_down": "switch_up",
    "port_blackhole": "port_restore",
}


@dataclass
class Sequence:
    """One generated scenario, and what the checks need to know of it."""

    data: dict[str, Any]
    #: For each failure: (kind, target, down at, restored at or None).
    failures: list[tuple[str, str, float, float | None]] = field(default_factory=list)
    #: Drained host -> its VMs at the start (drain before any other operation).
    drained: dict[str, list[str]] = field(default_factory=dict)


def _size_gib(rng: random.Random) -> str:
    return f"{rng.choice((1, 2, 4, 4, 8, 8, 16))}GiB"


def _team(rng: random.Random) -> dict[str, Any]:
    """A host's team of nic1 and nic2: SET, or LBFO in any mode and balancing."""
    if rng.random() < 0.5:
        return {
            "name": "team1",
            "kind": "set",
            "members": ["nic1", "nic2"],
            "load_balancing": rng.choice(("hyperv_port", "dynamic")),
        }
    team: dict[str, Any] = {
        "name": "team1",
        "kind": "lbfo",
        "members": ["nic1", "nic2"],
        "mode": rng.choice(LBFO_MODES),
        "load_balancing": rng.choice(LBFO_BALANCING),
    }
    if team["load_balancing"] == "address_hash":
        team["address_hash"] = rng.choice(ADDRESS_HASH)
    return team


def _host(rng: random.Random, name: str, speed: str) -> dict[str, Any]:
    team = _team(rng)
    return {
        "name": name,
        "cpu": {"ghz": 3.0},
        "power_plan": "high_performance",
        "live_migration": {"option": rng.choice(OPTIONS), "simultaneous": rng.randint(1, 4)},
        "nics": [{"name": "nic1", "speed": speed}, {"name": "nic2", "speed": speed}],
        "teams": [team],
        "vswitches": [{"name": "vSwitch", "uplink": "team1"}],
    }


def _cables(names: list[str]) -> list[dict[str, Any]]:
    """Each host's nic1 to tor1 and nic2 to tor2, and the two switches joined."""
    cables: list[dict[str, Any]] = []
    for i, name in enumerate(names):
        cables.append({"a": f"{name}/nic1", "b": f"tor1/{i + 1}"})
        cables.append({"a": f"{name}/nic2", "b": f"tor2/{i + 1}"})
    cables.append({"a": "tor1/48", "b": "tor2/48", "speed": "100Gbps"})
    return cables


def _vms(rng: random.Random, names: list[str], vms: tuple[int, int]) -> list[dict[str, Any]]:
    vm_list = []
    for i in range(rng.randint(*vms)):
        vm: dict[str, Any] = {
            "name": f"vm{i + 1}",
            "host": rng.choice(names),
            "memory": _size_gib(rng),
            "vswitch": "vSwitch",
        }
        if rng.random() < 0.4:
            vm["dirty_rate"] = f"{rng.choice((100, 400, 800))}Mbps"
            vm["working_set"] = "1GiB"
        vm_list.append(vm)
    return vm_list


def _operations(
    rng: random.Random, names: list[str], vm_list: list[dict[str, Any]], seq: Sequence
) -> list[dict[str, Any]]:
    """A drain or a rolling update (or both); a drained host's VMs noted in seq."""
    events: list[dict[str, Any]] = []
    kinds = rng.choice(("drain", "rolling_update", "both"))
    if kinds in ("drain", "both"):
        host = rng.choice(names)
        at = rng.uniform(0, 20)
        events.append(
            {
                "at": f"{at:.3f}s",
                "action": "drain",
                "target": host,
                "placement": rng.choice(("balanced", "round_robin")),
            }
        )
        seq.drained[host] = [v["name"] for v in vm_list if v["host"] == host]
    if kinds in ("rolling_update", "both"):
        nodes = rng.sample(names, rng.randint(2, min(4, len(names))))
        at = rng.uniform(0, 20) if kinds == "rolling_update" else rng.uniform(60, 200)
        events.append(
            {
                "at": f"{at:.3f}s",
                "action": "rolling_update",
                "nodes": nodes,
                "patch_time": f"{rng.randint(10, 120)}s",
                "fail_back": rng.random() < 0.7,
            }
        )
    return events


def _failure_target(rng: random.Random, kind: str, names: list[str], ports: list[tuple[str, str, str]]) -> str:
    """What a failure of this kind takes down: a NIC, either end of a cable, a switch or a switch port."""
    if kind == "nic_down":
        return f"{rng.choice(names)}/nic{rng.randint(1, 2)}"
    if kind == "cable_down":
        switch, port, nic = rng.choice(ports)
        return nic if rng.random() < 0.5 else f"{switch}/{port}"
    if kind == "switch_down":
        return rng.choice(("tor1", "tor2"))
    switch, port, _ = rng.choice(ports)
    return f"{switch}/{port}"


def _failures(rng: random.Random, names: list[str], failures: tuple[int, int], seq: Sequence) -> list[dict[str, Any]]:
    """Failures: each of a thing that is up, restored or not, at random times in the first minutes.

    Their events; each failure noted in seq.
    """
    events: list[dict[str, Any]] = []
    ports = [(f"tor{k}", f"{i + 1}", f"{name}/nic{k}") for i, name in enumerate(names) for k in (1, 2)]
    down_until: dict[tuple[str, str], float] = {}
    for _ in range(rng.randint(*failures)):
        kind = rng.choice(list(FAILURES))
        target = _failure_target(rng, kind, names, ports)
        at = round(rng.uniform(0, 240), 3)
        if down_until.get((kind, target), -1.0) >= at:
            continue  # still down from an earlier failure of the same thing
        back = round(at + rng.uniform(0.5, 90), 3) if rng.random() < 0.8 else None
        down_until[(kind, target)] = math.inf if back is None else back
        events.append({"at": f"{at}s", "action": kind, "target": target})
        if back is not None:
            events.append({"at": f"{back}s", "action": FAILURES[kind], "target": target})
        seq.failures.append((kind, target, at, back))
    return events


def _traffic(
    rng: random.Random, names: list[str], vm_list: list[dict[str, Any]], flows: tuple[int, int]
) -> list[dict[str, Any]]:
    """A few flows between VMs and hosts."""
    endpoints = names + [v["name"] for v in vm_list]
    traffic = []
    for i in range(rng.randint(*flows)):
        src, dst = rng.sample(names if rng.random() < 0.5 else endpoints, 2)
        traffic.append(
            {
                "name": f"f{i + 1}",
                "from": src,
                "to": dst,
                "size": f"{rng.choice((1, 5, 20))}GB",
                "start": f"{rng.uniform(0, 120):.3f}s",
                "connections": rng.randint(1, 4),
            }
        )
    return traffic


def generate(
    rng: random.Random,
    hosts: tuple[int, int] = (4, 8),
    vms: tuple[int, int] = (10, 40),
    failures: tuple[int, int] = (1, 10),
    flows: tuple[int, int] = (0, 6),
) -> Sequence:
    """A random cluster with a drain or a rolling update (or both) and failures during it."""
    n = rng.randint(*hosts)
    names = [f"hv{i + 1}" for i in range(n)]
    speed = rng.choice(("10Gbps", "25Gbps"))
    host_list = [_host(rng, name, speed) for name in names]
    switches = [{"name": "tor1", "ports": 48, "stack": "mlag1"}, {"name": "tor2", "ports": 48, "stack": "mlag1"}]
    cables = _cables(names)
    vm_list = _vms(rng, names, vms)
    seq = Sequence(data={})
    events = _operations(rng, names, vm_list, seq)
    events += _failures(rng, names, failures, seq)
    traffic = _traffic(rng, names, vm_list, flows)
    seq.data = {
        "name": "soak",
        "hosts": host_list,
        "switches": switches,
        "cables": cables,
        "vms": vm_list,
        "events": sorted(events, key=lambda e: float(e["at"][:-1])),
    }
    if traffic:
        seq.data["traffic"] = traffic
    return seq
