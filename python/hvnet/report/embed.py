"""Data that the page draws on demand, packed small, and the script that unpacks it.

A large cluster's report draws its busiest NICs and hosts at once and keeps
the others' figures (and each host's migrations) for when the reader picks
them. Those are JSON, gzip-compressed and base64-encoded inside a
``<script type="application/json">`` (`data_script`): mostly zeros and
repeated time axes, they shrink about tenfold. `RUNTIME`, once in the page,
unpacks them with the browser's own ``DecompressionStream`` (no network, no
library) and wires the ``<select data-pack>`` and ``<details data-pack>``
elements to them.
"""

from __future__ import annotations

import base64
import gzip
import json
from html import escape
from typing import Any

import pydantic_core

from hvnet.report.charts import CONFIG, to_json

__all__ = ["RUNTIME", "data_script", "pack", "unpack"]


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


#: Unpacks the data scripts on demand and draws from them:
#: ``<select data-pack=ID data-chart=DIV>`` draws figure ``select.value`` of pack ID in DIV, now and on change;
#: ``<details data-pack=ID data-key=KEY>`` fills its ``.group-chart`` with figure ``figures[KEY]`` and its
#: ``.group-table`` with the HTML ``tables[KEY]`` of pack ID the first time it is open.
RUNTIME = (
    """
window.hvnet = (() => {
  const config = """
    + to_json(CONFIG)
    + """, packs = {};
  function data(id) {
    if (!packs[id]) {
      const bytes = Uint8Array.from(atob(document.getElementById(id).textContent.trim()), c => c.charCodeAt(0));
      packs[id] = new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).json();
    }
    return packs[id];
  }
  function draw(div, figure) {
    div.classList.add("plotly-graph-div");
    div.style.height = figure.layout.height + "px";
    return Plotly.react(div, figure.data, figure.layout, config);
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
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire); else wire();
  return { data, draw };
})();
"""
)
