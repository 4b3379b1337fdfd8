//! hvnet's live migration, built on the network's run (`hvnet-network`)
//! and the engine. The network knows nothing of migration: this crate
//! drives its run ([`hvnet_network::Driver`]).
//!
//! - [`precopy`]: the pre-copy state machine of one VM's migration: what to
//!   copy in each pass, when to pause the VM, the blackout and switch-over.
//! - [`spec`]: what a run of migrations is given ([`Migration`], its
//!   [`Channel`]s and [`Compression`], the busy VMs' [`Guest`] load) and its
//!   validation ([`check`]).
//! - [`transport`]: how a step moves its bytes: TCP/IP, compression, SMB
//!   channels.
//! - [`run`]: the per-host queue of simultaneous migrations, the `after` and
//!   delay waits, and [`run_with_migrations`], which runs a network with
//!   migrations and guests.
//! - [`guests`]: the guests' own CPU load on their hosts' cores and vCPUs,
//!   which moves with their migration.

pub mod guests;
pub mod precopy;
pub mod run;
pub mod spec;
pub mod transport;

pub use precopy::{GuestMemory, Pass, Precopy, PrecopyParameters, Step};
pub use run::{run_with_migrations, MigrationReport, MigrationTimer, RunReport};
pub use spec::{check, Channel, Compression, Guest, Migration};
