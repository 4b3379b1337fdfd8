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
from hvnet.report.charts import adapter_chart, cpu_heatmap, migration_timeline
from hvnet.report.diagram import design_svg
from hvnet.results import Results
from hvnet.tables import traffic_table
from hvnet.units import format_duration

__all__ = [
    "NOT_SIMULATED",
    "Section",
    "adapters_section",
    "cpu_section",
    "migrations_section",
    "design_section",
    "summary_section",
    "traffic_section",
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


def _plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count} {word if count == 1 else words or word + 's'}"


def summary_section(results: Results, scenario: Scenario) -> Section:
    """The terminal's summary line as a table, with the size of the design."""
    stalled = results.stalled
    completed = f"{len(results.traffic) - len(stalled)} of {len(results.traffic)}"
    if stalled:
        names = ", ".join(escape(t.name or f"{t.source} → {t.destination}") for t in stalled)
        completed += f' <span class="stalled">(never completed: {names})</span>'
    nics = sum(len(host.nics) for host in scenario.hosts)
    design = ", ".join(
        [
            _plural(len(scenario.hosts), "host"),
            _plural(nics, "NIC"),
            _plural(len(scenario.switches), "switch", "switches"),
            _plural(len(scenario.cables), "cable"),
            _plural(len(scenario.vms), "VM"),
        ]
    )
    rows = [("simulated time", f"{results.end_s:.2f} s (time series in steps of {format_duration(results.step_s)})")]
    if results.traffic or not results.migrations:  # a scenario that only migrates has no traffic to count
        rows.append(("traffic entries completed", completed))
    if results.migrations:
        ended = sum(m.end_s is not None for m in results.migrations)
        rows.append(("live migrations ended", f"{ended} of {len(results.migrations)}"))
    rows += [
        ("design", design),
        ("engine", f"{results.events} events in {results.wall_s * 1000:.1f} ms"),
    ]
    body = "".join(f"<tr><th>{label}</th><td>{value}</td></tr>" for label, value in rows)
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


def adapters_section(
    results: Results, prefix: str = "", title: str = "Network adapters: send and receive", bins: int | None = None
) -> Section:
    """One Task-Manager-style chart per NIC, in a grid of two or three per row.

    `prefix` keeps ids apart when a page has several (a comparison); `bins` is the
    length of the time axis in steps (default: this run's), the same for every chart.
    """
    if bins is None:
        bins = max((len(a.send_bps) for a in results.adapters), default=0)
    per_host: dict[str, int] = {}
    for adapter in results.adapters:
        per_host[adapter.host] = per_host.get(adapter.host, 0) + 1
    columns = min(max(max(per_host.values(), default=2), 2), 3)
    charts = "".join(
        f'<div class="chart">{adapter_chart(adapter, results.step_s, bins, f"{prefix}nic-chart-{i}")}</div>'
        for i, adapter in enumerate(results.adapters)
    )
    caption = (
        f'<p class="caption">Send and receive of each NIC in Gbps, as the mean over each '
        f"{format_duration(results.step_s)} step; the dashed line is the link speed.</p>"
    )
    grid = f'<div class="charts" style="--columns: {columns}">{charts}</div>'
    return Section(f"{prefix}network", title, caption + grid)


def migrations_section(results: Results, prefix: str = "", title: str = "Live migrations") -> Section | None:
    """The migration timeline and its table; None when the scenario migrates nothing.

    `prefix` keeps ids apart when a page has several (a comparison)."""
    if not results.migrations:
        return None
    from hvnet.tables import migrations_table, operations_table

    timeline = migration_timeline(results.migrations, f"{prefix}migration-chart-0", results.operations)
    chart = f'<div class="chart">{timeline}</div>'
    table = migrations_table(results)
    stalled = [m.end_s is None for m in results.migrations]
    caption = (
        '<p class="caption">One bar per VM: waiting in its host\'s queue (grey), each pre-copy pass (blue) '
        "and the blackout (red), in seconds; in a rolling update, each node while it is down for its patch "
        "(purple).</p>"
    )
    body = caption + chart + _html_table(table, stalled)
    operations = [o for o in results.operations if o.kind != "migrate"]
    if operations:
        never = [flag for o in operations for flag in [o.end_s is None] + [n.end_s is None for n in o.nodes]]
        body += (
            '<p class="caption">Maintenance windows: each drain and rolling update as a whole, and each '
            "node's part of a rolling update (drained, down for its patch, back, its VMs failed back).</p>"
            + _html_table(operations_table(results), never)
        )
    return Section(f"{prefix}migrations", title, body)


def cpu_section(results: Results) -> Section | None:
    """Per-core CPU of each host over time, one heatmap per host, then one per VM whose own
    network stack worked on its vCPUs; None when CPU is not modelled."""
    heatmaps: dict[str, list[tuple[str, list[float]]]] = {}
    for core in results.cores:
        heatmaps.setdefault(f"{core.host}: CPU per core (% busy)", []).append((f"core {core.core}", core.busy))
    for vcpu in results.vcpus:
        heatmaps.setdefault(f"{vcpu.vm}: CPU per vCPU (% busy)", []).append((f"vCPU {vcpu.vcpu}", vcpu.busy))
    busy = {title: rows for title, rows in heatmaps.items() if "vCPU" not in title or any(any(b) for _, b in rows)}
    if not busy:
        return None
    charts = "".join(
        f'<div class="chart">{cpu_heatmap(title, rows, results.step_s, f"cpu-chart-{i}")}</div>'
        for i, (title, rows) in enumerate(busy.items())
    )
    caption = (
        '<p class="caption">How busy each physical core was, as a share of the cycles its power plan leaves it, '
        f"over each {format_duration(results.step_s)} step: receive and send work lands on the cores RSS, VMQ "
        "or vRSS pick. Then each VM whose own network stack worked, on its vCPUs (vCPU 0 receives, or all of "
        "them with vRSS).</p>"
    )
    return Section("cpu", "CPU per core", caption + f'<div class="charts" style="--columns: 1">{charts}</div>')


def _html_table(table: Table, stalled: list[bool]) -> str:
    """A terminal table as HTML: the same columns, cells and alignment; row i red if stalled[i]."""
    head = "".join(f'<th class="{c.justify}">{escape(str(c.header))}</th>' for c in table.columns)
    cells = [[escape(str(cell)) for cell in column.cells] for column in table.columns]
    rows = []
    for i in range(table.row_count):
        row = "".join(f'<td class="{c.justify}">{cells[j][i]}</td>' for j, c in enumerate(table.columns))
        rows.append(f'<tr class="stalled">{row}</tr>' if stalled[i] else f"<tr>{row}</tr>")
    if not rows:
        rows.append(f'<tr><td colspan="{len(table.columns)}">The scenario has no traffic.</td></tr>')
    return f'<table class="traffic"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def traffic_section(results: Results) -> Section:
    """The terminal's traffic table, column for column; an entry that never completed in red."""
    table = traffic_table(results)
    return Section("traffic", "Traffic", _html_table(table, [t.end_s is None for t in results.traffic]))
