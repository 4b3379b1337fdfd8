"""The values the fuzzer puts where a field goes: numbers at and past every boundary, how numbers and
units are written in quantities, text that renders oddly, containers, quantities at the documented bounds,
and hypothesis strategies that draw them."""

from __future__ import annotations

import copy
import re

from hypothesis import strategies as st

#: Numbers at and around every boundary a field may have.
EXTREME_NUMBERS: list[object] = [
    0,
    -1,
    1,
    -0.0,
    0.5,
    2,
    576,
    9216,
    9217,
    4097,
    65,
    241,
    1e308,
    -1e308,
    1e-320,
    5e-324,
    float("nan"),
    float("inf"),
    float("-inf"),
    2**31,
    2**63,
    2**64,
    -(2**64),
    10**400,
    1.6e12,
    1e6,
    999999,
]
#: How numbers are written inside quantities and as plain scalars.
NUMBER_TEXTS = [
    "0",
    "-1",
    "1",
    "-0",
    "0.5",
    "1e308",
    "1e309",
    "1e-320",
    "nan",
    "NaN",
    "inf",
    "-inf",
    ".inf",
    ".nan",
    "18446744073709551616",
    "1_000",
    "0x10",
    "0o17",
    "0b11",
    "1e400",
    ".5",
    "1.",
    "1e",
    "9" * 400,
    "1.6",
    "1.600001",
    "0.999999",
    "8760",
    "8761",
    "1,5",
    "١٠",
    "１０",
    "1e-7",
]
UNITS = [
    "",
    "bps",
    "Kbps",
    "Mbps",
    "Gbps",
    "Tbps",
    "Pbps",
    "MBps",
    "GBps",
    "B",
    "KB",
    "KiB",
    "MB",
    "GiB",
    "GB",
    "TiB",
    "PiB",
    "EiB",
    "s",
    "ms",
    "us",
    "ns",
    "min",
    "h",
    "d",
    " Gbps",
    "gbps",
    "GBPS",
    "Gb",
    "Gbps ",
    "Gbit/s",
]
#: Text that renders oddly or not at all: right-to-left, zero-width, emoji, NUL, line and byte-order marks.
ODD_TEXTS = [
    "",
    " ",
    "\t",
    "\u202ehv1",
    "hv\u200b1",
    "hv1\u200d",
    "\u2066hv1\u2069",
    "💥",
    "🖥️/nic1",
    "hv1\x00",
    "\x00",
    "\ufeffhv1",
    "hv1\u0085",
    "hv1\u2028nic",
    "ｈｖ１",
    "𝕙𝕧𝟙",
    "a/b",
    "hv1/",
    "/",
    "hv1//nic1",
    "é",
    "e\u0301",
    "hv1 ",
    " hv1",
    "null",
    "~",
    "yes",
    "true",
    "0",
    "*",
    "&x",
    "!!str",
    "<<",
    "- x",
    "x: y",
    "#",
    "a" * 5000,
    "\U0010ffff",
    "\ud7ff",
    "COM1",
    "..",
    "%",
    "{{x}}",
    "'",
    '"',
]
CONTAINERS: list[object] = [None, True, False, [], {}, [1, 2], {"x": 1}, [[[[]]]], {"name": None}]


#: Quantities at the documented bounds and just past them, and tiny or huge ones that are within them:
#: what the engine gets when the checks let a value through.
BOUNDARY_QUANTITIES = [
    "1Mbps",
    "999999bps",
    "1.6Tbps",
    "1.600001Tbps",
    "1e-300bps",
    "1e-300Gbps",
    "1bps",
    "0.001bps",
    "1000000bps",
    "1PiB",
    "1125899906842624B",
    "1125899906842625B",
    "1B",
    "0B",
    "1e-300B",
    "0.5B",
    "8760h",
    "8760.0001h",
    "525600min",
    "0s",
    "1e-300s",
    "1ns",
    "31536000s",
    "31536001s",
    "1.6Tbps",
    "0bps",
    "1e-320bps",
]


QUANTITY = re.compile(r"([0-9.]+) ?([A-Za-z]+)")


def quantities() -> st.SearchStrategy[str]:
    """A number and a unit, as a quantity field is written (`1e308Gbps`, `nanGiB`, `-1s`)."""
    return st.builds(lambda n, u: f"{n}{u}", st.sampled_from(NUMBER_TEXTS), st.sampled_from(UNITS))


def odd_values() -> st.SearchStrategy[object]:
    """Any value a field might get by mistake or malice."""
    return st.one_of(
        st.sampled_from(EXTREME_NUMBERS),
        quantities(),
        st.sampled_from(BOUNDARY_QUANTITIES),
        st.sampled_from(ODD_TEXTS),
        st.sampled_from(CONTAINERS),
        st.integers(),
        st.floats(),
        st.text(max_size=20),
    ).map(copy.deepcopy)  # a fresh list or mapping each time: a later mutation may change it
