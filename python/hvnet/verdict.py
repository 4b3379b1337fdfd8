"""The verdict of a comparison: which design meets its requirements at the lowest cost,
by how much it beats the others, and what each design's bottleneck is (docs/sweeps.md).

    from hvnet.verdict import verdict
    v = verdict(runs)              # runs of hvnet.compare.run_comparison
    v.text                         # one paragraph in plain words
    v.designs[0].bottleneck        # "hv1 nic2 receive, 100 % for 85 % of the drain"

Everything here is read from the runs already simulated: the main figure (the
main operation's window, or the last transfer's end), the requirements that
this run can answer (``max_drain``, ``maintenance_window``, ``max_blackout``,
``max_utilisation``), and the time each NIC member direction and core spent at
``SATURATED`` of its capacity. ``hvnet check`` evaluates every requirement on
its own clean experiments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hvnet.cost import Verdict as Trade
from hvnet.cost import cost_per_minute_saved, format_money
from hvnet.results import Results
from hvnet.series import Series
from hvnet.units import human_duration

if TYPE_CHECKING:
    from hvnet.compare import Run
    from hvnet.model.scenario import Requirements

__all__ = [
    "NO_REQUIREMENTS",
    "SATURATED",
    "Bottleneck",
    "DesignVerdict",
    "MainFigure",
    "Requirement",
    "Verdict",
    "bottleneck",
    "main_figure",
    "requirements_met",
    "verdict",
]

#: A resource is saturated while it runs at this share of its capacity or more (99 %).
SATURATED = 0.99

#: What the verdict says when no file states requirements.
NO_REQUIREMENTS = "no requirements stated: ranked by the main figure"

#: Requirements a comparison's runs cannot answer: `hvnet check` evaluates them.
_NOT_HERE = ("survive",)


@dataclass(frozen=True)
class MainFigure:
    """What a run is ranked by: the main operation's window, or when its last transfer ended."""

    #: ``drain of hv1``, ``rolling update``, ``migration from hv1``, ``last transfer``.
    name: str
    #: How the bottleneck's window is called: ``the drain``, ``the rolling update``, ``the run``.
    window: str
    #: Seconds; None when it never ended.
    seconds: float | None
    start_s: float
    end_s: float


@dataclass(frozen=True)
class Bottleneck:
    """The resource saturated longest in the main figure's window."""

    #: ``hv1 nic2 receive``, ``hv1 core 3``.
    resource: str
    kind: str  # "nic" or "core"
    #: Seconds at SATURATED of its capacity or more in the window (0: nothing saturated).
    saturated_s: float
    #: saturated_s / the window's length.
    window_share: float
    #: The highest share of its capacity it reached in the window.
    max_share: float
    #: In words: ``hv1 nic2 receive, 100 % for 85 % of the drain``.
    text: str


@dataclass(frozen=True)
class Requirement:
    """One requirement as this run answers it."""

    name: str
    limit: str
    #: The run's figure in words; None when not evaluated here.
    figure: str | None
    met: bool | None


@dataclass(frozen=True)
class DesignVerdict:
    """One design of the comparison: its cost, whether it meets its requirements, its bottleneck."""

    label: str
    cost: float
    currency: str
    main: MainFigure
    #: Core-seconds of the hosts' cores (``Metrics.cpu_core_s``): what breaks a tie.
    cpu_core_s: float
    requirements: tuple[Requirement, ...]
    #: True or False from the requirements evaluated here; None when the file states none.
    meets: bool | None
    #: The requirements stated that this run cannot answer (``hvnet check`` evaluates all).
    not_evaluated: tuple[str, ...]
    bottleneck: Bottleneck
    stalled: bool


@dataclass(frozen=True)
class Verdict:
    designs: tuple[DesignVerdict, ...]
    #: Indices into designs, best first.
    ranking: tuple[int, ...]
    #: The design the verdict picks; None when no design meets its requirements.
    winner: int | None
    text: str


def _percent(share: float) -> str:
    return f"{share * 100:.0f} %"


