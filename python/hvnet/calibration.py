"""Every parameter of hvnet's models that the physics does not fix, in one place.

Each is a field of one of the groups below, with its value, its unit, where
the value comes from and how far to trust it (`Parameter`, read with
`Calibration.parameters()`; docs/model.md explains each model, and
`hvnet validate` shows the figures the calibrated ones were fitted on). A
parameter is one of three kinds:

- **calibrated**: fitted once on a figure of `shared/data/calibration.md`
  (named in its source), the same value for every scenario;
- **documented**: taken from a public document (named in its source);
- **assumed**: no public figure fixes it; a named, documented choice that a
  measurement can replace.

Nothing here is tuned per scenario. The model code reads these objects; no
other module holds a calibrated number.

    Calibration
    ├── teaming: TeamingParameters        LACP timeout, dynamic rebalancing
    ├── fabric: FabricParameters          how switches see a failure and route around it
    ├── cpu: CpuParameters                cycles per byte and packet, RSC, RDMA, power plans, C-states
    ├── vmq: VmqParameters                dynamic VMQ's interval and threshold
    ├── migration: MigrationParameters    pre-copy's stop rule, switch-over, the source's preparation, set-up
    ├── smb: SmbParameters                SMB Multichannel's connections per interface
    └── compression: CompressionParameters  the Compression option's ratio and costs
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from hvnet.errors import InputError

if TYPE_CHECKING:
    from hvnet.model import Host

__all__ = [
    "LSO_SEGMENT_BYTES",
    "Calibration",
    "CompressionParameters",
    "CpuParameters",
    "FabricParameters",
    "MigrationParameters",
    "Parameter",
    "SmbParameters",
    "TeamingParameters",
    "VmqParameters",
    "calibration_markdown",
]

Kind = Literal["calibrated", "documented", "assumed"]

#: What the NIC receives from the stack per large send (LSO), in bytes: the
#: size Windows hands a NIC with large send offload v2 (a protocol constant, not calibrated).
LSO_SEGMENT_BYTES = 65536

C1 = "calibration.md C1 (one live migration at MTU 1500 on a NIC outside any virtual switch, 70 s)"
C2 = "calibration.md C2 (a jumbo-frame migration stream reaches 10 Gbps line rate)"
C3 = "calibration.md C3 (turning C-states off halves the blackout; 55 GB in 54 s at line rate)"
FINN = (
    "Aidan Finn, 'Windows Server 2012 Hyper-V Concurrent Live Migration & NIC Teaming Speed Comparisons' "
    "(aidanfinn.com/?p=12228): one 512 MB VM over TCP/IP on 1 GbE in 7 s, of which the copy at line rate is 4.6 s"
)
VAN_HOYE = (
    "Didier Van Hoye, 'High performance live migration done right means using SMB Direct' "
    "(blog.workinghardinit.work, 2015): TCP/IP live migrations over a 2 x 10 GbE LACP team, about 22 % CPU with "
    "both members' RSS at the default (cores 0-7 each), about 12 % with each member on cores of its own"
)
C9 = "calibration.md C9 (ntttcp's cycles/byte inside the receiving VM: 2.9-3.4)"
BEHAVIOUR = "shared/design/BEHAVIOUR.md"


def _spread(value: Any, spread: tuple[float, float] | float | None) -> tuple[float, float] | None:
    """A parameter's range as values: its stated ends, or ±`spread` % around its value."""
    if isinstance(spread, float):
        return (value * (1 - spread / 100), value * (1 + spread / 100))
    return spread


