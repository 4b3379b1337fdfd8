"""YAML text as a tree of dicts and lists that knows the line of every key, value and item.

libyaml (PyYAML's C parser) reads the text into events; this module builds
the tree from them by recursive descent (each mapping and list reads its own
entries up to its end), resolving plain scalars by YAML 1.2's core schema as
ruamel.yaml resolves them (``yes`` is text, ``010`` is ten, ``~`` is null),
so a file means the same thing it always did. A plain scalar without tag or
anchor, nearly every one, is read inline and looked up in the file's scalars,
each resolved once; each place is kept as one int until a line is asked for.
Building the tree costs about what libyaml's events cost (PyYAML's C
composer, which resolves each scalar in Python and builds a node for it,
measured slower than both together). It is some fifty times faster than
ruamel's round-trip loader, which is pure Python: a 10,000-VM scenario reads
in a seventh of a second.

Each mapping and list of the tree carries ``lc``, with the 0-based line and
column of each key (``lc.key(k)``), value (``lc.value(k)``) and item
(``lc.item(i)``), and of itself (``lc.line``) — the interface of ruamel's
round-trip tree, which the loader and ``hvnet.variants`` walk to name lines.

What it does not build it refuses with ``YamlTreeError``, and the loader
asks ruamel for its message instead (a syntax error, a duplicate key, a
date that is no date): errors are rare, and their wording stays the one
users know.

An alias is the anchored object itself, not a copy, as in ruamel's tree;
merge keys (``<<: *defaults``) add the keys a mapping does not have.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Callable
from typing import Any

import yaml

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_VALUES",
    "Lines",
    "LocatedList",
    "LocatedMap",
    "YamlRefused",
    "YamlTreeError",
    "key_line",
    "parse_tree",
    "start_line",
    "value_line",
]

#: YAML 1.2's core schema for plain scalars (yaml.org/spec/1.2.2, 10.3.2), as ruamel.yaml
#: reads it: underscores between digits, 0b/0o/0x integers, and dates as timestamps.
_NULL = re.compile(r"~|null|Null|NULL|")
_BOOL = re.compile(r"true|True|TRUE|false|False|FALSE")
_INT = re.compile(r"[-+]?0b[01_]+|[-+]?0o?[0-7_]+|[-+]?[0-9_]+|[-+]?0x[0-9a-fA-F_]+")
_FLOAT = re.compile(
    r"[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
    r"|[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)"
    r"|\.(?:nan|NaN|NAN)"
)
_NUMBER_START = "-+0123456789"
#: The first characters of a null, a boolean, a number or a date: a plain scalar that starts otherwise is text.
_NOT_TEXT_START = "~nNtTfF." + _NUMBER_START
_TIMESTAMP = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?"
)


class YamlTreeError(ValueError):
    """Something this reader does not build; ruamel's loader gives the message."""


class YamlRefused(ValueError):
    """YAML that is valid but refused in a scenario file, with the 1-based line and column it is at."""

    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line, self.column, self.message = line, column, message


#: Limits of a scenario file, each far above what a 64-host, 10,000-VM cluster needs
#: (docs/scenario.md, "Safe YAML"): past them a file is a mistake or an attack.
MAX_FILE_BYTES = 64 * 2**20
MAX_DEPTH = 64
#: Values the tree holds once every alias is counted as what it stands for
#: (a "billion laughs" file is a few lines that stand for billions).
MAX_VALUES = 5_000_000
#: Control characters other than tab, line feed and carriage return.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f]")


#: A place in the text kept as one int, its line shifted above its column (`_place`; a column is below
#: 2**32, as a file holds at most MAX_FILE_BYTES characters): an int refers to nothing, so the collector
#: never scans the hundreds of thousands of places a large file has.
_LINE_SHIFT = 32
_COLUMN_MASK = (1 << _LINE_SHIFT) - 1


def _place(packed: int) -> tuple[int, int]:
    """The line and column of a place kept as one int."""
    return packed >> _LINE_SHIFT, packed & _COLUMN_MASK


