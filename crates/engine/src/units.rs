//! The engine's units. It works in plain numbers with named meanings; the
//! Python edge parses "10Gbps", "55GiB" and "250ms" into them.
//!
//! An amount of work is bytes for a transfer and cycles for CPU work; a rate
//! is that amount per second. A network resource's capacity is therefore in
//! bytes per second: use [`bytes_per_second`] to convert a link speed.

/// Simulated time, in seconds.
pub type Seconds = f64;
/// Work: bytes for transfers, cycles for CPU work.
pub type Amount = f64;
/// Work per second: bytes/s for links, cycles/s for cores.
pub type Rate = f64;
/// A link speed as people state it, in bits per second.
pub type BitsPerSecond = f64;

/// A link speed in bytes per second.
pub fn bytes_per_second(speed: BitsPerSecond) -> Rate {
    speed / 8.0
}

/// A rate in bytes per second as bits per second.
pub fn bits_per_second(rate: Rate) -> BitsPerSecond {
    rate * 8.0
}
