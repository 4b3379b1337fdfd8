"""A candidate applied to a base scenario: each host's NICs, team, cables and live-migration option rebuilt.

NIC k of a host goes to the switch port NIC k was cabled to, when it had one; a NIC the host did
not have goes to the next switch that faces hosts (in file order, after the one its previous NIC
is on), so that a team spans two switches where the base has two (a leaf-spine's leaves, an MLAG
pair): what survives a switch's failure. A switch with too few ports for the NICs it now takes
is bought larger (its `ports` grows to fit; `hvnet cost` prices the ports).

A host's measured demand (`demand:`, measured on its NICs as they are) is the host's load, whatever
its NICs: the candidate replays the sum of its NICs' demand, each way, split evenly over its new
NICs, as a team that spreads many VMs' traffic spreads it (docs/advise.md, "Do I need 10 GbE?").
"""

from __future__ import annotations

import copy
from typing import Any

from hvnet.candidates.spec import Candidate
from hvnet.errors import HvnetError, ScenarioError
from hvnet.model import Demand, Scenario, Switch, TeamKind, scenario_from_data
from hvnet.units import format_bitrate, parse_bitrate

__all__ = ["apply"]

#: A switch's ports when its file does not say.
_DEFAULT_PORTS = Switch.model_fields["ports"].default

#: NIC fields a rebuilt NIC does not inherit from the host's first NIC.
_OWN = ("name", "speed", "rdma", "model")


def _split(ref: str) -> tuple[str, str]:
    owner, _, part = ref.partition("/")
    return owner, part


def _next(facing: list[str], after: str | None) -> str | None:
    """The switch facing hosts after `after` in file order (round), None when there is none."""
    if not facing or after is None:
        return None
    if after not in facing:
        return facing[0]
    return facing[(facing.index(after) + 1) % len(facing)]


def apply(base: Scenario, candidate: Candidate) -> Scenario | str:
    """`base` with every host rebuilt to the candidate; or the loader's reason for refusing it (one line)."""
    # Measured demand is left out of the round trip through text (a week is 645,000 steps) and
    # given back as model objects, spread over the new NICs, after the loader's checks.
    data: dict[str, Any] = base.model_dump(mode="json", by_alias=True, exclude_defaults=True, exclude={"demand"})
    data["name"] = f"{base.name}: {candidate.name}"
    hosts = {h["name"] for h in data["hosts"]}
    switches = data.get("switches", [])
    speed = format_bitrate(candidate.speed_bps)

    was_on, kept = _old_cabling(data.get("cables", []), hosts, switches)
    used = _ports_in_use(kept, [s["name"] for s in switches])
    # The switches hosts are cabled to, in file order: where a host's new NICs spread.
    facing = [s["name"] for s in switches if any(sw == s["name"] for sw, _ in was_on.values())]
    cabled_switches: set[str] = set()
    new_cables: list[dict[str, Any]] = []
    for host in data["hosts"]:
        old_nics: list[dict[str, Any]] = host["nics"]
        names = _rebuild_host(host, candidate, speed)
        previous = [was_on.get((host["name"], n["name"])) for n in old_nics]
        for name, switch, port in _placements(names, previous, facing, used):
            cabled_switches.add(switch)
            new_cables.append({"a": f"{host['name']}/{name}", "b": f"{switch}/{port}"})

    for switch in switches:
        if switch["name"] in cabled_switches and switch.get("port_speed") is not None:
            switch["port_speed"] = speed
        highest = max((int(p) for p in used[switch["name"]] if p.isdigit()), default=0)
        if highest > switch.get("ports", _DEFAULT_PORTS):
            switch["ports"] = highest
    data["cables"] = new_cables + kept
    if candidate.team is TeamKind.LBFO:
        for host in data["hosts"]:
            host["teams"][0].pop("kind", None)
    built = _loaded(data, base.name)
    if isinstance(built, str) or not base.demand:
        return built
    nics = {h["name"]: [n["name"] for n in h["nics"]] for h in data["hosts"]}
    return built.model_copy(update={"demand": _spread_demand(base, nics)})


_Port = tuple[str, str]


def _old_cabling(
    cables: list[dict[str, Any]], hosts: set[str], switches: list[dict[str, Any]]
) -> tuple[dict[_Port, _Port], list[dict[str, Any]]]:
    """Which switch port each host NIC was cabled to, and the cables that stay (switch to switch, VMs' own)."""
    was_on: dict[_Port, _Port] = {}
    kept: list[dict[str, Any]] = []
    old_port_speed = {s["name"]: s.get("port_speed") for s in switches}
    for cable in cables:
        (a_owner, a_part), (b_owner, b_part) = _split(cable["a"]), _split(cable["b"])
        if a_owner in hosts and b_owner in old_port_speed:
            was_on[(a_owner, a_part)] = (b_owner, b_part)
        elif b_owner in hosts and a_owner in old_port_speed:
            was_on[(b_owner, b_part)] = (a_owner, a_part)
        else:
            if a_owner in old_port_speed and b_owner in old_port_speed and "speed" not in cable:
                rates = [r for r in (old_port_speed[a_owner], old_port_speed[b_owner]) if r is not None]
                if rates:  # the link keeps its speed when the port speeds change below
                    cable["speed"] = min(rates, key=parse_bitrate)
            kept.append(cable)
    return was_on, kept


