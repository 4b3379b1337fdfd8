"""What the scenario error tests share: the lines a user sees for a bad scenario file.

test_errors.py, test_field_errors.py and test_cross_reference_errors.py save a small file as
cluster.yaml and compare these lines with the exact ones expected.
"""

from __future__ import annotations

import textwrap

import pytest

from hvnet.errors import ScenarioError
from hvnet.model import parse_scenario


def problems(text: str) -> list[str]:
    """The lines a user sees for ``text`` saved as cluster.yaml (it must be invalid)."""
    with pytest.raises(ScenarioError) as caught:
        parse_scenario(textwrap.dedent(text), "cluster.yaml")
    return str(caught.value).splitlines()
