//! Pre-copy on a link of constant rate: each case states the VM and the
//! passes, blackout and end worked out by hand.

use hvnet_migration::{GuestMemory, Precopy, PrecopyParameters, Step};

const GB: f64 = 1e9;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// Runs a migration over a link of `rate` bytes/s, one step after another.
fn migrate(memory: GuestMemory, parameters: PrecopyParameters, rate: f64) -> Precopy {
    let mut m = Precopy::new(memory, parameters);
    let mut now = 0.0;
    let mut step = m.start(now);
    loop {
        now += match step {
            Step::Copy { bytes, .. } | Step::Blackout { bytes } => bytes / rate,
            Step::Setup { seconds } | Step::Switchover { seconds } => seconds,
            Step::Done => return m,
        };
        step = m.step_ended(now);
    }
}

fn vm(dirty_rate: f64, working_set: f64) -> GuestMemory {
    GuestMemory {
        assigned: 8.0 * GB,
        populated: 6.0 * GB,
        dirty_rate,
        working_set,
        device_state: 0.01 * GB,
    }
}

#[test]
fn an_idle_vm_moves_in_one_pass_and_its_blackout_copies_only_device_state() {
    // 8 GB at 1 GB/s: 8 s; nothing dirtied; blackout 0.01 s + 0.1 s switch-over.
    let m = migrate(vm(0.0, 0.0), PrecopyParameters::default(), GB);
    assert_eq!(m.passes().len(), 1);
    assert!(close(m.passes()[0].end, 8.0));
    assert!(close(m.blackout().unwrap(), 0.11));
    assert!(close(m.end().unwrap(), 8.11));
}

#[test]
fn each_pass_copies_what_the_last_one_let_the_guest_dirty() {
    // Dirtying 100 MB/s over a 1 GB/s link: pass 1 (8 GB) takes 8 s and leaves
    // 0.8 GB; pass 2 takes 0.8 s and leaves 80 MB; pass 3 takes 0.08 s and
    // leaves 8 MB, below the 64 MiB stop: the blackout copies 8 MB + 10 MB.
    let m = migrate(vm(0.1 * GB, 4.0 * GB), PrecopyParameters::default(), GB);
    let bytes: Vec<f64> = m.passes().iter().map(|p| p.bytes).collect();
    assert_eq!(bytes.len(), 3);
    assert!(close(bytes[1], 0.8 * GB) && close(bytes[2], 0.08 * GB));
    assert!(close(m.blackout().unwrap(), 0.018 + 0.1));
}

#[test]
fn a_guest_that_dirties_faster_than_the_link_stops_after_the_pass_limit() {
    // Dirtying 2 GB/s over 1 GB/s never converges: 5 passes, then the VM
    // pauses with a whole working set (1 GB) left: blackout 1.01 s + 0.1 s.
    let m = migrate(vm(2.0 * GB, 1.0 * GB), PrecopyParameters::default(), GB);
    assert_eq!(m.passes().len(), 5);
    assert!(close(m.blackout().unwrap(), 1.01 + 0.1));
}

#[test]
fn the_working_set_caps_what_a_pass_leaves() {
    // 1 GB/s of dirtying over 8 s would be 8 GB, but only 0.5 GB is ever written.
    let m = migrate(vm(1.0 * GB, 0.5 * GB), PrecopyParameters::default(), GB);
    assert!(close(m.passes()[1].bytes, 0.5 * GB));
}

#[test]
fn pass_one_flags_the_zero_pages() {
    let mut m = Precopy::new(vm(0.0, 0.0), PrecopyParameters::default());
    assert_eq!(
        m.start(0.0),
        Step::Copy {
            pass: 1,
            bytes: 8.0 * GB,
            zero_bytes: 2.0 * GB
        }
    );
}
