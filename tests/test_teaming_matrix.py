"""Every team mode × algorithm × traffic kind, with the member use it must give (issue 3).

Each case runs a small scenario end to end through `hvnet.simulate` and
states in words, from BEHAVIOUR.md ("NIC teaming (LBFO)", "Switch Embedded
Teaming") and the rule table in `crates/network/src/team.rs`, which members
the connections of one endpoint use:

- hv1 and hv2 each team four 10 Gbps NICs (MTU 1500) as `team1` under the
  vSwitch `vSwitch`, all cabled to one switch `sw`; vm1 runs on hv1 and vm2
  on hv2, both on `vSwitch`. Fast cores (6 GHz, high performance) so that
  cores never matter.
- Traffic kinds: a host's own traffic (hv1 <-> hv2 through their host vNICs)
  and a VM's traffic (vm1 <-> vm2 through their VM vNICs).
- Directions: outbound from hv1 (its member is `out_nic` of hv1 -> hv2) and
  inbound to hv1 (its member is `in_nic` of hv2 -> hv1); 64 connections of
  1 MB each way, and only the members they start on (`nics[0]`).

Where the sources leave a choice to the model, the cases assert a property
(one member, all members, the port's member) rather than a NIC; the one
named NIC is the primary, which team.rs documents as the first working
member. "The port's member" is the member a vSwitch port uses both ways
under Hyper-V port (switch independent), found by running that design.

The failure cases at the end state member use over time, from each
connection's later `nics` entries, `blackholed_s` and `stalled_since_s`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Literal

import pytest

from hvnet import parse_scenario, simulate
from hvnet.results import ConnectionResult, Results

Kind = Literal["lbfo", "set"]
Mode = Literal["switch_independent", "static", "lacp"]
Balancing = Literal["transport_ports", "ip_addresses", "mac_addresses", "hyperv_port", "dynamic"]
SwitchHash = Literal["transport_ports", "ip_addresses", "mac_addresses"]
Traffic = Literal["host", "vm"]
Direction = Literal["outbound", "inbound"]
#: all: every member; primary: only the first working member (nic1);
#: one: a single member; port: the single member the vSwitch port is affinitized to.
Expect = Literal["all", "primary", "one", "port"]

ADDRESS_HASHES: tuple[Balancing, ...] = ("transport_ports", "ip_addresses", "mac_addresses")
BALANCINGS: tuple[Balancing, ...] = (*ADDRESS_HASHES, "hyperv_port", "dynamic")
MODES: tuple[Mode, ...] = ("switch_independent", "static", "lacp")
HASH_WORDS = {"transport_ports": "TransportPorts", "ip_addresses": "IPAddresses", "mac_addresses": "MacAddresses"}
MODE_WORDS = {"switch_independent": "switch independent", "static": "static", "lacp": "LACP"}
#: The endpoints of each traffic kind: (the one on hv1, the one on hv2).
ENDS: dict[Traffic, tuple[str, str]] = {"host": ("hv1", "hv2"), "vm": ("vm1", "vm2")}
TRAFFIC_WORDS: dict[Traffic, str] = {
    "host": "hv1's own traffic (host vNIC)",
    "vm": "vm1's traffic (VM vNIC on hv1's vSwitch)",
}
CONNECTIONS = 64


@dataclass(frozen=True)
class Team:
    """The design of `team1` on both hosts."""

    kind: Kind
    mode: Mode
    balancing: Balancing
    members: int = 4
    standby: str | None = None

    def yaml(self) -> str:
        names = ", ".join(f"nic{n}" for n in range(1, self.members + 1))
        fields = [f"kind: {self.kind}", f"mode: {self.mode}"]
        if self.balancing in ADDRESS_HASHES:
            fields += ["load_balancing: address_hash", f"address_hash: {self.balancing}"]
        else:
            fields.append(f"load_balancing: {self.balancing}")
        if self.standby is not None:
            fields.append(f"standby: {self.standby}")
        return f"{{name: team1, members: [{names}], {', '.join(fields)}}}"

    @property
    def words(self) -> str:
        mode = "SET" if self.kind == "set" else MODE_WORDS[self.mode]
        if self.balancing in ADDRESS_HASHES:
            algorithm = f"address hash ({HASH_WORDS[self.balancing]})"
        else:
            algorithm = {"hyperv_port": "Hyper-V port", "dynamic": "dynamic"}[self.balancing]
        return f"{mode} + {algorithm}"

    @property
    def slug(self) -> str:
        return f"{'set' if self.kind == 'set' else self.mode}-{self.balancing}"

    def nics(self, host: str) -> set[str | None]:
        return {f"{host}/nic{n}" for n in range(1, self.members + 1)}


def scenario_text(team: Team, switch_hash: SwitchHash = "transport_ports", traffic: str = "", events: str = "") -> str:
    """hv1 and hv2 with `team`, vm1 and vm2, one switch; `traffic` and `events` as YAML list items."""
    lines = ["name: teaming-matrix", "hosts:"]
    for host in ("hv1", "hv2"):
        lines += [
            f"  - name: {host}",
            "    cpu: {ghz: 6}",
            "    power_plan: high_performance",
            "    nics:",
            *(f"      - {{name: nic{n}, speed: 10Gbps, mtu: 1500}}" for n in range(1, team.members + 1)),
            "    teams:",
            f"      - {team.yaml()}",
            "    vswitches:",
            "      - {name: vSwitch, uplink: team1}",
        ]
    lines += [f"switches: [{{name: sw, port_channel_hash: {switch_hash}}}]", "cables:"]
    for h, host in enumerate(("hv1", "hv2")):
        lines += [f"  - {{a: {host}/nic{n}, b: sw/{h * team.members + n}}}" for n in range(1, team.members + 1)]
    lines += [
        "vms:",
        "  - {name: vm1, host: hv1, memory: 1GiB, vswitch: vSwitch}",
        "  - {name: vm2, host: hv2, memory: 1GiB, vswitch: vSwitch}",
    ]
    if traffic:
        lines += ["traffic:", traffic.rstrip("\n")]
    if events:
        lines += ["events:", events.rstrip("\n")]
    return "\n".join(lines) + "\n"


@functools.cache
def both_ways(team: Team, switch_hash: SwitchHash, traffic: Traffic) -> Results:
    """Entry 0: hv1's endpoint to hv2's (outbound from hv1); entry 1: back (inbound to hv1)."""
    here, there = ENDS[traffic]
    entries = "".join(
        f"  - {{from: {a}, to: {b}, size: 64MB, connections: {CONNECTIONS}}}\n"
        for a, b in ((here, there), (there, here))
    )
    return simulate(parse_scenario(scenario_text(team, switch_hash, entries)))


def hv1_members(results: Results, direction: Direction) -> set[str | None]:
    """The hv1 members the connections start on, in one direction."""
    if direction == "outbound":
        return {c.nics[0].out_nic for c in results.traffic[0].connection_results}
    return {c.nics[0].in_nic for c in results.traffic[1].connection_results}


@functools.cache
def port_member(kind: Kind, traffic: Traffic) -> str | None:
    """The member the endpoint's vSwitch port is affinitized to: under switch
    independent Hyper-V port, the one member its connections use both ways."""
    results = both_ways(Team(kind, "switch_independent", "hyperv_port"), "transport_ports", traffic)
    out, into = hv1_members(results, "outbound"), hv1_members(results, "inbound")
    assert len(out) == 1 and out == into, f"Hyper-V port: {ENDS[traffic][0]} leaves by {out}, arrives on {into}"
    return out.pop()


@dataclass(frozen=True)
class Case:
    team: Team
    switch_hash: SwitchHash
    traffic: Traffic
    direction: Direction
    expect: Expect
    #: The expectation in words (BEHAVIOUR.md, team.rs).
    reason: str


def expectation(team: Team, switch_hash: SwitchHash, direction: Direction) -> tuple[Expect, str]:
    """What BEHAVIOUR.md and team.rs's table say for one team design and direction."""
    n = CONNECTIONS
    if direction == "outbound":
        if team.balancing == "transport_ports":
            return "all", f"{n} connections leave on all members (hash of addresses and ports)"
        if team.balancing in ("ip_addresses", "mac_addresses"):
            fields = "addresses" if team.balancing == "ip_addresses" else "MACs"
            return "one", f"all connections between the same two endpoints leave on one member (hash of {fields} only)"
        if team.balancing == "hyperv_port":
            return "port", "all connections leave on the one member its vSwitch port is affinitized to"
        return "all", f"{n} connections leave on all members (dynamic hashes addresses and ports)"
    if team.mode == "switch_independent":
        if team.balancing in ADDRESS_HASHES:
            return "primary", "all connections arrive on the primary member, nic1 (ARP answers carry its MAC)"
        if team.balancing == "hyperv_port":
            return "port", "all connections arrive on the member its port is affinitized to, the one they leave on"
        return "port", "all connections arrive on the port's member, as in Hyper-V port (outbound is spread)"
    if switch_hash == "transport_ports":
        return "all", f"the switch spreads the {n} connections over all members (its hash of addresses and ports)"
    fields = "addresses" if switch_hash == "ip_addresses" else "MACs"
    return "one", f"the switch keeps all connections between the same two endpoints on one member (hash of {fields})"


