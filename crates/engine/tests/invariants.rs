//! Engine invariants at scale (issue 15, item 6): random resources, a few
//! hundred activities starting at random times, capacity changes (to 0 and
//! back) and cancels. At every event:
//!
//! - no shared resource carries more than its capacity (1e-9 relative), no
//!   activity of a fat pipe more than its capacity;
//! - every rate is >= 0 (and finite for finite work);
//! - each activity's work done (the integral of its rate between events)
//!   equals its amount less what remains, at every event and at its end;
//! - the engine's own `usage` of each resource is the sum of its activities'
//!   coefficient × rate;
//!
//! and at the end, the recorded change points of each resource integrate to
//! the work that crossed it (Σ coefficient × work done), every activity ended
//! (completed or cancelled), and a second run of the same input gives a
//! bit-identical report (end times, series).
//!
//! `PROPTEST_CASES` raises the number of cases (default 24 here).

use hvnet_engine::lmm::merge_coefficients;
use hvnet_engine::{ActivityId, ActivitySpec, ActivityState, Event, Sharing, Simulation};
use proptest::prelude::*;
use proptest::test_runner::Config;

#[derive(Clone, Debug)]
struct Act {
    start: f64,
    amount: f64,
    weight: f64,
    bound: Option<f64>,
    usage: Vec<(usize, f64)>,
    cancel: Option<f64>,
}

#[derive(Clone, Debug)]
struct Input {
    resources: Vec<(f64, Sharing)>,
    acts: Vec<Act>,
    /// `(at, resource, capacity)`.
    changes: Vec<(f64, usize, f64)>,
}

fn input_strategy() -> impl Strategy<Value = Input> {
    (2usize..10, 100usize..320).prop_flat_map(|(n, m)| {
        let resources = prop::collection::vec(
            (
                prop_oneof![Just(10.0), 1.0f64..200.0],
                prop_oneof![5 => Just(Sharing::Shared), 1 => Just(Sharing::Fatpipe)],
            ),
            n,
        );
        let act = (
            prop_oneof![Just(0.0), 0.0f64..20.0],
            prop_oneof![Just(100.0), 0.5f64..500.0],
            prop_oneof![3 => Just(1.0), 1 => 0.25f64..4.0],
            prop_oneof![4 => Just(None), 1 => (0.5f64..30.0).prop_map(Some)],
            prop::collection::vec((0..n, prop_oneof![3 => Just(1.0), 1 => 0.1f64..3.0]), 1..4),
            prop_oneof![6 => Just(None), 1 => (0.0f64..30.0).prop_map(Some)],
        )
            .prop_map(|(start, amount, weight, bound, usage, cancel)| Act {
                start,
                amount,
                weight,
                bound,
                usage,
                cancel: cancel.map(|c| start + c),
            });
        let change = (
            0.0f64..40.0,
            0..n,
            prop_oneof![2 => Just(0.0), 3 => 1.0f64..200.0],
        );
        (
            resources,
            prop::collection::vec(act, m),
            prop::collection::vec(change, 0..30),
        )
            .prop_map(|(resources, acts, changes)| Input {
                resources,
                acts,
                changes,
            })
    })
}

/// What a run gives, compared bit for bit between runs.
#[derive(Debug, PartialEq)]
struct Outcome {
    ends: Vec<(u64, u8)>,
    series: Vec<(Vec<u64>, Vec<u64>)>,
    events: u64,
}

const START: u64 = 0;
const CANCEL: u64 = 1;
const CHANGE: u64 = 2;

fn tag(kind: u64, i: usize) -> u64 {
    (i as u64) << 2 | kind
}

fn close(a: f64, b: f64, scale: f64) -> bool {
    (a - b).abs() <= 1e-6 * scale.max(1.0)
}

