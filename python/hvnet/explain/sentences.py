"""`hvnet explain` in words: what holds the prediction, how the measurement differs, and the verdict.

Every sentence is made from the figures (`evidence`), the bottleneck chain
(`bottleneck`) and the ranked changes (`ranking`); nothing is computed here
but the wording. Rates read as people read them: 6.00 Gbps, 915.2 Mbps.
"""

from __future__ import annotations

from collections.abc import Sequence

from hvnet.explain.bottleneck import Chain, Use, cold_members
from hvnet.explain.counters import CounterComparison
from hvnet.explain.evidence import RESTATED, Figure, differences
from hvnet.explain.ranking import Ranked
from hvnet.explain.recreate import Test
from hvnet.importers.measurement import Measurement
from hvnet.units import format_bitrate, human_duration
from hvnet.validate import TOLERANCE_PCT

__all__ = [
    "NO_SINGLE_CHANGE",
    "chain_summary",
    "counter_lines",
    "evidence_lines",
    "limit_phrase",
    "listed",
    "rate",
    "value",
    "verdict",
]

NO_SINGLE_CHANGE = "no single change explains the measurement"

_WHOSE = {
    "receive cores": "{receiver}'s receive work lands on",
    "send cores": "{sender}'s send work lands on",
    "cores": "the test's send and receive work lands on",
    "receive vCPUs": "{receiver}'s own stack receives on",
    "send vCPUs": "{sender}'s own stack sends from",
}
_LABEL = {
    "send vCPUs": "the sending VM's vCPUs",
    "send cores": "the send cores",
    "cores": "the cores",
    "NIC send": "the sending link",
    "fabric": "the fabric",
    "NIC receive": "the receiving link",
    "receive cores": "the receive cores",
    "receive vCPUs": "the receiving VM's vCPUs",
}


#: What the verdict calls a figure.
_CALLED = {"cycles/byte": "the cycles per byte", "CPU": "the CPU", "average frame": "the average frame"}


def rate(bps: float) -> str:
    """6.00 Gbps from a gigabit per second up, 915.2 Mbps below."""
    return f"{bps / 1e9:,.2f} Gbps" if abs(bps) >= 1e9 else f"{bps / 1e6:,.1f} Mbps"


def value(number: float, unit: str) -> str:
    """A figure's value in its unit, as the tables print it."""
    if unit == "bits/s":
        return rate(number)
    if unit == "percent":
        return f"{number:.2f} %"
    if unit == "bytes":
        return f"{number:,.0f} B"
    if unit == "count":
        return f"{number:,.0f}"
    return f"{number:.3f}"


