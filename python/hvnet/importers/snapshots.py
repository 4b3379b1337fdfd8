"""Linux interface counters over time: /proc/net/dev or ``ip -s -j link`` again and again, each after its time.

The recording (docs/import.md, "Snapshots over time"), run on the host::

    (hostname; while sleep 1; do date +%s.%N; cat /proc/net/dev; done) > hv1-netdev.log
    (hostname; while sleep 1; do date +%s.%N; ip -s -j link; done) > hv1-iplink.log

Line 1 is the host's name (left out, the log names no host), then each snapshot after its time:
seconds since 1970 UTC (``date +%s.%N``, digits, a dot and nanoseconds, whatever the locale), or
ISO 8601 (``date -u +%Y-%m-%dT%H:%M:%S.%NZ``, ``date --iso-8601=ns``). Each interface's counters
become rates: the difference between consecutive snapshots over the time between them, sample k
the mean over (t_{k-1}, t_k], as PDH and sar give rates; the first sample has none (null). A
counter that goes down (the interface was reset or re-created, or a 32-bit counter wrapped) leaves
that interval of the interface without rates (null), as does a snapshot without the interface;
notes say where. A last snapshot cut short (the recording stopped while writing it) is left out
with a note. ``start_time`` is the first time in UTC, ``YYYY-MM-DD HH:MM:SS.ffffff`` (a form
`hvnet.importers.pdh_csv.parse_time` reads, so `hvnet import demand` can align logs).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re
from dataclasses import dataclass

from hvnet.importers.measurement import Measurement, Parameters, Series, fail

__all__ = ["IP_LOG", "PROC_LOG", "detect_log", "read_ip_link_log", "read_proc_net_dev_log"]

PROC_LOG = "proc-net-dev-log"
IP_LOG = "ip-link-json-log"

_NS = 1_000_000_000
_EPOCH = re.compile(r"(\d{1,11})(?:\.(\d*))?", re.ASCII)
_ISO = re.compile(r"(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)(?:[.,](\d*))?(Z|[+-]\d\d:?\d\d)?", re.ASCII)
_HOST = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}", re.ASCII)
_UNIX = dt.datetime(1970, 1, 1)
_RECIPE = "date +%s.%N"

# /proc/net/dev's 16 columns (net/core/net-procfs.c, dev_seq_show), for naming a bad cell.
_PROC_COLUMNS = [
    f"{side}_{name}"
    for side, names in (
        ("rx", ("bytes", "packets", "errs", "drop", "fifo", "frame", "compressed", "multicast")),
        ("tx", ("bytes", "packets", "errs", "drop", "fifo", "colls", "carrier", "compressed")),
    )
    for name in names
]
#: hvnet's counters, their units, and where each snapshot's tuple (rx bytes, tx bytes, rx packets,
#: tx packets) holds the cumulative counter they are the rate of.
_RATES = (
    ("rx_bytes_per_s", "bytes/s", "Receive bytes", "rx.bytes"),
    ("tx_bytes_per_s", "bytes/s", "Transmit bytes", "tx.bytes"),
    ("rx_packets_per_s", "packets/s", "Receive packets", "rx.packets"),
    ("tx_packets_per_s", "packets/s", "Transmit packets", "tx.packets"),
)

_Counters = tuple[int, int, int, int]


@dataclass
class _Block:
    """One snapshot: its time's line, the time, and its body's lines (1-based, `first` to `end` - 1)."""

    row: int
    text: str
    ns: int
    zoned: bool
    fraction: bool
    first: int
    end: int


class _Cut(Exception):
    """A snapshot that stops where a recording stopped: left out if it is the last, an error otherwise."""

    def __init__(self, row: int, field: str, message: str) -> None:
        super().__init__(message)
        self.row, self.field, self.message = row, field, message


def _is_time(text: str) -> bool:
    return bool(text[:1].isdigit() and (_EPOCH.fullmatch(text) or _ISO.fullmatch(text)))


def detect_log(text: str) -> str | None:
    """PROC_LOG or IP_LOG for a host's name (or not), a time, then /proc/net/dev's header or a JSON list."""
    lines = [line.strip() for line in text.lstrip().split("\n", 3)[:3]]
    if _is_time(lines[0]):  # no host's name
        body = lines[1] if len(lines) > 1 else ""
    elif len(lines) == 3 and (_is_time(lines[1]) or _HOST.fullmatch(lines[0])):  # the reader says what is wrong
        body = lines[2]
    else:
        return None
    if body.startswith("Inter-|"):
        return PROC_LOG
    if body.startswith("[") and '"ifname"' in text[:8192]:
        return IP_LOG
    return None


def _time(text: str, file: str, row: int) -> tuple[int, bool, bool] | None:
    """Nanoseconds since 1970 (UTC when the line says so), whether it says its zone, whether it has a
    fraction; None for a line that is no time."""
    if not text[:1].isdigit():
        return None
    epoch = _EPOCH.fullmatch(text)
    if epoch:
        return int(epoch[1]) * _NS + _nanoseconds(epoch[2]), True, bool(epoch[2])
    iso = _ISO.fullmatch(text)
    if iso is None:
        return None
    try:
        when = dt.datetime.fromisoformat(f"{iso[1]}T{iso[2]}")
    except ValueError:
        raise fail(file, row, "time", f"{text!r} is not a date and time that exists") from None
    seconds = (when - _UNIX).days * 86400 + (when - _UNIX).seconds
    zone = iso[4]
    if zone and zone != "Z":
        digits = zone[1:].replace(":", "")
        offset = int(digits[:2]) * 3600 + int(digits[2:]) * 60
        seconds -= offset if zone[0] == "+" else -offset
    return seconds * _NS + _nanoseconds(iso[3]), zone is not None, bool(iso[3])


def _nanoseconds(fraction: str | None) -> int:
    return int((fraction or "0")[:9].ljust(9, "0"))


def _split(lines: list[str], file: str) -> tuple[str | None, list[_Block]]:
    """The host (line 1, if it is not a time) and each snapshot's lines."""
    at = next((k for k, line in enumerate(lines) if line.strip()), len(lines))
    host = None
    if at < len(lines) and not _is_time(lines[at].strip()):
        host = lines[at].strip()
        if not _HOST.fullmatch(host):
            raise fail(file, at + 1, "host", f"expected the host's name (hostname) or a time, found {host[:60]!r}")
        at += 1
    blocks: list[_Block] = []
    for k in range(at, len(lines)):
        text = lines[k].strip()
        stamp = _time(text, file, k + 1)
        if stamp is not None:
            if blocks:
                blocks[-1].end = k + 1
            blocks.append(_Block(k + 1, text, *stamp, first=k + 2, end=len(lines) + 1))
        elif not blocks and text:
            raise fail(file, k + 1, "time", f"expected the time of the first snapshot ({_RECIPE}), found {text[:60]!r}")
    return host, blocks


