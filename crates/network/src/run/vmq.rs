//! Dynamic VMQ: a VM's queue moves between its host's cores by load.
//!
//! With VMQ each VM's traffic is processed on the one core its queue is
//! bound to ([`Cores::Queue`]); an endpoint whose `queue_cores` is not empty
//! has a *dynamic* queue that may move among those cores (the caller gives
//! the same set to every queue of one host). Its current core is the run's
//! own: it starts at the endpoint's `Queue` core and changes here, never in
//! the [`Network`]. The queue carries the endpoint's receive work, and its
//! send work too when its send cores are that same queue.
//!
//! A queue is *in use* while one of its connections moves data. Every
//! `interval`, for each set of queues that share `queue_cores` (one
//! host's), with `u_c` the cycles/s core `c` does now (network work and the
//! guests' own) and `C_c` its capacity:
//!
//! ```text
//!   load_c = u_c / C_c
//!   b      = the busiest core holding two or more of the set's queues in use
//!   q      = the heaviest queue in use on b: w_q = Σ rate_k × cycles per
//!            byte_k over q's connections (receive, and send when it follows)
//!   t      = the least-loaded core of queue_cores other than b
//!   move q to t   if  load_b > busy  and  (u_t + w_q) / C_t < load_b
//! ```
//!
//! so at most one queue per host moves per tick, and only when the move
//! lowers the busiest core's load; a queue in use alone on its core never
//! moves (idle queues beside it do not count). The queue's running
//! connections are rerouted at once: the same links, another core. The
//! tick runs only while some core holds two or more queues in use, so a
//! run where no two busy queues share a core has no extra event: it is the
//! static run, event for event.
//!
//! Not modelled: *coalescing* (packing queues back onto fewer cores when
//! load falls), which saves power but never raises throughput.

use std::collections::{BTreeMap, BTreeSet};

use hvnet_engine::{ResourceId, TimerId};

use super::{Run, Timer};
use crate::cores::Cores;
use crate::spec::Network;

/// Where each dynamic queue is now.
pub(super) struct Queues {
    /// Endpoint -> its queue's core now, for endpoints with a dynamic queue.
    core_of: BTreeMap<u32, ResourceId>,
    /// The next tick, when one is scheduled.
    tick: Option<TimerId>,
}

impl Queues {
    pub(super) fn new(network: &Network) -> Self {
        let core_of = network
            .endpoints
            .iter()
            .enumerate()
            .filter_map(|(e, endpoint)| match endpoint.receive_cores {
                Cores::Queue(core) if !endpoint.queue_cores.is_empty() => Some((e as u32, core)),
                _ => None,
            })
            .collect();
        Self {
            core_of,
            tick: None,
        }
    }

    /// The core of endpoint `e`'s dynamic queue now; `None` if it has none.
    pub(super) fn core(&self, e: u32) -> Option<ResourceId> {
        self.core_of.get(&e).copied()
    }
}

