"""NTttcp for Windows (text, ``-xml``), and what ntttcp-for-linux shares with it (the command line, the XML
tags; its own formats are in ntttcp_linux).

Units, as the two programs compute them (their sources, microsoft/ntttcp
src/ntttcp.c and microsoft/ntttcp-for-linux src/util.c):

- NTttcp for Windows: KB = 2^10 bytes and MB = 2^20 bytes ("Bytes(MEG)",
  "Throughput(MB/s)", "KB/s"); "mbps" = 10^6 bits/s.
- ntttcp-for-linux: KB = 10^3 and MB = 10^6 bytes (its XML and JSON
  ``total_bytes metric="MB"``, "MB/s", "KB/s"); "mbps" = 10^6 bits/s; the
  console prints bits/s with bps, Kbps, Mbps or Gbps (10^3 steps).

Both XML writers share tag names; the Linux one says ``version="5.33-linux"``.
"""

from __future__ import annotations

import shlex
import xml.etree.ElementTree as ET

from hvnet.importers._read import integer, number, parse_xml_roots
from hvnet.importers.measurement import Measurement, Parameters, Stream, fail

__all__ = ["command_line", "parameters_of", "read_windows_text", "read_windows_xml", "xml_parameters"]

KIB = 1024
MIB = 2**20


# --- the command line, when a console capture shows it ---------------------------


def command_line(lines: list[str]) -> tuple[int, str] | None:
    """The line that runs ntttcp (a shell prompt's line), and the command from 'ntttcp' on."""
    for number_, line in enumerate(lines, start=1):
        if line.lstrip().startswith("#"):
            continue
        lowered = line.lower()
        at = lowered.find("ntttcp")
        while at != -1:
            command = line[at:].strip()
            words = command.split()
            if len(words) > 1 and words[0].lower() in ("ntttcp", "ntttcp.exe") and words[1].startswith("-"):
                return number_, command
            at = lowered.find("ntttcp", at + 1)
    return None


def parameters_of(command: str | None) -> tuple[Parameters, str | None]:
    """What an ntttcp command line asks for, and the role it gives (-s sender, -r receiver)."""
    if command is None:
        return Parameters(), None
    try:
        words = shlex.split(command, posix=False)
    except ValueError:
        words = command.split()
    params = Parameters(command_line=command, protocol="tcp")
    role: str | None = None
    i = 1
    while i < len(words):
        flag, value = words[i], words[i + 1] if i + 1 < len(words) else None
        i += 1
        if flag == "-s":
            role, params.direction = "sender", "send"
            if value is not None and not value.startswith("-"):  # Linux: -s<receiver> or -s <receiver>
                params.remote_address, i = value, i + 1
        elif flag == "-r":
            role, params.direction = "receiver", "receive"
            if value is not None and not value.startswith("-"):
                params.local_address, i = value, i + 1
        elif flag == "-u":
            params.protocol = "udp"
        elif value is not None and flag in ("-m", "-t", "-l", "-p", "-P", "-n", "-W", "-C"):
            i += 1
            _flag_value(params, flag, value)
        elif flag.startswith("-"):
            params.other[flag] = "" if value is None or value.startswith("-") else value
            if value is not None and not value.startswith("-"):
                i += 1
    return params, role


def _flag_value(params: Parameters, flag: str, value: str) -> None:
    if flag == "-m":  # -m threads,cpu,address (several mappings possible: "4,*,a 4,*,b" is rare)
        parts = value.split(",")
        if parts[0].isdigit():
            params.threads = (params.threads or 0) + int(parts[0])
        if len(parts) >= 3 and parts[2]:
            params.remote_address = parts[2]
    elif flag == "-t" and value.replace(".", "", 1).isdigit():
        params.requested_duration_s = float(value)
    elif flag == "-W" and value.isdigit():
        params.warmup_s = float(value)
    elif flag == "-C" and value.isdigit():
        params.cooldown_s = float(value)
    elif flag == "-l":
        params.buffer_bytes = _size(value)
    elif flag == "-p" and value.isdigit():
        params.remote_port = int(value)
    else:
        params.other[flag] = value


def _size(text: str) -> int | None:
    """ntttcp's -l: 64k, 1M, 131072 (k and M are 2^10 and 2^20 in both programs)."""
    scale = {"k": KIB, "K": KIB, "m": MIB, "M": MIB, "g": 2**30, "G": 2**30}.get(text[-1:], 1)
    digits = text[:-1] if scale != 1 else text
    return int(digits) * scale if digits.isdigit() else None


# --- NTttcp for Windows, text ------------------------------------------------------


