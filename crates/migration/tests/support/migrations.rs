//! The migration every test of this crate's run starts from, and the
//! compression its tests use (included with `#[path]` by `tests/run.rs` and
//! `tests/cores.rs`).

use hvnet_migration::{Compression, GuestMemory, Migration, PrecopyParameters};

pub fn migration(at: f64, memory: f64, dirty_rate: f64) -> Migration {
    Migration {
        source: 0,
        target: 1,
        ports: (49500, 6600),
        channels: vec![],
        compression: None,
        memory: GuestMemory {
            assigned: memory,
            populated: memory,
            dirty_rate,
            working_set: memory,
            device_state: 1.0,
        },
        parameters: PrecopyParameters {
            max_passes: 5,
            stop_bytes: 2.0,
            switchover: 0.1,
            setup: 0.0,
            setup_serial: 0.0,
        },
        prepare_rate: None,
        at,
        after: vec![],
        delay: 0.0,
        through: None,
        hosts: (0, 1),
        simultaneous: (2, 2),
    }
}

/// Compression to 1/2 (data) and 1/100 (zero pages), 1 cycle per byte to
/// compress, decompress or skip a zero page, and a weight of 0.1 on the cores.
pub fn compression() -> Compression {
    Compression {
        ratio: 0.5,
        zero_ratio: 0.01,
        compress_cycles: 1.0,
        decompress_cycles: 1.0,
        zero_cycles: 1.0,
        weight: 0.1,
    }
}
