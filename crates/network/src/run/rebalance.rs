//! Dynamic teams' rebalancing: every `rebalance_interval`, each dynamic
//! team's outbound connections are spread again over its carriers; the
//! periodic ticks run only while some connection moves data.

use super::{Run, Timer};
use crate::spec::Uplink;
use crate::team::LoadBalancing;

impl<T: Copy> Run<'_, T> {
    /// Spreads each dynamic team's outbound connections again: largest rate
    /// first, each onto the carrier with the least outbound rate so far
    /// (connections bound to a NIC pair stay where they are).
    pub(super) fn rebalance(&mut self) {
        self.tick = None;
        let net = self.network;
        for (t, team) in net.teams.iter().enumerate() {
            if team.balancing != LoadBalancing::Dynamic || self.carriers[t].is_empty() {
                continue;
            }
            let mut leaving: Vec<(f64, usize)> = Vec::new();
            for (k, r) in self.running.iter() {
                let c = &self.connections[k];
                if c.pinned.is_none()
                    && net.endpoints[c.source as usize].uplink == Uplink::Team(t as u32)
                {
                    leaving.push((self.sim.rate(r.activity), k));
                }
            }
            leaving.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut load: Vec<(f64, u32)> = self.carriers[t].iter().map(|&m| (0.0, m)).collect();
            for (rate, k) in leaving {
                // Not empty: the team has a carrier.
                let Some(least) = load.iter_mut().min_by(|a, b| a.0.total_cmp(&b.0)) else {
                    break;
                };
                least.0 += rate;
                let (member, in_nic) = (least.1, self.running[k].in_nic);
                self.move_to(k, Some(member), in_nic);
            }
        }
        self.keep_rebalancing();
    }

    /// Schedules the next rebalancing tick while a dynamic team has a
    /// connection that moves data (a stalled run must be able to end).
    pub(super) fn keep_rebalancing(&mut self) {
        let Some(interval) = self.network.rebalance_interval else {
            return;
        };
        if self.tick.is_some()
            || !self
                .network
                .teams
                .iter()
                .any(|t| t.balancing == LoadBalancing::Dynamic)
        {
            return;
        }
        let mut moving = false;
        for r in self.running.values() {
            if self.sim.rate(r.activity) > 0.0 {
                moving = true;
                break;
            }
        }
        if moving {
            let at = self.sim.now() + interval;
            self.tick = Some(self.schedule_timer(at, Timer::Rebalance));
        }
    }

    /// No tick outlives the last connection: the run ends with its last real
    /// event (`busy`: a driver still has work under way or waiting).
    pub(super) fn stop_ticks_when_idle(&mut self, busy: bool) {
        if self.running.is_empty() && !busy {
            if let Some(tick) = self.tick.take() {
                self.sim.cancel_timer(tick);
            }
            self.stop_balancing_queues();
        }
    }
}
