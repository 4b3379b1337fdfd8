//! Which core does a connection's work: RSS, VMQ and vRSS.
//!
//! - **RSS** (a host's own traffic): the connection's Toeplitz hash indexes a
//!   128-entry indirection table that spreads the NIC's RSS queues round
//!   robin; each queue is one core of the NIC's RSS processor set. One TCP
//!   connection is therefore received on one core.
//! - **VMQ** (a VM's traffic, no vRSS): every connection of the VM is
//!   processed on the one core its queue is bound to.
//! - **vRSS** (a VM with 2+ vCPUs on a VMQ NIC): the VM's connections are
//!   spread by hash over a set of cores (as many as its vCPUs).
//!
//! The caller states each endpoint's sets; which cores they contain is a
//! model choice made there (see docs/model.md).

use hvnet_engine::ResourceId;

use crate::rss::IndirectionTable;

/// How an endpoint's connections are spread over cores.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Cores {
    /// CPU is not modelled for this endpoint.
    #[default]
    None,
    /// RSS over these cores (the NIC's RSS processor set, one per queue).
    Rss(Vec<ResourceId>),
    /// One queue on one core.
    Queue(ResourceId),
    /// vRSS: spread by hash over these cores.
    Spread(Vec<ResourceId>),
}

/// Entries in the indirection table (Windows' maximum).
const TABLE_LEN: usize = 128;

impl Cores {
    /// The core that does the work of the connection with this RSS hash.
    pub fn core(&self, hash: u32) -> Option<ResourceId> {
        match (self, self.queue(hash)) {
            (Cores::Queue(core), _) => Some(*core),
            (Cores::Rss(cores) | Cores::Spread(cores), Some(q)) => Some(cores[q]),
            _ => None,
        }
    }

    /// Which of its queues (a position in its set) the connection with this
    /// RSS hash lands on; `None` when CPU is not modelled.
    pub fn queue(&self, hash: u32) -> Option<usize> {
        match self {
            Cores::None => None,
            Cores::Queue(_) => Some(0),
            Cores::Rss(cores) if !cores.is_empty() => {
                let queues = u16::try_from(cores.len()).expect("at most 64 RSS queues");
                let table =
                    IndirectionTable::round_robin(TABLE_LEN, queues).expect("a valid table");
                Some(table.queue(hash) as usize)
            }
            Cores::Spread(cores) if !cores.is_empty() => Some(hash as usize % cores.len()),
            _ => None,
        }
    }

    /// How many queues (cores) it spreads connections over.
    pub fn queues(&self) -> usize {
        match self {
            Cores::None => 0,
            Cores::Queue(_) => 1,
            Cores::Rss(cores) | Cores::Spread(cores) => cores.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rss_spreads_hashes_evenly_over_its_queues_cores() {
        // 4 queues on cores 10..13: 1024 consecutive hashes land 256 on each.
        let cores = Cores::Rss(vec![10, 11, 12, 13]);
        let mut count = [0; 4];
        for h in 0..1024u32 {
            count[cores.core(h).unwrap() - 10] += 1;
        }
        assert_eq!(count, [256; 4]);
    }

    #[test]
    fn a_vm_queue_puts_every_connection_on_one_core() {
        let cores = Cores::Queue(7);
        assert!((0..100u32).all(|h| cores.core(h.wrapping_mul(2654435761)) == Some(7)));
    }

    #[test]
    fn no_cpu_model_means_no_core() {
        assert_eq!(Cores::None.core(1), None);
        assert_eq!(Cores::Rss(vec![]).core(1), None);
    }
}
