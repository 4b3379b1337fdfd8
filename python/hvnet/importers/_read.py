"""Small helpers every importer uses: numbers with their place, safe XML, JSON with lines."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from typing import Any

from hvnet.importers.measurement import fail

__all__ = ["integer", "line_of", "number", "parse_json", "parse_xml_roots"]


def number(text: str, file: str, line: int | None, field: str) -> float:
    """A finite number written in a file, or one clear error naming where it is."""
    try:
        value = float(text.strip())
    except ValueError:
        raise fail(file, line, field, f"{text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise fail(file, line, field, f"{text.strip()!r} is not a finite number")
    return value


def integer(text: str, file: str, line: int | None, field: str) -> int:
    """A whole number written in a file (``12`` or ``12.000``)."""
    value = number(text, file, line, field)
    if value != int(value):
        raise fail(file, line, field, f"{text.strip()!r} is not a whole number")
    return int(value)


def line_of(text: str, offset: int) -> int:
    """1-based line of a character offset."""
    return text.count("\n", 0, offset) + 1


def parse_json(text: str, file: str, what: str) -> Any:
    """JSON, or the line and column where it stops being JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        ending = " (the file ends early: truncated?)" if error.pos >= len(text.rstrip()) else ""
        raise fail(
            file, error.lineno, "", f"not valid {what} JSON: {error.msg} at column {error.colno}{ending}"
        ) from None
    except RecursionError:
        raise fail(file, None, "", f"not valid {what} JSON: nested too deeply") from None


_WRAPPER = "hvnet-roots"


def parse_xml_roots(text: str, file: str, what: str) -> list[ET.Element]:
    """Every root element of an XML file that may hold several appended roots.

    NTttcp for Windows opens its ``-xml`` file for appending, so one file
    often holds one ``<ntttcps>`` per run. The text is parsed inside a
    wrapper element (added on line 1, so lines stay right). Entities cannot
    expand: a DOCTYPE or ENTITY declaration is not allowed inside an
    element, so expat refuses it before anything is declared.
    """
    # An XML declaration is only allowed at the very start of a document;
    # blank each one out (same length, so columns and lines stay right).
    cleaned = text
    start = cleaned.find("<?xml")
    while start != -1:
        end = cleaned.find("?>", start)
        if end == -1:
            raise fail(file, line_of(text, start), "", f"not valid {what} XML: an unterminated <?xml declaration")
        cleaned = cleaned[:start] + " " * (end + 2 - start) + cleaned[end + 2 :]
        start = cleaned.find("<?xml", start)
    parser = ET.XMLParser()
    try:
        parser.feed(f"<{_WRAPPER}>")
        parser.feed(cleaned)
        parser.feed(f"</{_WRAPPER}>")
        wrapper = parser.close()
    except ET.ParseError as error:
        line, column = error.position
        at = _offset(cleaned, line, column - (len(_WRAPPER) + 2 if line == 1 else 0))
        near = cleaned.rfind("<", 0, at + 1)  # expat points at or just after the markup it refuses
        if near >= at - 3 and cleaned.startswith("<!", near) and not cleaned.startswith("<!--", near):
            message = "a DOCTYPE or ENTITY declaration is not accepted (hvnet expands no XML entities)"
        elif at >= len(cleaned.rstrip()):
            message = "the XML ends early: an element is not closed (truncated?)"
        else:
            message = str(error).split(":")[0]
        raise fail(file, line, "", f"not valid {what} XML: {message}") from None
    return list(wrapper)


def _offset(text: str, line: int, column: int) -> int:
    """Character offset of a 1-based line and 0-based column (the end of text if past it)."""
    offset = 0
    for _ in range(line - 1):
        found = text.find("\n", offset)
        if found == -1:
            return len(text)
        offset = found + 1
    return min(offset + max(column, 0), len(text))
