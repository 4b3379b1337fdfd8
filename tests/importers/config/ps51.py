"""JSON as Windows PowerShell 5.1's ConvertTo-Json writes it, to write and check the 5.1 fixtures.

Windows PowerShell 5.1's ConvertTo-Json (ConvertToJsonCommand.cs, as PowerShell/PowerShell first published
it in 2016, commit 60b3b304f2, the code under ``#else``, not ``#if CORECLR``) serializes with .NET's
JavaScriptSerializer and then re-indents the compact text with its own ``ConvertToPrettyJsonString``:

- strings are escaped by HttpUtility.JavaScriptStringEncode: ``"`` and ``\\`` and the control characters as
  JSON does (``\\n``, ``\\t``, ... and ``\\u001f``), and also ``'``, ``<``, ``>``, ``&``, U+0085, U+2028 and
  U+2029 as ``\\u0027``..., in lower-case hex; other characters are written as they are (UTF-8 in the file);
- an object's members are indented by four spaces more than the object's first column, with two spaces
  after each colon; a member's value that is an object or a list opens on the member's line and its lines
  are indented past the member's name (the runs of spaces 5.1 output is known for);
- an empty list or object is written over two lines with an empty line between (``[`` newline newline ``]``);
- lines end with CR LF, and the text with the last bracket (no line break).

``convert_to_json`` does the same from Python values (dict, list, str, int, float, bool, None), which the
tests check against outputs captured from Windows PowerShell 5.1 (test_windows_powershell_51.py).
"""

from __future__ import annotations

__all__ = ["convert_to_json", "javascript_serializer"]

_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_UNICODE = {"'", "<", ">", "&", "\u0085", "\u2028", "\u2029"}


def _string(text: str) -> str:
    out = []
    for char in text:
        if char in _SHORT:
            out.append(_SHORT[char])
        elif char < " " or char in _UNICODE:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def javascript_serializer(value: object) -> str:
    """The compact JSON JavaScriptSerializer writes (no spaces, keys in order)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)  # .NET's "R" format gives the same digits for the values the fixtures hold
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ",".join(javascript_serializer(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_string(k)}:{javascript_serializer(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no JSON for {type(value).__name__}")


def convert_to_json(value: object) -> str:
    """``value | ConvertTo-Json`` in Windows PowerShell 5.1: JavaScriptSerializer's text, re-indented."""
    return _Pretty(javascript_serializer(value)).text()


class _Pretty:
    """ConvertToPrettyJsonString, ConvertDictionary, ConvertList and ConvertQuotedString, step for step."""

    def __init__(self, json: str) -> None:
        self.json = json
        self.out: list[str] = []

    def text(self) -> str:
        if self.json.startswith("{"):
            self.out.append("{")
            self.dictionary(1, "", 0)
        elif self.json.startswith("["):
            self.out.append("[")
            self.list(1, "", 0)
        else:
            return self.json
        return "".join(self.out)

    def quoted(self, index: int) -> int:
        """Copy a string's characters after its opening quote up to its closing one; the index of that quote."""
        json = self.json
        for i in range(index, len(json)):
            self.out.append(json[i])
            if json[i] == '"':
                j, escaped = i, False
                while j > 0 and json[j - 1] == "\\":
                    j -= 1
                    escaped = not escaped
                if not escaped:
                    return i
        raise ValueError("unterminated string")

    def list(self, index: int, pad: str, spaces: int) -> int:
        json, out = self.json, self.out
        out.append("\r\n")
        inner = pad + " " * spaces + " " * 4
        head = True
        i = index
        while i < len(json):
            char = json[i]
            if char == "{":
                out.append(inner + char)
                i = self.dictionary(i + 1, inner, 0)
                head = False
            elif char == "[":
                out.append(inner + char)
                i = self.list(i + 1, inner, 0)
                head = False
            elif char == "]":
                out.append("\r\n" + pad + " " * spaces + char)
                return i
            elif char == '"':
                out.append((inner if head else "") + char)
                i = self.quoted(i + 1)
                head = False
            elif char == ",":
                out.append(",\r\n")
                head = True
            else:
                out.append((inner if head else "") + char)
                head = False
            i += 1
        raise ValueError("unterminated list")

    def dictionary(self, index: int, pad: str, spaces: int) -> int:
        json, out = self.json, self.out
        out.append("\r\n")
        inner = pad + " " * spaces + " " * 4
        head, before_quote, new_spaces = True, True, 0
        i = index
        while i < len(json):
            char = json[i]
            if char == "{":
                out.append(char)
                i = self.dictionary(i + 1, inner, new_spaces)
                head = False
            elif char == "[":
                out.append(char)
                i = self.list(i + 1, inner, new_spaces)
                head = False
            elif char == "}":
                out.append("\r\n" + pad + " " * spaces + char)
                return i
            elif char == '"':
                out.append((inner if head else "") + char)
                end = self.quoted(i + 1)
                if before_quote:
                    new_spaces += end - i + 1
                i = end
                head = False
            elif char == ":":
                out.append(char + "  ")
                new_spaces += 3
                head, before_quote = False, False
            elif char == ",":
                out.append(",\r\n")
                head, before_quote, new_spaces = True, True, 0
            else:
                out.append((inner if head else "") + char)
                if before_quote:
                    new_spaces += 1
                head = False
            i += 1
        raise ValueError("unterminated object")
