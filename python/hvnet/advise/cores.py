"""Cores: RSS/VMQ processors off core 0 and apart within a team; VMQ on where a virtual switch needs it."""

from __future__ import annotations

from hvnet.advise._design import and_list, gbps, nic_path, sum_of_queues, uplink_nics
from hvnet.advise.rules import Change, Check, Finding, Rule, Severity
from hvnet.advise.sources import NIC_TEAMING, PERFORMANCE_TUNING_NICS, SET_AND_RDMA, VMQ_BELOW_10G
from hvnet.model import Host, Scenario, split_endpoint

__all__ = ["CHECKS", "RSS_CORE0", "RSS_OVERLAP", "VMQ_OFF", "VMQ_ON_1GBE", "tuned_base_cores"]

RSS_CORE0 = Rule(
    id="rss-core0",
    severity=Severity.WARNING,
    title="RSS/VMQ processors start at core 0",
    sources=(SET_AND_RDMA,),
    confirmed=True,
    basis="each NIC's *RssBaseProcNumber should be an even number of at least 2 (at least 1 without two logical "
    "processors per core), because core 0 does most of the system's processing (S1).",
    cmdlet="{commands}",
)
RSS_OVERLAP = Rule(
    id="rss-overlap",
    severity=Severity.WARNING,
    title="Members of a Sum-of-Queues team share processors",
    sources=(SET_AND_RDMA, NIC_TEAMING, PERFORMANCE_TUNING_NICS),
    confirmed=True,
    basis="in a SET team, or a switch independent team with Hyper-V port or Dynamic (Sum-of-Queues), the members' "
    "processors should not overlap (S1, S3). That Min-Queues members should share one set is not checked.",
    cmdlet="{commands}",
)
VMQ_OFF = Rule(
    id="vmq-off-on-vswitch",
    severity=Severity.WARNING,
    title="VMQ off under a virtual switch",
    sources=(SET_AND_RDMA, NIC_TEAMING),
    confirmed=True,
    basis='"VMQ should be enabled anytime Hyper-V is enabled" (S3); "you should enable VMQ whenever you are '
    "using Hyper-V and SET\" (S1). Without it every VM's traffic is received on one core.",
    cmdlet="Enable-NetAdapterVmq -Name {nics}",
)
VMQ_ON_1GBE = Rule(
    id="vmq-on-1gbe",
    severity=Severity.INFO,
    title="VMQ on a 1 Gbps NIC",
    sources=(VMQ_BELOW_10G,),
    confirmed=False,
    basis="a practitioner (S15, found only as a republished copy) writes that Windows leaves VMQ off on 1 Gbps "
    "NICs and that a vendor's 1 Gbps VMQ driver misbehaved; no Microsoft page checked here says so. hvnet does "
    "not model that driver problem: the simulated effect shows only what VMQ's spread is worth.",
    cmdlet="Disable-NetAdapterVmq -Name {nics}",
)


def tuned_base_cores(host: Host) -> dict[str, int]:
    """A layout off core 0: each Sum-of-Queues team's members on consecutive, disjoint cores from core 1
    (wrapping within cores 1.. when they run out); every other NIC from core 1."""
    usable = max(host.cpu.cores - 1, 1)
    base = {nic.name: 1 for nic in host.nics}
    cursor = 0
    for team in host.teams:
        if not sum_of_queues(team) or len(team.members) < 2:
            continue
        for member in team.members:
            base[member] = 1 + cursor % usable
            cursor += host.nic(member).rss_queues
    return base


def _cabled(scenario: Scenario) -> set[tuple[str, str]]:
    return {split_endpoint(end) for cable in scenario.cables for end in (cable.a, cable.b)}


def _commands(scenario: Scenario, moves: list[tuple[str, str, int]]) -> str:
    """The cmdlets for (host, nic, physical core): VMQ's for NICs under a virtual switch, RSS's for the others."""
    commands = []
    for host_name, nic, core in moves:
        host = scenario.host(host_name)
        uplinks = {n.name for n, _ in uplink_nics(host)}
        logical = core * 2 if host.cpu.smt else core
        verb = "Set-NetAdapterVmq" if nic in uplinks else "Set-NetAdapterRss"
        commands.append(f"{host_name}: {verb} -Name {nic} -BaseProcessorNumber {logical}")
    return "; ".join(commands)


