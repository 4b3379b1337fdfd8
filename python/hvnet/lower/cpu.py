"""CPU: each host's cores as engine resources, and what a byte costs them.

A core is a resource of `clock × power-plan factor` cycles per second (the
factor stands for the frequency scaling and core parking a power plan
allows; high performance is 1). An idle core sleeps in the deepest C-state
its firmware allows and takes that state's exit latency to wake
(`CpuParameters.wake_s`): that costs nothing to a busy stream, whose core
never sleeps, but it lengthens every small synchronous exchange, such as
those of a live migration's switch-over (`migrations.py`).

Moving data costs the core that receives it

    cycles per payload byte = receive_per_byte + receive_per_packet / (MSS × coalesced)

and the core that sends it `send_per_byte + send_per_segment / LSO segment`
(large send offload hands the NIC 64 KiB at a time). Larger frames mean
fewer packets, so jumbo frames cost fewer cycles per byte. `coalesced` is
1, or with receive segment coalescing (RSC) the packets the NIC merges into
one before the stack sees them: RSC works for traffic that does not cross a
Hyper-V virtual switch (the vSwitch has RSC only from Windows Server 2019),
so on a NIC, or an LBFO team, that is not a virtual switch's uplink. One TCP
connection is received on one core, so the core, not the link, caps a
single stream: that is why one stream of VM traffic tops out near 4.5–5
Gbps at MTU 1500 (BEHAVIOUR.md: 3–5 Gbps per core of VM traffic) while a
host's own stream on a NIC with RSC goes near 7 Gbps (calibration.md C1),
and why more connections, on more cores, go faster.

Which cores (the Rust core picks among them by hash; see
`crates/network/src/cores.rs`), all assumptions stated in docs/model.md:

- a host's own traffic is received with the RSS of the NIC it arrives on,
  on `rss_queues` physical cores from that NIC's `rss_base_core` (Windows'
  default base is 0, so NICs and a team's members overlap unless tuned;
  `NetworkModel._nic_rss` gives the core each NIC's set); an endpoint's own
  set (a team's: the union of its members') is used where no NIC is known;
- a VM's traffic, on a NIC with VMQ, is processed on its queue's core; VMs
  get queues round robin over the host's cores from core 1 (core 0 keeps
  the default queue); with 2 or more vCPUs on a 10 Gbps or faster NIC, vRSS
  spreads it over as many cores as it has vCPUs, from its queue's core on;
- with dynamic VMQ (`dynamic_vmq`, on by default), a VM queue without vRSS
  may move among those same cores, 1 and up, when its core is busy (the
  Rust core decides when, `crates/network/src/run/vmq.rs`; `VmqParameters`
  says how often and how busy);
- without VMQ, all VM traffic lands on the default queue, on core 0;
- hyper-threads are not cores here: RSS and VMQ use physical cores.

A VM's own network stack works on its virtual processors, resources of
their own as fast as a core of its host: it receives on vCPU 0 (or, with
vRSS, spread over its vCPUs) at `guest_receive_per_byte +
guest_receive_per_packet / MSS` and sends from any of them at the host's
send cost. So one VM stream costs both its host's queue core and its
guest's vCPU, and a guest whose own work fills its vCPUs receives slowly.
"""

from __future__ import annotations

from collections.abc import Callable

from hvnet.calibration import CpuParameters
from hvnet.lower.specs import Cores
from hvnet.model import Host, Nic, Scenario

__all__ = ["CpuModel", "coalesces"]


