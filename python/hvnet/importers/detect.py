"""Which format a measurement file is in, from its content (never its name).

Each format is recognised by what its tool always writes: an XML root tag,
a JSON key, a header line. A file that matches none is refused with the
list of formats hvnet reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hvnet.errors import decode_text
from hvnet.importers import iperf3, linux, ntttcp, ntttcp_linux, pdh_csv, snapshots
from hvnet.importers.measurement import Measurement, fail

__all__ = ["FORMATS", "Format", "detect", "read_measurement", "read_measurement_text"]

#: Files larger than this are refused before they are read (a measurement is kilobytes to a few MB).
MAX_BYTES = 256 * 2**20


@dataclass(frozen=True)
class Format:
    name: str
    tool: str
    read: Callable[[str, str], Measurement | list[Measurement]]


FORMATS: tuple[Format, ...] = (
    Format("ntttcp-windows-text", "NTttcp for Windows, console output", ntttcp.read_windows_text),
    Format("ntttcp-windows-xml", "NTttcp for Windows, -xml FILE (one or more runs appended)", ntttcp.read_windows_xml),
    Format("ntttcp-linux-text", "ntttcp-for-linux, console output", ntttcp_linux.read_linux_text),
    Format("ntttcp-linux-xml", "ntttcp-for-linux, -x FILE", ntttcp_linux.read_linux_xml),
    Format("ntttcp-linux-json", "ntttcp-for-linux, -j FILE", ntttcp_linux.read_linux_json),
    Format("iperf3-json", "iperf3 -J, client or server, TCP or UDP", iperf3.read_iperf3),
    Format("pdh-csv", "Windows counter log: typeperf -f CSV, relog -f csv, logman -f csv", pdh_csv.read_pdh_csv),
    Format("proc-net-dev", "Linux /proc/net/dev", linux.read_proc_net_dev),
    Format("ip-link-json", "ip -s -j link (or ip -s -s -j link)", linux.read_ip_link),
    Format(
        snapshots.PROC_LOG,
        "/proc/net/dev over time: hostname, then date +%s.%N and cat /proc/net/dev, repeated",
        snapshots.read_proc_net_dev_log,
    ),
    Format(
        snapshots.IP_LOG,
        "ip -s -j link over time: hostname, then date +%s.%N and ip -s -j link, repeated",
        snapshots.read_ip_link_log,
    ),
    Format("sar-dev-text", "sysstat sar -n DEV", linux.read_sar_dev),
    Format("sadf-dev-csv", "sysstat sadf -d -- -n DEV", linux.read_sadf_d),
    Format("sadf-json", "sysstat sadf -j -- -n DEV", linux.read_sadf_json),
)
_BY_NAME = {f.name: f for f in FORMATS}


def known_formats() -> str:
    return "; ".join(f"{f.name} ({f.tool})" for f in FORMATS)


def _xml_root_tag(text: str) -> str | None:
    """The first element's tag, skipping a declaration and comments (no parse: detection only)."""
    at = 0
    while True:
        at = text.find("<", at)
        if at == -1:
            return None
        if text.startswith("<?", at) or text.startswith("<!--", at):
            end = text.find("?>" if text[at + 1] == "?" else "-->", at)
            if end == -1:
                return None
            at = end + 2
            continue
        if text.startswith("<!DOCTYPE", at):  # skipped here; the reader refuses it with its line
            close = text.find(">", at)
            end = text.find("]>", at) if "[" in text[at:close] else close
            if end == -1:
                return None
            at = end + 1
            continue
        name = text[at + 1 :].split(None, 1)[0] if text[at + 1 :].strip() else ""
        return name.split(">")[0].split("/")[0] or None


def detect(text: str) -> str | None:
    """The format's name, or None."""
    stripped = text.lstrip()
    if stripped.startswith("<"):
        tag = _xml_root_tag(stripped)
        if tag in ("ntttcps", "ntttcpr", "samples"):
            at = stripped.find(f"<{tag}")
            return "ntttcp-linux-xml" if '-linux"' in stripped[at : stripped.find(">", at)] else "ntttcp-windows-xml"
        return None
    if stripped.startswith(("{", "[")):
        return _detect_json(stripped)
    # a log of snapshots over time holds each snapshot's header: recognised before a single snapshot
    return snapshots.detect_log(text) or _detect_text(text)


