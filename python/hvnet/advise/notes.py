"""The rules of the starting set (shared/design/ADVISOR.md) that ``advise`` does not check, and why."""

from __future__ import annotations

__all__ = ["ENFORCED_AT_LOAD", "NOT_CHECKED"]

#: Refused when the scenario is loaded (docs/scenario.md, "A design Windows refuses"): a scenario that
#: breaks them never reaches ``advise``.
ENFORCED_AT_LOAD: dict[str, str] = {
    "set-identical-members": "a SET team's members must have the same speed, model, rdma and mtu",
    "set-switch-independent-only": "a SET team is always switch_independent",
    "set-no-standby": "a SET team has no standby member",
    "set-member-count": "a SET team has 1–8 members (an LBFO team 1–32)",
    "set-lb-algorithm": "a SET team balances by hyperv_port or dynamic",
    "switch-dependent-lag": "a static or LACP team's members go to one switch or one stack (stack: name)",
    "smb-direct-needs-rdma": "live_migration.option smb_direct needs an RDMA interface on both hosts",
}

#: Not checked, because the scenario does not describe what the rule is about.
NOT_CHECKED: dict[str, str] = {
    "single-card-spof": "the scenario does not describe which NIC ports share a physical adapter (card)",
    "roce-needs-dcb": "the scenario does not describe DCB (PFC, ETS) or the RDMA protocol (RoCE, iWARP)",
    "rdma-protocol-mismatch": "the scenario does not describe the RDMA protocol (RoCE, iWARP)",
    "atc-dcb-defaults": "the scenario does not describe DCB priorities and bandwidth shares, on hosts or switches",
    "storage-vlans": "the scenario does not describe subnets, VLANs or host vNICs by purpose",
    "lm-smb-no-limit": "the scenario does not describe storage traffic or DCB traffic classes, which the limit "
    "protects",
    "rss-vmq-overlap": "the scenario does not describe VMQ processor sets apart from RSS's (rss_base_core serves both)",
    "rss-min-queues-identical": "unconfirmed in the pages checked (that Min-Queues members should share one "
    "processor set)",
    "smb-multichannel-mixed": "its source (SMB Multichannel, Windows Server 2012) was not re-checked; hvnet already "
    "simulates Multichannel using only the fastest interfaces of one kind",
    "lbfo-vswitch-blocked (as an error)": "the scenario does not state the Windows version; "
    "lbfo-vswitch-deprecated warns instead",
    "testnetstack-thresholds": "not a property of a design: it is how to validate a built cluster (Test-NetStack)",
}
