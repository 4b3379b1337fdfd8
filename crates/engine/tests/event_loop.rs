//! The event loop: completions, timers and changes made while it runs.

use hvnet_engine::{
    ActivitySpec, ActivityState, CapacityChange, Event, Sharing, Simulation, Transfer, Workload,
};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn link(sim: &mut Simulation, capacity: f64) -> usize {
    sim.add_resource(capacity, Sharing::Shared)
}

#[test]
fn two_flows_on_a_link_finish_when_their_shares_say() {
    // Link of 10; flows of 10 and 30. Both at 5 until t=2 (the small one is
    // done); the big one has 20 left at 10: done at t=4.
    let mut sim = Simulation::new();
    let l = link(&mut sim, 10.0);
    let small = sim.start(&ActivitySpec::new(10.0, vec![(l, 1.0)]));
    let big = sim.start(&ActivitySpec::new(30.0, vec![(l, 1.0)]));
    assert_eq!(sim.next_event(), Some(Event::Completed(small)));
    assert!(close(sim.now(), 2.0));
    assert_eq!(sim.next_event(), Some(Event::Completed(big)));
    assert!(close(sim.now(), 4.0));
    assert_eq!(sim.next_event(), None);
}

#[test]
fn identical_flows_finish_together_in_one_batch() {
    // Three identical flows of 10 on a link of 10 all end at t=3.
    let mut sim = Simulation::new();
    let l = link(&mut sim, 10.0);
    let ids: Vec<_> = (0..3)
        .map(|_| sim.start(&ActivitySpec::new(10.0, vec![(l, 1.0)])))
        .collect();
    assert_eq!(
        sim.class_count(),
        1,
        "same route, weight and bound: one solver variable"
    );
    let mut ended = vec![];
    sim.run(|sim, e| {
        if let Event::Completed(a) = e {
            ended.push((a, sim.now()));
        }
    });
    assert_eq!(ended.len(), 3);
    assert!(ended
        .iter()
        .all(|&(a, t)| ids.contains(&a) && close(t, 3.0)));
}

#[test]
fn a_timer_callback_can_start_work_later() {
    // At t=1 a timer starts a flow of 10 on a free link of 5: it ends at t=3.
    let mut sim = Simulation::new();
    let l = link(&mut sim, 5.0);
    sim.schedule(1.0, 7);
    let mut ended_at = None;
    sim.run(|sim, e| match e {
        Event::Timer(_, 7) => {
            sim.start(&ActivitySpec::new(10.0, vec![(l, 1.0)]));
        }
        Event::Completed(_) => ended_at = Some(sim.now()),
        _ => unreachable!(),
    });
    assert!(close(ended_at.unwrap(), 3.0));
}

#[test]
fn a_cancelled_activity_never_completes_and_frees_its_share() {
    // Two flows of 10 on a link of 10; at t=1 one is cancelled (it did 5);
    // the other has 5 left at full rate 10: it ends at t=1.5.
    let mut sim = Simulation::new();
    let l = link(&mut sim, 10.0);
    let a = sim.start(&ActivitySpec::new(10.0, vec![(l, 1.0)]));
    let b = sim.start(&ActivitySpec::new(10.0, vec![(l, 1.0)]));
    sim.schedule(1.0, 0);
    sim.run(|sim, e| {
        if let Event::Timer(..) = e {
            sim.cancel(a);
        }
    });
    assert_eq!(sim.state(a), ActivityState::Cancelled);
    assert!(close(sim.finished_at(b).unwrap(), 1.5));
}

#[test]
fn rerouting_moves_the_remaining_work_onto_the_new_path() {
    // A flow of 20 on member A (capacity 10); at t=1, A dies and the flow is
    // moved to member B (capacity 5): 10 left at 5 ends at t=3.
    let mut sim = Simulation::new();
    let a = link(&mut sim, 10.0);
    let b = link(&mut sim, 5.0);
    let flow = sim.start(&ActivitySpec::new(20.0, vec![(a, 1.0)]));
    sim.schedule(1.0, 0);
    sim.run(|sim, e| {
        if let Event::Timer(..) = e {
            sim.set_capacity(a, 0.0);
            assert!(close(sim.remaining(flow), 10.0));
            sim.reroute(flow, vec![(b, 1.0)]);
        }
    });
    assert!(close(sim.finished_at(flow).unwrap(), 3.0));
}

#[test]
fn a_new_bound_takes_effect_at_once() {
    // A flow of 30 on a link of 10, bounded to 5 at t=1: 20 left at 5, ends at t=5.
    let mut sim = Simulation::new();
    let l = link(&mut sim, 10.0);
    let flow = sim.start(&ActivitySpec::new(30.0, vec![(l, 1.0)]));
    sim.schedule(1.0, 0);
    sim.run(|sim, e| {
        if let Event::Timer(..) = e {
            sim.set_bound(flow, Some(5.0));
        }
    });
    assert!(close(sim.finished_at(flow).unwrap(), 5.0));
}

