//! Where each class of activities is in its work, and when its next member
//! completes, kept per bottleneck in virtual time.
//!
//! # The idea (weighted fair queueing's virtual time)
//!
//! The solver gives a class bottlenecked on constraint `g` the rate
//! `w · λ_g`, with `λ_g` the level `g` saturated at (`crate::lmm`). Each
//! constraint keeps its *virtual time* `V_g(t) = ∫ λ_g dt`, settled only when
//! `λ_g` changes. A class in group `g` has done, per member,
//!
//! ```text
//!   progress(t) = p + w · (V_g(t) − V_ref)
//! ```
//!
//! from a reference pair `(p, V_ref)` taken when it joined the group, and
//! its next member (target `T`) completes when `V_g` reaches the *virtual
//! finish* `F = V_ref + (T − p) / w`, that is at
//! `t = since_g + (F − V_g(since_g)) / λ_g`. `F` does not depend on `λ_g`,
//! so a level that moves changes no class: each group keeps its classes in
//! a heap by `F`, and the next completion of the whole system is the
//! earliest of the groups' tops. An event then costs a settle per level
//! that moved and a re-placement per class whose bottleneck changed,
//! instead of a new rate and completion time for every class whose rate
//! moved (most of them, at each completion, on a coupled network).
//!
//! A class limited by its own bound (or unlimited) runs at a fixed rate
//! and waits in one heap by completion time (`FIXED`).
//!
//! Heap entries are not removed when a class moves or its next target
//! changes: each filing of a class has a stamp, an entry is current while
//! the class is in that group with that stamp (so a class has at most one
//! current entry), and stale ones are dropped when they reach the top, or
//! all at once when the heap grows past twice its classes (so its size
//! stays proportional to them, however often they are filed again).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::lmm::Bottleneck;
use crate::units::{Rate, Seconds};

/// A float ordered totally, for heaps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Target(pub f64);
impl Eq for Target {}
impl PartialOrd for Target {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Target {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// A class with no rate yet (not solved since it was made), or freed.
const NO_GROUP: u32 = u32::MAX;
/// A class at a fixed rate: its bound's, or unlimited.
const FIXED: u32 = u32::MAX - 1;

/// A class filed in a heap: its key (virtual finish or time), the class,
/// and the stamp of that filing.
type Entry = Reverse<(Target, u32, u32)>;

/// A saturated constraint's clock.
#[derive(Debug, Default)]
struct Group {
    /// `λ_g`: the rate per unit of weight of the classes in the group.
    level: f64,
    /// `V_g` at `since`.
    vtime: f64,
    since: Seconds,
    /// (virtual finish, class, stamp) of the classes in the group.
    heap: BinaryHeap<Entry>,
    /// Classes in the group.
    live: u32,
}

impl Group {
    fn vtime_at(&self, t: Seconds) -> f64 {
        self.vtime + self.level * (t - self.since)
    }

