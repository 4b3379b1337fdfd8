"""Utilisation and headroom of every NIC (each team member) and core, exactly.

From the recorded change points (`hvnet.series.Series`) over the whole run,
`[0, end_s)`, nothing binned:

    utilisation u(t):  a NIC's rate in one direction / its link speed; a core's busy share
    p50, p90, p99:     time-weighted percentiles of u (`Series.percentile`)
    max:               the highest instantaneous u (`Series.peak`)
    busy_s:            the time u > BUSY_SHARE (`Series.busy_time`)
    headroom:          1 − p99: what is left 99 % of the time
    team share:        a member's bytes in one direction / its team's bytes in that direction
    hot spot:          HOT_SHARE and COLD_SHARE below: one member carried most of its
                       team's bytes in a direction while another carried almost none

A NIC or core idle for the whole run has all its figures 0 and its headroom 1.
Read-back computes them (`hvnet.readback`: in the core, in the call that scales
the series, `RunReport.figured_series`; here, of `Series` made in Python,
`_core.series_figures`); their models are part of `Results`
(docs/output.md); `tables.utilisation_table` prints them,
`report.sections.utilisation_section` shows them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from hvnet import _core
from hvnet.results import AdapterSeries, CoreSeries, CoreUtilisation, NicUtilisation, TeamUtilisation
from hvnet.series import Series
from hvnet.trusted import trusted

__all__ = [
    "BUSY_SHARE",
    "COLD_SHARE",
    "HOT_SHARE",
    "PERCENTILES",
    "CoreUtilisation",
    "NicUtilisation",
    "TeamUtilisation",
    "core_rows",
    "core_utilisation",
    "figures",
    "nic_rows",
    "nic_scale",
    "nic_utilisation",
    "team_utilisation",
]

#: A NIC direction or a core is busy while its utilisation is above this share (1 %).
BUSY_SHARE = 0.01
#: Hot spot: one member of a team carried more than this share of the team's bytes
#: in a direction (70 %) ...
HOT_SHARE = 0.70
#: ... while another member carried less than this share (10 %).
COLD_SHARE = 0.10


#: The percentiles each figure set holds, and their fields.
_PERCENTILES = ((50.0, "p50_share"), (90.0, "p90_share"), (99.0, "p99_share"))
#: The percentiles alone, in that order (what the core is asked for).
PERCENTILES = tuple(p for p, _ in _PERCENTILES)
#: A NIC's send or receive, in the order each NIC's rows come.
_DIRECTIONS: tuple[Literal["send"], Literal["receive"]] = ("send", "receive")


#: The figures of a NIC direction or core idle for the whole run.
_IDLE = {
    "p50_share": 0.0,
    "p90_share": 0.0,
    "p99_share": 0.0,
    "max_share": 0.0,
    "busy_s": 0.0,
    "headroom_share": 1.0,
}


def figures(shares: Sequence[float], busy_s: float, peak: float) -> dict[str, float]:
    """The figures of `series × scale`, in the order of the models' fields, from its `PERCENTILES` and
    peak (each already times the scale) and its busy time; headroom 1 − p99. All 0 (the core's figures
    of an idle series, `RunReport.figured_series`) make `_IDLE`."""
    out = {name: share for (_, name), share in zip(_PERCENTILES, shares)}
    out["max_share"] = peak
    out["busy_s"] = busy_s
    out["headroom_share"] = 1.0 - out["p99_share"]
    return out


def _figures(series: Series, scale: float, end_s: float) -> dict[str, float]:
    """The percentiles, max, busy time and headroom of `series × scale` over `[0, end_s)` (`_all_figures`)."""
    return _all_figures([series], [scale], end_s)[0]


def _all_figures(series: Sequence[Series], scales: Sequence[float], end_s: float) -> list[dict[str, float]]:
    """The percentiles, max, busy time and headroom of each `series × scale` over `[0, end_s)`, in the
    order of the models' fields (`trusted` keeps it):
    what `Series.percentile`, `peak` and `busy_time` give, each series' pieces sorted once, all
    in one call into the core (`ChangePoints::percentiles_and_busy`, `peak`: a 64-host run has
    thousands of series)."""
    live = [k for k, (s, scale) in enumerate(zip(series, scales)) if scale > 0 and end_s > 0 and s.nonzero()]
    computed = _core.series_figures(
        [(series[k].t_s, series[k].values) for k in live],
        end_s,
        list(PERCENTILES),
        [BUSY_SHARE / scales[k] for k in live],
    )
    out = [dict(_IDLE) for _ in series]
    for k, (shares, busy_s, peak) in zip(live, computed):
        scale = scales[k]
        out[k] = figures([share * scale for share in shares], busy_s, peak * scale)
    return out


def nic_scale(speed_bps: float) -> float:
    """A NIC direction's utilisation per bit/s: 1 / its speed (0 for a NIC of no speed: idle figures)."""
    return 1 / speed_bps if speed_bps > 0 else 0.0


