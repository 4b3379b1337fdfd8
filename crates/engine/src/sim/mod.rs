//! The event loop: activities progress at their max-min rates between events.
//!
//! Between two events every rate is constant, so each activity's remaining
//! work falls linearly. The next event is the earliest of the timers and the
//! activity completions `now + remaining / rate`; at each event the rates are
//! solved again (`lmm::System`), lazily, once per batch of simultaneous
//! changes. Rates are not copied out of the solver: each class runs on the
//! virtual time of its bottleneck (`crate::progress`), so a solve that moves
//! a level costs one update, and only classes whose bottleneck changed are
//! placed again.
//!
//! Activities with the same resources, coefficients, weight and bound always
//! get the same rate, so they share one solver variable: a *class* standing
//! for its `n` members. A class keeps the work each member has done since the
//! class was made (`progress`); a member that joined at progress `p0` with
//! `amount` of work is done when `progress` reaches `p0 + amount`, its
//! *target*. Members of a class therefore finish in target order, and the
//! loop only looks at the smallest target of each class. This is exact, and
//! makes the solver's size the number of distinct routes, not of flows.
//!
//! An activity may have infinite work (*background* work, such as the
//! guests' own CPU load): it takes its max-min share for as long as it runs,
//! never completes, and never keeps the loop going — the loop ends when no
//! timer is left and no activity with finite work has a rate, whatever
//! background work still runs.
//!
//! When recording ([`Simulation::record`]), each advance of the clock first
//! notes, at the time it leaves, the use of the resources whose constraint
//! the solver touched since the last advance (a change point where it
//! changed, `crate::record`); the others cost nothing.
//!
//! Here: the loop's types and its public calls. `classes`: a class's
//! members joining, leaving and moving; `step`: one step of the loop (rates
//! solved again, the clock advanced, what is due collected).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use crate::lmm::{ConstraintId, Sharing, SolveStats, System};
use crate::progress::{Progress, Target};
use crate::record::Recorder;
use crate::units::{Amount, Rate, Seconds};

mod classes;
mod step;

use classes::{Class, ClassKey};

/// A resource: a link direction, a core, a backplane. The `n`-th added is
/// `n`; the solver knows it as `ConstraintId::new(n)`.
pub type ResourceId = usize;

/// Identifies an activity for its whole life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActivityId(pub u32);

/// Identifies a timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimerId(pub u32);

/// What the loop reports.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event {
    /// The activity finished its work.
    Completed(ActivityId),
    /// The timer fired; `tag` is what it was scheduled with.
    Timer(TimerId, u64),
}

/// What an activity does: `amount` of work on `usage` resources.
#[derive(Clone, Debug)]
pub struct ActivitySpec {
    /// Work to do; `f64::INFINITY` for background work that never completes.
    pub amount: Amount,
    pub weight: f64,
    /// Upper bound of the rate (e.g. a TCP window limit); `None` for none.
    pub bound: Option<Rate>,
    /// `(resource, coefficient)`: each unit of work uses `coefficient`
    /// units of the resource's capacity.
    pub usage: Vec<(ResourceId, f64)>,
}

impl ActivitySpec {
    pub fn new(amount: Amount, usage: Vec<(ResourceId, f64)>) -> Self {
        Self {
            amount,
            weight: 1.0,
            bound: None,
            usage,
        }
    }
}

/// An activity's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActivityState {
    Running,
    Completed,
    Cancelled,
}

#[derive(Clone, Debug)]
struct Activity {
    class: u32,
    target: f64,
    amount: Amount,
    state: ActivityState,
    started_at: Seconds,
    finished_at: Option<Seconds>,
}

/// Two times closer than this are the same event.
pub const TIME_EPSILON: Seconds = 1e-9;
/// Work left below this fraction of an activity's amount is no work left.
const WORK_EPSILON: f64 = 1e-9;

/// A deterministic discrete-event simulation of activities on resources.
#[derive(Default, Debug)]
pub struct Simulation {
    now: Seconds,
    lmm: System,
    activities: Vec<Activity>,
    classes: Vec<Option<Class>>,
    free_classes: Vec<u32>,
    /// Where each class is in its work, and when its next member completes.
    progress: Progress,
    /// The class of each solver variable.
    class_of_var: Vec<u32>,
    /// Scratch: the classes due at an event.
    due: Vec<u32>,
    class_of_key: HashMap<ClassKey, u32>,
    timers: BinaryHeap<Reverse<(Target, u32, u64)>>,
    cancelled_timers: Vec<bool>,
    pending: VecDeque<Event>,
    rates_stale: bool,
    recorder: Option<Recorder>,
}

impl Simulation {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn now(&self) -> Seconds {
        self.now
    }

    pub fn add_resource(&mut self, capacity: Rate, sharing: Sharing) -> ResourceId {
        assert!(
            self.recorder.is_none(),
            "add every resource before recording starts"
        );
        self.rates_stale = true;
        self.lmm.add_constraint(capacity, sharing).index()
    }

    /// Number of resources added so far (their ids are `0..count`).
    pub fn resource_count(&self) -> usize {
        self.lmm.constraint_count()
    }

    /// Changes a resource's capacity from now on (0 models a dead link).
    pub fn set_capacity(&mut self, resource: ResourceId, capacity: Rate) {
        self.rates_stale = true;
        self.lmm.set_capacity(ConstraintId::new(resource), capacity);
    }

    pub fn capacity(&self, resource: ResourceId) -> Rate {
        self.lmm.capacity(ConstraintId::new(resource))
    }

    /// Records, from now on, every resource's use as change points
    /// ([`Recorder`]): a point each time an event changes a resource's use.
    pub fn record(&mut self) {
        self.lmm.track_changes();
        self.recorder = Some(Recorder::new(self.lmm.constraint_count(), self.now));
    }