class Lines:
    """Where a mapping or list and its parts are in the text (0-based line, column)."""

    __slots__ = ("_keys", "_values", "col", "line", "merged")

    def __init__(self, line: int, col: int) -> None:
        self.line, self.col = line, col
        #: Keys merged in (`<<`), which a key of the mapping's own may replace (None: none, as in most).
        self.merged: set[Any] | None = None
        #: Each key's and value's (or item's) place, as one int (`_place`).
        self._keys: dict[Any, int] = {}
        self._values: dict[Any, int] = {}

    def key(self, key: Any) -> tuple[int, int]:
        """Line and column of a mapping's key; KeyError for a key merged in (`<<`)."""
        return _place(self._keys[key])

    def value(self, key: Any) -> tuple[int, int]:
        """Line and column of a mapping's value; KeyError for a key merged in (`<<`)."""
        return _place(self._values[key])

    def item(self, index: int) -> tuple[int, int]:
        """Line and column of a list's item."""
        return _place(self._values[index])


class LocatedMap(dict[Any, Any]):
    """A YAML mapping with the lines of its keys and values."""

    __slots__ = ("lc",)
    lc: Lines


class LocatedList(list[Any]):
    """A YAML sequence with the lines of its items."""

    __slots__ = ("lc",)
    lc: Lines


def _scalar(event: yaml.ScalarEvent) -> Any:
    """A scalar's value: text when quoted or tagged as text, else by YAML 1.2's core rules."""
    plain, quoted = event.implicit
    if event.tag not in (None, "!") and not plain and not quoted:
        raise _tag_refused(event)
    if not plain or event.style not in ("", None):  # quoted, literal or folded: text
        return event.value
    return _plain(event.value)


@functools.lru_cache(maxsize=1 << 16)
def _plain(value: str) -> Any:
    """A plain scalar's value (cached: a file repeats its names and sizes; every result is immutable)."""
    if value[:1] not in _NOT_TEXT_START:  # ("" is in every string: the empty scalar, null, goes on)
        return value
    if _NULL.fullmatch(value):
        return None
    if _BOOL.fullmatch(value):
        return value.lower() == "true"
    if value[:1] in _NUMBER_START and _INT.fullmatch(value):  # (a number starts with a sign or digit)
        return _int(value)
    if value[:1] in _NUMBER_START + "." and _FLOAT.fullmatch(value):
        return _float(value)
    if _TIMESTAMP.fullmatch(value):
        return _timestamp(value)
    return value


def _int(text: str) -> int:
    digits = text.replace("_", "")
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    for prefix, base in (("0b", 2), ("0o", 8), ("0x", 16)):
        if digits.lower().startswith(prefix):
            return sign * int(digits[2:], base)
    return sign * int(digits, 10)


def _float(text: str) -> float:
    lowered = text.replace("_", "").lower()
    if lowered.endswith(".inf"):
        return float("-inf") if lowered.startswith("-") else float("inf")
    if lowered == ".nan":
        return float("nan")
    return float(lowered)


def _timestamp(text: str) -> datetime.date | datetime.datetime:
    try:
        if len(text) == 10:
            return datetime.date.fromisoformat(text)
        return datetime.datetime.fromisoformat(text.replace("t", "T").replace(" ", "T", 1).rstrip("Zz"))
    except ValueError:
        raise YamlTreeError(f"not a date: {text}") from None


class _Known(dict[str, Any]):
    """The plain scalars of one file read so far, and what each means: looked up, not resolved again."""

    def __missing__(self, text: str) -> Any:
        value = self[text] = _plain(text)
        return value


#: The events that start a value: a scalar, an alias, a mapping or a list.
_NODE_EVENTS = (yaml.ScalarEvent, yaml.AliasEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)


