#!/usr/bin/env python3
"""Input fuzzer of hvnet (issue 15, "Every bad input gets one clear line").

Starting from the valid scenarios in python/hvnet/examples/, hypothesis's
strategies draw mutations of three kinds:

- structure: drop, duplicate, rename or retype a field; put an extreme or
  boundary number (0, -1, 1e308, nan, inf, 2**64, 1e-320), a quantity with one
  ("1e308Gbps", "nanGiB", "-1s"), awkward unicode (right-to-left, zero-width,
  emoji, NUL) or a list/mapping where a value goes; share an entry (an alias);
- YAML: flow or block style, anchors and aliases, merge keys, tags, several
  documents, directives, deep nesting, alias bombs, unknown aliases;
- bytes: bit flips, truncations, inserted or deleted bytes, a BOM, CR line ends,
  UTF-16.

Each case runs `hvnet simulate case.yaml --json out.json` (load, simulate,
JSON) in a child process with a time limit and a memory limit (RLIMIT_AS), and
is sorted into a class:

    result     exit 0, and what was loaded is within the documented bounds
    refusal    exit 2, every line of standard error is `file[:line]: message`
    unclear    exit 2, but a line of standard error is not of that form
    crash      a traceback, a caught Rust panic, an abort or a signal, another exit code
    hang       past the time limit
    oom        out of memory (MemoryError, a failed allocation, or killed at the limit)
    nonsense   exit 0, but the scenario holds a value outside a documented bound
               (a link outside 1 Mbps..1.6 Tbps, a time past 8760 h, a clock that is
               not finite...) or the JSON holds NaN or infinity

Counts per class are printed; each case that is not `result` or `refusal` is
written to bench/out/fuzz/<class>/NNN.yaml (the input, byte for byte: run
`hvnet simulate` on it to reproduce) with NNN.out.txt beside it (exit, standard
error, the mutations that made it).

By default the child is forked from this process, which has hvnet imported
(some 20 ms a case instead of 0.4 s); `--exec` runs `python -m hvnet` instead.

Other targets (`--target`): `flows` (a traffic matrix for `hvnet flows`),
`ntttcp` (`hvnet ntttcp` arguments, through hvnet.ntttcp.run_ntttcp), `variants`
(a `variants:` block, through hvnet.variants.load_variants), `measurement`
(the importers' samples, through hvnet.importers.read_measurement) and `config`
(collect.ps1 dumps, through hvnet.importers.config.import_config); the last four
call the function in the child as the command would (`entry`).

    python3 bench/fuzz.py --cases 2000 --seed 1 --jobs 2
    python3 bench/fuzz.py --target flows --cases 500
    python3 bench/fuzz.py --target measurement --cases 300
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

if TYPE_CHECKING:
    from hvnet.model import Scenario

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "python" / "hvnet" / "examples").rglob("*.yaml"))
OUT = ROOT / "bench" / "out" / "fuzz"
CLASSES = ("result", "refusal", "unclear", "crash", "hang", "oom", "nonsense")
FAILURES = CLASSES[2:]
#: The one form a line of a refusal takes: `file:line: field: message` or `file: message`.
CLEAN_LINE = re.compile(r"^[^:\n]+(:\d+)?: \S.*$")
#: The names the case's files have in the child's working directory (messages name them).
CASE_FILE = {
    "scenario": "case.yaml",
    "flows": "case.csv",
    "ntttcp": "case.json",
    "variants": "case.yaml",
    "config": "case.json",
    "prices": "case.yaml",
    "candidates": "case.yaml",
}
#: The targets, each an entry point that reads what people write or tools produce.
TARGETS = ("scenario", "flows", "ntttcp", "variants", "measurement", "config", "prices", "candidates")

# --- values ----------------------------------------------------------------------------------

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


# --- structure-level mutations ------------------------------------------------------------------------

Path_ = tuple[Any, ...]


def paths(node: object, prefix: Path_ = ()) -> Iterator[Path_]:
    """Every place in the tree: mapping keys and list indices, depth first."""
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from paths(value, (*prefix, index))


def get(tree: object, path: Path_) -> Any:
    node: Any = tree
    for step in path:
        node = node[step]
    return node


def mutate_bound(data: st.DataObject, tree: object, quantity_places: list[Path_], log: list[str]) -> object:
    """A quantity at or past its bound, the rest of the file kept valid."""
    path = data.draw(st.sampled_from(quantity_places), label="quantity")
    unit = QUANTITY.fullmatch(get(tree, path)).group(2)  # type: ignore[union-attr]
    family = [q for q in BOUNDARY_QUANTITIES if q.endswith("bps") == unit.endswith("bps") and q[-1] == unit[-1]]
    bound = data.draw(st.sampled_from(family or BOUNDARY_QUANTITIES))
    log.append(f"{'.'.join(map(str, path))} := {bound!r}")
    get(tree, path[:-1])[path[-1]] = bound
    return tree


def mutate_add(data: st.DataObject, tree: object, path: Path_, parent: Any, log: list[str]) -> None:
    """Add a field, known or not, where there is a mapping (or an item where there is a list)."""
    shown = ".".join(str(s) for s in path)
    target = get(tree, path) if isinstance(get(tree, path), dict) else parent
    if isinstance(target, dict):
        key = data.draw(st.sampled_from(["speed", "mtu", "nics", "at", "variants", "extra", "name", "memory"]))
        value = data.draw(odd_values())
        log.append(f"add {shown}.{key} := {value!r:.40}")
        target[key] = value
    elif isinstance(target, list):
        value = data.draw(odd_values())
        log.append(f"append to {shown}: {value!r:.40}")
        target.append(value)


def mutate_tree(data: st.DataObject, tree: object, log: list[str]) -> object:
    """One structure-level change at a drawn place of the tree."""
    places = list(paths(tree))
    kind = data.draw(
        st.sampled_from(
            [
                "replace",
                "replace",
                "replace",
                "drop",
                "duplicate",
                "share",
                "retype",
                "rename",
                "add",
                "copy",
                "grow",
                "merge",
                "bound",
                "bound",
            ]
        ),
        label="mutation",
    )
    quantity_places = [p for p in places if p and isinstance(get(tree, p), str) and QUANTITY.fullmatch(get(tree, p))]
    if kind == "bound" and quantity_places:
        return mutate_bound(data, tree, quantity_places, log)
    if kind == "bound":
        kind = "replace"
    path = data.draw(st.sampled_from(places), label="place")
    if not path:  # the root: replace it or put something next to it
        if kind == "replace":
            log.append("root := odd value")
            return data.draw(odd_values())
        kind = "add"
    parent: Any = get(tree, path[:-1]) if path else None
    step: Any = path[-1] if path else None
    value: object
    retyped: object
    shown = ".".join(str(s) for s in path)
    if kind == "replace":
        value = data.draw(odd_values(), label="value")
        log.append(f"{shown} := {value!r:.60}")
        parent[step] = value
    elif kind == "drop":
        log.append(f"drop {shown}")
        del parent[step]
    elif kind in ("duplicate", "share") and isinstance(parent, list):
        item = parent[step]
        log.append(f"{kind} {shown}")  # a shared item is written as an anchor and an alias
        parent.insert(step + 1, item if kind == "share" else copy.deepcopy(item))
    elif kind == "retype":
        value = parent[step]
        retyped = data.draw(st.sampled_from([str(value), [value], {"value": value}, 1, 1.5, True, None]))
        log.append(f"retype {shown} -> {retyped!r:.60}")
        parent[step] = retyped
    elif kind == "rename" and isinstance(parent, dict):
        new = data.draw(
            st.one_of(st.sampled_from(ODD_TEXTS), st.sampled_from([str(step).upper(), f"{step}s", 1, True, None]))
        )
        log.append(f"rename {shown} -> {new!r:.40}")
        parent[new] = parent.pop(step)
    elif kind == "copy":  # a value from elsewhere in the file: a name where a number goes, and so on
        source = data.draw(st.sampled_from(places))
        log.append(f"{shown} := copy of {'.'.join(map(str, source))}")
        parent[step] = copy.deepcopy(get(tree, source))
    elif kind == "grow" and isinstance(parent, list):
        times = data.draw(st.sampled_from([2, 10, 100, 1000]))
        log.append(f"grow {shown} x{times}")
        parent.extend(copy.deepcopy(parent[step]) for _ in range(times))
    elif kind == "merge" and isinstance(get(tree, path), dict):
        target = get(tree, path)
        log.append(f"merge key into {shown}")
        target["<<"] = copy.deepcopy(
            data.draw(st.sampled_from([{"mtu": 9000}, [{"x": 1}], "text", None, {"name": "m"}]))
        )
    else:
        mutate_add(data, tree, path, parent, log)
    return tree


# --- YAML-level mutations -------------------------------------------------------------------------------


def dump(data: st.DataObject, tree: object, log: list[str]) -> str:
    style = data.draw(st.sampled_from([False, None, True]), label="flow style")
    text = yaml.safe_dump(
        tree,
        default_flow_style=style,
        allow_unicode=data.draw(st.booleans()),
        sort_keys=False,
        width=data.draw(st.sampled_from([80, 20, 10_000])),
    )
    if style is not False:
        log.append(f"dumped with default_flow_style={style}")
    return text.replace("'<<':", "<<:")  # a merge key written as one


#: Text changes that use what YAML offers: tags, several documents, directives, aliases, nesting.
YAML_EDITS: list[tuple[str, Callable[[str, int], str]]] = [
    ("tag !!str on a value", lambda t, i: _after_colon(t, i, "!!str ")),
    ("tag !!binary", lambda t, i: _after_colon(t, i, "!!binary ")),
    ("tag !!python/object", lambda t, i: _after_colon(t, i, "!!python/object/apply:os.system ")),
    ("local tag !x", lambda t, i: _after_colon(t, i, "!x ")),
    ("tag !!float", lambda t, i: _after_colon(t, i, "!!float ")),
    ("tag !!map", lambda t, i: _after_colon(t, i, "!!map ")),
    ("unknown alias", lambda t, i: _after_colon(t, i, "*nowhere ")),
    ("anchor", lambda t, i: _after_colon(t, i, "&a ")),
    ("second document", lambda t, i: t + "---\n" + t),
    ("empty second document", lambda t, i: t + "---\n"),
    ("document end", lambda t, i: t + "...\n"),
    ("%YAML 1.1 directive", lambda t, i: "%YAML 1.1\n---\n" + t),
    ("%YAML 2.0 directive", lambda t, i: "%YAML 2.0\n---\n" + t),
    ("%TAG directive", lambda t, i: "%TAG !e! tag:example.com,2000:\n---\n" + t),
    ("deep nesting", lambda t, i: _after_colon(t, i, "[" * (40 + i % 60) + "]" * (40 + i % 60) + " #")),
    ("alias bomb", lambda t, i: t + _bomb(4 + i % 6)),
    ("self alias", lambda t, i: t + "loop: &l [*l]\n"),
    (
        "merge of an alias",
        lambda t, i: "x-defaults: &d {mtu: 9000, speed: 10Gbps}\n" + t.replace("speed:", "<<: *d\n  zz:", 1),
    ),
    ("tab indent", lambda t, i: t.replace("  ", "\t", 1 + i % 3)),
    ("comment everywhere", lambda t, i: t.replace("\n", " # x\n")),
    ("duplicate key", lambda t, i: t.replace("name:", "name: dup\n  name:", 1)),
    ("complex key", lambda t, i: "? [a, b]\n: 1\n" + t),
    ("block scalar", lambda t, i: _after_colon(t, i, "|\n  text\n ")),
    ("date", lambda t, i: _after_colon(t, i, "2024-13-45 #")),
]


def _after_colon(text: str, index: int, insert: str) -> str:
    """`insert` right after the `index`-th (mod how many) `: ` of the text."""
    spots = [m.end() for m in re.finditer(r": ", text)]
    if not spots:
        return insert + text
    at = spots[index % len(spots)]
    return text[:at] + insert + text[at:]


def _bomb(levels: int) -> str:
    lines = ["x-lol0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for level in range(1, levels + 1):
        refs = ", ".join([f"*l{level - 1}"] * 10)
        lines.append(f"x-lol{level}: &l{level} [{refs}]")
    return "\n".join(lines) + "\n"


# --- byte-level mutations -------------------------------------------------------------------------------------


def mutate_bytes(data: st.DataObject, raw: bytes, log: list[str]) -> bytes:
    kind = data.draw(st.sampled_from(["flip", "truncate", "insert", "delete", "bom", "cr", "crlf", "utf16", "latin1"]))
    at = data.draw(st.integers(0, max(len(raw) - 1, 0)), label="offset")
    if kind == "flip" and raw:
        bit = data.draw(st.integers(0, 7))
        log.append(f"flip bit {bit} of byte {at}")
        return raw[:at] + bytes([raw[at] ^ (1 << bit)]) + raw[at + 1 :]
    if kind == "truncate":
        log.append(f"truncate at {at}")
        return raw[:at]
    if kind == "insert":
        blob = data.draw(
            st.one_of(
                st.binary(min_size=1, max_size=8),
                st.sampled_from([b"\x00", b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"\x1b[31m", b"\r", b"\x85"]),
            )
        )
        log.append(f"insert {blob!r} at {at}")
        return raw[:at] + blob + raw[at:]
    if kind == "delete":
        size = data.draw(st.integers(1, 64))
        log.append(f"delete {size} bytes at {at}")
        return raw[:at] + raw[at + size :]
    if kind == "bom":
        log.append("UTF-8 byte-order mark")
        return b"\xef\xbb\xbf" + raw
    if kind in ("cr", "crlf"):
        log.append(f"{kind} line ends")
        return raw.replace(b"\n", b"\r" if kind == "cr" else b"\r\n")
    if kind == "utf16":
        log.append("UTF-16")
        return raw.decode("utf-8", "replace").encode("utf-16")
    log.append("Latin-1 é")
    return raw.replace(b"hv1", "hv\xe9".encode("latin-1"), 1)


# --- cases ---------------------------------------------------------------------------------------------------


@dataclass
class Case:
    number: int
    origin: str
    mutations: list[str]
    raw: bytes


def _examples() -> dict[str, Any]:
    return {str(p.relative_to(ROOT)): yaml.safe_load(p.read_text()) for p in EXAMPLES}


_TREES = _examples()


def scenario_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """A mutated example scenario file: its origin, the mutations and its bytes."""
    origin = data.draw(st.sampled_from(sorted(_TREES)), label="example")
    tree = copy.deepcopy(_TREES[origin])
    log: list[str] = []
    for _ in range(data.draw(st.integers(0, 4), label="structure edits")):
        tree = mutate_tree(data, tree, log)
    return _yaml_case(data, tree, log, origin)


def _yaml_case(data: st.DataObject, tree: object, log: list[str], origin: str) -> tuple[str, list[str], bytes]:
    """A mutated tree written as YAML, then perhaps a YAML edit and byte edits: its origin, the mutations, its bytes."""
    text = dump(data, tree, log)
    if data.draw(st.integers(0, 3)) == 0:
        name, edit = data.draw(st.sampled_from(YAML_EDITS), label="yaml edit")
        log.append(name)
        text = edit(text, data.draw(st.integers(0, 1000)))
    raw = text.encode("utf-8", "surrogatepass")
    if data.draw(st.integers(0, 3)) == 0:
        raw = mutate_bytes(data, raw, log)
    return origin, log, raw


#: The scenario the flows target runs its traffic matrices on.
FLOWS_SCENARIO = ROOT / "python" / "hvnet" / "examples" / "failover.yaml"
FLOWS_NAMES = ["hv1", "hv2", "vm-big", "vm-1", "vm-2", "vm-5"]


def flows_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """A mutated traffic matrix (CSV) for the failover example."""
    rows = [["src", "dst", "bytes", "start_s"]] + [
        [a, b, "1e9", str(k)] for k, (a, b) in enumerate([("hv1", "hv2"), ("vm-big", "hv2"), ("hv2", "vm-1")])
    ]
    log: list[str] = []
    for _ in range(data.draw(st.integers(1, 4))):
        r = data.draw(st.integers(0, len(rows) - 1))
        kind = data.draw(st.sampled_from(["cell", "cell", "number", "number", "drop", "dup", "extra", "short", "grow"]))
        if kind == "number" and r > 0 and len(rows[r]) == 4:  # an extreme size or start on a row kept valid
            c = data.draw(st.sampled_from([2, 3]))
            value = data.draw(
                st.sampled_from([*NUMBER_TEXTS, "1e15", "1125899906842625", "31536000", "31536001", "1e300"])
            )
            log.append(f"row {r} col {c} := {value!r}")
            rows[r][c] = value
        elif kind in ("cell", "number"):
            c = data.draw(st.integers(0, max(len(rows[r]) - 1, 0)))
            value = data.draw(
                st.one_of(
                    st.sampled_from(NUMBER_TEXTS),
                    st.sampled_from(ODD_TEXTS),
                    st.sampled_from(FLOWS_NAMES),
                    quantities(),
                )
            )
            log.append(f"row {r} col {c} := {value!r:.40}")
            rows[r][c : c + 1] = [value]
        elif kind == "drop" and len(rows) > 1:
            log.append(f"drop row {r}")
            del rows[r]
        elif kind == "dup":
            log.append(f"duplicate row {r}")
            rows.insert(r, list(rows[r]))
        elif kind == "extra":
            log.append(f"extra cell on row {r}")
            rows[r].append("x")
        elif kind == "short":
            log.append(f"short row {r}")
            rows[r] = rows[r][:2]
        else:
            times = data.draw(st.sampled_from([10, 1000]))
            log.append(f"grow row {r} x{times}")
            rows.extend(list(rows[r]) for _ in range(times))
    quote = data.draw(st.booleans())
    text = "".join(",".join(f'"{c}"' if quote else c for c in row) + "\n" for row in rows)
    raw = text.encode("utf-8", "surrogatepass")
    if data.draw(st.integers(0, 3)) == 0:
        raw = mutate_bytes(data, raw, log)
    return "failover.yaml + matrix", log, raw


# --- the other entry points (issue 15, item 5) ------------------------------------------------------------------

#: The arguments of `hvnet ntttcp` the ntttcp target draws from (run on FLOWS_SCENARIO).
NTTTCP_NAMES = [*FLOWS_NAMES, "hv3", "vm-9", "HV1", "hv1/nic1", ""]
NTTTCP_DURATIONS = [
    "15s",
    "1s",
    "0s",
    "1ns",
    "8760h",
    "8761h",
    "1e308s",
    "nan s",
    "-1s",
    "60",
    "10min",
    "1e-300s",
    "1d",
]
NTTTCP_BUFFERS = ["128KiB", "1B", "0B", "1PiB", "2PiB", "64KB", "1e308B", "nanB", "-1KiB", "0.5B", "128k", "128KiB "]


def ntttcp_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """Random `hvnet ntttcp` arguments: sender, receiver, threads, duration and buffer."""
    names = st.sampled_from(NTTTCP_NAMES) if data.draw(st.integers(0, 3)) else st.sampled_from(ODD_TEXTS)
    if data.draw(st.booleans()):  # a pair that can talk (all VMs are on hv1), so that half the cases run
        sender, receiver = data.draw(
            st.sampled_from([("hv1", "hv2"), ("hv2", "hv1"), ("vm-big", "hv2"), ("hv2", "vm-1"), ("vm-5", "hv2")])
        )
    else:
        sender, receiver = data.draw(names, label="sender"), data.draw(names, label="receiver")
    args = {
        "sender": sender,
        "receiver": receiver,
        "threads": data.draw(
            st.integers(1, 64) if data.draw(st.integers(0, 7)) else st.sampled_from([0, -1, 65, 1000, 2**31]),
            label="threads",
        ),
        "time": data.draw(
            st.sampled_from(["15s", "60s", "1s"])
            if data.draw(st.integers(0, 3))
            else st.one_of(st.sampled_from(NTTTCP_DURATIONS), quantities()),
            label="time",
        ),
        "buffer": data.draw(
            st.sampled_from(["128KiB", "64KiB", "1MiB"])
            if data.draw(st.integers(0, 3))
            else st.one_of(st.sampled_from(NTTTCP_BUFFERS), quantities()),
            label="buffer",
        ),
    }
    return "failover.yaml + ntttcp arguments", [f"{k} = {v!r:.60}" for k, v in args.items()], json.dumps(args).encode()


#: Where a variants axis may point (valid for failover.yaml) and where it may not.
VARIANT_PATHS = [
    "hosts[*].nics[*].speed",
    "hosts[*].nics[nic1].speed",
    "hosts[hv2].nics[1].mtu",
    "hosts[*].teams[*].load_balancing",
    "events[1].target",
    "traffic[0].size",
    "traffic[*].connections",
    "vms[*].memory",
    "hosts[0].cpu.ghz",
    "name",
    "hosts[*]",
    "hosts",
    "",
    "[*]",
    "hosts[99].nics[0].speed",
    "hosts[*].nics[*].speed.x",
    "hosts[-1].memory",
    "hosts[*][*]",
    "hosts[hv1",
    "hosts[*].nics[\u200b].speed",
    "events[*].at",
    "traffic[*].start",
]


#: Axes that fit failover.yaml.
VALID_AXES = [
    ("speed", "hosts[*].nics[*].speed", ("10Gbps", "25Gbps")),
    ("mtu", "hosts[*].nics[*].mtu", (1500, 9000)),
    ("algorithm", "hosts[*].teams[*].load_balancing", ("hyperv_port", "dynamic", "address_hash")),
    ("size", "traffic[0].size", ("1GB", "1PiB", "1B")),
    ("start", "traffic[*].start", ("0s", "8760h")),
]


def variants_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """The failover example with a random, then mutated, `variants:` block."""
    tree = copy.deepcopy(_TREES[str(FLOWS_SCENARIO.relative_to(ROOT))])
    log: list[str] = []
    block: dict[str, Any] = {}
    for a in range(data.draw(st.integers(1, 4), label="axes")):
        if data.draw(st.booleans()):  # an axis that is valid, so that some files expand
            name, path, valid_values = data.draw(st.sampled_from(VALID_AXES))
            block[name] = {"set": path, "values": list(valid_values)}
            log.append(f"valid axis {name}")
            continue
        name = data.draw(
            st.one_of(st.sampled_from(["speed", "mtu", "algorithm", f"axis{a}"]), st.sampled_from(ODD_TEXTS))
        )
        values = data.draw(
            st.lists(
                st.one_of(st.sampled_from(BOUNDARY_QUANTITIES), quantities(), odd_values()), min_size=0, max_size=6
            )
        )
        if data.draw(st.integers(0, 5)) == 0:
            values = values * data.draw(st.sampled_from([10, 100, 1000]))
        block[str(name)] = {"set": data.draw(st.sampled_from(VARIANT_PATHS)), "values": values}
        log.append(f"axis {name!r:.30}: set {block[str(name)]['set']!r}, {len(values)} values")
    tree["variants"] = block
    for _ in range(data.draw(st.integers(0, 2), label="structure edits")):
        tree["variants"] = mutate_tree(data, tree["variants"], log)
    text = dump(data, tree, log)
    raw = text.encode("utf-8", "surrogatepass")
    if data.draw(st.integers(0, 4)) == 0:
        raw = mutate_bytes(data, raw, log)
    return "failover.yaml + variants", log, raw


#: The measurement files the measurement target mutates: the importers' samples and the shared formats.
MEASUREMENT_SAMPLES = sorted(
    p
    for folder in (ROOT / "tests" / "importers" / "samples", Path("/work/shared/data/formats"))
    if folder.is_dir()
    for p in folder.iterdir()
    if p.is_file() and "SOURCE" not in p.name and not p.name.startswith("README")
)
#: The configuration dumps the config target mutates.
CONFIG_FIXTURES = sorted((ROOT / "tests" / "importers" / "config" / "fixtures").glob("*.json"))


def _text_lines(data: st.DataObject, text: str, log: list[str]) -> str:
    """Line and number edits of a text file: numbers replaced by extreme ones, lines dropped or repeated."""
    lines = text.splitlines(keepends=True)
    for _ in range(data.draw(st.integers(1, 4))):
        if not lines:
            break
        i = data.draw(st.integers(0, len(lines) - 1))
        kind = data.draw(st.sampled_from(["number", "number", "number", "drop", "dup", "odd", "grow", "cut"]))
        if kind == "number":
            numbers = list(re.finditer(r"-?\d+(\.\d+)?", lines[i]))
            if numbers:
                m = data.draw(st.sampled_from(numbers))
                value = data.draw(st.sampled_from(NUMBER_TEXTS))
                log.append(f"line {i + 1}: {m.group()!r} -> {value!r}")
                lines[i] = lines[i][: m.start()] + value + lines[i][m.end() :]
        elif kind == "drop":
            log.append(f"drop line {i + 1}")
            del lines[i]
        elif kind == "dup":
            log.append(f"duplicate line {i + 1}")
            lines.insert(i, lines[i])
        elif kind == "odd":
            value = data.draw(st.sampled_from(ODD_TEXTS))
            at = data.draw(st.integers(0, len(lines[i])))
            log.append(f"line {i + 1}: insert {value!r:.30} at {at}")
            lines[i] = lines[i][:at] + value + lines[i][at:]
        elif kind == "cut":
            log.append(f"cut after line {i + 1}")
            lines = lines[: i + 1]
        else:
            times = data.draw(st.sampled_from([10, 1000, 20000]))
            log.append(f"grow line {i + 1} x{times}")
            lines[i : i + 1] = [lines[i]] * times
    return "".join(lines)


def measurement_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """A mutated measurement file (NTttcp, iperf3, counters, ip -j, sar...)."""
    origin = data.draw(st.sampled_from(MEASUREMENT_SAMPLES), label="sample")
    log: list[str] = []
    text = origin.read_text(errors="surrogateescape")
    if origin.suffix == ".json" and data.draw(st.booleans()):
        try:
            tree = json.loads(text)
            for _ in range(data.draw(st.integers(1, 3))):
                tree = mutate_tree(data, tree, log)
            text = json.dumps(tree, default=str)
        except ValueError:
            pass
    else:
        text = _text_lines(data, text, log)
    raw = text.encode("utf-8", "surrogateescape")
    if data.draw(st.integers(0, 3)) == 0:
        raw = mutate_bytes(data, raw, log)
    return str(origin), log, raw


def config_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """A mutated configuration dump (collect.ps1's JSON)."""
    origin = data.draw(st.sampled_from(CONFIG_FIXTURES), label="fixture")
    log: list[str] = []
    tree = json.loads(origin.read_text())
    for _ in range(data.draw(st.integers(1, 4), label="structure edits")):
        tree = mutate_tree(data, tree, log)
    text = json.dumps(tree, default=str, allow_nan=True)
    raw = text.encode("utf-8", "surrogatepass")
    if data.draw(st.integers(0, 3)) == 0:
        raw = mutate_bytes(data, raw, log)
    return str(origin.relative_to(ROOT)), log, raw


#: The price list the prices target mutates: hvnet's default one (`hvnet cost --prices`).
PRICES = ROOT / "python" / "hvnet" / "cost" / "prices.yaml"
#: The scenario `prices` and `candidates` cases are priced or rebuilt on: it has switches, teams and requirements.
DESIGN_SCENARIO = ROOT / "python" / "hvnet" / "examples" / "rolling-update.yaml"
#: A candidate file using every field and form (`hvnet design --candidates`, docs/advise.md).
CANDIDATES_SEED = {
    "candidates": [
        {"nics": 2, "speed": "1Gbps"},
        {"nics": 2, "speed": "10Gbps", "team": ["lbfo", "set"], "migration": ["compression", "smb"]},
        {"name": "RDMA pair", "nics": 2, "speed": "25Gbps", "rdma": True, "team": "set", "migration": "smb_direct"},
        {"nics": 4, "speed": "10Gbps", "team": "lbfo", "migration": "tcp_ip"},
    ]
}


def prices_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """hvnet's default price list, mutated (structure, YAML and byte edits)."""
    log: list[str] = []
    tree = yaml.safe_load(PRICES.read_text())
    for _ in range(data.draw(st.integers(0, 4), label="structure edits")):
        tree = mutate_tree(data, tree, log)
    return _yaml_case(data, tree, log, str(PRICES.relative_to(ROOT)))


def candidates_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """A candidate file using every field, mutated (structure, YAML and byte edits)."""
    log: list[str] = []
    tree: object = copy.deepcopy(CANDIDATES_SEED)
    for _ in range(data.draw(st.integers(0, 4), label="structure edits")):
        tree = mutate_tree(data, tree, log)
    return _yaml_case(data, tree, log, "candidates (docs/advise.md)")


def case_file(target: str, origin: str) -> str:
    """The name a case's file has (a measurement keeps its sample's extension)."""
    if target == "measurement":
        return "case" + (Path(origin).suffix or ".txt")
    return CASE_FILE[target]


class Refused(Exception):
    """What an entry point printed as its refusal (exit code 2)."""


def _strict(document: object) -> None:
    json.dumps(document, allow_nan=False, default=str)


def _entry_ntttcp() -> object:
    import hvnet
    from hvnet.ntttcp import run_ntttcp
    from hvnet.units import parse_bytes, parse_duration, parse_option

    args = json.loads(Path("case.json").read_text())
    scenario = hvnet.load("scenario.yaml")
    time_s, buffer = (
        parse_option("--time", args["time"], parse_duration),
        parse_option("--buffer", args["buffer"], parse_bytes),
    )
    result = run_ntttcp(scenario, args["sender"], args["receiver"], args["threads"], time_s, buffer)
    return {
        "total_mb_per_s": result.total_mb_per_s,
        "cpu_percent": result.cpu_percent,
        "seconds": result.seconds,
    }


def _entry_variants() -> object:
    from hvnet.variants import load_variants

    variants = load_variants("case.yaml")
    names = []
    for k, variant in enumerate(variants):
        if k >= 20:
            break
        names.append(variants.scenario(variant).name)
    return {"variants": len(variants), "names": names}


def _entry_measurement() -> object:
    from hvnet.importers import read_measurement

    name = next(p.name for p in Path(".").iterdir() if p.name.startswith("case."))
    return [m.model_dump(mode="json") for m in read_measurement(Path(name))]


def _entry_config() -> object:
    import hvnet
    from hvnet.importers.config import import_config

    imported = import_config([Path("case.json")])
    if not imported.problems:  # "empty when the scenario loads": then it must
        try:
            hvnet.parse_scenario(imported.yaml, "imported.yaml")
        except hvnet.HvnetError as error:
            raise AssertionError(f"the import says it loads, and it does not: {error}") from None
    return {"yaml": imported.yaml, "assumptions": imported.assumptions, "problems": imported.problems}


def _entry_prices() -> object:
    import hvnet
    from hvnet.cost import design_cost, load_prices
    from hvnet.cost.render import bill_document

    return bill_document(design_cost(hvnet.load("scenario.yaml"), load_prices("case.yaml")))


def _entry_candidates() -> object:
    import hvnet
    from hvnet.candidates import load_candidates
    from hvnet.candidates.build import apply

    base = hvnet.load("scenario.yaml")
    built = {}
    for k, candidate in enumerate(load_candidates("case.yaml")):
        if k >= 20:
            break
        scenario = apply(base, candidate)  # a scenario, or the loader's one-line reason
        if isinstance(scenario, str) and ("\n" in scenario or not scenario.strip()):
            raise AssertionError(f"a refused candidate's reason is not one line: {scenario!r}")
        built[candidate.name] = scenario if isinstance(scenario, str) else scenario.name
    return built


#: What each Python entry point's case makes of the files in the working directory: out.json's document.
ENTRIES: dict[str, Callable[[], object]] = {
    "ntttcp": _entry_ntttcp,
    "variants": _entry_variants,
    "measurement": _entry_measurement,
    "config": _entry_config,
    "prices": _entry_prices,
    "candidates": _entry_candidates,
}


def entry(target: str) -> int:
    """Runs one case of a Python entry point in the working directory (the case's files there):
    0 and out.json for a result, 2 and the refusal on standard error. Anything else escapes."""
    import hvnet

    try:
        if target not in ENTRIES:
            raise ValueError(f"no Python entry for {target}")
        document = ENTRIES[target]()
    except hvnet.HvnetError as error:
        print(str(error), file=sys.stderr)
        return 2
    Path("out.json").write_text(json.dumps(document, default=str))
    return 0


DRAWERS: dict[str, Callable[[st.DataObject], tuple[str, list[str], bytes]]] = {
    "scenario": scenario_case,
    "flows": flows_case,
    "ntttcp": ntttcp_case,
    "variants": variants_case,
    "measurement": measurement_case,
    "config": config_case,
    "prices": prices_case,
    "candidates": candidates_case,
}


def generate(target: str, count: int, seed: int) -> list[Case]:
    """`count` cases drawn by hypothesis from `seed` (the same seed, the same cases)."""
    drawn: list[Case] = []
    round_ = 0
    while len(drawn) < count:

        @hypothesis_seed(seed * 1000 + round_)
        @settings(
            max_examples=count - len(drawn),
            database=None,
            phases=[Phase.generate],
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(st.data())
        def draw(data: st.DataObject) -> None:
            origin, log, raw = DRAWERS[target](data)
            drawn.append(Case(len(drawn), origin, log, raw))

        draw()
        round_ += 1
    return drawn[:count]


# --- running a case -----------------------------------------------------------------------------------------


@dataclass
class Outcome:
    case: Case
    kind: str = ""
    exit: int | None = None
    signal: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    max_rss_kb: int = 0
    stdout: str = ""
    stderr: str = ""
    why: str = ""
    extra: dict[str, str] = field(default_factory=dict)


def command(target: str, workdir: Path) -> list[str]:
    """The CLI's arguments for the case, or `["--entry", target]` for a Python entry point."""
    if target == "flows":
        shutil.copy(FLOWS_SCENARIO, workdir / "scenario.yaml")
        return ["flows", "scenario.yaml", "case.csv", "--json", "out.json"]
    if target == "scenario":
        return ["simulate", "case.yaml", "--json", "out.json"]
    if target == "ntttcp":
        shutil.copy(FLOWS_SCENARIO, workdir / "scenario.yaml")
    if target in ("prices", "candidates"):
        shutil.copy(DESIGN_SCENARIO, workdir / "scenario.yaml")
    return ["--entry", target]


def _own_kb(field: str) -> int:
    """This process's `VmSize` or `VmRSS` in KiB (/proc/self/status): what a forked child starts with."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    return 0


def _limit(memory: int, seconds: float) -> None:
    """The case's limits: `memory` bytes of address space beyond what the process has when it starts the case
    (a forked child inherits the fuzzer's, all the drawn cases included), and `seconds` of CPU."""
    memory += _own_kb("VmSize") * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    cpu = int(seconds) + 5
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))


def _child(args: list[str], workdir: Path, memory: int, seconds: float) -> None:
    """In a forked child: run the CLI on the case with standard output and error to files; never returns."""
    code = 1
    try:
        os.chdir(workdir)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(handle, fd)
            os.close(handle)
        _limit(memory, seconds)
        from hvnet.cli import app

        try:
            if args[0] == "--entry":
                code = entry(args[1])
            else:
                app(args, prog_name="hvnet")
                code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        except BaseException:  # what `python -m hvnet` would print
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


class Runner:
    """Starts cases in children, up to `jobs` at a time, and reaps them within their time limit."""

    def __init__(self, target: str, seconds: float, memory: int, jobs: int, execute: bool, root: Path) -> None:
        self.target, self.seconds, self.memory, self.jobs, self.execute = target, seconds, memory, jobs, execute
        self.root = root
        self.inherited_kb = 0

    def start(self, case: Case) -> tuple[int, int, float, Path, subprocess.Popen[bytes] | None]:
        workdir = self.root / f"{case.number:05d}"
        workdir.mkdir()
        (workdir / case_file(self.target, case.origin)).write_bytes(case.raw)
        args = command(self.target, workdir)
        env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
        if self.execute:
            program = (
                [str(Path(__file__).resolve()), "--entry", args[1]] if args[0] == "--entry" else ["-m", "hvnet", *args]
            )
            with open(workdir / "stdout", "wb") as out, open(workdir / "stderr", "wb") as err:
                proc = subprocess.Popen(
                    [sys.executable, *program],
                    cwd=workdir,
                    stdout=out,
                    stderr=err,
                    env=env,
                    # the limits must be set in the child before it runs; the fuzzer starts no threads (it forks too)
                    preexec_fn=lambda: _limit(self.memory, self.seconds),  # noqa: PLW1509
                )
            return proc.pid, os.pidfd_open(proc.pid), time.monotonic(), workdir, proc
        sys.stdout.flush()
        sys.stderr.flush()
        self.inherited_kb = _own_kb("VmRSS")  # the child's resident memory from the start: not the case's
        pid = os.fork()
        if pid == 0:
            _child(args, workdir, self.memory, self.seconds)
        return pid, os.pidfd_open(pid), time.monotonic(), workdir, None

    def run(self, cases: list[Case], done: Callable[[Outcome, Path], None]) -> None:
        pending = list(reversed(cases))
        running: dict[int, tuple[Case, int, float, Path, subprocess.Popen[bytes] | None]] = {}
        while pending or running:
            while pending and len(running) < self.jobs:
                case = pending.pop()
                pid, fd, began, workdir, proc = self.start(case)
                running[fd] = (case, pid, began, workdir, proc)
            now = time.monotonic()
            wait = max(0.0, min(began + self.seconds for (_, _, began, _, _) in running.values()) - now)
            ready, _, _ = select.select(list(running), [], [], wait)
            now = time.monotonic()
            for fd in list(running):
                case, pid, began, workdir, proc = running[fd]
                late = now - began >= self.seconds
                if fd not in ready and not late:
                    continue
                if fd not in ready:
                    os.kill(pid, signal.SIGKILL)
                _, status, usage = os.wait4(pid, 0)
                os.close(fd)
                del running[fd]
                own_kb = max(0, usage.ru_maxrss - (0 if proc is not None else self.inherited_kb))
                outcome = Outcome(case, timed_out=fd not in ready, seconds=now - began, max_rss_kb=own_kb)
                if os.WIFSIGNALED(status):
                    outcome.signal = os.WTERMSIG(status)
                else:
                    outcome.exit = os.WEXITSTATUS(status)
                outcome.stdout = (workdir / "stdout").read_text(errors="replace")
                outcome.stderr = (workdir / "stderr").read_text(errors="replace")
                done(outcome, workdir)


# --- classes ----------------------------------------------------------------------------------------------------

LINK_BPS = (1e6, 1.6e12)
HORIZON_S = 8760 * 3600.0
LARGEST_BYTES = 2**50


def nonsense(scenario_path: Path) -> str:
    """What the loaded scenario holds outside a documented bound ("" when nothing)."""
    import hvnet

    scenario = hvnet.load(scenario_path)
    found: list[str] = []

    def check(what: str, value: float | None, low: float, high: float, low_open: bool = False) -> None:
        if value is None:
            return
        if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
            found.append(f"{what} = {value!r}")

    for host in scenario.hosts:
        check(f"{host.name}.cpu.ghz", host.cpu.ghz, 0, 10, low_open=True)
        check(f"{host.name}.memory", host.memory, 0, LARGEST_BYTES, low_open=True)
        check(
            f"{host.name}.smb_bandwidth_limit", host.live_migration.smb_bandwidth_limit, 0, LINK_BPS[1], low_open=True
        )
        for nic in host.nics:
            check(f"{host.name}/{nic.name}.speed", nic.speed, *LINK_BPS)
    for switch in scenario.switches:
        check(f"{switch.name}.port_speed", switch.port_speed, *LINK_BPS)
    for cable in scenario.cables:
        check(f"cable {cable.a}.speed", cable.speed, 0, LINK_BPS[1], low_open=True)
    for vm in scenario.vms:
        check(f"{vm.name}.memory", vm.memory, 0, LARGEST_BYTES, low_open=True)
        check(f"{vm.name}.populated", vm.populated, 0, vm.memory)
        check(f"{vm.name}.working_set", vm.working_set, 0, vm.memory)
        check(f"{vm.name}.dirty_rate", vm.dirty_rate, 0, LINK_BPS[1])
        check(f"{vm.name}.cpu_load", vm.cpu_load, 0, 1)
    for index, flow in enumerate(scenario.traffic):
        check(f"traffic[{index}].size", flow.size, 0, LARGEST_BYTES, low_open=True)
        check(f"traffic[{index}].start", flow.start, 0, HORIZON_S)
    for index, event in enumerate(scenario.events):
        check(f"events[{index}].at", event.at, 0, HORIZON_S)
        check(f"events[{index}].patch_time", event.patch_time, 0, HORIZON_S)
    found.extend(odd_names(scenario))
    return "; ".join(found)


def odd_names(scenario: Scenario) -> list[str]:
    """The hosts' and VMs' names that hold a NUL or nothing but blanks."""
    found = []
    for kind, names in (("host", [h.name for h in scenario.hosts]), ("VM", [v.name for v in scenario.vms])):
        for name in names:
            if "\x00" in name or not name.strip():
                found.append(f"{kind} name {name!r}")
    return found


def _strict_json(path: Path) -> str:
    """ "" when `path` is JSON without NaN or infinity, else what is wrong."""

    def refuse(constant: str) -> object:
        raise ValueError(f"the JSON holds {constant}")

    try:
        json.loads(path.read_text(), parse_constant=refuse)
    except (OSError, ValueError) as error:
        return str(error)
    return ""


OUT_OF_MEMORY = r"MemoryError|memory allocation of \d+ bytes failed|Cannot allocate memory|std::bad_alloc"


#: What a clear `hvnet ntttcp` refusal starts with: a file, the arguments (`<ntttcp>: receiver: ...`) or the
#: option whose value is wrong (`--buffer: '10x' is not a size; ...`).
NTTTCP_NAMED = ("case.", "scenario.yaml", "<ntttcp>", "--time: ", "--buffer: ")


def classify(outcome: Outcome, workdir: Path, target: str, memory: int) -> None:
    err = outcome.stderr
    memory_line = next((line for line in err.splitlines() if re.search(OUT_OF_MEMORY, line)), "")
    if memory_line or outcome.max_rss_kb * 1024 > memory * 0.9:  # (a case killed at its limit may be short of memory)
        outcome.kind, outcome.why = "oom", memory_line or f"{outcome.max_rss_kb // 1024} MiB resident"
    elif outcome.timed_out:
        outcome.kind, outcome.why = "hang", "past the time limit"
    elif outcome.signal is not None:
        outcome.kind, outcome.why = "crash", f"killed by signal {signal.Signals(outcome.signal).name}"
    elif "Traceback" in err or "PanicException" in err or "panicked" in err or "the core failed" in err:
        outcome.kind = "crash"
        last = [line for line in err.splitlines() if line.strip()]
        outcome.why = last[-1] if last else "traceback"
    elif outcome.exit == 2:
        lines = err.splitlines()
        named = NTTTCP_NAMED if target == "ntttcp" else ("case.", "scenario.yaml")
        bad = [line for line in lines if not CLEAN_LINE.match(line) or not line.startswith(named)]
        if not lines or bad:
            outcome.kind, outcome.why = "unclear", (bad[0] if bad else "exit 2 with nothing on standard error")
        else:
            outcome.kind = "refusal"
    elif outcome.exit == 0:
        why = ""
        if target == "scenario":
            try:
                why = nonsense(workdir / "case.yaml")
            except Exception as error:
                why = f"loaded in the child, not here: {type(error).__name__}: {str(error)[:200]}"
        why = why or _strict_json(workdir / "out.json")
        outcome.kind, outcome.why = ("nonsense", why) if why else ("result", "")
    else:
        outcome.kind, outcome.why = "crash", f"exit code {outcome.exit}"


def save(outcome: Outcome, out: Path, target: str, number: int) -> Path:
    folder = out / outcome.kind
    folder.mkdir(parents=True, exist_ok=True)
    suffix = Path(case_file(target, outcome.case.origin)).suffix
    case = folder / f"{number:03d}{suffix}"
    case.write_bytes(outcome.case.raw)
    how = {
        "flows": "hvnet flows " + str(FLOWS_SCENARIO.relative_to(ROOT)) + f" {case.name}",
        "scenario": f"hvnet simulate {case.name} --json -",
        "ntttcp": f"hvnet ntttcp {FLOWS_SCENARIO.relative_to(ROOT)} with the arguments in {case.name}",
        "variants": f"hvnet compare {case.name} (hvnet.variants.load_variants)",
        "measurement": f"hvnet import measurement {case.name} (hvnet.importers.read_measurement)",
        "config": f"hvnet import config {case.name} (hvnet.importers.config.import_config)",
        "prices": f"hvnet cost {DESIGN_SCENARIO.relative_to(ROOT)} --prices {case.name}",
        "candidates": (
            f"hvnet design {DESIGN_SCENARIO.relative_to(ROOT)} --candidates {case.name}"
            " (load and build each, no simulation)"
        ),
    }[target]
    report = [
        f"class: {outcome.kind}",
        f"why: {outcome.why}",
        f"reproduce: {how}",
        f"case: {outcome.case.number} from {outcome.case.origin}",
        "mutations:",
        *(f"  - {m}" for m in outcome.case.mutations),
        (
            f"exit: {outcome.exit}  signal: {outcome.signal}  seconds: {outcome.seconds:.2f}"
            f"  max RSS: {outcome.max_rss_kb} KiB"
        ),
        "--- standard error",
        outcome.stderr[-20_000:],
        "--- standard output (end)",
        outcome.stdout[-2_000:],
    ]
    (folder / f"{number:03d}.out.txt").write_text("\n".join(report))
    return case


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", choices=list(TARGETS), default="scenario")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds a case may take (default 20)")
    parser.add_argument("--memory", type=float, default=2.0, help="GiB of address space a case may use (default 2)")
    parser.add_argument("--jobs", type=int, default=1, help="cases run at once (default 1)")
    parser.add_argument(
        "--exec", dest="execute", action="store_true", help="run `python -m hvnet` per case, not a fork"
    )
    parser.add_argument("--out", type=Path, default=OUT, help="where failing cases go (default bench/out/fuzz)")
    parser.add_argument("--json", type=Path, help="write the counts and times as JSON here")
    parser.add_argument(
        "--entry", choices=list(TARGETS), help=argparse.SUPPRESS
    )  # one case, in this directory (--exec)
    args = parser.parse_args(argv)
    if args.entry:
        return entry(args.entry)
    memory = int(args.memory * 2**30)

    began = time.monotonic()
    cases = generate(args.target, args.cases, args.seed)
    generated = time.monotonic() - began
    # what the children use, imported once here so that each fork starts warm
    import ruamel.yaml  # noqa: F401

    import hvnet.cli
    import hvnet.flows
    import hvnet.importers
    import hvnet.importers.config
    import hvnet.ntttcp
    import hvnet.report
    import hvnet.variants  # noqa: F401

    if args.out.exists():
        for kind in CLASSES:
            shutil.rmtree(args.out / kind, ignore_errors=True)
    counts: Counter[str] = Counter()
    saved: dict[str, int] = Counter()
    slowest = [0.0]

    def done(outcome: Outcome, workdir: Path) -> None:
        classify(outcome, workdir, args.target, memory)
        counts[outcome.kind] += 1
        slowest[0] = max(slowest[0], outcome.seconds)
        if outcome.kind in FAILURES:
            path = save(outcome, args.out, args.target, saved[outcome.kind])
            saved[outcome.kind] += 1
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            print(f"{outcome.kind:8} {shown}: {outcome.why[:150]}", flush=True)
        shutil.rmtree(workdir, ignore_errors=True)
        total = sum(counts.values())
        if total % 250 == 0:
            print(f"... {total} cases, {time.monotonic() - began:.0f} s", flush=True)

    with tempfile.TemporaryDirectory(prefix="hvnet-fuzz-") as scratch:
        Runner(args.target, args.timeout, memory, args.jobs, args.execute, Path(scratch)).run(cases, done)
    elapsed = time.monotonic() - began
    print(
        f"\n{args.target}: {len(cases)} cases, seed {args.seed}, {elapsed:.0f} s ({generated:.1f} s drawing them),"
        f" slowest case {slowest[0]:.1f} s"
    )
    for kind in CLASSES:
        print(f"  {kind:9} {counts[kind]:6}")
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {
                    "target": args.target,
                    "cases": len(cases),
                    "seed": args.seed,
                    "seconds": round(elapsed, 1),
                    "counts": {k: counts[k] for k in CLASSES},
                },
                indent=2,
            )
            + "\n"
        )
    return 1 if any(counts[k] for k in FAILURES) else 0


if __name__ == "__main__":
    sys.exit(main())
