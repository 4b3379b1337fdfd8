//! Cores that several NICs' RSS queues use at once
//! (`Network::shared_queue_overhead`).
//!
//! A host's own connection received by RSS on core `c` through NIC `n`
//! costs its receive cycles per byte there times
//!
//! ```text
//!     1 + overhead × m,   m = the other NICs through which a running
//!                             connection is received by RSS on c now
//! ```
//!
//! so two NICs whose RSS sets overlap (Windows' default base processor 0)
//! pay for it only while both receive on the same core; an idle NIC's
//! queues cost nothing. A black-holed connection moves nothing and counts
//! for none; an RDMA one (cycles of its own) bypasses the stack's queues and
//! is neither charged nor counted. After every event the run recounts the NICs on each core that
//! two or more NICs' RSS sets hold and re-places each connection whose
//! factor changed ([`Run::refresh_shared_cores`]), so its usage on the
//! engine is always the factor of the moment.

use std::collections::{BTreeMap, BTreeSet};

use hvnet_engine::ResourceId;

use super::Run;
use crate::cores::Cores;
use crate::team::AddressHash;

/// The NICs through which running connections are received by RSS on each
/// shared core.
pub(super) type Receivers = BTreeMap<ResourceId, BTreeSet<u32>>;

impl<T: Copy> Run<'_, T> {
    /// The core on which running connection `k` is received by its NIC's
    /// RSS, with that NIC, when that core is in two or more NICs' RSS sets.
    fn shared_receive(&self, k: usize) -> Option<(ResourceId, u32)> {
        let r = self.running.get(&k)?;
        let c = &self.connections[k];
        let in_nic = r.in_nic?;
        // RDMA (cycles of its own) bypasses the stack and its RSS queues.
        if r.blackholed_since.is_some()
            || c.cycles.is_some()
            || self.queues.core(c.target).is_some()
        {
            return None;
        }
        let endpoint = &self.network.endpoints[c.target as usize];
        match (
            &endpoint.receive_cores,
            self.network.nic_rss.get(in_nic as usize),
        ) {
            (Cores::Rss(_), Some(rss @ Cores::Rss(_))) => {
                let hash = self.flow(c).team_hash(AddressHash::TransportPorts);
                let core = rss.core(hash)?;
                self.rss_sharers
                    .contains_key(&core)
                    .then_some((core, in_nic))
            }
            _ => None,
        }
    }

    /// How many times its cycles per byte a connection received by RSS on
    /// `core` through `in_nic` costs there now.
    pub(super) fn shared_factor(&self, core: ResourceId, in_nic: Option<u32>) -> f64 {
        let others = self.receivers.get(&core).map_or(0, |nics| {
            nics.iter().filter(|&&n| Some(n) != in_nic).count()
        });
        1.0 + self.network.shared_queue_overhead * others as f64
    }

    /// Recounts the NICs receiving on each shared core and re-places the
    /// connections whose factor changed.
    pub(super) fn refresh_shared_cores(&mut self) {
        if self.rss_sharers.is_empty() || self.network.shared_queue_overhead == 0.0 {
            return;
        }
        let mut keys: Vec<usize> = self.running.keys().copied().collect();
        keys.sort_unstable();
        let placed: Vec<(usize, ResourceId, u32)> = (keys.iter())
            .filter_map(|&k| self.shared_receive(k).map(|(core, nic)| (k, core, nic)))
            .collect();
        let mut now = Receivers::new();
        for &(_, core, nic) in &placed {
            now.entry(core).or_default().insert(nic);
        }
        if now == self.receivers {
            return;
        }
        self.receivers = now;
        for (k, core, nic) in placed {
            let r = &self.running[&k];
            if r.receive_factor != self.shared_factor(core, Some(nic)) {
                let (out_nic, in_nic) = (r.out_nic, r.in_nic);
                self.reroute_on(k, out_nic, in_nic);
            }
        }
    }
}