def nic_utilisation(adapters: Sequence[AdapterSeries], end_s: float) -> list[NicUtilisation]:
    """Each NIC's send, then receive, in the order of `adapters`."""
    series = [s for adapter in adapters for s in (adapter.send_bps, adapter.receive_bps)]
    scales = [nic_scale(adapter.speed_bps) for adapter in adapters for _ in _DIRECTIONS]
    bits = [s.integral(0.0, end_s) for s in series]
    return nic_rows(adapters, bits, _all_figures(series, scales, end_s))


def nic_rows(
    adapters: Sequence[AdapterSeries], bits: Sequence[float], figured: Sequence[dict[str, float]]
) -> list[NicUtilisation]:
    """Each NIC's send, then receive, in the order of `adapters`, of each direction's bits over the run
    and its figures, in that order (`nic_utilisation`'s; read-back's, from the core)."""
    carried: dict[tuple[str, str | None, str], float] = {}
    rows: list[tuple[AdapterSeries, Literal["send", "receive"], float]] = []
    moved_bits = iter(bits)
    for adapter in adapters:
        for direction in _DIRECTIONS:
            moved = float(round(next(moved_bits) / 8))
            rows.append((adapter, direction, moved))
            if adapter.team is not None:
                key = (adapter.host, adapter.team, direction)
                carried[key] = carried.get(key, 0.0) + moved
    out = []
    for (adapter, direction, moved), own in zip(rows, figured):
        team_bytes = carried.get((adapter.host, adapter.team, direction), 0.0)
        out.append(
            trusted(  # the fields as validation leaves them (`_figures`: floats), in the model's order
                NicUtilisation,
                {
                    "host": adapter.host,
                    "nic": adapter.nic,
                    "team": adapter.team,
                    "direction": direction,
                    "speed_bps": float(adapter.speed_bps),
                    **own,
                    "carried_bytes": round(moved),
                    "team_share": moved / team_bytes if adapter.team is not None and team_bytes > 0 else None,
                },
            )
        )
    return out


def team_utilisation(nics: Sequence[NicUtilisation]) -> list[TeamUtilisation]:
    """Each team's send, then receive, in the order its members first appear in `nics`."""
    teams: dict[tuple[str, str, str], list[NicUtilisation]] = {}
    for nic in nics:
        if nic.team is not None:
            teams.setdefault((nic.host, nic.team, nic.direction), []).append(nic)
    out = []
    for (host, team, _direction), members in teams.items():
        total = sum(m.carried_bytes for m in members)
        shares = [m.carried_bytes / total if total > 0 else 0.0 for m in members]
        hot = len(shares) > 1 and total > 0 and max(shares) > HOT_SHARE and min(shares) < COLD_SHARE
        out.append(
            TeamUtilisation(
                host=host,
                team=team,
                direction=members[0].direction,
                members=[m.nic for m in members],
                carried_bytes=total,
                member_shares=shares,
                hot_spot=hot,
            )
        )
    return out


def core_utilisation(cores: Sequence[CoreSeries], end_s: float) -> list[CoreUtilisation]:
    """Each core's busy share, in the order of `cores`."""
    return core_rows(cores, _all_figures([c.busy for c in cores], [1.0] * len(cores), end_s))


def core_rows(cores: Sequence[CoreSeries], figured: Sequence[dict[str, float]]) -> list[CoreUtilisation]:
    """Each core's busy share of its figures, in the order of `cores` (`core_utilisation`'s; read-back's,
    from the core)."""
    return [trusted(CoreUtilisation, {"host": c.host, "core": c.core, **f}) for c, f in zip(cores, figured)]
