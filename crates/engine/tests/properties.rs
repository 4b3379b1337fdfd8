//! Property tests against the reference in `common`: on random systems the
//! solver is feasible, every flow is limited by a saturated resource on
//! which it has the largest share or by its own bound, and it agrees with
//! naive progressive filling; the event loop conserves work, keeps time
//! monotone and agrees with a from-scratch time-stepper.

mod common;

use common::{reference_completions, reference_rates, RefVar};
use hvnet_engine::lmm::{ConstraintId, System, VarId};
use hvnet_engine::{ActivitySpec, Event, Sharing, Simulation, Transfer, Workload};
use proptest::prelude::*;

fn system_strategy() -> impl Strategy<Value = (Vec<(f64, Sharing)>, Vec<RefVar>)> {
    (1usize..6).prop_flat_map(|n_cnst| {
        let caps = prop::collection::vec(
            (
                prop_oneof![Just(0.0), 1.0f64..100.0],
                prop_oneof![4 => Just(Sharing::Shared), 1 => Just(Sharing::Fatpipe)],
            ),
            n_cnst,
        );
        let var = (
            prop_oneof![Just(1.0), 0.5f64..4.0],
            prop_oneof![3 => Just(f64::INFINITY), 1 => 1.0f64..50.0],
            prop::collection::vec((0..n_cnst, prop_oneof![Just(1.0), 0.1f64..3.0]), 0..4),
        )
            .prop_map(|(weight, bound, usage)| RefVar {
                weight,
                bound,
                usage,
            });
        (caps, prop::collection::vec(var, 1..10))
    })
}

/// The reference's elements, on the constraints of the same index.
fn elements(usage: &[(usize, f64)]) -> Vec<(ConstraintId, f64)> {
    usage
        .iter()
        .map(|&(c, a)| (ConstraintId::new(c), a))
        .collect()
}

fn solve(caps: &[(f64, Sharing)], vars: &[RefVar]) -> (System, Vec<VarId>) {
    let mut s = System::new();
    for &(c, sh) in caps {
        s.add_constraint(c, sh);
    }
    let ids = vars
        .iter()
        .map(|v| s.add_variable(v.weight, v.bound, 1, &elements(&v.usage)))
        .collect();
    s.solve();
    (s, ids)
}

