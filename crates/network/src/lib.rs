//! hvnet's network behaviour, on the engine. It knows nothing of live
//! migration: migration is built on it (crate `hvnet-migration`), through
//! the run's [`Driver`].
//!
//! - [`spec`]: what a run is given ([`Network`], [`Nic`], [`Team`],
//!   [`Endpoint`], [`Path`] and its [`Routes`] over time, [`Connection`],
//!   [`Change`], [`DynamicVmq`]) and
//!   its validation ([`check`], [`SpecError`]).
//! - [`mod@toeplitz`]: the Toeplitz hash and Microsoft's default RSS key.
//! - [`rss`]: the flow key RSS hashes ([`FlowKey`]), [`rss_hash`], and the
//!   [`IndirectionTable`] that turns a hash into a receive queue.
//! - [`team`]: which team member carries a connection, each way.
//! - [`cores`]: which core sends and receives a connection (RSS, VMQ, vRSS).
//! - [`load`]: measured load replayed on a resource as background work.
//! - [`run`]: connections on NICs and teams, with failures, failover,
//!   rebalancing and dynamic VMQ, run on the engine; the [`Run`] a higher
//!   layer drives through a [`Driver`].
//!
//! It knows nothing of files or scenario syntax: callers describe NICs,
//! teams, endpoints and paths by index.
//! Checked against every vector of Microsoft's RSS verification page (see
//! `tests/rss_vectors.rs`).

pub mod cores;
pub mod load;
pub mod rss;
pub mod run;
pub mod spec;
pub mod team;
pub mod toeplitz;

pub use cores::Cores;
pub use load::Load;
pub use rss::{
    rss_hash, FlowKey, IndirectionTable, TableError, MAX_INDIRECTION_TABLE_LEN, RSS_KEY_LEN,
};
pub use run::{ConnectionReport, Driver, Resources, Run, RunReport, Timer};
pub use spec::{
    check, Change, Connection, DynamicVmq, Endpoint, Network, Nic, Path, Route, Routes, SpecError,
    Uplink,
};
pub use team::{AddressHash, Flow, LoadBalancing, SwitchHash, Team, TeamingMode};
pub use toeplitz::{toeplitz, HashError, MICROSOFT_RSS_KEY};
