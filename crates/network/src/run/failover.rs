//! Failures and failover: a change of a resource or a NIC's link, LACP's
//! view of a member that forwards nothing, and the moves of connections to
//! the members the team rules give them after.

use super::{Run, Timer};
use crate::spec::{Change, Network, Uplink};
use crate::team::{LoadBalancing, Team, TeamingMode};

fn nic_works_for(team: &Team, nic: u32, link_up: &[bool], lacpdu_ok: &[bool]) -> bool {
    link_up[nic as usize] && (team.mode != TeamingMode::Lacp || lacpdu_ok[nic as usize])
}

fn cable_dead(network: &Network, nic: u32, resource_up: &[bool]) -> bool {
    let n = network.nics[nic as usize];
    !resource_up[n.send] || !resource_up[n.receive]
}

impl<T: Copy> Run<'_, T> {
    pub(super) fn update_carriers(&mut self) {
        let net = self.network;
        self.carriers = net
            .teams
            .iter()
            .map(|team| team.carriers(|m| nic_works_for(team, m, &self.link_up, &self.lacpdu_ok)))
            .collect();
    }

    /// Moves every running connection to the members the rules give it now.
    pub(super) fn follow_rules(&mut self) {
        let keys: Vec<usize> = self.running.keys().collect();
        for k in keys {
            let c = self.connections[k];
            let members = self.members(&c);
            let r = &self.running[k];
            let (out_nic, in_nic) = match self.network.endpoints[c.source as usize].uplink {
                // Dynamic teams keep the member rebalancing gave, while it carries.
                Uplink::Team(t)
                    if c.pinned.is_none()
                        && self.network.teams[t as usize].balancing == LoadBalancing::Dynamic
                        && r.out_nic
                            .is_some_and(|n| self.carriers[t as usize].contains(&n)) =>
                {
                    (r.out_nic, members.1)
                }
                _ => members,
            };
            self.move_to(k, out_nic, in_nic);
        }
    }

    pub(super) fn apply(&mut self, change: Change) {
        match change {
            Change::Resource { resource, up } => {
                if self.resource_up[resource] != up {
                    self.resource_up[resource] = up;
                    if up {
                        self.resources_down -= 1;
                    } else {
                        self.resources_down += 1;
                    }
                }
                let capacity = if up {
                    self.network.resources[resource].0
                } else {
                    0.0
                };
                self.sim.set_capacity(resource, capacity);
            }
            Change::Link { nic, up } => self.link_up[nic as usize] = up,
        }
        self.watch_lacpdus();
        self.update_carriers();
        self.follow_rules();
        // In connection order (`running::Slots`): a restored connection may
        // be re-routed.
        let keys: Vec<usize> = self.running.keys().collect();
        for k in keys {
            self.update_blackhole(self.sim.now(), k);
        }
    }

    /// LACP: a member whose cable forwards nothing while its link is up
    /// is seen after the LACPDU timeout; a working cable is seen at once.
    /// A timer per silence: it only counts if the cable has stayed dead
    /// since, so a repair in between resets the count.
    fn watch_lacpdus(&mut self) {
        let net = self.network;
        for team in &net.teams {
            if team.mode != TeamingMode::Lacp {
                continue;
            }
            for &m in &team.members {
                let n = m as usize;
                if !cable_dead(net, m, &self.resource_up) {
                    self.lacpdu_ok[n] = true;
                    self.silent_since[n] = None;
                } else if self.link_up[n] && self.lacpdu_ok[n] && self.silent_since[n].is_none() {
                    let now = self.sim.now();
                    self.silent_since[n] = Some(now);
                    self.schedule_timer(now + net.lacp_timeout_of(m), Timer::Lacp(m));
                }
            }
        }
    }

    pub(super) fn lacp_timeout(&mut self, nic: u32) {
        let n = nic as usize;
        let timeout = self.network.lacp_timeout_of(nic);
        let now = self.sim.now();
        let silent_long_enough =
            self.silent_since[n].is_some_and(|since| now - since >= timeout - 1e-9);
        if self.link_up[n] && silent_long_enough {
            self.lacpdu_ok[n] = false;
            self.update_carriers();
            self.follow_rules();
        }
    }
}
