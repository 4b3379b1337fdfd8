//! Max-min cases in the SimGrid style: each states the system and the
//! expected shares in words before asserting them.

use hvnet_engine::lmm::{Sharing, System};

const INF: f64 = f64::INFINITY;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn equal_flows_split_a_link_equally() {
    // Four flows of weight 1 on one link of 100: 25 each.
    let mut s = System::new();
    let l = s.add_constraint(100.0, Sharing::Shared);
    let v: Vec<_> = (0..4)
        .map(|_| s.add_variable(1.0, INF, 1, &[(l, 1.0)]))
        .collect();
    s.solve();
    assert!(v.iter().all(|&x| close(s.value(x), 25.0)));
}

#[test]
fn a_variable_with_twice_the_weight_gets_twice_the_share() {
    // Link of 90; weights 2 and 1: 60 and 30.
    let mut s = System::new();
    let l = s.add_constraint(90.0, Sharing::Shared);
    let heavy = s.add_variable(2.0, INF, 1, &[(l, 1.0)]);
    let light = s.add_variable(1.0, INF, 1, &[(l, 1.0)]);
    s.solve();
    assert!(close(s.value(heavy), 60.0));
    assert!(close(s.value(light), 30.0));
}

#[test]
fn a_bound_caps_a_flow_and_the_rest_goes_to_the_others() {
    // Link of 100, three flows; one is bounded at 10: the other two get 45.
    let mut s = System::new();
    let l = s.add_constraint(100.0, Sharing::Shared);
    let slow = s.add_variable(1.0, 10.0, 1, &[(l, 1.0)]);
    let a = s.add_variable(1.0, INF, 1, &[(l, 1.0)]);
    let b = s.add_variable(1.0, INF, 1, &[(l, 1.0)]);
    s.solve();
    assert!(close(s.value(slow), 10.0));
    assert!(close(s.value(a), 45.0) && close(s.value(b), 45.0));
}

#[test]
fn a_bound_above_the_fair_share_does_not_bind() {
    // Link of 100, two flows, one bounded at 80: the fair share 50 is below it.
    let mut s = System::new();
    let l = s.add_constraint(100.0, Sharing::Shared);
    let a = s.add_variable(1.0, 80.0, 1, &[(l, 1.0)]);
    let b = s.add_variable(1.0, INF, 1, &[(l, 1.0)]);
    s.solve();
    assert!(close(s.value(a), 50.0) && close(s.value(b), 50.0));
}

#[test]
fn a_coefficient_makes_a_flow_use_more_of_a_resource() {
    // A core of 120 cycles/s; flow x costs 2 cycles per byte, y costs 1.
    // Equal byte rates r: 2r + r = 120, so r = 40 each.
    let mut s = System::new();
    let core = s.add_constraint(120.0, Sharing::Shared);
    let x = s.add_variable(1.0, INF, 1, &[(core, 2.0)]);
    let y = s.add_variable(1.0, INF, 1, &[(core, 1.0)]);
    s.solve();
    assert!(close(s.value(x), 40.0) && close(s.value(y), 40.0));
    assert!(close(s.usage(core), 120.0));
}

#[test]
fn the_bottleneck_of_a_long_path_frees_capacity_for_short_ones() {
    // The classic parking lot: links A, B, C of 10; one long flow over all
    // three and one short flow on each link. Each link has two flows: 5 each.
    // Then make B 4: the long flow and B's flow get 2; A's and C's get 8.
    let mut s = System::new();
    let links: Vec<_> = (0..3)
        .map(|_| s.add_constraint(10.0, Sharing::Shared))
        .collect();
    let long = s.add_variable(
        1.0,
        INF,
        1,
        &[(links[0], 1.0), (links[1], 1.0), (links[2], 1.0)],
    );
    let short: Vec<_> = links
        .iter()
        .map(|&l| s.add_variable(1.0, INF, 1, &[(l, 1.0)]))
        .collect();
    s.solve();
    assert!(close(s.value(long), 5.0));
    assert!(short.iter().all(|&v| close(s.value(v), 5.0)));
    s.set_capacity(links[1], 4.0);
    s.solve();
    assert!(close(s.value(long), 2.0) && close(s.value(short[1]), 2.0));
    assert!(close(s.value(short[0]), 8.0) && close(s.value(short[2]), 8.0));
}

#[test]
fn a_fatpipe_lets_every_flow_use_its_whole_capacity() {
    // A fatpipe backplane of 10 with three flows: each may run at 10.
    // Behind separate shared links of 4, 20 and 100 they get 4, 10 and 10.
    let mut s = System::new();
    let fat = s.add_constraint(10.0, Sharing::Fatpipe);
    let caps = [4.0, 20.0, 100.0];
    let v: Vec<_> = caps
        .iter()
        .map(|&c| {
            let l = s.add_constraint(c, Sharing::Shared);
            s.add_variable(1.0, INF, 1, &[(fat, 1.0), (l, 1.0)])
        })
        .collect();
    s.solve();
    assert!(close(s.value(v[0]), 4.0) && close(s.value(v[1]), 10.0) && close(s.value(v[2]), 10.0));
}

#[test]
fn a_dead_link_stops_its_flows_and_only_them() {
    // Capacity 0 on link A: the flow over A and B stops; B's own flow takes all of B.
    let mut s = System::new();
    let a = s.add_constraint(0.0, Sharing::Shared);
    let b = s.add_constraint(10.0, Sharing::Shared);
    let through = s.add_variable(1.0, INF, 1, &[(a, 1.0), (b, 1.0)]);
    let local = s.add_variable(1.0, INF, 1, &[(b, 1.0)]);
    s.solve();
    assert_eq!(s.value(through), 0.0);
    assert!(close(s.value(local), 10.0));
}

#[test]
fn a_flow_on_no_resource_and_without_bound_is_infinitely_fast() {
    let mut s = System::new();
    let v = s.add_variable(1.0, INF, 1, &[]);
    s.solve();
    assert!(s.value(v).is_infinite());
}

#[test]
fn full_duplex_directions_are_independent() {
    // A→B and B→A on one full-duplex cable (two resources): both at line rate.
    let mut s = System::new();
    let ab = s.add_constraint(1.25e9, Sharing::Shared);
    let ba = s.add_constraint(1.25e9, Sharing::Shared);
    let x = s.add_variable(1.0, INF, 1, &[(ab, 1.0)]);
    let y = s.add_variable(1.0, INF, 1, &[(ba, 1.0)]);
    s.solve();
    assert!(close(s.value(x), 1.25e9) && close(s.value(y), 1.25e9));
}
