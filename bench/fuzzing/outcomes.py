"""How a case ended (`Outcome`) and the class it is sorted into (`classify`): result, refusal, unclear,
crash, hang, oom or nonsense; with what a clean refusal's line looks like and what a result may not hold."""

from __future__ import annotations

import json
import math
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .cases import Case

if TYPE_CHECKING:
    from hvnet.model import Scenario

CLASSES = ("result", "refusal", "unclear", "crash", "hang", "oom", "nonsense")
FAILURES = CLASSES[2:]
#: The one form a line of a refusal takes: `file:line: field: message` or `file: message`.
CLEAN_LINE = re.compile(r"^[^:\n]+(:\d+)?: \S.*$")


@dataclass
class Outcome:
    case: Case
    kind: str = ""
    exit: int | None = None
    signal: int | None = None
    timed_out: bool = False
    seconds: float = 0.0
    max_rss_kb: int = 0
    stdout: str = ""
    stderr: str = ""
    why: str = ""
    extra: dict[str, str] = field(default_factory=dict)


LINK_BPS = (1e6, 1.6e12)
HORIZON_S = 8760 * 3600.0
LARGEST_BYTES = 2**50


def nonsense(scenario_path: Path) -> str:
    """What the loaded scenario holds outside a documented bound ("" when nothing)."""
    import hvnet

    scenario = hvnet.load(scenario_path)
    found: list[str] = []

    def check(what: str, value: float | None, low: float, high: float, low_open: bool = False) -> None:
        if value is None:
            return
        if not math.isfinite(value) or value > high or value < low or (low_open and value == low):
            found.append(f"{what} = {value!r}")

    for host in scenario.hosts:
        check(f"{host.name}.cpu.ghz", host.cpu.ghz, 0, 10, low_open=True)
        check(f"{host.name}.memory", host.memory, 0, LARGEST_BYTES, low_open=True)
        check(
            f"{host.name}.smb_bandwidth_limit", host.live_migration.smb_bandwidth_limit, 0, LINK_BPS[1], low_open=True
        )
        for nic in host.nics:
            check(f"{host.name}/{nic.name}.speed", nic.speed, *LINK_BPS)
    for switch in scenario.switches:
        check(f"{switch.name}.port_speed", switch.port_speed, *LINK_BPS)
    for cable in scenario.cables:
        check(f"cable {cable.a}.speed", cable.speed, 0, LINK_BPS[1], low_open=True)
    for vm in scenario.vms:
        check(f"{vm.name}.memory", vm.memory, 0, LARGEST_BYTES, low_open=True)
        check(f"{vm.name}.populated", vm.populated, 0, vm.memory)
        check(f"{vm.name}.working_set", vm.working_set, 0, vm.memory)
        check(f"{vm.name}.dirty_rate", vm.dirty_rate, 0, LINK_BPS[1])
        check(f"{vm.name}.cpu_load", vm.cpu_load, 0, 1)
    for index, flow in enumerate(scenario.traffic):
        check(f"traffic[{index}].size", flow.size, 0, LARGEST_BYTES, low_open=True)
        check(f"traffic[{index}].start", flow.start, 0, HORIZON_S)
    for index, event in enumerate(scenario.events):
        check(f"events[{index}].at", event.at, 0, HORIZON_S)
        check(f"events[{index}].patch_time", event.patch_time, 0, HORIZON_S)
    found.extend(odd_names(scenario))
    return "; ".join(found)


def odd_names(scenario: Scenario) -> list[str]:
    """The hosts' and VMs' names that hold a NUL or nothing but blanks."""
    found = []
    for kind, names in (("host", [h.name for h in scenario.hosts]), ("VM", [v.name for v in scenario.vms])):
        for name in names:
            if "\x00" in name or not name.strip():
                found.append(f"{kind} name {name!r}")
    return found


def _strict_json(path: Path) -> str:
    """ "" when `path` is JSON without NaN or infinity, else what is wrong."""

    def refuse(constant: str) -> object:
        raise ValueError(f"the JSON holds {constant}")

    try:
        json.loads(path.read_text(), parse_constant=refuse)
    except (OSError, ValueError) as error:
        return str(error)
    return ""


OUT_OF_MEMORY = r"MemoryError|memory allocation of \d+ bytes failed|Cannot allocate memory|std::bad_alloc"


#: What a clear `hvnet ntttcp` refusal starts with: a file, the arguments (`<ntttcp>: receiver: ...`) or the
#: option whose value is wrong (`--buffer: '10x' is not a size; ...`).
NTTTCP_NAMED = ("case.", "scenario.yaml", "<ntttcp>", "--time: ", "--buffer: ")


def classify(outcome: Outcome, workdir: Path, target: str, memory: int) -> None:
    err = outcome.stderr
    memory_line = next((line for line in err.splitlines() if re.search(OUT_OF_MEMORY, line)), "")
    if memory_line or outcome.max_rss_kb * 1024 > memory * 0.9:  # (a case killed at its limit may be short of memory)
        outcome.kind, outcome.why = "oom", memory_line or f"{outcome.max_rss_kb // 1024} MiB resident"
    elif outcome.timed_out:
        outcome.kind, outcome.why = "hang", "past the time limit"
    elif outcome.signal is not None:
        outcome.kind, outcome.why = "crash", f"killed by signal {signal.Signals(outcome.signal).name}"
    elif "Traceback" in err or "PanicException" in err or "panicked" in err or "the core failed" in err:
        outcome.kind = "crash"
        last = [line for line in err.splitlines() if line.strip()]
        outcome.why = last[-1] if last else "traceback"
    elif outcome.exit == 2:
        lines = err.splitlines()
        named = NTTTCP_NAMED if target == "ntttcp" else ("case.", "scenario.yaml")
        bad = [line for line in lines if not CLEAN_LINE.match(line) or not line.startswith(named)]
        if not lines or bad:
            outcome.kind, outcome.why = "unclear", (bad[0] if bad else "exit 2 with nothing on standard error")
        else:
            outcome.kind = "refusal"
    elif outcome.exit == 0:
        why = ""
        if target == "scenario":
            try:
                why = nonsense(workdir / "case.yaml")
            except Exception as error:
                why = f"loaded in the child, not here: {type(error).__name__}: {str(error)[:200]}"
        why = why or _strict_json(workdir / "out.json")
        outcome.kind, outcome.why = ("nonsense", why) if why else ("result", "")
    else:
        outcome.kind, outcome.why = "crash", f"exit code {outcome.exit}"
