"""What the checks share: the findings so far, what the scenario names, and helpers that read raw data.

The checks read plain dicts and lists; the helpers here skip anything of the
wrong type (pydantic reports it) and word lists of names the same way in
every message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from hvnet.errors import UnitError
from hvnet.units import parse_bytes, parse_duration

__all__ = [
    "Context",
    "End",
    "Finding",
    "KnownHost",
    "KnownSwitch",
    "Loc",
    "SwitchDependentTeam",
    "and_list",
    "entries",
    "event_time",
    "listing",
    "size",
    "text_field",
]

Loc = tuple[str | int, ...]
"""Where a value is, as pydantic says it: ("hosts", 0, "nics", 1, "speed")."""


@dataclass(frozen=True)
class Finding:
    """One cross-reference mistake: where it is and what is wrong."""

    loc: Loc
    message: str


@dataclass
class KnownHost:
    """The names inside one host, as its checks find them."""

    nics: dict[str, Loc] = field(default_factory=dict)
    nic_entries: dict[str, Mapping[str, object]] = field(default_factory=dict)  # NIC name -> its fields
    teams: dict[str, Loc] = field(default_factory=dict)
    team_of: dict[str, str] = field(default_factory=dict)  # member NIC -> team
    vswitches: dict[str, Loc] = field(default_factory=dict)
    vswitch_uplink: dict[str, str] = field(default_factory=dict)  # virtual switch -> its NIC or team


@dataclass
class KnownSwitch:
    """What the checks need of a physical switch."""

    ports: int | None  # None: the port count itself is invalid (pydantic says so)
    port_speed_given: bool
    stack: str | None  # switches sharing a stack name act as one (stack, MLAG, VLT, vPC)


@dataclass(frozen=True)
class SwitchDependentTeam:
    """A static or LACP team, kept until the cables say where its members go."""

    at: Loc
    host: str
    mode: str
    members: list[str]


@dataclass(frozen=True)
class End:
    """One resolved end of a cable: a host NIC or a switch port."""

    device: str
    port: str | int  # NIC name, or switch port number
    on_switch: bool

    def __str__(self) -> str:
        return f"{self.device}/{self.port}"


class Context:
    """The raw data, the findings in the order they are made, and the names found so far."""

    def __init__(self, data: Mapping[str, object], line_of: Callable[[Loc], int | None]) -> None:
        self.data = data
        self.line_of = line_of
        self.findings: list[Finding] = []
        self.hosts: dict[str, KnownHost] = {}
        self.switches: dict[str, KnownSwitch] = {}
        self.vms: dict[str, None] = {}  # a dict keeps the file's order in messages
        self.cabled: dict[tuple[str, str | int], Loc] = {}
        self.peers: dict[tuple[str, str | int], End] = {}  # a cabled end -> the other end
        self.switch_dependent: list[SwitchDependentTeam] = []

    def report(self, loc: Loc, message: str) -> None:
        self.findings.append(Finding(loc, message))

    def where(self, loc: Loc) -> str:
        """``"at line 28"``, or the field path when the line is unknown."""
        line = self.line_of(loc)
        if line is not None:
            return f"at line {line}"
        return "at " + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in loc).lstrip(".")


def entries(data: Mapping[str, object], key: str) -> Iterator[tuple[int, Mapping[str, object]]]:
    """The entries of a list field that are mappings, with their index."""
    values = data.get(key)
    if isinstance(values, list):
        for index, entry in enumerate(values):
            if type(entry) is dict or isinstance(entry, Mapping):  # (a dict, nearly always: known at once)
                yield index, entry


def text_field(entry: Mapping[str, object], key: str) -> str | None:
    """A field's value if it is text; None if absent or of another type."""
    value = entry.get(key)
    return value if isinstance(value, str) else None


def listing(names: Iterable[str]) -> str:
    """``"hv1, hv2"``, shortened for long lists, or ``"none"``."""
    shown = list(names)
    if not shown:
        return "none"
    if len(shown) > 8:
        return f"{', '.join(shown[:8])}, ... ({len(shown)} in all)"
    return ", ".join(shown)


def and_list(names: list[str]) -> str:
    """``"tor1"``, ``"tor1 and tor2"``, ``"tor1, tor2 and tor3"``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def size(value: object) -> int | None:
    """A size in bytes; None if it is not a valid size (pydantic reports it)."""
    try:
        return parse_bytes(value) if isinstance(value, str) else None
    except UnitError:
        return None


def event_time(event: Mapping[str, object]) -> float | None:
    """An event's time in seconds; None if it is not a valid duration (pydantic reports it)."""
    at = event.get("at")
    try:
        return parse_duration(at) if isinstance(at, str) else None
    except UnitError:
        return None