/// Runs `input`, checking every invariant at every event; returns what it gave.
fn run(input: &Input) -> Result<Outcome, TestCaseError> {
    let mut sim = Simulation::new();
    for &(c, sh) in &input.resources {
        sim.add_resource(c, sh);
    }
    sim.record();
    for (i, a) in input.acts.iter().enumerate() {
        sim.schedule(a.start, tag(START, i));
        if let Some(c) = a.cancel {
            sim.schedule(c, tag(CANCEL, i));
        }
    }
    for (i, c) in input.changes.iter().enumerate() {
        sim.schedule(c.0, tag(CHANGE, i));
    }
    let n = input.acts.len();
    // Each activity's coefficient on each resource it uses, a resource used
    // twice merged as the engine documents (`lmm::merge_coefficients`).
    let merged: Vec<Vec<(usize, f64)>> = input
        .acts
        .iter()
        .map(|a| {
            let mut m: Vec<(usize, f64)> = Vec::new();
            for &(r, c) in &a.usage {
                match m.iter_mut().find(|e| e.0 == r) {
                    Some(e) => e.1 = merge_coefficients(input.resources[r].1, e.1, c),
                    None => m.push((r, c)),
                }
            }
            m
        })
        .collect();
    let mut ids: Vec<Option<ActivityId>> = vec![None; n];
    let mut done = vec![0.0f64; n];
    let mut rates = vec![0.0f64; n];
    let mut last = 0.0;
    let mut events = 0u64;
    while let Some(event) = sim.next_event() {
        events += 1;
        let now = sim.now();
        prop_assert!(now >= last, "time went back: {now} < {last}");
        for k in 0..n {
            done[k] += rates[k] * (now - last);
        }
        last = now;
        match event {
            Event::Timer(_, t) => {
                let i = (t >> 2) as usize;
                match t & 3 {
                    START => {
                        let a = &input.acts[i];
                        ids[i] = Some(sim.start(&ActivitySpec {
                            amount: a.amount,
                            weight: a.weight,
                            bound: a.bound,
                            usage: a.usage.clone(),
                        }));
                    }
                    CANCEL => {
                        let id = ids[i].expect("cancelled after its start");
                        if sim.state(id) == ActivityState::Running {
                            let left = sim.remaining(id);
                            prop_assert!(
                                close(done[i], input.acts[i].amount - left, input.acts[i].amount),
                                "activity {i} cancelled: did {} of {}, {left} left",
                                done[i],
                                input.acts[i].amount
                            );
                            sim.cancel(id);
                        }
                    }
                    _ => {
                        let (_, r, c) = input.changes[i];
                        sim.set_capacity(r, c);
                    }
                }
            }
            Event::Completed(id) => {
                let i = ids.iter().position(|&x| x == Some(id)).expect("known");
                let amount = input.acts[i].amount;
                prop_assert!(
                    close(done[i], amount, amount),
                    "activity {i} completed having done {} of {amount}",
                    done[i]
                );
                prop_assert_eq!(sim.state(id), ActivityState::Completed);
            }
        }
        // The rates from now until the next event.
        let mut use_of = vec![0.0f64; input.resources.len()];
        let mut most = vec![0.0f64; input.resources.len()];
        for k in 0..n {
            rates[k] = match ids[k] {
                Some(id) => sim.rate(id),
                None => 0.0,
            };
            prop_assert!(
                rates[k] >= 0.0 && rates[k].is_finite(),
                "activity {k}: rate {}",
                rates[k]
            );
            if let Some(id) = ids[k] {
                if sim.state(id) == ActivityState::Running {
                    let a = &input.acts[k];
                    let left = sim.remaining(id);
                    prop_assert!(
                        close(done[k], a.amount - left, a.amount),
                        "activity {k} at {now}: did {} of {}, {left} left",
                        done[k],
                        a.amount
                    );
                    if let Some(b) = a.bound {
                        prop_assert!(rates[k] <= b * (1.0 + 1e-9), "over its bound");
                    }
                }
            }
            for &(r, c) in &merged[k] {
                use_of[r] += c * rates[k];
                most[r] = most[r].max(c * rates[k]);
            }
        }
        for (r, &(_, sharing)) in input.resources.iter().enumerate() {
            let cap = sim.capacity(r);
            let engine_use = sim.usage(r);
            prop_assert!(
                (engine_use - use_of[r]).abs() <= 1e-9 * use_of[r].max(cap).max(1.0),
                "resource {r}: engine says {engine_use}, activities {}",
                use_of[r]
            );
            match sharing {
                Sharing::Shared => prop_assert!(
                    use_of[r] <= cap * (1.0 + 1e-9) + 1e-12,
                    "resource {r} at {now}: use {} over capacity {cap}",
                    use_of[r]
                ),
                Sharing::Fatpipe => prop_assert!(
                    most[r] <= cap * (1.0 + 1e-9) + 1e-12,
                    "fat pipe {r} at {now}: an activity uses {} of {cap}",
                    most[r]
                ),
            }
        }
    }
    // Every activity ended, or is still waiting on a dead resource: in that
    // case its rate is 0 (the loop stopped because nothing could progress).
    for (k, id) in ids.iter().enumerate() {
        let id = id.expect("every start fired");
        if sim.state(id) == ActivityState::Running {
            prop_assert_eq!(rates[k], 0.0, "activity {} still runs with a rate", k);
        }
    }
    let recorder = sim.take_recorder().expect("recording");
    let end = sim.now();
    for r in 0..input.resources.len() {
        let crossed: f64 = merged
            .iter()
            .enumerate()
            .map(|(k, usage)| usage.iter().filter(|e| e.0 == r).map(|e| e.1).sum::<f64>() * done[k])
            .sum();
        let recorded = recorder.integral(r, 0.0, end);
        prop_assert!(
            (recorded - crossed).abs() <= 1e-6 * crossed.max(1.0),
            "resource {r}: change points integrate to {recorded}, work that crossed it {crossed}"
        );
    }
    let ends = ids
        .iter()
        .map(|id| {
            let id = id.expect("started");
            let state = match sim.state(id) {
                ActivityState::Running => 0,
                ActivityState::Completed => 1,
                ActivityState::Cancelled => 2,
            };
            (sim.finished_at(id).unwrap_or(f64::NAN).to_bits(), state)
        })
        .collect();
    let series = recorder
        .into_series()
        .into_iter()
        .map(|c| {
            let (t, v) = c.into_parts();
            (
                t.iter().map(|x| x.to_bits()).collect(),
                v.iter().map(|x| x.to_bits()).collect(),
            )
        })
        .collect();
    Ok(Outcome {
        ends,
        series,
        events,
    })
}

fn cases(default: u32) -> Config {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    Config::with_cases(n)
}

proptest! {
    #![proptest_config(cases(24))]

    #[test]
    fn every_event_keeps_capacity_rates_and_work(input in input_strategy()) {
        let first = run(&input)?;
        let second = run(&input)?;
        prop_assert!(first == second, "two runs of the same input differ");
    }
}
