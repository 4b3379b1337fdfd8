"""A traffic matrix from CSV, run through the engine in one call.

The CSV has the columns `src,dst,bytes,start_s`, one connection per row;
`src` and `dst` are host or VM names of the scenario. The result gives each
row's completion time, in row order, and the engine's wall-clock time.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hvnet._version import __version__
from hvnet.errors import InputError, Problem, decode_text
from hvnet.lower import lower
from hvnet.lower.network import ConnectionRequest
from hvnet.model import Scenario
from hvnet.model.scenario import HORIZON_S, LARGEST_BYTES
from hvnet.run import run as run_core

__all__ = ["FlowsResult", "read_flows", "run_flows"]

COLUMNS = ("src", "dst", "bytes", "start_s")


@dataclass(frozen=True)
class FlowRow:
    """One row of a traffic matrix."""

    line: int
    source: str
    destination: str
    size_bytes: float
    start_s: float


@dataclass(frozen=True)
class FlowsResult:
    wall_s: float
    end_s: list[float | None]

    def to_json(self) -> dict[str, object]:
        return {"engine": f"hvnet {__version__}", "wall_s": self.wall_s, "end_s": self.end_s}


#: The bounds a scenario's traffic has (docs/scenario.md, "Bounds"): a row past them is a typo, and
#: the engine would run for ever on it (1e300 bytes, or a start 1e300 s away).
MOST = {"bytes": (LARGEST_BYTES, "1 PiB (1125899906842624 bytes)"), "start_s": (HORIZON_S, "8760 h (31536000 s)")}


def _number(path: str, line: int, field: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
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


def _rows(reader: Iterator[list[str]], path: Path, scenario: Scenario) -> list[FlowRow]:
    names = {h.name for h in scenario.hosts} | {vm.name for vm in scenario.vms}
    flows: list[FlowRow] = []
    header = next(reader, None)
    if header is None or tuple(h.strip() for h in header) != COLUMNS:
        shown = header if header is None or len(str(header)) <= 200 else f"{str(header)[:200]}..."
        raise InputError(str(path), 1, "header", f"expected the columns {','.join(COLUMNS)}, got {shown}")
    for row in reader:
        line = reader.line_num  # type: ignore[attr-defined]
        if not row:
            continue
        if len(row) != len(COLUMNS):
            raise InputError(str(path), line, "row", f"expected {len(COLUMNS)} values, got {len(row)}")
        src, dst = row[0].strip(), row[1].strip()
        for field, name in (("src", src), ("dst", dst)):
            if name not in names:
                shown = repr(name) if len(name) <= 100 else f"{name[:100]!r}..."
                valid = scenario.endpoint_names()
                raise InputError(str(path), line, field, f"{shown} is not a host or VM of the scenario ({valid})")
        if src == dst:
            raise InputError(str(path), line, "dst", "a flow needs two different endpoints")
        size = _number(str(path), line, "bytes", row[2])
        start = _number(str(path), line, "start_s", row[3])
        flows.append(FlowRow(line, src, dst, size, start))
    return flows


def run_flows(scenario: Scenario, flows: list[FlowRow], path: Path, links_only: bool = False) -> FlowsResult:
    """Runs the rows; `links_only` models the links alone (no frames, no CPU)."""
    requests = [ConnectionRequest(f.source, f.destination, f.size_bytes, f.start_s) for f in flows]
    lowered = lower(scenario, requests=requests, record=False, links_only=links_only)
    for k, why in lowered.unreachable[:1]:
        raise InputError(str(path), flows[k].line, "src", why)
    run = run_core(lowered)
    return FlowsResult(wall_s=run.wall_s, end_s=[c.end_s for c in run.connections])
