//! What a run is refused: each spec checked against the network, with a
//! message that says which part is wrong (see the parent module).

use hvnet_engine::{ResourceId, Seconds};

use super::{bad, Change, Connection, Endpoint, Network, Path, SpecError, Uplink};
use crate::cores::Cores;

fn valid(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

impl Cores {
    fn resources(&self) -> &[ResourceId] {
        match self {
            Cores::None => &[],
            Cores::Queue(core) => std::slice::from_ref(core),
            Cores::Rss(cores) | Cores::Spread(cores) => cores,
        }
    }
}

impl Network {
    /// Fails unless `r` is one of its resources.
    pub fn check_resource(&self, r: ResourceId) -> Result<ResourceId, SpecError> {
        if r < self.resources.len() {
            Ok(r)
        } else {
            bad(format!("resource {r} does not exist"))
        }
    }

    /// Fails unless `n` is one of its NICs.
    pub fn check_nic(&self, n: u32) -> Result<u32, SpecError> {
        if (n as usize) < self.nics.len() {
            Ok(n)
        } else {
            bad(format!("NIC {n} does not exist"))
        }
    }

    /// Checks the network alone: resources, NICs, teams, endpoints, paths
    /// and parameters.
    pub fn check(&self) -> Result<(), SpecError> {
        for (r, &(c, _)) in self.resources.iter().enumerate() {
            if !valid(c) {
                return bad(format!(
                    "resource {r}: capacity {c} is not a finite number >= 0"
                ));
            }
        }
        for nic in &self.nics {
            self.check_resource(nic.send)?;
            self.check_resource(nic.receive)?;
        }
        for (i, load) in self.loads.iter().enumerate() {
            load.check(i, self.resources.len())?;
        }
        if !valid(self.shared_queue_overhead) {
            return bad(format!(
                "shared queue overhead {} is not a finite number >= 0",
                self.shared_queue_overhead
            ));
        }
        if !self.nic_rss.is_empty() && self.nic_rss.len() != self.nics.len() {
            return bad(format!(
                "{} NICs but RSS cores for {}: give each NIC its cores, or none",
                self.nics.len(),
                self.nic_rss.len()
            ));
        }
        for &r in self.nic_rss.iter().flat_map(|c| c.resources()) {
            self.check_resource(r)?;
        }
        for team in &self.teams {
            if team.members.is_empty() {
                return bad("a team needs at least one member".into());
            }
            for &m in team.members.iter().chain(team.standby.iter()) {
                self.check_nic(m)?;
            }
        }
        for endpoint in &self.endpoints {
            self.check_endpoint(endpoint)?;
        }
        // A team hashes a flow's two addresses together (`team::Flow::key`),
        // and any two endpoints may be joined by a connection a driver opens
        // while running: one IP version for the whole network.
        if let Some(first) = self.endpoints.first() {
            if let Some(other) = self
                .endpoints
                .iter()
                .find(|e| e.address.is_ipv4() != first.address.is_ipv4())
            {
                return bad(format!(
                    "endpoints {} and {} are of different IP versions; use one for the whole network",
                    first.address, other.address
                ));
            }
        }
        self.check_paths()?;
        self.check_parameters()
    }

    fn check_endpoint(&self, endpoint: &Endpoint) -> Result<(), SpecError> {
        match endpoint.uplink {
            Uplink::Nic(n) => {
                self.check_nic(n)?;
            }
            Uplink::Team(t) if (t as usize) < self.teams.len() => {}
            Uplink::Team(t) => return bad(format!("endpoint uplink \"team\" {t} does not exist")),
        }
        let cores = [
            &endpoint.send_cores,
            &endpoint.receive_cores,
            &endpoint.guest_send_cores,
            &endpoint.guest_receive_cores,
        ];
        for &r in cores
            .iter()
            .flat_map(|c| c.resources())
            .chain(&endpoint.host_cores)
            .chain(&endpoint.queue_cores)
        {
            self.check_resource(r)?;
        }
        if !endpoint.queue_cores.is_empty() && !matches!(endpoint.receive_cores, Cores::Queue(_)) {
            return bad(format!(
                "endpoint {}: only a VM queue (receive cores \"queue\") can be dynamic",
                endpoint.address
            ));
        }
        Ok(())
    }

    fn check_paths(&self) -> Result<(), SpecError> {
        let mut pairs: Vec<&(u32, u32)> = self.paths.keys().collect();
        pairs.sort_unstable();
        for &(a, b) in pairs {
            self.check_path(
                &format!("path from NIC {a} to NIC {b}"),
                a,
                b,
                &self.paths[&(a, b)],
            )?;
        }
        let mut keys: Vec<&(u32, u32, u32)> = self.paths_by_endpoint_mtu.keys().collect();
        keys.sort_unstable();
        for &(a, b, mtu) in keys {
            let path = &self.paths_by_endpoint_mtu[&(a, b, mtu)];
            self.check_path(
                &format!("path from NIC {a} to NIC {b} at MTU {mtu}"),
                a,
                b,
                path,
            )?;
        }
        Ok(())
    }

    fn check_path(&self, name: &str, a: u32, b: u32, path: &Path) -> Result<(), SpecError> {
        self.check_nic(a)?;
        self.check_nic(b)?;
        if path.routing.first().is_none_or(|r| r.from != 0.0) {
            return bad(format!("{name}: its routes must start at 0"));
        }
        for pair in path.routing.windows(2) {
            if !(pair[1].from.is_finite() && pair[1].from > pair[0].from) {
                return bad(format!(
                    "{name}: routes from {} after routes from {}: times must increase",
                    pair[1].from, pair[0].from
                ));
            }
        }
        for routes in &path.routing {
            if routes.ecmp.is_empty() {
                return bad(format!("{name}: no route from {}", routes.from));
            }
            for &(r, coeff) in routes.ecmp.iter().flatten() {
                if !valid(coeff) {
                    return bad(format!(
                        "{name}: coefficient {coeff} is not finite and >= 0"
                    ));
                }
                self.check_resource(r)?;
            }
        }
        let cycles = [
            path.send_cycles_per_byte,
            path.receive_cycles_per_byte,
            path.guest_send_cycles_per_byte,
            path.guest_receive_cycles_per_byte,
        ];
        if !cycles.into_iter().all(valid) {
            return bad(format!("{name}: cycles per byte must be finite and >= 0"));
        }
        Ok(())
    }

    fn check_parameters(&self) -> Result<(), SpecError> {
        if !valid(self.lacp_timeout)
            || !self.nic_lacp_timeouts.iter().all(|&t| valid(t))
            || self
                .rebalance_interval
                .is_some_and(|r| !(r.is_finite() && r > 0.0))
        {
            return bad("lacp_timeout must be >= 0 and rebalance_interval > 0".into());
        }
        if self.dynamic_vmq.is_some_and(|v| {
            !(v.interval.is_finite() && v.interval > 0.0 && v.busy > 0.0 && v.busy <= 1.0)
        }) {
            return bad("dynamic_vmq needs an interval > 0 and a busy share in (0, 1]".into());
        }
        Ok(())
    }

    /// Checks a connection (`i` names it in messages) against the network:
    /// its endpoints, amount and times, and a path for every pair of NICs
    /// it may use.
    pub fn check_connection(&self, i: usize, c: &Connection) -> Result<(), SpecError> {
        if !self.has_endpoint(c.source) || !self.has_endpoint(c.target) {
            return bad(format!("connection {i}: endpoint does not exist"));
        }
        if !(valid(c.amount) && valid(c.start)) {
            return bad(format!(
                "connection {i}: amount {} and start {} must be finite and >= 0",
                c.amount, c.start
            ));
        }
        let (s, t) = (
            &self.endpoints[c.source as usize],
            &self.endpoints[c.target as usize],
        );
        // A pinned connection (an SMB channel, traffic inside one virtual
        // switch) uses its pair alone; any other, each pair the rules may give.
        let pairs: Vec<(u32, u32)> = match c.pinned {
            Some((a, b)) => {
                self.check_nic(a)?;
                self.check_nic(b)?;
                self.pinned_pairs(c.source, c.target, (a, b))
            }
            None => self
                .candidates(s.uplink)
                .into_iter()
                .flat_map(|a| self.candidates(t.uplink).into_iter().map(move |b| (a, b)))
                .collect(),
        };
        for (a, b) in pairs {
            if self.path(a, b, c.endpoint_mtu).is_none() {
                let at = c
                    .endpoint_mtu
                    .map_or(String::new(), |m| format!(" at MTU {m}"));
                return bad(format!(
                    "connection {i}: no path given from NIC {a} to NIC {b}{at}"
                ));
            }
        }
        if c.stop.is_some_and(|t| !valid(t)) {
            return bad(format!("connection {i}: stop must be a time >= 0"));
        }
        if c.bound.is_some_and(|b| !(b.is_finite() && b > 0.0)) {
            return bad(format!(
                "connection {i}: a rate bound must be finite and > 0"
            ));
        }
        Ok(())
    }

    /// Checks a change against the network.
    pub fn check_change(&self, at: Seconds, change: Change) -> Result<(), SpecError> {
        if !valid(at) {
            return bad(format!("change at {at} is not a time >= 0"));
        }
        match change {
            Change::Resource { resource, .. } => self.check_resource(resource).map(|_| ()),
            Change::Link { nic, .. } => self.check_nic(nic).map(|_| ()),
        }
    }
}

/// Checks everything [`Network::run`] is given: the network, each
/// connection and change.
pub fn check(
    network: &Network,
    connections: &[Connection],
    changes: &[(Seconds, Change)],
) -> Result<(), SpecError> {
    network.check()?;
    for (i, c) in connections.iter().enumerate() {
        network.check_connection(i, c)?;
    }
    for &(at, change) in changes {
        network.check_change(at, change)?;
    }
    Ok(())
}
