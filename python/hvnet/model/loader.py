"""Reading scenario files: YAML with line numbers, and errors a user can act on.

``load_scenario(path)`` and ``parse_scenario(text)`` return a valid
``Scenario`` or raise ``ScenarioError`` listing every problem found, each as
one line ``file:line: field: message``::

    cluster.yaml:7: hosts[0].nicss: unknown field; allowed: name, cpu, power_plan, nics, teams, vswitches
    cluster.yaml:12: hosts[0].nics[1].speed: '10Gbs' is not a bit rate; write a number and a unit: ...

How: ``yamltree`` reads the YAML with libyaml and keeps the line and column
of every key and value (ruamel.yaml's round-trip loader, pure Python and
fifty times slower, gives the message when the YAML is wrong). The tree is turned into plain Python data and validated
by
pydantic (one field at a time) and by ``checks`` (names across fields). Both
report a location such as ``("hosts", 0, "nics", 1, "speed")``; walking the
YAML tree along it gives the line: the key's line for an unknown field, the
enclosing entry's line for a missing one, the value's line otherwise.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from hvnet.errors import Problem, ScenarioError, UnitError, decode_text
from hvnet.model.checks import Loc, check_references
from hvnet.model.scenario import Scenario
from hvnet.model.yamltree import YamlRefused, YamlTreeError, parse_tree, start_line
from hvnet.units import (
    format_bitrate,
    format_bytes,
    format_duration,
    parse_bitrate,
    parse_bytes,
    parse_duration,
    show_value,
)

if TYPE_CHECKING:
    from ruamel.yaml.error import MarkedYAMLError

__all__ = [
    "describe_value",
    "key_part",
    "load_scenario",
    "load_yaml",
    "parse_scenario",
    "plain_data",
    "scenario_from_data",
]

#: A top-level field that is not part of the design: ``hvnet.variants`` reads it (docs/sweeps.md).
VARIANTS = "variants"


def load_scenario(path: str | os.PathLike[str]) -> Scenario:
    """Read and validate a scenario file; ScenarioError lists every problem.

    A top-level ``variants:`` mapping is left out: the scenario is the base design.
    """
    filename = os.fspath(path)
    return _validate(load_yaml(filename), filename)


def load_yaml(path: str | os.PathLike[str]) -> object:
    """A file's YAML tree with the line of every key and value (ruamel's round trip);
    ``scenario_from_data(tree, filename)`` validates it with those lines."""
    filename = os.fspath(path)
    try:
        raw = Path(filename).read_bytes()
    except OSError as error:
        raise _error([Problem(filename, None, "", f"cannot read the file: {error.strerror or error}")]) from None
    text = decode_text(raw, filename)
    if isinstance(text, Problem):
        raise _error([text])
    return _parse_yaml(text, filename)


def parse_scenario(text: str, filename: str = "<string>") -> Scenario:
    """Validate a scenario given as YAML text; ``filename`` is used in messages."""
    return _validate(_parse_yaml(text, filename), filename)


def _parse_yaml(text: str, filename: str) -> object:
    try:
        return parse_tree(text)
    except YamlRefused as refused:
        raise _error([Problem(filename, refused.line, "", refused.message)]) from None
    except YamlTreeError:  # ruamel says what is wrong, as it always has (or reads what libyaml refused)
        pass
    from ruamel.yaml import YAML  # only for a file libyaml refused: its messages are the ones users know
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return YAML(typ="rt").load(text)
    except MarkedYAMLError as error:
        raise _error([_yaml_problem(error, filename)]) from None
    except (YAMLError, ValueError) as error:  # ruamel raises ValueError for e.g. a date like 2024-13-45
        raise _error([Problem(filename, None, "", f"invalid YAML: {error}")]) from None
    except TypeError:  # ruamel, on a key it cannot hash (a list or mapping as a key, in a file libyaml refused)
        raise _error(
            [Problem(filename, None, "", "invalid YAML: a list or a mapping used as a key; a key is a name")]
        ) from None


def scenario_from_data(data: object, filename: str = "<data>") -> Scenario:
    """Validate a scenario given as plain data (dicts and lists, e.g. parsed JSON).

    Python code that builds scenarios uses this, writing quantities as text
    ("10Gbps"). Messages have no line numbers, unless ``data`` is a tree from ``load_yaml``.
    """
    return _validate(data, filename)


# --- validation -------------------------------------------------------------------------

#: What would end a line, or not show, where a problem is printed: control characters and the
#: characters `str.splitlines` breaks at (a name written "hv1\\u2028nic" in double quotes gets there).
_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _one_line(text: str) -> str:
    """`text` with each control or line-breaking character escaped, so a problem stays one line."""
    return _BREAKS.sub(lambda found: repr(found.group())[1:-1], text)


def _error(problems: Iterable[Problem]) -> ScenarioError:
    """ScenarioError of `problems`, each printed on one line whatever the file held."""
    return ScenarioError(Problem(_one_line(p.file), p.line, _one_line(p.field), _one_line(p.message)) for p in problems)


def _validate(tree: object, filename: str) -> Scenario:
    if tree is None:
        message = "the file is empty; a scenario needs at least a name and hosts (see docs/scenario.md)"
        raise _error([Problem(filename, 1, "", message)])
    if not isinstance(tree, Mapping):
        message = f"expected a mapping of fields ({_allowed(Scenario)}) at the top, got {describe_value(tree)}"
        raise _error([Problem(filename, start_line(tree) or 1, "", message)])
    try:
        data = plain_data(tree)
    except RecursionError:  # an alias inside its own anchor: a: &x [*x]
        raise _error([Problem(filename, None, "", "a YAML alias refers to itself")]) from None
    assert isinstance(data, dict)
    had_variants = data.pop(VARIANTS, None) is not None
    if not hasattr(tree, "lc"):  # plain data: walk the lists made from its tuples, without lines
        tree = data
    problems: list[Problem] = []
    scenario: Scenario | None = None
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as error:
        for detail in error.errors(include_url=False):
            if (problem := _pydantic_problem(detail, tree, filename)) is not None:
                problems.append(problem)

    def line_of(loc: Loc) -> int | None:
        return _locate(tree, loc).value_line

    for finding in check_references(data, line_of):
        spot = _locate(tree, finding.loc)
        problems.append(Problem(filename, spot.value_line, spot.path, finding.message))
    if scenario is None and not problems:  # pragma: no cover - pydantic always says why
        problems.append(Problem(filename, None, "", "invalid scenario"))
    if problems:
        unique = dict.fromkeys(problems)  # keeps the first of identical problems, in order
        raise _error(sorted(unique, key=lambda p: (p.line is None, p.line or 0)))
    assert scenario is not None
    scenario._source = filename
    scenario._had_variants = had_variants
    return scenario


#: Values that are plain already (most of a tree's scalars): returned as they are, at once.
_PLAIN = frozenset({str, int, float, bool, type(None)})


def plain_data(node: object) -> object:
    """ruamel's round-trip tree (or any data) as plain dicts, lists, str, int, float and bool."""
    if type(node) in _PLAIN:
        return node
    if isinstance(node, (dict, Mapping)):  # (a dict, as nearly every mapping is, is known without the ABC)
        return {
            key if type(key) in _PLAIN else _plain_scalar(key): value if type(value) in _PLAIN else plain_data(value)
            for key, value in node.items()
        }
    if isinstance(node, (list, tuple)):
        return [item if type(item) in _PLAIN else plain_data(item) for item in node]
    return _plain_scalar(node)


