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
//! and is neither charged nor counted. After every event the run recounts
//! the NICs on each core that two or more NICs' RSS sets hold and re-places
//! each connection whose factor changed ([`Run::refresh_shared_cores`]), so
//! its usage on the engine is always the factor of the moment.

use hvnet_engine::ResourceId;

use super::Run;

/// Each shared core with each NIC through which a running connection is
/// received by RSS on it, sorted, without repeats.
pub(super) type Receivers = Vec<(ResourceId, u32)>;

impl<T: Copy> Run<'_, T> {
    /// How many times its cycles per byte a connection received by RSS on
    /// `core` through `in_nic` costs there now.
    pub(super) fn shared_factor(&self, core: ResourceId, in_nic: u32) -> f64 {
        let from = self.receivers.partition_point(|&(c, _)| c < core);
        let others = (self.receivers[from..].iter())
            .take_while(|&&(c, _)| c == core)
            .filter(|&&(_, n)| n != in_nic)
            .count();
        1.0 + self.network.shared_queue_overhead * others as f64
    }

    /// Recounts the NICs receiving on each shared core and re-places the
    /// connections whose factor changed.
    pub(super) fn refresh_shared_cores(&mut self) {
        if self.rss_sharers.is_empty() || self.network.shared_queue_overhead == 0.0 {
            return;
        }
        let mut now = std::mem::take(&mut self.receivers_scratch);
        now.clear();
        now.extend(
            self.running
                .values()
                .filter_map(|r| match r.blackholed_since {
                    None => r.shared_on,
                    Some(_) => None,
                }),
        );
        now.sort_unstable();
        now.dedup();
        if now == self.receivers {
            self.receivers_scratch = now;
            return;
        }
        self.receivers_scratch = std::mem::replace(&mut self.receivers, now);
        let mut moved: Vec<usize> = (self.running.iter())
            .filter(|(_, r)| {
                r.shared_on
                    .is_some_and(|(core, nic)| r.receive_factor != self.shared_factor(core, nic))
            })
            .map(|(&k, _)| k)
            .collect();
        moved.sort_unstable();
        for k in moved {
            let (out_nic, in_nic) = (self.running[&k].out_nic, self.running[&k].in_nic);
            self.reroute_on(k, out_nic, in_nic);
        }
    }
}
