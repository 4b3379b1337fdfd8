"""Linux interface counters: /proc/net/dev, ``ip -s [-s] -j link``, ``sar -n DEV``, ``sadf -d``, ``sadf -j``.

/proc/net/dev and ``ip -s link`` are snapshots of cumulative counters
(bytes, packets since the interface came up): one `InterfaceCounters` per
interface. sysstat's reports are rates over each interval: one `Series`
per interface and counter. sysstat's kB is 1024 bytes (sysstat
json_stats.c and pr_stats.c divide bytes by 1024), so ``rxkB/s`` becomes
``rx_bytes_per_s`` x 1024.
"""

from __future__ import annotations

import csv
import datetime as dt
from typing import Any

from hvnet.importers._read import integer, number, parse_json
from hvnet.importers.measurement import InterfaceCounters, Measurement, Parameters, Series, fail

__all__ = ["read_ip_link", "read_proc_net_dev", "read_sadf_d", "read_sadf_json", "read_sar_dev"]

# /proc/net/dev's columns (net/core/net-procfs.c, dev_seq_show), in order.
_PROC_RX = ["bytes", "packets", "errs", "drop", "fifo", "frame", "compressed", "multicast"]
_PROC_TX = ["bytes", "packets", "errs", "drop", "fifo", "colls", "carrier", "compressed"]
_NAMES = {"errs": "errors", "drop": "dropped"}


def _counters(interface: str, rx: dict[str, int], tx: dict[str, int]) -> InterfaceCounters:
    main = {
        f"{side}_{key}": values.pop(key, 0)
        for side, values in (("rx", rx), ("tx", tx))
        for key in ("bytes", "packets", "errors", "dropped")
    }
    other = {f"rx_{k}": v for k, v in rx.items()} | {f"tx_{k}": v for k, v in tx.items()}
    return InterfaceCounters(interface=interface, other=other, **main)


def read_proc_net_dev(text: str, file: str) -> Measurement:
    lines = text.splitlines()
    header = next((i for i, line in enumerate(lines) if line.startswith("Inter-|")), None)
    if header is None or header + 1 >= len(lines) or "|" not in lines[header + 1]:
        raise fail(
            file, 1, "", "expected /proc/net/dev's two header lines ('Inter-|   Receive ...', ' face |bytes ...')"
        )
    interfaces = []
    for row, line in enumerate(lines[header + 2 :], start=header + 3):
        if not line.strip():
            continue
        name, colon, rest = line.partition(":")
        cells = rest.split()
        if not colon or len(cells) != 16:
            raise fail(
                file,
                row,
                name.strip() if colon else "",
                f"expected 'iface: ' and 16 counters, found {len(cells)}"
                f" values{' (truncated?)' if row == len(lines) else ''}",
            )
        values = [integer(c, file, row, f"{name.strip()}.{i}") for i, c in enumerate(cells)]
        rx = {_NAMES.get(k, k): v for k, v in zip(_PROC_RX, values[:8])}
        tx = {_NAMES.get(k, k): v for k, v in zip(_PROC_TX, values[8:])}
        interfaces.append(_counters(name.strip(), rx, tx))
    if not interfaces:
        raise fail(file, len(lines), "", "no interfaces after the header (truncated?)")
    return Measurement(file=file, format="proc-net-dev", interfaces=interfaces)


def read_ip_link(text: str, file: str) -> Measurement:
    links = parse_json(text, file, "ip -s -j link")
    if not isinstance(links, list):
        raise fail(file, 1, "", "expected a JSON list of links (ip -s -j link)")
    interfaces = []
    for k, link in enumerate(links):
        field = f"[{k}]"
        if not isinstance(link, dict) or "ifname" not in link:
            raise fail(file, None, field, "expected a link object with 'ifname'")
        stats = link.get("stats64", link.get("stats"))
        if (
            not isinstance(stats, dict)
            or not isinstance(stats.get("rx"), dict)
            or not isinstance(stats.get("tx"), dict)
        ):
            raise fail(file, None, f"{field}.stats64", f"{link['ifname']}: no rx/tx statistics (run ip with -s)")
        sides = []
        for side in ("rx", "tx"):
            values = {}
            for key, value in stats[side].items():
                if isinstance(value, bool) or not isinstance(value, int):
                    raise fail(file, None, f"{field}.stats64.{side}.{key}", f"expected a whole number, found {value!r}")
                values[key] = value
            sides.append(values)
        interfaces.append(_counters(str(link["ifname"]), sides[0], sides[1]))
    return Measurement(file=file, format="ip-link-json", interfaces=interfaces)


