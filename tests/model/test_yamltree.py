"""The fast YAML reader builds the tree ruamel's round-trip loader built: the same data, the same lines.

Every example file, and the scalars whose meaning differs between YAML 1.1
and 1.2 (`yes` is text in 1.2, `010` is ten), are read both ways and
compared value for value and line for line.
"""

from __future__ import annotations

import math
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from hvnet import ScenarioError, parse_scenario
from hvnet.model import plain_data
from hvnet.model.yamltree import MAX_DEPTH, LocatedList, LocatedMap, YamlRefused, YamlTreeError, parse_tree

EXAMPLES = sorted(Path(str(resources.files("hvnet") / "examples")).rglob("*.yaml"))


def _same(a: Any, b: Any, where: str = "$") -> None:
    """The two trees hold equal values, and every key, value and item is on the same line."""
    if isinstance(a, dict):
        assert isinstance(a, LocatedMap) and isinstance(b, CommentedMap) and list(a) == list(b), where
        for key in a:
            assert a.lc.key(key) == tuple(b.lc.key(key)), f"{where}.{key}: key line"
            if a[key] is not None:  # an empty value has no place of its own (the loader names its key's line)
                assert a.lc.value(key) == tuple(b.lc.value(key)), f"{where}.{key}: value line"
            _same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list):
        assert isinstance(a, LocatedList) and isinstance(b, CommentedSeq) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert a.lc.item(i) == tuple(b.lc.item(i)), f"{where}[{i}]: line"
            _same(x, y, f"{where}[{i}]")
    else:
        x, y = plain_data(a), plain_data(b)
        both_nan = isinstance(x, float) and isinstance(y, float) and math.isnan(x) and math.isnan(y)
        assert type(x) is type(y) and (x == y or both_nan), where


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_reads_as_ruamel_reads_it(path: Path) -> None:
    text = path.read_text()
    _same(parse_tree(text), YAML(typ="rt").load(text))


SCALARS = [
    "yes",
    "on",
    "Off",
    "true",
    "True",
    "TRUE",
    "false",
    "010",
    "0o10",
    "0x1F",
    "0b11",
    "1_000",
    "+12",
    "-0",
    "1e3",
    "12.",
    ".5",
    "1.5e+3",
    "0.",
    "1e",
    ".inf",
    "-.Inf",
    ".nan",
    "~",
    "null",
    "NULL",
    "Null",
    "nULL",
    "",
    "1:30",
    "10Gbps",
    '"10"',
    "'true'",
    "2024-01-01",
    "hv1/nic1",
    "a b",
    "0",
    "3.0",
    "1e-3",
    "+.inf",
    "0o17",
    "-0x1F",
    "1_0.5",
    "_1",
    "1__0",
    "0b",
    "0x",
    ".",
    "+",
    "1.2.3",
    "08",
    "1E3",
    ".Nan",
    "~x",  # text that starts as a null, a boolean or a number would
    "nan",
    "tru",
    "Falsey",
    "vm0",
    "-x",
]


@pytest.mark.parametrize("scalar", SCALARS)
def test_a_scalar_means_what_it_meant(scalar: str) -> None:
    text = f"x: {scalar}\nl: [{scalar or 'null'}, 1]\n"
    _same(parse_tree(text), YAML(typ="rt").load(text))


def test_anchors_aliases_and_merge_keys_read_as_ruamel_reads_them() -> None:
    text = """\
defaults: &nic {speed: 10Gbps, mtu: 9000}
hosts:
  - name: hv1
    nics:
      - <<: *nic
        name: nic1
      - {<<: *nic, name: nic2, mtu: 1500}
  - &h2
    name: hv2
copy: *h2
"""
    ours, theirs = parse_tree(text), YAML(typ="rt").load(text)
    assert plain_data(ours) == plain_data(theirs)
    assert ours["copy"] is ours["hosts"][1]  # an alias is the anchored object, as in ruamel's tree
    assert ours["hosts"][0]["nics"][1]["mtu"] == 1500  # a key of its own wins over a merged one


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\na: 2\n",  # a duplicate key
        "a: [1, 2\n",  # a syntax error
        "a: 1\n---\nb: 2\n",  # two documents
        "a: 2024-13-45\n",  # a date that is no date
    ],
)
def test_what_it_does_not_build_it_hands_to_ruamel(text: str) -> None:
    """The loader then asks ruamel, whose messages users know (tests/model/test_errors.py)."""
    with pytest.raises(YamlTreeError):
        parse_tree(text)


def test_an_empty_document_is_none() -> None:
    assert parse_tree("") is None
    assert parse_tree("# only a comment\n") is None


LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(8)
)


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("name: !!binary aGk=\n", 1, "the tag tag:yaml.org,2002:binary is not allowed"),
        ("hosts: !!python/object:os.system [ls]\n", 1, "is not allowed"),
        ("name: x\nhosts:\n  - name: h\x01v1\n", 3, "control character U+0001 at column 12"),
        (LAUGHS, 7, "more than 5,000,000 values once its aliases are expanded"),
        ("a: " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n", 1, f"nested more than {MAX_DEPTH} levels deep"),
    ],
    ids=["tag", "python tag", "control character", "billion laughs", "too deep"],
)
def test_what_a_scenario_may_not_hold_is_refused_with_its_line(text: str, line: int, says: str) -> None:
    """Issue 15: explicit tags (a KeyError traceback once), an alias bomb (it never returned),
    a control character (refused without a line) and absurd nesting each get one clear line."""
    with pytest.raises(YamlRefused) as refused:
        parse_tree(text)
    assert refused.value.line == line and says in refused.value.message


def test_a_refusal_reaches_the_user_as_one_line() -> None:
    with pytest.raises(ScenarioError) as error:
        parse_scenario("name: !!binary aGk=\nhosts: []\n", "cluster.yaml")
    assert str(error.value).startswith("cluster.yaml:1: the tag tag:yaml.org,2002:binary is not allowed;")