fn rel_close(a: f64, b: f64, tol: f64) -> bool {
    if a.is_infinite() || b.is_infinite() {
        return a == b;
    }
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-9)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn solver_matches_the_reference_and_is_max_min_fair((caps, vars) in system_strategy()) {
        let (s, ids) = solve(&caps, &vars);
        let rates: Vec<f64> = ids.iter().map(|&v| s.value(v)).collect();
        let expected = reference_rates(&caps, &vars);
        for (r, e) in rates.iter().zip(&expected) {
            prop_assert!(rel_close(*r, *e, 1e-9), "solver {rates:?} vs reference {expected:?}");
        }
        // No resource over capacity; each finite rate is held by its bound or a bottleneck.
        let usage = |c: usize, r: &[f64]| -> Vec<(usize, f64)> {
            vars.iter().enumerate().flat_map(|(v, var)| var.usage.iter().filter(move |e| e.0 == c).map(move |e| (v, e.1 * r[v]))).collect()
        };
        for (c, &(cap, sharing)) in caps.iter().enumerate() {
            let uses = usage(c, &rates);
            if uses.iter().any(|u| u.1.is_infinite()) { continue; }
            match sharing {
                Sharing::Shared => prop_assert!(uses.iter().map(|u| u.1).sum::<f64>() <= cap * (1.0 + 1e-9) + 1e-9),
                Sharing::Fatpipe => prop_assert!(uses.iter().all(|u| u.1 <= cap * (1.0 + 1e-9) + 1e-9)),
            }
        }
        for (v, var) in vars.iter().enumerate() {
            let r = rates[v];
            if r.is_infinite() {
                prop_assert!(var.bound.is_infinite());
                continue;
            }
            let at_bound = r >= var.bound * (1.0 - 1e-9);
            let bottleneck = var.usage.iter().any(|&(c, a)| {
                if a == 0.0 { return false; }
                let (cap, sharing) = caps[c];
                let uses = usage(c, &rates);
                match sharing {
                    Sharing::Fatpipe => a * r >= cap * (1.0 - 1e-9) - 1e-12,
                    Sharing::Shared => {
                        let saturated = uses.iter().map(|u| u.1).sum::<f64>() >= cap * (1.0 - 1e-9) - 1e-9;
                        let largest = uses.iter().all(|&(u, _)| rates[u] / vars[u].weight <= r / var.weight * (1.0 + 1e-9) + 1e-12);
                        saturated && largest
                    }
                }
            });
            prop_assert!(at_bound || bottleneck, "variable {v} at {r} has neither bound nor bottleneck");
        }
    }

    #[test]
    fn solving_again_after_removals_matches_a_fresh_solve(
        (caps, vars) in system_strategy(),
        counts in prop::collection::vec(1u32..4, 10),
        steps in prop::collection::vec((0usize..10, any::<bool>()), 1..12),
    ) {
        // Remove variables or lower their counts one by one; after each
        // change the (partly re-filled) solution equals a solve from scratch.
        let mut s = System::new();
        for &(c, sh) in &caps { s.add_constraint(c, sh); }
        let mut live: Vec<(VarId, u32, RefVar)> = vars.iter().enumerate()
            .map(|(i, v)| (s.add_variable(v.weight, v.bound, counts[i % 10], &elements(&v.usage)), counts[i % 10], v.clone()))
            .collect();
        s.solve();
        for (pick, remove) in steps {
            if live.is_empty() { break; }
            let k = pick % live.len();
            if remove || live[k].1 == 1 {
                s.remove_variable(live[k].0);
                live.swap_remove(k);
            } else {
                live[k].1 -= 1;
                s.set_count(live[k].0, live[k].1);
            }
            s.solve();
            let mut fresh = System::new();
            for &(c, sh) in &caps { fresh.add_constraint(c, sh); }
            let ids: Vec<_> = live.iter().map(|(_, n, v)| fresh.add_variable(v.weight, v.bound, *n, &elements(&v.usage))).collect();
            fresh.solve();
            for ((id, _, _), fid) in live.iter().zip(&ids) {
                prop_assert!(rel_close(s.value(*id), fresh.value(*fid), 1e-9), "incremental {} vs fresh {}", s.value(*id), fresh.value(*fid));
            }
            for c in (0..caps.len()).map(ConstraintId::new) {
                prop_assert!(rel_close(s.usage(c), fresh.usage(c), 1e-9) || (s.usage(c) - fresh.usage(c)).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn any_sequence_of_changes_solved_again_equals_a_fresh_solve_to_1e12(
        (caps, vars) in system_strategy(),
        extra in prop::collection::vec(system_strategy(), 1),
        counts in prop::collection::vec(1u32..5, 10),
        steps in prop::collection::vec((0u8..6, 0usize..10, 0.5f64..60.0), 1..16),
    ) {
        // Every kind of change, in random order, each followed by a solve
        // (from the level where it changed, or from 0): the rates and the
        // use of every constraint equal a solve from scratch of the system
        // as it now stands, to 1e-12.
        let spare = &extra[0].1;
        let mut caps = caps;
        let mut s = System::new();
        for &(c, sh) in &caps { s.add_constraint(c, sh); }
        let mut live: Vec<(VarId, u32, RefVar)> = vars.iter().enumerate()
            .map(|(i, v)| (s.add_variable(v.weight, v.bound, counts[i % 10], &elements(&v.usage)), counts[i % 10], v.clone()))
            .collect();
        s.solve();
        for (kind, pick, x) in steps {
            let n_cnst = caps.len();
            match kind {
                // Remove a variable (or lower its count when it has more than one).
                0 | 1 if !live.is_empty() => {
                    let k = pick % live.len();
                    if kind == 0 || live[k].1 == 1 {
                        s.remove_variable(live[k].0);
                        live.swap_remove(k);
                    } else {
                        live[k].1 -= 1;
                        s.set_count(live[k].0, live[k].1);
                    }
                }
                // Raise a count.
                2 if !live.is_empty() => {
                    let k = pick % live.len();
                    live[k].1 += 1;
                    s.set_count(live[k].0, live[k].1);
                }
                // A new bound.
                3 if !live.is_empty() => {
                    let k = pick % live.len();
                    let bound = if x > 40.0 { f64::INFINITY } else { x };
                    live[k].2.bound = bound;
                    s.set_bound(live[k].0, bound);
                }
                // A new capacity.
                4 => {
                    let c = pick % n_cnst;
                    let cap = if x < 5.0 { 0.0 } else { x };
                    caps[c].0 = cap;
                    s.set_capacity(ConstraintId::new(c), cap);
                }
                // A new variable (its elements on the constraints that exist).
                _ => {
                    let mut v = spare[pick % spare.len()].clone();
                    v.usage.iter_mut().for_each(|e| e.0 %= n_cnst);
                    live.push((s.add_variable(v.weight, v.bound, 1 + pick as u32 % 3, &elements(&v.usage)), 1 + pick as u32 % 3, v));
                }
            }
            s.solve();
            let mut fresh = System::new();
            for &(c, sh) in &caps { fresh.add_constraint(c, sh); }
            let ids: Vec<_> = live.iter().map(|(_, n, v)| fresh.add_variable(v.weight, v.bound, *n, &elements(&v.usage))).collect();
            fresh.solve();
            for ((id, _, _), fid) in live.iter().zip(&ids) {
                prop_assert!(rel_close(s.value(*id), fresh.value(*fid), 1e-12), "incremental {} vs fresh {}", s.value(*id), fresh.value(*fid));
            }
            for (c, &(cap, _)) in caps.iter().enumerate() {
                let (a, b) = (s.usage(ConstraintId::new(c)), fresh.usage(ConstraintId::new(c)));
                prop_assert!(rel_close(a, b, 1e-12) || (a - b).abs() <= 1e-12 * cap.max(1.0), "usage of {c}: incremental {a} vs fresh {b}");
            }
        }
    }

    #[test]
    fn event_loop_matches_a_from_scratch_time_stepper(
        (caps, vars) in system_strategy(),
        amounts in prop::collection::vec(0.0f64..100.0, 10),
        starts in prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..5.0], 10),
    ) {
        // Repeat the first variable's route so that grouping is exercised.
        let mut vars = vars;
        vars.push(vars[0].clone());
        let transfers: Vec<(f64, f64, RefVar)> = vars.iter().enumerate().map(|(i, v)| (starts[i % 10], amounts[i % 10], v.clone())).collect();
        let expected = reference_completions(&caps, &transfers);
        let workload = Workload {
            resources: caps.clone(),
            transfers: transfers.iter().map(|(start, amount, v)| Transfer {
                start: *start,
                spec: ActivitySpec { amount: *amount, weight: v.weight, bound: Some(v.bound).filter(|b| b.is_finite()), usage: v.usage.clone() },
            }).collect(),
            changes: vec![],
            record: false,
        };
        let got = workload.run();
        for (i, (g, e)) in got.end.iter().zip(&expected).enumerate() {
            match (g, e) {
                (Some(g), Some(e)) => prop_assert!(rel_close(*g, *e, 1e-7), "transfer {i}: engine {g} vs reference {e}"),
                (None, None) => {}
                _ => prop_assert!(false, "transfer {i}: engine {g:?} vs reference {e:?}"),
            }
        }
    }

    #[test]
    fn time_is_monotone_and_work_is_conserved(
        amounts in prop::collection::vec(1.0f64..1000.0, 1..30),
        routes in prop::collection::vec(prop::collection::vec(0usize..4, 1..3), 30),
    ) {
        // Integrate each activity's rate between events: the total is its amount.
        let mut sim = Simulation::new();
        let links: Vec<_> = [10.0, 20.0, 5.0, 40.0].iter().map(|&c| sim.add_resource(c, Sharing::Shared)).collect();
        let ids: Vec<_> = amounts.iter().enumerate().map(|(i, &a)| {
            sim.start(&ActivitySpec::new(a, routes[i].iter().map(|&r| (links[r], 1.0)).collect()))
        }).collect();
        let mut done = vec![0.0; ids.len()];
        let mut last = 0.0;
        let mut rates: Vec<f64> = ids.iter().map(|&a| sim.rate(a)).collect();
        while let Some(event) = sim.next_event() {
            let now = sim.now();
            prop_assert!(now >= last);
            for (k, r) in rates.iter().enumerate() { done[k] += r * (now - last); }
            last = now;
            if let Event::Completed(a) = event {
                let k = ids.iter().position(|&x| x == a).unwrap();
                prop_assert!(rel_close(done[k], amounts[k], 1e-6), "activity {k}: did {} of {}", done[k], amounts[k]);
            }
            rates = ids.iter().map(|&a| sim.rate(a)).collect();
        }
        prop_assert_eq!(sim.running(), 0);
    }
}
