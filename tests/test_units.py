"""Units are parsed at the edge: text with a unit in, bytes / bits per second / seconds out.

These tests pin the accepted spellings, the exact refusal messages (a user reads
them), and that display formatting parses back to the same number.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hvnet.errors import HvnetError, UnitError
from hvnet.units import (
    BitRate,
    Bytes,
    Duration,
    format_bitrate,
    format_bytes,
    format_duration,
    human_duration,
    parse_bitrate,
    parse_bytes,
    parse_duration,
)

GiB = 2**30


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("55GiB", 55 * GiB),  # binary prefixes step by 1024
        ("1KiB", 1024),
        ("2 MiB", 2 * 2**20),  # a space between number and unit is fine
        ("1TiB", 2**40),
        ("10GB", 10 * 10**9),  # decimal prefixes step by 1000
        ("1.5KB", 1500),
        ("1kB", 1000),  # the SI lowercase k too
        ("0.5MB", 500_000),
        (".5KB", 500),
        ("1e3B", 1000),
        ("0B", 0),
        ("  3 TB ", 3 * 10**12),
        ("1536B", 1536),
    ],
)
def test_parse_bytes(text: str, expected: int) -> None:
    assert parse_bytes(text) == expected
    assert isinstance(parse_bytes(text), int)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("10Gbps", 10e9),
        ("10 Gbps", 10e9),
        ("1bps", 1.0),
        ("100Kbps", 100e3),
        ("1.5Mbps", 1.5e6),
        ("2Tbps", 2e12),
        ("10Gb/s", 10e9),  # "per second" as /s
        ("40 Gbit/s", 40e9),
        ("10gbps", 10e9),  # the prefix letter's case does not matter
        ("1.25GBps", 10e9),  # bytes per second are multiplied by 8
        ("1.25GB/s", 10e9),
        ("125MB/s", 1e9),
    ],
)
def test_parse_bitrate(text: str, expected: float) -> None:
    assert parse_bitrate(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("250ms", 0.25),
        ("10s", 10.0),
        ("0s", 0.0),
        ("5min", 300.0),
        ("2h", 7200.0),
        ("100ns", 100e-9),
        ("3us", 3e-6),
        ("3µs", 3e-6),  # MICRO SIGN
        ("3μs", 3e-6),  # GREEK SMALL LETTER MU, which keyboards also produce
        ("1.5 s", 1.5),
    ],
)
def test_parse_duration(text: str, expected: float) -> None:
    assert parse_duration(text) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize(
    ("parse", "value", "message"),
    [
        # An unknown unit: say what a bit rate is, with the units and an example.
        (
            parse_bitrate,
            "10Gbs",
            "'10Gbs' is not a bit rate; write a number and a unit: bps, Kbps, Mbps, Gbps, Tbps (e.g. 10Gbps)",
        ),
        (
            parse_bytes,
            "lots",
            "'lots' is not a size; write a number and a unit: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (e.g. 55GiB)",
        ),
        (
            parse_duration,
            "10 sec",
            "'10 sec' is not a duration; write a number and a unit: ns, us, ms, s, min, h (e.g. 250ms)",
        ),
        # Bare numbers are refused: 10 could be bits, bytes or seconds. The example reuses the number.
        (parse_bitrate, "10", "'10' has no unit; write a unit: bps, Kbps, Mbps, Gbps, Tbps (e.g. 10Gbps)"),
        (parse_bitrate, 10, "10 has no unit; write a unit: bps, Kbps, Mbps, Gbps, Tbps (e.g. 10Gbps)"),
        (parse_bytes, 0, "0 has no unit; write a unit: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (e.g. 0GiB)"),
        (parse_duration, 2.5, "2.5 has no unit; write a unit: ns, us, ms, s, min, h (e.g. 2.5s)"),
        # Negative quantities are refused, as text or as numbers.
        (parse_bytes, "-5GB", "'-5GB' is negative; a size cannot be negative"),
        (parse_bitrate, "-1Gbps", "'-1Gbps' is negative; a bit rate cannot be negative"),
        (parse_duration, -3, "-3 is negative; a duration cannot be negative"),
        # b is a bit, B a byte: each mix-up gets a hint.
        (
            parse_bytes,
            "10Gb",
            "'10Gb' is in bits, not bytes; write a size in bytes such as 10GB (b is a bit, B a byte)",
        ),
        (parse_bytes, "10Gbps", "'10Gbps' is a rate, not a size; write a size such as 10GB"),
        (parse_bitrate, "10GB", "'10GB' is a size, not a bit rate; write 10Gbps, or 10GB/s for bytes per second"),
        (parse_bitrate, "10Gb", "'10Gb' is an amount of bits, not a rate; write 10Gbps"),
        (parse_bytes, "1.5B", "'1.5B' is not a whole number of bytes"),
        (parse_duration, "5m", "'5m' is ambiguous; write 5min for minutes or 5ms for milliseconds"),
        # Not text and not a number (YAML null, true, a list).
        (
            parse_bitrate,
            None,
            "null is not a bit rate; write a number and a unit: bps, Kbps, Mbps, Gbps, Tbps (e.g. 10Gbps)",
        ),
        (
            parse_bytes,
            True,
            "true is not a size; write a number and a unit: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (e.g. 55GiB)",
        ),
        (parse_duration, [1], "[1] is not a duration; write a number and a unit: ns, us, ms, s, min, h (e.g. 250ms)"),
        (parse_bitrate, "1e400Gbps", "'1e400Gbps' is too large for a bit rate"),
        (
            parse_bytes,
            "9EB",
            "'9EB' is not a size; write a number and a unit: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB (e.g. 55GiB)",
        ),
        (parse_bytes, "10000000TB", "'10000000TB' is too large for a size"),
    ],
)
def test_refusals_say_what_is_allowed(parse: object, value: object, message: str) -> None:
    assert callable(parse)
    with pytest.raises(UnitError) as caught:
        parse(value)
    assert str(caught.value) == message


def test_unit_error_is_a_value_error_and_an_hvnet_error() -> None:
    """pydantic turns a ValueError from a validator into a field error; faces catch HvnetError."""
    assert issubclass(UnitError, ValueError)
    assert issubclass(UnitError, HvnetError)


@pytest.mark.parametrize(
    ("value", "text"),
    [(10e9, "10 Gbps"), (1.25e9, "1.25 Gbps"), (0.0, "0 bps"), (999.0, "999 bps"), (40e9, "40 Gbps"), (1e12, "1 Tbps")],
)
def test_format_bitrate(value: float, text: str) -> None:
    assert format_bitrate(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (55 * GiB, "55 GiB"),  # the unit that needs the fewest digits: 55 GiB, not 59.05580032 GB
        (10**10, "10 GB"),
        (1536, "1.5 KiB"),
        (1000, "1 KB"),
        (0, "0 B"),
        (999, "999 B"),
    ],
)
def test_format_bytes(value: int, text: str) -> None:
    assert format_bytes(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.25, "250 ms"), (0.0, "0 s"), (70.0, "70 s"), (5400.0, "5400 s"), (3e-6, "3 µs"), (1e-7, "100 ns")],
)
def test_format_duration(value: float, text: str) -> None:
    assert format_duration(value) == text


# Display text parses back to exactly the same number, so a scenario dumped to
# YAML or JSON loads back unchanged.


@settings(derandomize=True)
@given(st.integers(min_value=0, max_value=2**63 - 1))
def test_format_bytes_round_trips(size: int) -> None:
    assert parse_bytes(format_bytes(size)) == size


@settings(derandomize=True)
@given(st.floats(min_value=0, max_value=1e18, allow_nan=False, allow_infinity=False))
def test_format_bitrate_round_trips(rate: float) -> None:
    assert parse_bitrate(format_bitrate(rate)) == rate


@settings(derandomize=True)
@given(st.floats(min_value=0, max_value=1e9, allow_nan=False, allow_infinity=False))
def test_format_duration_round_trips(seconds: float) -> None:
    assert parse_duration(format_duration(seconds)) == seconds


# The JSON Schema patterns never reject what the parser accepts (editors must not flag valid files).

_NUMBERS = st.sampled_from(["10", "2.5", ".5", "1e3", "0", "7.", "12.25"])
_SPACES = st.sampled_from(["", " ", "  "])
_UNITS = st.sampled_from(
    [
        "B",
        "KB",
        "kB",
        "GiB",
        "Gb",
        "b",
        "Gbps",
        "gbps",
        "Mb/s",
        "GB/s",
        "GBps",
        "Gbit/s",
        "ms",
        "µs",
        "μs",
        "us",
        "s",
        "min",
        "h",
        "m",
        "Gbs",
        "sec",
        "iB",
        "TiB",
        "Tibps",
    ]
)


def _schema_pattern(annotated: object) -> re.Pattern[str]:
    metadata = getattr(annotated, "__metadata__", ())
    schema = next(m.json_schema for m in metadata if hasattr(m, "json_schema"))
    return re.compile(schema["pattern"])


@pytest.mark.parametrize(
    ("annotated", "parse"), [(Bytes, parse_bytes), (BitRate, parse_bitrate), (Duration, parse_duration)]
)
@settings(derandomize=True)
@given(number=_NUMBERS, space=_SPACES, unit=_UNITS)
def test_schema_pattern_accepts_what_the_parser_accepts(
    annotated: object, parse: object, number: str, space: str, unit: str
) -> None:
    assert callable(parse)
    text = f"{number}{space}{unit}"
    try:
        parse(text)
    except UnitError:
        return
    assert _schema_pattern(annotated).search(text), text


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (0, "0 s"),
        (0.0052, "5.2 ms"),
        (0.0764, "76 ms"),  # a blackout, in whole milliseconds
        (0.35, "350 ms"),
        (0.9996, "1.00 s"),  # rounds up into the next unit, not "1000 ms"
        (6.843, "6.84 s"),
        (42.1, "42.1 s"),
        (59.97, "1 min 00 s"),  # not "60.0 s"
        (67, "1 min 07 s"),
        (185.4, "3 min 05 s"),
        (3599.6, "1 h 00 min"),
        (8538.02, "2 h 22 min"),  # the compare table's "8538.02 s" of the issue
        (90061, "25 h 01 min"),
        (-0.5, "-500 ms"),
    ],
)
def test_every_face_writes_a_time_one_way(seconds: float, shown: str) -> None:
    assert human_duration(seconds) == shown
