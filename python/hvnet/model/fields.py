"""The field types of the scenario model, their bounds, and the base every model derives from.

A field of a model is typed with what it accepts: a ``Name`` (visible text on one line, no '/'), a
``Reference`` (``host/nic`` or ``switch/port``), a ``Share`` (0 to 1), a ``Percent`` ("70%"), a
``Whole`` number or a ``Flag``, or a quantity in hvnet's units (``hvnet.units``) within the bounds
below (docs/scenario.md, "Bounds"). ``FrozenModel`` is the base of every model: immutable, no
unknown keys, its attribute docstrings the schema's descriptions.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    Strict,
    WithJsonSchema,
)

from hvnet.model.refs import SEPARATOR
from hvnet.units import BitRate, Bytes, Duration

__all__ = [
    "FASTEST_LINK_BPS",
    "HORIZON_S",
    "LARGEST_BYTES",
    "SLOWEST_LINK_BPS",
    "Flag",
    "FrozenModel",
    "LinkRate",
    "Name",
    "Percent",
    "PositiveBitRate",
    "PositiveBytes",
    "Reference",
    "Share",
    "Size",
    "Time",
    "Title",
    "Whole",
]


#: Characters a name cannot hold: control (NUL, line feed...), format (zero-width, right-to-left
#: override, byte-order mark), line and paragraph separators, surrogates. Each is invisible or
#: breaks the line a message prints on, so two names that look the same would differ.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def _hidden_character(text: str) -> str:
    """The first character of `text` that a name cannot hold, described ("" when none). Text that
    `isprintable` holds none of them (each is in a category it refuses), so is let through at once."""
    if text.isprintable():
        return ""
    for char in text:
        if unicodedata.category(char) in _HIDDEN_CATEGORIES:
            return f"U+{ord(char):04X} ({unicodedata.name(char, 'a control character').lower()})"
    return ""


def _check_name(name: str) -> str:
    if not name.strip():
        raise ValueError("a name cannot be empty")
    if SEPARATOR in name:
        raise ValueError(f"{name!r} contains '/'; names cannot contain '/' (it separates host/nic and switch/port)")
    if hidden := _hidden_character(name):
        raise ValueError(f"{name!r} contains {hidden}; a name is visible text on one line")
    return name


def _check_title(title: str) -> str:
    if not title.strip():
        raise ValueError("the scenario's name cannot be blank")
    if hidden := _hidden_character(title):
        raise ValueError(f"{title!r} contains {hidden}; the scenario's name is visible text on one line")
    return title


Name = Annotated[str, AfterValidator(_check_name), WithJsonSchema({"type": "string", "pattern": "^[^/]*\\S[^/]*$"})]
"""The name of a host, NIC, team, switch, VM...: not empty, no '/'."""


def _check_share(value: float) -> float:
    if not 0 <= value <= 1:  # NaN too
        raise ValueError(
            f"{value:g} is not a share from 0 to 1; it is the share of the VM's vCPUs the guest keeps busy "
            "(0.5: half of them, not 50)"
        )
    return value


#: A `host/nic` or `switch/port` reference (an event's target may also be a name), kept without the
#: spaces around it that YAML lets through: the checks (`checks/`) read it stripped, so does everything after.
Reference = Annotated[str, AfterValidator(str.strip)]

#: A fraction from 0 to 1, such as a VM's CPU load.
Share = Annotated[float, AfterValidator(_check_share), Field(json_schema_extra={"minimum": 0, "maximum": 1})]
#: The bounds of quantities, each the physics or the product's limits with room to spare
#: (docs/scenario.md, "Bounds"): a value outside is a typo, not a design.
FASTEST_LINK_BPS = 1.6e12  # 1.6 Tbps: the fastest Ethernet that ships (1.6 TbE); NICs from 1 Mbps
SLOWEST_LINK_BPS = 1e6
LARGEST_BYTES = 2**50  # 1 PiB: more than any host's memory or a single transfer
HORIZON_S = 8760 * 3600.0  # a year: times of events, starts and patches
#: A whole number, not a boolean or 2.0; a flag is true or false, not 0 or 1.
Whole = Annotated[int, Strict()]
Flag = Annotated[bool, Strict()]
LinkRate = Annotated[BitRate, Field(ge=SLOWEST_LINK_BPS, le=FASTEST_LINK_BPS)]
PositiveBitRate = Annotated[BitRate, Field(ge=SLOWEST_LINK_BPS, le=FASTEST_LINK_BPS)]
PositiveBytes = Annotated[Bytes, Field(gt=0, le=LARGEST_BYTES)]
Size = Annotated[Bytes, Field(le=LARGEST_BYTES)]
Time = Annotated[Duration, Field(le=HORIZON_S)]

_PERCENT = re.compile(r"^\s*(?P<number>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))\s*%\s*$")


def _parse_percent(value: object) -> float:
    """`70%` -> 0.7: a share of a link, written as a percentage above 0 and at most 100."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"expected a percentage such as 70%, got {value!r}")
    if not isinstance(value, str):
        raise ValueError(f"{value:g} has no '%'; write a share of the link as a percentage, e.g. 70% (not 0.7 or 70)")
    match = _PERCENT.match(value)
    if match is None:
        raise ValueError(f"{value!r} is not a percentage; write a number and '%', e.g. 70%")
    share = float(match["number"]) / 100
    if not 0 < share <= 1:
        raise ValueError(f"{value.strip()} is not a share of a link; write more than 0% and at most 100%")
    return share


def _format_percent(share: float) -> str:
    return f"{share * 100:.10g}%"


#: A share of a link's speed, written as a percentage ("70%"), stored as a fraction (0.7).
Percent = Annotated[
    float,
    BeforeValidator(_parse_percent),
    PlainSerializer(_format_percent, return_type=str),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^\s*([0-9]+(\.[0-9]*)?|\.[0-9]+)\s*%\s*$",
            "description": "a percentage of a link's speed, more than 0% and at most 100%",
            "examples": ["70%", "92.5%"],
        }
    ),
]

#: The name of a scenario: not blank, visible text on one line ('/' allowed).
Title = Annotated[str, AfterValidator(_check_title)]


class FrozenModel(BaseModel):
    """The base of every model of a scenario: immutable, no unknown keys, attribute docstrings as descriptions."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        use_attribute_docstrings=True,
        serialize_by_alias=True,
    )
