"""The normalised record of one measurement file (`hvnet import measurement`).

Every importer turns its tool's output into one `Measurement`. Units are in
the field names, as everywhere in hvnet: ``_s`` seconds, ``_bps`` bits per
second, ``_bytes`` bytes, ``_percent`` per cent. What a tool calls "MB" or
"kB" is converted here once, by the importer that knows which MB it means
(NTttcp for Windows: 2^20 bytes; ntttcp-for-linux: 10^6 bytes; sysstat: kB
is 1024 bytes), so nothing downstream has to know.

docs/import.md describes every field; a test keeps the page and these models
in agreement.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from hvnet.errors import InputError

__all__ = [
    "DOCUMENT_VERSION",
    "InterfaceCounters",
    "Interval",
    "Measurement",
    "Parameters",
    "Series",
    "Stream",
    "fail",
    "measurement_document",
]

#: Version of the `--json` document; bumped when a field changes meaning or is removed.
DOCUMENT_VERSION = 1

Role = Literal["sender", "receiver"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Parameters(_Record):
    """What the run was asked to do, as far as the file records it."""

    command_line: str | None = Field(None, description="The command as typed, when the file shows it.")
    protocol: str | None = Field(None, description="'tcp' or 'udp'.")
    threads: int | None = Field(None, description="Threads or parallel streams (-m N / -P N).")
    buffer_bytes: int | None = Field(None, description="Send/receive buffer or block size of one call (-l).")
    send_socket_buffer_bytes: int | None = None
    recv_socket_buffer_bytes: int | None = None
    direction: str | None = Field(None, description="'send', 'receive', 'reverse' or 'bidirectional'.")
    requested_duration_s: float | None = Field(None, description="The duration asked for (-t).")
    warmup_s: float | None = None
    cooldown_s: float | None = None
    local_address: str | None = None
    local_port: int | None = None
    remote_address: str | None = None
    remote_port: int | None = None
    time_zone: str | None = Field(None, description="Counter logs: the time zone the timestamps are in.")
    other: dict[str, str] = Field(default_factory=dict, description="Every other parameter, as written.")


class Stream(_Record):
    """One thread (NTttcp) or stream (iperf3): its own totals."""

    index: int
    duration_s: float | None = None
    bytes: int | None = None
    throughput_bps: float
    retransmits: int | None = None


class Interval(_Record):
    """One reporting interval of a run (iperf3 `intervals`): all streams together."""

    start_s: float
    end_s: float
    bytes: int
    throughput_bps: float
    retransmits: int | None = None
    omitted: bool = False


class Series(_Record):
    """A counter log's values of one counter for one instance, over time."""

    counter: str = Field(description="Counter name: hvnet's (rx_bytes_per_s) or the log's own (Bytes Received/sec).")
    instance: str | None = Field(None, description="Interface, adapter or other instance; None for a single one.")
    host: str | None = None
    unit: str | None = Field(None, description="bytes/s, packets/s, 1/s, bits/s, percent, count; None if unknown.")
    source: str = Field(description="The column, path or key the values were read from, as written.")
    t_s: list[float] = Field(description="Seconds since the log's first sample.")
    values: list[float | None] = Field(description="One per time; None where the log has no value.")


class InterfaceCounters(_Record):
    """Cumulative counters of one network interface at one moment (/proc/net/dev, ip -s link)."""

    interface: str
    rx_bytes: int
    rx_packets: int
    rx_errors: int
    rx_dropped: int
    tx_bytes: int
    tx_packets: int
    tx_errors: int
    tx_dropped: int
    other: dict[str, int] = Field(default_factory=dict, description="Every other counter, named rx_*/tx_*.")


class Measurement(_Record):
    """One measurement file, normalised."""

    file: str
    format: str = Field(description="The format detected, e.g. ntttcp-windows-text; see `hvnet import measurement`.")
    tool_version: str | None = None
    host: str | None = Field(None, description="Computer the file was written on, when it says.")
    role: Role | None = None
    start_time: str | None = Field(None, description="First timestamp as written (counter logs).")
    duration_s: float | None = None
    total_bytes: int | None = None
    throughput_bps: float | None = Field(None, description="The file's own total throughput, in bits/s.")
    sent_throughput_bps: float | None = Field(None, description="iperf3: what the sender put on the wire.")
    received_throughput_bps: float | None = Field(None, description="iperf3: what the receiver got.")
    cpu_percent: float | None = Field(None, description="Machine-wide busy CPU over the run, 0-100.")
    cpu_detail_percent: dict[str, float] = Field(default_factory=dict)
    retransmits: int | None = None
    packets_sent: int | None = None
    packets_received: int | None = None
    lost_packets: int | None = Field(None, description="UDP: datagrams lost.")
    jitter_s: float | None = Field(None, description="UDP: jitter.")
    parameters: Parameters = Field(default_factory=Parameters)
    streams: list[Stream] = Field(default_factory=list)
    intervals: list[Interval] = Field(default_factory=list)
    series: list[Series] = Field(default_factory=list)
    interfaces: list[InterfaceCounters] = Field(default_factory=list)
    extra: dict[str, float] = Field(default_factory=dict, description="Other figures the tool printed, by its names.")
    notes: list[str] = Field(default_factory=list, description="What was read but not understood (one line each).")


def measurement_document(measurements: list[Measurement]) -> dict[str, object]:
    """The `--json` document: a version and one record per file, in the order given."""
    return {
        "version": DOCUMENT_VERSION,
        "measurements": [m.model_dump(mode="json") for m in measurements],
    }


def fail(file: str, line: int | None, field: str, message: str) -> InputError:
    """The one error an importer raises: `file:line: field: message`."""
    return InputError(file, line, field, message)