def matrix() -> list[Case]:
    teams = [Team("lbfo", mode, balancing) for mode in MODES for balancing in BALANCINGS]
    teams += [Team("set", "switch_independent", balancing) for balancing in ("hyperv_port", "dynamic")]
    cases = []
    for team in teams:
        for traffic in ENDS:
            for direction in ("outbound", "inbound"):
                # The switch's hash decides only what a switch-dependent team receives.
                if direction == "inbound" and team.mode != "switch_independent":
                    hashes: tuple[SwitchHash, ...] = ("transport_ports", "ip_addresses", "mac_addresses")
                else:
                    hashes = ("transport_ports",)
                for switch_hash in hashes:
                    expect, rule = expectation(team, switch_hash, direction)
                    where = "from hv1" if direction == "outbound" else "to hv1"
                    switch = f" (switch hashes {HASH_WORDS[switch_hash]})" if len(hashes) > 1 else ""
                    reason = f"{team.words}, {TRAFFIC_WORDS[traffic]}, {direction} {where}{switch}: {rule}"
                    cases.append(Case(team, switch_hash, traffic, direction, expect, reason))
    return cases


def case_id(case: Case) -> str:
    switch_dependent_inbound = case.direction == "inbound" and case.team.mode != "switch_independent"
    switch = f"-switch_{case.switch_hash}" if switch_dependent_inbound else ""
    return f"{case.team.slug}-{case.traffic}-{case.direction}{switch}"


