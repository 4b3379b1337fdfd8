"""YAML text as a tree of dicts and lists that knows the line of every key, value and item.

libyaml (PyYAML's C parser) reads the text into events; this module builds
the tree from them, resolving plain scalars by YAML 1.2's core schema as
ruamel.yaml resolves them (``yes`` is text, ``010`` is ten, ``~`` is null),
so a file means the same thing it always did. It is some fifty times faster
than ruamel's round-trip loader, which is pure Python: a 10,000-VM scenario
reads in a fraction of a second.

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


class Lines:
    """Where a mapping or list and its parts are in the text (0-based line, column)."""

    __slots__ = ("_keys", "_values", "col", "line", "merged")

    def __init__(self, line: int, col: int) -> None:
        self.line, self.col = line, col
        #: Keys merged in (`<<`), which a key of the mapping's own may replace.
        self.merged: set[Any] = set()
        self._keys: dict[Any, tuple[int, int]] = {}
        self._values: dict[Any, tuple[int, int]] = {}

    def key(self, key: Any) -> tuple[int, int]:
        """Line and column of a mapping's key; KeyError for a key merged in (`<<`)."""
        return self._keys[key]

    def value(self, key: Any) -> tuple[int, int]:
        """Line and column of a mapping's value; KeyError for a key merged in (`<<`)."""
        return self._values[key]

    def item(self, index: int) -> tuple[int, int]:
        """Line and column of a list's item."""
        return self._values[index]


class LocatedMap(dict[Any, Any]):
    """A YAML mapping with the lines of its keys and values."""

    lc: Lines


class LocatedList(list[Any]):
    """A YAML sequence with the lines of its items."""

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


class _Builder:
    """Turns libyaml's events into a located tree."""

    def __init__(self) -> None:
        self.anchors: dict[str, Any] = {}
        #: Open containers, innermost last: (container, pending key or None, has a key).
        self.stack: list[list[Any]] = []
        self.root: Any = None
        self.documents = 0
        #: How many values each finished mapping or list stands for, aliases counted in full.
        self.weights: dict[int, int] = {}

    def add(self, value: Any, where: tuple[int, int], weight: int = 0) -> None:
        """Puts a finished value into the innermost open container (or makes it the root); `weight`:
        the values it stands for (0: look it up, for a mapping or list that may be an alias's)."""
        if not self.stack:
            self.root = value
            return
        frame = self.stack[-1]
        container = frame[0]
        frame[5] += weight or self.weights.get(id(value), 1)
        if not frame[7]:  # a list
            frame[6][len(container)] = where
            container.append(value)
        elif not frame[2]:  # a key
            if isinstance(value, (dict, list)):
                raise YamlTreeError("a mapping or list as a key")
            frame[1], frame[2], frame[3] = value, True, where
        else:
            key = frame[1]
            frame[2] = False
            if frame[4]:  # the merge key's value
                frame[4] = False
                self.merge(container, value)
                return
            lines = container.lc
            if key in container and key not in lines.merged:
                raise YamlTreeError(f"duplicate key {key!r}")
            if lines.merged:
                lines.merged.discard(key)  # a key of its own wins over a merged one
            container[key] = value
            lines._keys[key] = frame[3]
            frame[6][key] = where

    def scalar(self, event: yaml.ScalarEvent, where: tuple[int, int]) -> None:
        """A scalar: a value, a key, or the merge key ``<<`` (plain, untagged) of a mapping."""
        value = _scalar(event)
        if event.anchor is not None:
            self.anchors[event.anchor] = value
        if self.stack:
            frame = self.stack[-1]
            if frame[7] and not frame[2]:  # a mapping's key
                frame[4] = value == "<<" and event.implicit[0] and event.style in ("", None)
        self.add(value, where, 1)

    def open(self, event: yaml.MappingStartEvent | yaml.SequenceStartEvent, where: tuple[int, int]) -> None:
        """A mapping or list starts: a new innermost container."""
        if event.tag not in (None, "!") and not event.implicit:
            raise _tag_refused(event)
        if len(self.stack) >= MAX_DEPTH:
            raise YamlRefused(where[0] + 1, where[1] + 1, f"nested more than {MAX_DEPTH} levels deep")
        container: LocatedMap | LocatedList = (
            LocatedMap() if isinstance(event, yaml.MappingStartEvent) else LocatedList()
        )
        container.lc = lines = Lines(*where)
        if event.anchor is not None:
            self.anchors[event.anchor] = container
        # (container, key, key seen, key's place, key is a merge key, values it stands for,
        #  its values' places, is a mapping)
        self.stack.append([container, None, False, None, False, 0, lines._values, isinstance(container, LocatedMap)])

    def close(self, event: object = None, where: object = None) -> None:
        """The innermost container ends: weighed (aliases in full) and put into its parent."""
        frame = self.stack.pop()
        start = frame[0].lc
        weight = 1 + frame[5]
        if weight > MAX_VALUES:
            raise YamlRefused(
                start.line + 1,
                start.col + 1,
                f"this part stands for more than {MAX_VALUES:,} values once its aliases are expanded; "
                "write it out, or use fewer aliases of aliases",
            )
        self.weights[id(frame[0])] = weight
        self.add(frame[0], (start.line, start.col), weight)

    def alias(self, event: yaml.AliasEvent, where: tuple[int, int]) -> None:
        """An alias: the anchored value itself, put where the alias is."""
        if event.anchor not in self.anchors:
            raise YamlTreeError(f"unknown alias {event.anchor}")
        self.add(self.anchors[event.anchor], where)

    def document(self, event: object, where: object) -> None:
        """A document starts: a scenario file holds one."""
        self.documents += 1
        if self.documents > 1:
            raise YamlTreeError("more than one document")

    def merge(self, container: LocatedMap, value: Any) -> None:
        sources = value if isinstance(value, list) else [value]
        for source in sources:
            if not isinstance(source, dict):
                raise YamlTreeError("a merge key takes a mapping or a list of mappings")
            for key, item in source.items():
                if key not in container:
                    container[key] = item
                    container.lc.merged.add(key)


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
    builder = _Builder()
    alias, document = builder.alias, builder.document
    handlers: dict[type, Callable[[Any, tuple[int, int]], None]] = {
        yaml.ScalarEvent: builder.scalar,
        yaml.MappingStartEvent: builder.open,
        yaml.SequenceStartEvent: builder.open,
        yaml.MappingEndEvent: builder.close,
        yaml.SequenceEndEvent: builder.close,
        yaml.AliasEvent: alias,
        yaml.DocumentStartEvent: document,
    }
    parser = yaml.CSafeLoader(text)  # libyaml's parser, its events read one by one (no generator)
    try:
        while (event := parser.get_event()) is not None:
            handler = handlers.get(event.__class__)
            if handler is not None:
                mark = event.start_mark
                handler(event, (mark.line, mark.column) if mark is not None else (0, 0))
    except yaml.YAMLError as error:
        raise YamlTreeError(str(error)) from None
    finally:
        parser.dispose()
    return builder.root


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
