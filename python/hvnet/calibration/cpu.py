"""The parameters of the cores: what moving a byte costs a core (docs/model.md, "Cores")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hvnet.calibration.parameter import parameter
from hvnet.calibration.sources import BEHAVIOUR, C1, C2, C9, VAN_HOYE

if TYPE_CHECKING:
    from hvnet.model import Host

__all__ = ["LSO_SEGMENT_BYTES", "CpuParameters"]

#: What the NIC receives from the stack per large send (LSO), in bytes: the
#: size Windows hands a NIC with large send offload v2 (a protocol constant, not calibrated).
LSO_SEGMENT_BYTES = 65536


@dataclass(frozen=True)
class CpuParameters:
    """What moving a byte costs a core (docs/model.md, "Cores"), calibrated once for all cases."""

    receive_cycles_per_byte: float = parameter(
        1.55,
        "cycles/byte",
        "calibrated",
        f"with receive_cycles_per_packet: BEHAVIOUR.md's 3-5 Gbps per core of VM traffic at MTU 1500, and {C2}",
        "±15 %",
        fitted_on=("C2/peak",),
        spread=15.0,
    )
    receive_cycles_per_packet: float = parameter(
        3800.0,
        "cycles/packet",
        "calibrated",
        f"with receive_cycles_per_byte: BEHAVIOUR.md's 3-5 Gbps per core, and {C2}",
        "±15 %",
        fitted_on=("C2/peak",),
        spread=15.0,
    )
    send_cycles_per_byte: float = parameter(
        1.0, "cycles/byte", "assumed", "one copy of each byte, below the receive side's", "±50 %", spread=50.0
    )
    send_cycles_per_segment: float = parameter(
        3800.0,
        "cycles/segment",
        "assumed",
        "the receive side's per-packet cost, paid once per large send",
        "±50 %",
        spread=50.0,
    )
    rsc_packets: float = parameter(2.36, "packets", "calibrated", C1, "±15 %", fitted_on=("C1/duration",), spread=15.0)
    guest_receive_cycles_per_byte: float = parameter(
        1.55,
        "cycles/byte",
        "assumed",
        "the host's copy cost (one copy of each byte to the application)",
        "±15 %",
        spread=15.0,
    )
    guest_receive_cycles_per_packet: float = parameter(
        1646.0, "cycles/packet", "calibrated", C9, "±15 %", fitted_on=("C9/cycles-per-byte",), spread=15.0
    )
    shared_queue_overhead: float = parameter(
        0.27,
        "share of the cycles per byte, per other NIC",
        "calibrated",
        f"{VAN_HOYE}: the rate at the default (about 17 Gbps, where the two members' connections share cores "
        "4 and 5; tuned, 10 % faster: 'not much better'); the CPU drop is mostly other work (docs/validation.md)",
        "0.21-0.36 (18 to 16 Gbps at the default)",
        fitted_on=("V2/rate",),
        spread=(0.21, 0.36),
    )
    rdma_cycles_per_byte: float = parameter(
        0.05,
        "cycles/byte",
        "assumed",
        f"{BEHAVIOUR}: RDMA moves data with next to no CPU (no figure given)",
        "0-0.2",
        spread=(0.0, 0.2),
    )
    power_plan_factor: dict[str, float] = parameter(
        {"high_performance": 1.0, "balanced": 0.85, "power_saver": 0.7},
        "share of the clock",
        "assumed",
        "the frequency scaling and core parking a Windows power plan allows; no public figure isolates it",
        "balanced 0.7-1.0, power saver 0.5-0.9",
    )
    c_state_exit_s: dict[str, float] = parameter(
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
