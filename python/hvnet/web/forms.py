"""The form view of a scenario: its common fields read out of the YAML, and the form's edits written
back into the same text.

    form = read_form(text)            # {"hosts": [{"name": "hv1", "nics": [...], ...}], "vms": [...]}
    text = apply_edits(text, [{"path": ["hosts", 0, "nics", 1, "speed"], "value": "25Gbps"}])

The YAML stays the one file the user edits: a changed value replaces exactly the characters of
the old one (PyYAML's marks give where a value starts and ends), so comments, layout and every
other line stay as written. Adding or removing a NIC, a team or a VM, or setting a field the file
does not write yet, goes through ruamel's round trip, which keeps comments and flow style.
Values are checked by the model when the editor checks the file, as any value typed in the editor.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.util import load_yaml_guess_indent

from hvnet.errors import HvnetError

__all__ = ["FORM_FIELDS", "MAX_FORM_VMS", "FormError", "apply_edits", "read_form"]

#: The fields the form shows, per kind of entry.
FORM_FIELDS: dict[str, tuple[str, ...]] = {
    "host": ("name",),
    "nic": ("name", "speed", "mtu", "rdma"),
    "team": ("name", "kind", "members", "mode", "load_balancing"),
    "live_migration": ("option", "simultaneous", "networks"),
    "vm": ("name", "host", "vcpus", "memory"),
}
#: At most this many VMs are shown in the form (the editor holds them all).
MAX_FORM_VMS = 500
_INTEGERS = frozenset({"mtu", "vcpus", "simultaneous"})
_BOOLEANS = frozenset({"rdma"})
_PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._/+-]*")
_KEYWORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n", "~"})

Path = Sequence[str | int]


class FormError(HvnetError):
    """The text is not YAML the form can read, or an edit names no place in it (422)."""


def _compose(text: str) -> yaml.Node | None:
    try:
        return yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as error:
        raise FormError(f"the form needs YAML it can read; fix the file first ({str(error).splitlines()[0]})") from None


def _plain(node: yaml.Node | None) -> Any:
    """A node's data with every scalar as written (text), for the form to show."""
    if isinstance(node, yaml.MappingNode):
        return {str(k.value): _plain(v) for k, v in node.value if isinstance(k, yaml.ScalarNode)}
    if isinstance(node, yaml.SequenceNode):
        return [_plain(item) for item in node.value]
    if isinstance(node, yaml.ScalarNode):
        return None if node.tag.endswith(":null") else node.value
    return None


def _pick(entry: object, kind: str) -> dict[str, Any]:
    data = entry if isinstance(entry, Mapping) else {}
    return {name: data.get(name) for name in FORM_FIELDS[kind]}


def read_form(text: str) -> dict[str, Any]:
    """The form's fields of the scenario `text`: hosts with their NICs, teams and live migration, and VMs."""
    data = _plain(_compose(text))
    data = data if isinstance(data, Mapping) else {}
    hosts = []
    for entry in data.get("hosts") or []:
        host = entry if isinstance(entry, Mapping) else {}
        hosts.append(
            {
                **_pick(host, "host"),
                "nics": [_pick(nic, "nic") for nic in host.get("nics") or []],
                "teams": [_pick(team, "team") for team in host.get("teams") or []],
                "live_migration": _pick(host.get("live_migration") or {}, "live_migration"),
            }
        )
    vms = [_pick(vm, "vm") for vm in data.get("vms") or []]
    return {"hosts": hosts, "vms": vms[:MAX_FORM_VMS], "vm_count": len(vms)}


def _typed(field: str, value: object) -> object:
    """A form's value as the YAML should hold it: numbers and booleans as such, where they parse."""
    if isinstance(value, str) and field in _INTEGERS and value.strip().isdigit():
        return int(value)
    if isinstance(value, str) and field in _BOOLEANS and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if field in ("members", "networks") and isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()] or None
    return value


