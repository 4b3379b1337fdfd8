//! Filling again in the last filling's order, unsorted, checked as it goes.
//!
//! Sorting the constraints to fill again, and keeping them sorted as their
//! levels rise, cost as much as the filling itself. It is rarely needed:
//! after an activity leaves, the new filling is the last one's order with
//! a constraint or two moved by a pop or two (docs/performance.md counts
//! how often). So a restart without bounds in play tries the constraints
//! in the order of the pops it undid, then the other constraints it
//! touched, and checks the filling as it goes:
//!
//! - each variable freezes at the first of its constraints to pop, and
//!   each popped constraint is exactly full;
//! - if the levels come out non-decreasing in that order and no constraint
//!   that did not pop is over-full (beyond rounding, [`FULL_WITHIN`]),
//!   every variable has a *bottleneck*: a full constraint on which no
//!   variable runs faster relative to its weight (the others froze at
//!   earlier pops, at lower levels). That characterises the max-min fair
//!   rates, which are unique, so the filling is the one sorted levels
//!   would give;
//! - a constraint taken out of turn shows: one whose level was below a
//!   pop's only falls as variables freeze above it, so it pops below the
//!   last pop or ends over-full. It then goes before the first pop above
//!   its level (or before the pop that froze its last variable): those
//!   pops are rolled back (`Solver::roll_back_to`; the variables that
//!   switched to them switch back) and done again after it. Most moves are
//!   the other way, the changed constraint's level having risen: a
//!   constraint whose next in the order is already lower goes after it,
//!   before popping.
//!
//! After more rolled-back pops than the filling has (levels tied to the
//! last bit can take turns), it gives up: the state goes back to the
//! restart and the sorted filling runs. `SolveStats` counts what happened.
//! The cost of a solve again is then one pass over what the pops from the
//! restart on logged (the undo) and one over their records (the fill),
//! with no sort.

use super::model::{narrow, position, Model};
use super::solver::Solver;

/// How far above its capacity a constraint that did not pop may end, in
/// relative terms, and still count as full rather than over-full: the
/// rounding of the sum of its uses, when it ties with the pop that froze
/// its last variable (two constraints with the same variables, say).
const FULL_WITHIN: f64 = 1e-12;

impl Solver {
    /// Fills again from the restart (the pops so far) in the order of the
    /// pops it undid, then the other constraints it touched. Returns
    /// whether it filled; if not, the state is back at the restart.
    pub(super) fn fill_in_order(&mut self, model: &Model) -> bool {
        let k = self.pops.len();
        let s = &mut self.scratch;
        s.order.clear();
        s.order.extend_from_slice(&s.undone);
        for &c in &s.candidates {
            if s.rank[c.index()].is_none() && !model.is_fatpipe(c) {
                s.order.push(c);
            }
        }
        s.order_at.clear();
        s.switches.clear();
        s.in_order = true;
        let mut budget = s.order.len() + 16;
        let mut at = 0;
        let filled = loop {
            let Some(&c) = self.scratch.order.get(at) else {
                // Tried them all: done unless one that did not pop is over-full.
                match self.over_full(k, model) {
                    None => break true,
                    Some((from, i)) => {
                        // It goes before the pop that froze its last variable.
                        self.stats.over_full += 1;
                        match self.move_back(k, i, from, &mut budget, model) {
                            Some(to) => at = to,
                            None => break false,
                        }
                        continue;
                    }
                }
            };
            if self.load[c.index()].unfrozen == 0 {
                at += 1;
                continue;
            }
            let level = self.level_of(c, model);
            if self.pops.len() > k && level < self.pops[self.pops.len() - 1].level {
                // `c` saturates below pops already done: it goes before the
                // first of them above its level.
                let i = k + self.pops[k..].partition_point(|p| p.level <= level);
                match self.move_back(k, i, at, &mut budget, model) {
                    Some(to) => at = to,
                    None => break false,
                }
                continue;
            }
            // The next one saturating first: `c` is not the lowest, it
            // goes after it (cheaper than popping it and rolling it back).
            let next = self.scratch.order.get(at + 1).copied();
            if next.is_some_and(|n| {
                self.load[n.index()].unfrozen > 0 && self.level_of(n, model) < level
            }) {
                self.scratch.order.swap(at, at + 1);
                continue;
            }
            self.scratch.order_at.push(narrow(at));
            self.pop_constraint(c, level, model);
            at += 1;
        };
        if !filled {
            self.stats.given_up += 1;
            self.roll_back_to(k, model);
        }
        self.scratch.in_order = false;
        filled
    }

    /// After filling in order from pop `k`: the place in the order of a
    /// constraint that did not pop and is over-full, and the pop that froze
    /// its last variable (its last change in the log; the restart if none).
    fn over_full(&self, k: usize, model: &Model) -> Option<(usize, usize)> {
        // Every constraint in the order is open at the restart, so one that
        // has not popped since has no pop at all.
        let from = self.scratch.order.iter().position(|&c| {
            self.popped_at[c.index()].is_none()
                && self.load[c.index()].used > model.constraint(c).capacity * (1.0 + FULL_WITHIN)
        })?;
        let c = self.scratch.order[from];
        let i = match self.log.iter().rposition(|u| u.cnst == c) {
            Some(entry) => self.pops.partition_point(|p| p.log_start() <= entry) - 1,
            None => k,
        };
        Some((from, i.max(k)))
    }

    /// Moves the constraint at place `from` in the order to just before pop
    /// `i`'s (from the restart `k` on), rolls back to pop `i`, and returns
    /// its new place. `None` (give up) when that would roll back more pops
    /// than are left in `budget`, or pop `i`'s is not before it (rounding).
    fn move_back(
        &mut self,
        k: usize,
        i: usize,
        from: usize,
        budget: &mut usize,
        model: &Model,
    ) -> Option<usize> {
        let rolled = self.pops.len() - i;
        let s = &mut self.scratch;
        let to = position(s.order_at[i - k]);
        if rolled > *budget || to >= from {
            return None;
        }
        *budget -= rolled;
        s.order[to..=from].rotate_right(1);
        s.order_at.truncate(i - k);
        self.stats.rolled_back += u64::try_from(rolled).expect("a count of pops fits in 64 bits");
        self.roll_back_to(i, model);
        Some(to)
    }
}
