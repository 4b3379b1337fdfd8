//! One step of the loop: the rates solved again when stale, the next event's
//! time, the clock advanced to it, and what is due then collected.

use std::cmp::Reverse;

use super::{ActivityId, ActivityState, Event, Simulation, TimerId, TIME_EPSILON, WORK_EPSILON};
use crate::progress::Target;
use crate::units::Seconds;

impl Simulation {
    pub(super) fn update_rates(&mut self) {
        if !self.rates_stale {
            return;
        }
        self.rates_stale = false;
        if !self.lmm.solve() {
            return;
        }
        let now = self.now;
        // Settle the classes that change group under their old clocks, then
        // move the levels, then place the classes under their new ones. The
        // others follow their group's level as it is.
        for &var in self.lmm.switched() {
            self.progress.settle(self.class_of_var[var.index()], now);
        }
        for (g, level) in self.lmm.saturated() {
            self.progress.set_level(g.index(), now, level);
        }
        for &var in self.lmm.switched() {
            let c = self.class_of_var[var.index()];
            self.progress
                .place(c, now, self.lmm.bottleneck(var), self.lmm.value(var));
        }
    }

    pub(super) fn next_completion(&mut self) -> Seconds {
        self.progress.next_completion()
    }

    pub(super) fn next_timer_time(&mut self) -> Seconds {
        while let Some(&Reverse((Target(t), id, _))) = self.timers.peek() {
            if !self.cancelled_timers[id as usize] {
                return t;
            }
            self.timers.pop();
        }
        f64::INFINITY
    }

    pub(super) fn advance_to(&mut self, t: Seconds) {
        if t > self.now {
            if let Some(rec) = self.recorder.as_mut() {
                // The rates are solved: each use holds from now until t.
                let now = self.now;
                self.lmm
                    .take_changed(|r, usage| rec.note(r.index(), now, usage));
                rec.reach(t);
            }
            self.now = t;
        }
    }

    pub(super) fn collect_completions(&mut self) {
        let mut due = std::mem::take(&mut self.due);
        self.progress.take_due(self.now + TIME_EPSILON, &mut due);
        for &c in &due {
            self.collect_class_completions(c);
        }
        self.due = due;
    }

    /// Completes the members of class `c` that have no work left.
    pub(super) fn collect_class_completions(&mut self, c: u32) {
        let now = self.now;
        loop {
            let Some(class) = self.classes[c as usize].as_ref() else {
                return;
            };
            let Some(&Reverse((Target(target), a))) = class.targets.peek() else {
                return;
            };
            self.progress.settle(c, now);
            let left = target - self.progress.progress_at(c, now);
            let amount = self.activities[a as usize].amount;
            let rate = self.lmm.value(class.var);
            // Background work (an infinite target) is never done.
            if target.is_infinite() || (left > WORK_EPSILON * amount && left > rate * TIME_EPSILON)
            {
                self.progress.rekey(c);
                return;
            }
            let id = ActivityId(a);
            self.leave_class(id);
            let act = &mut self.activities[a as usize];
            act.state = ActivityState::Completed;
            act.finished_at = Some(now);
            self.pending.push_back(Event::Completed(id));
        }
    }

    pub(super) fn collect_timers(&mut self) {
        while let Some(&Reverse((Target(t), id, tag))) = self.timers.peek() {
            if t > self.now + TIME_EPSILON {
                break;
            }
            self.timers.pop();
            if !self.cancelled_timers[id as usize] {
                self.cancelled_timers[id as usize] = true;
                self.pending.push_back(Event::Timer(TimerId(id), tag));
            }
        }
    }
}
