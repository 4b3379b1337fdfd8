"""The package's public face: `hvnet.__all__` is honest, and the version is the engine's."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import hvnet
from hvnet import _core


def _public(name: str) -> bool:
    return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))


def test_all_lists_exactly_what_the_package_imports() -> None:
    """Every public name `hvnet/__init__.py` imports is in `__all__`, and nothing else is."""
    source = Path(hvnet.__file__).read_text()
    imported = {
        alias.asname or alias.name
        for node in ast.parse(source).body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert sorted(hvnet.__all__) == sorted({name for name in imported if _public(name)})
    assert len(hvnet.__all__) == len(set(hvnet.__all__)), "a name is listed twice"


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
