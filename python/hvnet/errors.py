"""The exceptions hvnet raises for bad input.

Every error a user can cause derives from one base class, so a face (the CLI,
the web UI) catches ``HvnetError`` and prints it: no traceback, just what was
wrong, where, and what is allowed.

    HvnetError
    ├── ScenarioError   a scenario file is wrong; carries every Problem found
    ├── InputError      another input file (a CSV traffic matrix, ...) is wrong
    ├── UnitError       a quantity such as "10Gbs" does not parse (also a ValueError)
    └── CoreFailure     the Rust core refused what hvnet gave it, or failed running it:
                        a bug in hvnet, said in one line with what to report

A ``Problem`` prints as one line that editors and CI logs understand::

    cluster.yaml:12: hosts[0].nics[1].speed: '10Gbs' is not a bit rate; ...

``:line`` is left out when the line is unknown, and ``field:`` when the
problem concerns the whole file (a YAML syntax error, an empty file).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "CoreFailure",
    "HvnetError",
    "InputError",
    "Problem",
    "RunTooLarge",
    "ScenarioError",
    "UnitError",
    "decode_text",
]


#: What would end a line, or not show, where a problem is printed: control characters and the
#: characters `str.splitlines` breaks at (a name written "hv1\\u2028nic" in double quotes gets there).
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class HvnetError(Exception):
    """Base class of every error hvnet raises for bad input."""


class RunTooLarge(HvnetError):
    """A run would need more memory than the limit allows (`hvnet.budget`): one line, the cause and the knob."""


class CoreFailure(HvnetError):
    """The core refused the specs hvnet lowered a valid scenario to, or panicked while running
    them (`hvnet._core.CoreError`): not the user's mistake, but still one line, never a traceback."""

    def __init__(self, scenario: str, reason: str) -> None:
        super().__init__(
            f"{scenario}: hvnet's core could not simulate this scenario ({reason}); "
            "this is a bug in hvnet: please report it with the scenario file"
        )


@dataclass(frozen=True)
class Problem:
    """One mistake in an input file: where it is and what is wrong.

    ``line`` is 1-based; ``field`` is a dotted path such as
    ``hosts[0].nics[1].speed``, or ``""`` for the file as a whole.
    """

    file: str
    line: int | None
    field: str
    message: str

    def __str__(self) -> str:
        """One line, whatever the file held: control and line-breaking characters are escaped."""
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        text = f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"
        return _BREAKS.sub(lambda found: repr(found.group())[1:-1], text)


class ScenarioError(HvnetError):
    """A scenario is invalid. ``problems`` lists every mistake, sorted by line."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        if not self.problems:
            raise ValueError("ScenarioError needs at least one Problem")
        super().__init__(str(self))

    def __str__(self) -> str:
        return "\n".join(str(problem) for problem in self.problems)


class InputError(HvnetError):
    """An input file other than a scenario (a CSV traffic matrix, ...) is invalid."""

    def __init__(self, file: str, line: int | None, field: str, message: str) -> None:
        self.problem = Problem(file, line, field, message)
        super().__init__(str(self.problem))

    def __str__(self) -> str:
        return str(self.problem)


class UnitError(HvnetError, ValueError):
    """A quantity does not parse; the message says what is allowed, with an example."""


def decode_text(raw: bytes, file: str) -> str | Problem:
    """An input file's bytes as text, or the Problem of the first byte that is not UTF-8.

    A byte-order mark is dropped (utf-8-sig): Excel's "CSV UTF-8" starts the file with one.
    """
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        message = f"the file is not UTF-8 text (byte 0x{raw[error.start]:02x}); save it as UTF-8"
        return Problem(file, line, "", message)
