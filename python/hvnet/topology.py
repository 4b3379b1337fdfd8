"""Scenario generators for common fabrics: a star and a leaf-spine.

They return plain YAML text that `load_scenario` accepts, so a user can
save, read and edit what was generated. A `Design` says what every host has
beyond one NIC (more NICs, a team, a virtual switch, VMs, a live-migration
option) and what happens (a sample drain, a sample transfer), so that what is
printed has something to simulate:

    star(4, "10Gbps", design=Design(nics=2, team=TeamKind.SET, vms=4, drain="hv1"))

A choice that hvnet would refuse in the file (a SET team in LACP mode, SMB
Direct over an LBFO team) is refused here, against the option that asked for
it (`OptionError`), never at a line of a file the user did not write.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from ruamel.yaml import YAML

from hvnet.errors import HvnetError, UnitError
from hvnet.model import LoadBalancing, MigrationOption, TeamingMode, TeamKind
from hvnet.model.scenario import LARGEST_BYTES
from hvnet.units import format_bytes, parse_bytes
from hvnet.words import counted

__all__ = ["VSWITCH", "Design", "OptionError", "choice", "leaf_spine", "star"]

E = TypeVar("E", bound=Enum)
T = TypeVar("T")

#: The name of the generated virtual switch, and of the team under it.
VSWITCH = "vSwitch"
TEAM = "team1"

#: At most this many NICs in a team of each kind (Windows' limits; the model's checks say the same).
_MOST_MEMBERS = {TeamKind.LBFO: 32, TeamKind.SET: 8}


class OptionError(HvnetError):
    """A command-line option's value, or a combination of options, that hvnet refuses; the message
    names the option: ``--team-mode: lacp needs --team lbfo; a SET team is always switch_independent``."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(f"{option}: {message}")


def choice(option: str, value: str, kind: type[E]) -> E:
    """`value` as one of the model's choices (`TeamKind`, ...); OptionError naming the option and
    listing the choices otherwise."""
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(str(member.value) for member in kind)
        raise OptionError(option, f"{value!r} is not one of {allowed}") from None


def _quantity(option: str, value: str, parse: Callable[[str], T]) -> T:
    try:
        return parse(value)
    except UnitError as error:
        raise OptionError(option, str(error)) from None


