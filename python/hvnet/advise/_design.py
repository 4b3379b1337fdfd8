"""Questions the checks ask of a design: which NICs a team or virtual switch uses, what is cabled to what."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from hvnet.model import Host, LoadBalancing, Nic, Scenario, Team, TeamingMode, TeamKind, split_endpoint

__all__ = [
    "and_list",
    "gbps",
    "host_switches",
    "networks",
    "nic_path",
    "rdma_migration_speed",
    "sum_of_queues",
    "team_path",
    "uplink_nics",
    "vswitch_of",
]


def and_list(items: Iterable[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = list(items)
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def gbps(bps: float) -> str:
    return f"{bps / 1e9:g} Gbps"


def nic_path(host: str, nic: str, field: str) -> str:
    return f"hosts[{host}].nics[{nic}].{field}"


def team_path(host: str, team: str, field: str) -> str:
    return f"hosts[{host}].teams[{team}].{field}"


def vswitch_of(host: Host, uplink: str) -> str | None:
    """The virtual switch bound to the NIC or team `uplink`, if any."""
    return next((v.name for v in host.vswitches if v.uplink == uplink), None)


def uplink_nics(host: Host) -> Iterator[tuple[Nic, str]]:
    """Every NIC under a virtual switch (directly or as a team member), with the virtual switch's name."""
    for vswitch in host.vswitches:
        teams = [t for t in host.teams if t.name == vswitch.uplink]
        names = teams[0].members if teams else (vswitch.uplink,)
        for name in names:
            yield host.nic(name), vswitch.name


def sum_of_queues(team: Team) -> bool:
    """SET, or switch independent with Hyper-V port or dynamic: the team shows the sum of its members' queues."""
    return team.kind == TeamKind.SET or (
        team.mode == TeamingMode.SWITCH_INDEPENDENT and team.load_balancing != LoadBalancing.ADDRESS_HASH
    )


def host_switches(scenario: Scenario) -> dict[str, dict[str, str]]:
    """For each host, the switch each cabled NIC goes to (NICs cabled back to back are left out)."""
    switches = {s.name for s in scenario.switches}
    found: dict[str, dict[str, str]] = {h.name: {} for h in scenario.hosts}
    for cable in scenario.cables:
        a, b = split_endpoint(cable.a), split_endpoint(cable.b)
        for (device, port), (other, _) in ((a, b), (b, a)):
            if device in found and other in switches:
                found[device][port] = other
    return found


def networks(scenario: Scenario) -> list[tuple[list[tuple[str, str]], list[str]]]:
    """The cabled networks: for each set of devices the cables join, its host NICs (host, nic) and its switches."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    hosts = {h.name for h in scenario.hosts}
    for cable in scenario.cables:
        ends = []
        for end in (cable.a, cable.b):
            device, port = split_endpoint(end)
            ends.append(f"{device}/{port}" if device in hosts else device)
        parent[find(ends[0])] = find(ends[1])
    groups: dict[str, tuple[list[tuple[str, str]], list[str]]] = {}
    for node in list(parent):
        nics, switches = groups.setdefault(find(node), ([], []))
        if "/" in node:
            host, nic = node.split("/", 1)
            nics.append((host, nic))
        else:
            switches.append(node)
    order = {(h.name, n.name): i for i, (h, n) in enumerate((h, n) for h in scenario.hosts for n in h.nics)}
    result = [(sorted(nics, key=order.__getitem__), sorted(sw)) for nics, sw in groups.values() if nics]
    return sorted(result, key=lambda g: order[g[0][0]])


def rdma_migration_speed(host: Host) -> float:
    """The fastest interface SMB Direct can use for live migration: an RDMA NIC outside LBFO teams, or a SET
    team of RDMA NICs (its active members together); 0 without one."""
    in_lbfo = {m for t in host.teams if t.kind == TeamKind.LBFO for m in t.members}
    in_set = {m for t in host.teams if t.kind == TeamKind.SET for m in t.members}
    speeds = [n.speed for n in host.nics if n.rdma and n.name not in in_lbfo and n.name not in in_set]
    for team in host.teams:
        members = [host.nic(m) for m in team.members]
        if team.kind == TeamKind.SET and all(n.rdma for n in members):
            speeds.append(sum(n.speed for n in members))
    return max(speeds, default=0.0)
