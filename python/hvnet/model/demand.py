"""Measured demand: the load a host NIC's counters showed, replayed on its link as background work.

A `demand:` entry names a NIC and the rates it sent and received over time, as steps: from each
time on, the rate measured, until the next step. The replay puts that load on the NIC's own link
(each direction apart), where it shares the link max-min fairly with the scenario's transfers,
steady flows and migrations, never above the rate measured. Where the bytes went beyond the NIC
is not known, and not modelled (docs/model.md, "Measured demand").
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from hvnet.model.fields import FASTEST_LINK_BPS, FrozenModel, Reference, Time
from hvnet.units import BitRate

__all__ = ["Demand", "DemandRate"]

#: A measured rate: 0 (idle) up to the fastest link.
DemandRate = Annotated[BitRate, Field(ge=0, le=FASTEST_LINK_BPS)]

#: Steps of a measured series: (from this time on, this rate).
Steps = tuple[tuple[Time, DemandRate], ...]


class Demand(FrozenModel):
    """The load one host NIC carried, measured, as steps of (time, rate) each way."""

    nic: Reference
    """The NIC it was measured on: `host/nic`."""
    send: Steps = Field(default=(), max_length=1_000_000)
    """What it sent: `[[0s, 1.2Gbps], [60s, 800Mbps], ...]`, each rate from its time to the next (bits/s on
    the wire, as the counters count); the last holds to the run's end, so a replay ends with a rate of 0."""
    receive: Steps = Field(default=(), max_length=1_000_000)
    """What it received, the same way."""
    source: str | None = None
    """Where it was measured (a counter log and its instance), for people reading the scenario."""

    @model_validator(mode="after")
    def _steps_in_order(self) -> Demand:
        if not self.send and not self.receive:
            raise ValueError("give send, receive or both: the rates measured, as [[time, rate], ...]")
        for direction, steps in (("send", self.send), ("receive", self.receive)):
            times = [at for at, _ in steps]
            late = next((k for k in range(1, len(times)) if times[k] <= times[k - 1]), None)
            if late is not None:
                raise ValueError(
                    f"{direction}[{late}]: its time ({times[late]:g} s) is not after the one before "
                    f"({times[late - 1]:g} s); steps go forward in time"
                )
        return self
