"""The sections of the report: one small function per kind of result.

Each returns a `Section` (an anchor, a heading and its HTML). A result that
this version does not simulate gets no section, only a line in `NOT_SIMULATED`,
so the report never shows an empty chart; a new kind of result (per-core CPU,
migrations) is a new function here and a line in `hvnet.report.render_report`.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from rich.table import Table

from hvnet.model import Scenario
from hvnet.report.charts import (
    Figure,
    TimeAxis,
    adapter_chart_title,
    adapter_figure,
    cpu_figure,
    failure_marks,
    figure_div,
    marked,
)
from hvnet.report.diagram import design_svg
from hvnet.report.embed import data_script
from hvnet.report.resample import Grid
from hvnet.results import Results
from hvnet.series import Series
from hvnet.tables import traffic_table
from hvnet.units import format_bytes, human_duration
from hvnet.utilisation import BUSY_SHARE, COLD_SHARE, HOT_SHARE
from hvnet.words import counted

__all__ = [
    "NOT_SIMULATED",
    "Section",
    "adapters_section",
    "cpu_section",
    "design_section",
    "html_table",
    "summary_section",
    "traffic_section",
    "uncertainty_section",
    "utilisation_section",
]

#: What the report cannot show, and why: one line at the top of the report.
NOT_SIMULATED = (
    "Not in this report, because this version does not simulate them: the dynamics of TCP (slow start, "
    "windows, loss). Every transfer is a fluid that takes its max-min fair share at once, so connections "
    "that share a link move at the same rate."
)


@dataclass(frozen=True)
class Section:
    """One part of the report: `anchor` is its id in the page (``#design``)."""

    anchor: str
    title: str
    body: str


def summary_section(results: Results, scenario: Scenario, grid: Grid | None = None) -> Section:
    """The terminal's summary line as a table, with the size of the design (and the charts' bins)."""
    grid = grid or Grid.fit(results.end_s)
    stalled = results.stalled
    completed = f"{len(results.traffic) - len(stalled)} of {len(results.traffic)}"
    if stalled:
        names = ", ".join(escape(t.name or f"{t.source} → {t.destination}") for t in stalled)
        completed += f' <span class="stalled">(never completed: {names})</span>'
    nics = sum(len(host.nics) for host in scenario.hosts)
    design = ", ".join(
        [
            counted(len(scenario.hosts), "host"),
            counted(nics, "NIC"),
            counted(len(scenario.switches), "switch", "switches"),
            counted(len(scenario.cables), "cable"),
            counted(len(scenario.vms), "VM"),
        ]
    )
    rows = [("simulated time", f"{human_duration(results.end_s)} (charts: the exact mean over {_resolution(grid)})")]
    if results.traffic or not results.migrations:  # a scenario that only migrates has no traffic to count
        rows.append(("traffic entries completed", completed))
    if results.migrations:
        ended = sum(m.end_s is not None for m in results.migrations)
        rows.append(("live migrations ended", f"{ended} of {len(results.migrations)}"))
    rows += [
        ("design", design),
        ("engine", f"{results.events} events in {human_duration(results.wall_s)}"),
    ]
    if results.failures:
        rows.append(("failures", f'<a href="#failures">{counted(len(results.failures), "failure")}</a>'))
    body = "".join(f"<tr><th>{label}</th><td>{value}</td></tr>" for label, value in rows)
    warnings = "".join(f"<li>{escape(w)}</li>" for w in results.warnings)
    if warnings:  # frames a switch drops, work that never completed
        body += f'<tr><th>warnings</th><td><ul class="warnings">{warnings}</ul></td></tr>'
    return Section("summary", "Summary", f'<table class="summary">{body}</table>')


def design_section(scenario: Scenario) -> Section:
    """The design drawn: hosts, NICs, teams, switches and cables."""
    legend = (
        '<p class="caption">A dashed frame is a team (its name, kind, mode and load balancing inside); '
        "small boxes on a switch are its cabled ports; "
        '<span class="b2b">orange</span> cables join two NICs back to back; grey NICs are not cabled. '
        "Hover over anything for details.</p>"
    )
    fit = '<button type="button" class="fit-button" id="design-fit" hidden>Fit the whole design to the page</button>'
    diagram = f'<div class="diagram" id="design-diagram">{design_svg(scenario)}</div>'
    return Section("design", "Design", fit + diagram + legend + _FIT_SCRIPT)


#: A design wider than the page scrolls sideways; this button shrinks it to the page's width and back.
_FIT_SCRIPT = """<script>
(() => {
  const box = document.getElementById("design-diagram"), button = document.getElementById("design-fit");
  button.hidden = box.querySelector("svg").width.baseVal.value <= box.clientWidth;
  button.addEventListener("click", () => {
    const fit = box.classList.toggle("fit");
    button.textContent = fit ? "Show the design at full size" : "Fit the whole design to the page";
  });
})();
</script>"""


#: A section draws at most this many NIC charts (the busiest); a list picks any other.
SHOWN_NICS = 8
#: ... and this many CPU heatmaps of hosts (and as many of VMs).
SHOWN_HEATMAPS = 4
#: A host with more cores than this gets a heatmap row only for each core that did network work.
IDLE_CORES = 16


@dataclass(frozen=True)
class _Item:
    """One chart of a set: its name in a list, how much it did (the busiest are drawn), its figure."""

    label: str
    weight: float
    figure: Figure


def _chart_set(items: list[_Item], shown: int, ids: str, noun: str, columns: int = 1) -> str:
    """The `shown` busiest items' charts in a grid, in their given order (ids ``{ids}-0``...), then,
    if there are more, one chart with a list to pick any of the others; their figures are
    packed in the page (``{ids}-data``) and drawn when picked."""
    if not items:
        return ""
    busiest = sorted(range(len(items)), key=lambda i: -items[i].weight)[:shown]
    drawn = [items[i] for i in sorted(busiest)]
    others = [item for i, item in enumerate(items) if i not in set(busiest)]
    charts = "".join(
        f'<div class="chart">{figure_div(f"{ids}-{i}", item.figure)}</div>' for i, item in enumerate(drawn)
    )
    html = f'<div class="charts" style="--columns: {columns}">{charts}</div>'
    if others:
        options = "".join(f'<option value="{i}">{escape(item.label)}</option>' for i, item in enumerate(others))
        height = others[0].figure["layout"]["height"]
        html += (
            f'<div class="chooser"><label>{escape(noun)} ({len(others)}): '
            f'<select data-pack="{ids}-data" data-chart="{ids}-other">{options}</select></label></div>'
            f'<div class="chart"><div id="{ids}-other" class="plotly-graph-div" style="height:{height}px; width:100%;">'
            "</div></div>" + data_script(f"{ids}-data", [item.figure for item in others])
        )
    return html


def _idle(what: str, names: list[str]) -> str:
    """One line naming what did nothing, so it is not drawn."""
    if not names:
        return ""
    return f'<p class="caption idle">{escape(what)} ({len(names)}): {escape(", ".join(names))}.</p>'


def _resolution(grid: Grid) -> str:
    return f"each {human_duration(grid.width_s)}"


def adapters_section(
    results: Results,
    prefix: str = "",
    title: str = "Network adapters: send and receive",
    grid: Grid | None = None,
    shown: int = SHOWN_NICS,
) -> Section:
    """A Task-Manager-style chart per NIC, in a grid of two or three per row: the `shown`
    busiest (bytes sent and received), the others one at a time from a list, idle ones named.

    `prefix` keeps ids apart when a page has several (a comparison); `grid` is the time
    axis (default: this run's, fitted to a chart's width), the same for every chart.
    """
    grid = grid or Grid.fit(results.end_s)
    per_host: dict[str, int] = {}
    for adapter in results.adapters:
        per_host[adapter.host] = per_host.get(adapter.host, 0) + 1
    columns = min(max(max(per_host.values(), default=2), 2), 3)
    busy = [a for a in results.adapters if a.send_bps.nonzero() or a.receive_bps.nonzero()]
    busy_ids = {id(a) for a in busy}
    marks, axis = failure_marks(results), TimeAxis.of(grid.end_s)
    items = []
    for adapter in busy:
        end = results.end_s
        moved = (adapter.send_bps.integral(0.0, end) + adapter.receive_bps.integral(0.0, end)) / 8
        label = f"{adapter_chart_title(adapter)}: {format_bytes(int(float(f'{moved:.3g}')))} sent and received"
        items.append(_Item(label, moved, marked(adapter_figure(adapter, grid, end), marks, axis)))
    idle = [f"{a.host} / {a.nic}" for a in results.adapters if id(a) not in busy_ids]
    caption = (
        f'<p class="caption">Send and receive of each NIC in Gbps, as the exact mean over '
        f"{_resolution(grid)}; the dashed line is the link speed."
    )
    if grid.shows_peaks:
        caption += (
            " The lighter area behind each line reaches the highest rate within each "
            f"{human_duration(grid.width_s * grid.peak_bins)}, so that a short burst keeps its height."
        )
    if len(items) > shown:
        caption += f" The {shown} busiest NICs (bytes sent and received) are drawn; pick any other below."
    caption += "</p>"
    charts = _chart_set(items, shown, f"{prefix}nic-chart", "Other NICs", columns)
    idle_line = _idle("Idle, not drawn: sent and received nothing", idle)
    if not items and not idle_line:
        idle_line = '<p class="caption">The scenario has no NICs.</p>'
    return Section(f"{prefix}network", title, caption + charts + idle_line)


def cpu_section(results: Results, shown: int = SHOWN_HEATMAPS, grid: Grid | None = None) -> Section | None:
    """Per-core CPU of each host over time, a heatmap per host whose cores did network work,
    then one per VM whose own network stack worked on its vCPUs: the `shown` busiest of each
    drawn, the others from a list, the idle ones named; None when CPU is not modelled."""
    if not results.cores and not results.vcpus:
        return None
    grid = grid or Grid.fit(results.end_s)
    end = results.end_s
    hosts: dict[str, list[tuple[str, Series]]] = {}
    for core in results.cores:
        hosts.setdefault(core.host, []).append((f"core {core.core}", core.busy))
    for host, rows in hosts.items():  # a row per core, but past IDLE_CORES only the cores that worked
        if len(rows) > IDLE_CORES and any(b.nonzero() for _, b in rows):
            hosts[host] = [(label, b) for label, b in rows if b.nonzero()]
    vms: dict[str, list[tuple[str, Series]]] = {}
    for vcpu in results.vcpus:
        vms.setdefault(vcpu.vm, []).append((f"vCPU {vcpu.vcpu}", vcpu.busy))

    marks, axis = failure_marks(results), TimeAxis.of(grid.end_s)

    def items(groups: dict[str, list[tuple[str, Series]]], what: str) -> list[_Item]:
        return [
            _Item(
                name,
                sum(b.integral(0.0, end) for _, b in rows),
                marked(cpu_figure(f"{name}: CPU per {what} (% busy)", rows, grid, end), marks, axis),
            )
            for name, rows in groups.items()
            if any(b.nonzero() for _, b in rows)
        ]

    host_items, vm_items = items(hosts, "core"), items(vms, "vCPU")
    idle_hosts = [h for h in hosts if h not in {i.label for i in host_items}]
    idle_vms = [v for v in vms if v not in {i.label for i in vm_items}]
    caption = (
        '<p class="caption">How busy each physical core was, as a share of the cycles its power plan leaves it, '
        f"exactly over {_resolution(grid)}: receive and send work lands on the cores RSS, VMQ "
        "or vRSS pick. Then each VM whose own network stack worked, on its vCPUs (vCPU 0 receives, or all of "
        f"them with vRSS). A host of more than {IDLE_CORES} cores has a row only for each core that did "
        "network work."
    )
    if len(host_items) > shown or len(vm_items) > shown:
        caption += f" The {shown} busiest hosts (and VMs) are drawn; pick any other below."
    body = caption + "</p>"
    body += _chart_set(host_items, shown, "cpu-chart", "Other hosts")
    body += _idle("Hosts whose cores did no network work, not drawn", idle_hosts)
    body += _chart_set(vm_items, shown, "vcpu-chart", "Other VMs")
    body += _idle("VMs whose vCPUs did no network work, not drawn", idle_vms)
    return Section("cpu", "CPU per core", body)


def _header(header: object) -> str:
    """A terminal header on one line: where it may wrap (`mean\\nrate`, `black-\\nholed`), a space or nothing."""
    return str(header).replace("-\n", "-").replace("\n", " ")


def html_table(table: Table, stalled: list[bool]) -> str:
    """A terminal table as HTML: the same columns, cells and alignment; row i red if stalled[i]."""
    head = "".join(f'<th class="{c.justify}">{escape(_header(c.header))}</th>' for c in table.columns)
    cells = [[escape(str(cell)) for cell in column.cells] for column in table.columns]
    rows = []
    for i in range(table.row_count):
        row = "".join(f'<td class="{c.justify}">{cells[j][i]}</td>' for j, c in enumerate(table.columns))
        rows.append(f'<tr class="stalled">{row}</tr>' if stalled[i] else f"<tr>{row}</tr>")
    if not rows:
        rows.append(f'<tr><td colspan="{len(table.columns)}">The scenario has no traffic.</td></tr>')
    return f'<table class="traffic"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def utilisation_section(results: Results) -> Section | None:
    """The terminal's utilisation tables in full: every NIC (each team member) and direction,
    then every core that did network work, busiest first (hvnet.utilisation); None when
    the scenario has no NIC."""
    from hvnet.tables import cores_utilisation_table, utilisation_table

    if not results.utilisation:
        return None
    hot = [t for t in results.teams_utilisation if t.hot_spot]
    caption = (
        '<p class="caption">Utilisation is the rate over the link speed (a core: its busy share), '
        "time-weighted over the whole run from the exact change points; busy is the time above "
        f"{BUSY_SHARE:.0%}, headroom is 1 − p99, and <em>of team</em> is the member's share of its team's "
        f"bytes in that direction (<em>hot</em>: one member carried over {HOT_SHARE:.0%} of them while "
        f"another carried under {COLD_SHARE:.0%})."
    )
    if hot:
        names = ", ".join(f"{t.host} / {t.team} ({t.direction})" for t in hot)
        caption += f' <span class="stalled">Hot spots: {escape(names)}.</span>'
    nics = utilisation_table(results, rows=None)
    body = caption + "</p>" + html_table(nics, [False] * nics.row_count)
    cores = cores_utilisation_table(results, rows=None)
    if cores.row_count:
        body += '<p class="caption">Cores that did network work, busiest first.</p>'
        body += html_table(cores, [False] * cores.row_count)
    return Section("utilisation", "Utilisation and headroom", body)


def traffic_section(results: Results) -> Section:
    """The terminal's traffic table, column for column; an entry that never completed in red."""
    table = traffic_table(results)
    return Section("traffic", "Traffic", html_table(table, [t.end_s is None for t in results.traffic]))


def uncertainty_section(results: Results) -> Section | None:
    """The terminal's uncertainty table (`hvnet simulate --uncertainty`); None when not asked for."""
    from hvnet.tables import uncertainty_table

    if not results.uncertainty:
        return None
    caption = (
        '<p class="caption">Each figure simulated again with every parameter that has a stated range '
        '(docs/model.md, "Every parameter") at its low end and at its high end, one at a time (parameters: '
        "from the lowest to the highest prediction; the parameter that moved it most is named). Low to high "
        "is that range, widened where hvnet validate's leave-one-out residuals say the truth may lie further "
        '(nine figures in ten; docs/validation.md, "Leave-one-out").</p>'
    )
    table = uncertainty_table(results)
    return Section(
        "uncertainty", "Uncertainty", caption + html_table(table, [b.high is None for b in results.uncertainty])
    )
