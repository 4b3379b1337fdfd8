"""Candidate designs: what each changes in the base scenario, the default list, and the file that overrides it.

A candidate file (``hvnet design --candidates FILE``, docs/advise.md#do-i-need-10-gbe)::

    candidates:
      - {nics: 2, speed: 1Gbps}                                  # team set, migration compression
      - {nics: 2, speed: 10Gbps, team: [lbfo, set], migration: [compression, smb]}
      - {name: RDMA pair, nics: 2, speed: 25Gbps, rdma: true, team: set, migration: smb_direct}

Each entry: ``nics`` (1 to 8, per host), ``speed`` (a link rate), ``rdma`` (default false),
``team`` (``lbfo`` or ``set``, default ``set``; a list tries each), ``migration`` (``tcp_ip``,
``compression``, ``smb``, ``smb_direct``, default ``compression``; a list tries each) and an
optional ``name`` (only for an entry that makes one candidate).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hvnet.errors import HvnetError, InputError, ScenarioError
from hvnet.model import MigrationOption, TeamKind, load_yaml
from hvnet.model.yamltree import key_line, start_line
from hvnet.units import parse_bitrate, show_value

__all__ = ["DEFAULT_CANDIDATES", "Candidate", "label", "load_candidates"]

MAX_NICS = 8
_FIELDS = ("name", "nics", "speed", "rdma", "team", "migration")
_MIGRATION_WORDS = {
    MigrationOption.TCP_IP: "TCP/IP",
    MigrationOption.COMPRESSION: "Compression",
    MigrationOption.SMB: "SMB",
    MigrationOption.SMB_DIRECT: "SMB Direct",
}


def _speed_text(bps: float) -> str:
    """`1 GbE`, `10 GbE`, `2.5 GbE`, `100 MbE`."""
    if bps >= 1e9:
        return f"{bps / 1e9:g} GbE"
    return f"{bps / 1e6:g} MbE"


def label(nics: int, speed_bps: float, rdma: bool, team: TeamKind, migration: MigrationOption) -> str:
    """`2 × 10 GbE SET, SMB`; `2 × 25 GbE RDMA SET, SMB Direct`."""
    hardware = f"{nics} × {_speed_text(speed_bps)}{' RDMA' if rdma else ''}"
    return f"{hardware} {team.value.upper()}, {_MIGRATION_WORDS[migration]}"


@dataclass(frozen=True)
class Candidate:
    """One design to try: every host gets `nics` NICs of `speed` in one team of `team` kind,
    and live-migrates with `migration`."""

    name: str
    nics: int
    speed_bps: float
    rdma: bool
    team: TeamKind
    migration: MigrationOption

    @property
    def hardware(self) -> str:
        """`2 × 10 GbE` (`RDMA` when the NICs are): what the candidates of one bill share."""
        return f"{self.nics} × {_speed_text(self.speed_bps)}{' RDMA' if self.rdma else ''}"

    def skip_reason(self) -> str | None:
        """Why the candidate is not a design to try (SMB Direct without RDMA or with LBFO); None: try it."""
        if self.migration is not MigrationOption.SMB_DIRECT:
            return None
        if not self.rdma:
            return "SMB Direct needs RDMA NICs; these are not (rdma: false)"
        if self.team is not TeamKind.SET:
            return "SMB Direct needs SET: an LBFO team does not pass RDMA to the host"
        return None

    def document(self) -> dict[str, object]:
        return {
            "name": self.name,
            "nics": self.nics,
            "speed_bps": self.speed_bps,
            "rdma": self.rdma,
            "team": self.team.value,
            "migration": self.migration.value,
        }


def _expand(
    nics: int, speed: float, rdma: bool, teams: list[TeamKind], migrations: list[MigrationOption], name: str | None
) -> list[Candidate]:
    return [
        Candidate(name or label(nics, speed, rdma, team, migration), nics, speed, rdma, team, migration)
        for team in teams
        for migration in migrations
    ]


_TEAMS = [TeamKind.LBFO, TeamKind.SET]
_MIGRATIONS = [MigrationOption.TCP_IP, MigrationOption.COMPRESSION, MigrationOption.SMB, MigrationOption.SMB_DIRECT]

#: The issue's list: 2 × 1 GbE, 4 × 1 GbE, 2 × 10 GbE, 2 × 25 GbE (RDMA-capable), each with an
#: LBFO and a SET team, each with every live-migration option: 32 candidates, the SMB Direct
#: ones without RDMA or with LBFO skipped (7), so 25 are simulated.
DEFAULT_CANDIDATES: tuple[Candidate, ...] = tuple(
    c
    for nics, speed, rdma in ((2, 1e9, False), (4, 1e9, False), (2, 10e9, False), (2, 25e9, True))
    for c in _expand(nics, speed, rdma, _TEAMS, _MIGRATIONS, None)
)


def _choices(file: str, line: int | None, field: str, value: object, kinds: list[Any], default: Any) -> list[Any]:
    if value is None:
        return [default]
    values = list(value) if isinstance(value, list) else [value]
    words = ", ".join(k.value for k in kinds)
    if not values:
        raise InputError(file, line, field, f"an empty list; write one of {words}, or a list of them")
    found: list[Any] = []
    for v in values:
        match = next((k for k in kinds if isinstance(v, str) and v.strip().lower() == k.value), None)
        if match is None:
            raise InputError(file, line, field, f"{show_value(v)} is not one of {words}")
        if match not in found:
            found.append(match)
    return found


def _entry(file: str, index: int, node: object) -> list[Candidate]:
    field = f"candidates[{index}]"
    line = start_line(node)
    if not isinstance(node, Mapping):
        raise InputError(
            file, line, field, "expected a mapping such as {nics: 2, speed: 10Gbps, team: set, migration: smb}"
        )
    for key in node:
        if key not in _FIELDS:
            raise InputError(
                file, key_line(node, key), f"{field}.{key}", f"unknown field; the fields are {', '.join(_FIELDS)}"
            )
    for required in ("nics", "speed"):
        if required not in node:
            raise InputError(file, line, field, f"{required} is missing (e.g. {{nics: 2, speed: 10Gbps}})")
    nics = node["nics"]
    if isinstance(nics, bool) or not isinstance(nics, int) or not 1 <= nics <= MAX_NICS:
        raise InputError(
            file,
            key_line(node, "nics"),
            f"{field}.nics",
            f"{show_value(nics)}: expected a whole number of NICs per host, 1 to {MAX_NICS}",
        )
    speed_bps = _speed(file, field, node)
    rdma = node.get("rdma", False)
    if not isinstance(rdma, bool):
        raise InputError(file, key_line(node, "rdma"), f"{field}.rdma", f"{show_value(rdma)}: expected true or false")
    teams = _choices(file, key_line(node, "team"), f"{field}.team", node.get("team"), _TEAMS, TeamKind.SET)
    migrations = _choices(
        file,
        key_line(node, "migration"),
        f"{field}.migration",
        node.get("migration"),
        _MIGRATIONS,
        MigrationOption.COMPRESSION,
    )
    name = _name(file, field, node, several=len(teams) * len(migrations) > 1)
    return _expand(nics, speed_bps, rdma, teams, migrations, name)


def _speed(file: str, field: str, node: Mapping[str, Any]) -> float:
    """The entry's link rate in bit/s."""
    speed = node["speed"]
    try:
        if not isinstance(speed, str):
            raise ValueError("a link rate with its unit")
        speed_bps = parse_bitrate(speed)
    except (ValueError, HvnetError):
        raise InputError(
            file, key_line(node, "speed"), f"{field}.speed", f"{show_value(speed)}: expected a link rate such as 10Gbps"
        ) from None
    if speed_bps <= 0:
        raise InputError(
            file, key_line(node, "speed"), f"{field}.speed", f"{show_value(speed)}: a link rate is more than 0"
        )
    return speed_bps