@dataclass(frozen=True)
class Design:
    """What every generated host has and runs, and what happens to the cluster. The defaults are
    one NIC, no team, no virtual switch, no VMs, the model's live-migration option, nothing happening."""

    nics: int = 1
    """NICs per host: nic1..nicN, all at the fabric's NIC speed, all cabled to the host's switch."""
    team: TeamKind | None = None
    """A team of all the host's NICs (team1), or none."""
    team_mode: TeamingMode | None = None
    """The team's mode; None: the model's (switch_independent)."""
    load_balancing: LoadBalancing | None = None
    """The team's load-balancing algorithm; None: the model's (dynamic)."""
    vswitch: bool | None = None
    """A virtual switch (vSwitch) on the team, or on nic1; None: one wherever there are VMs or a team."""
    live_migration: MigrationOption | None = None
    """Every host's live-migration option; None: the model's (compression). smb_direct turns RDMA on."""
    vms: int = 0
    """VMs per host: vm1, vm2, ... numbered across the cluster, hv1's first."""
    vm_memory: str = "8GiB"
    vm_vcpus: int = 2
    drain: str | None = None
    """A host drained at 0 s: its VMs live-migrate to the others."""
    traffic: str | None = None
    """A transfer of this size from the first host to the last, from 0 s."""

    @property
    def has_vswitch(self) -> bool:
        return self.vswitch if self.vswitch is not None else bool(self.vms or self.team)

    def check(self, hosts: int) -> None:
        """OptionError for the first option hvnet would refuse with `hosts` hosts, named by its option."""
        self._check_team()
        if self.live_migration is MigrationOption.SMB_DIRECT and self.team is TeamKind.LBFO:
            message = "smb_direct needs RDMA, which an LBFO team does not give; use --team set, no team, or smb"
            raise OptionError("--live-migration", message)
        if not 0 < _quantity("--vm-memory", self.vm_memory, parse_bytes) <= LARGEST_BYTES:
            raise OptionError("--vm-memory", f"{self.vm_memory!r}: a VM has more than 0 B of memory, at most 1 PiB")
        if self.drain is not None:
            self._check_drain(hosts)
        if self.traffic is not None:
            if not 0 < _quantity("--traffic", self.traffic, parse_bytes) <= LARGEST_BYTES:
                raise OptionError("--traffic", f"{self.traffic!r}: a transfer is more than 0 B, at most 1 PiB")
            if hosts < 2:
                raise OptionError("--traffic", "a transfer goes from one host to another; give --hosts 2 or more")

    def _check_team(self) -> None:
        for option, value in (("--team-mode", self.team_mode), ("--load-balancing", self.load_balancing)):
            if value is not None and self.team is None:
                raise OptionError(
                    option, f"{value.value} is a team's setting, and there is no team; add --team lbfo or set"
                )
        if self.team is TeamKind.SET and self.team_mode in (TeamingMode.STATIC, TeamingMode.LACP):
            message = f"{self.team_mode.value} needs --team lbfo; a SET team is always switch_independent"
            raise OptionError("--team-mode", message)
        if self.team is TeamKind.SET and self.load_balancing is LoadBalancing.ADDRESS_HASH:
            message = "address_hash needs --team lbfo; a SET team balances by hyperv_port or dynamic"
            raise OptionError("--load-balancing", message)
        if self.team is not None and self.nics > _MOST_MEMBERS[self.team]:
            most = _MOST_MEMBERS[self.team]
            raise OptionError(
                "--nics", f"a {self.team.value.upper()} team has at most {most} members; give {most} or fewer"
            )

    def _check_drain(self, hosts: int) -> None:
        names = [f"hv{i}" for i in range(1, hosts + 1)]
        if self.drain not in names:
            shown = ", ".join(names) if hosts <= 4 else f"hv1 … hv{hosts}"
            raise OptionError("--drain", f"{self.drain!r} is not a host; the hosts are {shown}")
        if hosts < 2:
            raise OptionError("--drain", f"a drain moves {self.drain}'s VMs to another host; give --hosts 2 or more")
        if not self.vms:
            raise OptionError("--drain", f"{self.drain} runs no VMs to move; add --vms N (VMs per host)")

    def host(self, name: str, nic_speed: str) -> dict[str, object]:
        """One host as the file writes it."""
        rdma = self.live_migration is MigrationOption.SMB_DIRECT
        nics: list[dict[str, object]] = [
            {"name": f"nic{k}", "speed": nic_speed, **({"rdma": True} if rdma else {})} for k in range(1, self.nics + 1)
        ]
        host: dict[str, object] = {"name": name, "nics": nics}
        if self.team is not None:
            team: dict[str, object] = {"name": TEAM, "kind": self.team.value, "members": [n["name"] for n in nics]}
            if self.team_mode is not None:
                team["mode"] = self.team_mode.value
            if self.load_balancing is not None:
                team["load_balancing"] = self.load_balancing.value
            host["teams"] = [team]
        if self.has_vswitch:
            host["vswitches"] = [{"name": VSWITCH, "uplink": TEAM if self.team is not None else "nic1"}]
        if self.live_migration is not None:
            host["live_migration"] = {"option": self.live_migration.value}
        return host

    def workload(self, hosts: int) -> dict[str, object]:
        """The VMs, traffic and events of the file (only those there are)."""
        part: dict[str, object] = {}
        if self.vms:
            vm: dict[str, object] = {"vcpus": self.vm_vcpus, "memory": self.vm_memory}
            if self.has_vswitch:
                vm["vswitch"] = VSWITCH
            part["vms"] = [
                {"name": f"vm{(i - 1) * self.vms + k}", "host": f"hv{i}", **vm}
                for i in range(1, hosts + 1)
                for k in range(1, self.vms + 1)
            ]
        if self.traffic is not None:
            part["traffic"] = [{"name": "sample", "from": "hv1", "to": f"hv{hosts}", "size": self.traffic}]
        if self.drain is not None:
            part["events"] = [{"at": "0s", "action": "drain", "target": self.drain}]
        return part

    def describe(self, hosts: int) -> str:
        """What the design adds, in words, for the file's description ("" when it adds nothing)."""
        parts: list[str] = []
        if self.nics > 1 or self.team is not None:
            team = f" in an {self.team.value.upper()} team" if self.team is TeamKind.LBFO else ""
            team = " in a SET team" if self.team is TeamKind.SET else team
            settings = [s.value for s in (self.team_mode, self.load_balancing) if s is not None]
            parts.append(f"{counted(self.nics, 'NIC')} each{team}" + (f" ({', '.join(settings)})" if settings else ""))
        if self.has_vswitch:
            parts.append("a virtual switch")
        if self.vms:
            memory = format_bytes(parse_bytes(self.vm_memory))
            parts.append(f"{counted(self.vms, 'VM')} each ({memory}, {counted(self.vm_vcpus, 'vCPU')})")
        if self.live_migration is not None:
            parts.append(f"live migration by {self.live_migration.value}")
        if self.drain is not None:
            parts.append(f"{self.drain} drained at 0 s")
        if self.traffic is not None:
            parts.append(f"{format_bytes(parse_bytes(self.traffic))} from hv1 to hv{hosts}")
        return "; ".join(parts)


