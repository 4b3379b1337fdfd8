"""plotly.js inside every report: the cartesian bundle, packed, and unpacked by the page itself.

A report draws scatter lines (NICs, explain's throughput), bars (the
live-migration timelines, explain's threads) and heatmaps (CPU per core),
and needs nothing else from plotly.js. Until now each report embedded the
whole of plotly.js that plotly.py ships (4.8 MB of its 5 MB). What was weighed:

- **The cartesian bundle** (npm ``plotly.js-cartesian-dist-min``, the same
  plotly.js 4.1.1 as plotly.py 7.1.0; scatter, bar, heatmap and a few other
  2-D traces): 1.50 MB. The smaller official bundle, *basic* (1.19 MB), has no
  heatmap; a bundle of exactly scatter, bar and heatmap would have to be built
  from plotly.js's sources with its build tools, for some 0.1 MB more saved
  once packed; not worth a build step no one can rerun from the package.
- **Packed**: gzip (level 9) and base64 in a ``<script type="application/octet-stream">``
  element, which the page unpacks with the browser's own ``DecompressionStream``
  (as `embed` does for the figures drawn on demand) and runs as a script:
  1.50 MB becomes 0.50 MB, 0.66 MB in base64. Unpacking takes a few tens of
  milliseconds; every current browser has ``DecompressionStream`` (Chromium
  80, Firefox 113, Safari 16.4), and one that has not says so in the page.
- **One shared file beside several reports** (``plotly.min.js`` next to them):
  smaller still per report, but a report that is mailed, attached to a change
  request or moved on its own would draw no chart. Not done: the report's
  promise is one file that opens anywhere offline.

So the default, and the only way, is the cartesian bundle, packed: the demo's
report went from 5.0 MB to about 0.85 MB. The bundle is vendored, compressed,
in ``vendor/`` (MIT; its licence and how to refresh it are there), and ships
in the Python package: nothing is fetched when a report is written or opened.
Charts are drawn once it is unpacked: a chart's script waits on
``hvnet.plotly`` (`charts.figure_div`, `embed.RUNTIME`).
"""

from __future__ import annotations

import base64
import functools
import gzip
from importlib import resources

__all__ = ["ELEMENT_ID", "NOTICE", "PLOTLY_VERSION", "plotly_element", "plotly_source"]

#: The vendored plotly.js's version (its first lines say so: `tests/report/test_library.py`).
PLOTLY_VERSION = "4.1.1"
#: The id of the page's element that holds plotly.js, packed.
ELEMENT_ID = "plotly-js"

_FILE = "plotly-cartesian.min.js.gz"
#: The library's copyright notice, in the page in plain words (its script keeps its own header).
NOTICE = f"plotly.js (cartesian) v{PLOTLY_VERSION}, Copyright 2012-2026 Plotly, Inc., MIT licence"


@functools.cache
def _packed() -> bytes:
    """The vendored bundle as gzip bytes (read once per process)."""
    return resources.files("hvnet.report").joinpath("vendor").joinpath(_FILE).read_bytes()


def plotly_source() -> str:
    """plotly.js itself, unpacked: what the page runs."""
    return gzip.decompress(_packed()).decode("utf-8")


@functools.cache
def plotly_element() -> str:
    """The script element that carries plotly.js, gzip-compressed and base64-encoded, once in a
    page's ``<head>`` before `embed.RUNTIME`, which unpacks and runs it."""
    text = base64.b64encode(_packed()).decode("ascii")
    return (
        f"<!-- {NOTICE} -->\n"
        f'<script type="application/octet-stream" id="{ELEMENT_ID}" data-encoding="gzip base64">{text}</script>'
    )