def main_figure(results: Results) -> MainFigure:
    """The main operation (the first of the run's operations) and its window, or the last transfer."""
    if results.operations:
        op = results.operations[0]
        name, window = op.title(), f"the {op.noun}"
        end = op.end_s if op.end_s is not None else results.end_s
        return MainFigure(name, window, op.duration_s, op.start_s, end)
    ends = [t.end_s for t in results.traffic]
    last = None if None in ends else max((e for e in ends if e is not None), default=0.0)
    return MainFigure("last transfer", "the run", last, 0.0, results.end_s)


def _saturated(series: Series, capacity: float, start: float, end: float) -> tuple[float, float]:
    """Seconds of [start, end) at SATURATED × capacity or more, and the highest share reached there."""
    if not capacity > 0:
        return 0.0, 0.0
    pieces = series._pieces(start, end)
    busy = sum(d for v, d in pieces if v >= SATURATED * capacity * (1 - 1e-12))
    return busy, max((v / capacity for v, _ in pieces), default=0.0)


def bottleneck(results: Results, main: MainFigure | None = None) -> Bottleneck:
    """The NIC member direction or core saturated longest in the main figure's window (the first
    in the run's order on a tie); when none saturates, the one that came nearest."""
    main = main or main_figure(results)
    start, end = main.start_s, main.end_s
    length = end - start
    candidates: list[tuple[str, str, float, float]] = []
    for a in results.adapters:
        for direction, series in (("send", a.send_bps), ("receive", a.receive_bps)):
            busy, top = _saturated(series, a.speed_bps, start, end)
            candidates.append((f"{a.host} {a.nic} {direction}", "nic", busy, top))
    for c in results.cores:
        busy, top = _saturated(c.busy, 1.0, start, end)
        candidates.append((f"{c.host} core {c.core}", "core", busy, top))
    if not candidates:
        return Bottleneck("none", "none", 0.0, 0.0, 0.0, "no NIC or core")
    longest = max(c[2] for c in candidates)
    if longest > 0:
        name, kind, busy, top = next(c for c in candidates if c[2] == longest)
        share = busy / length if length > 0 else 0.0
        text = f"{name}, {_percent(top)} for {_percent(share)} of {main.window}"
        return Bottleneck(name, kind, busy, share, top, text)
    top_share = max(c[3] for c in candidates)
    name, kind, busy, top = next(c for c in candidates if c[3] == top_share)
    return Bottleneck(name, kind, 0.0, 0.0, top, f"nothing saturated; busiest {name}, at most {_percent(top)}")


def requirements_met(
    results: Results, requirements: Requirements | None
) -> tuple[tuple[Requirement, ...], tuple[str, ...]]:
    """The requirements this run answers, each met or not, and those it cannot (with ``survive``)."""
    if requirements is None:
        return (), ()
    out: list[Requirement] = []
    missing: list[str] = []

    def limit_of(seconds: float) -> str:
        return human_duration(seconds)

    def window(kind: str, name: str, limit: float | None) -> None:
        if limit is None:
            return
        ops = [op for op in results.operations if op.kind == kind]
        if not ops:
            missing.append(name)
            return
        worst = None if any(op.duration_s is None for op in ops) else max(op.duration_s or 0.0 for op in ops)
        figure = "never ends" if worst is None else human_duration(worst)
        out.append(Requirement(name, limit_of(limit), figure, worst is not None and worst <= limit))

    window("drain", "max_drain", requirements.max_drain)
    window("rolling_update", "maintenance_window", requirements.maintenance_window)
    if requirements.max_blackout is not None:
        if not results.migrations:
            missing.append("max_blackout")
        else:
            blackouts = [m.blackout_s for m in results.migrations]
            worst_s = None if None in blackouts else max(b for b in blackouts if b is not None)
            figure = "never" if worst_s is None else human_duration(worst_s)
            met = worst_s is not None and worst_s <= requirements.max_blackout
            out.append(Requirement("max_blackout", human_duration(requirements.max_blackout), figure, met))
    if requirements.max_utilisation is not None:
        limits = requirements.max_utilisation.limits()
        nics = results.utilisation
        worst_excess, words, met = -1.0, "", True
        for p, limit in limits.items():
            field = "max_share" if p == "max" else f"{p}_share"
            for nic in nics:
                share = float(getattr(nic, field))
                if share - limit > worst_excess:
                    worst_excess = share - limit
                    words = f"{nic.host} {nic.nic} {nic.direction} {p} {_percent(share)}"
                met = met and share <= limit + 1e-12
        limit_words = ", ".join(f"{p} {_percent(v)}" for p, v in limits.items())
        out.append(Requirement("max_utilisation", limit_words, words or "no NIC", met))
    if requirements.survive:
        missing.append("survive")
    return tuple(out), tuple(missing)


