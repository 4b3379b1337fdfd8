"""Live migration: the performance option for the bandwidth and RDMA at hand, and how many at a time."""

from __future__ import annotations

from hvnet.advise._design import and_list, gbps, rdma_migration_speed
from hvnet.advise.rules import Change, Check, Finding, Rule, Severity
from hvnet.advise.sources import AZURE_LOCAL_HOST_NETWORK, LIVE_MIGRATION_SETUP
from hvnet.model import Host, MigrationOption, Scenario

__all__ = ["CHECKS", "LM_SIMULTANEOUS", "LM_TRANSPORT"]

#: Below this much bandwidth for live migration, compression; at or above it, SMB with RDMA (S6).
RDMA_THRESHOLD_BPS = 5e9

LM_TRANSPORT = Rule(
    id="lm-transport-choice",
    severity=Severity.WARNING,
    title="Live migration option does not fit the bandwidth",
    sources=(AZURE_LOCAL_HOST_NETWORK, LIVE_MIGRATION_SETUP),
    confirmed=True,
    basis='"If the available bandwidth for live migration is >= 5 Gbps, and the network adapters are capable, use '
    'RDMA" (SMB); below 5 Gbps use compression (S6). SMB uses SMB Direct where both hosts have RDMA (S8).',
    cmdlet="Set-VMHost -VirtualMachineMigrationPerformanceOption {option}",
)
LM_SIMULTANEOUS = Rule(
    id="lm-simultaneous",
    severity=Severity.INFO,
    title="More simultaneous live migrations than the default",
    sources=(LIVE_MIGRATION_SETUP,),
    confirmed=False,
    basis="S8 states the default of 2 simultaneous live migrations; that more than 2 only splits the bandwidth "
    "(each migration takes longer, the drain no shorter) is practitioners' advice, not in S8.",
    cmdlet="Set-VMHost -MaximumVirtualMachineMigrations 2",
)


def _lm_bandwidth(host: Host) -> float:
    """What SMB live migration may use: the fastest RDMA interface, under the SMB limit if one is set."""
    speed = rdma_migration_speed(host)
    limit = host.live_migration.smb_bandwidth_limit
    return speed if limit is None else min(speed, limit)


def _migrates(scenario: Scenario) -> bool:
    """Live migrations happen only with VMs and a second host."""
    return bool(scenario.vms) and len(scenario.hosts) > 1


def check_transport(scenario: Scenario) -> list[Finding]:
    if not _migrates(scenario):
        return []
    to_smb: list[tuple[Host, float]] = []
    to_compression: list[tuple[Host, float, str]] = []
    rdma_hosts = [h for h in scenario.hosts if _lm_bandwidth(h) >= RDMA_THRESHOLD_BPS]
    for host in scenario.hosts:
        option = host.live_migration.option
        bandwidth = _lm_bandwidth(host)
        smb = option in (MigrationOption.SMB, MigrationOption.SMB_DIRECT)
        if not smb and bandwidth >= RDMA_THRESHOLD_BPS and len(rdma_hosts) >= 2:
            to_smb.append((host, bandwidth))
        elif smb and bandwidth < RDMA_THRESHOLD_BPS:
            why = "no RDMA interface" if rdma_migration_speed(host) == 0 else f"{gbps(bandwidth)} for SMB Direct"
            to_compression.append((host, bandwidth, why))
    findings = []
    if to_smb:
        findings.append(
            LM_TRANSPORT.finding(
                "; ".join(
                    f"{h.name}: option {h.live_migration.option.value} with {gbps(b)} of RDMA" for h, b in to_smb
                ),
                f"set live migration to smb on {and_list(h.name for h, _ in to_smb)} (SMB Direct over RDMA)",
                [Change(path=f"hosts[{h.name}].live_migration.option", value="smb") for h, _ in to_smb],
                option="SMB",
            )
        )
    if to_compression:
        findings.append(
            LM_TRANSPORT.finding(
                "; ".join(
                    f"{h.name}: option {h.live_migration.option.value} with {why}" for h, _, why in to_compression
                ),
                f"set live migration to compression on {and_list(h.name for h, _, _ in to_compression)} "
                "(less than 5 Gbps for SMB Direct)",
                [
                    Change(path=f"hosts[{h.name}].live_migration.option", value="compression")
                    for h, _, _ in to_compression
                ],
                option="Compression",
            )
        )
    return findings


def check_simultaneous(scenario: Scenario) -> list[Finding]:
    if not _migrates(scenario):
        return []
    many = [h for h in scenario.hosts if h.live_migration.simultaneous > 2]
    if not many:
        return []
    return [
        LM_SIMULTANEOUS.finding(
            "; ".join(f"{h.name}: {h.live_migration.simultaneous} simultaneous live migrations" for h in many),
            f"set simultaneous to 2 on {and_list(h.name for h in many)}",
            [Change(path=f"hosts[{h.name}].live_migration.simultaneous", value=2) for h in many],
        )
    ]


CHECKS: tuple[tuple[Rule, Check], ...] = (
    (LM_TRANSPORT, check_transport),
    (LM_SIMULTANEOUS, check_simultaneous),
)
