//! The engine's units. It works in plain numbers with named meanings; the
//! Python edge parses "10Gbps", "55GiB" and "250ms" into them and converts
//! link speeds to bytes per second (`hvnet.units.bytes_per_s`), the one place
//! a rate changes unit.
//!
//! An amount of work is bytes for a transfer and cycles for CPU work; a rate
//! is that amount per second. A network resource's capacity is therefore in
//! bytes per second.

/// Simulated time, in seconds.
pub type Seconds = f64;
/// Work: bytes for transfers, cycles for CPU work.
pub type Amount = f64;
/// Work per second: bytes/s for links, cycles/s for cores.
pub type Rate = f64;
