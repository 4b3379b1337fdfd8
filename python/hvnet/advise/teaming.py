"""Teaming rules: LBFO under a virtual switch, RDMA in LBFO, mixed speeds, load-balancing algorithms.

SET's own rules (1–8 identical members, switch independent only, no standby,
Hyper-V port or dynamic) and switch-dependent teams across switches that are
not one stack are enforced when the scenario is loaded (docs/scenario.md).
"""

from __future__ import annotations

from hvnet.advise._design import and_list, gbps, team_path, vswitch_of
from hvnet.advise.rules import Change, Check, Finding, Rule, Severity
from hvnet.advise.sources import (
    AZURE_LOCAL_HOST_NETWORK,
    NEW_NETLBFOTEAM,
    NIC_TEAMING,
    NIC_TEAMING_SETTINGS,
    SET_AND_RDMA,
    TEAMING_IN_AZURE_STACK_HCI,
)
from hvnet.model import Host, LoadBalancing, Scenario, Team, TeamingMode, TeamKind
from hvnet.words import counted

__all__ = [
    "CHECKS",
    "HVPORT_ONE_MEMBER",
    "LBFO_MIXED_SPEED",
    "LBFO_PREFER_DYNAMIC",
    "LBFO_RDMA_LOST",
    "LBFO_VSWITCH",
    "SET_HVPORT_FAST",
    "SI_ADDRESS_HASH_INBOUND",
]

LBFO_VSWITCH = Rule(
    id="lbfo-vswitch-deprecated",
    severity=Severity.WARNING,
    title="Virtual switch on an LBFO team",
    sources=(TEAMING_IN_AZURE_STACK_HCI, SET_AND_RDMA),
    confirmed=True,
    basis="Microsoft deprecates binding the Hyper-V virtual switch to an LBFO team and points to SET (S5); "
    "SET supports RDMA, VMQ and vRSS on its members (S1). Windows Server 2022 refuses it by default "
    "(not stated in these sources; hvnet does not know the Windows version, so this is a warning, not an error).",
    cmdlet="Remove-VMSwitch {vswitch}; Remove-NetLbfoTeam {team}; "
    "New-VMSwitch -Name {vswitch} -NetAdapterName {members} -EnableEmbeddedTeaming $true",
)
LBFO_RDMA_LOST = Rule(
    id="lbfo-rdma-lost",
    severity=Severity.WARNING,
    title="RDMA NICs in an LBFO team give no RDMA",
    sources=(SET_AND_RDMA, TEAMING_IN_AZURE_STACK_HCI),
    confirmed=True,
    basis="RDMA cannot be used on NICs bound to a NIC (LBFO) team; teamed RDMA needs SET (S1, S5).",
    cmdlet="Remove-NetLbfoTeam {team}; New-VMSwitch -Name {vswitch} -NetAdapterName {members} -EnableEmbeddedTeaming "
    "$true",
)
LBFO_MIXED_SPEED = Rule(
    id="lbfo-mixed-speed",
    severity=Severity.ERROR,
    title="Team members of different speeds",
    sources=(NEW_NETLBFOTEAM,),
    confirmed=True,
    basis='"Teaming network adapters of different speeds is not supported"; the distribution algorithms '
    "do not take speed into account (S4).",
    cmdlet=None,
)
HVPORT_ONE_MEMBER = Rule(
    id="hvport-one-member",
    severity=Severity.WARNING,
    title="LBFO Hyper-V port caps each VM (and host vNIC) at one member",
    sources=(NIC_TEAMING_SETTINGS,),
    confirmed=True,
    basis='Hyper-V port "will also always limit a single VM ... to the bandwidth that is available on a single '
    'interface", and with few VMs it may not balance; Dynamic is recommended for best performance (S2).',
    cmdlet="Set-NetLbfoTeam -Name {team} -LoadBalancingAlgorithm Dynamic",
)
SI_ADDRESS_HASH_INBOUND = Rule(
    id="si-address-hash-inbound",
    severity=Severity.WARNING,
    title="Switch independent with address hash receives on one member",
    sources=(NIC_TEAMING_SETTINGS, NIC_TEAMING),
    confirmed=False,
    basis="S2 recommends Dynamic for best performance except for a two-member active/standby team (confirmed); "
    "that all inbound traffic then arrives on the primary member is stated in the Windows Server 2012 R2 NIC "
    "Teaming deployment guide (BEHAVIOUR.md), not in the pages checked here.",
    cmdlet="Set-NetLbfoTeam -Name {team} -LoadBalancingAlgorithm Dynamic",
)
LBFO_PREFER_DYNAMIC = Rule(
    id="lbfo-prefer-dynamic",
    severity=Severity.INFO,
    title="LBFO team not on Dynamic",
    sources=(NIC_TEAMING_SETTINGS,),
    confirmed=True,
    basis='"Whether the team is configured with Switch Independent or one of the Switch Dependent modes, it is '
    'recommended that you use Dynamic distribution mode for best performance", except a two-member switch '
    "independent active/standby team, where Address Hash is slightly better (S2).",
    cmdlet="Set-NetLbfoTeam -Name {team} -LoadBalancingAlgorithm Dynamic",
)
SET_HVPORT_FAST = Rule(
    id="set-hvport-fast-nics",
    severity=Severity.INFO,
    title="SET on Dynamic with NICs of 10 Gbps or more",
    sources=(AZURE_LOCAL_HOST_NETWORK,),
    confirmed=True,
    basis='"For best performance, Hyper-V Port is recommended for use on all NICs that operate at or above '
    '10 Gbps" (S6, on SET).',
    cmdlet="Set-VMSwitchTeam -Name {vswitch} -LoadBalancingAlgorithm HyperVPort",
)


