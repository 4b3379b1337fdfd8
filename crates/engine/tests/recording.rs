//! The recorder's change points against the per-bin accumulation it
//! replaced: on random runs (starts, capacity changes, cancels) the mean of
//! each bin from the change points equals what adding the use of every
//! interval between events to every bin gave, and the integral of each
//! resource's use is the work that crossed it.

use hvnet_engine::{ActivitySpec, Event, Sharing, Simulation};
use proptest::prelude::*;

/// The former recorder: at every event, every resource's use over
/// `[from, to)` added to every bin it overlaps.
struct Bins {
    step: f64,
    bins: Vec<Vec<f64>>,
}

impl Bins {
    fn accumulate(&mut self, from: f64, to: f64, usage: &[f64]) {
        let first = (from / self.step).floor().max(0.0) as usize;
        let last = ((to / self.step).ceil() as usize).max(first + 1);
        for (r, bins) in self.bins.iter_mut().enumerate() {
            if bins.len() < last {
                bins.resize(last, 0.0);
            }
            let u = usage[r];
            if u == 0.0 {
                continue;
            }
            for (k, bin) in bins.iter_mut().enumerate().take(last).skip(first) {
                let (lo, hi) = (k as f64 * self.step, (k + 1) as f64 * self.step);
                // A whole bin adds its use exactly (`hi - lo` is not `step`
                // to the last digits far from 0).
                let overlap = if from <= lo && to >= hi {
                    self.step
                } else {
                    to.min(hi) - from.max(lo)
                };
                if overlap > 0.0 {
                    *bin += u * overlap / self.step;
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
struct Act {
    start: f64,
    amount: f64,
    weight: f64,
    usage: Vec<(usize, f64)>,
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1e-9)
}

const CHANGE: u64 = 1 << 20;
const RESTORE: u64 = 1 << 21;
const CANCEL: u64 = 1 << 22;

/// Resources `(capacity, sharing)`, activities, capacity changes `(at, resource, capacity)`.
type RandomRun = (Vec<(f64, Sharing)>, Vec<Act>, Vec<(f64, usize, f64)>);

fn run_strategy() -> impl Strategy<Value = RandomRun> {
    (1usize..6).prop_flat_map(|n| {
        let caps = prop::collection::vec(
            (
                1.0f64..100.0,
                prop_oneof![4 => Just(Sharing::Shared), 1 => Just(Sharing::Fatpipe)],
            ),
            n,
        );
        let act = (
            prop_oneof![Just(0.0), 0.0f64..10.0],
            1.0f64..300.0,
            prop_oneof![Just(1.0), 0.1f64..4.0],
            prop::collection::btree_map(0..n, prop_oneof![Just(1.0), 0.2f64..3.0], 1..4),
        )
            .prop_map(|(start, amount, weight, usage)| Act {
                start,
                amount,
                weight,
                usage: usage.into_iter().collect(),
            });
        let change = (0.0f64..12.0, 0..n, prop_oneof![Just(0.0), 1.0f64..100.0]);
        (
            caps,
            prop::collection::vec(act, 1..25),
            prop::collection::vec(change, 0..6),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn binned_change_points_equal_the_per_event_bins_and_integrals_the_work(
        (caps, acts, changes) in run_strategy(),
        step in prop_oneof![Just(1.0), 0.05f64..3.0],
        cancel in prop::option::of((0usize..25, 0.0f64..15.0)),
    ) {
        let mut sim = Simulation::new();
        for &(c, sh) in &caps {
            sim.add_resource(c, sh);
        }
        sim.record();
        for (k, a) in acts.iter().enumerate() {
            sim.schedule(a.start, k as u64);
        }
        for (k, &(at, _, _)) in changes.iter().enumerate() {
            sim.schedule(at, CHANGE + k as u64);
        }
        // Every capacity back at 20 s, so that every activity completes.
        sim.schedule(20.0, RESTORE);
        let cancel = cancel.filter(|&(k, _)| k < acts.len());
        if let Some((_, at)) = cancel {
            sim.schedule(at, CANCEL);
        }
        let mut ids = vec![None; acts.len()];
        let mut old = Bins { step, bins: vec![Vec::new(); caps.len()] };
        loop {
            let from = sim.now();
            let usage: Vec<f64> = (0..caps.len()).map(|r| sim.usage(r)).collect();
            let Some(event) = sim.next_event() else { break };
            if sim.now() > from {
                old.accumulate(from, sim.now(), &usage);
            }
            match event {
                Event::Timer(_, RESTORE) => {
                    for (r, &(c, _)) in caps.iter().enumerate() {
                        sim.set_capacity(r, c);
                    }
                }
                Event::Timer(_, CANCEL) => {
                    if let Some(id) = ids[cancel.unwrap().0] {
                        sim.cancel(id);
                    }
                }
                Event::Timer(_, tag) if tag >= CHANGE => {
                    let (_, r, c) = changes[(tag - CHANGE) as usize];
                    sim.set_capacity(r, c);
                }
                Event::Timer(_, k) => {
                    let a = &acts[k as usize];
                    ids[k as usize] = Some(sim.start(&ActivitySpec {
                        weight: a.weight,
                        ..ActivitySpec::new(a.amount, a.usage.clone())
                    }));
                }
                Event::Completed(_) => {}
            }
        }
        let rec = sim.recorder().unwrap();
        prop_assert_eq!(rec.end(), sim.now());
        // The bins, from the change points, are the per-event bins.
        for (r, bins) in old.bins.iter().enumerate() {
            let means = rec.means(r, step);
            prop_assert_eq!(means.len(), bins.len(), "resource {}", r);
            for (k, (m, b)) in means.iter().zip(bins).enumerate() {
                // Bin k's edges are `k · step` rounded: a piece's overlap with
                // it is exact to about k ulps of the step.
                let tol = 1e-12 + 1e-15 * k as f64;
                prop_assert!(close(*m, *b, tol), "resource {} bin {}: {} vs {}", r, k, m, b);
            }
            let points = rec.series(r);
            prop_assert!(points.times().windows(2).all(|w| w[0] < w[1]));
            prop_assert!(points.values().windows(2).all(|w| w[0] != w[1]), "a point per change only");
        }
        // What crossed each resource: every activity's work times its
        // coefficient (all complete, unless one was cancelled).
        if cancel.is_none() {
            for r in 0..caps.len() {
                let work: f64 = acts.iter().map(|a| {
                    a.usage.iter().filter(|u| u.0 == r).map(|u| u.1).sum::<f64>() * a.amount
                }).sum();
                let carried = rec.integral(r, 0.0, f64::INFINITY);
                prop_assert!(close(carried, work, 1e-6), "resource {}: carried {} of {}", r, carried, work);
            }
        }
        // No bin is above the peak.
        for r in 0..caps.len() {
            let peak = rec.peak(r);
            for (k, m) in rec.means(r, step).into_iter().enumerate() {
                prop_assert!(m <= peak * (1.0 + 1e-12 + 1e-15 * k as f64), "bin {}: {} over the peak {}", k, m, peak);
            }
        }
    }
}

#[test]
fn bin_integrals_add_each_piece_to_the_bins_it_overlaps() {
    // 4 from 1 s, 8 from 2.5 s, 0 from 3 s; bins of 1 s up to 3.5 s: bin 1
    // holds 4 × 1, bin 2 holds 4 × 0.5 + 8 × 0.5, bin 3 nothing.
    let f = hvnet_engine::ChangePoints::from_points(vec![1.0, 2.5, 3.0], vec![4.0, 8.0, 0.0]);
    assert_eq!(f.bin_integrals(1.0, 3.5, 4), vec![0.0, 4.0, 6.0, 0.0]);
    // Nothing after the end: a piece cut at 2.75 s.
    assert_eq!(f.bin_integrals(1.0, 2.75, 3), vec![0.0, 4.0, 4.0]);
    // A width that is not a number of seconds is no grid: no bins filled.
    assert_eq!(f.bin_integrals(0.0, 3.5, 2), vec![0.0, 0.0]);
}

#[test]
fn scaled_points_drop_what_says_nothing() {
    // A leading 0, a repeated value, two points at one time (the later wins), and a
    // value of 1e-13 of the largest (noise) as 0: what is left is scaled by 8.
    let f = hvnet_engine::ChangePoints::from_points(
        vec![0.0, 1.0, 2.0, 2.0, 3.0, 4.0],
        vec![0.0, 5.0, 5.0, 7.0, 7e-13, 5.0],
    );
    let (times, values) = f.scaled(8.0, 1e-12).into_parts();
    assert_eq!(times, vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(values, vec![40.0, 56.0, 0.0, 40.0]);
}

/// `ChangePoints::percentiles_and_busy` as it was, its pieces in a stable
/// sort by `partial_cmp`: what `hvnet.series.Series.percentile` gives.
fn percentiles_stably(f: &hvnet_engine::ChangePoints, end: f64, percentiles: &[f64]) -> Vec<f64> {
    let (times, values) = (f.times(), f.values());
    let mut pieces = Vec::new();
    if times.first().is_some_and(|&first| first > 0.0) {
        pieces.push((0.0, times[0].min(end)));
    }
    for i in 0..times.len() {
        let to = times.get(i + 1).copied().unwrap_or(end).min(end);
        if to - times[i].max(0.0) > 0.0 {
            pieces.push((values[i], to - times[i].max(0.0)));
        }
    }
    let order = |a: f64, b: f64| a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal);
    pieces.sort_by(|a, b| order(a.0, b.0).then(order(a.1, b.1)));
    let mut out = vec![pieces.last().map_or(0.0, |p| p.0); percentiles.len()];
    let (mut covered, mut wanted) = (0.0, 0);
    for &(value, duration) in &pieces {
        covered += duration;
        while wanted < percentiles.len() && covered >= percentiles[wanted] / 100.0 * end {
            out[wanted] = value;
            wanted += 1;
        }
    }
    out
}

proptest! {
    /// The percentiles are those of the stable sort to the bit, on few values and
    /// durations (ties of both), -0.0 among them or not; and on more values than
    /// the sort groups (`pieces::sort_plain`: over 32), which it sorts whole.
    #[test]
    fn percentiles_are_the_stable_sorts(
        steps in prop::collection::vec((1u32..40, 0u32..60), 1..160),
        few in any::<bool>(),
        end in 1u32..2000,
    ) {
        let values = [0.0, -0.0, 0.25, 0.1 + 0.2, 1.0];
        let value = |k: u32| match (few, k) {
            (true, _) => values[usize::try_from(k % 5).expect("a small index")],
            (false, 7) => -0.0,
            (false, _) => f64::from(k) * 0.013,
        };
        let mut t = 0.0;
        let (mut times, mut vals) = (Vec::new(), Vec::new());
        for (gap, v) in steps {
            t += f64::from(gap) * 0.1;
            times.push(t);
            vals.push(value(v));
        }
        let f = hvnet_engine::ChangePoints::from_points(times, vals);
        let (end, percentiles) = (f64::from(end) * 0.1, [0.0, 50.0, 90.0, 99.0, 100.0]);
        let (got, _) = f.percentiles_and_busy(end, &percentiles, 0.0);
        let bits = |xs: &[f64]| xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        prop_assert_eq!(bits(&got), bits(&percentiles_stably(&f, end, &percentiles)));
    }
}