def _rows(lines: list[str], block: _Block) -> list[int]:
    return [row for row in range(block.first, block.end) if lines[row - 1].strip()]


def _broken(file: str, row: int, last: int, field: str, message: str) -> Exception:
    """A snapshot's last line that is incomplete may be where the recording stopped."""
    return _Cut(row, field, message) if row == last else fail(file, row, field, message)


def _proc_snapshot(lines: list[str], block: _Block, file: str) -> dict[str, _Counters]:
    rows = _rows(lines, block)
    if not rows:
        raise _Cut(block.row, "", "no /proc/net/dev after the time")
    last = rows[-1]
    head = lines[rows[0] - 1]
    if not head.startswith("Inter-|"):
        raise _broken(
            file, rows[0], last, "", f"expected /proc/net/dev's header 'Inter-|   Receive ...', found {head[:40]!r}"
        )
    if len(rows) < 2 or "|" not in lines[rows[1] - 1]:
        raise _broken(file, rows[min(1, len(rows) - 1)], last, "", "expected the second header line ' face |bytes ...'")
    if len(rows) == 2:
        raise _Cut(rows[1], "", "no interfaces after /proc/net/dev's header")
    snapshot = {}
    for row in rows[2:]:
        name, colon, rest = lines[row - 1].partition(":")
        cells = rest.split()
        if not colon or len(cells) != 16:
            raise _broken(
                file,
                row,
                last,
                name.strip() if colon else "",
                f"expected 'iface:' and 16 counters, or the next snapshot's time ({_RECIPE}), "
                f"found {lines[row - 1].strip()[:60]!r}",
            )
        name = name.strip()
        digits = "".join(cells)
        if not (digits.isdigit() and digits.isascii()):
            column, cell = next((c, v) for c, v in zip(_PROC_COLUMNS, cells) if not (v.isdigit() and v.isascii()))
            raise fail(file, row, f"{name}.{column}", f"{cell!r} is not a whole number")
        snapshot[name] = (int(cells[0]), int(cells[8]), int(cells[1]), int(cells[9]))
    return snapshot


