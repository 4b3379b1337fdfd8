//! Regression (found by `tests/invariants.rs` in `hvnet-network`): an
//! activity that joins a class whose members have done work already could
//! report a little more work left than it was given, (p + w) − p > w in
//! floating point, so a connection that never completed reported a sent
//! byte count of −2.8e-14. Work left is now never more than the amount.

use hvnet_engine::{ActivitySpec, Event, Sharing, Simulation};

#[test]
fn work_left_is_never_more_than_the_amount() {
    let mut worst: f64 = 0.0;
    for i in 1..200u32 {
        let mut sim = Simulation::new();
        let link = sim.add_resource(7.0, Sharing::Shared);
        sim.start(&ActivitySpec::new(1e9, vec![(link, 1.0)]));
        let at = f64::from(i) * 0.1371;
        sim.schedule(at, 0);
        let Some(Event::Timer(..)) = sim.next_event() else {
            panic!("the timer fires first");
        };
        for k in 0..50u32 {
            let amount = f64::from(k) * 0.37 + 0.01;
            let b = sim.start(&ActivitySpec::new(amount, vec![(link, 1.0)]));
            let left = sim.remaining(b);
            worst = worst.max(left - amount);
            assert!(left >= 0.0);
        }
    }
    assert!(worst <= 0.0, "work left exceeded the amount by {worst}");
}
