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
//! for none; an RDMA one (cycles of its own) bypasses the stack's queues
//! and is neither charged nor counted.
//!
//! Only cores that two or more NICs' RSS sets hold can be shared (none
//! when the overhead is 0). The run counts, for each such core and NIC,
//! the connections received there now: each start, end, move, black-hole
//! and restore adds or takes one ([`Run::count_receiver`]). When a NIC
//! appears on or leaves a core where another NIC receives, the factor of
//! that core's other connections changes: after the event the run re-places
//! them ([`Run::refresh_shared_cores`]), so each connection's usage on the
//! engine is always the factor of the moment. A NIC alone on its core costs
//! a lookup, not a scan.

use std::collections::BTreeMap;

use hvnet_engine::ResourceId;

use super::Run;

/// For each shared core and NIC, how many running connections that NIC
/// receives by RSS on it now (never 0: a pair with none is removed).
pub(super) type Receivers = BTreeMap<(ResourceId, u32), u32>;

impl<T: Copy> Run<'_, T> {
    /// The NICs receiving on `core` now.
    fn nics_on(&self, core: ResourceId) -> impl Iterator<Item = u32> + '_ {
        (self.receivers.range((core, 0)..=(core, u32::MAX))).map(|(&(_, nic), _)| nic)
    }

    /// How many times its cycles per byte a connection received by RSS on
    /// `core` through `in_nic` costs there now.
    pub(super) fn shared_factor(&self, core: ResourceId, in_nic: u32) -> f64 {
        let others = self.nics_on(core).filter(|&n| n != in_nic).count();
        1.0 + self.network.shared_queue_overhead * others as f64
    }

    /// One connection received by RSS on a shared core (`on`: the core and
    /// NIC; `None`: not on one) starts to count there, or stops.
    pub(super) fn count_receiver(&mut self, on: Option<(ResourceId, u32)>, arrives: bool) {
        let Some(key) = on else {
            return;
        };
        let count = self.receivers.entry(key).or_insert(0);
        if arrives {
            *count += 1;
        } else {
            *count -= 1;
        }
        match (*count, arrives) {
            (0, _) => {
                self.receivers.remove(&key);
                self.receivers_changed.push(key);
            }
            (1, true) => self.receivers_changed.push(key),
            _ => {}
        }
    }

    /// After an event: re-places the connections whose factor changed,
    /// those on a core that a NIC joined or left while another NIC
    /// receives there.
    pub(super) fn refresh_shared_cores(&mut self) {
        if self.receivers_changed.is_empty() {
            return;
        }
        let mut cores: Vec<ResourceId> = std::mem::take(&mut self.receivers_changed)
            .into_iter()
            .filter(|&(core, nic)| self.nics_on(core).any(|n| n != nic))
            .map(|(core, _)| core)
            .collect();
        if cores.is_empty() {
            return;
        }
        cores.sort_unstable();
        cores.dedup();
        let moved: Vec<usize> = (self.running.iter())
            .filter(|(_, r)| {
                r.shared_on.is_some_and(|(core, nic)| {
                    cores.binary_search(&core).is_ok()
                        && r.receive_factor != self.shared_factor(core, nic)
                })
            })
            .map(|(k, _)| k)
            .collect();
        for k in moved {
            let (out_nic, in_nic) = (self.running[k].out_nic, self.running[k].in_nic);
            self.reroute_on(k, out_nic, in_nic);
        }
    }
}