def _design(run: Run) -> DesignVerdict:
    main = main_figure(run.results)
    requirements = run.scenario.requirements if run.scenario is not None else None
    evaluated, missing = requirements_met(run.results, requirements)
    stalled = bool(run.metrics.stalled)
    meets = None if requirements is None else (all(r.met for r in evaluated) and not stalled)
    return DesignVerdict(
        label=run.label,
        cost=run.cost.total if run.cost is not None else 0.0,
        currency=run.cost.currency if run.cost is not None else "",
        main=main,
        cpu_core_s=run.metrics.cpu_core_s,
        requirements=evaluated,
        meets=meets,
        not_evaluated=missing,
        bottleneck=bottleneck(run.results, main),
        stalled=stalled,
    )


def _figure(design: DesignVerdict) -> float:
    """The main figure for ranking, to the microsecond (so that equal windows tie); never: infinity."""
    return round(design.main.seconds, 6) if design.main.seconds is not None else float("inf")


def _cpu(design: DesignVerdict) -> float:
    """CPU time for ranking, to the micro-core-second (so that rounding noise in the last digits
    of equal runs does not order them)."""
    return round(design.cpu_core_s, 6)


def _speed(design: DesignVerdict, index: int) -> tuple[bool, float, float, float, int]:
    """Ranked by the main figure: completed first, then the shortest, the cheapest, the least CPU."""
    return (design.stalled, _figure(design), design.cost, _cpu(design), index)


def verdict(runs: Sequence[Run]) -> Verdict:
    """The comparison's verdict: deterministic, from the runs alone."""
    designs = tuple(_design(run) for run in runs)
    stated = any(d.meets is not None for d in designs)
    order = range(len(designs))
    if stated:
        # Those that meet their requirements first, cheapest first; then the others by the main figure.
        ranking = sorted(
            order,
            key=lambda i: (
                not designs[i].meets,
                designs[i].cost if designs[i].meets else 0.0,
                designs[i].stalled,
                _figure(designs[i]),
                designs[i].cost,
                _cpu(designs[i]),
                i,
            ),
        )
        winner = ranking[0] if ranking and designs[ranking[0]].meets else None
    else:
        ranking = sorted(order, key=lambda i: _speed(designs[i], i))
        winner = ranking[0] if ranking and not designs[ranking[0]].stalled else None
    return Verdict(designs, tuple(ranking), winner, _text(designs, ranking, winner, stated))


def _name(design: DesignVerdict) -> str:
    """A design's label, in quotes when it holds a comma or a colon (``"jumbo=9000, algorithm=dynamic"``)."""
    return f'"{design.label}"' if "," in design.label or ":" in design.label else design.label


def _figure_words(design: DesignVerdict) -> str:
    return "never ends" if design.main.seconds is None else human_duration(design.main.seconds)


def _money(design: DesignVerdict) -> str:
    return format_money(design.cost, design.currency)


def _against(win: DesignVerdict, other: DesignVerdict) -> str:
    """``drain of hv1 48.00 s vs 2 min 10 s for B (USD 1,200.00 more for 1 min 22 s saved: ...)``"""
    if _figure(win) == _figure(other) and win.main.seconds is not None:
        cost = (
            "at the same cost"
            if win.cost == other.cost
            else (
                f"for {format_money(abs(win.cost - other.cost), win.currency)} "
                f"{'less' if win.cost < other.cost else 'more'}"
            )
        )
        return f"{_name(other)} ties on {win.main.name} ({_figure_words(win)}) {cost}, " + (
            f"with the same CPU time ({win.cpu_core_s:.2f} core-s)"
            if f"{win.cpu_core_s:.2f}" == f"{other.cpu_core_s:.2f}"
            else f"with {win.cpu_core_s:.2f} vs {other.cpu_core_s:.2f} core-s of CPU"
        )
    trade = cost_per_minute_saved(other.cost, win.cost, other.main.seconds, win.main.seconds)
    if trade.verdict is Trade.SAME or trade.extra_cost == 0:
        money = "the same cost"
    elif trade.verdict is Trade.NOT_COMPARABLE:
        money = f"{format_money(abs(trade.extra_cost), win.currency)} {'more' if trade.extra_cost > 0 else 'less'}"
    else:
        money = trade.describe(win.currency, "min")
    return f"{win.main.name} {_figure_words(win)} vs {_figure_words(other)} for {_name(other)} ({money})"