impl<T: Copy> Run<'_, T> {
    /// The core that receives, at endpoint `e`, the connection with this
    /// RSS hash; with the NIC it arrives on when that NIC's RSS receives it
    /// on a core that other NICs' RSS sets hold too ([`super::sharing`]).
    pub(super) fn receive_core(
        &self,
        e: u32,
        in_nic: Option<u32>,
        hash: u32,
    ) -> Option<(ResourceId, Option<u32>)> {
        let endpoint = &self.network.endpoints[e as usize];
        let nic_rss = in_nic.and_then(|n| self.network.nic_rss.get(n as usize));
        if let Some(core) = self.queues.core(e) {
            return Some((core, None));
        }
        match (&endpoint.receive_cores, nic_rss) {
            // A host's own traffic: the RSS of the NIC it arrives on.
            (Cores::Rss(_), Some(rss @ Cores::Rss(_))) => rss.core(hash).map(|core| {
                let shared = self.rss_sharers.contains(&core);
                (core, in_nic.filter(|_| shared))
            }),
            (cores, _) => cores.core(hash).map(|core| (core, None)),
        }
    }

    /// The core that sends from endpoint `e`: its queue's when the send
    /// cores are the queue.
    pub(super) fn send_core(&self, e: u32, hash: u32) -> Option<ResourceId> {
        let endpoint = &self.network.endpoints[e as usize];
        match self.queues.core(e) {
            Some(core) if endpoint.send_cores == endpoint.receive_cores => Some(core),
            _ => endpoint.send_cores.core(hash),
        }
    }

    /// The dynamic queues in use (a connection of theirs moves data), by core.
    fn in_use(&mut self) -> BTreeMap<ResourceId, Vec<u32>> {
        let keys: Vec<usize> = self.running.keys().collect();
        let mut busy = BTreeSet::new();
        for k in keys {
            let c = &self.connections[k];
            let ends = [c.source, c.target];
            if ends.iter().any(|e| self.queues.core_of.contains_key(e))
                && self.sim.rate(self.running[k].activity) > 0.0
            {
                busy.extend(
                    ends.into_iter()
                        .filter(|e| self.queues.core_of.contains_key(e)),
                );
            }
        }
        let mut on: BTreeMap<ResourceId, Vec<u32>> = BTreeMap::new();
        for e in busy {
            on.entry(self.queues.core_of[&e]).or_default().push(e);
        }
        on
    }

    /// Cycles/s that endpoint `e`'s connections put on its queue now.
    fn queue_cycles(&mut self, e: u32) -> f64 {
        let endpoint = &self.network.endpoints[e as usize];
        let send_follows = endpoint.send_cores == endpoint.receive_cores;
        let keys: Vec<usize> = self.running.keys().collect();
        let mut cycles = 0.0;
        for k in keys {
            let c = &self.connections[k];
            let r = &self.running[k];
            let (send, receive) = self.cycles_per_byte(c, r.out_nic, r.in_nic);
            let mut per_byte = 0.0;
            if c.target == e {
                per_byte += receive;
            }
            if c.source == e && send_follows {
                per_byte += send;
            }
            if per_byte > 0.0 {
                cycles += self.sim.rate(r.activity) * per_byte;
            }
        }
        cycles
    }

    /// One tick of dynamic VMQ: for each host, the heaviest queue of its
    /// busiest shared core moves to its least-loaded core when that lowers
    /// the busiest core's load (see the module header).
    pub(super) fn balance_queues(&mut self) {
        self.queues.tick = None;
        let Some(vmq) = self.network.dynamic_vmq else {
            return;
        };
        let net = self.network;
        // Each host's queues in use, by core.
        let mut hosts: BTreeMap<&[ResourceId], BTreeMap<ResourceId, Vec<u32>>> = BTreeMap::new();
        for (core, queues) in self.in_use() {
            for e in queues {
                let host = hosts
                    .entry(&net.endpoints[e as usize].queue_cores)
                    .or_default();
                host.entry(core).or_default().push(e);
            }
        }
        for (cores, on) in hosts {
            let mut busiest: Option<(f64, ResourceId)> = None;
            for (&core, here) in &on {
                let l = self.load(core);
                if here.len() > 1 && busiest.is_none_or(|(max, _)| l > max) {
                    busiest = Some((l, core));
                }
            }
            let Some((max, from)) = busiest.filter(|&(l, _)| l > vmq.busy) else {
                continue;
            };
            let mut heaviest: Option<(f64, u32)> = None;
            for &e in &on[&from] {
                let w = self.queue_cycles(e);
                if heaviest.is_none_or(|(most, _)| w > most) {
                    heaviest = Some((w, e));
                }
            }
            let Some((cycles, queue)) = heaviest.filter(|&(w, _)| w > 0.0) else {
                continue;
            };
            let mut least: Option<(f64, ResourceId)> = None;
            for &core in cores.iter().filter(|&&c| c != from) {
                let l = self.load(core);
                if least.is_none_or(|(min, _)| l < min) {
                    least = Some((l, core));
                }
            }
            let Some((_, to)) = least else { continue };
            let capacity = self.sim.capacity(to);
            if capacity > 0.0 && (self.sim.usage(to) + cycles) / capacity < max {
                self.move_queue(queue, to);
            }
        }
        self.keep_balancing_queues();
    }

    /// The share of its capacity core `core` does now (infinite when it is down).
    fn load(&mut self, core: ResourceId) -> f64 {
        let capacity = self.sim.capacity(core);
        if capacity > 0.0 {
            self.sim.usage(core) / capacity
        } else {
            f64::INFINITY
        }
    }

    /// Binds endpoint `e`'s queue to `core` and reroutes its running
    /// connections there (their team members stay as they are).
    fn move_queue(&mut self, e: u32, core: ResourceId) {
        self.queues.core_of.insert(e, core);
        let keys: Vec<usize> = self
            .running
            .keys()
            .filter(|&k| self.connections[k].source == e || self.connections[k].target == e)
            .collect();
        for k in keys {
            let r = &self.running[k];
            let (out_nic, in_nic) = (r.out_nic, r.in_nic);
            self.reroute_on(k, out_nic, in_nic);
        }
    }

    /// Schedules the next tick of dynamic VMQ while a core holds two or more
    /// dynamic queues in use.
    pub(super) fn keep_balancing_queues(&mut self) {
        let Some(vmq) = self.network.dynamic_vmq else {
            return;
        };
        if self.queues.tick.is_some() {
            return;
        }
        if self.in_use().values().any(|queues| queues.len() > 1) {
            let at = self.sim.now() + vmq.interval;
            self.queues.tick = Some(self.schedule_timer(at, Timer::QueueTick));
        }
    }

    /// No tick outlives the last connection.
    pub(super) fn stop_balancing_queues(&mut self) {
        if let Some(tick) = self.queues.tick.take() {
            self.sim.cancel_timer(tick);
        }
    }
}