    /// When `V_g` reaches `finish` at the current level.
    fn time_of(&self, finish: f64) -> Seconds {
        if self.level > 0.0 {
            self.since + (finish - self.vtime).max(0.0) / self.level
        } else {
            f64::INFINITY
        }
    }
}

/// Where one class's members are in their work.
#[derive(Clone, Copy, Debug)]
struct Clock {
    /// Work each member has done since the class was made, as of `since`
    /// (and, in a constraint's group, as of the group's virtual time `vref`).
    progress: f64,
    since: Seconds,
    vref: f64,
    group: u32,
    /// The rate, in group `FIXED`.
    rate: Rate,
    weight: f64,
    /// The smallest target of the class's members.
    next_target: f64,
    /// Its key in its group's heap: the virtual finish, or (`FIXED`) the
    /// completion time; infinite when it has none.
    finish: f64,
    /// The stamp of its last filing, and whether that entry is still in
    /// the heap (not taken out by `take_due`, not outdated).
    stamp: u32,
    filed: bool,
}

/// The clocks of every class and the groups they run in.
#[derive(Debug, Default)]
pub(crate) struct Progress {
    clocks: Vec<Clock>,
    groups: Vec<Group>,
    /// When each group's next class completes (dense, for a quick scan),
    /// and the groups whose heap or level changed since it was computed.
    group_next: Vec<Seconds>,
    dirty: Vec<u32>,
    is_dirty: Vec<bool>,
    fixed: BinaryHeap<Entry>,
    fixed_live: u32,
}

/// Whether `entry` of `group` is its class's current filing.
fn current(clocks: &[Clock], group: u32, entry: &Entry) -> bool {
    let Reverse((_, c, stamp)) = *entry;
    let clock = &clocks[c as usize];
    clock.group == group && clock.filed && clock.stamp == stamp
}

/// The smallest current entry of `group`'s heap, as (key, class), after
/// dropping the stale ones above it.
fn first_current(heap: &mut BinaryHeap<Entry>, clocks: &[Clock], group: u32) -> Option<(f64, u32)> {
    while let Some(entry) = heap.peek() {
        if current(clocks, group, entry) {
            let Reverse((Target(key), c, _)) = *entry;
            return Some((key, c));
        }
        heap.pop();
    }
    None
}

impl Progress {
    /// Makes (or reuses) the slot of class `c`, with no work done yet.
    pub fn new_class(&mut self, c: u32, now: Seconds, weight: f64) {
        let clock = Clock {
            progress: 0.0,
            since: now,
            vref: 0.0,
            group: NO_GROUP,
            rate: 0.0,
            weight,
            next_target: f64::INFINITY,
            finish: f64::INFINITY,
            stamp: 0,
            filed: false,
        };
        match self.clocks.get_mut(c as usize) {
            Some(slot) => {
                // Entries of the slot's former class must stay outdated.
                let stamp = slot.stamp.wrapping_add(1);
                *slot = Clock { stamp, ..clock };
            }
            None => {
                debug_assert_eq!(c as usize, self.clocks.len());
                self.clocks.push(clock);
            }
        }
    }

    /// Class `c` is gone: its heap entries go stale.
    pub fn free_class(&mut self, c: u32) {
        self.leave_group(c);
    }

    /// Work each member of class `c` has done since the class was made.
    pub fn progress_at(&self, c: u32, t: Seconds) -> f64 {
        let clock = &self.clocks[c as usize];
        match clock.group {
            NO_GROUP => clock.progress,
            FIXED if clock.rate.is_infinite() => f64::INFINITY,
            FIXED => clock.progress + clock.rate * (t - clock.since),
            g => {
                let vtime = self.groups[g as usize].vtime_at(t);
                clock.progress + clock.weight * (vtime - clock.vref)
            }
        }
    }

    /// Takes class `c`'s progress at `now` as its new reference.
    pub fn settle(&mut self, c: u32, now: Seconds) {
        let progress = self.progress_at(c, now);
        let clock = &mut self.clocks[c as usize];
        clock.progress = progress;
        clock.since = now;
        if clock.group < FIXED {
            clock.vref = self.groups[clock.group as usize].vtime_at(now);
        }
    }

    /// A member with `work` to do joins class `c` now; returns its target.
    pub fn add_member(&mut self, c: u32, now: Seconds, work: f64) -> f64 {
        self.settle(c, now);
        let clock = &mut self.clocks[c as usize];
        let target = clock.progress + work;
        if target < clock.next_target {
            clock.next_target = target;
            self.rekey(c);
        }
        target
    }

    /// Class `c`'s smallest target is now `next_target`.
    pub fn set_next_target(&mut self, c: u32, next_target: f64) {
        self.clocks[c as usize].next_target = next_target;
        self.rekey(c);
    }

