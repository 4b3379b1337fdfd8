"""The mutations the fuzzer draws: structure-level (a field dropped, duplicated, renamed, retyped, copied,
shared, grown, merged, or given an odd or boundary value), YAML-level (how a tree is written, and edits that use
tags, documents, directives, aliases and nesting) and byte-level (bit flips, truncations, encodings, line ends)."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from typing import Any

import yaml
from hypothesis import strategies as st

from .values import BOUNDARY_QUANTITIES, ODD_TEXTS, QUANTITY, odd_values

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