def _parameter(
    default: Any,
    unit: str,
    kind: Kind,
    source: str,
    uncertainty: str,
    fitted_on: tuple[str, ...] = (),
    spread: tuple[float, float] | float | None = None,
) -> Any:
    """A dataclass field that carries its unit, kind, source and uncertainty, for a calibrated one the
    figures of `hvnet validate` it was fitted on (their ids, e.g. ``C2/peak``), and its uncertainty as
    values (`spread`): the low and high ends of its range, or a percentage either side of whatever value it
    has (15.0: ±15 %); None: exact, or not a single number."""
    meta = {
        "unit": unit,
        "kind": kind,
        "source": source,
        "uncertainty": uncertainty,
        "fitted_on": fitted_on,
        "spread": spread,
    }
    if isinstance(default, dict):
        return field(default_factory=lambda: dict(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class Parameter:
    """One parameter as a reader sees it: `group.name = value unit`, and why."""

    group: str
    name: str
    value: Any
    unit: str
    kind: Kind
    source: str
    uncertainty: str
    #: The `hvnet validate` figures a calibrated parameter was fitted on (empty for the others).
    fitted_on: tuple[str, ...] = ()
    #: Its uncertainty as values: the low and high ends of its range (None: exact, or not one number).
    spread: tuple[float, float] | None = None


@dataclass(frozen=True)
class TeamingParameters:
    """NIC teams: the points no public source confirms, as named choices."""

    lacp_timeout_s: float = _parameter(
        3.0,
        "s",
        "documented",
        f"{BEHAVIOUR}: LACP runs the short timer; IEEE 802.1AX: LACPDUs every second, a partner lost after 3 missed",
        "exact for the short timer (90 s with the long one)",
    )
    lacp_slow_timeout_s: float = _parameter(
        90.0,
        "s",
        "documented",
        "IEEE 802.1AX: with the long timer LACPDUs every 30 s, a partner lost after 3 missed (a team's lacp_timer: "
        "slow)",
        "exact for the long timer",
    )
    rebalance_interval_s: float = _parameter(
        1.0, "s", "assumed", "no public figure; dynamic teams rebalance on flowlet gaps", "0.1-10 s", spread=(0.1, 10.0)
    )


@dataclass(frozen=True)
class FabricParameters:
    """How switches notice a failure and route around it (docs/model.md, "Routing around failures");
    a scenario's `fabric:` and each switch may set its own."""

    carrier_delay_s: float = _parameter(
        0.1,
        "s",
        "documented",
        "Cisco Nexus NX-OS interface configuration guide: the link debounce timer, 100 ms by default, "
        "delays reporting a link that went down",
        "0-0.5 s (debounce off to vendors' longest defaults)",
        spread=(0.0, 0.5),
    )
    bfd_interval_s: float = _parameter(
        0.3,
        "s",
        "documented",
        "Arista EOS user manual: BFD's default transmit and receive interval is 300 ms; RFC 5880 §6.8.4: "
        "a session is declared down after the multiplier × the agreed interval without a packet",
        "0.05-1 s (Cisco NX-OS defaults to 50 ms)",
        spread=(0.05, 1.0),
    )
    bfd_multiplier: int = _parameter(
        3, "packets", "documented", "Arista EOS and Cisco NX-OS default BFD multiplier", "exact for the default"
    )
    hold_time_s: float = _parameter(
        90.0,
        "s",
        "documented",
        "RFC 4271 §10: BGP's suggested hold time, 90 s (OSPF's default dead interval is 40 s, RFC 2328 "
        "appendix C.3; data-centre fabrics often set 9 s)",
        "3-180 s (RFC 9384: 3 s at least; Cisco and Arista default to 180 s)",
        spread=(3.0, 180.0),
    )
    convergence_s: float = _parameter(
        0.5,
        "s",
        "assumed",
        "no public figure for a Hyper-V leaf-spine; the time from a failure being seen to every switch "
        "forwarding around it (routing updates and forwarding-table programming), sub-second in a routed "
        "fabric with fast timers",
        "0.05-5 s",
        spread=(0.05, 5.0),
    )
    stp_hello_s: float = _parameter(
        2.0, "s", "documented", "IEEE 802.1D-2004 §17.14: Hello Time, 2 s by default", "exact for the default"
    )
    stp_max_age_s: float = _parameter(
        20.0, "s", "documented", "IEEE 802.1D-2004 §17.14: Max Age, 20 s by default", "exact for the default"
    )
    stp_forward_delay_s: float = _parameter(
        15.0, "s", "documented", "IEEE 802.1D-2004 §17.14: Forward Delay, 15 s by default", "exact for the default"
    )


@dataclass(frozen=True)
class CpuParameters:
    """What moving a byte costs a core (docs/model.md, "Cores"), calibrated once for all cases."""

    receive_cycles_per_byte: float = _parameter(
        1.55,
        "cycles/byte",
        "calibrated",
        f"with receive_cycles_per_packet: BEHAVIOUR.md's 3-5 Gbps per core of VM traffic at MTU 1500, and {C2}",
        "±15 %",
        fitted_on=("C2/peak",),
        spread=15.0,
    )
    receive_cycles_per_packet: float = _parameter(
        3800.0,
        "cycles/packet",
        "calibrated",
        f"with receive_cycles_per_byte: BEHAVIOUR.md's 3-5 Gbps per core, and {C2}",
        "±15 %",
        fitted_on=("C2/peak",),
        spread=15.0,
    )
    send_cycles_per_byte: float = _parameter(
        1.0, "cycles/byte", "assumed", "one copy of each byte, below the receive side's", "±50 %", spread=50.0
    )
    send_cycles_per_segment: float = _parameter(
        3800.0,
        "cycles/segment",
        "assumed",
        "the receive side's per-packet cost, paid once per large send",
        "±50 %",
        spread=50.0,
    )
    rsc_packets: float = _parameter(2.36, "packets", "calibrated", C1, "±15 %", fitted_on=("C1/duration",), spread=15.0)
    guest_receive_cycles_per_byte: float = _parameter(
        1.55,
        "cycles/byte",
        "assumed",
        "the host's copy cost (one copy of each byte to the application)",
        "±15 %",
        spread=15.0,
    )
    guest_receive_cycles_per_packet: float = _parameter(
        1646.0, "cycles/packet", "calibrated", C9, "±15 %", fitted_on=("C9/cycles-per-byte",), spread=15.0
    )
    shared_queue_overhead: float = _parameter(
        0.27,
        "share of the cycles per byte, per other NIC",
        "calibrated",
        f"{VAN_HOYE}: the rate at the default (about 17 Gbps, where the two members' connections share cores "
        "4 and 5; tuned, 10 % faster: 'not much better'); the CPU drop is mostly other work (docs/validation.md)",
        "0.21-0.36 (18 to 16 Gbps at the default)",
        fitted_on=("V2/rate",),
        spread=(0.21, 0.36),
    )
    rdma_cycles_per_byte: float = _parameter(
        0.05,
        "cycles/byte",
        "assumed",
        f"{BEHAVIOUR}: RDMA moves data with next to no CPU (no figure given)",
        "0-0.2",
        spread=(0.0, 0.2),
    )
    power_plan_factor: dict[str, float] = _parameter(
        {"high_performance": 1.0, "balanced": 0.85, "power_saver": 0.7},
        "share of the clock",
        "assumed",
        "the frequency scaling and core parking a Windows power plan allows; no public figure isolates it",
        "balanced 0.7-1.0, power saver 0.5-0.9",
    )
    c_state_exit_s: dict[str, float] = _parameter(
        {"c1": 1e-6, "c1e": 10e-6, "c3": 59e-6, "c6": 82e-6},
        "s",
        "documented",
        "Intel's exit latencies for the Xeon E5 v2 (the Dell R720's), as Linux's intel_idle driver lists them",
        "exact for that processor; other processors differ",
    )

    def receive_cost(self, mss: int, rsc: bool = False) -> float:
        """Cycles per payload byte on the receiving core; `rsc`: the NIC coalesces what it receives."""
        coalesced = self.rsc_packets if rsc else 1.0
        return self.receive_cycles_per_byte + self.receive_cycles_per_packet / (mss * coalesced)

    def guest_receive_cost(self, mss: int) -> float:
        """Cycles per payload byte on the receiving VM's vCPU (no RSC inside a 2012 R2/2016 guest)."""
        return self.guest_receive_cycles_per_byte + self.guest_receive_cycles_per_packet / mss

    def rdma_cost(self) -> float:
        """Cycles per payload byte on either end of an RDMA transfer."""
        return self.rdma_cycles_per_byte

    def send_cost(self) -> float:
        """Cycles per payload byte on the sending core."""
        return self.send_cycles_per_byte + self.send_cycles_per_segment / LSO_SEGMENT_BYTES

    def cycles_per_s(self, host: Host) -> float:
        """What one of the host's cores (or a vCPU running on one) does per second."""
        return host.cpu.ghz * 1e9 * self.power_plan_factor[str(host.power_plan.value)]

    def wake_s(self, host: Host) -> float:
        """How long one of the host's idle cores takes to wake: an idle core sits in the deepest
        state its firmware allows (work that arrives now and then finds it there)."""
        return self.c_state_exit_s[str(host.cpu.deepest_c_state.value)]


@dataclass(frozen=True)
class VmqParameters:
    """When dynamic VMQ moves a queue (docs/model.md, "Dynamic VMQ")."""

    interval_s: float = _parameter(
        1.0, "s", "assumed", "no public source gives Windows' figure", "0.1-10 s", spread=(0.1, 10.0)
    )
    busy: float = _parameter(
        0.9, "share of a core", "assumed", "no public source gives Windows' threshold", "0.7-1.0", spread=(0.7, 1.0)
    )


@dataclass(frozen=True)
class MigrationParameters:
    """Pre-copy's stop rule and the switch-over (docs/model.md, "Live migration")."""

    max_passes: int = _parameter(
        5,
        "passes",
        "assumed",
        f"{BEHAVIOUR}: 5 passes from 2012 R2 on, pass 1 included (unconfirmed)",
        "3-10",
        spread=(3, 10),
    )
    stop_bytes: int = _parameter(
        64 * 2**20,
        "bytes",
        "assumed",
        "Microsoft's text says 'small enough'; no figure given",
        "16-256 MiB",
        spread=(16 * 2**20, 256 * 2**20),
    )
    switchover_exchanges: int = _parameter(
        268,
        "exchanges",
        "calibrated",
        f"{C3}: the synchronous exchanges of pause, device save and restore, storage and network hand-over",
        "±30 % (rests on the assumed round trip and device state)",
        fitted_on=("C3/blackout",),
        spread=30.0,
    )
    exchange_round_trip_s: float = _parameter(
        50e-6,
        "s",
        "assumed",
        "one round trip on a 10 GbE LAN whose cores are awake",
        "20-100 µs",
        spread=(20e-6, 100e-6),
    )
    setup_s: float = _parameter(
        2.07,
        "s",
        "calibrated",
        f"{FINN}: the rest is work that does not scale with memory (negotiation, the destination's VM and its checks); "
        "one value for every transport, as no public figure separates them",
        "±1 s (the source times in whole seconds)",
        fitted_on=("F1/1gbe-one",),
        spread=(1.07, 3.07),
    )
    prepare_bytes_per_s: float = _parameter(
        1.4e10,
        "bytes/s",
        "calibrated",
        f"{C3}: the source reads, maps and hands over guest memory in series with the transfer",
        "±10 %",
        fitted_on=("C3/duration",),
        spread=10.0,
    )

    def switchover_s(self, source: Host, destination: Host, cpu: CpuParameters) -> float:
        """Exchanges × (round trip + a core's wake on each host): a host whose firmware allows
        deep C-states pays their exit latency twice per exchange, once per end."""
        wake = cpu.wake_s(source) + cpu.wake_s(destination)
        return self.switchover_exchanges * (self.exchange_round_trip_s + wake)


SMB_TUNING = (
    "Microsoft, 'Performance tuning for file servers' (SMB client registry defaults, Windows Server 2012 to 2016)"
)


@dataclass(frozen=True)
class SmbParameters:
    """SMB Multichannel: how many TCP connections (RDMA: SMB Direct connections) it opens per interface."""

    connections_per_rss_interface: int = _parameter(
        4,
        "connections",
        "documented",
        f"{SMB_TUNING}: ConnectionCountPerRssNetworkInterface, default 4 (1-16)",
        "exact default; an administrator may set 1-16",
    )
    connections_per_rdma_interface: int = _parameter(
        2,
        "connections",
        "documented",
        f"{SMB_TUNING}: ConnectionCountPerRdmaNetworkInterface, default 2 (1-16)",
        "exact default; an administrator may set 1-16",
    )
    connections_per_interface: int = _parameter(
        1,
        "connections",
        "documented",
        f"{SMB_TUNING}: ConnectionCountPerNetworkInterface, default 1 (1-16), for an interface without RSS",
        "exact default; an administrator may set 1-16",
    )
    max_connections_per_server: int = _parameter(
        32,
        "connections",
        "documented",
        f"{SMB_TUNING}: MaximumConnectionCountPerServer, default 32 (1-64)",
        "exact default; an administrator may set 1-64",
    )


@dataclass(frozen=True)
class CompressionParameters:
    """The Compression option's costs: no public figure here measures them."""

    ratio: float = _parameter(
        0.5, "bytes/byte", "assumed", "an LZ-class compressor on ordinary guest memory", "0.3-0.8", spread=(0.3, 0.8)
    )
    zero_ratio: float = _parameter(
        0.01, "bytes/byte", "assumed", "zero pages compress to almost nothing", "0-0.05", spread=(0.0, 0.05)
    )
    compress_cycles_per_byte: float = _parameter(
        6.0,
        "cycles/byte",
        "assumed",
        "an LZ-class compressor: about 480 MB/s per 2.9 GHz core",
        "3-12",
        spread=(3.0, 12.0),
    )
    decompress_cycles_per_byte: float = _parameter(
        2.0,
        "cycles/byte",
        "assumed",
        "an LZ-class decompressor: about 1.45 GB/s per 2.9 GHz core",
        "1-4",
        spread=(1.0, 4.0),
    )
    zero_cycles_per_byte: float = _parameter(
        0.3, "cycles/byte", "assumed", "a zero page is found and skipped", "0.1-1", spread=(0.1, 1.0)
    )
    weight: float = _parameter(
        0.1,
        "share weight",
        "assumed",
        f"{BEHAVIOUR}: Compression uses only otherwise idle CPU, so it yields to everything else",
        "0.01-0.5",
        spread=(0.01, 0.5),
    )


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
                    spread=_spread(getattr(values, f.name), f.metadata["spread"]),
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