def _lbfo_teams(scenario: Scenario) -> list[tuple[Host, Team]]:
    return [(h, t) for h in scenario.hosts for t in h.teams if t.kind == TeamKind.LBFO]


def _to_set(host: Host, team: Team) -> list[Change]:
    """The changes that turn an LBFO team into a SET team (what the loader requires of SET)."""
    changes = [Change(path=team_path(host.name, team.name, "kind"), value="set")]
    if team.mode != TeamingMode.SWITCH_INDEPENDENT:
        changes.append(Change(path=team_path(host.name, team.name, "mode"), value="switch_independent"))
    if team.load_balancing == LoadBalancing.ADDRESS_HASH:
        changes.append(Change(path=team_path(host.name, team.name, "load_balancing"), value="dynamic"))
    if team.standby is not None:
        changes.append(Change(path=team_path(host.name, team.name, "standby"), value=None))
    return changes


def check_lbfo_vswitch(scenario: Scenario) -> list[Finding]:
    findings = []
    for host, team in _lbfo_teams(scenario):
        vswitch = vswitch_of(host, team.name)
        if vswitch is None:
            continue
        findings.append(
            LBFO_VSWITCH.finding(
                f"{host.name}: virtual switch {vswitch} is bound to LBFO team {team.name} ({and_list(team.members)})",
                f"make {team.name} a SET team (kind: set) under {vswitch}",
                _to_set(host, team),
                vswitch=vswitch,
                team=team.name,
                members=",".join(team.members),
            )
        )
    return findings


def check_lbfo_rdma(scenario: Scenario) -> list[Finding]:
    findings = []
    for host, team in _lbfo_teams(scenario):
        rdma = [m for m in team.members if host.nic(m).rdma]
        if not rdma:
            continue
        vswitch = vswitch_of(host, team.name) or "vSwitch"
        findings.append(
            LBFO_RDMA_LOST.finding(
                f"{host.name}: LBFO team {team.name} holds RDMA NICs {and_list(rdma)} (rdma: true); SMB Direct cannot "
                "use them",
                "team them with SET (kind: set) instead of LBFO, or take them out of the team",
                _to_set(host, team),
                team=team.name,
                vswitch=vswitch,
                members=",".join(team.members),
            )
        )
    return findings


def check_mixed_speed(scenario: Scenario) -> list[Finding]:
    findings = []
    for host, team in _lbfo_teams(scenario):
        speeds = {m: host.nic(m).speed for m in team.members}
        if len(set(speeds.values())) < 2:
            continue
        fastest = max(speeds.values())
        slow = [m for m, s in speeds.items() if s < fastest]
        shown = ", ".join(f"{m} {gbps(s)}" for m, s in speeds.items())
        findings.append(
            LBFO_MIXED_SPEED.finding(
                f"{host.name}: team {team.name} mixes speeds ({shown})",
                f"team NICs of one speed: replace {and_list(slow)} with {gbps(fastest)} NICs, or take them out of the "
                "team",
                [
                    Change(path=f"hosts[{host.name}].nics[{m}].speed", value=gbps(fastest).replace(" ", ""))
                    for m in slow
                ],
            )
        )
    return findings


