"""ntttcp-for-linux: console text, ``-x`` XML (the tags of NTttcp for Windows) and ``-j`` JSON.

Units, as the program computes them (microsoft/ntttcp-for-linux src/util.c): KB = 10^3 and
MB = 10^6 bytes (its XML and JSON ``total_bytes metric="MB"``, "MB/s", "KB/s"); "mbps" = 10^6
bits/s; the console prints bits/s with bps, Kbps, Mbps or Gbps (10^3 steps).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hvnet.errors import UnitError
from hvnet.importers._read import integer, number, parse_json
from hvnet.importers.measurement import Measurement, Parameters, Stream, fail
from hvnet.importers.ntttcp import command_line, parameters_of, read_windows_xml, xml_parameters
from hvnet.units import parse_bitrate

__all__ = ["read_linux_json", "read_linux_text", "read_linux_xml"]

read_linux_xml = read_windows_xml  # the same tags; the version attribute tells the units apart


# --- ntttcp-for-linux, console text ------------------------------------------------


@dataclass
class _Console:
    """What the console capture's INFO lines say: each label's first value (with its line), the program's
    version, the per-thread rows of verbose output, and whether only the sender's summary is there."""

    values: dict[str, tuple[int, str]] = field(default_factory=dict)
    version: str | None = None
    threads: list[Stream] = field(default_factory=list)
    sender_only: bool = False


def _scan(lines: list[str], file: str) -> _Console:
    console = _Console()
    for row, line in enumerate(lines, start=1):
        if line.startswith("NTTTCP for Linux"):
            console.version = line.split()[-1]
        body = line.split(" INFO: ", 1)[1] if " INFO: " in line else None
        if body is None:
            continue
        if body.endswith("connections tested"):
            console.sender_only = True
        label, colon, value = body.partition(":")
        if colon and label.strip():
            console.values.setdefault(label.strip(), (row, value.strip()))
        cells = body.split()
        if len(cells) == 3 and cells[0].isdigit() and cells[2][-3:] == "bps":  # verbose: "\t0\t 300.00\t 238.34Mbps"
            console.threads.append(
                Stream(
                    index=int(cells[0]),
                    duration_s=number(cells[1], file, row, "Time(s)"),
                    throughput_bps=_bitrate(cells[2], file, row, "throughput"),
                )
            )
    return console


def _threads_created(lines: list[str]) -> int | None:
    """The count of "N threads created", when the capture shows it."""
    for line in lines:
        if line.endswith(" threads created") and " INFO: " in line:
            count = line.split(" INFO: ", 1)[1].split()[0]
            if count.isdigit():
                return int(count)
    return None


def read_linux_text(text: str, file: str) -> Measurement:
    lines = text.splitlines()
    console = _scan(lines, file)
    values, version, threads = console.values, console.version, console.threads
    if "throughput" not in values:
        raise fail(
            file,
            len(lines),
            "Totals",
            "no '#####  Totals:  #####' block with a throughput: the run did not finish or the file is truncated",
        )

    def figure(label: str, suffix: str = "") -> float | None:
        if label not in values:
            return None
        row, written = values[label]
        return number(written.removesuffix(suffix).strip(), file, row, label)

    row, written = values["throughput"]
    found = command_line(lines)
    params, role = parameters_of(found[1] if found else None)
    if role is None and console.sender_only:
        role = "sender"
    if values.get("total bytes") is not None:
        total_bytes = integer(values["total bytes"][1], file, values["total bytes"][0], "total bytes")
    else:
        total_bytes = None
    cpu_detail = {k: v for k in ("user", "system", "idle", "iowait", "softirq") if (v := figure(k, "%")) is not None}
    if (busy := figure("cpu busy (all)", "%")) is not None:
        cpu_detail["process_busy_of_one_cpu"] = busy
    extra = {
        k: v
        for k, label, suffix in (
            ("cpu_cores", "cpu cores", ""),
            ("cpu_speed_mhz", "cpu speed", "MHz"),
            ("cycles_per_byte", "cycles/byte", ""),
        )
        if (v := figure(label, suffix)) is not None
    }
    if not params.threads:
        params.threads = _threads_created(lines)
    retrans = values.get("retrans segs")
    return Measurement(
        file=file,
        format="ntttcp-linux-text",
        tool_version=version,
        role=role,
        duration_s=figure("test duration", "seconds"),
        total_bytes=total_bytes,
        throughput_bps=_bitrate(written, file, row, "throughput"),
        cpu_percent=None if "idle" not in cpu_detail else round(100.0 - cpu_detail["idle"], 6),
        cpu_detail_percent=cpu_detail,
        retransmits=None if retrans is None else integer(retrans[1], file, retrans[0], "retrans segs"),
        parameters=params,
        streams=threads,
        extra=extra,
    )


