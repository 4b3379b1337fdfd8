"""The parameters of the network: NIC teams, how switches detect a failure and route around it, dynamic VMQ."""

from __future__ import annotations

from dataclasses import dataclass

from hvnet.calibration.parameter import parameter
from hvnet.calibration.sources import BEHAVIOUR

__all__ = ["FabricParameters", "TeamingParameters", "VmqParameters"]


@dataclass(frozen=True)
class TeamingParameters:
    """NIC teams: the points no public source confirms, as named choices."""

    lacp_timeout_s: float = parameter(
        3.0,
        "s",
        "documented",
        f"{BEHAVIOUR}: LACP runs the short timer; IEEE 802.1AX: LACPDUs every second, a partner lost after 3 missed",
        "exact for the short timer (90 s with the long one)",
    )
    lacp_slow_timeout_s: float = parameter(
        90.0,
        "s",
        "documented",
        "IEEE 802.1AX: with the long timer LACPDUs every 30 s, a partner lost after 3 missed (a team's lacp_timer: "
        "slow)",
        "exact for the long timer",
    )
    rebalance_interval_s: float = parameter(
        1.0, "s", "assumed", "no public figure; dynamic teams rebalance on flowlet gaps", "0.1-10 s", spread=(0.1, 10.0)
    )


@dataclass(frozen=True)
class FabricParameters:
    """How switches notice a failure and route around it (docs/model.md, "Routing around failures");
    a scenario's `fabric:` and each switch may set its own."""

    carrier_delay_s: float = parameter(
        0.1,
        "s",
        "documented",
        "Cisco Nexus NX-OS interface configuration guide: the link debounce timer, 100 ms by default, "
        "delays reporting a link that went down",
        "0-0.5 s (debounce off to vendors' longest defaults)",
        spread=(0.0, 0.5),
    )
    bfd_interval_s: float = parameter(
        0.3,
        "s",
        "documented",
        "Arista EOS user manual: BFD's default transmit and receive interval is 300 ms; RFC 5880 §6.8.4: "
        "a session is declared down after the multiplier × the agreed interval without a packet",
        "0.05-1 s (Cisco NX-OS defaults to 50 ms)",
        spread=(0.05, 1.0),
    )
    bfd_multiplier: int = parameter(
        3, "packets", "documented", "Arista EOS and Cisco NX-OS default BFD multiplier", "exact for the default"
    )
    hold_time_s: float = parameter(
        90.0,
        "s",
        "documented",
        "RFC 4271 §10: BGP's suggested hold time, 90 s (OSPF's default dead interval is 40 s, RFC 2328 "
        "appendix C.3; data-centre fabrics often set 9 s)",
        "3-180 s (RFC 9384: 3 s at least; Cisco and Arista default to 180 s)",
        spread=(3.0, 180.0),
    )
    convergence_s: float = parameter(
        0.5,
        "s",
        "assumed",
        "no public figure for a Hyper-V leaf-spine; the time from a failure being seen to every switch "
        "forwarding around it (routing updates and forwarding-table programming), sub-second in a routed "
        "fabric with fast timers",
        "0.05-5 s",
        spread=(0.05, 5.0),
    )
    stp_hello_s: float = parameter(
        2.0, "s", "documented", "IEEE 802.1D-2004 §17.14: Hello Time, 2 s by default", "exact for the default"
    )
    stp_max_age_s: float = parameter(
        20.0, "s", "documented", "IEEE 802.1D-2004 §17.14: Max Age, 20 s by default", "exact for the default"
    )
    stp_forward_delay_s: float = parameter(
        15.0, "s", "documented", "IEEE 802.1D-2004 §17.14: Forward Delay, 15 s by default", "exact for the default"
    )


@dataclass(frozen=True)
class VmqParameters:
    """When dynamic VMQ moves a queue (docs/model.md, "Dynamic VMQ")."""

    interval_s: float = parameter(
        1.0, "s", "assumed", "no public source gives Windows' figure", "0.1-10 s", spread=(0.1, 10.0)
    )
    busy: float = parameter(
        0.9, "share of a core", "assumed", "no public source gives Windows' threshold", "0.7-1.0", spread=(0.7, 1.0)
    )
