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

use hvnet_engine::{ResourceId, Seconds, Simulation, TimerId};

use super::{State, REBALANCE};
use crate::cores::Cores;

/// Dynamic VMQ's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicVmq {
    /// How often queues are spread again.
    pub interval: Seconds,
    /// Share of its capacity above which a core sheds a queue (0..1].
    pub busy: f64,
}

/// The tag of dynamic VMQ's tick (a rebalancing tick of its own).
pub(super) const QUEUE_TICK: u64 = REBALANCE | 1;

/// Where each dynamic queue is now.
pub(super) struct Queues {
    /// Endpoint -> its queue's core now, for endpoints with a dynamic queue.
    core_of: BTreeMap<u32, ResourceId>,
    /// The next tick, when one is scheduled.
    tick: Option<TimerId>,
}

impl Queues {
    pub(super) fn new(network: &super::Network) -> Self {
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

impl State<'_> {
    /// The core that receives, at endpoint `e`, the connection with this RSS hash.
    pub(super) fn receive_core(&self, e: u32, hash: u32) -> Option<ResourceId> {
        self.queues
            .core(e)
            .or_else(|| self.network.endpoints[e as usize].receive_cores.core(hash))
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
    fn in_use(&self, sim: &mut Simulation) -> BTreeMap<ResourceId, Vec<u32>> {
        let mut keys: Vec<usize> = self.running.keys().copied().collect();
        keys.sort_unstable();
        let mut busy = BTreeSet::new();
        for k in keys {
            let c = &self.connections[k];
            let ends = [c.source, c.target];
            if ends.iter().any(|e| self.queues.core_of.contains_key(e))
                && sim.rate(self.running[&k].activity) > 0.0
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
    fn queue_cycles(&self, sim: &mut Simulation, e: u32) -> f64 {
        let endpoint = &self.network.endpoints[e as usize];
        let send_follows = endpoint.send_cores == endpoint.receive_cores;
        let mut keys: Vec<usize> = self.running.keys().copied().collect();
        keys.sort_unstable();
        let mut cycles = 0.0;
        for k in keys {
            let c = &self.connections[k];
            let r = &self.running[&k];
            let (send, receive) = self.cycles_per_byte(c, r.out_nic, r.in_nic);
            let mut per_byte = 0.0;
            if c.target == e {
                per_byte += receive;
            }
            if c.source == e && send_follows {
                per_byte += send;
            }
            if per_byte > 0.0 {
                cycles += sim.rate(r.activity) * per_byte;
            }
        }
        cycles
    }

    /// One tick of dynamic VMQ: for each host, the heaviest queue of its
    /// busiest shared core moves to its least-loaded core when that lowers
    /// the busiest core's load (see the module header).
    pub(super) fn balance_queues(&mut self, sim: &mut Simulation) {
        self.queues.tick = None;
        let Some(vmq) = self.network.dynamic_vmq else {
            return;
        };
        let net = self.network;
        let load = |sim: &mut Simulation, core: ResourceId| {
            let capacity = sim.capacity(core);
            if capacity > 0.0 {
                sim.usage(core) / capacity
            } else {
                f64::INFINITY
            }
        };
        // Each host's queues in use, by core.
        let mut hosts: BTreeMap<&[ResourceId], BTreeMap<ResourceId, Vec<u32>>> = BTreeMap::new();
        for (core, queues) in self.in_use(sim) {
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
                let l = load(sim, core);
                if here.len() > 1 && busiest.is_none_or(|(max, _)| l > max) {
                    busiest = Some((l, core));
                }
            }
            let Some((max, from)) = busiest.filter(|&(l, _)| l > vmq.busy) else {
                continue;
            };
            let mut heaviest: Option<(f64, u32)> = None;
            for &e in &on[&from] {
                let w = self.queue_cycles(sim, e);
                if heaviest.is_none_or(|(most, _)| w > most) {
                    heaviest = Some((w, e));
                }
            }
            let Some((cycles, queue)) = heaviest.filter(|&(w, _)| w > 0.0) else {
                continue;
            };
            let mut least: Option<(f64, ResourceId)> = None;
            for &core in cores.iter().filter(|&&c| c != from) {
                let l = load(sim, core);
                if least.is_none_or(|(min, _)| l < min) {
                    least = Some((l, core));
                }
            }
            let Some((_, to)) = least else { continue };
            let capacity = sim.capacity(to);
            if capacity > 0.0 && (sim.usage(to) + cycles) / capacity < max {
                self.move_queue(sim, queue, to);
            }
        }
        self.keep_balancing_queues(sim);
    }

    /// Binds endpoint `e`'s queue to `core` and reroutes its running
    /// connections there (their team members stay as they are).
    fn move_queue(&mut self, sim: &mut Simulation, e: u32, core: ResourceId) {
        self.queues.core_of.insert(e, core);
        let mut keys: Vec<usize> = self
            .running
            .keys()
            .copied()
            .filter(|&k| self.connections[k].source == e || self.connections[k].target == e)
            .collect();
        keys.sort_unstable();
        for k in keys {
            let r = &self.running[&k];
            let usage = self.usage(k, r.out_nic, r.in_nic);
            sim.reroute(r.activity, usage);
        }
    }

    /// Schedules the next tick of dynamic VMQ while a core holds two or more
    /// dynamic queues in use.
    pub(super) fn keep_balancing_queues(&mut self, sim: &mut Simulation) {
        let Some(vmq) = self.network.dynamic_vmq else {
            return;
        };
        if self.queues.tick.is_some() {
            return;
        }
        if self.in_use(sim).values().any(|queues| queues.len() > 1) {
            self.queues.tick = Some(sim.schedule(sim.now() + vmq.interval, QUEUE_TICK));
        }
    }

    /// No tick outlives the last connection.
    pub(super) fn stop_balancing_queues(&mut self, sim: &mut Simulation) {
        if let Some(tick) = self.queues.tick.take() {
            sim.cancel_timer(tick);
        }
    }
}
