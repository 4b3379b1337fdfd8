"""The lab's report in the terminal: two tables (transfers, NICs), then what the run did and where its files are."""

from __future__ import annotations

from rich.table import Table

from hvnet.lab.compare import LabReport, NicRow, TransferRow
from hvnet.lab.scaling import Scale
from hvnet.tables.cells import fitted_table, rate, seconds
from hvnet.units import format_bytes, human_duration
from hvnet.words import counted

__all__ = ["lines_after", "nics_table", "title", "transfers_table"]

#: A NIC direction the twin leaves idle is shown when the lab moved more than this on it.
_QUIET_BYTES = 64 * 1024


def _size(value: int) -> str:
    return format_bytes(int(float(f"{value:.3g}")))


def _pct(value: float | None) -> str:
    return "" if value is None else f"{value:+.1f} %"


def _gap(value: float | None) -> str:
    if value is None:
        return ""
    return ("+" if value >= 0 else "-") + human_duration(abs(value))


def _how(transfer: TransferRow) -> str:
    if transfer.kind == "migration":
        return ", migration"
    return f", {transfer.connections} conn." if transfer.connections > 1 else ""


def title(report: LabReport) -> str:
    scales = Scale(report.rate_scale, report.time_scale).describe()
    return f"{report.file} in the lab (run {report.run}; {scales}): measured beside the twin's prediction"


def transfers_table(report: LabReport) -> Table:
    rows = [
        [
            f"{t.name}: {t.source} → {t.destination}" + _how(t),
            _size(t.bytes),
            seconds(t.predicted_end_s),
            seconds(t.measured_end_s),
            _gap(t.gap_s),
            _pct(t.gap_pct),
            f"{t.retransmits:,}",
        ]
        for t in report.transfers
    ]
    columns: list[tuple[str, bool | str]] = [
        ("transfer", False),
        ("bytes", True),
        ("ends:\npredicted", True),
        ("measured", True),
        ("gap", True),
        ("gap %", True),
        ("retrans-\nmits", True),
    ]
    return fitted_table("transfers: each one's end (its last byte in), measured beside predicted", columns, rows)


def _busy(row: NicRow) -> bool:
    return row.predicted_bytes > 0 or row.measured_bytes > _QUIET_BYTES


def nics_table(report: LabReport) -> Table:
    shown = [n for n in report.nics if _busy(n)]
    rows = [
        [
            f"{n.host}/{n.nic}",
            n.direction,
            _size(n.predicted_bytes),
            _size(n.measured_bytes),
            _pct(n.gap_pct),
            rate(n.predicted_peak_bps),
            rate(n.measured_peak_bps),
            _size(n.measured_ack_bytes),
        ]
        for n in shown
    ]
    columns: list[tuple[str, bool | str]] = [
        ("NIC", "word"),
        ("", "word"),
        ("bytes:\npredicted", True),
        ("measured", True),
        ("gap %", True),
        ("peak:\npredicted", True),
        ("measured", True),
        ("+ ACKs", True),
    ]
    return fitted_table("NICs: line bytes of data frames, and the peak line rate over 0.1 s", columns, rows)


def lines_after(report: LabReport) -> list[str]:
    """What the run did and where its files are, one sentence a line."""
    out: list[str] = []
    quiet = len([n for n in report.nics if not _busy(n)])
    if quiet:
        out.append(f"{counted(quiet, 'NIC direction')} carried nothing in the twin and under 64 KiB in the lab")
    for action in report.actions:
        late = action.applied_s - action.at_s
        said = f": {action.errors}" if action.errors else ""
        out.append(f"at {human_duration(action.at_s)}: {action.what} (applied {human_duration(late)} late){said}")
    if report.teams:
        out.append(f"teams: {report.teams}")
    out.append(f"switch ports buffer {human_duration(report.buffer_s)} at their rate (--buffer)")
    busy = "" if report.cpu_busy_percent is None else f"{report.cpu_busy_percent:.0f} % of {report.cpus} CPUs busy; "
    out.append(
        f"the run took {human_duration(report.measured_s)} (the twin: {human_duration(report.predicted_end_s)}); "
        f"{busy}the lab's agents used {report.agents_cpu_s:.2f} core-s"
    )
    for host, tcp in sorted(report.tcp.items()):
        sent, again = tcp.get("OutSegs", 0), tcp.get("RetransSegs", 0)
        if sent:
            out.append(f"{host} sent {sent:,} TCP segments and retransmitted {again:,} ({100 * again / sent:.1f} %)")
    out += [f"note: {n}" for n in report.notes]
    where = "kept (remove it with: hvnet lab down " + report.run + ")" if report.kept else "removed"
    out.append(f"the lab's namespaces: {where}")
    out.append(f"measurements in {report.out}: " + ", ".join(f.rsplit("/", 1)[-1] for f in report.files))
    out.append(f"beside the twin as any real measurement: {report.explain}")
    return out