def _active(team: Team) -> int:
    return len(team.members) - (team.standby is not None)


def check_hvport(scenario: Scenario) -> list[Finding]:
    findings = []
    for host, team in _lbfo_teams(scenario):
        if team.load_balancing != LoadBalancing.HYPERV_PORT or _active(team) < 2:
            continue
        vswitch = vswitch_of(host, team.name)
        vms = [vm.name for vm in scenario.vms if vm.host == host.name and vswitch is not None and vm.vswitch == vswitch]
        findings.append(
            HVPORT_ONE_MEMBER.finding(
                f"{host.name}: team {team.name} balances by Hyper-V port over {_active(team)} active members "
                f"({counted(len(vms), 'VM')} on it); each VM and host vNIC is held to one member",
                f"set {team.name} to dynamic",
                [Change(path=team_path(host.name, team.name, "load_balancing"), value="dynamic")],
                team=team.name,
            )
        )
    return findings


def _active_standby_pair(team: Team) -> bool:
    """S2's exception: two members, switch independent, one of them standby."""
    return len(team.members) == 2 and team.standby is not None and team.mode == TeamingMode.SWITCH_INDEPENDENT


def check_si_address_hash(scenario: Scenario) -> list[Finding]:
    findings = []
    for host, team in _lbfo_teams(scenario):
        if (
            team.mode != TeamingMode.SWITCH_INDEPENDENT
            or team.load_balancing != LoadBalancing.ADDRESS_HASH
            or _active(team) < 2
        ):
            continue
        findings.append(
            SI_ADDRESS_HASH_INBOUND.finding(
                f"{host.name}: team {team.name} is switch independent with address hash ({team.address_hash.value}) "
                f"over {_active(team)} active members; inbound traffic arrives on its primary member only",
                f"set {team.name} to dynamic (inbound then follows each vSwitch port's member)",
                [Change(path=team_path(host.name, team.name, "load_balancing"), value="dynamic")],
                team=team.name,
            )
        )
    return findings


def check_prefer_dynamic(scenario: Scenario) -> list[Finding]:
    """Address hash on a switch-dependent team (the switch-independent and Hyper-V port cases have their own rules)."""
    findings = []
    for host, team in _lbfo_teams(scenario):
        if (
            team.load_balancing != LoadBalancing.ADDRESS_HASH
            or team.mode == TeamingMode.SWITCH_INDEPENDENT
            or _active_standby_pair(team)
            or len(team.members) < 2
        ):
            continue
        findings.append(
            LBFO_PREFER_DYNAMIC.finding(
                f"{host.name}: team {team.name} ({team.mode.value}) balances by address hash "
                f"({team.address_hash.value})",
                f"set {team.name} to dynamic",
                [Change(path=team_path(host.name, team.name, "load_balancing"), value="dynamic")],
                team=team.name,
            )
        )
    return findings


def check_set_hvport(scenario: Scenario) -> list[Finding]:
    findings = []
    for host in scenario.hosts:
        for team in host.teams:
            if team.kind != TeamKind.SET or team.load_balancing != LoadBalancing.DYNAMIC:
                continue
            slowest = min(host.nic(m).speed for m in team.members)
            if slowest < 10e9:
                continue
            vswitch = vswitch_of(host, team.name) or team.name
            findings.append(
                SET_HVPORT_FAST.finding(
                    f"{host.name}: SET team {team.name} ({gbps(slowest)} members) balances by dynamic",
                    f"set {team.name} to hyperv_port",
                    [Change(path=team_path(host.name, team.name, "load_balancing"), value="hyperv_port")],
                    vswitch=vswitch,
                )
            )
    return findings


CHECKS: tuple[tuple[Rule, Check], ...] = (
    (LBFO_MIXED_SPEED, check_mixed_speed),
    (LBFO_VSWITCH, check_lbfo_vswitch),
    (LBFO_RDMA_LOST, check_lbfo_rdma),
    (HVPORT_ONE_MEMBER, check_hvport),
    (SI_ADDRESS_HASH_INBOUND, check_si_address_hash),
    (LBFO_PREFER_DYNAMIC, check_prefer_dynamic),
    (SET_HVPORT_FAST, check_set_hvport),
)