#[test]
fn a_flow_on_a_dead_link_waits_for_it_to_come_back() {
    // Link of 10 down from t=1 to t=4; a flow of 20 started at 0 did 10
    // before; the other 10 take 1 s after the link returns: ends at t=5.
    let workload = Workload {
        resources: vec![(10.0, Sharing::Shared)],
        transfers: vec![Transfer {
            start: 0.0,
            spec: ActivitySpec::new(20.0, vec![(0, 1.0)]),
        }],
        changes: vec![
            CapacityChange {
                at: 1.0,
                resource: 0,
                capacity: 0.0,
            },
            CapacityChange {
                at: 4.0,
                resource: 0,
                capacity: 10.0,
            },
        ],
        record: true,
    };
    let result = workload.run();
    assert!(close(result.end[0].unwrap(), 5.0));
    let points = &result.series.unwrap()[0];
    // Three changes: 10 from 0, nothing from 1 (the link is down), 10 from 4.
    assert_eq!(points.times(), [0.0, 1.0, 4.0]);
    assert_eq!(points.values(), [10.0, 0.0, 10.0]);
    let series = points.means(0.0, 1.0, result.end_time);
    assert_eq!(series.len(), 5);
    for (k, want) in [10.0, 0.0, 0.0, 0.0, 10.0].iter().enumerate() {
        assert!(
            close(series[k], *want),
            "bin {k}: {} instead of {want}",
            series[k]
        );
    }
}

#[test]
fn a_flow_whose_link_never_returns_never_completes() {
    let workload = Workload {
        resources: vec![(10.0, Sharing::Shared)],
        transfers: vec![
            Transfer {
                start: 0.0,
                spec: ActivitySpec::new(20.0, vec![(0, 1.0)]),
            },
            Transfer {
                start: 0.5,
                spec: ActivitySpec::new(0.0, vec![(0, 1.0)]),
            },
        ],
        changes: vec![CapacityChange {
            at: 1.0,
            resource: 0,
            capacity: 0.0,
        }],
        record: false,
    };
    let result = workload.run();
    assert_eq!(result.end[0], None);
    assert_eq!(
        result.end[1],
        Some(0.5),
        "an empty transfer completes as it starts"
    );
}

#[test]
fn the_recorder_averages_use_within_a_bin() {
    // A flow of 15 at 10/s runs for 1.5 s: bin 0 averages 10, bin 1 averages 5.
    let mut sim = Simulation::new();
    let l = link(&mut sim, 10.0);
    sim.record();
    sim.start(&ActivitySpec::new(15.0, vec![(l, 1.0)]));
    sim.run(|_, _| {});
    let rec = sim.recorder().unwrap();
    let series = rec.means(l, 1.0);
    assert_eq!(series.len(), 2);
    assert!(close(series[0], 10.0) && close(series[1], 5.0));
    // One change point (10 from 0) until the end at 1.5 s: 15 carried, peak 10.
    assert_eq!(rec.series(l).len(), 1);
    assert!(close(rec.end(), 1.5));
    assert!(close(rec.integral(l, 0.0, f64::INFINITY), 15.0));
    assert!(close(rec.integral(l, 0.5, 1.0), 5.0));
    assert_eq!(rec.peak(l), 10.0);
}

#[test]
fn run_until_stops_at_the_given_time() {
    let mut sim = Simulation::new();
    let l = link(&mut sim, 10.0);
    let flow = sim.start(&ActivitySpec::new(100.0, vec![(l, 1.0)]));
    sim.run_until(3.0, |_, _| {});
    assert!(close(sim.now(), 3.0));
    assert!(close(sim.remaining(flow), 70.0));
}

#[test]
fn background_work_takes_its_share_but_does_not_keep_the_run_going() {
    // A core of 10; background work (infinite, bounded to 4) and a flow of 12.
    // Max-min: the background gets its bound 4, the flow the other 6, so the
    // flow ends at t=2. The background never completes, and the loop ends
    // there (nothing else can happen). A second background activity, bounded
    // to 2 at t=1 (by a timer), takes 2 more from then on: still the run ends
    // with the flow, whose remaining 6 at 4/s take 1.5 s (t=2.5).
    let mut sim = Simulation::new();
    let core = link(&mut sim, 10.0);
    sim.record();
    let background = |bound| ActivitySpec {
        bound: Some(bound),
        ..ActivitySpec::new(f64::INFINITY, vec![(core, 1.0)])
    };
    let guest = sim.start(&background(4.0));
    let flow = sim.start(&ActivitySpec::new(12.0, vec![(core, 1.0)]));
    sim.schedule(1.0, 0);
    let mut events = vec![];
    sim.run(|sim, e| {
        events.push(e);
        if let Event::Timer(..) = e {
            sim.start(&background(2.0));
        }
    });
    assert_eq!(
        events.len(),
        2,
        "the timer and the flow's completion: {events:?}"
    );
    assert_eq!(events[1], Event::Completed(flow));
    assert!(close(sim.now(), 2.5));
    assert_eq!(sim.state(guest), ActivityState::Running);
    assert_eq!(sim.remaining(guest), f64::INFINITY);
    assert!(close(sim.rate(guest), 4.0));
    // It may be re-bounded and cancelled like any other activity.
    sim.set_bound(guest, Some(1.0));
    assert!(close(sim.rate(guest), 1.0));
    sim.cancel(guest);
    assert_eq!(sim.state(guest), ActivityState::Cancelled);
    // The core was fully used while the flow ran: 10 in bin 0 and bin 1, and 10 for half of bin 2.
    let series = sim.recorder().unwrap().means(core, 1.0);
    assert!(close(series[0], 10.0) && close(series[1], 10.0) && close(series[2], 5.0));
}