def _plain_scalar(node: object) -> object:
    if isinstance(node, Enum):  # from Python code: PowerPlan.BALANCED -> "balanced"
        return _plain_scalar(node.value)
    for kind in (bool, int, float, str):  # bool first: it is an int
        if isinstance(node, kind):
            return kind(node)
    return node


# --- where: YAML lines and field paths ----------------------------------------------------


@dataclass(frozen=True)
class _Spot:
    """What walking the YAML tree along a location found."""

    path: str  # hosts[0].nics[1].speed
    found: bool  # the whole location exists in the file
    value: object  # the value there, as written (None unless found)
    key_line: int | None  # 1-based line of the last key reached
    value_line: int | None  # 1-based line of the deepest value reached


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def key_part(key: object) -> str:
    """A mapping key in a field path: `.speed`, or quoted when it is not a plain name (`[' ']`, `['a b']`)."""
    if isinstance(key, str) and _PLAIN_KEY.fullmatch(key):
        return f".{key}"
    return f"[{show_value(key)}]"


def _locate(tree: object, loc: Loc) -> _Spot:
    node, found = tree, True
    key_line = value_line = start_line(tree)
    parts: list[str] = []
    for step in loc:
        lc = getattr(node, "lc", None)
        if found and isinstance(node, Mapping) and step in node:
            with contextlib.suppress(AttributeError, KeyError, TypeError):  # plain data, or a merged key
                key_line, value_line = lc.key(step)[0] + 1, lc.value(step)[0] + 1  # type: ignore[union-attr]
            node = node[step]
            parts.append(key_part(step))
        elif found and isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            with contextlib.suppress(AttributeError, KeyError, TypeError):
                key_line = value_line = lc.item(step)[0] + 1  # type: ignore[union-attr]
            node = node[step]
            parts.append(f"[{step}]")
        else:
            found = False
            parts.append(f"[{step}]" if isinstance(step, int) else key_part(step))
    return _Spot("".join(parts).lstrip("."), found, node if found else None, key_line, value_line)


# --- what: messages -----------------------------------------------------------------------------


def _model_at(loc: Loc) -> type[BaseModel] | None:
    """The model class that validates the mapping at ``loc`` (e.g. Nic for hosts[0].nics[1])."""
    model: type[BaseModel] = Scenario
    for step in loc:
        if isinstance(step, int):
            continue  # an entry of a list: the list's model, unwrapped below
        field = next((f for name, f in model.model_fields.items() if (f.alias or name) == step), None)
        inner = _find_model(field.annotation) if field is not None else None
        if inner is None:
            return None
        model = inner
    return model