    /// Puts class `c` (settled at `now`) in the group of its new
    /// bottleneck; `rate` is its rate when that is its bound or nothing.
    pub fn place(&mut self, c: u32, now: Seconds, bottleneck: Bottleneck, rate: Rate) {
        self.leave_group(c);
        let group = match bottleneck {
            Bottleneck::Constraint(g) => {
                self.group_mut(g.index()).live += 1;
                u32::try_from(g.index()).expect("a constraint id fits in 32 bits")
            }
            Bottleneck::Bound | Bottleneck::None => {
                self.fixed_live += 1;
                FIXED
            }
        };
        let vref = if group < FIXED {
            self.groups[group as usize].vtime_at(now)
        } else {
            0.0
        };
        let clock = &mut self.clocks[c as usize];
        clock.group = group;
        clock.since = now;
        clock.vref = vref;
        clock.rate = rate;
        self.rekey(c);
    }

    /// Constraint `g` saturates at `level` from `now` on.
    pub fn set_level(&mut self, g: usize, now: Seconds, level: f64) {
        let group = self.group_mut(g);
        if group.level == level {
            return;
        }
        group.vtime = group.vtime_at(now);
        group.since = now;
        group.level = level;
        self.mark(g as u32);
    }

    /// When the next member of any class completes.
    pub fn next_completion(&mut self) -> Seconds {
        self.refresh();
        // Eight running minima, each a plain select, so that the scan
        // vectorizes.
        let mut lanes = [f64::INFINITY; 8];
        let blocks = self.group_next.chunks_exact(8);
        let tail = blocks
            .remainder()
            .iter()
            .fold(f64::INFINITY, |m, &t| if t < m { t } else { m });
        for block in blocks {
            for (m, &t) in lanes.iter_mut().zip(block) {
                *m = if t < *m { t } else { *m };
            }
        }
        let groups = lanes.iter().fold(tail, |m, &t| if t < m { t } else { m });
        groups.min(self.fixed_top())
    }

    /// Takes out the classes whose next member completes by `horizon`
    /// (each once, in class order); their heap entries are used up, so
    /// each must be re-keyed ([`Progress::set_next_target`], or
    /// [`Progress::rekey`] when nothing completed).
    pub fn take_due(&mut self, horizon: Seconds, due: &mut Vec<u32>) {
        due.clear();
        self.refresh();
        for g in 0..self.groups.len() {
            if self.group_next[g] > horizon {
                continue;
            }
            let group = &mut self.groups[g];
            while let Some((finish, c)) = first_current(&mut group.heap, &self.clocks, g as u32) {
                if group.time_of(finish) > horizon {
                    break;
                }
                group.heap.pop();
                self.clocks[c as usize].filed = false;
                due.push(c);
            }
            self.mark(g as u32);
        }
        while let Some((at, c)) = first_current(&mut self.fixed, &self.clocks, FIXED) {
            if at > horizon {
                break;
            }
            self.fixed.pop();
            self.clocks[c as usize].filed = false;
            due.push(c);
        }
        due.sort_unstable();
        due.dedup();
    }

    /// Computes class `c`'s key from its progress and next target, and
    /// files it in its group's heap.
    pub fn rekey(&mut self, c: u32) {
        let clock = &mut self.clocks[c as usize];
        let group = clock.group;
        let finish = match group {
            NO_GROUP => f64::INFINITY,
            FIXED if clock.rate > 0.0 && clock.next_target.is_finite() => {
                clock.since + (clock.next_target - clock.progress).max(0.0) / clock.rate
            }
            FIXED => f64::INFINITY,
            _ if clock.next_target.is_finite() => {
                clock.vref + (clock.next_target - clock.progress) / clock.weight
            }
            _ => f64::INFINITY,
        };
        if clock.filed && finish.to_bits() == clock.finish.to_bits() {
            // Its entry stands.
            return;
        }
        clock.finish = finish;
        clock.stamp = clock.stamp.wrapping_add(1);
        clock.filed = finish.is_finite() && group != NO_GROUP;
        if !clock.filed {
            return;
        }
        let entry = Reverse((Target(finish), c, clock.stamp));
        let clocks = &self.clocks;
        if group == FIXED {
            self.fixed.push(entry);
            if self.fixed.len() > 2 * self.fixed_live as usize + 64 {
                self.fixed.retain(|e| current(clocks, FIXED, e));
            }
        } else {
            let g = &mut self.groups[group as usize];
            g.heap.push(entry);
            if g.heap.len() > 2 * g.live as usize + 64 {
                g.heap.retain(|e| current(clocks, group, e));
            }
            self.mark(group);
        }
    }

