"""What the import makes of a host: the model's own objects, each with the notes its YAML comment holds.

The converter builds ``Nic``, ``Team``, ``VirtualSwitch``, ``VM``... of ``hvnet.model`` with the values
a dump states. They are built unchecked (``model_construct``): an imported design may break one of
hvnet's rules and is written all the same, so that it can be fixed; ``import_config`` then checks the
whole scenario with the public loader, which names each problem by its line in the YAML.

What the model has no field for travels beside each object as notes, which the writer puts in comments:
where a value came from ("power plan Balanced (381b...)") and what was assumed ("ASSUMED: ...").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from hvnet.importers.config.names import natural
from hvnet.model.scenario import VM, Cpu, Host, LiveMigration, Nic, PowerPlan, Team, VirtualSwitch

__all__ = ["Assumptions", "ImportedHost", "Noted", "stated"]

ModelT = TypeVar("ModelT", bound=BaseModel)


def stated(model: type[ModelT], **values: Any) -> ModelT:
    """A ``model`` object of the values a dump states; a None is not stated: left to the model's default, and
    out of the YAML (which writes what the import set)."""
    known: dict[str, Any] = {key: value for key, value in values.items() if value is not None}
    return model.model_construct(**known)


@dataclass
class Noted(Generic[ModelT]):
    """A model object and the notes the YAML writes after it, on its line."""

    item: ModelT
    notes: list[str] = field(default_factory=list)


@dataclass
class ImportedHost:
    """One host as its dump describes it; its VMs, which the scenario lists apart, with it."""

    name: str
    file: str
    """The dump, as the user named it."""
    origin: str
    """Which dump, collected when, by which version of collect.ps1 (the comment above the host)."""
    cpu: Cpu | None
    """None: the dump has no processor information (the model's default cpu)."""
    cpu_note: str
    power_plan: PowerPlan
    power_note: str
    memory_note: str
    nics: list[Noted[Nic]]
    teams: list[Noted[Team]]
    vswitches: list[Noted[VirtualSwitch]]
    live_migration: Noted[LiveMigration]
    vms: list[Noted[VM]]

    def host(self) -> Host:
        """The model's host."""
        return stated(
            Host,
            name=self.name,
            cpu=self.cpu,
            power_plan=self.power_plan,
            nics=tuple(nic.item for nic in self.nics),
            teams=tuple(team.item for team in self.teams),
            vswitches=tuple(vswitch.item for vswitch in self.vswitches),
            live_migration=self.live_migration.item,
        )


class Assumptions:
    """What one import assumed, by host ("fabric" for the switches and cables), in the order it was assumed."""

    def __init__(self) -> None:
        self._items: list[tuple[str, str]] = []

    def add(self, host: str, text: str) -> str:
        """Record an assumption; returns it as the YAML marks it ("ASSUMED: ...")."""
        self._items.append((host, text))
        return f"ASSUMED: {text}"

    def sorted(self) -> list[str]:
        """By host (as hosts are sorted), the fabric's last; in the order made within each."""
        ordered = sorted(self._items, key=lambda item: (item[0] == "fabric", natural(item[0])))
        return [f"{host}: {text}" for host, text in ordered]
