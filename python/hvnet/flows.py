"""A traffic matrix from CSV, run through the engine in one call.

The CSV has the columns `src,dst,bytes,start_s`, and optionally `name`, in any order, one
connection per row; `src` and `dst` are host or VM names of the scenario. `bytes` is a size as a
scenario writes it (`5GB`, `5GiB`) or a plain number of bytes; `start_s` a duration (`250ms`) or a
plain number of seconds; both are parsed by `hvnet.units`, as a scenario's are. A row without a
name is called by its row in the file (`row 3`, as a spreadsheet numbers it). The result gives each
row's completion time and mean rate, in row order, and the engine's wall-clock time.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hvnet._version import __version__
from hvnet.errors import InputError, Problem, UnitError, decode_text
from hvnet.lower import lower
from hvnet.lower.network import ConnectionRequest
from hvnet.model import Scenario
from hvnet.model.scenario import HORIZON_S, LARGEST_BYTES
from hvnet.run import run as run_core
from hvnet.tables.fit import FittedTable
from hvnet.units import bits_per_s, format_bitrate, format_bytes, human_duration, parse_bytes, parse_duration
from hvnet.words import counted

__all__ = ["COLUMNS", "TABLE_ROWS", "FlowRow", "FlowsResult", "flows_table", "read_flows", "run_flows", "summary"]

#: The columns every matrix has; `name` may be added. Any order.
COLUMNS = ("src", "dst", "bytes", "start_s")
NAME = "name"

#: The terminal table shows this many rows, the first in the file (`--json` has every row).
TABLE_ROWS = 40


@dataclass(frozen=True)
class FlowRow:
    """One row of a traffic matrix."""

    line: int
    source: str
    destination: str
    size_bytes: float
    start_s: float
    #: The `name` column's value; None when the matrix has no name column or the cell is blank.
    name: str | None = None

    @property
    def label(self) -> str:
        """How tables and JSON call the row: its name, or `row N` (N its line in the file)."""
        return self.name if self.name is not None else f"row {self.line}"


@dataclass(frozen=True)
class FlowsResult:
    wall_s: float
    end_s: list[float | None]
    #: The rows run, in order (`end_s[k]` is `rows[k]`'s); empty when built from end times alone.
    rows: tuple[FlowRow, ...] = field(default=())

    def mean_bps(self, k: int) -> float | None:
        """Row k's mean rate, payload bits/s from its start to its end; None if it never ended or sent nothing."""
        end, row = self.end_s[k], self.rows[k]
        if end is None or row.size_bytes == 0 or end <= row.start_s:
            return None
        return bits_per_s(row.size_bytes / (end - row.start_s))

    def to_json(self) -> dict[str, object]:
        """`engine`, `wall_s`, `end_s` (each row's, in order), and `flows`: each row named, with its ends
        (docs/output.md, "hvnet flows --json")."""
        flows = [
            {
                "name": row.label,
                "line": row.line,
                "src": row.source,
                "dst": row.destination,
                "bytes": int(row.size_bytes) if row.size_bytes.is_integer() else row.size_bytes,
                "start_s": row.start_s,
                "end_s": self.end_s[k],
                "mean_bps": self.mean_bps(k),
            }
            for k, row in enumerate(self.rows)
        ]
        return {"engine": f"hvnet {__version__}", "wall_s": self.wall_s, "end_s": self.end_s, "flows": flows}


#: The bounds a scenario's traffic has (docs/scenario.md, "Bounds"): a row past them is a typo, and
#: the engine would run for ever on it (1e300 bytes, or a start 1e300 s away).
MOST = {"bytes": (LARGEST_BYTES, "1 PiB (1125899906842624 bytes)"), "start_s": (HORIZON_S, "8760 h (31536000 s)")}

#: How each quantity column reads a value with a unit, and what a plain number is.
_PARSERS: dict[str, tuple[Callable[[str], float], str]] = {
    "bytes": (parse_bytes, "a plain number of bytes (e.g. 1250000000)"),
    "start_s": (parse_duration, "a plain number of seconds (e.g. 2.5)"),
}


