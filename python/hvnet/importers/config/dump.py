"""Reading one host's configuration dump (the JSON document ``collect.ps1`` writes).

A dump is what PowerShell's ``ConvertTo-Json`` wrote, with its habits:

- a list of one object may come as the object itself (when a section was piped
  rather than wrapped), and an empty list as null;
- a list may come as ``{"value": [...], "Count": n}``: Windows PowerShell 5.1
  gives every array an extended ``Count`` (its types.ps1xml), and its
  ConvertTo-Json writes an array wrapped in a PSObject (as a calculated property
  of Select-Object returns it) as an object of the array and that member
  (PowerShell/PowerShell#3163, #3222; PowerShell 6 dropped the member, #3231).
  collect.ps1 1.0.0 wrote its lists so under 5.1; ``items`` reads them as lists;
- an enumeration is an integer in Windows PowerShell 5.1 and a name in
  PowerShell 7 (and in the script, which converts them): both are read, by the
  tables Microsoft documents (``ENUMS``);
- a property may be missing altogether (an older Windows, another collector).

Windows PowerShell 5.1's other habits need nothing here: it escapes ``'``, ``<``,
``>`` and ``&`` as JSON's unicode escapes and indents with runs of spaces (JSON
all the same); the script writes no date (5.1 writes one as ``/Date(ms)/``
between escaped slashes) and sets ``-Depth 6`` (5.1's default depth of 2 writes
deeper objects as text, "@{Name=...}", which ``objects`` names as such).

Every value is read through a ``Node``, which knows its file and its path
(``NetAdapter[2].LinkSpeed``), so that a value that cannot be read becomes one
``InputError`` line: ``hv1.json: NetAdapter[2].LinkSpeed: '10 Гбит/с' is not ...``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from hvnet.errors import InputError, decode_text
from hvnet.units import show_value

__all__ = ["DUMP_FORMAT", "ENUMS", "Enum", "Node", "by_name", "parse_link_speed", "read_dump", "section_error"]

#: The ``Header.Format`` of a dump ``collect.ps1`` writes.
DUMP_FORMAT = "hvnet-config-dump"

#: The largest dump read: a host's configuration is tens of kilobytes, a thousand VMs a megabyte.
MAX_DUMP_BYTES = 64 * 2**20


@dataclass(frozen=True)
class Enum:
    """A PowerShell enumeration: its values by integer and by name (names compared ignoring case)."""

    what: str
    values: tuple[tuple[int, str], ...]

    def read(self, node: Node) -> str | None:
        """The canonical name of ``node``'s value (an integer or a name), None if it is missing."""
        value = node.value
        if value is None:
            return None
        if isinstance(value, bool):
            raise node.error(f"{value!r} is not {self.what}; expected {self.choices()}")
        if isinstance(value, int):
            for number, name in self.values:
                if number == value:
                    return name
        elif isinstance(value, str):
            text = value.strip()
            if re.fullmatch(r"-?\d+", text):
                return self.read(Node(node.file, node.path, int(text)))
            key = text.replace(" ", "").lower()
            for _, name in self.values:
                if name.lower() == key:
                    return name
        raise node.error(
            f"{value!r} is not {self.what}; expected {self.choices()} "
            "(PowerShell writes these names in English whatever the language of Windows)"
        )

    def choices(self) -> str:
        return ", ".join(f"{name} ({number})" for number, name in self.values)


#: The enumerations a dump holds, with Microsoft's integer values (Microsoft.HyperV.PowerShell, the
#: MSFT_NetLbfoTeam / MSFT_NetLbfoTeamMember / MSFT_SmbBandwidthLimit classes).
ENUMS = {
    "TeamingMode": Enum("a NIC teaming mode", ((0, "Static"), (1, "SwitchIndependent"), (2, "Lacp"))),
    "LoadBalancingAlgorithm": Enum(
        "a team load balancing algorithm",
        ((0, "TransportPorts"), (2, "IPAddresses"), (3, "MacAddresses"), (4, "HyperVPort"), (5, "Dynamic")),
    ),
    "AdministrativeMode": Enum("a team member mode", ((0, "Active"), (1, "Standby"))),
    "SwitchType": Enum("a virtual switch type", ((0, "Private"), (1, "Internal"), (2, "External"))),
    "VMSwitchTeamingMode": Enum("a SET teaming mode", ((1, "SwitchIndependent"),)),
    "VMSwitchLoadBalancingAlgorithm": Enum("a SET load balancing algorithm", ((4, "HyperVPort"), (5, "Dynamic"))),
    "VMMigrationPerformance": Enum(
        "a live migration performance option", ((0, "TCPIP"), (1, "Compression"), (2, "SMB"))
    ),
    "BandwidthLimitCategory": Enum(
        "an SMB bandwidth limit category", ((0, "Default"), (1, "VirtualMachine"), (2, "LiveMigration"))
    ),
    "VMState": Enum(
        "a VM state",
        (
            (1, "Other"),
            (2, "Running"),
            (3, "Off"),
            (4, "Stopping"),
            (6, "Saved"),
            (9, "Paused"),
            (10, "Starting"),
            (11, "Reset"),
            (32773, "Saving"),
            (32776, "Pausing"),
            (32777, "Resuming"),
            (32779, "FastSaved"),
            (32780, "FastSaving"),
            (32781, "ForceShutdown"),
            (32782, "ForceReboot"),
            (32783, "Hibernated"),
            (32784, "ComponentServicing"),
            (32785, "RunningCritical"),
            (32786, "OffCritical"),
            (32787, "StoppingCritical"),
            (32788, "SavedCritical"),
            (32789, "PausedCritical"),
            (32790, "StartingCritical"),
            (32791, "ResetCritical"),
            (32792, "SavingCritical"),
            (32793, "PausingCritical"),
            (32794, "ResumingCritical"),
            (32795, "FastSavedCritical"),
            (32796, "FastSavingCritical"),
        ),
    ),
}