# --- sysstat -----------------------------------------------------------------------

# sar's column (and sadf -j's key) -> hvnet's counter, unit, factor.
_SAR = {
    "rxpck/s": ("rx_packets_per_s", "packets/s", 1.0),
    "txpck/s": ("tx_packets_per_s", "packets/s", 1.0),
    "rxkB/s": ("rx_bytes_per_s", "bytes/s", 1024.0),
    "txkB/s": ("tx_bytes_per_s", "bytes/s", 1024.0),
    "rxcmp/s": ("rx_compressed_per_s", "packets/s", 1.0),
    "txcmp/s": ("tx_compressed_per_s", "packets/s", 1.0),
    "rxmcst/s": ("rx_multicast_per_s", "packets/s", 1.0),
    "%ifutil": ("utilisation_percent", "percent", 1.0),
}
_SADF_JSON_KEYS = {
    "rxpck": "rxpck/s",
    "txpck": "txpck/s",
    "rxkB": "rxkB/s",
    "txkB": "txkB/s",
    "rxcmp": "rxcmp/s",
    "txcmp": "txcmp/s",
    "rxmcst": "rxmcst/s",
    "ifutil-percent": "%ifutil",
}


class _SeriesBuilder:
    """Rows (time, interface, column -> value) into one Series per interface and counter."""

    def __init__(self, file: str) -> None:
        self.file = file
        self.times: list[float] = []
        self.series: dict[tuple[str, str], Series] = {}

    def add(self, t_s: float, iface: str, column: str, value: float | None, host: str | None) -> None:
        if column not in _SAR:
            return
        counter, unit, factor = _SAR[column]
        key = (iface, counter)
        if key not in self.series:
            self.series[key] = Series(
                counter=counter, instance=iface, host=host, unit=unit, source=column, t_s=[], values=[]
            )
        series = self.series[key]
        series.t_s.append(t_s)
        series.values.append(None if value is None else value * factor)

    def build(self) -> list[Series]:
        return sorted(self.series.values(), key=lambda s: (s.instance or "", s.counter))


def _clock(text: str, file: str, line: int) -> float:
    """sar's time of day ("05:39:34" or "05:39:34 PM") in seconds since midnight."""
    words = text.split()
    parts = words[0].split(":")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise fail(file, line, "time", f"expected a time of day HH:MM:SS, found {text!r}")
    hours, minutes, seconds = (int(p) for p in parts)
    if len(words) > 1 and words[1] in ("AM", "PM"):
        hours = hours % 12 + (12 if words[1] == "PM" else 0)
    return hours * 3600.0 + minutes * 60 + seconds


def read_sar_dev(text: str, file: str) -> Measurement:
    lines = text.splitlines()
    builder = _SeriesBuilder(file)
    columns: list[str] | None = None
    first: float | None = None
    last = day = 0.0
    start_time = None
    for row, line in enumerate(lines, start=1):
        cells = line.split()
        if line.startswith("#"):
            continue
        if "IFACE" in cells:
            at = cells.index("IFACE")
            columns = cells[at + 1 :]
            continue
        if columns is None or not cells or cells[0] in ("Average:", "Moyenne:") or line.startswith("Linux"):
            continue
        # time (one or two words), interface, then one value per column
        clock_words = len(cells) - len(columns) - 1
        if clock_words not in (1, 2):
            if len(cells) < len(columns) + 2:
                raise fail(
                    file,
                    row,
                    "",
                    f"expected a time, an interface and {len(columns)} values, found {line.strip()!r}"
                    f"{' (truncated?)' if row == len(lines) else ''}",
                )
            continue
        clock = _clock(" ".join(cells[:clock_words]), file, row) + day
        if first is None:
            first, start_time = clock, " ".join(cells[:clock_words])
        if clock < last:  # past midnight
            day, clock = day + 86400, clock + 86400
        last = clock
        iface = cells[clock_words]
        for column, value in zip(columns, cells[clock_words + 1 :]):
            builder.add(clock - first, iface, column, number(value, file, row, f"{iface}.{column}"), None)
    if columns is None:
        raise fail(file, 1, "", "expected a 'sar -n DEV' header line with IFACE rxpck/s txpck/s rxkB/s ...")
    if not builder.series:
        raise fail(file, len(lines), "", "no rows after the IFACE header (truncated?)")
    return Measurement(file=file, format="sar-dev-text", start_time=start_time, series=builder.build())