def check_core0(scenario: Scenario) -> list[Finding]:
    cabled = _cabled(scenario)
    moves = []
    for host in scenario.hosts:
        if host.cpu.cores < 2:
            continue
        tuned = tuned_base_cores(host)
        moves += [
            (host.name, n.name, tuned[n.name])
            for n in host.nics
            if (host.name, n.name) in cabled and n.rss_base_core == 0
        ]
    if not moves:
        return []
    by_host: dict[str, list[str]] = {}
    for h, n, _ in moves:
        by_host.setdefault(h, []).append(n)
    shown = "; ".join(f"{h}: {and_list(nics)}" for h, nics in by_host.items())
    return [
        RSS_CORE0.finding(
            f"rss_base_core 0 ({shown}): their receive work shares core 0 with the system's",
            "start each NIC's processors at core 1 or later (members of a Sum-of-Queues team on disjoint cores)",
            [Change(path=nic_path(h, n, "rss_base_core"), value=core) for h, n, core in moves],
            commands=_commands(scenario, moves),
        )
    ]


def check_overlap(scenario: Scenario) -> list[Finding]:
    findings = []
    for host in scenario.hosts:
        if host.cpu.cores < 2:
            continue
        tuned = tuned_base_cores(host)
        for team in host.teams:
            if not sum_of_queues(team) or len(team.members) < 2:
                continue
            ranges = {
                m: range(host.nic(m).rss_base_core, host.nic(m).rss_base_core + host.nic(m).rss_queues)
                for m in team.members
            }
            shared = sorted(
                {c for a in team.members for b in team.members if a < b for c in set(ranges[a]) & set(ranges[b])}
            )
            if not shared:
                continue
            shown = ", ".join(f"{m} cores {r.start}–{r.stop - 1}" for m, r in ranges.items())
            moves = [(host.name, m, tuned[m]) for m in team.members]
            findings.append(
                RSS_OVERLAP.finding(
                    f"{host.name}: team {team.name} ({team.kind.value}, Sum-of-Queues) has members on shared cores "
                    f"({shown})",
                    "give each member its own cores: " + ", ".join(f"{m} from core {tuned[m]}" for m in team.members),
                    [Change(path=nic_path(host.name, m, "rss_base_core"), value=tuned[m]) for m in team.members],
                    commands=_commands(scenario, moves),
                )
            )
    return findings


def check_vmq_off(scenario: Scenario) -> list[Finding]:
    findings = []
    for host in scenario.hosts:
        off = [(nic, vswitch) for nic, vswitch in uplink_nics(host) if not nic.vmq and nic.speed >= 10e9]
        if off:
            findings.append(
                VMQ_OFF.finding(
                    f"{host.name}: VMQ is off on {and_list(f'{n.name} ({gbps(n.speed)}, under {v})' for n, v in off)}",
                    f"turn VMQ on for {and_list(n.name for n, _ in off)}",
                    [Change(path=nic_path(host.name, n.name, "vmq"), value=True) for n, _ in off],
                    nics=",".join(n.name for n, _ in off),
                )
            )
    return findings


def check_vmq_1gbe(scenario: Scenario) -> list[Finding]:
    findings = []
    for host in scenario.hosts:
        on = [(nic, vswitch) for nic, vswitch in uplink_nics(host) if nic.vmq and nic.speed <= 1e9]
        if on:
            findings.append(
                VMQ_ON_1GBE.finding(
                    f"{host.name}: VMQ is on for 1 Gbps {and_list(f'{n.name} (under {v})' for n, v in on)}",
                    f"consider VMQ off on {and_list(n.name for n, _ in on)} (Windows' default below 10 Gbps, per S15)",
                    [Change(path=nic_path(host.name, n.name, "vmq"), value=False) for n, _ in on],
                    nics=",".join(n.name for n, _ in on),
                )
            )
    return findings


CHECKS: tuple[tuple[Rule, Check], ...] = (
    (RSS_CORE0, check_core0),
    (RSS_OVERLAP, check_overlap),
    (VMQ_OFF, check_vmq_off),
    (VMQ_ON_1GBE, check_vmq_1gbe),
)
