"""A scenario at the lab's scale: every rate by one factor, every time by another, sizes by both.

    rates  × r        NIC, cable and port speeds, backplanes, steady flows' rates, dirty rates, SMB limits
    times  × t        event times, starts, durations, patch times, the fabric's timers
    sizes  × r · t    transfers, VM memory (populated, working set, device state), host memory

`r` is `--scale` (1/100: 10 GbE becomes 100 Mbit/s), `t` is `--time-scale` (default 1). A transfer a
link holds then ends at `t` times its original end, and every failure comes at `t` times its
original time, so the scaled scenario is the same experiment, shorter and slower: its sharing (who
gets which share of which link, when) is unchanged. The lab and its prediction both use the scaled
scenario: `hvnet.simulate` runs it as it stands (`lab.prediction`), and the lab builds it.

What scaling keeps: the max-min shares of the links, the team's and the switch's choices (they
hash names and ports, not rates), the frame overhead per byte (MTUs are not scaled), the order and
relative time of every event.

What it does not keep, and why the lab cannot either: per-packet and per-byte CPU costs (the scaled
links are 1/r times slower, the hosts' cores are not: the twin's CPU limits vanish at the lab's
scale, and the lab's own CPU is one machine's); round-trip times and TCP windows (a veth pair's
RTT is tens of microseconds; a bandwidth-delay product shrinks with the rate); fixed latencies of
the calibration (a migration's set-up and switch-over, the pre-copy's stop threshold of 64 MiB:
not scaled, so a scaled VM's pre-copy passes differ from the full-size one's, and the lab replays
the scaled prediction's own passes); and the token bucket's burst (`lab.plan`).

The scenario is rebuilt from its validated model (every field whose type carries a unit, found by
the type, not by a list that could fall behind the model) and validated again, so the scaled
scenario meets every check a file does; `requirements` (for `hvnet check`) is left out.
"""

from __future__ import annotations

import re
import types
import typing
from dataclasses import dataclass
from decimal import Decimal
from enum import Enum
from fractions import Fraction
from typing import Any

from pydantic import BaseModel, BeforeValidator

from hvnet.errors import UnitError
from hvnet.model import Scenario, scenario_from_data
from hvnet.units import parse_bitrate, parse_bytes, parse_duration

__all__ = ["Scale", "parse_factor", "scaled_data", "scaled_scenario"]

#: The unit a field's type parses, by its parser.
_KINDS: dict[object, str] = {parse_bytes: "size", parse_bitrate: "rate", parse_duration: "time"}
_FACTOR = re.compile(r"^\s*(?:(\d+(?:\.\d*)?|\.\d+)\s*/\s*(\d+(?:\.\d*)?|\.\d+)|(\d+(?:\.\d*)?|\.\d+|\d+e-?\d+))\s*$")


@dataclass(frozen=True)
class Scale:
    """The lab's two factors: rates × `rate`, times × `time`, sizes × both."""

    rate: float = 0.01
    time: float = 1.0

    @property
    def size(self) -> float:
        return self.rate * self.time

    def factor(self, kind: str) -> float:
        return {"rate": self.rate, "time": self.time, "size": self.size}[kind]

    def describe(self) -> str:
        """`rates 1/100, times 1` as a person reads the two factors."""
        return f"rates {_fraction(self.rate)}, times {_fraction(self.time)}"


#: No scaling: what a field is as the file writes it.
_SAME = Scale(1.0, 1.0)


def _fraction(value: float) -> str:
    ratio = Fraction(value).limit_denominator(1_000_000)
    if ratio.numerator == 1 and ratio.denominator != 1:
        return f"1/{ratio.denominator}"
    return f"{value:g}"


def parse_factor(option: str, text: str) -> float:
    """`1/100`, `0.01` or `1` as a factor above 0 and at most 1; UnitError naming the option otherwise."""
    match = _FACTOR.match(text)
    if match is None:
        raise UnitError(f"{option}: {text!r} is not a factor; write a fraction such as 1/100 or a number such as 0.01")
    value = float(match[1]) / float(match[2]) if match[1] is not None else float(match[3])
    if not 0 < value <= 1:
        raise UnitError(f"{option}: {text.strip()} is not above 0 and at most 1 (the lab slows a scenario down)")
    return value


def _kind(metadata: typing.Iterable[object]) -> str | None:
    for item in metadata:
        if isinstance(item, BeforeValidator) and item.func in _KINDS:
            return _KINDS[item.func]
    return None


def _number(value: float) -> str:
    """A float written out in full (no exponent), as the scenario's units read it."""
    text = format(Decimal(repr(float(value))), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _quantity(value: float, kind: str, scale: Scale) -> str:
    scaled = value * scale.factor(kind)
    if kind == "size":
        return f"{max(1, round(scaled)) if value > 0 else 0}B"
    return f"{_number(scaled)}{'bps' if kind == 'rate' else 's'}"


def _value(value: object, annotation: object, metadata: list[object], scale: Scale) -> object:
    """`value` as a file writes it, its quantities scaled (the annotation says which are)."""
    if value is None:
        return None
    kind = _kind(metadata)
    if kind is not None and isinstance(value, (int, float)) and not isinstance(value, bool):
        return _quantity(float(value), kind, scale)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        base, *more = typing.get_args(annotation)
        return _value(value, base, [*more, *metadata], scale)
    if isinstance(value, BaseModel):
        return _model(value, scale)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _value(value, options[0], metadata, scale) if options else value
    if isinstance(value, tuple):
        args = typing.get_args(annotation)
        if len(args) == 2 and args[1] is Ellipsis:
            return [_value(v, args[0], [], scale) for v in value]
        return [_value(v, a, [], scale) for v, a in zip(value, args)]
    if isinstance(value, Enum):
        return value.value
    return value


def _model(model: BaseModel, scale: Scale) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        if value is None:
            continue
        scaled = _value(value, field.annotation, list(field.metadata), scale)
        default = not field.is_required() and value == field.get_default(call_default_factory=True)
        if default and scaled == _value(value, field.annotation, list(field.metadata), _SAME):
            continue  # as the model has it, and the scale does not change it: the file leaves it out
        out[field.alias or name] = scaled
    return out


def scaled_data(scenario: Scenario, scale: Scale) -> dict[str, Any]:
    """The scenario as plain data (what a YAML file holds), scaled; `requirements` left out."""
    data = _model(scenario, scale)
    data.pop("requirements", None)
    return data


def scaled_scenario(scenario: Scenario, scale: Scale, source: str | None = None) -> Scenario:
    """The scenario at the lab's scale, validated as a file is (ScenarioError names `source`)."""
    return scenario_from_data(scaled_data(scenario, scale), source or scenario.source)