class _Reader:
    """Reads libyaml's events into a located tree by recursive descent: a mapping or list reads its
    own entries up to its end, so each key, value and item is stored with its place at once.

    A plain scalar without tag or anchor (nearly every one) is read inline and looked up in the
    file's scalars (`_Known`); anything else goes through `node`."""

    __slots__ = ("anchors", "get_event", "known", "weights")

    def __init__(self, parser: yaml.CSafeLoader) -> None:
        self.get_event: Callable[[], Any] = parser.get_event
        self.anchors: dict[str, Any] = {}
        #: How many values each anchored mapping or list stands for, aliases counted in full.
        self.weights: dict[int, int] = {}
        self.known = _Known()

    def stream(self) -> Any:
        """The value of the stream's one document (None for none); refused at a second document."""
        root, documents = None, 0
        while (event := self.get_event()) is not None:
            if isinstance(event, yaml.DocumentStartEvent):
                documents += 1
                if documents > 1:
                    raise YamlTreeError("more than one document")
            elif isinstance(event, _NODE_EVENTS):
                root = self.node(event, 0)[0]
        return root

    def node(self, event: Any, depth: int) -> tuple[Any, int]:
        """The value that `event` starts, read to its end, and how many values it stands for (aliases
        in full); `depth`: the mappings and lists it is in."""
        kind = event.__class__
        if kind is yaml.ScalarEvent:
            value = _scalar(event)
            if event.anchor is not None:
                self.anchors[event.anchor] = value
            return value, 1
        if kind is yaml.AliasEvent:
            if event.anchor not in self.anchors:
                raise YamlTreeError(f"unknown alias {event.anchor}")
            value = self.anchors[event.anchor]
            return value, self.weights.get(id(value), 1)
        if event.tag not in (None, "!") and not event.implicit:
            raise _tag_refused(event)
        start = event.start_mark
        if depth >= MAX_DEPTH:
            raise YamlRefused(start.line + 1, start.column + 1, f"nested more than {MAX_DEPTH} levels deep")
        container: LocatedMap | LocatedList = LocatedMap() if kind is yaml.MappingStartEvent else LocatedList()
        container.lc = lines = Lines(start.line, start.column)
        if event.anchor is not None:
            self.anchors[event.anchor] = container
        if isinstance(container, LocatedMap):
            weight = 1 + self.mapping(container, lines, depth + 1)
        else:
            weight = 1 + self.sequence(container, lines, depth + 1)
        if weight > MAX_VALUES:
            raise YamlRefused(
                start.line + 1,
                start.column + 1,
                f"this part stands for more than {MAX_VALUES:,} values once its aliases are expanded; "
                "write it out, or use fewer aliases of aliases",
            )
        if event.anchor is not None:
            self.weights[id(container)] = weight
        return container, weight

    def mapping(self, mapping: LocatedMap, lines: Lines, depth: int) -> int:
        """Reads a mapping's entries up to its end; how many values they stand for."""
        get, known, keys, places = self.get_event, self.known, lines._keys, lines._values
        scalar, end = yaml.ScalarEvent, yaml.MappingEndEvent
        count = 0
        while (event := get()).__class__ is not end:
            mark = event.start_mark
            key_place = mark.line << _LINE_SHIFT | mark.column
            if event.__class__ is scalar and event.tag is None and event.anchor is None:
                key = known[event.value] if event.style == "" else event.value
                merge = key == "<<" and event.style == ""
            else:
                key, merge = self.key(event, depth)
            event = get()
            if event.__class__ is scalar and event.tag is None and event.anchor is None:
                value = known[event.value] if event.style == "" else event.value
                count += 2
            else:
                value, weight = self.node(event, depth)
                count += 1 + weight
            if merge:  # the merge key's value
                _merge(mapping, value)
                continue
            if key in mapping:  # given twice, or a key of its own that wins over a merged one
                if lines.merged is None or key not in lines.merged:
                    raise YamlTreeError(f"duplicate key {key!r}")
                lines.merged.discard(key)
            mapping[key] = value
            keys[key] = key_place
            mark = event.start_mark
            places[key] = mark.line << _LINE_SHIFT | mark.column
        return count

    def key(self, event: Any, depth: int) -> tuple[Any, bool]:
        """A mapping's key that is not a plain untagged scalar, and whether it is the merge key ``<<``."""
        key = self.node(event, depth)[0]
        if isinstance(key, (dict, list)):
            raise YamlTreeError("a mapping or list as a key")
        merge = isinstance(event, yaml.ScalarEvent) and key == "<<" and event.implicit[0] and event.style in ("", None)
        return key, merge

    def sequence(self, items: LocatedList, lines: Lines, depth: int) -> int:
        """Reads a list's items up to its end; how many values they stand for."""
        get, known, places = self.get_event, self.known, lines._values
        scalar, end = yaml.ScalarEvent, yaml.SequenceEndEvent
        count = 0
        while (event := get()).__class__ is not end:
            mark = event.start_mark
            places[len(items)] = mark.line << _LINE_SHIFT | mark.column
            if event.__class__ is scalar and event.tag is None and event.anchor is None:
                items.append(known[event.value] if event.style == "" else event.value)
                count += 1
            else:
                value, weight = self.node(event, depth)
                items.append(value)
                count += weight
        return count


