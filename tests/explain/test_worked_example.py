"""docs/import.md's explain examples are what `hvnet explain` prints, word for word (issue 24).

Each example is a fenced block under its heading: the command on its first line (``$ hvnet explain
...``), then the output at the tests' 80-column terminal. The test copies the files the command
names into an empty directory (the docs name them without their repository paths), runs the command
there and compares line by line (trailing blanks aside: a terminal pads them, a page drops them).
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path
from typing import Any, cast

import pytest

from hvnet.explain import explanation_document
from tests.conftest import Invoke
from tests.explain.cases import C9_RECEIVER, C9_SET, RECEIVE_CORES, TWO_VMS, explained

DOCS = Path(__file__).parents[2] / "docs" / "import.md"
#: Each example's heading, and where the files its command names come from.
EXAMPLES = {
    "### Example: 6.00 Gbps between two VMs on 2 × 10 GbE, with retransmits": {
        "two-vms-2x10g.yaml": TWO_VMS,
        "receiver.txt": RECEIVE_CORES,
    },
    "### Example: C9 (calibration.md), the receiver's NTttcp output": {
        "c9-set.yaml": C9_SET,
        "ntttcp_windows_c9_set_receiver.txt": C9_RECEIVER,
    },
}


def example(heading: str) -> tuple[list[str], list[str]]:
    """The example's command (its arguments after `hvnet`) and output lines, from the docs."""
    text = DOCS.read_text(encoding="utf-8")
    after = text[text.index(heading + "\n") :]
    block = after[after.index("```\n") + 4 :]
    lines = block[: block.index("```\n")].splitlines()
    command = lines[0].removeprefix("$ ")
    assert command.startswith("hvnet explain "), command
    return shlex.split(command)[1:], lines[1:]


@pytest.mark.parametrize("heading", list(EXAMPLES))
def test_the_docs_example_is_what_explain_prints(
    heading: str, cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args, expected = example(heading)
    for name, source in EXAMPLES[heading].items():
        shutil.copyfile(source, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    result = cli(*args)
    assert result.exit_code == 0, result.output
    printed = [line.rstrip() for line in result.stdout.splitlines()]
    assert printed == expected


def test_the_worked_example_answers_the_issue() -> None:
    """What issue 24 asked for, in the docs' example: the receive cores named as the limit, the cycles per
    byte as the main difference, the retransmits counted, the no-op changes said once, and the change
    that explains it."""
    _, output = example(next(iter(EXAMPLES)))
    text = " ".join(" ".join(output).split())  # its sentences wrap at the terminal's width
    assert "vm2's receive work lands on cores 3 and 4 of hv2, both 100 % busy for the whole 15.0 s" in text
    assert "The twin's limit is the receive cores (hv2 core 3, hv2 core 4)." in text
    assert "The main difference is the cycles per byte: 4.810 measured against 3.150 predicted (+52.7 %)." in text
    assert "retransmits: 1,203 (80 a second" in text
    assert text.count("member-down") == 1
    assert "cycles-per-byte-as-measured (every receive cost" in text and "explains it" in text


def test_every_field_of_the_json_document_is_documented() -> None:
    """The worked example's document has every field (a bottleneck, a ranking); each is named in the docs."""
    document = explanation_document(explained(TWO_VMS, RECEIVE_CORES))
    docs = DOCS.read_text(encoding="utf-8")
    section = docs[docs.index("## Explain") :]
    (test,) = cast(list[dict[str, Any]], document["tests"])
    bottleneck = test["bottleneck"]
    keys = [*test, *test["counterfactuals"][0], *bottleneck, *bottleneck["uses"][0], *bottleneck["groups"][0]]
    for key in keys:
        assert f"`{key}`" in section or f"`{key}[]`" in section, key
    json.dumps(document)  # plain JSON, nothing else