def _dump(document: dict[str, object]) -> str:
    yaml = YAML()
    yaml.default_flow_style = None
    yaml.width = 120  # a description stays on one line, as a person would write it
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()


def _document(title: str, hosts: int, nic: str, design: Design, fabric: dict[str, object]) -> str:
    design.check(hosts)
    description = design.describe(hosts)
    document: dict[str, object] = {"name": title, **({"description": description} if description else {})}
    document["hosts"] = [design.host(f"hv{i}", nic) for i in range(1, hosts + 1)]
    return _dump({**document, **fabric, **design.workload(hosts)})


def star(hosts: int, nic: str, switch_ports: int | None = None, design: Design | None = None) -> str:
    """`hosts` hosts, each with `design.nics` NICs (one by default), all cabled to one non-blocking switch."""
    if hosts < 1:
        raise ValueError("a star needs at least one host")
    design = design or Design()
    ports = max(switch_ports or 0, hosts * design.nics)
    cables = [
        {"a": f"hv{i}/nic{k}", "b": f"switch/{(i - 1) * design.nics + k}"}
        for i in range(1, hosts + 1)
        for k in range(1, design.nics + 1)
    ]
    fabric = {"switches": [{"name": "switch", "ports": ports}], "cables": cables}
    return _document(f"Star of {hosts} hosts at {nic}", hosts, nic, design, fabric)


def leaf_spine(hosts: int, nic: str, leaves: int, spines: int, uplink: str, design: Design | None = None) -> str:
    """Hosts spread evenly over `leaves` leaf switches (all of a host's NICs on its leaf), each leaf
    cabled to every spine."""
    if hosts < 1 or leaves < 1 or spines < 1:
        raise ValueError("a leaf-spine needs at least one host, one leaf and one spine")
    design = design or Design()
    per_leaf = -(-hosts // leaves)
    host_ports = per_leaf * design.nics
    cables: list[dict[str, str]] = []
    for i in range(1, hosts + 1):
        leaf, slot = divmod(i - 1, per_leaf)
        for k in range(1, design.nics + 1):
            cables.append({"a": f"hv{i}/nic{k}", "b": f"leaf{leaf + 1}/{slot * design.nics + k}"})
    for leaf in range(1, leaves + 1):
        for spine in range(1, spines + 1):
            cables.append({"a": f"leaf{leaf}/{host_ports + spine}", "b": f"spine{spine}/{leaf}", "speed": uplink})
    switches = [{"name": f"leaf{i}", "ports": host_ports + spines} for i in range(1, leaves + 1)]
    switches += [{"name": f"spine{i}", "ports": leaves} for i in range(1, spines + 1)]
    title = f"Leaf-spine: {hosts} hosts at {nic}, {leaves} leaves, {spines} spines at {uplink}"
    return _document(title, hosts, nic, design, {"switches": switches, "cables": cables})
