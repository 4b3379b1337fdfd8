"""The plotly.js every report carries (report/library.py): the vendored cartesian bundle, of the
version the module names, under its MIT licence, holding every trace type the report and
`hvnet explain --report` draw, and shipped inside the package."""

from __future__ import annotations

import ast
import re
from importlib import resources
from pathlib import Path

from hvnet.report.library import NOTICE, PLOTLY_VERSION, plotly_element, plotly_source

PACKAGE = Path(__file__).parents[2] / "python" / "hvnet"


def test_the_vendored_bundle_is_the_version_the_module_names() -> None:
    source = plotly_source()
    assert source.startswith(f"/**\n* plotly.js (cartesian - minified) v{PLOTLY_VERSION}\n")
    assert f'version="{PLOTLY_VERSION}"' in source
    assert "Licensed under the MIT license" in source[:300]
    assert PLOTLY_VERSION in NOTICE and "MIT" in NOTICE


def test_its_licence_and_readme_ship_beside_it() -> None:
    vendor = resources.files("hvnet.report").joinpath("vendor")
    licence = vendor.joinpath("LICENSE-plotly.js.txt").read_text()
    assert licence.startswith("MIT License") and "Plotly" in licence
    readme = vendor.joinpath("README.md").read_text()
    assert f"plotly.js-cartesian-dist-min` {PLOTLY_VERSION}" in readme


def trace_types() -> set[str]:
    """Every `"type": "..."` of a trace that the report's and explain's charts write."""
    found = set()
    for folder in ("report", "explain"):
        for path in (PACKAGE / folder).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Dict):
                    for key, value in zip(node.keys, node.values):
                        if (
                            isinstance(key, ast.Constant)
                            and key.value == "type"
                            and isinstance(value, ast.Constant)
                            and isinstance(value.value, str)
                        ):
                            found.add(value.value)
    return found - {"line"}  # a shape's type (failure marks), not a trace's


def test_the_bundle_holds_every_trace_type_the_charts_draw() -> None:
    used = trace_types()
    assert {"scatter", "bar", "heatmap"} <= used
    bundled = set(re.findall(r'moduleType:"trace",name:"(\w+)"', plotly_source()))
    assert used <= bundled, f"not in the bundle: {used - bundled}"


def test_the_page_carries_it_packed_at_a_third_of_its_size() -> None:
    element = plotly_element()
    assert '<script type="application/octet-stream" id="plotly-js"' in element
    assert len(element) < len(plotly_source()) / 2 < 1_000_000