def _text(designs: Sequence[DesignVerdict], ranking: Sequence[int], winner: int | None, stated: bool) -> str:
    if not designs:
        return "Nothing to compare."
    parts: list[str] = []
    if not stated:
        parts.append(f"{NO_REQUIREMENTS[0].upper()}{NO_REQUIREMENTS[1:]}.")
    if winner is None:
        if stated:
            parts.append("No design meets its requirements.")
        else:
            parts.append("No design completes all its traffic and migrations.")
    else:
        parts.extend(_winner_text(designs, ranking, winner, stated))
    failing = [d for d in designs if d.meets is False]
    if failing:
        reasons = []
        for d in failing:
            missed = [f"{r.name} {r.limit}: {r.figure}" for r in d.requirements if r.met is False]
            if d.stalled:
                missed.append("traffic or migrations never complete")
            reasons.append(f"{_name(d)} ({'; '.join(missed)})")
        parts.append(f"Not meeting the requirements: {', '.join(reasons)}.")
    unevaluated = sorted({name for d in designs for name in d.not_evaluated})
    if unevaluated:
        parts.append(f"Not evaluated here: {', '.join(unevaluated)} (hvnet check evaluates all).")
    groups: dict[str, list[str]] = {}
    for d in designs:
        groups.setdefault(d.bottleneck.text, []).append(_name(d))
    if len(designs) == 1:
        parts.append(f"Bottleneck: {designs[0].bottleneck.text}.")
    else:
        parts.append(
            "Bottlenecks: " + "; ".join(f"{', '.join(labels)}: {text}" for text, labels in groups.items()) + "."
        )
    return " ".join(parts)


def _meets(design: DesignVerdict) -> str:
    """What the winner meets: the requirements, or only those evaluated here when some are not."""
    if not design.not_evaluated:
        return "meets the requirements at the lowest cost"
    evaluated = [r.name for r in design.requirements]
    if not evaluated:
        return "is the cheapest; none of its requirements is evaluated here"
    return f"meets the requirements evaluated here ({', '.join(evaluated)}) at the lowest cost"


def _winner_text(designs: Sequence[DesignVerdict], ranking: Sequence[int], winner: int, stated: bool) -> list[str]:
    """The winner, how it compares with the next (and the next slower when the next is as fast), and the
    fastest design's price per minute saved when that is another one."""
    win = designs[winner]
    how = _meets(win) if stated else f"is the fastest ({win.main.name} {_figure_words(win)})"
    parts = [f"{_name(win)} {how}: {_money(win)}."]
    others = [i for i in ranking if i != winner]
    if others:
        parts.append(f"Against the next, {_against(win, designs[others[0]])}.")
        slower = [i for i in others if _figure(designs[i]) > _figure(win)]
        if slower and _figure(designs[others[0]]) == _figure(win):
            parts.append(f"Against the next slower, {_against(win, designs[slower[0]])}.")
    fastest = min(range(len(designs)), key=lambda i: _speed(designs[i], i))
    others = others or [winner]
    if stated and fastest not in (winner, others[0]) and _figure(designs[fastest]) < _figure(win):
        fast = designs[fastest]
        trade = cost_per_minute_saved(win.cost, fast.cost, win.main.seconds, fast.main.seconds)
        parts.append(
            f"The fastest, {_name(fast)}, takes {_figure_words(fast)}: {trade.describe(win.currency, 'min')}"
            f"{'' if fast.meets else ', and does not meet the requirements'}."
        )
    return parts
