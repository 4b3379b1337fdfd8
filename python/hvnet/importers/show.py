"""A short rich table per imported measurement, for the terminal."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table
from rich.text import Text

from hvnet.importers.demand import ImportedDemand
from hvnet.importers.measurement import Measurement
from hvnet.tables.fit import FittedTable
from hvnet.units import format_bitrate, format_duration, human_duration

__all__ = ["measurement_table"]


def _rate(bps: float | None) -> str:
    if bps is None:
        return "-"
    for unit, size in (("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3)):
        if abs(bps) >= size:
            return f"{bps / size:,.2f} {unit}"
    return f"{bps:,.0f} bps"


def _size(count: int) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if count >= size:
            return f"{count / size:,.2f} {unit} ({count:,} B)"
    return f"{count:,} B"


def measurement_table(m: Measurement) -> Table:
    """What a person checks first: format, role, duration, throughput, CPU, retransmits; then per thread or counter."""
    title = f"{Path(m.file).name}: {m.format}" + (f" {m.tool_version}" if m.tool_version else "")
    table = FittedTable(title=title, title_justify="left", show_header=False, min_width=len(title) + 4)
    table.add_column("field")
    table.add_column("value", overflow="fold")
    p = m.parameters
    rows: list[tuple[str, str | None]] = [
        ("host", m.host),
        ("role", m.role),
        ("command", p.command_line),
        ("protocol", p.protocol),
        ("threads", None if p.threads is None else str(p.threads)),
        ("start", m.start_time),
        ("duration", None if m.duration_s is None else human_duration(m.duration_s)),
        ("bytes", None if m.total_bytes is None else _size(m.total_bytes)),
        ("throughput", None if m.throughput_bps is None else _rate(m.throughput_bps)),
        ("sent", None if m.sent_throughput_bps is None else _rate(m.sent_throughput_bps)),
        ("cpu", None if m.cpu_percent is None else f"{m.cpu_percent:.2f} %"),
        ("retransmits", None if m.retransmits is None else f"{m.retransmits:,}"),
        ("lost packets", None if m.lost_packets is None else f"{m.lost_packets:,}"),
        ("jitter", None if m.jitter_s is None else f"{m.jitter_s * 1000:.3f} ms"),
    ]
    for name, value in rows:
        if value is not None:
            table.add_row(name, value)
    for s in m.streams:
        when = "" if s.duration_s is None else f" over {human_duration(s.duration_s)}"
        table.add_row(f"thread {s.index}", f"{_rate(s.throughput_bps)}{when}")
    if m.intervals:
        table.add_row(
            "intervals",
            f"{len(m.intervals)}, {_rate(min(i.throughput_bps for i in m.intervals))}"
            f" .. {_rate(max(i.throughput_bps for i in m.intervals))}",
        )
    for c in m.interfaces:
        table.add_row(
            c.interface,
            f"rx {_size(c.rx_bytes)}, {c.rx_packets:,} packets; tx {_size(c.tx_bytes)}, {c.tx_packets:,} packets",
        )
    for shown, series in enumerate(m.series):
        present = [v for v in series.values if v is not None]
        if shown == 12:
            table.add_row("...", f"{len(m.series) - shown} more series (see --json)")
            break
        mean = sum(present) / len(present) if present else None
        unit = series.unit or "unit unknown"
        value = "no values" if mean is None else f"mean {mean:,.2f} {unit}, {len(series.values)} samples"
        where = f"{series.counter} [{series.instance}]" if series.instance else series.counter
        table.add_row(Text(where), value)  # text, not markup: "[eth0]" is the instance
    for note in m.notes:
        table.add_row("note", Text(note))
    return table


def demand_table(imported: ImportedDemand) -> Table:
    """What `hvnet import demand` replays: each NIC direction, where it was measured, its samples,
    its 90th percentile and peak (of the bins), and the steps it became."""
    title = f"measured demand: bins of {format_duration(imported.resolution_s)}"
    table = FittedTable(title=title, title_justify="left")
    for header, right in (("NIC", False), ("way", False), ("samples", True), ("p90", True), ("peak", True)):
        table.add_column(header, justify="right" if right else "left", no_wrap=True)
    table.add_column("steps", justify="right", no_wrap=True)
    table.add_column("measured in", overflow="fold")
    for d in imported.series:
        table.add_row(
            d.nic,
            d.direction,
            f"{d.samples:,}",
            format_bitrate(float(f"{d.p90_bps:.3g}")),
            format_bitrate(float(f"{d.peak_bps:.3g}")),
            f"{len(d.steps):,}",
            d.source,
        )
    return table
