//! hvnet's engine: a deterministic discrete-event, flow-level simulator.
//!
//! Activities (byte transfers, CPU work) consume resources (link directions,
//! cores) with per-resource coefficients; their rates are the weighted
//! max-min fair allocation ([`lmm`]), recomputed at each event ([`sim`]).
//! The engine knows nothing of files, YAML or Hyper-V (no NICs, no VMs, no
//! PyO3): callers build resources and activities, and react to events. A
//! timer carries a plain `u64` tag; the network's run keeps the typed timer
//! each tag stands for (`hvnet_network::Timer`).

mod levels;
pub mod lmm;
mod pieces;
mod progress;
pub mod record;
pub mod sim;
pub mod units;
pub mod workload;

pub use lmm::{Sharing, SolveStats};
pub use record::{ChangePoints, Recorder};
pub use sim::{ActivityId, ActivitySpec, ActivityState, Event, ResourceId, Simulation, TimerId};
pub use units::{Amount, Rate, Seconds};
pub use workload::{CapacityChange, Transfer, Workload, WorkloadResult};