    fn leave_group(&mut self, c: u32) {
        let clock = &mut self.clocks[c as usize];
        let group = clock.group;
        clock.group = NO_GROUP;
        clock.finish = f64::INFINITY;
        clock.stamp = clock.stamp.wrapping_add(1);
        clock.filed = false;
        match group {
            NO_GROUP => {}
            FIXED => self.fixed_live -= 1,
            g => {
                self.groups[g as usize].live -= 1;
                self.mark(g);
            }
        }
    }

    fn mark(&mut self, g: u32) {
        if !self.is_dirty[g as usize] {
            self.is_dirty[g as usize] = true;
            self.dirty.push(g);
        }
    }

    /// Recomputes `group_next` for the groups that changed.
    fn refresh(&mut self) {
        for &g in &self.dirty {
            self.is_dirty[g as usize] = false;
            let group = &mut self.groups[g as usize];
            let first = first_current(&mut group.heap, &self.clocks, g);
            self.group_next[g as usize] = first.map_or(f64::INFINITY, |(f, _)| group.time_of(f));
        }
        self.dirty.clear();
    }

    fn fixed_top(&mut self) -> Seconds {
        first_current(&mut self.fixed, &self.clocks, FIXED).map_or(f64::INFINITY, |(at, _)| at)
    }

    /// Group `g`, made (with those before it) if new.
    fn group_mut(&mut self, g: usize) -> &mut Group {
        if self.groups.len() <= g {
            self.groups.resize_with(g + 1, Group::default);
            self.group_next.resize(g + 1, f64::INFINITY);
            self.is_dirty.resize(g + 1, false);
        }
        &mut self.groups[g]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lmm::ConstraintId;

    #[test]
    fn a_class_runs_on_its_group_s_virtual_time() {
        // Weight 2 at level 3 (rate 6) from 0, the level 5 (rate 10) from 1 s:
        // 6 done at 1 s, 16 at 2 s; a member with 26 to do ends at 3 s.
        let mut p = Progress::default();
        p.new_class(0, 0.0, 2.0);
        p.set_level(4, 0.0, 3.0);
        p.place(0, 0.0, Bottleneck::Constraint(ConstraintId::new(4)), 6.0);
        let target = p.add_member(0, 0.0, 26.0);
        p.set_level(4, 1.0, 5.0);
        assert!((p.progress_at(0, 1.0) - 6.0).abs() < 1e-12);
        assert!((p.progress_at(0, 2.0) - 16.0).abs() < 1e-12);
        assert!((p.next_completion() - 3.0).abs() < 1e-12);
        let mut due = Vec::new();
        p.take_due(3.0, &mut due);
        assert_eq!(due, vec![0]);
        assert!((p.progress_at(0, 3.0) - target).abs() < 1e-12);
    }

    #[test]
    fn filing_classes_again_and_again_keeps_the_heap_proportional_to_them() {
        // Ten classes placed again in their group 1,000 times each (as a
        // solve from scratch does), their targets moving: the heap never
        // holds more than twice its classes plus the slack, and the next
        // completion is always the smallest target's.
        let mut p = Progress::default();
        p.set_level(0, 0.0, 1.0);
        for c in 0..10 {
            p.new_class(c, 0.0, 1.0);
            p.add_member(c, 0.0, 100.0 + c as f64);
        }
        for round in 0..1000 {
            for c in 0..10 {
                p.settle(c, 0.0);
                p.place(c, 0.0, Bottleneck::Constraint(ConstraintId::new(0)), 1.0);
                p.set_next_target(c, 100.0 + c as f64 + (round % 7) as f64);
            }
            assert!(
                p.groups[0].heap.len() <= 2 * 10 + 64 + 1,
                "{}",
                p.groups[0].heap.len()
            );
            let expected = 100.0 + (round % 7) as f64;
            assert!((p.next_completion() - expected).abs() < 1e-9);
        }
    }
}