def _plain(text: str) -> float | None:
    """`text` as a plain number (`1e9`, `-2`, `inf`), or None if it is none (`5GB`, `soon`)."""
    try:
        return float(text)
    except ValueError:
        return None


def _number(path: str, line: int, field: str, text: str) -> float:
    """A quantity cell: a plain number, or a quantity with a unit read by the scenario's parser."""
    value = _plain(text)
    if value is None:
        parse, plain = _PARSERS[field]
        try:
            value = float(parse(text.strip()))
        except UnitError as error:
            hint = f"; or {plain}" if "write a number and a unit" in str(error) else ""
            raise InputError(path, line, field, f"{error}{hint}") from None
    elif not math.isfinite(value) or value < 0:
        raise InputError(path, line, field, f"{text!r} is not a number >= 0")
    most, shown = MOST[field]
    if value > most:
        raise InputError(path, line, field, f"{text!r} is too large; at most {shown}")
    return value


def read_flows(path: Path, scenario: Scenario) -> list[FlowRow]:
    """Reads and checks a traffic matrix against the scenario's names."""
    raw = path.read_bytes()
    text = decode_text(raw, str(path))
    if isinstance(text, Problem):
        raise InputError(text.file, text.line, text.field, text.message)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        return _rows(reader, path, scenario)
    except csv.Error as error:  # a field past the csv module's limit (131,072 characters), a NUL...
        raise InputError(str(path), reader.line_num or 1, "", f"not a CSV row: {error}") from None


def _columns(header: list[str] | None, path: Path) -> dict[str, int]:
    """Each column's place in a row, from the header: src, dst, bytes, start_s, and name if given."""
    expected = f"expected the columns {','.join(COLUMNS)} and optionally {NAME}, in any order"
    if header is None:
        raise InputError(str(path), 1, "header", f"{expected}; the file is empty")
    names = [h.strip() for h in header]
    shown = repr(names) if len(repr(names)) <= 200 else f"{repr(names)[:200]}..."
    unknown = [n for n in names if n not in (*COLUMNS, NAME)]
    twice = [n for n in dict.fromkeys(names) if names.count(n) > 1]
    missing = [c for c in COLUMNS if c not in names]
    if unknown or twice or missing:
        why = (
            f"{unknown[0][:100]!r} is not one of them"
            if unknown
            else f"{twice[0]} is there twice"
            if twice
            else f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing"
        )
        raise InputError(str(path), 1, "header", f"{expected}; {why}: got {shown}")
    return {name: k for k, name in enumerate(names)}


def _endpoint(path: Path, line: int, field: str, name: str, names: set[str], scenario: Scenario) -> str:
    if name not in names:
        shown = repr(name) if len(name) <= 100 else f"{name[:100]!r}..."
        valid = scenario.endpoint_names()
        raise InputError(str(path), line, field, f"{shown} is not a host or VM of the scenario ({valid})")
    return name


def _name(path: Path, line: int, text: str, seen: dict[str, int]) -> str | None:
    """A row's name: None if blank (the row is called `row N`); refused if it does not print on one
    line, or another row has it."""
    name = text.strip()
    if not name:
        return None
    shown = repr(name) if len(name) <= 100 else f"{name[:100]!r}..."
    if not name.isprintable():
        raise InputError(str(path), line, NAME, f"{shown} holds a character that does not print; a name is one line")
    if name in seen:
        raise InputError(str(path), line, NAME, f"{shown} is already the name of the row at line {seen[name]}")
    return name


