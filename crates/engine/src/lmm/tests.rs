//! The module header's worked examples, and the small cases of the
//! system's bookkeeping (groups, ids reused, nothing to solve).

use super::*;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

#[test]
fn worked_example_from_the_header() {
    // L1 (10) carries x and y; L2 (4) carries x. L2 binds first: x = 4, y = 6.
    let mut s = System::new();
    let l1 = s.add_constraint(10.0, Sharing::Shared);
    let l2 = s.add_constraint(4.0, Sharing::Shared);
    let x = s.add_variable(1.0, f64::INFINITY, 1, &[(l1, 1.0), (l2, 1.0)]);
    let y = s.add_variable(1.0, f64::INFINITY, 1, &[(l1, 1.0)]);
    s.solve();
    assert!(close(s.value(x), 4.0));
    assert!(close(s.value(y), 6.0));
}

#[test]
fn worked_restart_example_from_the_header() {
    // L1 (6): x, y; L2 (10): y, z. L1 first at 3 (x = y = 3), then z = 7.
    let build = || {
        let mut s = System::new();
        let l1 = s.add_constraint(6.0, Sharing::Shared);
        let l2 = s.add_constraint(10.0, Sharing::Shared);
        let x = s.add_variable(1.0, f64::INFINITY, 1, &[(l1, 1.0)]);
        let y = s.add_variable(1.0, f64::INFINITY, 1, &[(l1, 1.0), (l2, 1.0)]);
        let z = s.add_variable(1.0, f64::INFINITY, 1, &[(l2, 1.0)]);
        s.solve();
        assert!(close(s.value(x), 3.0) && close(s.value(y), 3.0) && close(s.value(z), 7.0));
        (s, [x, y, z], [l1, l2])
    };
    // z ends: restart at 7; nothing below moves, nothing is filled again.
    let (mut s, [x, y, z], [_, l2]) = build();
    s.remove_variable(z);
    s.solve();
    assert_eq!(s.saturated().count(), 0);
    assert!(s.switched().is_empty());
    assert!(close(s.value(x), 3.0) && close(s.value(y), 3.0));
    assert!(close(s.usage(l2), 3.0));
    // x ends: restart at 3; y and z filled again, L2 binds at 5.
    let (mut s, [x, y, z], [l1, l2]) = build();
    s.remove_variable(x);
    s.solve();
    // L2 is the only pop, and y moves to it from L1.
    assert_eq!(s.saturated().collect::<Vec<_>>(), vec![(l2, 5.0)]);
    assert_eq!(s.switched(), &[y]);
    assert_eq!(s.bottleneck(y), Bottleneck::Constraint(l2));
    assert!(close(s.value(y), 5.0) && close(s.value(z), 5.0));
    assert!(close(s.usage(l1), 5.0));
}

#[test]
fn a_group_of_identical_activities_counts_each_member() {
    // Three identical flows grouped in one variable share a link of 9
    // with one other flow: all four get 9/4.
    let mut s = System::new();
    let l = s.add_constraint(9.0, Sharing::Shared);
    let group = s.add_variable(1.0, f64::INFINITY, 3, &[(l, 1.0)]);
    let single = s.add_variable(1.0, f64::INFINITY, 1, &[(l, 1.0)]);
    s.solve();
    assert!(close(s.value(group), 2.25));
    assert!(close(s.value(single), 2.25));
    assert!(close(s.usage(l), 9.0));
}

#[test]
fn removed_variable_frees_its_share_and_its_id_is_reused() {
    let mut s = System::new();
    let l = s.add_constraint(10.0, Sharing::Shared);
    let a = s.add_variable(1.0, f64::INFINITY, 1, &[(l, 1.0)]);
    let b = s.add_variable(1.0, f64::INFINITY, 1, &[(l, 1.0)]);
    s.solve();
    assert!(close(s.value(b), 5.0));
    s.remove_variable(a);
    s.solve();
    assert!(close(s.value(b), 10.0));
    let c = s.add_variable(1.0, f64::INFINITY, 1, &[(l, 1.0)]);
    assert_eq!(c, a);
    s.solve();
    assert!(close(s.value(b), 5.0) && close(s.value(c), 5.0));
}

#[test]
fn a_default_system_has_nothing_to_solve_until_something_is_added() {
    let mut s = System::default();
    assert!(!s.solve());
    let l = s.add_constraint(4.0, Sharing::Shared);
    let v = s.add_variable(1.0, f64::INFINITY, 2, &[(l, 1.0)]);
    assert!(s.solve());
    assert!(close(s.value(v), 2.0));
}

#[test]
fn solve_does_nothing_when_nothing_changed() {
    let mut s = System::new();
    let l = s.add_constraint(1.0, Sharing::Shared);
    s.add_variable(1.0, f64::INFINITY, 1, &[(l, 1.0)]);
    assert!(s.solve());
    assert!(!s.solve());
    s.set_capacity(l, 2.0);
    assert!(s.solve());
}

#[test]
fn an_absent_id_costs_no_room() {
    // Typed ids keep a niche, so "no variable" and "no pop" need no
    // sentinel and no extra word: a record stays two ids and a weight.
    use std::mem::size_of;
    assert_eq!(size_of::<Option<VarId>>(), size_of::<u32>());
    assert_eq!(size_of::<Option<solver::PopId>>(), size_of::<u32>());
    assert_eq!(size_of::<solver::Record>(), 16);
    assert_eq!(ConstraintId::new(7).index(), 7);
}
