"""Windows counter logs in PDH-CSV: ``typeperf -f CSV``, ``relog x.blg -f csv``, ``logman ... -f csv``.

The first row is the header: ``"(PDH-CSV 4.0) (Eastern Daylight Time)(240)"``
(the time zone's name and its bias in minutes, UTC = local + bias; typeperf
on a console writes only ``"(PDH-CSV 4.0)"``), then one counter path per
column, ``\\\\HOST\\Object(Instance)\\Counter``. Each row is a timestamp
(``MM/DD/YYYY HH:MM:SS.mmm``) and one value per column; an empty or
single-space cell is a missing sample. In instance names PDH writes ``[ ]``
for ``( )`` and ``_`` for ``#`` ("Intel[R] ... Connection _2" is adapter
"Intel(R) ... Connection #2"); a Network Interface series gives the
adapter's own name as its ``instance`` and the path as written as its
``source``. typeperf's console trailer ("Exiting, please wait...", "The command
completed successfully.") is skipped.

Counters are kept under their own names. Units are known for the English
names of common objects; a counter of an object hvnet does not know (most
often a localised name: "Netzwerkschnittstelle", "Processeur") is kept with
unit None and named in the record's notes.
"""

from __future__ import annotations

import csv
import datetime as dt
import io

from hvnet.importers._read import number
from hvnet.importers.measurement import Measurement, Parameters, Series, fail

__all__ = ["adapter_name", "parse_time", "read_pdh_csv", "split_counter_path"]

_KNOWN_OBJECTS = {
    "Network Interface",
    "Network Adapter",
    "Processor",
    "Processor Information",
    "Memory",
    "PhysicalDisk",
    "LogicalDisk",
    "System",
    "TCPv4",
    "TCPv6",
    "UDPv4",
    "UDPv6",
    "IPv4",
    "IPv6",
    "Process",
    "Paging File",
    "Hyper-V Virtual Switch",
    "Hyper-V Virtual Switch Port",
    "Hyper-V Virtual Network Adapter",
    "Hyper-V Hypervisor Logical Processor",
    "Hyper-V Hypervisor Virtual Processor",
    "Hyper-V Hypervisor Root Virtual Processor",
    "Hyper-V VM Vid Partition",
    "Hyper-V Virtual Machine Health Summary",
    "Hyper-V VM Live Migration",
    "Hyper-V Dynamic Memory Balancer",
    "SMB Client Shares",
    "SMB Server Shares",
    "SMB Direct Connection",
    "RDMA Activity",
    "Mellanox Adapter Traffic Counters",
    "Per Processor Network Interface Card Activity",
    "Per Processor Network Activity Cycles",
    "Cluster Storage Hybrid Disks",
    "Cluster CSVFS",
}
_TRAILERS = ("Exiting, please wait...", "The command completed successfully.")


def split_counter_path(path: str) -> tuple[str | None, str, str | None, str]:
    """``\\\\HOST\\Object(Instance)\\Counter`` -> (host, object, instance, counter); host and instance may be None."""
    rest = path
    host = None
    if rest.startswith("\\\\"):
        host, _, rest = rest[2:].partition("\\")
    rest = rest.lstrip("\\")
    obj, sep, counter = rest.rpartition("\\")
    if not sep or not obj or not counter:
        raise ValueError(path)
    instance = None
    if obj.endswith(")") and "(" in obj:
        at = obj.index("(")
        obj, instance = obj[:at], obj[at + 1 : -1]
    return host or None, obj, instance, counter


def adapter_name(instance: str) -> str:
    """A Network Interface instance as the adapter calls itself: ``[R]`` -> ``(R)``, a trailing ``_2`` -> ``#2``."""
    name = instance.replace("[", "(").replace("]", ")")
    head, sep, tail = name.rpartition(" _")
    if sep and tail.isdigit():
        name = f"{head} #{tail}"
    return name


def _unit(obj: str, counter: str) -> str | None:
    if obj not in _KNOWN_OBJECTS:
        return None
    if counter.startswith("%"):
        return "percent"
    if counter == "Current Bandwidth":
        return "bits/s"
    if counter.endswith("/sec"):
        words = counter.lower()
        if "bytes" in words:
            return "bytes/s"
        if "packets" in words or "datagrams" in words or "segments" in words:
            return "packets/s"
        return "1/s"
    if "Bytes" in counter:
        return "bytes"
    return "count"


def _time_zone(header: str) -> tuple[str | None, int | None]:
    """``(PDH-CSV 4.0) (Eastern Daylight Time)(240)`` -> ("Eastern Daylight Time", 240)."""
    rest = header.strip()[len("(PDH-CSV 4.0)") :].strip()
    if not rest.startswith("(") or not rest.endswith(")"):
        return None, None
    name, _, bias = rest[1:-1].rpartition(")(")
    try:
        return (name or None), int(bias)
    except ValueError:
        return rest[1:-1] or None, None