def _rows(reader: Iterator[list[str]], path: Path, scenario: Scenario) -> list[FlowRow]:
    names = {h.name for h in scenario.hosts} | {vm.name for vm in scenario.vms}
    place = _columns(next(reader, None), path)
    flows: list[FlowRow] = []
    seen: dict[str, int] = {}  # each row's name (given or `row N`) -> its line
    for row in reader:
        line = reader.line_num  # type: ignore[attr-defined]
        if not row:
            continue
        if len(row) != len(place):
            raise InputError(str(path), line, "row", f"expected {len(place)} values, got {len(row)}")
        src = _endpoint(path, line, "src", row[place["src"]].strip(), names, scenario)
        dst = _endpoint(path, line, "dst", row[place["dst"]].strip(), names, scenario)
        if src == dst:
            raise InputError(str(path), line, "dst", "a flow needs two different endpoints")
        size = _number(str(path), line, "bytes", row[place["bytes"]])
        start = _number(str(path), line, "start_s", row[place["start_s"]])
        name = _name(path, line, row[place[NAME]], seen) if NAME in place else None
        flow = FlowRow(line, src, dst, size, start, name)
        if flow.label in seen:  # a generated `row N` that a name took before
            taken = f"{flow.label!r} is already the name of the row at line {seen[flow.label]}"
            raise InputError(str(path), line, NAME, taken)
        seen[flow.label] = line
        flows.append(flow)
    return flows


def run_flows(scenario: Scenario, flows: list[FlowRow], path: Path, links_only: bool = False) -> FlowsResult:
    """Runs the rows; `links_only` models the links alone (no frames, no CPU)."""
    requests = [ConnectionRequest(f.source, f.destination, f.size_bytes, f.start_s) for f in flows]
    lowered = lower(scenario, requests=requests, record=False, links_only=links_only)
    for k, why in lowered.unreachable[:1]:
        raise InputError(str(path), flows[k].line, "src", why)
    run = run_core(lowered)
    return FlowsResult(wall_s=run.wall_s, end_s=[c.end_s for c in run.connections], rows=tuple(flows))


def _size(size_bytes: float) -> str:
    return format_bytes(int(size_bytes)) if size_bytes.is_integer() else f"{size_bytes:g} B"


def _rate(bps: float | None) -> str:
    return "-" if bps is None else format_bitrate(float(f"{bps:.3g}"))


def _cells(result: FlowsResult, k: int) -> list[str]:
    row, end = result.rows[k], result.end_s[k]
    ended = "never" if end is None else human_duration(end)
    return [
        row.label,
        row.source,
        row.destination,
        _size(row.size_bytes),
        human_duration(row.start_s),
        ended,
        _rate(result.mean_bps(k)),
    ]


def flows_table(result: FlowsResult, title: str, rows: int | None = TABLE_ROWS) -> FittedTable:
    """One row per matrix row, the first `rows` (None: all): its name, ends, size, start, end and mean
    rate; red if it never completed. Names and numbers are never cut: at a width too narrow for them
    all, columns are left out from the right, and the caption says which (`FittedTable`)."""
    shown = range(len(result.rows) if rows is None else min(rows, len(result.rows)))
    cells = [_cells(result, k) for k in shown]
    table = FittedTable(title=title, title_justify="left", caption_justify="left")
    for column, header in enumerate(("name", "src", "dst", "size", "start", "end", "mean rate")):
        widest = max((len(row[column]) for row in cells), default=0)
        right = column >= 3
        table.add_column(header, justify="right" if right else "left", no_wrap=True, min_width=max(widest, len(header)))
    for k, row in zip(shown, cells):
        table.add_row(*row, style="red" if result.end_s[k] is None else None)
    if len(cells) < len(result.rows):
        table.caption = f"the first {len(cells)} of {len(result.rows)} rows; --json has every row"
    return table


def summary(result: FlowsResult) -> str:
    """The run in one line: `3 flows, 3 completed, last at 2.63 s; engine 0.2 ms`."""
    done = [e for e in result.end_s if e is not None]
    return (
        f"{counted(len(result.end_s), 'flow')}, {len(done)} completed, last at "
        f"{human_duration(max(done, default=0.0))}; engine {human_duration(result.wall_s)}"
    )