def _tables(lines: list[str]) -> dict[str, tuple[int, str]]:
    """Every ``header / ==== / values`` block: column name -> (line, value).

    Column names are cut out of the header line where the ``====`` runs
    under them are, so names with spaces ("Avg Frame Size") stay whole.
    Only the first value row of a block is taken (the per-thread table is
    read separately).
    """
    found: dict[str, tuple[int, str]] = {}
    for i in range(1, len(lines) - 1):
        rule = lines[i].rstrip()
        if not rule or set(rule) - {"=", " "}:
            continue
        spans, start = [], None
        for at, char in enumerate(rule + " "):
            if char == "=" and start is None:
                start = at
            elif char != "=" and start is not None:
                spans.append((start, at))
                start = None
        header = lines[i - 1]
        names = [_cut(header, spans, k) for k in range(len(spans))]
        values = lines[i + 1].split()
        if len(values) == len(names):
            for name, value in zip(names, values):
                found.setdefault(name, (i + 2, value))
    return found


def _cut(header: str, spans: list[tuple[int, int]], k: int) -> str:
    """Header text over span k, widened to the previous span's end (headers are right-aligned)."""
    start = spans[k - 1][1] if k else 0
    return header[start : spans[k][1]].strip()


def read_windows_text(text: str, file: str) -> Measurement:
    lines = text.splitlines()
    version = None
    for line in lines:
        if line.startswith("Copyright Version"):
            version = line.split()[-1]
    tables = _tables(lines)
    if "Throughput(MB/s)" not in tables:
        raise fail(
            file,
            len(lines),
            "Totals",
            "no totals table (Bytes(MEG) realtime(s) ... Throughput(MB/s)): the file ends before NTttcp's totals"
            " (truncated?) or is not NTttcp output",
        )

    def value(name: str) -> float | None:
        if name not in tables:
            return None
        line, written = tables[name]
        return number(written, file, line, name)

    def whole(name: str) -> int | None:
        if name not in tables:
            return None
        line, written = tables[name]
        return integer(written, file, line, name)

    found = command_line(lines)
    params, role = parameters_of(found[1] if found else None)
    streams = _windows_threads(lines, file)
    if params.threads is None and streams:
        params.threads = len(streams)
    mb = value("Bytes(MEG)")
    throughput = value("Throughput(MB/s)")
    extra = {
        key: v
        for key, name in (
            ("avg_frame_size_bytes", "Avg Frame Size"),
            ("buffers_per_s", "Throughput(Buffers/s)"),
            ("cycles_per_byte", "Cycles/Byte"),
            ("buffers", "Buffers"),
            ("dpcs_per_s", "DPCs(count/s)"),
            ("packets_per_dpc", "Pkts(num/DPC)"),
            ("interrupts_per_s", "Intr(count/s)"),
            ("packets_per_interrupt", "Pkts(num/intr)"),
            ("errors", "Errors"),
        )
        if (v := value(name)) is not None
    }
    return Measurement(
        file=file,
        format="ntttcp-windows-text",
        tool_version=version,
        role=role,
        duration_s=value("realtime(s)"),
        total_bytes=None if mb is None else round(mb * MIB),
        throughput_bps=None if throughput is None else throughput * MIB * 8,
        cpu_percent=value("Avg. CPU %"),
        retransmits=whole("Retransmits"),
        packets_sent=whole("Packets Sent"),
        packets_received=whole("Packets Received"),
        parameters=params,
        streams=streams,
        extra=extra,
    )


def _windows_threads(lines: list[str], file: str) -> list[Stream]:
    streams = []
    for i, line in enumerate(lines):
        if line.split()[:2] != ["Thread", "Time(s)"]:
            continue
        for row, data in enumerate(lines[i + 2 :], start=i + 3):
            cells = data.split()
            if not cells or not cells[0].isdigit():
                break
            if len(cells) < 3:
                raise fail(file, row, "threads", f"expected 'thread time KB/s ...', found {data.strip()!r}")
            kb_per_s = number(cells[2], file, row, "Throughput(KB/s)")
            streams.append(
                Stream(
                    index=int(cells[0]),
                    duration_s=number(cells[1], file, row, "Time(s)"),
                    throughput_bps=kb_per_s * KIB * 8,
                )
            )
        break
    return streams


# --- both programs' XML ------------------------------------------------------------


