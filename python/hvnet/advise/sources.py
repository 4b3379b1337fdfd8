"""The documents the rules rest on (ADVISOR.md's S-numbers), one place each."""

from __future__ import annotations

from hvnet.advise.rules import Source

__all__ = [
    "AZURE_LOCAL_HOST_NETWORK",
    "AZURE_LOCAL_SINGLE_SWITCH",
    "LIVE_MIGRATION_SETUP",
    "NEW_NETLBFOTEAM",
    "NIC_TEAMING",
    "NIC_TEAMING_SETTINGS",
    "PERFORMANCE_TUNING_NICS",
    "SET_AND_RDMA",
    "TEAMING_IN_AZURE_STACK_HCI",
    "VMQ_BELOW_10G",
    "WORKING_HARD_IN_IT_JUMBO",
]

SET_AND_RDMA = Source(  # S1
    title="Remote Direct Memory Access (RDMA) and Switch Embedded Teaming (SET)",
    url="https://learn.microsoft.com/windows-server/virtualization/hyper-v-virtual-switch/rdma-and-switch-embedded-teaming",
)
NIC_TEAMING_SETTINGS = Source(  # S2
    title="NIC Teaming settings",
    url="https://learn.microsoft.com/windows-server/networking/technologies/nic-teaming/nic-teaming-settings",
)
NIC_TEAMING = Source(  # S3
    title="NIC Teaming",
    url="https://learn.microsoft.com/windows-server/networking/technologies/nic-teaming/nic-teaming",
)
NEW_NETLBFOTEAM = Source(  # S4
    title="New-NetLbfoTeam",
    url="https://learn.microsoft.com/powershell/module/netlbfo/new-netlbfoteam",
)
TEAMING_IN_AZURE_STACK_HCI = Source(  # S5
    title="Teaming in Azure Stack HCI (Microsoft Networking blog)",
    url="https://techcommunity.microsoft.com/t5/networking-blog/teaming-in-azure-stack-hci/ba-p/1070642",
)
AZURE_LOCAL_HOST_NETWORK = Source(  # S6
    title="Host network requirements for Azure Local",
    url="https://learn.microsoft.com/azure/azure-local/concepts/host-network-requirements",
)
LIVE_MIGRATION_SETUP = Source(  # S8
    title="Set up hosts for live migration without Failover Clustering",
    url="https://learn.microsoft.com/windows-server/virtualization/hyper-v/deploy/set-up-hosts-for-live-migration-without-failover-clustering",
)
PERFORMANCE_TUNING_NICS = Source(  # S11
    title="Performance Tuning Network Adapters",
    url="https://learn.microsoft.com/windows-server/networking/technologies/network-subsystem/net-sub-performance-tuning-nics",
)
WORKING_HARD_IN_IT_JUMBO = Source(  # S12
    title="Jumbo Frame Settings & Slow or Failing Live Migrations over SMB Direct (Working Hard In IT)",
    url="https://blog.workinghardinit.work/tag/jumbo-frames/",
)
VMQ_BELOW_10G = Source(  # S15, found only as a republished copy
    title="Enabling and configuring VMQ/dVMQ on Windows Server 2012 R2 with below 10 Gig adapters (Charbel Nemnom; "
    "republished copy)",
    url="https://techsumo.net/2021/06/14/enabling-and-configuring-vmq-dvmq-in-windows-server-2012-r2-with-a-network-adapter-for-less-than-10-gigs-charbel-nemnom-mvp-mct-ccsp/",
)
AZURE_LOCAL_SINGLE_SWITCH = Source(  # S16
    title="Two-node storage switchless, single switch network reference pattern (Azure Local)",
    url="https://learn.microsoft.com/azure/azure-local/plan/two-node-switchless-single-switch",
)
