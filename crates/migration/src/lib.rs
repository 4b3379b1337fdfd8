//! hvnet's live migration, on the engine.
//!
//! - [`precopy`]: the pre-copy state machine of one VM's migration: what to
//!   copy in each pass, when to pause the VM, the blackout and switch-over.
//!
//! Transports (TCP/IP, compression, SMB Multichannel and SMB Direct), the
//! per-host queue of simultaneous migrations, drains and rolling updates
//! build on it (issue 4); they are not here yet.

pub mod precopy;

pub use precopy::{GuestMemory, Pass, Precopy, PrecopyParameters, Step};