@dataclass(frozen=True)
class Node:
    """A value of a dump and where it is: the file (as the user named it) and the path in it."""

    file: str
    path: str
    value: object

    def error(self, message: str) -> InputError:
        """The one-line error about this value."""
        return InputError(self.file, None, self.path, message)

    def get(self, key: str) -> Node:
        """The property ``key`` of this object (a Node of None when it is missing)."""
        path = f"{self.path}.{key}" if self.path else key
        if isinstance(self.value, dict):
            return Node(self.file, path, self.value.get(key))
        return Node(self.file, path, None)

    @property
    def missing(self) -> bool:
        return self.value is None

    def items(self) -> list[Node]:
        """The entries of a list; one object stands for a list of one (ConvertTo-Json unrolls those), null for none,
        and Windows PowerShell 5.1's ``{"value": [...], "Count": n}`` for its list."""
        listed = self.listed()
        if listed.value is None:
            return []
        if isinstance(listed.value, list):
            return [Node(self.file, f"{listed.path}[{i}]", item) for i, item in enumerate(listed.value)]
        return [self]

    def listed(self) -> Node:
        """This value, or the list in Windows PowerShell 5.1's ``{"value": [...], "Count": n}`` (an array with the
        extended Count 5.1 gives every array, as its ConvertTo-Json writes one wrapped in a PSObject)."""
        value = self.value
        if not (isinstance(value, dict) and len(value) == 2 and "value" in value and "Count" in value):
            return self
        inner, count = self.get("value"), self.get("Count")
        if not isinstance(inner.value, list):
            raise inner.error(
                f"expected the list of Windows PowerShell 5.1's {{value, Count}} (an array), not {_kind(inner.value)}"
            )
        if count.integer() != len(inner.value):
            raise count.error(
                f"{show_value(count.value)} is not the number of entries in value ({len(inner.value)}); the dump was "
                "edited or damaged"
            )
        return inner

    def objects(self) -> list[Node]:
        """The entries of a list of objects (``items``); an entry that is not an object is an error."""
        found = self.items()
        for item in found:
            if not isinstance(item.value, dict):
                kind = f"{_kind(item.value)}{_as_text(item.value)}"
                raise item.error(f"expected an object (a PowerShell object's properties), not {kind}")
        return found

    def object(self) -> Node:
        """An object (None stays missing); a list of one object is taken as that object."""
        listed = self.listed()
        if isinstance(listed.value, list) and len(listed.value) == 1:
            return Node(self.file, f"{listed.path}[0]", listed.value[0])
        if listed.value is not None and not isinstance(listed.value, dict):
            raise self.error(f"expected an object, not {_kind(listed.value)}{_as_text(listed.value)}")
        return listed

    def text(self) -> str | None:
        """A text value (a number is written as text), None if missing or empty."""
        value = self.value
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.error(f"expected text, not {_kind(value)}")
        text = str(value).strip()
        return text or None

    def texts(self) -> list[str]:
        """A list of texts (one text stands for a list of one)."""
        return [text for item in self.items() if (text := item.text()) is not None]

    def number(self) -> float | None:
        """A number (also one written as text, "9014"), None if missing."""
        value = self.value
        if value is None:
            return None
        if isinstance(value, bool):
            raise self.error(f"expected a number, not {value!r}")
        if isinstance(value, (int, float, str)):
            try:
                number = float(value.strip() if isinstance(value, str) else value)
            except ValueError:
                pass
            except OverflowError:  # a whole number past any float
                raise self.error(f"{show_value(value)} is too large for a number") from None
            else:
                return number
        raise self.error(f"expected a number, not {_kind(value)} {value!r}")

    def integer(self) -> int | None:
        """A whole number, None if missing."""
        number = self.number()
        if number is None:
            return None
        if not math.isfinite(number) or number != int(number):
            raise self.error(f"expected a whole number, not {number:g}")
        return int(number)

    def flag(self) -> bool | None:
        """true or false (PowerShell writes booleans as JSON booleans; "True"/"False" are read too), None if missing."""
        value = self.value
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise self.error(f"expected true or false, not {_kind(value)} {value!r}")

    def enum(self, table: str) -> str | None:
        """The canonical name of an enumeration value (``ENUMS[table]``), None if missing."""
        return ENUMS[table].read(self)

    def __iter__(self) -> Iterator[Node]:
        return iter(self.items())