def _scalar(value: object) -> str | None:
    """`value` written as a YAML scalar, or None when it is no scalar."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        plain = _PLAIN.fullmatch(value) and value.lower() not in _KEYWORDS and value == value.strip()
        return value if plain else json.dumps(value)
    return None


def _find(node: yaml.Node | None, path: Path) -> yaml.Node | None:
    """The node at `path` (keys and list indices), or None."""
    for step in path:
        if isinstance(node, yaml.MappingNode) and isinstance(step, str):
            node = next((v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == step), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
            node = node.value[step]
        else:
            return None
    return node


def _set_in_place(text: str, path: Path, value: object) -> str | None:
    """`text` with the scalar at `path` replaced by `value`, character for character; None when there
    is no scalar there to replace (a field not written yet, a list)."""
    node = _find(_compose(text), path)
    written = _scalar(value)
    if not isinstance(node, yaml.ScalarNode) or written is None or node.style in ("|", ">"):
        return None
    return text[: node.start_mark.index] + written + text[node.end_mark.index :]


def _round_trip() -> YAML:
    rt = YAML(typ="rt")
    rt.width = 4096
    rt.preserve_quotes = True
    return rt


def _edit_tree(text: str, edit: Mapping[str, Any]) -> str:
    """`text` with one structural edit made on ruamel's round-trip tree (comments and flow style kept)."""
    rt = _round_trip()
    try:
        _, sequence_indent, offset = load_yaml_guess_indent(text)
        rt.indent(
            mapping=max(2, (sequence_indent or 2) - (offset or 0)), sequence=sequence_indent or 2, offset=offset or 0
        )
        tree = rt.load(text)
    except YAMLError as error:
        raise FormError(f"the form needs YAML it can read; fix the file first ({str(error).splitlines()[0]})") from None
    path = list(edit["path"])
    parent: Any = tree
    for n, step in enumerate(path[:-1]):
        try:
            parent = parent[step]
        except (KeyError, IndexError, TypeError):
            if "value" in edit and isinstance(parent, dict) and isinstance(step, str):
                parent[step] = {}  # a field not written yet (live_migration:): made on the way
                parent = parent[step]
                continue
            raise FormError(f"{'.'.join(map(str, path[: n + 1]))}: no such place in the file") from None
    last = path[-1] if path else None
    if "append" in edit:
        target = parent[last] if last is not None and last in parent else None
        if target is None and isinstance(parent, dict) and isinstance(last, str):
            parent[last] = target = []
        if not isinstance(target, list):
            raise FormError(f"{'.'.join(map(str, path))}: not a list to add to")
        target.append(dict(edit["append"]))
    elif edit.get("remove"):
        try:
            del parent[last]
        except (KeyError, IndexError, TypeError):
            raise FormError(f"{'.'.join(map(str, path))}: no such entry to remove") from None
    elif edit.get("value") is None:
        if isinstance(parent, dict) and last in parent:
            del parent[last]
    else:
        parent[last] = edit["value"]
    out = io.StringIO()
    rt.dump(tree, out)
    return out.getvalue()


def apply_edits(text: str, edits: Sequence[Mapping[str, Any]]) -> str:
    """`text` with the form's `edits` made in order: ``{"path": [...], "value": v}`` sets a field
    (None removes it), ``{"path": [...], "append": {...}}`` adds an entry to a list,
    ``{"path": [..., i], "remove": true}`` removes one."""
    for asked in edits:
        edit = dict(asked)
        path = edit.get("path")
        if not isinstance(path, list) or not path or not all(isinstance(p, (str, int)) for p in path):
            raise FormError("an edit's path is a list of field names and list indices")
        if "value" in edit:
            field = next((p for p in reversed(path) if isinstance(p, str)), "")
            edit["value"] = _typed(field, edit["value"])
            if edit["value"] is not None:
                changed = _set_in_place(text, path, edit["value"])
                if changed is not None:
                    text = changed
                    continue
        text = _edit_tree(text, edit)
    return text