    pub fn recorder(&self) -> Option<&Recorder> {
        self.recorder.as_ref()
    }

    /// Stops recording and hands over what was recorded.
    pub fn take_recorder(&mut self) -> Option<Recorder> {
        self.recorder.take()
    }

    /// Starts an activity now.
    pub fn start(&mut self, spec: &ActivitySpec) -> ActivityId {
        assert!(
            spec.amount >= 0.0,
            "amount must be >= 0 (infinite for background work), got {}",
            spec.amount
        );
        let id = ActivityId(self.activities.len() as u32);
        self.activities.push(Activity {
            class: u32::MAX,
            target: 0.0,
            amount: spec.amount,
            state: ActivityState::Running,
            started_at: self.now,
            finished_at: None,
        });
        self.join_class(id, spec.amount, spec);
        id
    }

    /// Stops an activity; it will never complete.
    pub fn cancel(&mut self, a: ActivityId) {
        if self.activities[a.0 as usize].state != ActivityState::Running {
            return;
        }
        self.leave_class(a);
        let act = &mut self.activities[a.0 as usize];
        act.state = ActivityState::Cancelled;
        act.finished_at = Some(self.now);
    }

    /// Changes the bound of a running activity.
    pub fn set_bound(&mut self, a: ActivityId, bound: Option<Rate>) {
        let mut spec = self.spec_of(a);
        spec.bound = bound;
        self.move_to(a, &spec);
    }

    /// Moves a running activity onto other resources (failover, rebalancing).
    pub fn reroute(&mut self, a: ActivityId, usage: Vec<(ResourceId, f64)>) {
        let mut spec = self.spec_of(a);
        spec.usage = usage;
        self.move_to(a, &spec);
    }

    pub fn state(&self, a: ActivityId) -> ActivityState {
        self.activities[a.0 as usize].state
    }

    pub fn started_at(&self, a: ActivityId) -> Seconds {
        self.activities[a.0 as usize].started_at
    }

    pub fn finished_at(&self, a: ActivityId) -> Option<Seconds> {
        self.activities[a.0 as usize].finished_at
    }

    /// Work still to do: between 0 and the amount (`target − progress`
    /// may round past the amount, `(p + w) − p > w`).
    pub fn remaining(&self, a: ActivityId) -> Amount {
        let act = &self.activities[a.0 as usize];
        match act.state {
            ActivityState::Running => {
                (act.target - self.progress.progress_at(act.class, self.now)).clamp(0.0, act.amount)
            }
            ActivityState::Completed => 0.0,
            ActivityState::Cancelled => act.amount,
        }
    }

    /// The current rate, solving first if anything changed.
    pub fn rate(&mut self, a: ActivityId) -> Rate {
        self.update_rates();
        let act = &self.activities[a.0 as usize];
        match act.state {
            ActivityState::Running => self.lmm.value(self.class(act.class).var),
            _ => 0.0,
        }
    }

    /// The current use of a resource, solving first if anything changed.
    pub fn usage(&mut self, resource: ResourceId) -> Rate {
        self.update_rates();
        self.lmm.usage(ConstraintId::new(resource))
    }

    /// Number of activities still running.
    pub fn running(&self) -> usize {
        self.classes
            .iter()
            .flatten()
            .map(|c| c.members as usize)
            .sum()
    }

    /// How the solver's solves went so far.
    pub fn solve_stats(&self) -> SolveStats {
        self.lmm.stats()
    }

    /// Number of distinct solver variables (classes of identical activities).
    pub fn class_count(&self) -> usize {
        self.lmm.variable_count()
    }

    /// Fires `tag` at time `at` (not before now).
    pub fn schedule(&mut self, at: Seconds, tag: u64) -> TimerId {
        assert!(
            at >= self.now - TIME_EPSILON,
            "cannot schedule at {at}, before now ({})",
            self.now
        );
        let id = self.cancelled_timers.len() as u32;
        self.cancelled_timers.push(false);
        self.timers
            .push(Reverse((Target(at.max(self.now)), id, tag)));
        TimerId(id)
    }

    pub fn cancel_timer(&mut self, t: TimerId) {
        self.cancelled_timers[t.0 as usize] = true;
    }

    /// Advances to the next event and returns it, or `None` when nothing can
    /// happen any more (no timer left, and no running activity with finite
    /// work has a rate: background work does not keep the loop going).
    pub fn next_event(&mut self) -> Option<Event> {
        if let Some(e) = self.pending.pop_front() {
            return Some(e);
        }
        self.update_rates();
        let t = self.next_completion().min(self.next_timer_time());
        if !t.is_finite() {
            return None;
        }
        self.advance_to(t);
        self.collect_completions();
        self.collect_timers();
        self.pending.pop_front()
    }

    /// Runs until nothing can happen, calling `handler` at each event; the
    /// handler may start, cancel, re-bound and re-route activities, change
    /// capacities and schedule timers.
    pub fn run<F: FnMut(&mut Simulation, Event)>(&mut self, mut handler: F) {
        while let Some(e) = self.next_event() {
            handler(self, e);
        }
    }

    /// Like `run`, but stops at time `until` (events at `until` included).
    pub fn run_until<F: FnMut(&mut Simulation, Event)>(&mut self, until: Seconds, mut handler: F) {
        loop {
            if self.pending.is_empty() {
                self.update_rates();
                let t = self.next_completion().min(self.next_timer_time());
                if t > until + TIME_EPSILON {
                    if until > self.now {
                        self.advance_to(until);
                    }
                    return;
                }
            }
            match self.next_event() {
                Some(e) => handler(self, e),
                None => return,
            }
        }
    }
}