def _merge(mapping: LocatedMap, value: Any) -> None:
    """A merge key's mapping (or list of mappings): the keys `mapping` does not have, added as merged."""
    sources = value if isinstance(value, list) else [value]
    lines = mapping.lc
    for source in sources:
        if not isinstance(source, dict):
            raise YamlTreeError("a merge key takes a mapping or a list of mappings")
        for key, item in source.items():
            if key not in mapping:
                mapping[key] = item
                if lines.merged is None:
                    lines.merged = set()
                lines.merged.add(key)


def _tag_refused(event: yaml.NodeEvent) -> YamlRefused:
    mark = event.start_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    tag = getattr(event, "tag", None)
    return YamlRefused(
        line,
        column,
        f"the tag {tag} is not allowed; write the value itself (a scenario holds text, numbers, lists and mappings)",
    )


def check_text(text: str) -> None:
    """Refuses a file too large to be a scenario, or with a control character (YamlRefused)."""
    if len(text) > MAX_FILE_BYTES:
        raise YamlRefused(
            1, 1, f"the file holds {len(text):,} characters; a scenario file holds at most {MAX_FILE_BYTES:,}"
        )
    found = _CONTROL.search(text)
    if found is not None:
        line = text.count("\n", 0, found.start()) + 1
        column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
        raise YamlRefused(
            line,
            column,
            f"control character U+{ord(found.group()):04X} at column {column}; remove it (a scenario file is plain "
            "text)",
        )


def parse_tree(text: str) -> Any:
    """The one YAML document in `text` as a located tree (None for an empty document).

    Raises YamlRefused for what a scenario file may not hold (a tag, a control character,
    too deep a nesting, aliases that stand for too much), YamlTreeError for what ruamel
    should word (a syntax error)."""
    check_text(text)
    parser = yaml.CSafeLoader(text)  # libyaml's parser, its events read one by one (no generator)
    try:
        return _Reader(parser).stream()
    except yaml.YAMLError as error:
        raise YamlTreeError(str(error)) from None
    finally:
        parser.dispose()


def key_line(node: object, key: object) -> int | None:
    """The 1-based line of a key in a located mapping (this module's, or ruamel's); None without lines."""
    try:
        return int(node.lc.key(key)[0]) + 1  # type: ignore[attr-defined]
    except (AttributeError, KeyError, TypeError):
        return None


def value_line(node: object, key: object) -> int | None:
    """The 1-based line of a located mapping's value or a list's item; the key's line when the value
    has none of its own (a merged key), None without lines."""
    try:
        if isinstance(node, list):
            return int(node.lc.item(key)[0]) + 1  # type: ignore[attr-defined]
        return int(node.lc.value(key)[0]) + 1  # type: ignore[attr-defined]
    except (AttributeError, KeyError, TypeError, IndexError):
        return key_line(node, key)


def start_line(node: object) -> int | None:
    """The 1-based line a located mapping or list starts on; None without lines."""
    lc = getattr(node, "lc", None)
    return None if lc is None or lc.line is None else int(lc.line) + 1