def _name(file: str, field: str, node: Mapping[str, Any], *, several: bool) -> str | None:
    """The entry's own name, allowed when it makes one candidate."""
    name = node.get("name")
    if name is None:
        return None
    if not isinstance(name, str) or not name.strip():
        raise InputError(file, key_line(node, "name"), f"{field}.name", f"{show_value(name)}: expected text")
    if several:
        raise InputError(
            file,
            key_line(node, "name"),
            f"{field}.name",
            "a name needs one team and one migration (this entry makes several candidates, each named for itself)",
        )
    return name.strip()


def load_candidates(path: str | os.PathLike[str]) -> tuple[Candidate, ...]:
    """The candidates a file lists (module docstring); InputError, one line, for its first mistake."""
    file = os.fspath(path)
    try:
        tree = load_yaml(file)
    except ScenarioError as error:
        problem = error.problems[0]
        raise InputError(problem.file, problem.line, problem.field, problem.message) from None
    if not isinstance(tree, Mapping) or "candidates" not in tree:
        raise InputError(
            file,
            None,
            "",
            "expected a mapping with candidates: a list such as [{nics: 2, speed: 10Gbps}] (docs/advise.md)",
        )
    for key in tree:
        if key != "candidates":
            raise InputError(file, key_line(tree, key), str(key), "unknown field; the file holds candidates: only")
    entries = tree["candidates"]
    if not isinstance(entries, list) or not entries:
        raise InputError(file, key_line(tree, "candidates"), "candidates", "expected a list of at least one candidate")
    found: list[Candidate] = []
    names: set[str] = set()
    for index, node in enumerate(entries):
        for candidate in _entry(file, index, node):
            if candidate.name in names:
                raise InputError(file, start_line(node), f"candidates[{index}]", f"{candidate.name!r} is listed twice")
            names.add(candidate.name)
            found.append(candidate)
    return tuple(found)