def _ip_snapshot(lines: list[str], block: _Block, file: str) -> dict[str, _Counters]:
    body = "\n".join(lines[block.first - 1 : block.end - 1])
    if not body.strip():
        raise _Cut(block.row, "", "no ip -s -j link output after the time")
    try:
        links = json.loads(body)
    except json.JSONDecodeError as error:
        row, message = (
            block.first + error.lineno - 1,
            f"not valid ip -s -j link JSON: {error.msg} at column {error.colno}",
        )
        if error.pos >= len(body.rstrip()):
            raise _Cut(row, "", f"{message} (it ends early)") from None
        raise fail(file, row, "", message) from None
    except RecursionError:
        raise fail(file, block.first, "", "not valid ip -s -j link JSON: nested too deeply") from None
    row = _rows(lines, block)[0]
    if not isinstance(links, list):
        raise fail(file, row, "", "expected a JSON list of links (ip -s -j link)")
    snapshot = {}
    for k, link in enumerate(links):
        if not isinstance(link, dict) or not isinstance(link.get("ifname"), str):
            raise fail(file, row, f"[{k}]", "expected a link object with 'ifname'")
        snapshot[link["ifname"]] = _link_counters(link, f"[{k}]", file, row)
    return snapshot


def _link_counters(link: dict[str, object], field: str, file: str, row: int) -> _Counters:
    key = "stats64" if "stats64" in link else "stats"
    stats = link.get(key)
    values = []
    for path in ("rx.bytes", "tx.bytes", "rx.packets", "tx.packets"):
        side, name = path.split(".")
        part = stats.get(side) if isinstance(stats, dict) else None
        if not isinstance(part, dict):
            raise fail(file, row, f"{field}.{key}", f"{link['ifname']}: no rx/tx statistics (run ip with -s)")
        value = part.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail(file, row, f"{field}.{key}.{path}", f"expected a whole number, found {value!r}")
        values.append(value)
    return values[0], values[1], values[2], values[3]


def _snapshots(
    lines: list[str], blocks: list[_Block], file: str, ip: bool, ended: bool, notes: list[str]
) -> list[dict[str, _Counters]]:
    """Each snapshot's counters. The last is left out, with a note, when it is cut short: incomplete, or
    the file ends without a line end (inside it)."""
    parse = _ip_snapshot if ip else _proc_snapshot
    snapshots, why = [], None
    for k, block in enumerate(blocks):
        try:
            snapshots.append(parse(lines, block, file))
        except _Cut as cut:
            if k < len(blocks) - 1:
                raise fail(file, cut.row, cut.field, cut.message) from None
            why = cut.message
    if why is None and blocks and not ended:
        why = "the file ends inside it (no line end after its last line)"
        snapshots.pop()
    if why is not None:
        notes.append(
            f"the last snapshot (its time on line {blocks[-1].row}) is incomplete: {why}; left out "
            "(the recording was stopped while writing it?)"
        )
        blocks.pop()
    return snapshots


