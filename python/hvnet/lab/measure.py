"""What the lab measured, read as any real measurement is: the hosts' counter logs and the agents' records.

Each host's log (`HOST.netdev.log`, written by `lab.agent` in docs/import.md's snapshot format)
is read by `hvnet.importers.read_measurement`, the reader of `hvnet import measurement`, and each
NIC direction's bytes and packets are the sums of its rates over the log's intervals (the counters'
increase, exactly). From them:

- **line bytes**: what the NIC's frames took on the twin's line: the counter's bytes (the IP
  packets and their 14-byte Ethernet headers) and 24 bytes a packet (FCS, preamble, inter-frame
  gap), as the token bucket counted them (`lab.plan`);
- **data and ACK bytes**, estimated: the twin moves no ACKs, real TCP does. A NIC direction's
  packets are taken to be full data frames (the connections' MSS + 40 + 38 bytes of line) or pure
  ACKs (78 bytes of line: 40 of headers, no options), and its line bytes split accordingly;
  segments that are neither (a transfer's last, SYN and FIN) make the split approximate, by well
  under a frame per connection;
- **peak**: the highest mean line rate over one sampling interval (0.1 s).

A transfer's **end** is when its receiver had every byte of every stream (the FIN of the last to
arrive), in seconds from the scenario's 0 s; a stream that did not deliver all its bytes leaves
its transfer without an end (never). **Retransmits** are each sender's `TCP_INFO` count, and the
host's TCP counters (`/proc/net/snmp`) over the run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hvnet.importers import Measurement, read_measurement
from hvnet.lab.plan import FRAME_EXTRA_BYTES
from hvnet.lab.prediction import Prediction, Transfer
from hvnet.lab.runner import LabRun

__all__ = ["ACK_LINE_BYTES", "Measured", "NicMeasured", "TransferMeasured", "measure"]

#: A pure ACK on the line: IPv4 and TCP headers (40), Ethernet header (14), FCS, preamble and gap (24).
ACK_LINE_BYTES = 40 + 14 + FRAME_EXTRA_BYTES
_COUNTERS = {
    ("send", "bytes"): "tx_bytes_per_s",
    ("send", "packets"): "tx_packets_per_s",
    ("receive", "bytes"): "rx_bytes_per_s",
    ("receive", "packets"): "rx_packets_per_s",
}


@dataclass(frozen=True)
class NicMeasured:
    host: str
    nic: str
    direction: str  # "send" or "receive"
    #: The counter's bytes and packets over the run, and its frames on the twin's line.
    bytes: int
    packets: int
    line_bytes: int
    #: The line bytes split into full data frames and pure ACKs (estimated: module doc).
    data_line_bytes: int
    ack_line_bytes: int
    #: The highest line rate over one sampling interval (bits/s).
    peak_bps: float


@dataclass(frozen=True)
class TransferMeasured:
    #: Its index in `Prediction.transfers`.
    transfer: int
    end_s: float | None
    received_bytes: int
    retransmits: int
    #: Each stream's end (None: it did not deliver all its bytes).
    stream_ends_s: list[float | None]
    errors: list[str]


@dataclass
class Measured:
    transfers: list[TransferMeasured] = field(default_factory=list)
    nics: list[NicMeasured] = field(default_factory=list)
    #: Per host: the TCP segments it sent and retransmitted over the run (`/proc/net/snmp`).
    tcp: dict[str, dict[str, int]] = field(default_factory=dict)
    #: The agents' own CPU-seconds (their senders, receivers and samplers).
    agents_cpu_s: float = 0.0
    logs: list[Path] = field(default_factory=list)
    measurements: list[Measurement] = field(default_factory=list)


def _sum(measurement: Measurement, instance: str, counter: str) -> tuple[float, list[float], list[float]]:
    """The counter's increase over the log (rate × interval, summed), and its rates and intervals."""
    series = next((s for s in measurement.series if s.instance == instance and s.counter == counter), None)
    if series is None:
        return 0.0, [], []
    total, rates, spans = 0.0, [], []
    for k in range(1, len(series.t_s)):
        value = series.values[k]
        if value is None:
            continue
        span = series.t_s[k] - series.t_s[k - 1]
        total += value * span
        rates.append(value)
        spans.append(span)
    return total, rates, spans


def _nic(measurement: Measurement, host: str, nic: str, direction: str, frame: int) -> NicMeasured:
    count, rates, _ = _sum(measurement, nic, _COUNTERS[(direction, "bytes")])
    packets, packet_rates, _ = _sum(measurement, nic, _COUNTERS[(direction, "packets")])
    line = count + FRAME_EXTRA_BYTES * packets
    data_packets = min(packets, max(0.0, (line - packets * ACK_LINE_BYTES) / max(1, frame - ACK_LINE_BYTES)))
    data = data_packets * frame
    peak = max((8 * (b + FRAME_EXTRA_BYTES * p) for b, p in zip(rates, packet_rates)), default=0.0)
    return NicMeasured(
        host, nic, direction, round(count), round(packets), round(line), round(data), round(line - data), peak
    )


def _frame(prediction: Prediction, host: str, nic: str, mss: list[int]) -> int:
    """A full data frame's line bytes through a NIC: the smaller of its MTU and the largest MSS + 40, + 38."""
    mtu = prediction.scenario.host(host).nic(nic).mtu
    return min(mtu, max(mss, default=mtu - 40) + 40) + 14 + FRAME_EXTRA_BYTES


def _transfer(
    index: int, transfer: Transfer, received: dict[int, dict[str, Any]], sent: dict[int, dict[str, Any]]
) -> TransferMeasured:
    ends: list[float | None] = []
    got, retransmits, errors = 0, 0, []
    for stream in transfer.streams:
        record = received.get(stream.index, {})
        got += int(record.get("bytes", 0))
        complete = record.get("end_s") is not None and int(record.get("bytes", 0)) >= stream.bytes
        ends.append(float(record["end_s"]) if complete else None)
        sender = sent.get(stream.index, {})
        retransmits += int(sender.get("retransmits") or 0)
        if sender.get("error"):
            errors.append(f"connection {stream.index}: {sender['error']}")
    end = None if not ends or any(e is None for e in ends) else max(e for e in ends if e is not None)
    return TransferMeasured(index, end, got, retransmits, ends, errors)


def measure(lab: LabRun, prediction: Prediction) -> Measured:
    """The run's measurements (module doc), in the order of the prediction's transfers and NICs."""
    measured = Measured()
    received = {r["id"]: r for result in lab.results.values() for r in result["received"]}
    sent = {r["id"]: r for result in lab.results.values() for r in result["sent"]}
    measured.transfers = [_transfer(i, t, received, sent) for i, t in enumerate(prediction.transfers)]
    mss = [int(r["mss"]) for r in sent.values() if r.get("mss")]
    for host, log in sorted(lab.logs.items()):
        (measurement,) = read_measurement(log)
        measured.logs.append(log)
        measured.measurements.append(measurement)
        present = {s.instance for s in measurement.series}
        for nic in prediction.scenario.host(host).nics:
            if nic.name not in present:
                continue
            frame = _frame(prediction, host, nic.name, mss)
            measured.nics += [_nic(measurement, host, nic.name, d, frame) for d in ("send", "receive")]
    for host, result in lab.results.items():
        measured.tcp[host] = dict(result.get("tcp", {}))
        measured.agents_cpu_s += float(result.get("cpu_s", 0.0))
    return measured
