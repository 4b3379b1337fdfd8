"""The one writer of an imported scenario: model objects as commented YAML, by ruamel.yaml's round-trip dumper.

``scenario_yaml(scenario, comments)`` writes what the import set of each object (its fields set, None and
empty lists left out) in the model's order, with the model's own units (``model_dump``: "10 Gbps",
"64 GiB"). The document and each host are blocks; every other object is one line (a flow mapping), so
that the comment after it is about it alone.

Comments are given by path, as the loader names a value in its messages (``hosts[0].nics[1]``): lines
``above`` an item or field, and notes ``after`` its value on its line (joined by "; "). The comment of a
field that is not written is not written either.

The same dumps give the same bytes as ever, so three things are set here rather than left to the dumper:

- a string is plain only when it is a simple name (``NIC1``, ``switch_independent``) or a quantity
  (``10 Gbps``), else double-quoted with JSON's escapes (a JSON string is a YAML double-quoted scalar);
- a float is written as Python writes it (``2.6``);
- a comment is written as given, two spaces before an end-of-line ``#``. ruamel's comment methods
  choose one space or two by the comments around, and split a text at its line breaks, so the comment
  tokens are put in ruamel's comment slots directly (``_comment_above``, ``_comment_after``).
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.emitter import RoundTripEmitter
from ruamel.yaml.error import CommentMark
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.representer import RoundTripRepresenter
from ruamel.yaml.tokens import CommentToken

from hvnet.model.scenario import Scenario

__all__ = ["Comment", "scenario_yaml"]


@dataclass(frozen=True)
class Comment:
    """The comment of one item or field of the YAML."""

    above: tuple[str, ...] = ()
    """Whole lines above it, each ``# line``."""
    after: tuple[str, ...] = ()
    """Notes after its value, on its line: ``  # one; two``."""


#: The document and each host are block mappings; every other mapping is written on one line.
_BLOCK = re.compile(r"(hosts\[\d+\])?")
_INDENT = 2

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_QUANTITY = re.compile(r"\d+(\.\d+)? ?[KMGT]?(bps|B|iB)")
_RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n", "nan", "inf"}


def scenario_yaml(scenario: Scenario, comments: Mapping[str, Comment]) -> str:
    """The scenario as YAML text, with ``comments`` by path ("" is the document: its lines head the file)."""
    data = scenario.model_dump(exclude_unset=True, exclude_none=True)  # Python's mode: a NaN stays a float
    document = _mapping(data, "", comments, 0)
    if head := comments.get("", Comment()).above:
        document.ca.comment = [None, [_line(text, 0) for text in head]]
    stream = io.StringIO()
    _dumper().dump(document, stream)
    return stream.getvalue()


def _mapping(data: dict[str, Any], path: str, comments: Mapping[str, Comment], indent: int) -> CommentedMap:
    """A mapping whose keys are at column ``indent`` (a block's; a flow mapping's comments are on its parent)."""
    block = _BLOCK.fullmatch(path) is not None
    mapping = CommentedMap()
    for key, value in data.items():
        if value == ():
            continue
        field = f"{path}.{key}" if path else key
        mapping[key] = _value(value, field, comments, indent, block)
        comment = comments.get(field, Comment())
        if comment.above:
            _comment_above(mapping, key, comment.above, indent)
        if comment.after:
            _comment_after(mapping, key, comment.after)
    if not block:
        mapping.fa.set_flow_style()
    return mapping


def _value(value: Any, path: str, comments: Mapping[str, Comment], indent: int, block: bool) -> Any:
    """A field's value as ruamel writes it; ``indent`` is the column of its key, ``block`` whether its mapping is."""
    if isinstance(value, dict):
        return _mapping(value, path, comments, indent + 2 * _INDENT)
    if isinstance(value, tuple | list):
        return _sequence(value, path, comments, indent, block)
    if isinstance(value, Enum):
        return value.value
    return value


def _sequence(
    items: tuple[Any, ...] | list[Any], path: str, comments: Mapping[str, Comment], indent: int, block: bool
) -> CommentedSeq:
    """A list: in a block mapping one item a line (``  - item``), in a flow mapping on its line."""
    sequence = CommentedSeq()
    for index, item in enumerate(items):
        entry = f"{path}[{index}]"
        sequence.append(_value(item, entry, comments, indent, block=False))
        comment = comments.get(entry, Comment())
        if comment.above:
            _comment_above(sequence, index, comment.above, indent + _INDENT)
        if comment.after:
            _comment_after(sequence, index, comment.after)
    if not block:
        sequence.fa.set_flow_style()
    return sequence


def _line(text: str, indent: int) -> CommentToken:
    return CommentToken(f"# {text}\n", CommentMark(indent))


def _comment_above(node: CommentedMap | CommentedSeq, key: str | int, lines: tuple[str, ...], indent: int) -> None:
    """Comment lines above a mapping's key or a sequence's item (slot 1 of ruamel's comment of that key or item)."""
    slots = node.ca.items.setdefault(key, [None, None, None, None])
    slots[1] = [_line(text, indent) for text in lines]


def _comment_after(node: CommentedMap | CommentedSeq, key: str | int, notes: tuple[str, ...]) -> None:
    """Notes after a value, on its line (slot 2 of a mapping key's comment, slot 0 of a sequence item's).

    The emitter puts at least one space before a token that starts at column 0; the token's own space
    makes it two."""
    slots = node.ca.items.setdefault(key, [None, None, None, None])
    slots[2 if isinstance(node, CommentedMap) else 0] = CommentToken(f" # {'; '.join(notes)}", CommentMark(0))


class _Representer(RoundTripRepresenter):
    def represent_text(self, data: str) -> ScalarNode:
        plain = (_PLAIN.fullmatch(data) and data.casefold() not in _RESERVED) or _QUANTITY.fullmatch(data)
        node: ScalarNode = self.represent_scalar("tag:yaml.org,2002:str", data, style=None if plain else '"')
        return node

    def represent_number(self, data: float) -> ScalarNode:
        text = repr(data)
        finite = text not in ("nan", "inf", "-inf")  # as a plain scalar these are text to YAML, so tagged as text
        node: ScalarNode = self.represent_scalar(f"tag:yaml.org,2002:{'float' if finite else 'str'}", text)
        return node


_Representer.add_representer(str, _Representer.represent_text)
_Representer.add_representer(float, _Representer.represent_number)


class _Emitter(RoundTripEmitter):
    def write_double_quoted(self, text: str, split: bool = True) -> None:
        """JSON's escapes, which are YAML's too, and the whole string on its line."""
        self.write_indicator(json.dumps(text, ensure_ascii=False), True)


def _dumper() -> YAML:
    yaml = YAML()
    yaml.Representer = _Representer
    yaml.Emitter = _Emitter
    yaml.indent(mapping=_INDENT, sequence=2 * _INDENT, offset=_INDENT)
    yaml.width = sys.maxsize
    return yaml
