//! A connection's life on the run: it starts on the members the rules give
//! it, moves, is black-holed while its path is down, and completes, stops
//! or is closed; the CPU it costs is counted over each stretch of its route.

use hvnet_engine::{ActivitySpec, ActivityState, Seconds};

use super::{Run, Running};

impl<T: Copy> Run<'_, T> {
    pub(super) fn start(&mut self, k: usize) {
        let c = self.connections[k];
        let (out_nic, in_nic) = self.members(&c);
        let usage = self.usage(k, out_nic, in_nic);
        let activity = self.sim.start(&ActivitySpec {
            weight: c.weight,
            bound: c.bound,
            ..ActivitySpec::new(c.amount, usage.resources)
        });
        self.reports[k]
            .members
            .push((self.sim.now(), out_nic, in_nic));
        self.of_activity.insert(activity.0 as usize, k);
        self.count_receiver(usage.shared_on, true);
        self.running.insert(
            k,
            Running {
                activity,
                out_nic,
                in_nic,
                blackholed_since: None,
                route: usage.route,
                segment_from: c.amount,
                send_core_s_per_byte: usage.send_core_s_per_byte,
                receive_core_s_per_byte: usage.receive_core_s_per_byte,
                receive_factor: usage.receive_factor,
                shared_on: usage.shared_on,
            },
        );
        self.update_blackhole(self.sim.now(), k);
    }

    pub(super) fn move_to(&mut self, k: usize, out_nic: Option<u32>, in_nic: Option<u32>) {
        let r = &self.running[k];
        if (r.out_nic, r.in_nic) == (out_nic, in_nic) {
            return;
        }
        self.reroute_on(k, out_nic, in_nic);
        if let Some(r) = self.running.get_mut(k) {
            r.out_nic = out_nic;
            r.in_nic = in_nic;
        }
        self.reports[k]
            .members
            .push((self.sim.now(), out_nic, in_nic));
        self.update_blackhole(self.sim.now(), k);
    }

    /// Gives running connection `k` the usage of a NIC pair now (its cores
    /// as they are now), counting the CPU of the stretch that ends.
    pub(super) fn reroute_on(&mut self, k: usize, out_nic: Option<u32>, in_nic: Option<u32>) {
        self.account(k);
        let activity = self.running[k].activity;
        if self.sim.state(activity) != ActivityState::Running {
            // It had no work left and completed in this batch (a connection of 0
            // bytes started at a rebalancing tick): its completion comes next.
            return;
        }
        let usage = self.usage(k, out_nic, in_nic);
        self.sim.reroute(activity, usage.resources);
        let left = self.sim.remaining(activity);
        let r = &self.running[k];
        if r.blackholed_since.is_none() && r.shared_on != usage.shared_on {
            let before = r.shared_on;
            self.count_receiver(before, false);
            self.count_receiver(usage.shared_on, true);
        }
        if let Some(r) = self.running.get_mut(k) {
            r.segment_from = left;
            r.send_core_s_per_byte = usage.send_core_s_per_byte;
            r.receive_core_s_per_byte = usage.receive_core_s_per_byte;
            r.receive_factor = usage.receive_factor;
            r.shared_on = usage.shared_on;
            r.route = usage.route;
        }
    }

    /// Adds the CPU of running connection `k` since its route was last set.
    pub(super) fn account(&mut self, k: usize) {
        let Some(r) = self.running.get_mut(k) else {
            return;
        };
        let left = self.sim.remaining(r.activity);
        let moved = r.segment_from - left;
        r.segment_from = left;
        let report = &mut self.reports[k];
        report.send_core_s += moved * r.send_core_s_per_byte;
        report.receive_core_s += moved * r.receive_core_s_per_byte;
    }

    fn path_down(&self, k: usize) -> bool {
        let r = &self.running[k];
        if r.out_nic.is_none() || r.in_nic.is_none() {
            return true;
        }
        if self.resources_down == 0 {
            return false;
        }
        (self.current_route(k))
            .is_some_and(|links| links.iter().any(|&(res, _)| !self.resource_up[res]))
    }

    pub(super) fn update_blackhole(&mut self, now: Seconds, k: usize) {
        let down = self.path_down(k);
        let Some(r) = self.running.get_mut(k) else {
            return;
        };
        let receives = match (r.blackholed_since, down) {
            (None, true) => {
                r.blackholed_since = Some(now);
                false
            }
            (Some(since), false) => {
                self.reports[k].blackholed += now - since;
                if now > since {
                    self.reports[k].blackholes.push((since, now));
                }
                r.blackholed_since = None;
                true
            }
            _ => return,
        };
        let (on, factor, out_nic, in_nic) = (r.shared_on, r.receive_factor, r.out_nic, r.in_nic);
        self.count_receiver(on, receives);
        // Restored: while black-holed it was not counted, nor re-placed with
        // its core's other connections, so its factor may be of the past.
        if let Some((core, nic)) = on.filter(|_| receives) {
            if factor != self.shared_factor(core, nic) {
                self.reroute_on(k, out_nic, in_nic);
            }
        }
    }

    /// Connection `k`, whose activity completed, moved its whole amount.
    pub(super) fn completed(&mut self, k: usize) {
        self.update_blackhole(self.sim.now(), k);
        self.account(k);
        if let Some(r) = self.running.remove(k) {
            self.count_receiver(r.shared_on.filter(|_| r.blackholed_since.is_none()), false);
        }
        self.reports[k].end = Some(self.sim.now());
        self.reports[k].sent = self.connections[k].amount;
    }

    /// Ends running connection `k` now: what it moved so far is what it
    /// sent. Returns it, `None` if it was not running.
    pub(super) fn end(&mut self, k: usize) -> Option<Running> {
        self.account(k);
        let r = self.running.remove(k)?;
        self.count_receiver(r.shared_on.filter(|_| r.blackholed_since.is_none()), false);
        self.of_activity.remove(r.activity.0 as usize);
        self.reports[k].sent = self.connections[k].amount - self.sim.remaining(r.activity);
        self.reports[k].end = Some(self.sim.now());
        self.sim.cancel(r.activity);
        Some(r)
    }

    /// The sender of connection `k` stops (its `stop` time): it ends, with
    /// the time it was black-holed so far; `busy`: whether a driver has
    /// work under way (the periodic ticks then go on).
    pub(super) fn stop(&mut self, k: usize, busy: bool) {
        let Some(r) = self.end(k) else {
            return;
        };
        if let Some(since) = r.blackholed_since {
            self.reports[k].blackholed += self.sim.now() - since;
            if self.sim.now() > since {
                self.reports[k].blackholes.push((since, self.sim.now()));
            }
        }
        self.stop_ticks_when_idle(busy);
    }
}
