"""The package's public face: `hvnet.__all__` is honest, and the version is the engine's."""

from __future__ import annotations

import ast
import doctest
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import hvnet
from hvnet import _core


def _public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def test_all_lists_exactly_what_the_package_exports() -> None:
    """Every name `hvnet` loads on first use (`_HOMES`) is in `__all__`, and nothing else is; the
    imports for type checkers name the same."""
    homes = hvnet._HOMES
    assert sorted(hvnet.__all__) == sorted(homes)
    assert len(hvnet.__all__) == len(set(hvnet.__all__)), "a name is listed twice"
    source = Path(hvnet.__file__).read_text()
    checked = {
        alias.asname or alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom)
        and node.module != "__future__"
        and node.module not in ("importlib", "typing")
        for alias in node.names
    }
    assert checked == set(homes)


def test_the_command_line_loads_neither_the_model_nor_the_engine_before_a_command_runs() -> None:
    """`hvnet --help` stays quick by construction: importing the CLI imports no model, lowering,
    core or face; each command imports what it runs (issue 25: it took 0.9 s)."""
    probe = "import sys, hvnet.cli; print(sorted(m for m in sys.modules if m.startswith('hvnet')))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    for heavy in ("hvnet.model", "hvnet.lower", "hvnet._core", "hvnet.simulation", "hvnet.report", "hvnet.results"):
        assert f"'{heavy}'" not in loaded, loaded


def test_every_public_name_resolves() -> None:
    for name in hvnet.__all__:
        assert getattr(hvnet, name, None) is not None, name


def test_every_modules_all_resolves() -> None:
    """Each module's `__all__` names only what the module defines or imports."""
    for module_info in pkgutil.walk_packages(hvnet.__path__, "hvnet."):
        if module_info.name == "hvnet.__main__":  # runs the CLI when imported
            continue
        module = importlib.import_module(module_info.name)
        for name in getattr(module, "__all__", []):
            assert hasattr(module, name), f"{module_info.name}.__all__ lists {name!r}, which it does not have"


def test_version_is_the_cores() -> None:
    assert hvnet.__version__ == _core.__version__
    assert hvnet.__version__.count(".") >= 2


def test_the_packages_example_runs_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example in `hvnet`'s docstring (load, simulate, read the typed results) gives what it shows."""
    monkeypatch.chdir(Path(__file__).parents[1])
    failures, tried = doctest.testmod(hvnet, raise_on_error=False, report=True)
    assert tried >= 3 and failures == 0


def test_a_loaded_scenario_names_its_file_in_later_errors(tmp_path: Path) -> None:
    """`hvnet.load` remembers the file, so `hvnet.simulate`'s planning errors name it too."""
    path = tmp_path / "lonely.yaml"
    path.write_text(
        "name: one VM too big\n"
        "hosts:\n"
        "  - {name: hv1, memory: 8GiB, nics: [{name: nic1, speed: 10Gbps}]}\n"
        "  - {name: hv2, memory: 8GiB, nics: [{name: nic1, speed: 10Gbps}]}\n"
        "cables: [{a: hv1/nic1, b: hv2/nic1}]\n"
        "vms: [{name: vm1, host: hv1, memory: 6GiB}, {name: vm2, host: hv2, memory: 6GiB}]\n"
        "events: [{at: 0s, action: drain, target: hv1}]\n"
    )
    with pytest.raises(hvnet.ScenarioError) as error:
        hvnet.simulate(hvnet.load(path))
    assert str(error.value).startswith(f"{path}:")


def test_the_readmes_python_example_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """README's Python snippet is code a user pastes: it must run as written."""
    root = Path(__file__).parents[1]
    readme = (root / "README.md").read_text()
    snippet = readme.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(root)
    exec(compile(snippet, "README.md", "exec"), {})
    assert "copy-1" in capsys.readouterr().out
