"""Try each candidate against the base scenario's requirements; rank them and say why the cheapest that passes wins."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from hvnet.candidates.build import apply
from hvnet.candidates.spec import DEFAULT_CANDIDATES, Candidate
from hvnet.check import CheckResult, Outcome, SurviveResult, check
from hvnet.check.evaluate import room
from hvnet.check.show import figure_text
from hvnet.cost import PriceList, design_cost, format_money, load_prices
from hvnet.errors import HvnetError
from hvnet.model import Scenario, TeamKind
from hvnet.words import counted

__all__ = ["NEEDS_REQUIREMENTS", "SURVIVE_SAMPLE", "Search", "Tried", "search"]

#: At most this many failures of each kind `survive` names are evaluated per candidate, spread
#: evenly (as `hvnet check --limit 4`): the search stays to seconds; check the winner in full.
SURVIVE_SAMPLE = 4

NEEDS_REQUIREMENTS = (
    "nothing to design for: the search needs the scenario's requirements; add a requirements: block, e.g. "
    "requirements: {max_drain: 10min, max_blackout: 500ms, survive: [nic, switch]} (docs/check.md)"
)


@dataclass
class Tried:
    """One candidate: refused or skipped (`reason`), or built, checked and priced."""

    candidate: Candidate
    #: "pass", "fail", "skipped" (not a design to try) or "refused" (the loader refused the design).
    status: str
    reason: str = ""
    result: CheckResult | None = None
    cost: float | None = None
    currency: str = ""

    @property
    def outcomes(self) -> list[Outcome]:
        return [] if self.result is None else self.result.outcomes

    @property
    def survive(self) -> list[SurviveResult]:
        return [] if self.result is None else self.result.survive

    def headroom(self) -> float:
        """The least room (margin over limit) of any requirement, survive cases included."""
        every = self.outcomes + [o for s in self.survive for o in s.outcomes]
        return min((room(o) for o in every), default=0.0)

    def failing(self) -> list[str]:
        """Each failing requirement in words: `max_drain (12 min 30 s > 10 min)`, `survive switch (1 of 2 cases
        fail)`."""
        words = [f"{o.requirement} ({_versus(o, '>')})" for o in self.outcomes if not o.passed]
        for s in self.survive:
            if not s.passed:
                words.append(
                    f"survive {s.kind.value} ({len(s.failed_cases)} of {len(s.cases)} cases fail, e.g. "
                    f"{s.failed_cases[0].label})"
                )
        return words

    def why(self) -> str:
        """Why it is not the answer, in one clause: the reason it was skipped or refused; for a failing
        one, its first failing requirement (one that never completes before one over its limit, the design
        as is before a single failure, then the furthest over): "drain of hv1 takes 8 min 03 s > max_drain
        5 min", "with switch tor1 down, drain of hv1 never ends: hv1 is cut off". "" when it passes."""
        if self.status != "fail":
            return self.reason
        failed = [o for o in self.outcomes if not o.passed] + [o for s in self.survive for o in s.failed]
        if not failed:
            return ""
        return _because(min(failed, key=lambda o: (o.failure is not None, o.figure is not None, room(o))))

    def failed_names(self) -> set[str]:
        """The failing requirements' names: `max_drain`, `survive switch`."""
        names = {o.requirement for o in self.outcomes if not o.passed}
        return names | {f"survive {s.kind.value}" for s in self.survive if not s.passed}

    def passing(self) -> list[str]:
        words = [f"{o.requirement.split('.')[0]} {_versus(o, '≤')}" for o in self.outcomes]
        for s in self.survive:
            sampled = f" (sampled {len(s.cases)} of {s.total})" if len(s.cases) < s.total else ""
            words.append(f"survive {s.kind.value}: all {len(s.cases)} cases hold{sampled}")
        return words


def _versus(outcome: Outcome, sign: str) -> str:
    text = f"{figure_text(outcome.figure, outcome.unit)} {sign} {figure_text(outcome.limit, outcome.unit)}"
    return text if outcome.figure is not None else outcome.cause or f"never: {outcome.worst}"


def _because(outcome: Outcome) -> str:
    """A failing requirement in one clause: its case, figure and limit, or why it has no figure; under
    the single failure it was measured with."""
    if outcome.figure is None:
        text = outcome.cause or f"{outcome.requirement} never: {outcome.worst}"
    else:
        figure, limit = figure_text(outcome.figure, outcome.unit), figure_text(outcome.limit, outcome.unit)
        if outcome.unit == "share":
            text = f"{outcome.worst} at {figure} > {outcome.requirement} {limit}"
        elif outcome.requirement == "max_blackout":
            text = f"{outcome.worst}: blackout {figure} > max_blackout {limit}"
        else:
            text = f"{outcome.worst} takes {figure} > {outcome.requirement} {limit}"
    return text if outcome.failure is None else f"with {outcome.failure.label}, {text}"


