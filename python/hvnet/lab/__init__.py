"""The lab: a scenario's traffic as real TCP on an emulated cluster, beside the twin's prediction (docs/lab.md).

`hvnet lab run SCENARIO` turns the scenario, at a scale, into network namespaces on this Linux
machine (a host each, a switch each, a veth pair per cable, a token bucket on each end), runs
its traffic, migrations and failures with real TCP, measures each NIC (as a host's snapshot log
that `hvnet import` and `hvnet explain` read) and each transfer's end, and sets them beside what
`hvnet simulate` predicts for the same scaled scenario. One module per step:

    scaling     the scenario at the lab's scale (what scaling keeps, and what it does not)
    prediction  the scaled scenario run once by the twin: its results, and the connections to open
    refusals    where the lab cannot run, and scenarios too large for one machine
    names       the run's unique names (namespaces), interface names, addresses, tables
    plan        namespaces, veth pairs, bridges and token buckets, as `ip` and `tc` lines
    timeline    each connection's pinning to its NICs, failures and moves in time, the agents' work
    netns       running the batches, the run's record, teardown and `hvnet lab down`
    agent       the process in each host's namespace: receive, send, sample (standard library only)
    runner      one run: build, start the agents, keep the timeline, collect, always tear down
    measure     the logs and records as measurements (through hvnet's own importers)
    compare     measured beside predicted: `LabReport`
    session     `hvnet lab run` from the file to the report
    show        the report in the terminal
"""

from hvnet.lab.compare import LabReport
from hvnet.lab.netns import lab_down
from hvnet.lab.refusals import LabRefused, Limits
from hvnet.lab.scaling import Scale
from hvnet.lab.session import lab_run

__all__ = ["LabRefused", "LabReport", "Limits", "Scale", "lab_down", "lab_run"]