def _timestamp(text: str, file: str, line: int | None, field: str) -> dt.datetime:
    """sadf's "2019-04-18 13:20:19 UTC" (or without the zone)."""
    words = text.split()
    try:
        return dt.datetime.fromisoformat(" ".join(words[:2]))
    except ValueError:
        raise fail(file, line, field, f"expected a timestamp YYYY-MM-DD HH:MM:SS, found {text!r}") from None


def read_sadf_d(text: str, file: str) -> Measurement:
    lines = text.splitlines()
    header_row = next((i for i, line in enumerate(lines) if line.startswith("# hostname;")), None)
    if header_row is None:
        raise fail(file, 1, "", "expected sadf -d's header '# hostname;interval;timestamp;IFACE;...'")
    reader = csv.reader(lines[header_row:], delimiter=";")
    header = [cell.strip() for cell in next(reader)]
    header[0] = header[0].removeprefix("#").strip()
    if "IFACE" not in header or "timestamp" not in header:
        raise fail(file, header_row + 1, "", "expected IFACE and timestamp columns (sadf -d -- -n DEV)")
    builder = _SeriesBuilder(file)
    first: dt.datetime | None = None
    host = start_time = interval = None
    for cells in reader:
        row = header_row + reader.line_num
        if not cells or cells[0].startswith("#"):
            continue
        if len(cells) != len(header):
            raise fail(
                file,
                row,
                "",
                f"expected {len(header)} fields separated by ';', found {len(cells)}"
                f"{' (truncated?)' if row == len(lines) else ''}",
            )
        record = dict(zip(header, cells))
        when = _timestamp(record["timestamp"], file, row, "timestamp")
        if first is None:
            first, start_time, host, interval = (
                when,
                record["timestamp"],
                record.get("hostname"),
                record.get("interval"),
            )
        for column, value in record.items():
            if column in _SAR:
                builder.add(
                    (when - first).total_seconds(),
                    record["IFACE"],
                    column,
                    number(value, file, row, f"{record['IFACE']}.{column}"),
                    host,
                )
    if not builder.series:
        raise fail(file, len(lines), "", "no rows after the header (truncated?)")
    params = Parameters(other={} if interval is None else {"interval_s": interval})
    return Measurement(
        file=file, format="sadf-dev-csv", host=host, start_time=start_time, parameters=params, series=builder.build()
    )


def read_sadf_json(text: str, file: str) -> Measurement:
    document = parse_json(text, file, "sadf -j")
    try:
        hosts = document["sysstat"]["hosts"]
    except (KeyError, TypeError):
        raise fail(file, 1, "", 'expected {"sysstat": {"hosts": [...]}} (sadf -j)') from None
    builder = _SeriesBuilder(file)
    first: dt.datetime | None = None
    host = start_time = None
    for h, entry in enumerate(hosts if isinstance(hosts, list) else []):
        name = entry.get("nodename") if isinstance(entry, dict) else None
        host = host or name
        for s, stats in enumerate(entry.get("statistics") or [] if isinstance(entry, dict) else []):
            field = f"sysstat.hosts[{h}].statistics[{s}]"
            stamp = _stamp(stats, file, field)
            first = first or stamp
            start_time = start_time or stamp.isoformat(sep=" ")
            net_dev = (stats.get("network") or {}).get("net-dev") or []
            for k, item in enumerate(net_dev):
                if not isinstance(item, dict) or "iface" not in item:
                    raise fail(file, None, f"{field}.network.net-dev[{k}]", "expected an object with 'iface'")
                for key, value in item.items():
                    if key in _SADF_JSON_KEYS:
                        builder.add(
                            (stamp - first).total_seconds(),
                            str(item["iface"]),
                            _SADF_JSON_KEYS[key],
                            _json_value(value, file, f"{field}.network.net-dev[{k}].{key}"),
                            name,
                        )
    if not builder.series:
        raise fail(file, None, "sysstat.hosts", "no network.net-dev statistics (run sadf -j -- -n DEV)")
    return Measurement(file=file, format="sadf-json", host=host, start_time=start_time, series=builder.build())


def _stamp(stats: Any, file: str, field: str) -> dt.datetime:
    stamp = stats.get("timestamp") if isinstance(stats, dict) else None
    if not isinstance(stamp, dict) or "date" not in stamp or "time" not in stamp:
        raise fail(file, None, f"{field}.timestamp", 'expected {"date": ..., "time": ...}')
    return _timestamp(f"{stamp['date']} {stamp['time']}", file, None, f"{field}.timestamp")


def _json_value(value: Any, file: str, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail(file, None, field, f"expected a number, found {value!r}")
    return float(value)