def _check_times(blocks: list[_Block], file: str, what: str, notes: list[str]) -> None:
    if not blocks:
        raise fail(file, None, "", f"no snapshot: expected a time ({_RECIPE}) and then {what}, repeated")
    if len(blocks) < 2:
        raise fail(file, blocks[0].row, "", "one snapshot only: a rate needs two (let the recording run longer)")
    for before, block in itertools.pairwise(blocks):
        if block.ns <= before.ns:
            raise fail(
                file,
                block.row,
                "time",
                f"{block.text!r} is not after the snapshot before ({before.text!r}, line {before.row}): "
                f"each snapshot's time must be later than the last ({_RECIPE} before each)",
            )
    if not all(b.zoned for b in blocks):
        notes.append("the times do not say their zone (no Z or +hh:mm): start_time is as written, in the writer's zone")
    if not any(b.fraction for b in blocks):
        notes.append(f"the times are whole seconds ({_RECIPE} gives nanoseconds): each rate's interval is ±1 s")


def _series(
    blocks: list[_Block], snapshots: list[dict[str, _Counters]], host: str | None, ip: bool, notes: list[str]
) -> list[Series]:
    t_s = [(b.ns - blocks[0].ns) / _NS for b in blocks]
    names = list(dict.fromkeys(name for snapshot in snapshots for name in snapshot))
    out = []
    for name in names:
        columns: list[list[float | None]] = [[None] for _ in _RATES]
        down: list[int] = []
        for k in range(1, len(blocks)):
            before, now = snapshots[k - 1].get(name), snapshots[k].get(name)
            if before is not None and now is not None and any(a < b for a, b in zip(now, before)):
                down.append(k)
                before = None
            span = blocks[k].ns - blocks[k - 1].ns
            for c, column in enumerate(columns):
                column.append(None if before is None or now is None else (now[c] - before[c]) * _NS / span)
        _notes(name, blocks, snapshots, down, notes)
        for (counter, unit, proc_source, ip_source), values in zip(_RATES, columns):
            source = f"{name} {ip_source}" if ip else f"{name} {proc_source}"
            out.append(
                Series(
                    counter=counter, instance=name, host=host, unit=unit, source=source, t_s=list(t_s), values=values
                )
            )
    return sorted(out, key=lambda s: (s.instance or "", s.counter))


def _notes(
    name: str, blocks: list[_Block], snapshots: list[dict[str, _Counters]], down: list[int], notes: list[str]
) -> None:
    if down:
        k = down[0]
        notes.append(
            f"{name}: counters went down {len(down)} time(s) (first between the snapshots at lines "
            f"{blocks[k - 1].row} and {blocks[k].row}): a reset or a 32-bit wrap; those intervals' rates are null"
        )
    present = [k for k, snapshot in enumerate(snapshots) if name in snapshot]
    if len(present) < len(snapshots):
        notes.append(
            f"{name}: in {len(present)} of {len(snapshots)} snapshots (lines {blocks[present[0]].row} to "
            f"{blocks[present[-1]].row}); no rate where it or the snapshot before lacks it (null)"
        )


def _read(text: str, file: str, ip: bool) -> Measurement:
    lines = text.splitlines()
    host, blocks = _split(lines, file)
    notes: list[str] = []
    if host is None:
        notes.append("line 1 is not the host's name (hostname): the log names no host")
    snapshots = _snapshots(lines, blocks, file, ip, text.endswith(("\n", "\r")), notes)
    _check_times(blocks, file, "ip -s -j link" if ip else "/proc/net/dev", notes)
    try:
        first = _UNIX + dt.timedelta(microseconds=blocks[0].ns // 1000)
    except OverflowError:
        raise fail(file, blocks[0].row, "time", f"{blocks[0].text!r} is out of range (years 1 to 9999)") from None
    zoned = all(b.zoned for b in blocks)
    return Measurement(
        file=file,
        format=IP_LOG if ip else PROC_LOG,
        host=host,
        start_time=first.strftime("%Y-%m-%d %H:%M:%S.%f"),
        duration_s=(blocks[-1].ns - blocks[0].ns) / _NS,
        parameters=Parameters(time_zone="UTC" if zoned else None),
        series=_series(blocks, snapshots, host, ip, notes),
        notes=notes,
    )


def read_proc_net_dev_log(text: str, file: str) -> Measurement:
    return _read(text, file, ip=False)


def read_ip_link_log(text: str, file: str) -> Measurement:
    return _read(text, file, ip=True)