def _read_xml_root(root: ET.Element, file: str, index: int, count: int) -> Measurement:
    linux = root.get("version", "").endswith("-linux")
    fmt = "ntttcp-linux-xml" if linux else "ntttcp-windows-xml"
    mb = 10**6 if linux else MIB
    where = f"{root.tag}[{index}]" if count > 1 else root.tag

    def child(tag: str, metric: str | None = None, element: ET.Element = root) -> float | None:
        for item in element.findall(tag):
            if metric is None or item.get("metric") == metric:
                return number(item.text or "", file, None, f"{where}.{tag}")
        return None

    total_mb, realtime = child("total_bytes", "MB"), child("realtime", "s")
    bytes_per_s, mbps = child("throughput", "Bps"), child("throughput", "mbps")
    if realtime is None or (bytes_per_s is None and mbps is None):
        raise fail(file, None, where, "no <realtime> or <throughput> totals: not a finished NTttcp run (truncated?)")
    streams = []
    for element in root.findall("thread"):
        index = integer(element.get("index", ""), file, None, f"{where}.thread.index")
        thread_mbps = child("throughput", "mbps", element)
        if thread_mbps is None:
            raise fail(file, None, f"{where}.thread[{index}]", 'no <throughput metric="mbps">')
        streams.append(
            Stream(index=index, duration_s=child("realtime", "s", element), throughput_bps=thread_mbps * 1e6)
        )
    params = Parameters(protocol="tcp")
    parameters = root.find("parameters")
    if parameters is not None:
        xml_parameters(params, {p.tag: (p.text or "").strip() for p in parameters})
    cpu_detail = {
        name: v for name in ("user", "system", "idle", "iowait", "softirq") if (v := child(name, "%")) is not None
    }
    busy_all = child("cpu_busy_all", "%")
    if busy_all is not None:
        cpu_detail["process_busy_of_one_cpu"] = busy_all
    cpu = child("cpu", "%")
    if cpu is None and "idle" in cpu_detail:
        cpu = round(100.0 - cpu_detail["idle"], 6)
    extra = {
        key: v
        for key, tag, metric in (
            ("avg_frame_size_bytes", "avg_frame_size", "B"),
            ("cycles_per_byte", "cycles", "cycles/byte"),
            ("cycles_per_byte", "cycles_per_byte", "cycles/byte"),
            ("interrupts_per_s", "interrupts", "count/sec"),
            ("dpcs_per_s", "dpcs", "count/sec"),
            ("cpu_cores", "cpu_cores", "cpu cores"),
            ("cpu_speed_mhz", "cpu_speed", "MHz"),
            ("num_processors", "num_processors", None),
            ("conns_tested", "conns_tested", None),
            ("errors", "errors", None),
        )
        if (v := child(tag, metric)) is not None
    }
    whole = {
        tag: int(v)
        for tag in ("packets_sent", "packets_received", "packets_retransmitted")
        if (v := child(tag)) is not None
    }
    return Measurement(
        file=file,
        format=fmt,
        tool_version=root.get("version"),
        host=root.get("computername"),
        role="sender" if root.tag == "ntttcps" else "receiver",
        duration_s=realtime,
        total_bytes=None if total_mb is None else round(total_mb * mb),
        throughput_bps=bytes_per_s * 8 if bytes_per_s is not None else (mbps or 0.0) * 1e6,
        cpu_percent=cpu,
        cpu_detail_percent=cpu_detail,
        retransmits=whole.get("packets_retransmitted"),
        packets_sent=whole.get("packets_sent"),
        packets_received=whole.get("packets_received"),
        parameters=params,
        streams=streams,
        extra=extra,
    )


def xml_parameters(params: Parameters, values: dict[str, str]) -> None:
    """Both programs' <parameters> (the JSON's camelCase names are mapped to these first)."""
    for name, text in values.items():
        if name in ("send_socket_buff", "recv_socket_buff") and text.lstrip("-").isdigit():
            size = int(text)
            if size >= 0:
                setattr(params, "send_socket_buffer_bytes" if name[0] == "s" else "recv_socket_buffer_bytes", size)
        elif name == "port" and text.isdigit():
            params.remote_port = int(text)
        elif name == "udp":
            params.protocol = "udp" if text == "True" else "tcp"
        elif name == "run_time" and text.isdigit():
            params.requested_duration_s = float(text)
        elif name == "warmup_time" and text.isdigit():
            params.warmup_s = float(text)
        elif name == "cooldown_time" and text.isdigit():
            params.cooldown_s = float(text)
        else:
            params.other[name] = text


def read_windows_xml(text: str, file: str) -> list[Measurement]:
    """One record per ``<ntttcps>``/``<ntttcpr>`` root (``<samples>`` roots give one per sample)."""
    roots = parse_xml_roots(text, file, "NTttcp")
    runs = []
    for root in roots:
        runs.extend(root.findall("*") if root.tag == "samples" else [root])
    if not runs or any(r.tag not in ("ntttcps", "ntttcpr") for r in runs):
        tags = ", ".join(sorted({f"<{r.tag}>" for r in runs})) or "nothing"
        raise fail(file, None, "", f"expected <ntttcps> or <ntttcpr> roots (NTttcp -xml), found {tags}")
    return [_read_xml_root(root, file, i, len(runs)) for i, root in enumerate(runs)]