def _bitrate(text: str, file: str, line: int | None, field: str) -> float:
    """ntttcp-for-linux's "953.35Mbps" (bps, Kbps, Mbps, Gbps: 10^3 steps)."""
    try:
        return parse_bitrate(text.strip())
    except UnitError as error:
        raise fail(file, line, field, str(error)) from None


# --- ntttcp-for-linux, JSON (-j) ---------------------------------------------------

# The writer (microsoft/ntttcp-for-linux src/util.c, write_result_into_json_file)
# prints every value as a string, some with a unit glued on ("1476.085 bps"
# under metric "MB/s" for each thread), and names parameters in camelCase.
_JSON_PARAMETERS = {
    "sendSocketBuff": "send_socket_buff",
    "recvSocketBuff": "recv_socket_buff",
    "runTime": "run_time",
    "warmupTime": "warmup_time",
    "cooldownTime": "cooldown_time",
}


def read_linux_json(text: str, file: str) -> Measurement:
    document = parse_json(text, file, "ntttcp-for-linux")
    if not isinstance(document, dict) or len(document) != 1 or next(iter(document)) not in ("ntttcps", "ntttcpr"):
        raise fail(file, 1, "", 'expected one object {"ntttcps": {...}} or {"ntttcpr": {...}} (ntttcp -j)')
    tag, body = next(iter(document.items()))
    if not isinstance(body, dict):
        raise fail(file, None, tag, "expected an object")

    def metric(value: Any, field: str, wanted: str | None = None) -> float | None:
        """{"metric": "s", "value": "60.36"} or a list of them (the one with metric `wanted`)."""
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict) and (wanted is None or item.get("metric") == wanted):
                return _json_number(item.get("value"), file, field)
        return None

    realtime = metric(body.get("realTime"), f"{tag}.realTime.value")
    mbps = metric(body.get("throughputs"), f"{tag}.throughputs.mbps", "mbps")
    bytes_per_s = metric(body.get("throughputs"), f"{tag}.throughputs.Bps", "Bps")
    if realtime is None or (mbps is None and bytes_per_s is None):
        raise fail(file, None, tag, "no realTime or throughputs: not a finished ntttcp run (truncated?)")
    total_mb = metric(body.get("totalBytes"), f"{tag}.totalBytes.value", "MB")
    streams = []
    for k, thread in enumerate(body.get("threads") or []):
        field = f"{tag}.threads[{k}]"
        if not isinstance(thread, dict):
            raise fail(file, None, field, "expected an object")
        thread_mbps = metric(thread.get("throughputs"), f"{field}.throughputs.mbps", "mbps")
        if thread_mbps is None:
            raise fail(file, None, field, "no throughput with metric 'mbps'")
        index = _json_number(thread.get("index", str(k)), file, f"{field}.index")
        streams.append(
            Stream(
                index=int(index),
                duration_s=metric(thread.get("realTime"), f"{field}.realTime"),
                throughput_bps=thread_mbps * 1e6,
            )
        )
    params = Parameters(protocol="tcp")
    raw = body.get("parameters")
    if isinstance(raw, dict):
        xml_parameters(params, {_JSON_PARAMETERS.get(str(k), str(k)): str(v) for k, v in raw.items()})
    cpu = metric(body.get("cpu"), f"{tag}.cpu", "%")
    cycles = metric(body.get("cycles"), f"{tag}.cycles", "cycles/byte")

    def whole(key: str) -> int | None:
        return None if key not in body else int(_json_number(body[key], file, f"{tag}.{key}"))

    return Measurement(
        file=file,
        format="ntttcp-linux-json",
        tool_version=str(body.get("version")) if body.get("version") is not None else None,
        host=str(body.get("computername")) if body.get("computername") is not None else None,
        role="sender" if tag == "ntttcps" else "receiver",
        duration_s=realtime,
        total_bytes=None if total_mb is None else round(total_mb * 10**6),
        throughput_bps=bytes_per_s * 8 if bytes_per_s is not None else (mbps or 0.0) * 1e6,
        # The JSON's "cpu" is the program's own busy time over one CPU (the XML's cpu_busy_all).
        cpu_detail_percent={} if cpu is None else {"process_busy_of_one_cpu": cpu},
        retransmits=whole("packets_retransmitted"),
        packets_sent=whole("packetsSent"),
        packets_received=whole("packetsReceived"),
        parameters=params,
        streams=streams,
        extra={} if cycles is None else {"cycles_per_byte": cycles},
    )


def _json_number(value: object, file: str, field: str) -> float:
    """A JSON value that holds a number: 12, "12", "12.5", or "1476.085 bps" (the unit is dropped)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise fail(file, None, field, f"expected a number, found {value!r}")
    if isinstance(value, str):
        words = value.split()
        if (len(words) == 2 and words[1].isalpha()) or (len(words) == 2 and words[1].endswith("/s")):
            value = words[0]
        return number(value, file, None, field)
    return float(value)
