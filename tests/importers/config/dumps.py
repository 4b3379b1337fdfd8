"""What the tests of `hvnet.importers.config` share: the fixture dumps (fixtures/*.json, see
fixtures/README.md), and a changed copy of one written to a test's directory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"
LBFO_PAIR = [FIXTURES / "lbfo_dynamic_hv1.json", FIXTURES / "lbfo_dynamic_hv2.json"]


def dump(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return data


def write_dump(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=4, ensure_ascii=False), encoding="utf-8")
    return path
