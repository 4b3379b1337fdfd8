"""A host's processors: sockets, cores and clock (Win32_Processor), and where each processor group starts.

Windows numbers logical processors within *processor groups* of at most 64 (Microsoft Learn, "Processor
Groups"), and Get-NetAdapterRss says where a NIC's RSS starts as a group and a number in it
(``BaseProcessorGroup`` 1, ``BaseProcessorNumber`` 2: "1:2"). hvnet numbers a host's cores from 0 across
the host, so the logical processor is the group's first plus the number, and the core that logical
processor divided by the logical processors per core (a core's logical processors are in one group).

How large each group is comes from the dump where collect.ps1 recorded it (``ProcessorGroup``, kernel32's
GetActiveProcessorCount per group, from collect.ps1 1.1.0). Otherwise it is assumed as Windows forms the
groups, and said so: as few groups as it can, each socket's logical processors in one group where they
fit (a socket of more than 64 split into equal parts that fit), whole sockets packed into a group while
they fit. Two sockets of 40 are groups of 40 and 40 (group 1 starts at 40), not 64 and 16. A group past
those Windows would form means they were set otherwise (``bcdedit /set groupsize``): the host's logical
processors are then assumed split evenly into that many groups.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from hvnet.importers.config.dump import Node, section_error
from hvnet.importers.config.record import Assumptions, stated
from hvnet.model.scenario import Cpu
from hvnet.units import show_value

__all__ = ["GROUP_CAPACITY", "ProcessorGroups", "Processors", "import_cpu"]

#: The most logical processors a processor group holds.
GROUP_CAPACITY = 64


class ProcessorGroups(NamedTuple):
    """Where a host's processor groups start among its logical processors."""

    sizes: dict[int, int]
    """Each group's logical processors, by group number, as the dump states them; empty when it does not."""
    assumed_size: int
    """Without ``sizes``: the logical processors every group is assumed to hold."""
    assumption: str
    """Without ``sizes``: how ``assumed_size`` was reckoned (empty when the sizes are known)."""
    logical: int
    """The host's logical processors by Win32_Processor; 0 when unknown."""

    @property
    def single(self) -> bool:
        """The host has one group (so every BaseProcessorGroup is 0)."""
        return len(self.sizes) == 1 if self.sizes else 0 < self.logical <= self.assumed_size

    def start(self, group: int, where: Node) -> tuple[int, str]:
        """The host-wide number of group ``group``'s first logical processor, and how it was assumed ("" when the
        dump states the groups); ``where`` is the value that names the group (for the error when the dump lists
        no such group)."""
        if self.sizes:
            if group not in self.sizes:
                known = ", ".join(str(g) for g in sorted(self.sizes))
                raise where.error(f"{group} is not one of the host's processor groups ({known}, from ProcessorGroup)")
            return sum(size for g, size in self.sizes.items() if g < group), ""
        first = group * self.assumed_size
        if 0 < self.logical <= first:  # more groups than Windows would form: they were set otherwise (groupsize)
            size = math.ceil(self.logical / (group + 1))
            return group * size, (
                f"{self.assumption}, yet group {group} exists, so the groups were set otherwise: the "
                f"{self.logical} logical processors in {group + 1} groups of {size}"
            )
        return first, self.assumption


class Processors(NamedTuple):
    """What Win32_Processor (and ProcessorGroup) say of a host."""

    cpu: Cpu | None
    """None: no processor information (the model's default cpu)."""
    note: str
    threads_per_core: int
    """Logical processors per core (2 with Hyper-Threading), which RSS's processor numbers count."""
    groups: ProcessorGroups


def import_cpu(root: Node, host: str, assumptions: Assumptions) -> Processors:
    """Sockets, cores and clock from Win32_Processor (one object per socket); the processor groups."""
    processors = root.get("Processor").objects()
    if not processors:
        note = assumptions.add(
            host, f"no processor information ({section_error(root, 'Processor')}): hvnet's default cpu"
        )
        return Processors(None, note, 2, _groups(root, []))
    cores = [p.get("NumberOfCores").integer() for p in processors]
    logical = [p.get("NumberOfLogicalProcessors").integer() for p in processors]
    clocks = [p.get("MaxClockSpeed").number() for p in processors]
    known_cores = [c for c in cores if c]
    known_clocks = [c for c in clocks if c]
    threads = 1
    smt: bool | None = None
    if known_cores and all(logical):
        threads = max(1, sum(n for n in logical if n) // sum(known_cores))
        smt = threads > 1
    cpu = stated(
        Cpu,
        sockets=min(len(processors), 16),
        cores_per_socket=min(max(known_cores), 512) if known_cores else None,
        ghz=round(min(max(known_clocks) / 1000, 10.0), 3) if known_clocks else None,
        smt=smt,
    )
    name = processors[0].get("Name").text()
    model = " ".join(name.split()) if name else "processor"
    groups = _groups(root, [n for n in logical if n])
    return Processors(cpu, f"Win32_Processor: {len(processors)} x {model}", threads, groups)


def _groups(root: Node, logical_per_socket: list[int]) -> ProcessorGroups:
    """The processor groups the dump states (ProcessorGroup), else as Windows forms them from the sockets."""
    sizes: dict[int, int] = {}
    for row in root.get("ProcessorGroup").objects():
        group, logical = row.get("Group"), row.get("LogicalProcessors")
        number, count = group.integer(), logical.integer()
        if number is None or number < 0 or number in sizes:
            raise group.error(f"{show_value(group.value)} is not a processor group number (0, 1, ... once each)")
        if count is None or not 0 < count <= GROUP_CAPACITY:
            raise logical.error(
                f"{show_value(logical.value)} is not a group's logical processors (1 to {GROUP_CAPACITY})"
            )
        sizes[number] = count
    if sizes:
        return ProcessorGroups(sizes, 0, "", sum(sizes.values()))
    why = section_error(root, "ProcessorGroup")
    if not logical_per_socket:
        return ProcessorGroups({}, GROUP_CAPACITY, f"groups of {GROUP_CAPACITY}, the most a group holds ({why})", 0)
    sockets, per_socket = len(logical_per_socket), max(logical_per_socket)
    total = sum(logical_per_socket)
    if total <= GROUP_CAPACITY:
        return ProcessorGroups({}, total, f"one group of all {total} logical processors ({why})", total)
    parts = math.ceil(per_socket / GROUP_CAPACITY)  # a socket of more than 64 is split into equal parts
    part = math.ceil(per_socket / parts)
    size = part * (GROUP_CAPACITY // part)  # as many whole parts (sockets) as fit in a group
    return ProcessorGroups(
        {},
        size,
        f"groups of {size} logical processors ({why}): {sockets} sockets of {per_socket}, each socket in one group "
        "where it fits, as Windows forms them",
        total,
    )
