"""Measured beside predicted, at the lab's scale: each transfer's end, each NIC's bytes and peak.

Both sides are of the same scaled scenario (`lab.scaling`): the prediction is `hvnet.simulate`'s
(`lab.prediction`), the measurement the lab's (`lab.measure`). The report (`LabReport`, the JSON
of `hvnet lab run --json`, docs/lab.md) holds, in SI units named in each field:

- **transfers** (traffic entries, then migrations): the twin's start and end, the lab's end, the
  gap (measured less predicted) in seconds and in per cent of the predicted duration, the
  retransmits, and each stream's end on both sides;
- **NICs** (each cabled host NIC, send then receive): the twin's line bytes beside the lab's
  data frames (`lab.measure`: the twin carries no ACKs, so those are compared), the lab's line
  bytes and ACK bytes, and the peak line rate over 0.1 s on both sides;
- the run: its id, scales, files, the machine's CPU, the hosts' TCP counters, the failures and
  moves as applied (planned and actual time), and notes (what the lab did differently).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from hvnet.lab.measure import Measured
from hvnet.lab.prediction import Prediction
from hvnet.lab.runner import LabRun
from hvnet.lab.scaling import Scale
from hvnet.results import NicUtilisation

__all__ = ["ActionRow", "LabReport", "NicRow", "TransferRow", "compare", "gap_pct"]

#: The twin's peak is its mean over the lab's sampling interval.
SAMPLE_S = 0.1


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TransferRow(_Row):
    kind: str
    name: str
    source: str
    destination: str
    bytes: int
    connections: int
    start_s: float
    predicted_end_s: float | None
    measured_end_s: float | None
    gap_s: float | None
    #: Of the predicted duration (end less start).
    gap_pct: float | None
    retransmits: int
    predicted_stream_ends_s: list[float | None]
    measured_stream_ends_s: list[float | None]
    errors: list[str]


class NicRow(_Row):
    host: str
    nic: str
    direction: str
    speed_bps: float
    #: The twin's line bytes (frames of its transfers; no ACKs).
    predicted_bytes: int
    #: The lab's data frames, on the same line (estimated from bytes and packets: docs/lab.md).
    measured_bytes: int
    measured_line_bytes: int
    measured_ack_bytes: int
    gap_pct: float | None
    predicted_peak_bps: float
    measured_peak_bps: float
    peak_gap_pct: float | None


class ActionRow(_Row):
    at_s: float
    applied_s: float
    what: str
    errors: str


class LabReport(_Row):
    version: int = 1
    scenario: str
    file: str
    run: str
    rate_scale: float
    time_scale: float
    #: A switch port's buffer, in seconds at its (scaled) rate.
    buffer_s: float
    #: Where the measurements are, and the files in it.
    out: str
    files: list[str]
    #: The command that sets these measurements beside the twin as any real ones.
    explain: str
    #: How the scenario's teams were emulated (None: it has none).
    teams: str | None
    kept: bool
    predicted_end_s: float
    measured_s: float
    cpus: int
    cpu_busy_percent: float | None
    agents_cpu_s: float
    #: Per host: TCP segments sent and retransmitted over the run.
    tcp: dict[str, dict[str, int]]
    transfers: list[TransferRow]
    nics: list[NicRow]
    actions: list[ActionRow]
    notes: list[str]


def gap_pct(measured: float | None, predicted: float | None) -> float | None:
    if measured is None or predicted is None or predicted == 0:
        return None
    return 100.0 * (measured - predicted) / predicted


def _teams(lab: LabRun) -> str | None:
    if lab.bonding is None:
        return None
    kernel = "this kernel has bonding" if lab.bonding else "this kernel has no bonding"
    return (
        f"{kernel}; each team member is its own interface, and each connection is pinned to the member "
        "hvnet's teaming chose (and moved where it moved it), so the lab measures the network's sharing "
        "given the team's choices"
    )


def _transfers(prediction: Prediction, measured: Measured) -> list[TransferRow]:
    rows = []
    for transfer, got in zip(prediction.transfers, measured.transfers):
        predicted, end = transfer.end_s, got.end_s
        gap = None if predicted is None or end is None else end - predicted
        duration = None if predicted is None else predicted - transfer.start_s
        rows.append(
            TransferRow(
                kind=transfer.kind,
                name=transfer.name,
                source=transfer.source,
                destination=transfer.target,
                bytes=transfer.bytes,
                connections=len(transfer.streams),
                start_s=transfer.start_s,
                predicted_end_s=predicted,
                measured_end_s=end,
                gap_s=gap,
                gap_pct=None if gap is None or not duration else 100.0 * gap / duration,
                retransmits=got.retransmits,
                predicted_stream_ends_s=[s.end_s for s in transfer.streams],
                measured_stream_ends_s=got.stream_ends_s,
                errors=got.errors,
            )
        )
    return rows


def _nics(prediction: Prediction, measured: Measured) -> list[NicRow]:
    results = prediction.results
    carried: dict[tuple[str, str, str], NicUtilisation] = {(u.host, u.nic, u.direction): u for u in results.utilisation}
    adapters = {(a.host, a.nic): a for a in results.adapters}
    rows = []
    for nic in measured.nics:
        use = carried.get((nic.host, nic.nic, nic.direction))
        adapter = adapters.get((nic.host, nic.nic))
        series = None if adapter is None else adapter.send_bps if nic.direction == "send" else adapter.receive_bps
        means = series.resample(SAMPLE_S, results.end_s) if series is not None and results.end_s > 0 else []
        peak = max(means, default=0.0)
        predicted = 0 if use is None else use.carried_bytes
        rows.append(
            NicRow(
                host=nic.host,
                nic=nic.nic,
                direction=nic.direction,
                speed_bps=0.0 if adapter is None else adapter.speed_bps,
                predicted_bytes=predicted,
                measured_bytes=nic.data_line_bytes,
                measured_line_bytes=nic.line_bytes,
                measured_ack_bytes=nic.ack_line_bytes,
                gap_pct=gap_pct(nic.data_line_bytes, predicted),
                predicted_peak_bps=peak,
                measured_peak_bps=nic.peak_bps,
                peak_gap_pct=gap_pct(nic.peak_bps, peak),
            )
        )
    return rows


def compare(
    prediction: Prediction,
    lab: LabRun,
    measured: Measured,
    scale: Scale,
    file: str,
    files: list[str],
    explain: str,
    buffer_s: float,
) -> LabReport:
    """The run's report (module doc)."""
    return LabReport(
        scenario=prediction.scenario.name,
        file=file,
        run=lab.run,
        rate_scale=scale.rate,
        time_scale=scale.time,
        buffer_s=buffer_s,
        out=str(lab.out),
        files=files,
        explain=explain,
        teams=_teams(lab),
        kept=lab.kept,
        predicted_end_s=prediction.results.end_s,
        measured_s=lab.seconds,
        cpus=lab.cpus,
        cpu_busy_percent=None if lab.cpu_busy is None else 100.0 * lab.cpu_busy,
        agents_cpu_s=measured.agents_cpu_s,
        tcp=measured.tcp,
        transfers=_transfers(prediction, measured),
        nics=_nics(prediction, measured),
        actions=[ActionRow(at_s=a.at_s, applied_s=a.applied_s, what=a.what, errors=a.errors) for a in lab.actions],
        notes=[*prediction.notes, *lab.notes],
    )
