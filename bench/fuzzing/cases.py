"""The cases the fuzzer runs: for each target, what it starts from (the example scenarios, a traffic matrix,
`hvnet ntttcp` arguments, a `variants:` block, the importers' samples and dumps, the price list, a candidate
file), how a case is drawn from it, the name its file has, and `generate`, which draws a seeded list of cases."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from .mutations import YAML_EDITS, dump, mutate_bytes, mutate_tree
from .values import BOUNDARY_QUANTITIES, NUMBER_TEXTS, ODD_TEXTS, odd_values, quantities

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "python" / "hvnet" / "examples").rglob("*.yaml"))
#: The names the case's files have in the child's working directory (messages name them).
CASE_FILE = {
    "scenario": "case.yaml",
    "flows": "case.csv",
    "ntttcp": "case.json",
    "variants": "case.yaml",
    "config": "case.json",
    "prices": "case.yaml",
    "candidates": "case.yaml",
}
#: The targets, each an entry point that reads what people write or tools produce.
TARGETS = ("scenario", "flows", "ntttcp", "variants", "measurement", "config", "prices", "candidates")


@dataclass
class Case:
    number: int
    origin: str
    mutations: list[str]
    raw: bytes


def _examples() -> dict[str, Any]:
    return {str(p.relative_to(ROOT)): yaml.safe_load(p.read_text()) for p in EXAMPLES}


_TREES = _examples()


def scenario_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """A mutated example scenario file: its origin, the mutations and its bytes."""
    origin = data.draw(st.sampled_from(sorted(_TREES)), label="example")
    tree = copy.deepcopy(_TREES[origin])
    log: list[str] = []
    for _ in range(data.draw(st.integers(0, 4), label="structure edits")):
        tree = mutate_tree(data, tree, log)
    return _yaml_case(data, tree, log, origin)


def _yaml_case(data: st.DataObject, tree: object, log: list[str], origin: str) -> tuple[str, list[str], bytes]:
    """A mutated tree written as YAML, then perhaps a YAML edit and byte edits: its origin, the mutations, its bytes."""
    text = dump(data, tree, log)
    if data.draw(st.integers(0, 3)) == 0:
        name, edit = data.draw(st.sampled_from(YAML_EDITS), label="yaml edit")
        log.append(name)
        text = edit(text, data.draw(st.integers(0, 1000)))
    raw = text.encode("utf-8", "surrogatepass")
    if data.draw(st.integers(0, 3)) == 0:
        raw = mutate_bytes(data, raw, log)
    return origin, log, raw


#: The scenario the flows target runs its traffic matrices on.
FLOWS_SCENARIO = ROOT / "python" / "hvnet" / "examples" / "failover.yaml"
FLOWS_NAMES = ["hv1", "hv2", "vm-big", "vm-1", "vm-2", "vm-5"]


def flows_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """A mutated traffic matrix (CSV) for the failover example."""
    rows = [["src", "dst", "bytes", "start_s"]] + [
        [a, b, "1e9", str(k)] for k, (a, b) in enumerate([("hv1", "hv2"), ("vm-big", "hv2"), ("hv2", "vm-1")])
    ]
    log: list[str] = []
    for _ in range(data.draw(st.integers(1, 4))):
        r = data.draw(st.integers(0, len(rows) - 1))
        kind = data.draw(st.sampled_from(["cell", "cell", "number", "number", "drop", "dup", "extra", "short", "grow"]))
        if kind == "number" and r > 0 and len(rows[r]) == 4:  # an extreme size or start on a row kept valid
            c = data.draw(st.sampled_from([2, 3]))
            value = data.draw(
                st.sampled_from([*NUMBER_TEXTS, "1e15", "1125899906842625", "31536000", "31536001", "1e300"])
            )
            log.append(f"row {r} col {c} := {value!r}")
            rows[r][c] = value
        elif kind in ("cell", "number"):
            c = data.draw(st.integers(0, max(len(rows[r]) - 1, 0)))
            value = data.draw(
                st.one_of(
                    st.sampled_from(NUMBER_TEXTS),
                    st.sampled_from(ODD_TEXTS),
                    st.sampled_from(FLOWS_NAMES),
                    quantities(),
                )
            )
            log.append(f"row {r} col {c} := {value!r:.40}")
            rows[r][c : c + 1] = [value]
        elif kind == "drop" and len(rows) > 1:
            log.append(f"drop row {r}")
            del rows[r]
        elif kind == "dup":
            log.append(f"duplicate row {r}")
            rows.insert(r, list(rows[r]))
        elif kind == "extra":
            log.append(f"extra cell on row {r}")
            rows[r].append("x")
        elif kind == "short":
            log.append(f"short row {r}")
            rows[r] = rows[r][:2]
        else:
            times = data.draw(st.sampled_from([10, 1000]))
            log.append(f"grow row {r} x{times}")
            rows.extend(list(rows[r]) for _ in range(times))
    quote = data.draw(st.booleans())
    text = "".join(",".join(f'"{c}"' if quote else c for c in row) + "\n" for row in rows)
    raw = text.encode("utf-8", "surrogatepass")
    if data.draw(st.integers(0, 3)) == 0:
        raw = mutate_bytes(data, raw, log)
    return "failover.yaml + matrix", log, raw


# --- the other entry points (issue 15, item 5) ------------------------------------------------------------------

#: The arguments of `hvnet ntttcp` the ntttcp target draws from (run on FLOWS_SCENARIO).
NTTTCP_NAMES = [*FLOWS_NAMES, "hv3", "vm-9", "HV1", "hv1/nic1", ""]
NTTTCP_DURATIONS = [
    "15s",
    "1s",
    "0s",
    "1ns",
    "8760h",
    "8761h",
    "1e308s",
    "nan s",
    "-1s",
    "60",
    "10min",
    "1e-300s",
    "1d",
]
NTTTCP_BUFFERS = ["128KiB", "1B", "0B", "1PiB", "2PiB", "64KB", "1e308B", "nanB", "-1KiB", "0.5B", "128k", "128KiB "]


def ntttcp_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """Random `hvnet ntttcp` arguments: sender, receiver, threads, duration and buffer."""
    names = st.sampled_from(NTTTCP_NAMES) if data.draw(st.integers(0, 3)) else st.sampled_from(ODD_TEXTS)
    if data.draw(st.booleans()):  # a pair that can talk (all VMs are on hv1), so that half the cases run
        sender, receiver = data.draw(
            st.sampled_from([("hv1", "hv2"), ("hv2", "hv1"), ("vm-big", "hv2"), ("hv2", "vm-1"), ("vm-5", "hv2")])
        )
    else:
        sender, receiver = data.draw(names, label="sender"), data.draw(names, label="receiver")
    args = {
        "sender": sender,
        "receiver": receiver,
        "threads": data.draw(
            st.integers(1, 64) if data.draw(st.integers(0, 7)) else st.sampled_from([0, -1, 65, 1000, 2**31]),
            label="threads",
        ),
        "time": data.draw(
            st.sampled_from(["15s", "60s", "1s"])
            if data.draw(st.integers(0, 3))
            else st.one_of(st.sampled_from(NTTTCP_DURATIONS), quantities()),
            label="time",
        ),
        "buffer": data.draw(
            st.sampled_from(["128KiB", "64KiB", "1MiB"])
            if data.draw(st.integers(0, 3))
            else st.one_of(st.sampled_from(NTTTCP_BUFFERS), quantities()),
            label="buffer",
        ),
    }
    return "failover.yaml + ntttcp arguments", [f"{k} = {v!r:.60}" for k, v in args.items()], json.dumps(args).encode()


#: Where a variants axis may point (valid for failover.yaml) and where it may not.
VARIANT_PATHS = [
    "hosts[*].nics[*].speed",
    "hosts[*].nics[nic1].speed",
    "hosts[hv2].nics[1].mtu",
    "hosts[*].teams[*].load_balancing",
    "events[1].target",
    "traffic[0].size",
    "traffic[*].connections",
    "vms[*].memory",
    "hosts[0].cpu.ghz",
    "name",
    "hosts[*]",
    "hosts",
    "",
    "[*]",
    "hosts[99].nics[0].speed",
    "hosts[*].nics[*].speed.x",
    "hosts[-1].memory",
    "hosts[*][*]",
    "hosts[hv1",
    "hosts[*].nics[\u200b].speed",
    "events[*].at",
    "traffic[*].start",
]


#: Axes that fit failover.yaml.
VALID_AXES = [
    ("speed", "hosts[*].nics[*].speed", ("10Gbps", "25Gbps")),
    ("mtu", "hosts[*].nics[*].mtu", (1500, 9000)),
    ("algorithm", "hosts[*].teams[*].load_balancing", ("hyperv_port", "dynamic", "address_hash")),
    ("size", "traffic[0].size", ("1GB", "1PiB", "1B")),
    ("start", "traffic[*].start", ("0s", "8760h")),
]


def variants_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """The failover example with a random, then mutated, `variants:` block."""
    tree = copy.deepcopy(_TREES[str(FLOWS_SCENARIO.relative_to(ROOT))])
    log: list[str] = []
    block: dict[str, Any] = {}
    for a in range(data.draw(st.integers(1, 4), label="axes")):
        if data.draw(st.booleans()):  # an axis that is valid, so that some files expand
            name, path, valid_values = data.draw(st.sampled_from(VALID_AXES))
            block[name] = {"set": path, "values": list(valid_values)}
            log.append(f"valid axis {name}")
            continue
        name = data.draw(
            st.one_of(st.sampled_from(["speed", "mtu", "algorithm", f"axis{a}"]), st.sampled_from(ODD_TEXTS))
        )
        values = data.draw(
            st.lists(
                st.one_of(st.sampled_from(BOUNDARY_QUANTITIES), quantities(), odd_values()), min_size=0, max_size=6
            )
        )
        if data.draw(st.integers(0, 5)) == 0:
            values = values * data.draw(st.sampled_from([10, 100, 1000]))
        block[str(name)] = {"set": data.draw(st.sampled_from(VARIANT_PATHS)), "values": values}
        log.append(f"axis {name!r:.30}: set {block[str(name)]['set']!r}, {len(values)} values")
    tree["variants"] = block
    for _ in range(data.draw(st.integers(0, 2), label="structure edits")):
        tree["variants"] = mutate_tree(data, tree["variants"], log)
    text = dump(data, tree, log)
    raw = text.encode("utf-8", "surrogatepass")
    if data.draw(st.integers(0, 4)) == 0:
        raw = mutate_bytes(data, raw, log)
    return "failover.yaml + variants", log, raw


#: The measurement files the measurement target mutates: the importers' samples and the shared formats.
MEASUREMENT_SAMPLES = sorted(
    p
    for folder in (ROOT / "tests" / "importers" / "samples", Path("/work/shared/data/formats"))
    if folder.is_dir()
    for p in folder.iterdir()
    if p.is_file() and "SOURCE" not in p.name and not p.name.startswith("README")
)
#: The configuration dumps the config target mutates.
CONFIG_FIXTURES = sorted((ROOT / "tests" / "importers" / "config" / "fixtures").glob("*.json"))


def _text_lines(data: st.DataObject, text: str, log: list[str]) -> str:
    """Line and number edits of a text file: numbers replaced by extreme ones, lines dropped or repeated."""
    lines = text.splitlines(keepends=True)
    for _ in range(data.draw(st.integers(1, 4))):
        if not lines:
            break
        i = data.draw(st.integers(0, len(lines) - 1))
        kind = data.draw(st.sampled_from(["number", "number", "number", "drop", "dup", "odd", "grow", "cut"]))
        if kind == "number":
            numbers = list(re.finditer(r"-?\d+(\.\d+)?", lines[i]))
            if numbers:
                m = data.draw(st.sampled_from(numbers))
                value = data.draw(st.sampled_from(NUMBER_TEXTS))
                log.append(f"line {i + 1}: {m.group()!r} -> {value!r}")
                lines[i] = lines[i][: m.start()] + value + lines[i][m.end() :]
        elif kind == "drop":
            log.append(f"drop line {i + 1}")
            del lines[i]
        elif kind == "dup":
            log.append(f"duplicate line {i + 1}")
            lines.insert(i, lines[i])
        elif kind == "odd":
            value = data.draw(st.sampled_from(ODD_TEXTS))
            at = data.draw(st.integers(0, len(lines[i])))
            log.append(f"line {i + 1}: insert {value!r:.30} at {at}")
            lines[i] = lines[i][:at] + value + lines[i][at:]
        elif kind == "cut":
            log.append(f"cut after line {i + 1}")
            lines = lines[: i + 1]
        else:
            times = data.draw(st.sampled_from([10, 1000, 20000]))
            log.append(f"grow line {i + 1} x{times}")
            lines[i : i + 1] = [lines[i]] * times
    return "".join(lines)


def measurement_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """A mutated measurement file (NTttcp, iperf3, counters, ip -j, sar...)."""
    origin = data.draw(st.sampled_from(MEASUREMENT_SAMPLES), label="sample")
    log: list[str] = []
    text = origin.read_text(errors="surrogateescape")
    if origin.suffix == ".json" and data.draw(st.booleans()):
        try:
            tree = json.loads(text)
            for _ in range(data.draw(st.integers(1, 3))):
                tree = mutate_tree(data, tree, log)
            text = json.dumps(tree, default=str)
        except ValueError:
            pass
    else:
        text = _text_lines(data, text, log)
    raw = text.encode("utf-8", "surrogateescape")
    if data.draw(st.integers(0, 3)) == 0:
        raw = mutate_bytes(data, raw, log)
    return str(origin), log, raw


def config_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """A mutated configuration dump (collect.ps1's JSON)."""
    origin = data.draw(st.sampled_from(CONFIG_FIXTURES), label="fixture")
    log: list[str] = []
    tree = json.loads(origin.read_text())
    for _ in range(data.draw(st.integers(1, 4), label="structure edits")):
        tree = mutate_tree(data, tree, log)
    text = json.dumps(tree, default=str, allow_nan=True)
    raw = text.encode("utf-8", "surrogatepass")
    if data.draw(st.integers(0, 3)) == 0:
        raw = mutate_bytes(data, raw, log)
    return str(origin.relative_to(ROOT)), log, raw


#: The price list the prices target mutates: hvnet's default one (`hvnet cost --prices`).
PRICES = ROOT / "python" / "hvnet" / "cost" / "prices.yaml"
#: The scenario `prices` and `candidates` cases are priced or rebuilt on: it has switches, teams and requirements.
DESIGN_SCENARIO = ROOT / "python" / "hvnet" / "examples" / "rolling-update.yaml"
#: A candidate file using every field and form (`hvnet design --candidates`, docs/advise.md).
CANDIDATES_SEED = {
    "candidates": [
        {"nics": 2, "speed": "1Gbps"},
        {"nics": 2, "speed": "10Gbps", "team": ["lbfo", "set"], "migration": ["compression", "smb"]},
        {"name": "RDMA pair", "nics": 2, "speed": "25Gbps", "rdma": True, "team": "set", "migration": "smb_direct"},
        {"nics": 4, "speed": "10Gbps", "team": "lbfo", "migration": "tcp_ip"},
    ]
}


def prices_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """hvnet's default price list, mutated (structure, YAML and byte edits)."""
    log: list[str] = []
    tree = yaml.safe_load(PRICES.read_text())
    for _ in range(data.draw(st.integers(0, 4), label="structure edits")):
        tree = mutate_tree(data, tree, log)
    return _yaml_case(data, tree, log, str(PRICES.relative_to(ROOT)))


def candidates_case(data: st.DataObject) -> tuple[str, list[str], bytes]:
    """A candidate file using every field, mutated (structure, YAML and byte edits)."""
    log: list[str] = []
    tree: object = copy.deepcopy(CANDIDATES_SEED)
    for _ in range(data.draw(st.integers(0, 4), label="structure edits")):
        tree = mutate_tree(data, tree, log)
    return _yaml_case(data, tree, log, "candidates (docs/advise.md)")


def case_file(target: str, origin: str) -> str:
    """The name a case's file has (a measurement keeps its sample's extension)."""
    if target == "measurement":
        return "case" + (Path(origin).suffix or ".txt")
    return CASE_FILE[target]


DRAWERS: dict[str, Callable[[st.DataObject], tuple[str, list[str], bytes]]] = {
    "scenario": scenario_case,
    "flows": flows_case,
    "ntttcp": ntttcp_case,
    "variants": variants_case,
    "measurement": measurement_case,
    "config": config_case,
    "prices": prices_case,
    "candidates": candidates_case,
}


def generate(target: str, count: int, seed: int) -> list[Case]:
    """`count` cases drawn by hypothesis from `seed` (the same seed, the same cases)."""
    drawn: list[Case] = []
    round_ = 0
    while len(drawn) < count:

        @hypothesis_seed(seed * 1000 + round_)
        @settings(
            max_examples=count - len(drawn),
            database=None,
            phases=[Phase.generate],
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(st.data())
        def draw(data: st.DataObject) -> None:
            origin, log, raw = DRAWERS[target](data)
            drawn.append(Case(len(drawn), origin, log, raw))

        draw()
        round_ += 1
    return drawn[:count]