def _find_model(annotation: object) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in getattr(annotation, "__args__", ()):
        if (found := _find_model(argument)) is not None:
            return found
    return None


def _allowed(model: type[BaseModel] | None) -> str:
    if model is None:
        return "see docs/scenario.md"
    names = [field.alias or name for name, field in model.model_fields.items()]
    return ", ".join([*names, VARIANTS] if model is Scenario else names)


def describe_value(value: object) -> str:
    """A value as an error names what it got: ``a list``, ``a mapping``, ``10Gbps``."""
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    return show_value(value)


_TYPE_WORDS = {
    "string_type": "text",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "tuple_type": "a list",
    "list_type": "a list",
}
_BOUND_WORDS = {
    "greater_than": ("too small", "must be more than", "gt"),
    "greater_than_equal": ("too small", "must be at least", "ge"),
    "less_than": ("too large", "must be less than", "lt"),
    "less_than_equal": ("too large", "must be at most", "le"),
}


def _show_bound(value: object, bound: object) -> str:
    """A bound as the value was written: in its unit for a quantity ("1.6 Tbps"), else the number."""
    if isinstance(value, str) and isinstance(bound, (int, float)) and bound > 0:
        shows: tuple[tuple[Callable[[str], float], Callable[[float], str]], ...] = (
            (parse_bitrate, format_bitrate),
            (parse_bytes, lambda size: format_bytes(int(size))),
            (parse_duration, lambda s: f"{s / 3600:g} h" if s >= 3600 else format_duration(s)),
        )
        for parse, show in shows:
            try:
                parse(value)
            except UnitError:
                continue
            return show(float(bound))
    if isinstance(bound, float) and bound.is_integer():
        return str(int(bound))  # "more than 0", not "more than 0.0"
    return str(bound)


def _message(detail: ErrorDetails, spot: _Spot) -> str:
    kind, loc = detail["type"], detail["loc"]
    ctx: dict[str, Any] = dict(detail.get("ctx", {}))
    value = spot.value if spot.found else detail.get("input")
    shown = show_value(value)
    if kind in ("extra_forbidden", "invalid_key"):
        return f"unknown field; allowed: {_allowed(_model_at(loc[:-1]))}"
    if kind == "missing":
        return "required field is missing"
    if kind == "value_error":
        return str(ctx.get("error", detail["msg"]))
    if kind == "enum":
        choices = re.findall(r"'([^']*)'", str(ctx.get("expected", "")))
        return f"{shown} is not allowed; choose one of {', '.join(choices)}"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"expected a mapping of fields ({_allowed(_model_at(loc))}), got {describe_value(value)}"
    if kind in _TYPE_WORDS:
        message = f"expected {_TYPE_WORDS[kind]}, got {describe_value(value)}"
        if kind == "string_type" and isinstance(value, (int, float)):
            message += f"; write it in quotes: '{value}'"
        elif kind in ("tuple_type", "list_type") and isinstance(value, str):
            message += f"; write a list: [{value}]"
        return message
    if kind == "finite_number":
        return f"{shown} is not a finite number; write a number such as 2.6"
    if kind in _BOUND_WORDS:
        size, rule, name = _BOUND_WORDS[kind]
        bound = ctx.get(name)
        return f"{shown} is {size}; {rule} {_show_bound(value, bound)}"
    if kind == "too_short":
        count = ctx.get("min_length")
        return f"needs at least {count} {'entry' if count == 1 else 'entries'}"
    return str(detail["msg"])


def _pydantic_problem(detail: ErrorDetails, tree: object, filename: str) -> Problem | None:
    spot = _locate(tree, tuple(detail["loc"]))
    if (
        detail["type"] == "too_short"
        and isinstance(spot.value, list)
        and len(spot.value) >= detail.get("ctx", {}).get("min_length", 0)
    ):
        return None  # pydantic counts only the valid entries; the invalid ones are reported already
    if detail["type"] in ("extra_forbidden", "invalid_key") or (spot.found and spot.value is None):
        line = spot.key_line  # a null value has no line of its own
    else:  # a missing field points at its enclosing entry, which is where walking stopped
        line = spot.value_line
    return Problem(filename, line, spot.path, _message(detail, spot))


def _yaml_problem(error: MarkedYAMLError, filename: str) -> Problem:
    mark = error.problem_mark or error.context_mark
    line = None if mark is None else mark.line + 1
    problem = str(error.problem or error)
    duplicate = re.match(r'found duplicate key "(.*?)" with value', problem, flags=re.DOTALL)
    if duplicate is not None:  # ruamel quotes both values in full, newlines and all
        problem = f"duplicate key {duplicate[1]!r}"
    problem = " ".join(problem.split())  # one line, whatever the YAML held
    if len(problem) > 200:
        problem = problem[:200] + "..."
    message = f"invalid YAML: {problem}"
    context = error.context_mark
    if "'\\t'" in message:
        message += "; indent with spaces, not tabs"
    elif error.context and context is not None and context.line + 1 != line:
        message += f" ({error.context} at line {context.line + 1})"
    return Problem(filename, line, "", message)
