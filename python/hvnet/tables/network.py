"""The tables of traffic, adapters, and NIC and core utilisation."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from hvnet.results import CoreUtilisation, NicUtilisation, Results, TrafficResult
from hvnet.tables.cells import fitted_table, nic, rate, seconds
from hvnet.units import format_bitrate, format_bytes
from hvnet.utilisation import BUSY_SHARE, COLD_SHARE, HOT_SHARE
from hvnet.words import counted

__all__ = [
    "ADAPTERS_TITLE",
    "UTILISATION_ROWS",
    "adapters_table",
    "cores_utilisation_table",
    "traffic_table",
    "utilisation_table",
]

#: The utilisation tables show this many rows, the busiest (all are in --json and --report).
UTILISATION_ROWS = 20


def _via(t: TrafficResult) -> str:
    """The NICs its connections left by → arrived on, and how often they moved."""
    starts = sorted({f"{nic(c.nics[0].out_nic)} → {nic(c.nics[0].in_nic)}" for c in t.connection_results if c.nics})
    moves = sum(len(c.nics) - 1 for c in t.connection_results)
    text = ", ".join(starts) if len(starts) <= 2 else f"{len(starts)} NIC pairs"
    if t.connections > 1:
        text = f"{t.connections}× {text}"
    return text + (f" ({counted(moves, 'move')})" if moves else "")


def _blackholed(t: TrafficResult) -> str:
    stalled = [c.stalled_since_s for c in t.connection_results if c.stalled_since_s is not None]
    if stalled:
        return f"since {seconds(min(stalled))}"
    return seconds(t.blackholed_s) if t.blackholed_s else "-"


def _size(t: TrafficResult) -> str:
    """A transfer's size (a series': what its rates send); a steady flow's rate (its duration is start to end)."""
    return format_bytes(t.size_bytes) if t.rate_bps is None else f"{rate(t.rate_bps)} steady"


def _short(t: TrafficResult) -> bool:
    """A steady flow or a series that ended having sent less than it meant to."""
    kept = t.kept()
    return kept is not None and kept < 1 - 1e-6


def _mean(t: TrafficResult) -> str:
    """The mean rate; a steady flow or a series that fell short: the share it kept."""
    if t.mean_bps is None:
        return "-"
    kept = t.kept()
    return f"{rate(t.mean_bps)} ({kept:.0%})" if kept is not None and _short(t) else rate(t.mean_bps)


def traffic_table(results: Results) -> Table:
    """One row per traffic entry: where it went, over which NICs, how fast; red if it never completed,
    or a steady flow that kept less than its rate (the share it kept beside its mean)."""
    rows = [
        [
            t.name or "",
            f"{t.source} → {t.destination}",
            _via(t),
            _size(t),
            seconds(t.start_s),
            seconds(t.end_s),
            _mean(t),
            _blackholed(t),
        ]
        for t in results.traffic
    ]
    columns: list[tuple[str, bool | str]] = [
        ("traffic", "word"),
        ("from → to", False),
        ("via NICs", False),
        ("size\nor rate", True),
    ]
    columns += [("start", True)]
    columns += [("end", True), ("mean\nrate", True), ("black-\nholed", True)]
    styles = ["red" if t.end_s is None or _short(t) else None for t in results.traffic]
    return fitted_table(f"{results.scenario}: traffic", columns, rows, styles)


#: The adapters table's title: what its peaks are (each member alone, each direction, the whole run).
ADAPTERS_TITLE = "adapters: each NIC (team member) alone; peak = highest instantaneous line rate over the whole run"


def adapters_table(results: Results) -> Table:
    """One row per NIC (each team member on its own): its speed and its exact peak send
    and receive, the highest instantaneous line rate (frame overhead included) out of
    and into that NIC over the whole run, from the change points (not a mean over a step)."""
    rows = [
        [a.host, a.nic, format_bitrate(a.speed_bps), rate(a.send_bps.peak()), rate(a.receive_bps.peak())]
        for a in results.adapters
    ]
    columns: list[tuple[str, bool | str]] = [
        ("host", "word"),
        ("NIC", "word"),
        ("speed", True),
        ("peak send\n(out)", True),
        ("peak receive\n(in)", True),
    ]
    return fitted_table(ADAPTERS_TITLE, columns, rows)


