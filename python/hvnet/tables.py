"""Terminal tables of results, in the words and units an administrator uses."""

from __future__ import annotations

from rich.table import Table

from hvnet.results import Results
from hvnet.units import format_bitrate, format_bytes

__all__ = ["results_tables"]


def _seconds(value: float | None) -> str:
    return "never" if value is None else f"{value:.2f} s"


def results_tables(results: Results) -> list[Table]:
    traffic = Table(title=f"{results.scenario}: traffic", title_justify="left")
    for column in ("traffic", "from → to", "size", "conns", "start", "end", "duration", "mean rate"):
        traffic.add_column(column, justify="left" if column in ("traffic", "from → to") else "right")
    for t in results.traffic:
        traffic.add_row(
            t.name or "",
            f"{t.source} → {t.destination}",
            format_bytes(t.size_bytes),
            str(t.connections),
            _seconds(t.start_s),
            _seconds(t.end_s),
            _seconds(t.duration_s),
            "-" if t.mean_bps is None else format_bitrate(t.mean_bps),
            style="red" if t.end_s is None else None,
        )
    adapters = Table(title="adapters: peak send / receive (per step)", title_justify="left")
    for column in ("host", "NIC", "speed", "peak send", "peak receive"):
        adapters.add_column(column, justify="left" if column in ("host", "NIC") else "right")
    for a in results.adapters:
        adapters.add_row(
            a.host,
            a.nic,
            format_bitrate(a.speed_bps),
            format_bitrate(max(a.send_bps, default=0.0)),
            format_bitrate(max(a.receive_bps, default=0.0)),
        )
    stalled = len(results.stalled)
    summary = Table.grid(padding=(0, 2))
    summary.add_row(
        f"end {results.end_s:.2f} s",
        f"{len(results.traffic) - stalled} of {len(results.traffic)} traffic entries completed",
        f"engine {results.events} events in {results.wall_s * 1000:.1f} ms",
    )
    return [traffic, adapters, summary]
