"""iperf3 ``-J`` JSON, client or server, TCP or UDP.

The shape is the one esnet/iperf writes (src/iperf_api.c): ``start``
(version, connected sockets, ``connecting_to`` on the client or
``accepted_connection`` on the server, ``test_start`` with protocol,
num_streams, blksize, duration, reverse, bidir), ``intervals`` (each with
``streams`` and a ``sum``) and ``end`` (per-stream ``sender``/``receiver``
or ``udp`` summaries, ``sum_sent``, ``sum_received``, UDP's ``sum``, and
``cpu_utilization_percent``). A failed run has a top-level ``error``.

Rates in iperf3's JSON are already bits per second. The record's
``throughput_bps`` is ``sum_received`` (what arrived, the figure iperf3's
own summary calls the receiver's), ``sent_throughput_bps`` is ``sum_sent``;
for UDP, older iperf3 versions write only ``sum``, which then serves for both.
"""

from __future__ import annotations

from typing import Any

from hvnet.importers._read import parse_json
from hvnet.importers.measurement import Interval, Measurement, Parameters, Stream, fail

__all__ = ["read_iperf3"]


def _number(value: Any, file: str, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(file, None, field, f"expected a number, found {value!r}")
    return float(value)


def _get(obj: Any, key: str, file: str, field: str) -> Any:
    if not isinstance(obj, dict):
        raise fail(file, None, field, "expected an object")
    if key not in obj:
        raise fail(file, None, f"{field}.{key}" if field else key, "missing (a truncated or partial iperf3 -J file?)")
    return obj[key]


def read_iperf3(text: str, file: str) -> Measurement:
    document = parse_json(text, file, "iperf3")
    if not isinstance(document, dict) or "start" not in document:
        raise fail(file, 1, "", "expected an iperf3 -J object with 'start', 'intervals' and 'end'")
    if document.get("error") and not document.get("end"):
        raise fail(file, None, "error", f"iperf3 reported an error, no results: {document['error']}")
    start = _get(document, "start", file, "")
    end = _get(document, "end", file, "")
    test = _get(start, "test_start", file, "start")
    protocol = str(_get(test, "protocol", file, "start.test_start")).lower()
    reverse = bool(test.get("reverse", 0))
    bidir = bool(test.get("bidir", 0))
    client = "connecting_to" in start
    # the client sends unless -R; the server receives unless -R; both do with --bidir
    role = None if bidir else "sender" if client != reverse else "receiver"
    params = Parameters(
        protocol=protocol,
        threads=int(_number(test.get("num_streams", 1), file, "start.test_start.num_streams")),
        buffer_bytes=int(_number(test["blksize"], file, "start.test_start.blksize")) if "blksize" in test else None,
        direction="bidirectional" if bidir else "reverse" if reverse else "send",
        requested_duration_s=_number(test["duration"], file, "start.test_start.duration")
        if "duration" in test
        else None,
        send_socket_buffer_bytes=_int_or_none(start.get("sndbuf_actual")),
        recv_socket_buffer_bytes=_int_or_none(start.get("rcvbuf_actual")),
    )
    connected = start.get("connected") or []
    if connected and isinstance(connected[0], dict):
        first = connected[0]
        params.local_address, params.local_port = first.get("local_host"), _int_or_none(first.get("local_port"))
        params.remote_address, params.remote_port = first.get("remote_host"), _int_or_none(first.get("remote_port"))
    for key in ("omit", "bytes", "blocks", "tos", "target_bitrate"):
        if key in test:
            params.other[key] = str(test[key])
    for key in ("tcp_mss_default", "sock_bufsize"):
        if key in start:
            params.other[key] = str(start[key])

    udp = protocol == "udp"
    sent = end.get("sum_sent")
    received = end.get("sum_received")
    summary = end.get("sum")
    if received is None and summary is None:
        raise fail(file, None, "end", "no sum_received or sum: the run did not finish (truncated or interrupted?)")
    main = received if received is not None else summary
    rate = _number(_get(main, "bits_per_second", file, "end.sum_received"), file, "end.sum_received.bits_per_second")
    sent_rate = None if sent is None else _number(sent.get("bits_per_second"), file, "end.sum_sent.bits_per_second")
    duration = _number(_get(main, "seconds", file, "end.sum_received"), file, "end.sum_received.seconds")
    total = int(_number(_get(main, "bytes", file, "end.sum_received"), file, "end.sum_received.bytes"))
    retransmits = None
    if sent is not None and "retransmits" in sent:
        retransmits = int(_number(sent["retransmits"], file, "end.sum_sent.retransmits"))
    cpu = end.get("cpu_utilization_percent") or {}
    cpu_detail = {k: float(v) for k, v in cpu.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    lost = jitter = None
    udp_sum = received if received is not None and "lost_packets" in received else summary
    if udp and isinstance(udp_sum, dict):
        lost = _int_or_none(udp_sum.get("lost_packets"))
        if isinstance(udp_sum.get("jitter_ms"), (int, float)):
            jitter = float(udp_sum["jitter_ms"]) / 1000
    version = start.get("version")
    return Measurement(
        file=file,
        format="iperf3-json",
        tool_version=str(version).removeprefix("iperf ") if version is not None else None,
        host=_host(start),
        role=role,
        start_time=(start.get("timestamp") or {}).get("time"),
        duration_s=duration,
        total_bytes=total,
        throughput_bps=rate,
        sent_throughput_bps=sent_rate,
        received_throughput_bps=rate,
        cpu_percent=cpu_detail.get("host_total"),
        cpu_detail_percent=cpu_detail,
        retransmits=retransmits,
        lost_packets=lost,
        jitter_s=jitter,
        parameters=params,
        streams=_streams(end, file, udp),
        intervals=_intervals(document.get("intervals") or [], file),
    )


def _host(start: dict[str, Any]) -> str | None:
    info = start.get("system_info")
    if isinstance(info, str) and len(info.split()) > 1:
        return info.split()[1]  # "Linux <nodename> <release> ..."
    return None


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _streams(end: dict[str, Any], file: str, udp: bool) -> list[Stream]:
    streams = []
    for k, item in enumerate(end.get("streams") or []):
        field = f"end.streams[{k}]"
        if not isinstance(item, dict):
            raise fail(file, None, field, "expected an object")
        part = item.get("udp") if udp else item.get("receiver") or item.get("sender")
        if not isinstance(part, dict):
            continue
        sender = item.get("sender") if isinstance(item.get("sender"), dict) else None
        streams.append(
            Stream(
                index=k,
                duration_s=_number(part.get("seconds"), file, f"{field}.seconds"),
                bytes=int(_number(part.get("bytes"), file, f"{field}.bytes")),
                throughput_bps=_number(part.get("bits_per_second"), file, f"{field}.bits_per_second"),
                retransmits=_int_or_none((sender or {}).get("retransmits")),
            )
        )
    return streams


def _intervals(items: list[Any], file: str) -> list[Interval]:
    intervals = []
    for k, item in enumerate(items):
        field = f"intervals[{k}].sum"
        total = _get(item, "sum", file, f"intervals[{k}]")
        intervals.append(
            Interval(
                start_s=_number(_get(total, "start", file, field), file, f"{field}.start"),
                end_s=_number(_get(total, "end", file, field), file, f"{field}.end"),
                bytes=int(_number(_get(total, "bytes", file, field), file, f"{field}.bytes")),
                throughput_bps=_number(_get(total, "bits_per_second", file, field), file, f"{field}.bits_per_second"),
                retransmits=_int_or_none(total.get("retransmits")),
                omitted=bool(total.get("omitted", False)),
            )
        )
    return intervals