def _share(value: float) -> str:
    """A share as a percentage: whole percent, one decimal under 10 % (0.6%), 0% for none."""
    percent = 100 * value
    return f"{percent:.1f}%" if 0 < percent < 9.95 else f"{percent:.0f}%"


def _busiest(figures: Sequence[NicUtilisation] | Sequence[CoreUtilisation]) -> list[int]:
    """Indices of `figures`, busiest first: highest p99, then max, then busy time."""
    return sorted(
        range(len(figures)), key=lambda i: (-figures[i].p99_share, -figures[i].max_share, -figures[i].busy_s, i)
    )


def _more(shown: int, total: int, what: str) -> str | None:
    return None if total <= shown else f"and {total - shown} more {what}, less busy (all in --json and --report)"


def utilisation_table(results: Results, rows: int | None = UTILISATION_ROWS) -> Table:
    """One row per NIC (each team member) and direction, busiest first (p99, then max): its
    time-weighted p50, p90, p99 and max utilisation (rate / speed) over the whole run, the
    time it was busy, its headroom (1 − p99) and its share of its team's bytes in that
    direction; `(hot)` after the member that makes its team a hot spot (hvnet.utilisation); at most `rows` rows
    (None: all), then a line saying how many more."""
    nics = results.utilisation
    order = _busiest(nics)
    shown = order if rows is None else order[:rows]
    hot = {(t.host, t.team, t.direction) for t in results.teams_utilisation if t.hot_spot}
    cells = []
    for i in shown:
        u = nics[i]
        name = f"{u.host}/{u.nic}"
        if (u.host, u.team, u.direction) in hot and u.team_share is not None and u.team_share > HOT_SHARE:
            name += " (hot)"  # a name may wrap; the numbers keep their width
        cells.append(
            [
                name,
                u.direction,
                _share(u.p50_share),
                _share(u.p90_share),
                _share(u.p99_share),
                _share(u.max_share),
                seconds(u.busy_s),
                _share(u.headroom_share),
                "-" if u.team_share is None else _share(u.team_share),
            ]
        )
    title = (
        f"utilisation: rate / speed per NIC (team member) and direction over the whole run, busiest first; "
        f"busy = above {BUSY_SHARE:.0%}; headroom = 1 − p99; hot = a member carried over {HOT_SHARE:.0%} "
        f"of its team's bytes, another under {COLD_SHARE:.0%}"
    )
    columns: list[tuple[str, bool | str]] = [
        ("NIC", "word"),
        ("direction", "word"),
        ("p50", True),
        ("p90", True),
        ("p99", True),
        ("max", True),
    ]
    columns += [("busy", True), ("head-\nroom", True), ("of team", True)]
    table = fitted_table(title, columns, cells)
    table.caption = _more(len(shown), len(nics), "NIC directions")
    table.caption_justify = "left"
    return table


def cores_utilisation_table(results: Results, rows: int | None = UTILISATION_ROWS) -> Table:
    """One row per physical core that did network work, busiest first: its time-weighted p50,
    p90, p99 and max busy share over the whole run, busy time and headroom (1 − p99); at
    most `rows` rows (None: all), then a line saying how many more."""
    cores = [c for c in results.cores_utilisation if c.max_share > 0]
    order = _busiest(cores)
    shown = order if rows is None else order[:rows]
    cells = [
        [
            cores[i].host,
            str(cores[i].core),
            _share(cores[i].p50_share),
            _share(cores[i].p90_share),
            _share(cores[i].p99_share),
            _share(cores[i].max_share),
            seconds(cores[i].busy_s),
            _share(cores[i].headroom_share),
        ]
        for i in shown
    ]
    title = "cores: busy share of each core that did network work over the whole run, busiest first"
    columns: list[tuple[str, bool | str]] = [
        ("host", "word"),
        ("core", True),
        ("p50", True),
        ("p90", True),
        ("p99", True),
        ("max", True),
    ]
    columns += [("busy", True), ("head-\nroom", True)]
    table = fitted_table(title, columns, cells)
    table.caption = _more(len(shown), len(cores), "cores")
    table.caption_justify = "left"
    return table