@pytest.mark.parametrize("case", [pytest.param(c, id=case_id(c)) for c in matrix()])
def test_member_use(case: Case) -> None:
    results = both_ways(case.team, case.switch_hash, case.traffic)
    used = hv1_members(results, case.direction)
    message = f"{case.reason}\n  but the connections used {sorted(m or '-' for m in used)}"
    assert used <= case.team.nics("hv1"), message
    if case.expect == "all":
        assert used == case.team.nics("hv1"), message
    elif case.expect == "primary":
        assert used == {"hv1/nic1"}, message
    elif case.expect == "one":
        assert len(used) == 1, message
    else:
        member = port_member(case.team.kind, case.traffic)
        assert used == {member}, f"{message}; the port's member is {member}"


def test_each_vswitch_port_has_its_own_member() -> None:
    """Hyper-V port: the host vNIC (port 0) and vm1's vNIC (port 1) of one
    vSwitch are affinitized to different members (ports spread over members)."""
    assert port_member("lbfo", "host") != port_member("lbfo", "vm")
    assert port_member("set", "host") != port_member("set", "vm")


# Failures: member use over time. Two-member teams, hv1 <-> hv2 (host vNICs),
# 16 connections of 512 MB so that they still run when the failure comes.

FAILURE_TRAFFIC = {
    "outbound": "  - {from: hv1, to: hv2, size: 8GB, connections: 16}\n",
    "inbound": "  - {from: hv2, to: hv1, size: 8GB, connections: 16}\n",
}