def _detect_text(text: str) -> str | None:
    """By a header line (PDH-CSV's on the first line that is not blank)."""
    lines = text.splitlines()
    for line in lines:
        if line.strip():
            if line.lstrip().startswith('"(PDH-CSV') or line.lstrip().startswith("(PDH-CSV"):
                return "pdh-csv"
            break
    for line in lines:
        if line.startswith("Inter-|") and "Receive" in line:
            return "proc-net-dev"
        if line.startswith("# hostname;") and "IFACE" in line:
            return "sadf-dev-csv"
        if line.startswith("NTTTCP for Linux") or (" INFO: " in line and "Totals:" in line):
            return "ntttcp-linux-text"
        if line.startswith("Copyright Version") or line.split()[:2] == ["Bytes(MEG)", "realtime(s)"]:
            return "ntttcp-windows-text"
        cells = line.split()
        if "IFACE" in cells and "rxpck/s" in cells:
            return "sar-dev-text"
    return None


def _detect_json(text: str) -> str | None:
    """By the first key of the top object (a truncated file is still recognised, then refused by its reader)."""
    if text.startswith("["):
        return "ip-link-json" if '"ifname"' in text[:4096] else None
    body = text[1:].lstrip()
    key = body[1 : body.find('"', 1)] if body.startswith('"') else ""
    return {
        "ntttcps": "ntttcp-linux-json",
        "ntttcpr": "ntttcp-linux-json",
        "sysstat": "sadf-json",
        "start": "iperf3-json",
    }.get(key)


def read_measurement_text(text: str, file: str, fmt: str | None = None) -> list[Measurement]:
    """Every record of one file's text (NTttcp XML files may hold several runs)."""
    name = fmt or detect(text)
    if name is None:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        found = f"it starts with {first[:60]!r}" if first else "it is empty"
        raise fail(file, 1, "", f"not a measurement format hvnet knows ({found}); it reads: {known_formats()}")
    result = _BY_NAME[name].read(text, file)
    records = result if isinstance(result, list) else [result]
    for index, record in enumerate(records):
        where = f"[{index}]" if len(records) > 1 else ""
        _all_finite(record.model_dump(exclude={"series"}), file, where)
        for k, series in enumerate(record.series):  # read in place: a week of samples is not copied to be checked
            bad = next((i for i, v in enumerate(series.values) if v is not None and not math.isfinite(v)), None)
            if bad is not None:
                _all_finite(series.values[bad], file, f"{where}.series[{k}].values[{bad}]")
    return records


def _all_finite(value: object, file: str, path: str) -> None:
    """Refuses a record holding a figure that is not a finite number: numbers the file holds, each in range,
    can still work out past any float (1e308 bytes/s is 8e308 bits/s)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise fail(
            file, None, path.lstrip("."), f"works out to {value}, past any number: the file's figures are out of range"
        )
    if isinstance(value, dict):
        for key, item in value.items():
            _all_finite(item, file, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            if isinstance(item, (dict, list, tuple)) or (isinstance(item, float) and not math.isfinite(item)):
                _all_finite(item, file, f"{path}[{i}]")  # the path is made only where it is needed


def read_measurement(path: Path) -> list[Measurement]:
    """Reads and normalises one measurement file."""
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise fail(str(path), None, "", f"the file is {size} bytes; measurement files up to {MAX_BYTES} bytes are read")
    raw = path.read_bytes()
    text = _decode(raw, str(path))
    return read_measurement_text(text, str(path))


def _decode(raw: bytes, file: str) -> str:
    """UTF-8 (with or without BOM), or UTF-16 with a BOM (PowerShell's `>` and typeperf -o on some hosts)."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as error:
            raise fail(file, None, "", f"not UTF-16 text at byte {error.start}") from None
    decoded = decode_text(raw, file)
    if not isinstance(decoded, str):
        if raw[:1024].count(b"\x00") > 0:
            raise fail(
                file,
                None,
                "",
                "binary data, not a text measurement (a .blg counter log? convert it: relog x.blg -f csv -o x.csv)",
            )
        raise fail(decoded.file, decoded.line, decoded.field, decoded.message)
    return decoded
