"""A traffic matrix from CSV, run through the engine in one call.

The CSV has the columns `src,dst,bytes,start_s`, one connection per row;
`src` and `dst` are host or VM names of the scenario. The result gives each
row's completion time, in row order, and the engine's wall-clock time.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

from hvnet._version import __version__
from hvnet.lower.network import ConnectionRequest, NetworkModel
from hvnet.run import run as run_core
from hvnet.errors import InputError, Problem, decode_text
from hvnet.model import Scenario

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


def _number(path: str, line: int, field: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise InputError(path, line, field, f"{text!r} is not a number >= 0")
    return value


def read_flows(path: Path, scenario: Scenario) -> list[FlowRow]:
    """Reads and checks a traffic matrix against the scenario's names."""
    names = {h.name for h in scenario.hosts} | {vm.name for vm in scenario.vms}
    flows: list[FlowRow] = []
    raw = path.read_bytes()
    text = decode_text(raw, str(path))
    if isinstance(text, Problem):
        raise InputError(text.file, text.line, text.field, text.message)
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None or tuple(h.strip() for h in header) != COLUMNS:
        raise InputError(str(path), 1, "header", f"expected the columns {','.join(COLUMNS)}, got {header}")
    for row in reader:
        line = reader.line_num
        if not row:
            continue
        if len(row) != len(COLUMNS):
            raise InputError(str(path), line, "row", f"expected {len(COLUMNS)} values, got {len(row)}")
        src, dst = row[0].strip(), row[1].strip()
        for field, name in (("src", src), ("dst", dst)):
            if name not in names:
                raise InputError(str(path), line, field, f"{name!r} is not a host or VM of the scenario")
        if src == dst:
            raise InputError(str(path), line, "dst", "a flow needs two different endpoints")
        size = _number(str(path), line, "bytes", row[2])
        start = _number(str(path), line, "start_s", row[3])
        flows.append(FlowRow(line, src, dst, size, start))
    return flows


def run_flows(scenario: Scenario, flows: list[FlowRow], path: Path, links_only: bool = False) -> FlowsResult:
    """Runs the rows; `links_only` models the links alone (no frames, no CPU)."""
    model = NetworkModel(scenario, links_only=links_only)
    requests = [ConnectionRequest(f.source, f.destination, f.size_bytes, f.start_s) for f in flows]
    for k, why in model.unreachable(requests)[:1]:
        raise InputError(str(path), flows[k].line, "src", why)
    run = run_core(model, requests)
    return FlowsResult(wall_s=run.wall_s, end_s=[o.end_s for o in run.outcomes])
