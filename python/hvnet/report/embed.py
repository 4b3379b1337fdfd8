"""Data that the page draws on demand, packed small, and the script that unpacks it.

A large cluster's report draws its busiest NICs and hosts at once and keeps
the others' figures (and each host's migrations) for when the reader picks
them. Those are JSON, gzip-compressed and base64-encoded inside a
``<script type="application/json">`` (`data_script`): mostly zeros and
repeated time axes, they shrink about tenfold. `RUNTIME`, once in the page,
unpacks them with the browser's own ``DecompressionStream`` (no network, no
library) and wires the ``<select data-pack>`` and ``<details data-pack>``
elements to them. It unpacks plotly.js itself the same way (`library`: the
page carries it packed) and runs it; ``hvnet.plotly`` is the promise of it,
on which every chart's script waits (`charts.figure_div`).
"""

from __future__ import annotations

import base64
import gzip
import json
from html import escape
from typing import Any

import pydantic_core

from hvnet.report.charts import CONFIG, time_labels, time_labels_id, to_json
from hvnet.report.library import ELEMENT_ID
from hvnet.report.resample import Grid

__all__ = ["RUNTIME", "data_script", "pack", "time_labels_script", "unpack"]


def pack(value: object) -> str:
    """`value` as compact JSON, gzip-compressed (no timestamp: the same value gives the same
    text) and base64-encoded."""
    raw = pydantic_core.to_json(value)  # compact UTF-8, as `to_json`
    # gzip's default level: level 9 took nine times as long for some 3 % less on a report's series
    return base64.b64encode(gzip.compress(raw, compresslevel=6, mtime=0)).decode("ascii")


def unpack(text: str) -> Any:
    """The value `pack` packed."""
    return json.loads(gzip.decompress(base64.b64decode(text)))


def data_script(element_id: str, value: object) -> str:
    """`value`, packed, in a script element the page's `RUNTIME` reads by its id."""
    return f'<script type="application/json" id="{escape(element_id)}" class="packed">{pack(value)}</script>'


def time_labels_script(grid: Grid) -> str:
    """The hover labels of the charts on `grid` (`charts.time_labels`), packed, once in a page's
    ``<head>``: the runtime gives them to each chart whose ``layout.meta.time_labels`` names them."""
    return data_script(time_labels_id(grid), time_labels(grid))


#: Unpacks plotly.js (`library.plotly_element`) and runs it: ``hvnet.plotly`` resolves once ``Plotly`` is
#: there (a browser without ``DecompressionStream`` says so at the top of the page); its ``newPlot`` and
#: ``react`` first give a chart on a grid its hover labels of times (`time_labels_script`). Then unpacks
#: the data scripts on demand and draws from them:
#: ``<select data-pack=ID data-chart=DIV>`` draws figure ``select.value`` of pack ID in DIV, now and on change;
#: ``<details data-pack=ID data-key=KEY>`` fills its ``.group-chart`` with figure ``figures[KEY]`` and its
#: ``.group-table`` with the HTML ``tables[KEY]`` of pack ID the first time it is open.
RUNTIME = (
    """
window.hvnet = (() => {
  const config = """
    + to_json(CONFIG)
    + """, packs = {};
  function gunzip(id) {
    const text = atob(document.getElementById(id).textContent.trim()), bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip")));
  }
  function ready(then) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", then); else then();
  }
  function labelled(layout) {  // a chart on a grid gets the grid's hover labels of times
    const id = layout.meta && layout.meta.time_labels;
    if (!id || !document.getElementById(id)) return Promise.resolve(layout);
    return data(id).then(labels => ({ ...layout, xaxis: { ...layout.xaxis, labelalias: labels } }));
  }
  const plotly = new Promise(resolve => resolve(gunzip("""
    + to_json(ELEMENT_ID)
    + """).text())).then(code => {
    const script = document.createElement("script");
    script.textContent = code;
    document.head.appendChild(script);
    const Plotly = window.Plotly, newPlot = Plotly.newPlot, react = Plotly.react;
    Plotly.newPlot = (div, data, layout, config) => labelled(layout).then(l => newPlot(div, data, l, config));
    Plotly.react = (div, data, layout, config) => labelled(layout).then(l => react(div, data, l, config));
    return Plotly;
  });
  plotly.catch(error => ready(() => {
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = "This browser cannot unpack the report's charts (" + error + "): open the file in a current " +
      "Chrome, Edge, Firefox or Safari.";
    document.querySelector("main").prepend(note);
  }));
  function data(id) {
    if (!packs[id]) packs[id] = gunzip(id).json();
    return packs[id];
  }
  function draw(div, figure) {
    div.classList.add("plotly-graph-div");
    div.style.height = figure.layout.height + "px";
    return plotly.then(() => Plotly.react(div, figure.data, figure.layout, config));
  }
  function wire() {
    for (const select of document.querySelectorAll("select[data-pack]")) {
      const div = document.getElementById(select.dataset.chart);
      const show = () => data(select.dataset.pack).then(figures => draw(div, figures[select.value]));
      select.addEventListener("change", show);
      show();
    }
    for (const details of document.querySelectorAll("details[data-pack]")) {
      const fill = () => {
        if (!details.open || details.dataset.filled) return;
        details.dataset.filled = "yes";
        data(details.dataset.pack).then(groups => {
          const key = details.dataset.key;
          details.querySelector(".group-table").innerHTML = groups.tables[key];
          return draw(details.querySelector(".group-chart"), groups.figures[key]);
        });
      };
      details.addEventListener("toggle", fill);
      fill();
    }
  }
  ready(wire);
  return { data, draw, plotly };
})();
"""
)
