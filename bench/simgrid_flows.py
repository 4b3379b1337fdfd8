#!/usr/bin/python3
"""Run a flow CSV through SimGrid's max-min (LMM, CM02) network model.

Must run under the Debian interpreter that has ``python3-simgrid``::

    /usr/bin/python3 bench/simgrid_flows.py --hosts 64 --nic-bps 1e10 FLOWS.csv --json OUT.json

Platform: N hosts ``hv1``..``hvN``, each attached to one central non-blocking
router (a star zone) by ONE split-duplex (full-duplex) link ``nicI`` of
``--nic-bps`` bit/s (SimGrid wants bytes/s, so capacity = nic_bps / 8) with
latency 0.  A flow hvA -> hvB crosses exactly ``nicA_UP`` and ``nicB_DOWN``.
``--zone full`` builds the same thing with explicit host->host routes.

Model: pure max-min -- CM02 with every TCP correction disabled (see
SIMGRID_CONFIG below and bench/README.md).

Flows are host-to-host comms of the Activity API (no mailbox, no receiver
actor, no actor per flow).  Default ``--launch detach``: flows starting at
t <= 0 are started (detached) from maestro just before ``run()``; later ones
by one driver actor sleeping until each start time.  ``--launch wait``: one
actor starts every flow with ``Comm.sendto_async`` and waits on each (same
results, slower).  Completion times come from ``Comm.finish_time``.

Timed region (``wall_s``): starting the t=0 flows + ``Engine.run()``;
platform building and CSV parsing are excluded.  Output JSON::

    {"engine": "simgrid 3.32.0", "wall_s": ..., "end_s": [per CSV row],
     "cpu_s": ..., "config": {...}, "zone": "star", "launch": "detach"}

(``cpu_s`` = process CPU time over the same region: less sensitive to a
busy machine than ``wall_s``.)
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from typing import Any

# Debian's python3-simgrid, for /usr/bin/python3 only: the project's python (and its mypy) has no simgrid.
import simgrid as sg  # type: ignore[import-not-found]

# Pure max-min (LMM) settings.  See bench/README.md for the reasoning.
#  - CM02: the plain max-min model, no bandwidth/latency correction factors
#    (the LV08 default multiplies bandwidth by 0.97 and latency by 13.01).
#  - weight-S 0: no RTT-dependent weighting of flows (all weights equal).
#  - TCP-gamma: in 3.32 the window bound is gamma / (2 * latency) and it is
#    only applied when the route latency is > 0.  Our links have latency 0,
#    so no bound is ever set; a huge gamma makes that explicit and stays
#    harmless if someone gives the links a latency.  (gamma = 0 does NOT mean
#    "unbounded": with latency > 0 it would give a bound of 0.)
#  - optim Full: recompute the whole LMM system at every event instead of the
#    default "Lazy" selective update.  Same results (to ~1e-14), but in this
#    workload every flow shares links with every other one (one connected
#    component), so Lazy's bookkeeping is pure overhead: Full is ~2x faster
#    here.  Override with --cfg network/optim:Lazy to see the default.
#  - crosstraffic 0: the 3.32 default (1) adds a phantom ACK flow (weight
#    0.05) on the reverse route of every comm; not max-min of the data flows.
#  - precision: maxmin/precision (absolute epsilon of the LMM solver, in
#    bytes/s) defaults to 1e-5, surf/precision (time epsilon, s) to 1e-9 in
#    3.32; both set to 1e-9.  (1e-5 vs 1e-9 makes no measurable difference
#    on the benchmark workloads, ~1e-14 relative.)
SIMGRID_CONFIG = {
    "network/model": "CM02",
    "network/optim": "Full",
    "network/latency-factor": "1",
    "network/bandwidth-factor": "1",
    "network/weight-S": "0",
    "network/TCP-gamma": "1e300",
    "network/crosstraffic": "0",
    "network/loopback-lat": "0",
    "maxmin/precision": "1e-9",
    "surf/precision": "1e-9",
}

Flow = tuple[str, str, float, float]  # src, dst, bytes, start_s


def sg_version() -> str:
    v = getattr(sg, "simgrid_version", None) or getattr(sg, "version", None)
    if isinstance(v, (tuple, list)):
        v = ".".join(str(x) for x in v)
    return str(v) if v else "unknown"


def read_flows(path: str) -> list[Flow]:
    flows = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            flows.append(
                (row["src"].strip(), row["dst"].strip(), float(row["bytes"]), float(row.get("start_s") or 0.0))
            )
    return flows


def build_platform(hosts: int, nic_bps: float, zone_kind: str) -> dict[str, Any]:
    bw = nic_bps / 8.0  # bytes per second
    zone = sg.NetZone.create_star_zone("star") if zone_kind == "star" else sg.NetZone.create_full_zone("full")
    hs, links = [], []
    for i in range(1, hosts + 1):
        h = zone.create_host(f"hv{i}", 1e9).seal()
        link = zone.create_split_duplex_link(f"nic{i}", bw)
        link.set_latency(0)
        link.seal()
        hs.append(h)
        links.append(link)
    if zone_kind == "star":
        # host -> * uses nic_UP; the symmetric back route (* -> host) uses nic_DOWN.
        for h, link in zip(hs, links):
            zone.add_route(h.netpoint, None, None, None, [sg.LinkInRoute(link, sg.LinkInRoute.UP)], True)
    else:
        for i, (hi, li) in enumerate(zip(hs, links)):
            for j, (hj, lj) in enumerate(zip(hs, links)):
                if i != j:
                    zone.add_route(
                        hi.netpoint,
                        hj.netpoint,
                        None,
                        None,
                        [sg.LinkInRoute(li, sg.LinkInRoute.UP), sg.LinkInRoute(lj, sg.LinkInRoute.DOWN)],
                        False,
                    )
    zone.seal()
    return {h.name: h for h in hs}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("flows_csv")
    ap.add_argument("--hosts", type=int, required=True, help="number of hosts hv1..hvN")
    ap.add_argument("--nic-bps", type=float, default=1e10, help="NIC capacity in bit/s (default 1e10)")
    ap.add_argument("--json", dest="json_out", required=True, help="output JSON path")
    ap.add_argument(
        "--zone",
        choices=["star", "full"],
        default="star",
        help="star zone (default) or full zone with explicit host->host routes",
    )
    ap.add_argument(
        "--launch",
        choices=["detach", "wait"],
        default="detach",
        help="detach (default): detached host-to-host comms, t=0 flows started from maestro; "
        "wait: one actor starts every comm then waits on each",
    )
    ap.add_argument(
        "--cfg", action="append", default=[], metavar="KEY:VALUE", help="extra/overriding SimGrid config (repeatable)"
    )
    ap.add_argument("--verbose", action="store_true", help="keep SimGrid's INFO logging")
    return ap.parse_args(argv)


def engine_config(overrides: list[str]) -> dict[str, str]:
    """SIMGRID_CONFIG with the --cfg KEY:VALUE overrides."""
    cfg = dict(SIMGRID_CONFIG)
    for kv in overrides:
        k, _, v = kv.partition(":")
        cfg[k] = v
    return cfg


class Launcher:
    """Starts the flows as host-to-host comms and keeps their handles.

    Flows are created with the Activity API (host-to-host Comm, no mailbox, no
    receiver actor).  Default "detach": flows starting at t <= 0 are started
    from maestro right before run() (start_at_zero); later ones by ONE driver
    actor that sleeps until each distinct start time.  Nobody waits on a comm,
    so no actor context switch per flow; finish_time is read from the kept
    Comm handles after run().  "wait" is the conservative variant: one actor
    starts every flow then waits on each (same results, slower because of
    thread-context switches per wait).
    """

    def __init__(self, flows: list[Flow], hosts: dict[str, Any], launch: str) -> None:
        self.flows = flows
        self.hosts = hosts
        self.wait = launch == "wait"
        self.order = sorted(range(len(flows)), key=lambda k: flows[k][3])
        self.comms: list[Any] = [None] * len(flows)
        self.end_s: list[float | None] = [None] * len(flows)
        now_idx = 0  # order[:now_idx] = flows started from maestro (detach mode)
        if not self.wait:
            while now_idx < len(self.order) and flows[self.order[now_idx]][3] <= 0:
                now_idx += 1
        self.at_zero = self.order[:now_idx]
        self.later = self.order[now_idx:]

    def start_flow(self, k: int) -> None:
        src, dst, size, start = self.flows[k]
        if src == dst or size <= 0:
            self.end_s[k] = max(start, sg.Engine.clock)
            return
        if self.wait:
            self.comms[k] = sg.Comm.sendto_async(self.hosts[src], self.hosts[dst], int(size))
        else:
            self.comms[k] = sg.Comm.sendto_init(self.hosts[src], self.hosts[dst]).set_payload_size(int(size)).detach()

    def driver(self) -> None:
        for k in self.order if self.wait else self.later:
            start = self.flows[k][3]
            if start > sg.Engine.clock:
                sg.this_actor.sleep_until(start)
            self.start_flow(k)
        if self.wait:
            for c in self.comms:
                if c is not None:
                    c.wait()

    def create_driver(self) -> None:
        """The driver actor, if there is anything for it to start."""
        if self.wait or self.later:
            sg.Actor.create("driver", next(iter(self.hosts.values())), self.driver)

    def start_at_zero(self) -> None:
        """Detach mode: the flows starting at t <= 0, from maestro."""
        if not self.wait:
            for k in self.at_zero:
                self.start_flow(k)

    def end_times(self) -> list[float] | None:
        """Each flow's completion time, or None if some flow did not complete."""
        for k, c in enumerate(self.comms):
            if c is not None and c.finish_time >= 0:  # finish_time is -1 until the comm completes
                self.end_s[k] = c.finish_time
        ends = [x for x in self.end_s if x is not None]
        return ends if len(ends) == len(self.end_s) else None


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    flows = read_flows(a.flows_csv)

    cfg = engine_config(a.cfg)
    args = [sys.argv[0], *(f"--cfg={k}:{v}" for k, v in cfg.items())]
    if not a.verbose:
        args += ["--log=root.thres:warning"]
    e = sg.Engine(args)
    hosts = build_platform(a.hosts, a.nic_bps, a.zone)

    missing = sorted({h for f in flows for h in f[:2] if h not in hosts})
    if missing:
        print(f"error: unknown hosts in {a.flows_csv}: {missing[:5]}", file=sys.stderr)
        return 2

    launcher = Launcher(flows, hosts, a.launch)
    launcher.create_driver()

    # Timed region: starting the t=0 flows (detach mode) + Engine.run().
    t0 = time.perf_counter()
    c0 = time.process_time()
    launcher.start_at_zero()
    e.run()
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0  # all threads of this process

    end_s = launcher.end_times()
    if end_s is None:
        print("error: some flows did not complete", file=sys.stderr)
        return 3

    out = {
        "engine": f"simgrid {sg_version()}",
        "wall_s": wall,
        "cpu_s": cpu,
        "end_s": end_s,
        "config": cfg,
        "zone": a.zone,
        "launch": a.launch,
    }
    with open(a.json_out, "w") as f:
        json.dump(out, f)
    print(
        f"simgrid {sg_version()}: {len(flows)} flows on {a.hosts} hosts, run() {wall:.3f} s (cpu {cpu:.3f} s), "
        f"makespan {max(end_s, default=0.0):.6f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
