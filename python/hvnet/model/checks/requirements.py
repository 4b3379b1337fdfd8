"""Requirements: the ones that drain hosts need a cluster with another host to take the VMs;
each kind of failure `survive` explores is named once, and there is a requirement to re-evaluate
after each."""

from __future__ import annotations

from collections.abc import Mapping

from hvnet.model.checks.context import Context

__all__ = ["check_requirements"]

#: The requirements measured by draining hosts (a rolling update drains each node).
_DRAINING = ("maintenance_window", "max_drain", "max_blackout")
#: The requirements `survive` re-evaluates after each failure.
_MEASURED = (*_DRAINING, "max_utilisation")


def check_requirements(ctx: Context) -> None:
    """A requirement that drains a host in a one-host cluster; a failure kind listed twice."""
    requirements = ctx.data.get("requirements")
    if not isinstance(requirements, Mapping):
        return  # absent, or pydantic reports the wrong type
    if len(ctx.hosts) == 1:
        for key in _DRAINING:
            if requirements.get(key) is not None:
                ctx.report(
                    ("requirements", key),
                    f"{key} is measured by draining hosts, and this cluster has one host: "
                    "a drain needs another host to take its VMs (add a host, or remove the requirement)",
                )
    survive = requirements.get("survive")
    if isinstance(survive, list) and survive and all(requirements.get(key) is None for key in _MEASURED):
        ctx.report(
            ("requirements", "survive"),
            "survive re-evaluates the other requirements after each failure, and there is none; "
            f"add one of {', '.join(_MEASURED)}",
        )
    if isinstance(survive, list):
        seen: set[str] = set()
        for index, kind in enumerate(survive):
            if isinstance(kind, str) and kind in seen:
                ctx.report(
                    ("requirements", "survive", index), f"{kind!r} is listed twice; name each kind of failure once"
                )
            if isinstance(kind, str):
                seen.add(kind)
