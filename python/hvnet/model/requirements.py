"""What a design must achieve: the requirements `hvnet check` evaluates (docs/check.md)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from hvnet.model.enums import FailureKind
from hvnet.model.fields import FrozenModel, Percent, Time
from hvnet.units import Duration

__all__ = ["Requirements", "Utilisation"]


class Utilisation(FrozenModel):
    """The most a NIC member may carry of its link, per percentile of time, each direction alone."""

    p50: Percent | None = None
    """Median over the traffic profile."""
    p90: Percent | None = None
    p99: Percent | None = None
    max: Percent | None = None
    """The instantaneous peak."""

    @model_validator(mode="after")
    def _one_at_least(self) -> Utilisation:
        if self.limits() == {}:
            raise ValueError("give at least one percentile: p50, p90, p99 or max, e.g. {p99: 70%}")
        return self

    def limits(self) -> dict[str, float]:
        """The percentiles given, by name (`p99`, `max`), with their shares."""
        return {name: value for name in ("p50", "p90", "p99", "max") if (value := getattr(self, name)) is not None}


class Requirements(FrozenModel):
    """What the design must achieve; `hvnet check` evaluates each (docs/check.md)."""

    maintenance_window: Time | None = None
    """A rolling update of every host, from its first drain to its last node's end, takes at most this."""
    max_drain: Time | None = None
    """Draining any one host (alone, from a clean start) takes at most this."""
    max_blackout: Annotated[Duration, Field(le=3600)] | None = None
    """No VM is paused longer than this in any migration of those drains and that rolling update."""
    max_utilisation: Utilisation | None = None
    """No NIC member sends or receives more than this share of its link over the traffic profile."""
    survive: tuple[FailureKind, ...] = ()
    """Kinds of single failure after which every requirement above must still be met."""
    patch_time: Time | None = None
    """How long each node is down in the rolling update; null: the patch_time of the scenario's
    rolling_update event, or 0s when it has none."""