_TIME_FORMATS = (
    "%m/%d/%Y %H:%M:%S.%f",
    "%m/%d/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M:%S.%f",
    "%d.%m.%Y %H:%M:%S.%f",
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y/%m/%d %H:%M:%S.%f",
)


def parse_time(text: str) -> dt.datetime | None:
    """A PDH timestamp (``11/27/2026 10:00:00.123``, or one of the other orders logs use); None if none fits.
    typeperf's own form is read by position (a week of one-second samples is 600,000 of them)."""
    text = text.strip()
    if len(text) == 23 and text[2] == text[5] == "/" and text[10] == " " and text[19] == ".":
        try:
            return dt.datetime(
                int(text[6:10]),
                int(text[0:2]),
                int(text[3:5]),
                int(text[11:13]),
                int(text[14:16]),
                int(text[17:19]),
                int(text[20:23]) * 1000,
            )
        except ValueError:
            pass  # not month first after all: the formats below say
    for form in _TIME_FORMATS:
        try:
            return dt.datetime.strptime(text.strip(), form)
        except ValueError:
            continue
    return None


def _when(text: str, file: str, line: int) -> dt.datetime:
    when = parse_time(text)
    if when is not None:
        return when
    raise fail(file, line, "time", f"{text!r} is not a PDH timestamp (expected MM/DD/YYYY HH:MM:SS.mmm)")


def read_pdh_csv(text: str, file: str) -> Measurement:
    header, header_line, rows = _split_rows(text, file)
    if len(header) < 2:
        raise fail(file, header_line, "", "the header names no counter (only the time column)")
    zone, bias = _time_zone(header[0])
    notes: list[str] = []
    columns = [_column(path, k, file, header_line, notes) for k, path in enumerate(header[1:], start=2)]
    first: dt.datetime | None = None
    start_time = None
    for line, cells in rows:
        if len(cells) != len(header):
            ending = " (truncated?)" if line == rows[-1][0] else ""
            raise fail(
                file,
                line,
                "",
                f"expected {len(header)} fields (a time and {len(header) - 1} values), found {len(cells)}{ending}",
            )
        when = _when(cells[0], file, line)
        if first is None:
            first, start_time = when, cells[0]
        t_s = (when - first).total_seconds()
        for series, cell in zip(columns, cells[1:]):
            series.t_s.append(t_s)
            series.values.append(None if cell.strip() == "" else number(cell, file, line, series.source))
    if not rows:
        raise fail(file, header_line, "", "no samples after the header (truncated?)")
    params = Parameters(time_zone=zone, other={} if bias is None else {"utc_bias_minutes": str(bias)})
    return Measurement(
        file=file,
        format="pdh-csv",
        start_time=start_time,
        duration_s=columns[0].t_s[-1],
        parameters=params,
        series=columns,
        notes=notes,
    )


def _split_rows(text: str, file: str) -> tuple[list[str], int, list[tuple[int, list[str]]]]:
    """The header's cells and line, and each sample row with its line (blank lines and trailers skipped)."""
    reader = csv.reader(io.StringIO(text))
    header: list[str] | None = None
    header_line = 0
    rows: list[tuple[int, list[str]]] = []
    for cells in reader:
        line = reader.line_num
        if header is None:
            if not cells or not "".join(cells).strip():
                continue  # typeperf on a console starts with an empty line
            if not cells[0].startswith("(PDH-CSV"):
                raise fail(file, line, "", f'expected a PDH-CSV header "(PDH-CSV 4.0) ...", found {cells[0][:40]!r}')
            header, header_line = cells, line
            continue
        if not cells or ",".join(cells).strip() in _TRAILERS or not "".join(cells).strip():
            continue
        rows.append((line, cells))
    if header is None:
        raise fail(file, 1, "", 'the file is empty; expected a PDH-CSV header "(PDH-CSV 4.0) ..."')
    return header, header_line, rows


def _column(path: str, k: int, file: str, header_line: int, notes: list[str]) -> Series:
    """The empty series of column `k`, named by its counter path (a note when hvnet does not know it)."""
    try:
        host, obj, instance, counter = split_counter_path(path)
    except ValueError:
        raise fail(
            file, header_line, f"column {k}", f"{path!r} is not a counter path \\\\HOST\\Object(Instance)\\Counter"
        ) from None
    unit = _unit(obj, counter)
    if unit is None:
        notes.append(
            f"{path}: counter object {obj!r} is not one hvnet knows (a localised name?); kept as written, unit unknown"
        )
    shown = (
        adapter_name(instance) if instance is not None and obj in ("Network Interface", "Network Adapter") else instance
    )
    return Series(counter=f"{obj}\\{counter}", instance=shown, host=host, unit=unit, source=path, t_s=[], values=[])
