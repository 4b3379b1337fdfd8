//! hvnet's network behaviour, on the engine.
//!
//! - [`mod@toeplitz`]: the Toeplitz hash and Microsoft's default RSS key.
//! - [`rss`]: the flow key RSS hashes ([`FlowKey`]), [`rss_hash`], and the
//!   [`IndirectionTable`] that turns a hash into a receive queue.
//! - [`team`]: which team member carries a connection, each way.
//! - [`cores`]: which core sends and receives a connection (RSS, VMQ, vRSS).
//! - [`run`]: connections on NICs and teams, with failures, failover and
//!   rebalancing, dynamic VMQ, and live migrations (pre-copy over TCP), run on the engine.
//!
//! It knows nothing of files or scenario syntax: callers describe NICs,
//! teams, endpoints and paths by index.
//! Checked against every vector of Microsoft's RSS verification page (see
//! `tests/rss_vectors.rs`).

pub mod cores;
pub mod rss;
pub mod run;
pub mod team;
pub mod toeplitz;

pub use cores::Cores;
pub use rss::{
    rss_hash, FlowKey, IndirectionTable, TableError, MAX_INDIRECTION_TABLE_LEN, RSS_KEY_LEN,
};
pub use run::{
    Change, Channel, Compression, Connection, ConnectionReport, DynamicVmq, Endpoint, Guest,
    Migration, MigrationReport, Network, Nic, Path, RunReport, Uplink,
};
pub use team::{AddressHash, Flow, LoadBalancing, SwitchHash, Team, TeamingMode};
pub use toeplitz::{toeplitz, HashError, MICROSOFT_RSS_KEY};
