"""Which public measurement (`measurements.yaml`) each figure of `hvnet validate` comes from, and why the
Hyper-V figures that are not cases are not.

Every Hyper-V measurement of the set is in `FIGURES` (the ids of its figures) or in `NOT_CASES`, and a
measurement with a figure in `FIGURES` may still have one in `NOT_CASES` (tests/test_validate.py). Not a
case, and why (in full in `NOT_CASES`):

- M14, the 10 VMs' maximum transfer on 10 GbE: 1,761,871,871 bytes/s is more than one 10 GbE NIC sends.
- M19, the graph's seconds: the demo's VM and networks are not reported; its gains are cases.
- M26, the 750 MB/s SMB limit: an outcome of stress tests (failures counted), not a time or a rate.
- M29, 2008 R2 at 70 % of 10 GbE: no testbed at all, and hvnet has no Windows version.
- M30, 2008 R2's 1-1.5 s: what it covers is not stated; its 5 passes are a parameter.
- M31, the quick migration's 18 lost pings and the 133 ms reply: neither is modelled.
- M32, no ping lost of 1174: the pings ran inside the VM, which the blackout pauses with them.
"""

from __future__ import annotations

__all__ = ["FIGURES", "NOT_CASES"]

#: Measurement id -> the ids of the figures of `hvnet validate` that compare hvnet with it.
FIGURES: dict[str, tuple[str, ...]] = {
    "M01": ("C1/duration",),
    "M02": ("C2/faster", "C2/peak"),
    "M03": ("C3/duration", "C3/blackout"),
    "M04": ("C4/duration", "C4/jumbo-nic-carries-more"),
    "M05": ("C5/duration", "C5/busy-cores"),
    "M06": ("C6/per-vm", "C6/total", "C6/cores"),
    "M07": ("C7/rate", "C7/cpu"),
    "M08": ("C8/jumbo-gain",),
    "M09": (
        "C9/switch-independent",
        "C9/lacp",
        "C9/set",
        "C9/per-thread",
        "C9/per-thread-max",
        "C9/cycles-per-byte",
        "C9/cpu",
    ),
    "M10": ("C10/evenness",),
    "M11": ("V2/rate", "V2/cpu-default"),
    "M12": ("V2/cpu-tuned", "V2/tuning-cuts-cpu"),
    "M13": ("F1/1gbe-one", "F1/1gbe-ten", "F1/1gbe-twenty", "F1/1gbe-peak"),
    "M14": ("F1/10gbe-one", "F1/10gbe-ten", "F1/10gbe-twenty", "F1/10gbe-one-peak"),
    "M15": ("F2/tcp-ip", "M15/utilisation"),
    "M16": ("M16/peak-utilisation", "M16/cpu"),
    "M17": ("M17/rate",),
    "M18": ("M18/rate",),
    "M19": ("F2/teched-gain", "M19/smb-direct-gain"),
    "M20": ("M20/1gbe-drain", "M20/link"),
    "M21": ("M21/10gbe-drain",),
    "M22": ("M22/speed-up",),
    "M23": ("M23/one", "M23/four"),
    "M24": ("M24/host-vnic",),
    "M25": ("F2/compression-gain",),
    "M27": ("M27/jumbo-gain",),
    "M28": ("M28/dynamic-memory",),
    "M31": ("M31/blackout",),
}

#: (measurement id, its figure, why it is not a case).
NOT_CASES: tuple[tuple[str, str, str], ...] = (
    (
        "M14",
        "10 VMs' maximum transfer on 10 GbE, 1,761,871,871 bytes/s",
        "more than one 10 GbE NIC can send (1.25e9 bytes/s of line time): the counter Finn read cannot be one "
        "NIC's sends (sends and receives together, say), so there is nothing of hvnet's to set beside it",
    ),
    (
        "M19",
        "the graph's seconds: TCP/IP over 60 s, Compression about 15 s, SMB Direct under 10 s",
        "the demo's VM and networks are not reported, so its seconds would only test an assumed VM's size; "
        "its gains over TCP/IP, which hold for any VM on a link that binds, are cases (F2/teched-gain, "
        "M19/smb-direct-gain)",
    ),
    (
        "M26",
        "SMB live migration limited to 750 MB/s on dual 10 Gbps RDMA, 'the highest level of availability'",
        "the figure is the limit Microsoft's stress tests found best by counting failures under stress, not a "
        "time or a rate: hvnet can set it (live_migration.smb_bandwidth_limit) but does not model the failures "
        "of the storage traffic the limit protects, and a check that a limited migration moves at 750 MB/s "
        "would test the input, not a measurement",
    ),
    (
        "M29",
        "Windows Server 2008 R2 used not much more than 70 % of 10 GbE",
        "a practitioner's summary with no testbed (processors, MTU, VMs, migrations at once); hvnet has no "
        "Windows version, only the 2008 R2 settings it can state (no RSC, one migration at a time), and what "
        "held 2008 R2 near 70 % 'with all the possible tuning' is not named: one stream fills 10 GbE with "
        "jumbo frames on a fast core in hvnet and about half of it at MTU 1500, so an assumed testbed would "
        "set the answer",
    ),
    (
        "M30",
        "2008 R2 live migration in 1-1.5 s, up to 5 passes",
        "second-hand notes of a talk: what the 1-1.5 s covers (a demo VM's whole migration, or its "
        "switch-over) and the VM and network are not stated; the 5 passes are a parameter "
        "(migration.max_passes), not a figure to predict",
    ),
    (
        "M31",
        "quick migration: 18 pings lost; the first reply after the lost ones in 133 ms",
        "hvnet models live migration only, not a quick migration's save to storage and restore; and the "
        "133 ms first reply is the network finding the VM on its new host (ARP, the switches' MAC tables), "
        "which hvnet does not model (the blackout's bound from the one lost ping is M31/blackout)",
    ),
    (
        "M32",
        "no ping lost of 1174 (0 to 4 ms) over many live migrations",
        "the pings ran inside the migrated VM (from an RDP session to the gateway), and the blackout pauses "
        "the pinger with the VM, so no ping lost says nothing of the blackout's length; how many migrations "
        "the 1174 pings spanned is not stated either",
    ),
)