def section_error(root: Node, section: str) -> str:
    """Why a section is null, as collect.ps1 recorded it under ``Errors`` (its first line), or that it is absent."""
    message = root.get("Errors").get(section).value
    if isinstance(message, str) and message.strip():
        return f"{section} is null ({message.strip().splitlines()[0]})"
    return f"{section} is missing"


def by_name(nodes: Iterable[Node], key: str = "Name") -> dict[str, Node]:
    """Objects by their ``key`` property, ignoring case; the first of a name wins (Windows names ignore case)."""
    found: dict[str, Node] = {}
    for node in nodes:
        name = node.get(key).text()
        if name is not None:
            found.setdefault(name.casefold(), node)
    return found


def _as_text(value: object) -> str:
    """Why an object may have become text: ConvertTo-Json writes an object deeper than its -Depth (2 unless told)
    as PowerShell shows it, "@{Name=NIC1; ...}" or "System.Object[]"."""
    if isinstance(value, str) and (value.startswith("@{") or re.fullmatch(r"System\.[\w.]+(\[\])?", value)):
        return (
            f" ({show_value(value if len(value) <= 40 else value[:40] + '...')}: ConvertTo-Json wrote it as text, "
            "deeper than its -Depth; write the dump "
            "with collect.ps1, which sets -Depth 6)"
        )
    return ""


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "null"


_SPEED = re.compile(r"^\s*(\d+(?:[.,]\d+)?)\s*([KMGT]?)(?:bps|bit/s|b/s)\s*$", re.IGNORECASE)
_SPEED_FACTOR = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}


def parse_link_speed(node: Node) -> float | None:
    """A link speed as ``Get-NetAdapter`` prints it ("10 Gbps", "100 Mbps", "2.5 Gbps"; also
    "10 Gbit/s" and a decimal comma) or a number of bits per second, in bits per second; None if missing."""
    value = node.value
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        match = _SPEED.match(value)
        if match:
            return float(match.group(1).replace(",", ".")) * _SPEED_FACTOR[match.group(2).lower()]
    raise node.error(
        f"{value!r} is not a link speed hvnet can read; expected a number and bps, Kbps, Mbps, Gbps or Tbps "
        "as Get-NetAdapter prints it in English (e.g. '10 Gbps'): run collect.ps1, which also records the "
        "speed in bits per second (ReceiveLinkSpeed), or correct the value"
    )


def read_dump(path: Path) -> Node:
    """The dump in ``path`` as its root Node; InputError (one line) if it is not a readable hvnet dump."""
    file = str(path)
    try:
        with open(path, "rb") as stream:
            raw = stream.read(MAX_DUMP_BYTES + 1)
    except OSError as error:
        raise InputError(file, None, "", f"cannot read the file: {error.strerror or error}") from None
    if len(raw) > MAX_DUMP_BYTES:
        raise InputError(
            file, None, "", f"the file is larger than {MAX_DUMP_BYTES // 2**20} MiB; it is not a configuration dump"
        )
    text: str | object
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):  # Windows PowerShell 5.1's `> file` writes UTF-16
        try:
            text = raw.decode("utf-16")
        except UnicodeDecodeError:
            raise InputError(file, None, "", "the file starts as UTF-16 text but is not; save it as UTF-8") from None
    else:
        text = decode_text(raw, file)
    if not isinstance(text, str):
        raise InputError(
            file, None, "", "the file is not UTF-8 text; it is not a configuration dump (collect.ps1 writes UTF-8 JSON)"
        )
    if not text.strip():
        raise InputError(file, None, "", "the file is empty; it should hold the JSON that collect.ps1 writes")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            file,
            error.lineno,
            "",
            f"not JSON ({error.msg} at column {error.colno}); expected the JSON document collect.ps1 writes",
        ) from None
    except RecursionError:
        raise InputError(file, None, "", "the JSON is nested too deeply; it is not a configuration dump") from None
    root = Node(file, "", data)
    if not isinstance(data, dict):
        raise InputError(
            file, None, "", f"the JSON is {_kind(data)}, not a configuration dump (an object with a Header)"
        )
    header = root.get("Header")
    if not isinstance(header.value, dict) or header.get("Format").value != DUMP_FORMAT:
        raise InputError(
            file,
            None,
            "",
            f"not an hvnet configuration dump (no Header with Format {DUMP_FORMAT!r}); "
            "write it with the script `hvnet import collect-script` prints",
        )
    version = header.get("FormatVersion").integer()
    if version is not None and version > 1:
        raise header.get("FormatVersion").error(
            f"format version {version} is newer than this hvnet reads (1); update hvnet"
        )
    return root
