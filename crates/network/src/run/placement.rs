//! Where a connection runs: the team members the rules give it, and the
//! engine resources it uses between two NICs (links, cores, vCPUs) with the
//! core-seconds each byte of it costs on each side.

use hvnet_engine::ResourceId;

use super::Run;
use crate::spec::{Connection, Uplink};
use crate::team::{AddressHash, Flow};

/// A connection's engine usage on one route, and what a byte of its work
/// costs in core-seconds on the sending and on the receiving side.
pub(super) struct Usage {
    pub(super) resources: Vec<(ResourceId, f64)>,
    pub(super) send_core_s_per_byte: f64,
    pub(super) receive_core_s_per_byte: f64,
    /// How many times its cycles per byte its receiving core costs ([`super::sharing`]).
    pub(super) receive_factor: f64,
    /// The shared core and the NIC it is received on by RSS, if it is.
    pub(super) shared_on: Option<(ResourceId, u32)>,
    /// Its route: the epoch of its path's routing now and its ECMP pick.
    pub(super) route: (usize, usize),
}

impl<T: Copy> Run<'_, T> {
    pub(super) fn flow(&self, c: &Connection) -> Flow {
        let (s, t) = (
            &self.network.endpoints[c.source as usize],
            &self.network.endpoints[c.target as usize],
        );
        Flow {
            source: s.address,
            target: t.address,
            ports: c.ports,
            source_mac: s.mac,
            target_mac: t.mac,
        }
    }

    /// The NICs the rules give a connection now.
    pub(super) fn members(&self, c: &Connection) -> (Option<u32>, Option<u32>) {
        if let Some((out_nic, in_nic)) = c.pinned {
            return (
                self.pinned_or_failover(c.source, out_nic),
                self.pinned_or_failover(c.target, in_nic),
            );
        }
        let flow = self.flow(c);
        let source = &self.network.endpoints[c.source as usize];
        let target = &self.network.endpoints[c.target as usize];
        let out_nic = match source.uplink {
            Uplink::Nic(n) => Some(n),
            Uplink::Team(t) => self.network.teams[t as usize].outbound(
                &flow,
                source.port,
                &self.carriers[t as usize],
            ),
        };
        let in_nic = match target.uplink {
            Uplink::Nic(n) => Some(n),
            Uplink::Team(t) => self.network.teams[t as usize].inbound(
                &flow,
                target.port,
                &self.carriers[t as usize],
            ),
        };
        (out_nic, in_nic)
    }

    /// A pinned NIC, while it carries; else, when it is a member of the
    /// endpoint's team, the team's first carrier: a host vNIC mapped to a
    /// member (Set-VMNetworkAdapterTeamMapping) names its *preferred*
    /// member (Msvm_EthernetSwitchPortTeamMappingSettingData.NetAdapterName,
    /// "the preferred mapped physical adapter") and moves to another while
    /// that one is down. A NIC outside a team stays pinned.
    fn pinned_or_failover(&self, endpoint: u32, nic: u32) -> Option<u32> {
        match self.network.endpoints[endpoint as usize].uplink {
            Uplink::Team(t)
                if self.network.teams[t as usize].members.contains(&nic)
                    && !self.carriers[t as usize].contains(&nic) =>
            {
                self.carriers[t as usize].first().copied()
            }
            _ => Some(nic),
        }
    }

    /// The engine usage of connection `k` between two NICs: the links of
    /// the path, and the cycles of the cores that send and receive it. With
    /// no member on either side, it uses the dead NIC's own cable so that it
    /// stalls. A path must be given for the pair (checked by `check`).
    pub(super) fn usage(&self, k: usize, out_nic: Option<u32>, in_nic: Option<u32>) -> Usage {
        let c = &self.connections[k];
        let fallback = self.fallback(c);
        let pair = (out_nic.unwrap_or(fallback.0), in_nic.unwrap_or(fallback.1));
        let empty = crate::spec::Path::default();
        let path = (self.network.path(pair.0, pair.1, c.endpoint_mtu)).unwrap_or(&empty);
        let route = self.route_now(k, out_nic, in_nic);
        let links = (path.routing.get(route.0))
            .and_then(|r| r.ecmp.get(route.1))
            .map_or(&[][..], |l| l.as_slice());
        let hash = self.flow(c).team_hash(AddressHash::TransportPorts);
        let (source, target) = (
            &self.network.endpoints[c.source as usize],
            &self.network.endpoints[c.target as usize],
        );
        let (send, receive) = self.cycles_per_byte(c, out_nic, in_nic);
        // Compressed, each byte of work puts `wire` bytes on the links and the stack.
        let wire = c.compression.map_or(1.0, |(wire, _, _)| wire);
        let send_core = self.send_core(c.source, hash).map(|core| (core, send));
        let received = self.receive_core(c.target, in_nic, hash);
        // RDMA (cycles of its own) bypasses the stack's queues ([`super::sharing`]).
        let shared_on = match received {
            Some((core, Some(nic))) if c.cycles.is_none() => Some((core, nic)),
            _ => None,
        };
        let receive_factor = shared_on.map_or(1.0, |(core, nic)| self.shared_factor(core, nic));
        let receive_core = received.map(|(core, _)| (core, receive * receive_factor));
        // A VM's own stack works on one of its virtual processors.
        let send_vcpu = (source.guest_send_cores.core(hash))
            .map(|vcpu| (vcpu, path.guest_send_cycles_per_byte * wire));
        let receive_vcpu = (target.guest_receive_cores.core(hash))
            .map(|vcpu| (vcpu, path.guest_receive_cycles_per_byte * wire));
        // (De)compression spreads over all the sending and receiving host's cores.
        let spread = |cores: &[ResourceId], cycles: f64| -> Vec<(ResourceId, f64)> {
            let n = cores.len().max(1) as f64;
            cores.iter().map(|&core| (core, cycles / n)).collect()
        };
        let (compressing, decompressing) = match c.compression {
            Some((_, compress, decompress)) => (
                spread(&source.host_cores, compress),
                spread(&target.host_cores, decompress),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let core_s = |side: &mut dyn Iterator<Item = &(ResourceId, f64)>| -> f64 {
            side.map(|&(r, cycles)| {
                let capacity = self.network.resources[r].0;
                if capacity > 0.0 {
                    cycles / capacity
                } else {
                    0.0
                }
            })
            .sum()
        };
        let send_core_s_per_byte =
            core_s(&mut send_core.iter().chain(&send_vcpu).chain(&compressing));
        let receive_core_s_per_byte = core_s(
            &mut receive_core
                .iter()
                .chain(&receive_vcpu)
                .chain(&decompressing),
        );
        let mut resources: Vec<(ResourceId, f64)> =
            links.iter().map(|&(r, a)| (r, a * wire)).collect();
        resources.extend(send_core.into_iter().chain(receive_core));
        resources.extend(send_vcpu.into_iter().chain(receive_vcpu));
        resources.extend(compressing.into_iter().chain(decompressing));
        resources.extend(c.through.map(|r| (r, 1.0)));
        Usage {
            resources,
            send_core_s_per_byte,
            receive_core_s_per_byte,
            receive_factor,
            shared_on,
            route,
        }
    }

    /// The route connection `k` takes between two NICs now: the epoch of
    /// their path's routing in force and the route its ECMP hash picks there.
    pub(super) fn route_now(
        &self,
        k: usize,
        out_nic: Option<u32>,
        in_nic: Option<u32>,
    ) -> (usize, usize) {
        let c = &self.connections[k];
        let fallback = self.fallback(c);
        let pair = (out_nic.unwrap_or(fallback.0), in_nic.unwrap_or(fallback.1));
        let Some(path) = self.network.path(pair.0, pair.1, c.endpoint_mtu) else {
            return (0, 0);
        };
        let epoch = path.epoch_at(self.sim.now());
        let choice = path
            .route(epoch, self.flow(c).ecmp_hash())
            .map_or(0, |(i, _)| i);
        (epoch, choice)
    }

    /// Cycles per byte of work that connection `c` puts on its sending and
    /// its receiving core between two NICs (compressed: per wire byte of it).
    pub(super) fn cycles_per_byte(
        &self,
        c: &Connection,
        out_nic: Option<u32>,
        in_nic: Option<u32>,
    ) -> (f64, f64) {
        let fallback = self.fallback(c);
        let pair = (out_nic.unwrap_or(fallback.0), in_nic.unwrap_or(fallback.1));
        let (send, receive) = match (c.cycles, self.network.path(pair.0, pair.1, c.endpoint_mtu)) {
            (Some(cycles), _) => cycles,
            (None, Some(path)) => (path.send_cycles_per_byte, path.receive_cycles_per_byte),
            (None, None) => (0.0, 0.0),
        };
        let wire = c.compression.map_or(1.0, |(wire, _, _)| wire);
        (send * wire, receive * wire)
    }

    /// The NICs a connection falls back to when a side has no member.
    pub(super) fn fallback(&self, c: &Connection) -> (u32, u32) {
        let first = |e: u32| match self.network.endpoints[e as usize].uplink {
            Uplink::Nic(n) => n,
            Uplink::Team(t) => self.network.teams[t as usize].members[0],
        };
        (first(c.source), first(c.target))
    }
}
