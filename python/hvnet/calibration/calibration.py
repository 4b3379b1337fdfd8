"""`Calibration`: every group of parameters in one object, checked once; and their table for docs/model.md."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from hvnet.calibration.cpu import CpuParameters
from hvnet.calibration.migration import CompressionParameters, MigrationParameters, SmbParameters
from hvnet.calibration.network import FabricParameters, TeamingParameters, VmqParameters
from hvnet.calibration.parameter import Parameter, spread_values
from hvnet.errors import InputError

__all__ = ["Calibration", "calibration_markdown"]


@dataclass(frozen=True)
class Calibration:
    """Every parameter hvnet's models use, by group; `Calibration()` is the one hvnet ships."""

    teaming: TeamingParameters = field(default_factory=TeamingParameters)
    fabric: FabricParameters = field(default_factory=FabricParameters)
    cpu: CpuParameters = field(default_factory=CpuParameters)
    vmq: VmqParameters = field(default_factory=VmqParameters)
    migration: MigrationParameters = field(default_factory=MigrationParameters)
    smb: SmbParameters = field(default_factory=SmbParameters)
    compression: CompressionParameters = field(default_factory=CompressionParameters)

    def __post_init__(self) -> None:
        """Every value is a finite number, 0 or more; weights, counts, intervals, rates and clock factors are
        more than 0, a busy share at most 1. A calibration with another value is refused here, in one line,
        not deep in the core."""
        for p in self.parameters():
            values = p.value.items() if isinstance(p.value, dict) else [("", p.value)]
            for key, value in values:
                name = f"{p.group}.{p.name}" + (f"[{key!r}]" if key else "")
                positive = p.name in _MORE_THAN_ZERO
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                    raise InputError("<calibration>", None, name, f"{value!r} is not a finite number ({p.unit})")
                if value < 0 or (positive and value <= 0):
                    bound = "more than 0" if positive else "0 or more"
                    raise InputError("<calibration>", None, name, f"{value!r} must be {bound} ({p.unit})")
                if p.name == "busy" and value > 1:
                    raise InputError("<calibration>", None, name, f"{value!r} must be at most 1 ({p.unit})")

    def parameters(self) -> Iterator[Parameter]:
        """Each parameter with its value, unit, kind, source and uncertainty, group by group."""
        for group in dataclasses.fields(self):
            values = getattr(self, group.name)
            for f in dataclasses.fields(values):
                yield Parameter(
                    group=group.name,
                    name=f.name,
                    value=getattr(values, f.name),
                    unit=f.metadata["unit"],
                    kind=f.metadata["kind"],
                    source=f.metadata["source"],
                    uncertainty=f.metadata["uncertainty"],
                    fitted_on=f.metadata["fitted_on"],
                    spread=spread_values(getattr(values, f.name), f.metadata["spread"]),
                )

    def fitted_on(self) -> frozenset[str]:
        """Every `hvnet validate` figure some parameter was fitted on: those are calibration, the rest checks."""
        return frozenset(figure for p in self.parameters() for figure in p.fitted_on)


#: Parameters whose 0 means nothing physical (a share weight, a count, an interval, a rate, a clock factor).
_MORE_THAN_ZERO = frozenset(
    {
        "weight",
        "max_passes",
        "interval_s",
        "bfd_interval_s",
        "bfd_multiplier",
        "hold_time_s",
        "rebalance_interval_s",
        "busy",
        "power_plan_factor",
        "prepare_bytes_per_s",
    }
    | {"connections_per_rss_interface", "connections_per_rdma_interface", "connections_per_interface"}
    | {"max_connections_per_server"}
)


def calibration_markdown(calibration: Calibration | None = None) -> str:
    """The parameters as the Markdown table of docs/model.md ("Every parameter")."""
    rows = [
        "| parameter | value | unit | kind | source | uncertainty |",
        "|---|---|---|---|---|---|",
    ]
    for p in (calibration or Calibration()).parameters():
        value = ", ".join(f"{k} {v:g}" for k, v in p.value.items()) if isinstance(p.value, dict) else _number(p.value)
        rows.append(f"| `{p.group}.{p.name}` | {value} | {p.unit} | {p.kind} | {p.source} | {p.uncertainty} |")
    return "\n".join(rows) + "\n"


def _number(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"
