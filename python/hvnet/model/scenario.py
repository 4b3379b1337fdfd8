"""The scenario model: one cluster design and what happens to it.

A ``Scenario`` is what a scenario file says, validated and typed: hosts with
their NICs, teams and virtual switches; physical switches and the cables
between NICs and switch ports; VMs; traffic flows; and timed events (a NIC
or a cable goes down, a VM live-migrates). docs/scenario.md describes every field.

Quantities are stored in hvnet's internal units (bytes, bits per second,
seconds) and written with units in files (see ``hvnet.units``). Models are
immutable. The model checks each field on its own; whether names refer to
things that exist is checked by ``hvnet.model.checks`` when a scenario is
loaded with ``hvnet.model.loader``.

This module holds the root, ``Scenario``, and the JSON Schema of a scenario
file, and names every model (its ``__all__``). The parts, by module:

- ``fields``: the field types (names, shares, percentages, whole numbers) and
  the bounds of quantities; the base of every model;
- ``enums``: the choices a file writes as a name (team modes, events...);
- ``hosts``: ``Host`` and its ``Cpu``, ``Nic``, ``Team``, ``VirtualSwitch``, ``LiveMigration``;
- ``fabric``: ``Switch``, ``Fabric`` (forwarding and failure detection), ``Cable``;
- ``workload``: ``VM`` (and its ``VmTeam``), ``Flow``, ``Event``;
- ``requirements``: ``Requirements`` and ``Utilisation``, for hvnet check.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from pydantic import Field, PrivateAttr

from hvnet.model.demand import Demand
from hvnet.model.enums import (
    AddressHash,
    CState,
    EventAction,
    FailureKind,
    Forwarding,
    LacpTimer,
    LoadBalancing,
    MigrationOption,
    Placement,
    PowerPlan,
    TeamingMode,
    TeamKind,
)
from hvnet.model.fabric import Cable, Fabric, Switch
from hvnet.model.fields import FASTEST_LINK_BPS as FASTEST_LINK_BPS  # noqa: PLC0414 (re-exported)
from hvnet.model.fields import HORIZON_S as HORIZON_S  # noqa: PLC0414 (re-exported)
from hvnet.model.fields import LARGEST_BYTES as LARGEST_BYTES  # noqa: PLC0414 (re-exported)
from hvnet.model.fields import SLOWEST_LINK_BPS as SLOWEST_LINK_BPS  # noqa: PLC0414 (re-exported)
from hvnet.model.fields import FrozenModel, Title
from hvnet.model.hosts import Cpu, Host, LiveMigration, Nic, Team, VirtualSwitch
from hvnet.model.refs import split_endpoint
from hvnet.model.requirements import Requirements, Utilisation
from hvnet.model.workload import VM, Event, Flow, VmTeam

__all__ = [
    "VM",
    "AddressHash",
    "CState",
    "Cable",
    "Cpu",
    "Demand",
    "Event",
    "EventAction",
    "Fabric",
    "FailureKind",
    "Flow",
    "Forwarding",
    "Host",
    "LacpTimer",
    "LiveMigration",
    "LoadBalancing",
    "MigrationOption",
    "Nic",
    "Placement",
    "PowerPlan",
    "Requirements",
    "Scenario",
    "Switch",
    "Team",
    "TeamKind",
    "TeamingMode",
    "Utilisation",
    "VirtualSwitch",
    "VmTeam",
    "scenario_json_schema",
    "split_endpoint",
]


class Scenario(FrozenModel):
    """A cluster design and what happens to it."""

    name: Title = Field(min_length=1)
    description: str = ""
    hosts: tuple[Host, ...] = Field(min_length=1)
    switches: tuple[Switch, ...] = ()
    fabric: Fabric = Fabric()
    """How the switches forward and route around failures (docs/model.md, "Routing around failures")."""
    cables: tuple[Cable, ...] = ()
    vms: tuple[VM, ...] = ()
    traffic: tuple[Flow, ...] = ()
    demand: tuple[Demand, ...] = ()
    """Load measured on host NICs, replayed on their links (docs/model.md, "Measured demand")."""
    events: tuple[Event, ...] = ()
    requirements: Requirements | None = None
    """What the design must achieve, for hvnet check; null: nothing to check."""
    #: The file it was read from, for messages about it ("<scenario>" when built in code).
    _source: str = PrivateAttr(default="<scenario>")
    #: Whether its file declared `variants:`, which a scenario (the base design) leaves out.
    _had_variants: bool = PrivateAttr(default=False)

    @property
    def source(self) -> str:
        """The file the scenario was read from, as its messages name it."""
        return self._source

    @property
    def had_variants(self) -> bool:
        """Whether its file declared `variants:` (hvnet compare and sweep run them; this is the base design)."""
        return self._had_variants

    def __eq__(self, other: object) -> bool:
        """Two scenarios are equal when they describe the same design, wherever they were read from."""
        fields = type(self).model_fields
        return isinstance(other, Scenario) and all(getattr(self, f) == getattr(other, f) for f in fields)

    __hash__ = FrozenModel.__hash__

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Scenario:
        """A copy (with `update` applied) that finds its own hosts, VMs and switches by name."""
        copy = super().model_copy(update=update, deep=deep)
        copy.__dict__.pop("by_name", None)
        copy.__dict__.pop("cabled", None)
        copy.__dict__.pop("vm_counts", None)
        return copy

    @functools.cached_property
    def by_name(self) -> dict[str, dict[str, Any]]:
        """Hosts, VMs and switches by name ("host", "VM", "switch"), the first of a name as a
        scan would find it; made on first use (a scenario never changes)."""
        return {
            "host": {host.name: host for host in reversed(self.hosts)},
            "VM": {vm.name: vm for vm in reversed(self.vms)},
            "switch": {switch.name: switch for switch in reversed(self.switches)},
        }

    @functools.cached_property
    def cabled(self) -> frozenset[str]:
        """Every cable end (`hv1/nic1`, `tor1/3`), as written; made on first use."""
        return frozenset(end for cable in self.cables for end in (cable.a, cable.b))

    @functools.cached_property
    def vm_counts(self) -> dict[str, int]:
        """How many VMs each host runs (by the file; hosts without VMs absent); made on first use."""
        counts: dict[str, int] = {}
        for vm in self.vms:
            counts[vm.host] = counts.get(vm.host, 0) + 1
        return counts

    def _lookup(self, kind: str, name: str) -> Any:
        """The item of `kind` called `name`, in constant time; KeyError if there is none."""
        try:
            return self.by_name[kind][name]
        except KeyError:
            raise KeyError(f"no {kind} named {name!r}") from None

    def host(self, name: str) -> Host:
        """The host called ``name``; KeyError if there is none."""
        host: Host = self._lookup("host", name)
        return host

    def vm(self, name: str) -> VM:
        """The VM called ``name``; KeyError if there is none."""
        vm: VM = self._lookup("VM", name)
        return vm

    def switch(self, name: str) -> Switch:
        """The switch called ``name``; KeyError if there is none."""
        switch: Switch = self._lookup("switch", name)
        return switch

    def endpoint_names(self, shown: int = 20) -> str:
        """The hosts and VMs a flow or test may name, for a message about a name that is
        none of them: "hosts: hv1, hv2; VMs: vm1, vm2" (sorted, at most `shown` of each)."""

        def listed(names: list[str]) -> str:
            more = f" and {len(names) - shown} more" if len(names) > shown else ""
            return (", ".join(names[:shown]) or "none") + more

        vms = sorted(vm.name for vm in self.vms)
        return f"hosts: {listed(sorted(h.name for h in self.hosts))}" + (f"; VMs: {listed(vms)}" if vms else "")

    def endpoint_host(self, name: str) -> Host:
        """The host a flow endpoint runs on: the host itself, or a VM's host."""
        try:
            return self.host(name)
        except KeyError:
            pass
        try:
            return self.host(self.vm(name).host)
        except KeyError:
            raise KeyError(f"no host or VM named {name!r}") from None

    def cable_speed(self, cable: Cable) -> float:
        """A cable's speed in bits/s: the lowest of its own speed, the NICs'
        speeds and the switches' port speeds, whichever are given."""
        speeds = [] if cable.speed is None else [cable.speed]
        for end in (cable.a, cable.b):
            device, port = split_endpoint(end)
            host = self.by_name["host"].get(device)
            if host is not None:
                speeds.append(host.nic(port).speed)
            elif (port_speed := self.switch(device).port_speed) is not None:
                speeds.append(port_speed)
        if not speeds:
            raise ValueError(f"cable {cable.a} - {cable.b} has no known speed")
        return min(speeds)


SCHEMA_ID = "urn:hvnet:scenario"

#: A file may declare variants of its design; ``hvnet.variants`` reads them, ``Scenario`` (one design) does not.
_VARIANTS_SCHEMA: dict[str, Any] = {
    "title": "Variants",
    "description": "Axes of design variants: hvnet compare and hvnet sweep run every combination (docs/sweeps.md).",
    "type": "object",
    "minProperties": 1,
    "additionalProperties": {
        "type": "object",
        "properties": {
            "set": {"type": "string", "description": "Where the values go.", "examples": ["hosts[*].nics[*].mtu"]},
            "values": {"type": "array", "minItems": 1, "description": "One variant per value."},
        },
        "required": ["set", "values"],
        "additionalProperties": False,
    },
}


def scenario_json_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (editors use it to complete and check YAML)."""
    schema = Scenario.model_json_schema(by_alias=True)
    schema["properties"]["variants"] = _VARIANTS_SCHEMA
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
        "title": "hvnet scenario",
    }
