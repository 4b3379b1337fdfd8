//! Packet-level primitives of hvnet's network model.
//!
//! - [`mod@toeplitz`]: the Toeplitz hash and Microsoft's default RSS key.
//! - [`rss`]: the flow key RSS hashes ([`FlowKey`]), [`rss_hash`], and the
//!   [`IndirectionTable`] that turns a hash into a receive queue.
//!
//! NIC teaming's address-hash modes use the same hash to pick a team member.
//! Checked against every vector of Microsoft's RSS verification page (see
//! `tests/rss_vectors.rs`).

pub mod rss;
pub mod toeplitz;

pub use rss::{
    rss_hash, FlowKey, IndirectionTable, TableError, MAX_INDIRECTION_TABLE_LEN, RSS_KEY_LEN,
};
pub use toeplitz::{toeplitz, HashError, MICROSOFT_RSS_KEY};