@dataclass
class Search:
    """Every candidate tried, ranked: passing first, then failing, then skipped and refused; each
    cheapest first (then fewest failing requirements, then most headroom)."""

    scenario: str
    tried: list[Tried]
    currency: str
    sample: int
    wall_s: float = 0.0
    simulations: int = 0
    requirements: list[str] = field(default_factory=list)

    @property
    def best(self) -> Tried | None:
        return next((t for t in self.tried if t.status == "pass"), None)

    def reasoning(self) -> str:
        """The answer in plain words."""

        def money(t: Tried) -> str:
            return format_money(t.cost or 0.0, self.currency)

        best = self.best
        checked = [t for t in self.tried if t.status in ("pass", "fail")]
        parts: list[str] = []
        if best is None:
            if not checked:
                return "No candidate could be checked: each was skipped or refused (see the list)."
            closest = min(checked, key=lambda t: (len(t.failing()), -t.headroom(), t.cost or 0.0))
            parts.append(
                f"No candidate meets every requirement. The closest, {closest.candidate.name} ({money(closest)}), "
                f"fails {', '.join(closest.failing())}."
            )
            shared = sorted(set.intersection(*(t.failed_names() for t in checked)))
            if shared:
                hint = (
                    " The candidates change NICs, teams and live migration, not the switches: a switch every host "
                    "depends on needs a second one (docs/check.md)."
                    if any(name in ("survive switch", "survive port") for name in shared)
                    else ""
                )
                parts.append(f"Every candidate fails {' and '.join(shared)}.{hint}")
        else:
            parts.append(
                f"{best.candidate.name} ({money(best)}) is the cheapest design that meets every requirement: "
                f"{'; '.join(best.passing())}."
            )
        cheaper = [t for t in checked if t.status == "fail" and (best is None or (t.cost or 0.0) <= (best.cost or 0.0))]
        by_hardware: dict[str, list[Tried]] = {}
        for t in cheaper:
            by_hardware.setdefault(t.candidate.hardware, []).append(t)
        for hardware, group in sorted(by_hardware.items(), key=lambda kv: min(t.cost or 0.0 for t in kv[1])):
            closest = min(group, key=lambda t: (len(t.failing()), -t.headroom()))
            if best is not None and hardware == best.candidate.hardware:
                every = f"On the same hardware, {counted(len(group), 'other setting')} fail{'s' * (len(group) == 1)}"
            elif len(group) > 1:
                every = f"Each of the {len(group)} {hardware} designs fails"
            else:
                every = f"{closest.candidate.name} fails"
            parts.append(
                f"{every}: the closest, {closest.candidate.name} ({money(closest)}), fails "
                f"{', '.join(closest.failing())}."
            )
        if best is not None:
            costlier = [t for t in checked if t.status == "pass" and t is not best]
            if costlier:
                parts.append(
                    f"{len(costlier)} other candidate{'s' * (len(costlier) != 1)} also "
                    f"pass{'' if len(costlier) != 1 else 'es'}, at the same cost or more."
                )
        left = [t for t in self.tried if t.status in ("skipped", "refused")]
        if left:
            reasons = list(dict.fromkeys(t.reason for t in left))
            parts.append(f"{counted(len(left), 'candidate')} not tried: {'; '.join(reasons)}.")
        return " ".join(parts)


def _rank(t: Tried) -> tuple[int, float, int, float, int]:
    """Passing, failing, skipped, refused; each cheapest first, then fewest failing requirements, then
    most headroom, then SET before LBFO (Windows Server 2022 no longer binds a Hyper-V switch to an
    LBFO team unless forced: SET is Microsoft's teaming for Hyper-V); then the candidates' order."""
    order = {"pass": 0, "fail": 1, "skipped": 2, "refused": 3}[t.status]
    cost = t.cost if t.cost is not None else float("inf")
    headroom = round(-t.headroom(), 9) if t.result is not None else 0.0
    return (order, cost, len(t.failing()), headroom, 0 if t.candidate.team is TeamKind.SET else 1)


def search(
    scenario: Scenario,
    candidates: Sequence[Candidate] = DEFAULT_CANDIDATES,
    prices: PriceList | str | None = None,
    sample: int = SURVIVE_SAMPLE,
    progress: Callable[[int, int], None] | None = None,
) -> Search:
    """Build, check (survive sampled to `sample` failures of each kind) and price each candidate.
    HvnetError (NEEDS_REQUIREMENTS) when the scenario has no requirements."""
    requirements = scenario.requirements
    if requirements is None or not (
        requirements.maintenance_window is not None
        or requirements.max_drain is not None
        or requirements.max_blackout is not None
        or requirements.max_utilisation is not None
    ):
        raise HvnetError(NEEDS_REQUIREMENTS)
    price_list = prices if isinstance(prices, PriceList) else load_prices(prices)
    started = time.perf_counter()
    tried: list[Tried] = []
    simulations = 0
    for n, candidate in enumerate(candidates):
        reason = candidate.skip_reason()
        if reason is not None:
            tried.append(Tried(candidate, "skipped", reason))
        else:
            built = apply(scenario, candidate)
            if isinstance(built, str):
                tried.append(Tried(candidate, "refused", built))
            else:
                result = check(built, limit=sample)
                simulations += result.simulations
                priced = design_cost(built, price_list)
                tried.append(
                    Tried(candidate, "pass" if result.passed else "fail", "", result, priced.total, priced.currency)
                )
        if progress is not None:
            progress(n + 1, len(candidates))
    tried.sort(key=_rank)
    names = [o.requirement for t in tried for o in t.outcomes]
    kinds = [f"survive {s.kind.value}" for t in tried for s in t.survive]
    return Search(
        scenario.name,
        tried,
        price_list.currency,
        sample,
        time.perf_counter() - started,
        simulations,
        list(dict.fromkeys(names + kinds)),
    )