def run_failure(team: Team, direction: Direction, events: str) -> list[ConnectionResult]:
    text = scenario_text(team, "transport_ports", FAILURE_TRAFFIC[direction], events)
    return simulate(parse_scenario(text)).traffic[0].connection_results


def hv1_nic(choice_out: str | None, choice_in: str | None, direction: Direction) -> str | None:
    return choice_out if direction == "outbound" else choice_in


def timeline(connection: ConnectionResult, direction: Direction) -> list[tuple[float, str | None]]:
    """(when, hv1's member in `direction`) at the start and at every move, to the microsecond."""
    return [(round(n.at_s, 6), hv1_nic(n.out_nic, n.in_nic, direction)) for n in connection.nics]


@pytest.mark.parametrize(
    ("direction", "down", "reason"),
    [
        pytest.param(
            "outbound",
            "hv1/nic2",
            "switch independent + address hash (TransportPorts), outbound from hv1: hv1/nic2's link goes down"
            " at 2 s; the connections on it move at 2.0 s to hv1/nic1, the others stay; nothing is black-holed",
            id="outbound-member-down",
        ),
        pytest.param(
            "inbound",
            "hv1/nic1",
            "switch independent + address hash (TransportPorts), inbound to hv1: the primary hv1/nic1's link"
            " goes down at 2 s; every connection moves at 2.0 s to hv1/nic2, the new primary; nothing is black-holed",
            id="inbound-primary-down",
        ),
    ],
)
def test_a_member_link_down_moves_its_connections_at_once(direction: Direction, down: str, reason: str) -> None:
    team = Team("lbfo", "switch_independent", "transport_ports", members=2)
    events = f"  - {{at: 2s, action: nic_down, target: {down}}}\n"
    connections = run_failure(team, direction, events)
    first = {hv1_nic(c.nics[0].out_nic, c.nics[0].in_nic, direction) for c in connections}
    assert down in first, f"{reason}\n  but no connection started on {down}: {first}"
    other = ({"hv1/nic1", "hv1/nic2"} - {down}).pop()
    for k, c in enumerate(connections):
        seen = timeline(c, direction)
        if seen[0][1] == down:
            assert seen == [(0.0, down), (2.0, other)], f"{reason}\n  connection {k}: {seen}"
        else:
            assert len(seen) == 1, f"{reason}\n  connection {k}: {seen}"
        assert c.blackholed_s == 0 and c.end_s is not None, f"{reason}\n  connection {k}: {c}"


@pytest.mark.parametrize("mode", ["switch_independent", "static", "lacp"])
def test_a_standby_member_carries_nothing_then_everything(mode: Mode) -> None:
    """Standby hv1/nic2 (members nic1 and nic2): no connection uses it in
    either direction until the active hv1/nic1's link goes down at 2 s; then
    every connection moves to it at 2.0 s."""
    reason = (
        f"{MODE_WORDS[mode]} + address hash, standby nic2: nothing on hv1/nic2,"
        " then everything moves there at 2.0 s when hv1/nic1 goes down"
    )
    team = Team("lbfo", mode, "transport_ports", members=2, standby="nic2")
    events = "  - {at: 2s, action: nic_down, target: hv1/nic1}\n"
    for direction in ("outbound", "inbound"):
        for k, c in enumerate(run_failure(team, direction, events)):
            seen = timeline(c, direction)
            assert seen == [(0.0, "hv1/nic1"), (2.0, "hv1/nic2")], f"{reason}\n  {direction} connection {k}: {seen}"
            assert c.blackholed_s == 0, f"{reason}\n  {direction} connection {k}: {c}"