class CpuModel:
    """Core resources of every host, and each endpoint's core sets."""

    def __init__(
        self,
        scenario: Scenario,
        add_resource: Callable[[str, float], int],
        parameters: CpuParameters,
    ) -> None:
        self.parameters = parameters
        #: Host name -> resource ids of its physical cores, core 0 first.
        self.cores: dict[str, list[int]] = {}
        for host in scenario.hosts:
            cycles = self.parameters.cycles_per_s(host)
            self.cores[host.name] = [add_resource(f"{host.name} core {k}", cycles) for k in range(host.cpu.cores)]
        #: VM name -> resource ids of its virtual processors, vCPU 0 first, for the VMs whose own
        #: network stack works (`guest_sets`): each as fast as a core of the host it starts on
        #: (the hypervisor runs it on one). A VM that only migrates or idles has none.
        self.vcpus: dict[str, list[int]] = {}
        self._add_resource = add_resource
        self._vm_queue: dict[str, int] = {}
        on: dict[str, list[str]] = {host.name: [] for host in scenario.hosts}
        for vm in scenario.vms:  # each host's VMs in file order, in one pass
            on.setdefault(vm.host, []).append(vm.name)
        for host in scenario.hosts:
            count = len(self.cores[host.name])
            for i, name in enumerate(on[host.name]):
                self._vm_queue[name] = 1 + i % (count - 1) if count > 1 else 0
        self._scenario = scenario
        #: (host, NIC names) -> whether all have VMQ; all VMQ at 10 Gbps or more; all VMQ and dynamic VMQ.
        self._queues: dict[tuple[str, tuple[str, ...]], tuple[bool, bool, bool]] = {}
        #: The VMs' core sets (`vm_set`, `vm_cores`), by what decides them.
        self._sets: dict[tuple[str, bool, bool, int, int], Cores] = {}
        self._vm_cores: dict[tuple[str, tuple[str, ...], int, int], tuple[Cores, tuple[int, ...]]] = {}
        self._vcpus = {vm.name: vm.vcpus for vm in scenario.vms}

    def host_set(self, host: Host, nic_names: list[str]) -> Cores:
        """RSS on `rss_queues` cores from the NIC's base core on (for a team:
        the union of its members' sets, in member order)."""
        cores = self.cores[host.name]
        chosen: list[int] = []
        for name in nic_names:
            nic = host.nic(name)
            for k in range(nic.rss_queues):
                core = cores[(nic.rss_base_core + k) % len(cores)]
                if core not in chosen:
                    chosen.append(core)
        return Cores("rss", tuple(chosen[:64]))

    def host_vnic_set(self, host: Host, nic_names: list[str]) -> Cores:
        """A host vNIC without RSS (Windows Server 2012 and 2012 R2): what it receives lands on one core, its
        VMQ queue's, assumed to be the base core of its NIC (of a team's first member) as RSS's would be."""
        cores = self.cores[host.name]
        base = host.nic(nic_names[0]).rss_base_core if nic_names else 0
        return Cores("queue", (cores[base % len(cores)],))

    def _queue_flags(self, host: Host, nic_names: list[str]) -> tuple[bool, bool, bool]:
        """Whether every NIC has VMQ; VMQ at 10 Gbps or more; VMQ and dynamic VMQ (once per host and NICs:
        a host's thousands of VMs share a few)."""
        key = (host.name, tuple(nic_names))
        flags = self._queues.get(key)
        if flags is None:
            nics = [host.nic(n) for n in nic_names]
            flags = (
                all(n.vmq for n in nics),
                all(n.vmq and n.speed >= 10e9 for n in nics),
                all(n.vmq and n.dynamic_vmq for n in nics),
            )
            self._queues[key] = flags
        return flags

    def _vrss(self, vm_name: str, host: Host, nic_names: list[str]) -> bool:
        """vRSS works for a VM of 2 or more vCPUs on VMQ NICs of 10 Gbps or more (BEHAVIOUR.md)."""
        fast = self._queue_flags(host, nic_names)[1]
        return self._scenario.vm(vm_name).vcpus >= 2 and fast

    def vm_set(self, vm_name: str, host: Host, nic_names: list[str]) -> Cores:
        """VMQ's core, vRSS's spread, or the default queue's core 0 (made once per host, NICs, queue
        and vCPUs: the VMs that share them share it)."""
        vmq, fast, _ = self._queue_flags(host, nic_names)
        vcpus = self._scenario.vm(vm_name).vcpus if vmq and fast else 0
        key = (host.name, vmq, fast, self._vm_queue[vm_name] if vmq else 0, vcpus)
        found = self._sets.get(key)
        if found is None:
            found = self._sets[key] = self._vm_set(self.cores[host.name], *key[1:])
        return found

    @staticmethod
    def _vm_set(cores: list[int], vmq: bool, fast: bool, first: int, vcpus: int) -> Cores:
        if not vmq:
            return Cores("queue", (cores[0],))
        if fast and vcpus >= 2:  # vRSS (`_vrss`)
            width = min(vcpus, len(cores))
            return Cores("spread", tuple(cores[(first + i) % len(cores)] for i in range(width)))
        return Cores("queue", (cores[first],))

    def guest_sets(self, vm_name: str, host: Host, nic_names: list[str]) -> tuple[Cores, Cores]:
        """The VM's vCPUs its own stack sends and receives on: it sends from whichever vCPU its
        application runs on (spread over them all), and receives on vCPU 0 (the one its synthetic
        NIC interrupts), or, with vRSS, spread over all of them. The first call for a VM adds its
        vCPUs as resources (`vcpus`)."""
        if vm_name not in self.vcpus:
            cycles, count = self.parameters.cycles_per_s(host), self._scenario.vm(vm_name).vcpus
            self.vcpus[vm_name] = [self._add_resource(f"{vm_name} vCPU {k}", cycles) for k in range(count)]
        vcpus = tuple(self.vcpus[vm_name])
        receive = vcpus if self._vrss(vm_name, host, nic_names) else vcpus[:1]
        return Cores("spread", vcpus), Cores("spread" if len(receive) > 1 else "queue", receive)

    def vm_cores(self, vm_name: str, host: Host, nic_names: list[str]) -> tuple[Cores, tuple[int, ...]]:
        """`vm_set` and `vm_queue_cores` together, made once per host, NICs, queue and vCPUs (a host's
        thousands of VMs have a few)."""
        key = (host.name, tuple(nic_names), self._vm_queue[vm_name], self._vcpus[vm_name])
        found = self._vm_cores.get(key)
        if found is None:
            found = (self.vm_set(vm_name, host, nic_names), self.vm_queue_cores(vm_name, host, nic_names))
            self._vm_cores[key] = found
        return found

    def vm_queue_cores(self, vm_name: str, host: Host, nic_names: list[str]) -> tuple[int, ...]:
        """The cores dynamic VMQ may move the VM's queue among: those static VMQ
        deals queues over (1 and up), when every NIC under it has VMQ and
        dynamic VMQ on and the VM has one queue (no vRSS); none otherwise."""
        cores = self.cores[host.name]
        kind = self.vm_set(vm_name, host, nic_names).kind
        if kind != "queue" or len(cores) < 3 or not self._queue_flags(host, nic_names)[2]:
            return ()
        return tuple(cores[1:])


def coalesces(host: Host, nic: Nic) -> bool:
    """Whether RSC merges what `nic` receives: it is on, and neither the NIC
    nor its team is a virtual switch's uplink (Windows Server 2012 R2's vSwitch has no RSC)."""
    uplinks = {v.uplink for v in host.vswitches}
    team = next((t.name for t in host.teams if nic.name in t.members), None)
    return nic.rsc and nic.name not in uplinks and team not in uplinks