def listed(items: Sequence[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _pct(share: float) -> str:
    return f"{100 * share:.0f} %"


def _how_long(full_s: float, seconds: float) -> str:
    if full_s >= seconds * (1 - 1e-9):
        return f"for the whole {human_duration(seconds)}"
    return f"for {human_duration(full_s)} of the {human_duration(seconds)}"


def _numbers(uses: Sequence[Use], word: str) -> str:
    """'core 3', 'cores 3 and 4' (the resources' last word)."""
    numbers = [u.resource.rsplit(" ", maxsplit=1)[-1] for u in uses]
    return f"{word}{'' if len(numbers) == 1 else 's'} {listed(numbers)}"


def _busy(uses: Sequence[Use], word: str) -> str:
    """'100 % busy', 'both 100 % busy', 'all 4 100 % busy', or each one's share."""
    shares = [_pct(u.mean_share) for u in uses]
    if len(set(shares)) > 1:
        return f"{listed(shares)} {word}"
    count = "" if len(uses) == 1 else "both " if len(uses) == 2 else f"all {len(uses)} "
    return f"{count}{shares[0]} {word}"


def _link(use: Use) -> str:
    return _links([use])


def _links(uses: Sequence[Use]) -> str:
    """'the 10 Gbps link into hv2/nic2', 'the 10 Gbps links out of hv1/nic1 and hv1/nic2'."""
    speeds = {u.speed_bps for u in uses}
    speed = f"{format_bitrate(speeds.pop())} " if len(speeds) == 1 and None not in speeds else ""
    way = "into" if uses[0].stage == "NIC receive" else "out of"
    return f"the {speed}link{'' if len(uses) == 1 else 's'} {way} {listed([u.resource for u in uses])}"


def _stage_words(chain: Chain, stage: str, test: Test) -> str:
    uses = chain.stage(stage)
    full = [u for u in uses if u.full_s > 0]
    idle = [u for u in uses if u.full_s == 0]
    how_long = _how_long(min(u.full_s for u in full), chain.seconds)
    if stage in ("NIC send", "NIC receive"):
        text = f"{_links(full)} {'is' if len(full) == 1 else 'are'} {_busy(full, 'used')} {how_long}"
        for u in full:
            cold = cold_members(chain.uses, u)
            if cold and u.team is not None:
                others = listed([f"{c.connections or 0} on {c.resource}" for c in cold])
                text += f"; {u.team}'s hash puts {u.connections} of the {test.threads} connections on {u.resource}"
                text += f" ({others})"
        return text
    if stage == "fabric":
        return "; ".join(f"{u.resource} is {_pct(u.mean_share)} used {how_long}" for u in full)
    whose = _WHOSE[stage].format(sender=test.sender, receiver=test.receiver)
    if stage.endswith("vCPUs"):
        where = f"{_numbers(full, 'vCPU')}"
    else:
        where = f"{_numbers(full, 'core')} of {full[0].resource.split(' core ')[0]}"
    text = f"{whose} {where}, {_busy(full, 'busy')} {how_long}"
    if idle:
        text += f" ({', '.join(f'{u.resource}: {_pct(u.mean_share)}' for u in idle)})"
    return text


def _held(chain: Chain, test: Test) -> str:
    held = sum(len(g.threads) for g in chain.groups if g.held_by)
    subject = "it holds" if len(chain.holding) == 1 and "NIC" in chain.holding[0] else "they hold"
    if held == test.threads:
        return f"{subject} {'the connection' if held == 1 else f'all {held} connections'}"
    return f"{subject} {held} of the {test.threads} connections"


def _contrast(chain: Chain) -> str:
    """The fullest resource outside the stages that hold the test, a link first when processors hold it."""
    others = [u for u in chain.uses if u.stage not in chain.holding]
    links = [u for u in others if u.speed_bps is not None]
    held_by_links = any(s.startswith("NIC") or s == "fabric" for s in chain.holding)
    pool = [u for u in others if u.speed_bps is None] if held_by_links else links
    pool = pool or others
    if not pool:
        return ""
    top = max(pool, key=lambda u: u.mean_share)
    only = "only " if top.mean_share < 0.9 else ""
    if top.speed_bps is not None:
        return f" T{_link(top)[1:]} is {only}{_pct(top.mean_share)} used."
    return f" {top.resource} is {only}{_pct(top.mean_share)} busy."


def chain_summary(chain: Chain, test: Test) -> str:
    """What holds the predicted test, in words, and the fullest resource that does not."""
    if not chain.holding:
        if not chain.uses:
            return "No resource on the test's path was used."
        top = max(chain.uses, key=lambda u: u.mean_share)
        return (
            f"No resource on the test's path is full for half of it: the fullest, {top.resource}, is "
            f"{_pct(top.mean_share)} used on average and full for {human_duration(top.full_s)}."
        )
    stages = [_stage_words(chain, stage, test) for stage in chain.holding]
    text = f"{'; '.join(stages)}: {_held(chain, test)}.{_contrast(chain)}"
    return f"T{text[1:]}" if text.startswith("the ") else text


def limit_phrase(chain: Chain) -> str:
    """The stages that hold the test, short: 'the receive cores (hv2 core 3, hv2 core 4)'."""
    parts = []
    for stage in chain.holding:
        full = [u for u in chain.stage(stage) if u.full_s > 0]
        hashed = any(cold_members(chain.uses, u) for u in full)
        label = "the team's hash" if hashed else _LABEL[stage]
        if stage.startswith("NIC") and len(full) > 1 and not hashed:
            label += "s"
        parts.append(f"{label} ({', '.join(u.resource for u in full)})")
    return " and ".join(parts)


def _difference(f: Figure) -> str:
    return (
        f"{f.name}: {value(f.measured, f.unit)} measured against {value(f.predicted, f.unit)} predicted "
        f"({f.gap_pct:+.1f} %)"
    )


def _threads(found: Sequence[Figure]) -> str:
    by_name = {f.name: f for f in found}
    slowest, fastest, spread = by_name["slowest thread"], by_name["fastest thread"], by_name["thread spread"]
    measured = (
        f"{rate(slowest.measured)} to {rate(fastest.measured)}, a spread of {spread.measured:.1f} % of their mean"
    )
    predicted = (
        f"{rate(slowest.predicted)} each"
        if spread.predicted < 0.5
        else f"{rate(slowest.predicted)} to {rate(fastest.predicted)}"
    )
    return f"threads: {measured}, against {predicted} predicted"


def _retransmits(f: Figure, measurement: Measurement, seconds: float) -> str:
    text = f"retransmits: {f.measured:,.0f} ({f.measured / seconds:,.0f} a second"
    if measurement.packets_received and f.measured > 0:
        text += f"; 1 in {measurement.packets_received / f.measured:,.0f} of the packets received"
    return text + "); the twin predicts none: it models no loss"


def evidence_lines(found: Sequence[Figure], measurement: Measurement, seconds: float) -> list[str]:
    """Each difference with its size, the largest first: the figures that are not the throughput
    restated, then the threads, then those with no per cent (retransmits)."""
    outside = differences(list(found))
    lines = [_difference(f) for f in outside if f.name not in RESTATED and f.gap_pct is not None]
    if any(f.name in RESTATED[1:] for f in outside):
        lines.append(_threads(found))
    lines += [_retransmits(f, measurement, seconds) for f in outside if f.name == "retransmits"]
    return lines


def counter_lines(counters: Sequence[CounterComparison]) -> list[str]:
    """Each counter-log series whose p90 is more than ±15 % from the simulation's, with its size."""
    lines = []
    for comparison in counters:
        for row in comparison.rows:
            measured, simulated = row.measured["p90"], row.simulated["p90"]
            gap = 100.0 * (measured - simulated) / simulated if simulated else None
            if gap is not None and abs(gap) > TOLERANCE_PCT:
                lines.append(
                    f"{row.host} {row.what} ({comparison.file}): p90 {value(measured, row.unit)} measured "
                    f"against {value(simulated, row.unit)} simulated ({gap:+.1f} %)"
                )
    return lines


def _explained(best: Ranked, others: Sequence[Ranked]) -> str:
    assert best.predicted_bps is not None and best.remaining_gap_pct is not None
    text = (
        f"{best.name} ({best.description}) explains it: it predicts {rate(best.predicted_bps)}, "
        f"the measurement is {best.remaining_gap_pct:+.1f} % from that."
    )
    return text + (f" So would: {', '.join(r.name for r in others)}." if others else "")


def _unexplained(ranked: Sequence[Ranked], pairs: Sequence[Ranked]) -> str:
    movers = [r for r in ranked if r.moves]
    if not movers:
        return f"{NO_SINGLE_CHANGE.capitalize()}: none of the changes moves the prediction."
    closest = movers[0]
    text = (
        f"{NO_SINGLE_CHANGE.capitalize()}: the closest, {closest.name}, predicts {rate(closest.predicted_bps or 0.0)} "
        f"and still leaves {closest.remaining_gap_pct or 0.0:+.1f} %."
    )
    explaining = [p for p in pairs if p.explains]
    if explaining:
        best = explaining[0]
        return f"{text} Two changes together do: {_explained(best, explaining[1:])}"
    if pairs:
        text += (
            f" Nor do two together: the closest pair, {pairs[0].name}, predicts {rate(pairs[0].predicted_bps or 0.0)} "
            f"and leaves {pairs[0].remaining_gap_pct or 0.0:+.1f} %."
        )
    return f"{text} Look for several differences at once, or one the twin does not model."


def verdict(
    throughput: Figure, ranked: Sequence[Ranked], pairs: Sequence[Ranked], limit: str, main: Figure | None
) -> str:
    """The last line: within the model's uncertainty, or what holds the twin, the main difference and
    the change (or two) that explains the measurement."""
    if throughput.within:
        return (
            f"The measured {rate(throughput.measured)} is within the model's uncertainty of the predicted "
            f"{rate(throughput.predicted)}: the twin agrees with the measurement, nothing to explain."
        )
    direction = "below" if throughput.measured < throughput.predicted else "above"
    text = (
        f"The measured {rate(throughput.measured)} is {direction} the predicted {rate(throughput.predicted)}, "
        "outside the model's uncertainty."
    )
    if limit:
        text += f" The twin's limit is {limit}."
    if main is not None:
        called = _CALLED.get(main.name, main.name)
        text += f" The main difference is {called}: {_difference(main).split(': ', 1)[1]}."
    explaining = [r for r in ranked if r.explains]
    if explaining:
        return f"{text} {_explained(explaining[0], explaining[1:])}"
    return f"{text} {_unexplained(ranked, pairs)}"
