"""A host's VMs: the running ones (Get-VM), each on the imported virtual switch of its first network
adapter (Get-VMNetworkAdapter).

A VM that is not running is left out: a live migration moves running VMs. What hvnet cannot state of
a VM (vRSS off, no VMQ queue) is said as an assumption; its MTU, set inside the guest, is assumed 1500.
"""

from __future__ import annotations

from hvnet.importers.config.dump import Node
from hvnet.importers.config.names import clean_name, natural
from hvnet.importers.config.record import Assumptions, Noted
from hvnet.model.scenario import LARGEST_BYTES, VM, VirtualSwitch

__all__ = ["import_vms"]

#: The states of a VM that runs (Get-VM State): those a live migration can move.
_RUNNING = {
    "Running",
    "Paused",
    "Starting",
    "Reset",
    "Pausing",
    "Resuming",
    "Stopping",
    "Saving",
    "FastSaving",
    "RunningCritical",
    "PausedCritical",
    "StartingCritical",
    "ResetCritical",
    "PausingCritical",
    "ResumingCritical",
    "StoppingCritical",
    "SavingCritical",
    "FastSavingCritical",
    "Other",
}


def import_vms(
    root: Node, host: str, vswitches: list[Noted[VirtualSwitch]], assumptions: Assumptions
) -> list[Noted[VM]]:
    """The host's running VMs, in Get-VM's order."""
    adapters = root.get("VMNetworkAdapter").objects()
    switch_names = {v.item.name.casefold(): v.item.name for v in vswitches}
    stopped: list[str] = []
    vms: list[Noted[VM]] = []
    for row in root.get("VM").objects():
        name = row.get("Name").text()
        if name is None:
            raise row.get("Name").error("missing; every VM has a name")
        state = row.get("State").enum("VMState")
        if state is not None and state not in _RUNNING:
            stopped.append(f"{name} ({state})")
            continue
        vms.append(_vm(row, name, host, adapters, switch_names, assumptions))
    if stopped:
        assumptions.add(
            host, f"VMs not running are left out (a live migration moves running VMs): {', '.join(stopped)}"
        )
    if any(vm.item.vswitch is not None for vm in vms):
        assumptions.add(
            host,
            "a VM's MTU is set inside its guest and is not in the host's dump: each VM has mtu 1500 (Windows' "
            "default Jumbo Packet 1514); set vms[].mtu for guests with jumbo frames",
        )
    return vms


def _vm(
    row: Node, name: str, host: str, adapters: list[Node], switch_names: dict[str, str], assumptions: Assumptions
) -> Noted[VM]:
    """One running VM: vCPUs, memory (MemoryAssigned, else MemoryStartup) and virtual switch."""
    memory = next(
        (m for key in ("MemoryAssigned", "MemoryStartup") if (m := row.get(key).integer()) is not None and m > 0),
        None,
    )
    if memory is None:
        raise row.get("MemoryStartup").error(
            "missing; a VM's memory (MemoryAssigned or MemoryStartup) is what a live migration copies"
        )
    count = row.get("ProcessorCount").integer()
    vcpus = max(1, min(count or 1, 240))
    notes: list[str] = []
    if count is None:
        notes.append(assumptions.add(host, f"VM {name}: no ProcessorCount; 1 vCPU"))
    own = sorted(
        (a for a in adapters if (a.get("VMName").text() or "").casefold() == name.casefold()),
        key=lambda a: natural(a.get("Name").text() or ""),
    )
    attached = [a for a in own if (a.get("SwitchName").text() or "").casefold() in switch_names]
    vswitch: str | None = None
    if attached:
        vswitch = switch_names[(attached[0].get("SwitchName").text() or "").casefold()]
        notes += _network_notes(attached, name, vcpus, host, assumptions)
    elif own:
        notes.append("no network adapter on an imported (external) virtual switch")
    vm = VM.model_construct(
        name=clean_name(name), host=host, vcpus=vcpus, memory=min(memory, LARGEST_BYTES), vswitch=vswitch
    )
    return Noted(vm, notes)


def _network_notes(attached: list[Node], name: str, vcpus: int, host: str, assumptions: Assumptions) -> list[str]:
    """What the VM's first network adapter on an imported switch has that hvnet models, or cannot state."""
    first = attached[0]
    notes: list[str] = []
    if len(attached) > 1:
        notes.append(f"{len(attached)} network adapters on imported switches; hvnet models the first")
    vrss = first.get("VrssEnabled").flag()
    if vrss is True:
        notes.append("vRSS on")
    elif vrss is False and vcpus >= 2:
        notes.append(
            assumptions.add(
                host,
                f"VM {name} has vRSS off, which hvnet cannot state: it spreads a 2+ vCPU VM's traffic on a 10 "
                "Gbps VMQ NIC",
            )
        )
    if first.get("VmqWeight").integer() == 0:
        notes.append(
            assumptions.add(
                host,
                f"VM {name} has VmqWeight 0 (no VMQ queue), which hvnet cannot state: it gives the VM a queue on VMQ "
                "NICs",
            )
        )
    return notes