@pytest.mark.parametrize(
    ("mode", "direction", "dead", "reason"),
    [
        pytest.param(
            "lacp",
            "outbound",
            "hv1/nic2",
            "LACP, outbound from hv1: hv1/nic2's switch port forwards nothing from 1 s with its link up;"
            " LACPDUs stop, so after 3 s (at 4.0 s) its connections move to hv1/nic1, black-holed 3 s",
            id="lacp-outbound",
        ),
        pytest.param(
            "lacp",
            "inbound",
            "hv1/nic2",
            "LACP, inbound to hv1: the switch sends some connections to hv1/nic2, whose port forwards nothing"
            " from 1 s; after 3 s (at 4.0 s) they arrive on hv1/nic1 instead, black-holed 3 s",
            id="lacp-inbound",
        ),
        pytest.param(
            "static",
            "outbound",
            "hv1/nic2",
            "static, outbound from hv1: the team sees link state only, so the connections on hv1/nic2"
            " (port black-holed at 1 s) never move: stalled since 1 s",
            id="static-outbound",
        ),
        pytest.param(
            "static",
            "inbound",
            "hv1/nic2",
            "static, inbound to hv1: the switch keeps sending to hv1/nic2 (port black-holed at 1 s, link up):"
            " those connections stall since 1 s",
            id="static-inbound",
        ),
        pytest.param(
            "switch_independent",
            "outbound",
            "hv1/nic2",
            "switch independent, outbound from hv1: the connections on hv1/nic2 (port black-holed at 1 s,"
            " link up) never move: stalled since 1 s",
            id="switch_independent-outbound",
        ),
        pytest.param(
            "switch_independent",
            "inbound",
            "hv1/nic1",
            "switch independent, inbound to hv1: everything arrives on the primary hv1/nic1; its port is"
            " black-holed at 1 s with its link up, so every connection stalls since 1 s",
            id="switch_independent-inbound-primary",
        ),
    ],
)
def test_a_black_holed_port_is_seen_by_lacp_only(mode: Mode, direction: Direction, dead: str, reason: str) -> None:
    team = Team("lbfo", mode, "transport_ports", members=2)
    port = f"sw/{dead[-1]}"  # hv1/nicN is cabled to sw/N
    events = f"  - {{at: 1s, action: port_blackhole, target: {port}}}\n"
    connections = run_failure(team, direction, events)
    on_dead = {k for k, c in enumerate(connections) if hv1_nic(c.nics[0].out_nic, c.nics[0].in_nic, direction) == dead}
    assert on_dead, f"{reason}\n  but no connection started on {dead}"
    for k, c in enumerate(connections):
        seen = timeline(c, direction)
        fate = f"black-holed {c.blackholed_s} s, stalled since {c.stalled_since_s}"
        detail = f"{reason}\n  connection {k}: {seen}, {fate}"
        if k not in on_dead:
            assert len(seen) == 1 and c.blackholed_s == 0 and c.end_s is not None, detail
        elif mode == "lacp":
            other = ({"hv1/nic1", "hv1/nic2"} - {dead}).pop()
            assert seen == [(0.0, dead), (4.0, other)], detail
            assert c.blackholed_s == pytest.approx(3.0) and c.end_s is not None, detail
            assert c.stalled_since_s is None, detail
        else:
            assert len(seen) == 1 and c.end_s is None, detail
            assert c.stalled_since_s == pytest.approx(1.0), detail


def test_lacp_times_a_second_black_hole_from_its_own_start() -> None:
    """LACP, outbound from hv1: hv1/nic2's port is black-holed at 1 s, restored
    at 2 s (LACPDUs flow again) and black-holed again at 3.5 s; three missed
    LACPDUs after that, at 6.5 s, its connections move to hv1/nic1: black-holed
    1 s + 3 s."""
    team = Team("lbfo", "lacp", "transport_ports", members=2)
    events = (
        "  - {at: 1s, action: port_blackhole, target: sw/2}\n"
        "  - {at: 2s, action: port_restore, target: sw/2}\n"
        "  - {at: 3.5s, action: port_blackhole, target: sw/2}\n"
    )
    moved = [c for c in run_failure(team, "outbound", events) if c.nics[0].out_nic == "hv1/nic2"]
    assert moved
    for c in moved:
        seen = timeline(c, "outbound")
        assert seen == [(0.0, "hv1/nic2"), (6.5, "hv1/nic1")], seen
        assert c.blackholed_s == pytest.approx(4.0), c.blackholed_s