def _ports_in_use(kept: list[dict[str, Any]], switches: list[str]) -> dict[str, set[str]]:
    """Each switch's ports the kept cables take."""
    used: dict[str, set[str]] = {name: set() for name in switches}
    for cable in kept:
        for end in (cable["a"], cable["b"]):
            owner, part = _split(end)
            if owner in used:
                used[owner].add(part)
    return used


def _rebuild_host(host: dict[str, Any], candidate: Candidate, speed: str) -> list[str]:
    """The host's NICs, team, virtual switch uplinks and live-migration option as the candidate has them;
    the names of its NICs now."""
    old_nics: list[dict[str, Any]] = host["nics"]
    template = {k: v for k, v in old_nics[0].items() if k not in _OWN}
    names = [n["name"] for n in old_nics[: candidate.nics]]
    while len(names) < candidate.nics:
        k = len(names) + 1
        while f"nic{k}" in names:
            k += 1
        names.append(f"nic{k}")
    nics = []
    for name in names:
        nic = copy.deepcopy(template)
        nic.update({"name": name, "speed": speed})
        if candidate.rdma:
            nic["rdma"] = True
        nics.append(nic)
    host["nics"] = nics

    old_teams: list[dict[str, Any]] = host.get("teams", [])
    team_name = old_teams[0]["name"] if old_teams else "team1"
    team: dict[str, Any] = {"name": team_name, "kind": candidate.team.value, "members": names}
    team["mode"] = "switch_independent"
    team["load_balancing"] = "dynamic"
    host["teams"] = [team]
    dropped = {t["name"] for t in old_teams[1:]} | {n["name"] for n in old_nics}
    for vswitch in host.get("vswitches", []):
        if vswitch["uplink"] in dropped:
            vswitch["uplink"] = team_name
    migration = host.setdefault("live_migration", {})
    migration["option"] = candidate.migration.value
    if migration.get("networks") and any(n not in {team_name, *names} for n in migration["networks"]):
        del migration["networks"]
    return names


def _placements(
    names: list[str], previous: list[_Port | None], facing: list[str], used: dict[str, set[str]]
) -> list[tuple[str, str, str]]:
    """(NIC, switch, port) for each NIC that gets a cable. NIC k goes to the switch NIC k was on (its
    port, when it had one and it is free), else to the next switch facing hosts after the one its
    previous NIC is on; a free port is the lowest number not in use."""
    first = next((p[0] for p in previous if p is not None), None)
    last: str | None = None
    placed = []
    for k, name in enumerate(names):
        place = previous[k] if k < len(previous) else None
        switch = place[0] if place is not None else _next(facing, last) or first
        if switch is None:
            continue
        last = switch
        port = place[1] if place is not None and place[1] not in used[switch] else None
        if port is None:
            n = 1
            while str(n) in used[switch]:
                n += 1
            port = str(n)
        used[switch].add(port)
        placed.append((name, switch, port))
    return placed


def _spread_demand(base: Scenario, nics: dict[str, list[str]]) -> tuple[Demand, ...]:
    """Each host's measured demand summed over its NICs, each way, and split evenly over `nics[host]`
    (steps from the validated demand, in order by construction: built without validating again)."""
    by_host: dict[str, dict[str, list[list[tuple[float, float]]]]] = {}
    for demand in base.demand:
        host = demand.nic.partition("/")[0]
        ways = by_host.setdefault(host, {"send": [], "receive": []})
        ways["send"].append(list(demand.send))
        ways["receive"].append(list(demand.receive))
    out = []
    for host, ways in by_host.items():
        names = nics[host]
        split = {
            way: tuple((at, bps / len(names)) for at, bps in _sum_steps([p for p in parts if p]))
            for way, parts in ways.items()
        }
        source = f"{host}'s measured demand, split over {len(names)} NICs"
        out += [
            Demand.model_construct(nic=f"{host}/{name}", source=source, send=split["send"], receive=split["receive"])
            for name in names
        ]
    return tuple(out)


def _sum_steps(series: list[list[tuple[float, float]]]) -> list[tuple[float, float]]:
    """The sum of step functions (each 0 before its first step), as steps at every time any changes:
    one pass over all their steps in time order."""
    current = [0.0] * len(series)
    events = sorted((at, k, rate) for k, steps in enumerate(series) for at, rate in steps)
    out: list[tuple[float, float]] = []
    for i, (at, k, rate) in enumerate(events):
        current[k] = rate
        if i + 1 == len(events) or events[i + 1][0] != at:
            out.append((at, sum(current)))
    return out


def _loaded(data: dict[str, Any], name: str) -> Scenario | str:
    """The rebuilt scenario through the loader's checks, or its first problem in one line."""
    try:
        return scenario_from_data(data, name)
    except ScenarioError as error:
        first_problem = error.problems[0]
        more = len(error.problems) - 1
        where = f"{first_problem.field}: " if first_problem.field else ""
        return f"{where}{first_problem.message}" + (f" (and {more} more)" if more else "")
    except HvnetError as error:
        return str(error).splitlines()[0]
