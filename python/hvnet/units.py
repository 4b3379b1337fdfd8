"""Quantities with units, parsed at the edge.

Inside hvnet every quantity has one unit: sizes are **bytes** (int), rates are
**bits per second** (float), times are **seconds** (float). Files say what they
mean with a unit, and this module turns that text into those numbers:

    parse_bytes("55GiB")     == 59055800320        B, KB, MB, GB, TB (10^3 steps)
                                                   KiB, MiB, GiB, TiB (2^10 steps)
    parse_bitrate("10Gbps")  == 10_000_000_000.0   bps, Kbps, Mbps, Gbps, Tbps, or Gb/s;
                                                   GBps and GB/s are bytes per second (x 8)
    parse_duration("250ms")  == 0.25               ns, us (or µs), ms, s, min, h

A space between number and unit is allowed ("10 Gbps"). ``b`` is a bit and
``B`` a byte, so ``10Gb`` is refused as a size with a hint. A bare number is
refused everywhere (``10`` could be bits, bytes, Gbps or seconds): write a unit.
Negative quantities are refused.

``format_bytes``, ``format_bitrate`` and ``format_duration`` go the other way
for display ("55 GiB", "10 Gbps", "250 ms"); their output parses back to the
exact same number, so Python code that builds a scenario writes
``format_bitrate(speed_bps)`` or simply ``"10Gbps"``.

The engine counts rates in bytes per second (what a transfer's amount is
in); ``bytes_per_s`` and ``bits_per_s`` are the one place rates cross
between the two.

``Bytes``, ``BitRate`` and ``Duration`` are the pydantic field types of the
scenario model: text in, number stored, text out when serialised.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation, localcontext
from typing import Annotated, Final, TypeVar

from pydantic import BeforeValidator, PlainSerializer, WithJsonSchema

from hvnet.errors import UnitError

_T = TypeVar("_T")

__all__ = [
    "BitRate",
    "Bytes",
    "Duration",
    "bits_per_s",
    "bytes_per_s",
    "format_bitrate",
    "format_bytes",
    "format_duration",
    "human_duration",
    "parse_bitrate",
    "parse_bytes",
    "parse_duration",
    "parse_option",
    "show_value",
]

# One number, as written in a file: 10, 2.5, .5, 1e3. Shared by the parsers
# and by the JSON Schema patterns so that the two cannot drift apart.
_NUMBER: Final = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_QUANTITY: Final = re.compile(rf"^\s*(?P<sign>[-+]?)\s*(?P<number>{_NUMBER})\s*(?P<unit>[^\s0-9.].*?)?\s*$")
# Sizes and rates share one unit grammar: prefix, binary "i", bit or byte, "per second".
_DATA_UNIT: Final = re.compile(r"^(?P<prefix>[kKmMgGtT]?)(?P<binary>i?)(?P<bit>bit|b|B)(?P<per>ps|/s)?$")
_PREFIX_POWER: Final = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}
_DURATION_UNITS: Final = {
    "ns": Decimal("1e-9"),
    "us": Decimal("1e-6"),
    "µs": Decimal("1e-6"),  # MICRO SIGN
    "μs": Decimal("1e-6"),  # GREEK SMALL LETTER MU
    "ms": Decimal("1e-3"),
    "s": Decimal(1),
    "min": Decimal(60),
    "h": Decimal(3600),
}
_LARGEST_SIZE: Final = 2**63 - 1  # the engine stores sizes in 64-bit integers


class _Kind:
    """What a quantity is, in the words its error messages use."""

    def __init__(self, noun: str, units: str, example: str, example_unit: str) -> None:
        self.noun = noun
        self.units = units
        self.example = example
        self.example_unit = example_unit

    def not_a(self, shown: str) -> UnitError:
        return UnitError(f"{shown} is not {self.noun}; write a number and a unit: {self.units} (e.g. {self.example})")

    def bare(self, shown: str, number: str) -> UnitError:
        return UnitError(f"{shown} has no unit; write a unit: {self.units} (e.g. {number}{self.example_unit})")

    def negative(self, shown: str) -> UnitError:
        return UnitError(f"{shown} is negative; {self.noun} cannot be negative")

    def too_large(self, shown: str) -> UnitError:
        return UnitError(f"{shown} is too large for {self.noun}")


_SIZE: Final = _Kind("a size", "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB", "55GiB", "GiB")
_BITRATE: Final = _Kind("a bit rate", "bps, Kbps, Mbps, Gbps, Tbps", "10Gbps", "Gbps")
_DURATION: Final = _Kind("a duration", "ns, us, ms, s, min, h", "250ms", "s")


def show_value(value: object) -> str:
    """A value as the user wrote it, for messages: text quoted, numbers bare, null."""
    if isinstance(value, str):
        return repr(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _split(value: object, kind: _Kind) -> tuple[Decimal, str, str]:
    """Split ``value`` into a non-negative number (and its text) and a unit, or explain why not."""
    shown = show_value(value)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise kind.not_a(shown)
    if not isinstance(value, str):  # a bare number from YAML or from Python code
        if value < 0:
            raise kind.negative(shown)
        raise kind.bare(shown, str(value))
    match = _QUANTITY.match(value)
    if match is None:
        raise kind.not_a(shown)
    if match["sign"] == "-":
        raise kind.negative(shown)
    if not match["unit"]:
        raise kind.bare(shown, match["number"])
    try:
        number = Decimal(match["number"])
    except InvalidOperation:  # pragma: no cover - the pattern only admits valid numbers
        raise kind.not_a(shown) from None
    return number, match["number"], match["unit"]


def _data_multiplier(unit: re.Match[str]) -> Decimal:
    base = 1024 if unit["binary"] else 1000
    return Decimal(base) ** _PREFIX_POWER[unit["prefix"].lower()]


def parse_bytes(text: str) -> int:
    """``"55GiB"`` -> ``59055800320``: a size in bytes (B, KB.., KiB..)."""
    # A file repeats its quantities ("8GiB" for every VM): text is parsed once.
    return _cached_parse_bytes(text) if type(text) is str else _parse_bytes(text)


def _parse_bytes(text: str) -> int:
    """`parse_bytes` itself, each call parsed anew."""
    number, written, unit_text = _split(text, _SIZE)
    shown = show_value(text)
    unit = _DATA_UNIT.match(unit_text)
    if unit is None:
        raise _SIZE.not_a(shown)
    if unit["per"]:
        raise UnitError(f"{shown} is a rate, not a size; write a size such as {written}{unit['prefix']}B")
    if unit["bit"] != "B":
        raise UnitError(
            f"{shown} is in bits, not bytes; write a size in bytes such as {written}{unit['prefix'].upper()}B"
            " (b is a bit, B a byte)"
        )
    size = number * _data_multiplier(unit)
    if size != size.to_integral_value():
        raise UnitError(f"{shown} is not a whole number of bytes")
    if size > _LARGEST_SIZE:
        raise _SIZE.too_large(shown)
    return int(size)


_cached_parse_bytes = functools.lru_cache(maxsize=4096)(_parse_bytes)


def parse_bitrate(text: str) -> float:
    """``"10Gbps"`` -> ``1e10``: a rate in bits per second (bps.., Gb/s, or GBps x 8)."""
    # A file repeats its quantities ("8GiB" for every VM): text is parsed once.
    return _cached_parse_bitrate(text) if type(text) is str else _parse_bitrate(text)


def _parse_bitrate(text: str) -> float:
    """`parse_bitrate` itself, each call parsed anew."""
    number, written, unit_text = _split(text, _BITRATE)
    shown = show_value(text)
    unit = _DATA_UNIT.match(unit_text)
    if unit is None:
        raise _BITRATE.not_a(shown)
    if not unit["per"]:
        prefix = unit["prefix"].upper()
        if unit["bit"] == "B":
            raise UnitError(
                f"{shown} is a size, not a bit rate; write {written}{prefix}bps,"
                f" or {written}{prefix}B/s for bytes per second"
            )
        raise UnitError(f"{shown} is an amount of bits, not a rate; write {written}{prefix}bps")
    bits = 8 if unit["bit"] == "B" else 1
    rate = float(number * _data_multiplier(unit) * bits)
    if not math.isfinite(rate):
        raise _BITRATE.too_large(shown)
    return rate


_cached_parse_bitrate = functools.lru_cache(maxsize=4096)(_parse_bitrate)


def bytes_per_s(bits_per_second: float) -> float:
    """A rate of the model (bits/s) as the engine counts it (bytes/s)."""
    return bits_per_second / 8


def bits_per_s(bytes_per_second: float) -> float:
    """A rate of the engine (bytes/s) as the model and its results give it (bits/s)."""
    return bytes_per_second * 8


def parse_duration(text: str) -> float:
    """``"250ms"`` -> ``0.25``: a time in seconds (ns, us/µs, ms, s, min, h)."""
    # A file repeats its quantities ("8GiB" for every VM): text is parsed once.
    return _cached_parse_duration(text) if type(text) is str else _parse_duration(text)


def parse_option(option: str, text: str, parse: Callable[[str], _T]) -> _T:
    """A command-line option's quantity: ``parse(text)``, its UnitError naming the option
    (``--time: '60' has no unit; ...``)."""
    try:
        return parse(text)
    except UnitError as error:
        raise UnitError(f"{option}: {error}") from None


def _parse_duration(text: str) -> float:
    """`parse_duration` itself, each call parsed anew."""
    number, written, unit_text = _split(text, _DURATION)
    shown = show_value(text)
    multiplier = _DURATION_UNITS.get(unit_text)
    if multiplier is None:
        if unit_text == "m":
            raise UnitError(f"{shown} is ambiguous; write {written}min for minutes or {written}ms for milliseconds")
        raise _DURATION.not_a(shown)
    seconds = float(number * multiplier)
    if not math.isfinite(seconds):
        raise _DURATION.too_large(shown)
    return seconds


_cached_parse_duration = functools.lru_cache(maxsize=4096)(_parse_duration)


# --- display ---------------------------------------------------------------------

_SIZE_UNITS: Final = [(name, Decimal(1000) ** p) for p, name in enumerate(["B", "KB", "MB", "GB", "TB"])] + [
    (name, Decimal(1024) ** p) for p, name in enumerate(["KiB", "MiB", "GiB", "TiB"], start=1)
]
_RATE_UNITS: Final = [(name, Decimal(1000) ** p) for p, name in enumerate(["bps", "Kbps", "Mbps", "Gbps", "Tbps"])]
_TIME_UNITS: Final = [("ns", Decimal("1e-9")), ("µs", Decimal("1e-6")), ("ms", Decimal("1e-3")), ("s", Decimal(1))]


def _exact_number(value: float, multiplier: Decimal) -> str:
    """``value / multiplier`` in the fewest digits (15 to 17) that parse back to ``value`` exactly."""
    with localcontext() as context:
        context.prec = 40
        quotient = Decimal(value) / multiplier
        for digits in (15, 16, 17):  # 17 significant digits always identify a double
            context.prec = digits
            rounded = (+quotient).normalize()
            if float(rounded * multiplier) == value:
                break
    if -6 <= rounded.adjusted() < 21:
        return format(rounded, "f")
    return str(rounded).replace("E", "e")


def _pick_unit(magnitude: float, units: list[tuple[str, Decimal]]) -> tuple[str, Decimal]:
    """The largest unit not bigger than ``magnitude`` (the smallest unit for tiny values)."""
    chosen = units[0]
    for name, multiplier in units:
        if magnitude >= multiplier:
            chosen = (name, multiplier)
    return chosen


@functools.lru_cache(maxsize=4096)  # a table repeats sizes; the exact decimal form costs microseconds
def format_bytes(size: int) -> str:
    """``55 * 2**30`` -> ``"55 GiB"``: exact, in whichever unit needs the fewest digits."""
    if size == 0:
        return "0 B"
    best: tuple[int, str] | None = None
    for name, multiplier in _SIZE_UNITS:
        if abs(size) < multiplier:
            continue
        quotient = (Decimal(size) / multiplier).normalize()
        text = format(quotient, "f")
        digits = len(quotient.as_tuple().digits)
        if best is None or digits <= best[0]:
            best = (digits, f"{text} {name}")
    return best[1] if best is not None else f"{size} B"


@functools.lru_cache(maxsize=4096)
def format_bitrate(bits_per_second: float) -> str:
    """``1e10`` -> ``"10 Gbps"``."""
    name, multiplier = _pick_unit(abs(bits_per_second), _RATE_UNITS)
    return f"{_exact_number(bits_per_second, multiplier)} {name}"


def human_duration(seconds: float) -> str:
    """A time as a person reads it, the one form of every face (terminal, report, compare,
    verdict, labels): ``76 ms``, ``6.84 s``, ``51.5 s``, ``1 min 07 s``, ``2 h 22 min``.
    Three significant digits below a minute, whole units above; JSON and files keep seconds
    (`format_duration`)."""
    if seconds < 0:
        return "-" + human_duration(-seconds)
    if seconds == 0:
        return "0 s"
    if seconds < 1:
        milliseconds = float(f"{seconds * 1000:.2g}") if seconds < 0.01 else round(seconds * 1000)
        if milliseconds < 1000:  # whole milliseconds from 10 ms: a blackout reads "76 ms"
            return f"{milliseconds:g} ms"
    if seconds < 60:
        rounded = float(f"{seconds:.3g}")
        if rounded < 60:
            return f"{_three_digits(rounded)} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{hours} h {minutes:02d} min"


def _three_digits(value: float) -> str:
    """``6.843`` -> ``"6.84"``, ``51.46`` -> ``"51.5"``: three significant digits of a number
    from 1 to 999, trailing zeros kept so that a column of times reads alike (``2.50``)."""
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def format_duration(seconds: float) -> str:
    """``0.25`` -> ``"250 ms"``; one second and longer stay in seconds (``"5400 s"``)."""
    if seconds == 0:
        return "0 s"
    name, multiplier = _pick_unit(abs(seconds), _TIME_UNITS)
    return f"{_exact_number(seconds, multiplier)} {name}"


# --- pydantic field types ----------------------------------------------------------

_SPACE_NUMBER: Final = rf"^\s*{_NUMBER}\s*"

Bytes = Annotated[
    int,
    BeforeValidator(parse_bytes),
    PlainSerializer(format_bytes, return_type=str),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": _SPACE_NUMBER + r"[kKmMgGtT]?i?B\s*$",
            "description": "a size: a number and a unit B, KB, MB, GB, TB, KiB, MiB, GiB, TiB",
            "examples": ["55GiB", "10GB", "1500B"],
        }
    ),
]
"""A size in bytes, written with a unit in files ("55GiB")."""

BitRate = Annotated[
    float,
    BeforeValidator(parse_bitrate),
    PlainSerializer(format_bitrate, return_type=str),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": _SPACE_NUMBER + r"[kKmMgGtT]?i?(bit|b|B)(ps|/s)\s*$",
            "description": "a bit rate: a number and a unit bps, Kbps, Mbps, Gbps, Tbps"
            " (or Gb/s; GB/s is bytes per second)",
            "examples": ["10Gbps", "25 Gbps", "1.25GB/s"],
        }
    ),
]
"""A rate in bits per second, written with a unit in files ("10Gbps")."""

Duration = Annotated[
    float,
    BeforeValidator(parse_duration),
    PlainSerializer(format_duration, return_type=str),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": _SPACE_NUMBER + r"(ns|us|µs|μs|ms|s|min|h)\s*$",
            "description": "a duration: a number and a unit ns, us, ms, s, min, h",
            "examples": ["250ms", "10s", "5min"],
        }
    ),
]
"""A time in seconds, written with a unit in files ("250ms")."""
