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
The models are part of `Results` (docs/output.md); `tables.utilisation_table`
prints them, `report.sections.utilisation_section` shows them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from hvnet.series import Series

if TYPE_CHECKING:
    from hvnet.results import AdapterSeries, CoreSeries

__all__ = [
    "BUSY_SHARE",
    "COLD_SHARE",
    "HOT_SHARE",
    "CoreUtilisation",
    "NicUtilisation",
    "TeamUtilisation",
    "core_utilisation",
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


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class NicUtilisation(_Frozen):
    """One NIC (a team member on its own) in one direction over the run."""

    host: str
    nic: str
    #: The host's team it is a member of; None when it is in none.
    team: str | None
    direction: Literal["send", "receive"]
    speed_bps: float
    #: Time-weighted percentiles of rate / speed over [0, end_s) (0 to 1).
    p50_share: float
    p90_share: float
    p99_share: float
    #: The highest instantaneous rate / speed.
    max_share: float
    #: Seconds the rate was above BUSY_SHARE of the speed.
    busy_s: float
    #: 1 − p99_share.
    headroom_share: float
    #: Bytes of line rate (frames included) in this direction over the run.
    carried_bytes: int
    #: carried_bytes / its team's in this direction; None outside a team or when the team carried nothing.
    team_share: float | None


class TeamUtilisation(_Frozen):
    """How a team's bytes in one direction spread over its members."""

    host: str
    team: str
    direction: Literal["send", "receive"]
    #: The members (NIC names), in the team's order.
    members: list[str]
    #: Bytes the team carried in this direction, all members together.
    carried_bytes: int
    #: Each member's share of carried_bytes (0 to 1), in the order of members; all 0 when it carried nothing.
    member_shares: list[float]
    #: One member carried more than HOT_SHARE while another carried less than COLD_SHARE.
    hot_spot: bool


class CoreUtilisation(_Frozen):
    """One physical core's busy share over the run."""

    host: str
    core: int
    p50_share: float
    p90_share: float
    p99_share: float
    max_share: float
    #: Seconds it was busier than BUSY_SHARE.
    busy_s: float
    #: 1 − p99_share.
    headroom_share: float


#: The percentiles each figure set holds, and their fields.
_PERCENTILES = ((50.0, "p50_share"), (90.0, "p90_share"), (99.0, "p99_share"))


def _figures(series: Series, scale: float, end_s: float) -> dict[str, float]:
    """The percentiles, max, busy time and headroom of `series × scale` over `[0, end_s)`:
    what `Series.percentile`, `peak` and `busy_time` give, in one pass over its pieces
    sorted once (a 64-host run has thousands of series)."""
    idle = {"p50_share": 0.0, "p90_share": 0.0, "p99_share": 0.0, "max_share": 0.0, "busy_s": 0.0, "headroom_share": 1.0}
    if not scale > 0 or not end_s > 0 or not series.nonzero():
        return idle
    times, values = series.t_s, series.values
    pieces = [(0.0, min(times[0], end_s))] if times[0] > 0.0 else []
    for i, (start, value) in enumerate(zip(times, values)):
        to = min(times[i + 1] if i + 1 < len(times) else end_s, end_s)
        overlap = to - max(start, 0.0)
        if overlap > 0.0:
            pieces.append((value, overlap))
    threshold = BUSY_SHARE / scale
    busy_s = sum(duration for value, duration in pieces if value > threshold)  # in time order, as Series.busy_time
    pieces.sort()
    out = dict(idle)
    covered, wanted = 0.0, 0
    for value, duration in pieces:
        covered += duration
        while wanted < len(_PERCENTILES) and covered >= _PERCENTILES[wanted][0] / 100.0 * end_s:
            out[_PERCENTILES[wanted][1]] = value * scale
            wanted += 1
    for _, name in _PERCENTILES[wanted:]:
        out[name] = pieces[-1][0] * scale if pieces else 0.0
    out["busy_s"] = busy_s
    out["max_share"] = series.peak() * scale
    out["headroom_share"] = 1.0 - out["p99_share"]
    return out


def nic_utilisation(adapters: Sequence[AdapterSeries], end_s: float) -> list[NicUtilisation]:
    """Each NIC's send, then receive, in the order of `adapters`."""
    carried: dict[tuple[str, str | None, str], float] = {}
    rows: list[tuple[AdapterSeries, Literal["send", "receive"], Series, float]] = []
    for adapter in adapters:
        for direction, series in (("send", adapter.send_bps), ("receive", adapter.receive_bps)):
            moved = float(round(series.integral(0.0, end_s) / 8))
            rows.append((adapter, direction, series, moved))  # type: ignore[arg-type]
            if adapter.team is not None:
                key = (adapter.host, adapter.team, direction)
                carried[key] = carried.get(key, 0.0) + moved
    out = []
    for adapter, direction, series, moved in rows:
        team_bytes = carried.get((adapter.host, adapter.team, direction), 0.0)
        out.append(
            NicUtilisation(
                host=adapter.host,
                nic=adapter.nic,
                team=adapter.team,
                direction=direction,
                speed_bps=adapter.speed_bps,
                carried_bytes=int(round(moved)),
                team_share=moved / team_bytes if adapter.team is not None and team_bytes > 0 else None,
                **_figures(series, 1 / adapter.speed_bps if adapter.speed_bps > 0 else 0.0, end_s),
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
    for (host, team, direction), members in teams.items():
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
    return [CoreUtilisation(host=c.host, core=c.core, **_figures(c.busy, 1.0, end_s)) for c in cores]
