//! The fabric's routing over time: when the routes between two NICs change
//! (the caller's [`crate::Routes`], each from the time its routing
//! converged), every running connection takes the route its ECMP hash picks
//! among those in force now, and moves if that is another one (reported
//! as a reroute when the new route carries it).

use hvnet_engine::{ResourceId, Seconds};

use super::Run;
use crate::spec::{Network, Route};

/// Every time after 0 at which some path's routes change, in order, once each.
pub(super) fn change_times(network: &Network) -> Vec<Seconds> {
    let mut times: Vec<Seconds> = (network.paths.values())
        .chain(network.paths_by_endpoint_mtu.values())
        .flat_map(|p| p.changes())
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
}

impl<T: Copy> Run<'_, T> {
    /// The route running connection `k` is on now, as given; `None` when its
    /// NIC pair has no path (`check` refuses a connection without one).
    pub(super) fn current_route(&self, k: usize) -> Option<&Route> {
        let r = &self.running[k];
        let c = &self.connections[k];
        let fallback = self.fallback(c);
        let (a, b) = (
            r.out_nic.unwrap_or(fallback.0),
            r.in_nic.unwrap_or(fallback.1),
        );
        let path = self.network.path(a, b, c.endpoint_mtu)?;
        let (epoch, choice) = r.route;
        path.routing.get(epoch)?.ecmp.get(choice)
    }

    /// The resources down on running connection `k`'s route now.
    pub(super) fn down_on_route(&self, k: usize) -> Vec<ResourceId> {
        if self.running.get(k).is_none() {
            return Vec::new();
        }
        (self.current_route(k).into_iter().flatten())
            .map(|&(r, _)| r)
            .filter(|&r| !self.resource_up[r])
            .collect()
    }

    /// Whether running connection `k`'s route has a resource down now.
    fn down_on_route_now(&self, k: usize) -> bool {
        self.current_route(k)
            .is_some_and(|links| links.iter().any(|&(r, _)| !self.resource_up[r]))
    }

    /// A routing change: each running connection whose ECMP pick is now
    /// another route moves to it (in connection order).
    pub(super) fn follow_routes(&mut self) {
        let now = self.sim.now();
        let keys: Vec<usize> = self.running.keys().collect();
        for k in keys {
            let (out_nic, in_nic) = (self.running[k].out_nic, self.running[k].in_nic);
            let route = self.route_now(k, out_nic, in_nic);
            if self.running[k].route == route {
                continue;
            }
            let before = self.current_route(k).cloned();
            if let Some(r) = self.running.get_mut(k) {
                r.route = route;
            }
            if self.current_route(k).cloned() == before {
                continue; // the same links under the new routes
            }
            self.reroute_on(k, out_nic, in_nic);
            if !self.down_on_route_now(k) {
                self.reports[k].rerouted.push(now); // moved onto a route that carries it
            }
        }
        let keys: Vec<usize> = self.running.keys().collect();
        for k in keys {
            self.update_blackhole(now, k);
        }
    }
}
