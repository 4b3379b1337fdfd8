//! Solving again from where a change reaches: the pops before it stand,
//! the log takes the state back to it, and the filling goes on from there.
//!
//! # Where a change reaches
//!
//! Most changes in a simulation remove work: an activity completes, so a
//! variable goes away or stands for fewer activities. If variable `v` was
//! frozen by pop `k`, every constraint it crosses saturated at pop `k` or
//! later, and with less of `v` they saturate no earlier: the pops before
//! `k` are unchanged. So the solve starts again at `k* = min k_v` over the
//! changed variables ([`Solver::forget`]).
//!
//! A change that adds work (a new variable, more activities) may saturate
//! a constraint before any pop, so it solves again from the first pop
//! ([`Solver::arrive`]); a new variable has no bottleneck yet, so the pops
//! of its constraints look for it. A new constraint, bound or capacity
//! solves from scratch.
//!
//! # The undo, and what it assumes
//!
//! Each pop logs, for each constraint it changes, the use before and the
//! weight and unfrozen variables it took off ([`super::solver::Undo`]).
//! The undo is exact because every constraint is empty after a filling:
//! its weight is reset to exactly 0 when its last variable freezes. So its
//! state at `k*` is the use before the first pop from `k*` on that touched
//! it, and the sum of the weights those pops took off; undoing from the
//! first pop rebuilds every constraint's state at 0 from the log, cheaper
//! than summing every variable's elements again. Then the changes apply
//! (`S_c` loses the old `n_v · w_v · a_cv` and gains the new), and the
//! filling goes on, in the last filling's order when no bound is in play
//! (`super::in_order`), else sorted (`super::fill`). A restart at `k*` is
//! exactly the tail of a solve from 0, so the two agree to rounding.
//!
//! The undone pops are open again, in their order: a variable they froze
//! is still unfrozen when constraint `x` pops only if the new filling has
//! not done its pop `j` again yet, and `j` came before `x`'s own undone pop
//! (the variable froze at `j` while `x` was open). So a pop walks its
//! variable list, looking for variables that switch to it, only while an
//! undone pop before its own is still open (`Scratch::first_open`).
//!
//! Worked example: links L1 (capacity 6) and L2 (capacity 10); x uses L1,
//! y uses L1 and L2, z uses L2, all weight 1. The fill: L1 saturates at 3
//! (x = y = 3), then L2 keeps 7 for z alone (z = 7, level 7). Now z ends:
//! it was frozen by the second pop, so x and y (the first) keep their
//! rates, the state before the second pop is restored (L2 carries y's 3,
//! with z's weight on it), z's weight is taken off, and nothing is left to
//! fill. If x ends instead, both pops are undone and L1 has 6 left for y
//! alone (level 6), L2 10 for y and z (level 5); L2 saturates first, so
//! y = z = 5 (y switches from L1 to L2), and L1 carries 5 of its 6.
//!
//! # Why not only the changed connected component
//!
//! The constraint graph (constraints linked by the variables they share)
//! splits into components whose problems are independent, so a change
//! could be solved again inside its component. The restart is already
//! finer: what is filled again is the changed variable's component *in the
//! residual graph at `k*`* (constraints and variables still unfrozen at
//! that pop), plus the other residual components. On a coupled network
//! that residual graph is nearly all one component (docs/performance.md
//! has the figures), and a search for it would cost as much as the pass it
//! could save, so there is none.

use super::model::{ConstraintId, Model, VarId};
use super::solver::{PopId, Popped, Rank, Solver};
use super::Bottleneck;

/// A change since the last solve to the weight of a variable on `cnst`:
/// `S` loses `old` and gains `new`, and the variables on it change by
/// `joins` (-1: it left, +1: it is new, 0: its count changed).
#[derive(Clone, Copy, Debug)]
pub(super) struct Pending {
    cnst: ConstraintId,
    old: f64,
    new: f64,
    joins: i32,
}

/// What changed since the last solve, and so where the next one starts.
#[derive(Default, Debug)]
pub(super) struct Edits {
    /// Solve from scratch: a constraint, a bound or a capacity changed,
    /// or there is no filling to start from.
    pub full: bool,
    /// Else solve again from this pop (`None`: nothing changed) with the
    /// `pending` changes.
    pub restart: Option<PopId>,
    pub pending: Vec<Pending>,
    /// Variables added since the last solve, when it starts again from the
    /// first pop.
    pub arrived: Vec<VarId>,
    /// Variables whose bound changed (their rate moves if they stay at it).
    pub rebound: Vec<VarId>,
}

impl Solver {
    /// Notes that variable `v` now stands for `count` activities (0: it
    /// leaves, `gone`): if the last solve froze it, the solution changed
    /// from the pop that froze it, and its constraints' weight changes there.
    pub(super) fn forget(&mut self, v: VarId, count: u32, gone: bool, model: &Model) {
        if !self.solved[v.index()] {
            // Added since the last solve, which starts from scratch.
            self.edits.full = true;
            return;
        }
        let Some(k) = self.frozen_by(v) else {
            // Unlimited (no shared constraint, no bound): it weighs on nothing.
            return;
        };
        let edits = &mut self.edits;
        edits.restart = Some(edits.restart.map_or(k, |r| r.min(k)));
        let var = model.variable(v);
        let (old, new) = (var.n_weight(), f64::from(count) * var.weight);
        for e in var.elements.as_slice() {
            edits.pending.push(Pending {
                cnst: e.cnst,
                old: old * e.coeff,
                new: new * e.coeff,
                joins: -i32::from(gone),
            });
        }
    }

    /// Notes that variable `v` now stands for more activities than the
    /// `old` of the last solve (0: it is new). More weight may saturate a
    /// constraint before any pop of the last filling, so the solve starts
    /// again at the first pop, with its constraints' weight changed
    /// (from scratch only when there is no filling to start from, or
    /// nothing for the new one to weigh on).
    pub(super) fn arrive(&mut self, v: VarId, old: u32, model: &Model) {
        let var = model.variable(v);
        let edits = &mut self.edits;
        if edits.full || self.pops.is_empty() || var.elements.len() == 0 {
            edits.full = true;
            return;
        }
        if old > 0 && !self.solved[v.index()] {
            // Added since the last solve: it is already arriving.
            edits.full = true;
            return;
        }
        edits.restart = Some(PopId::new(0));
        let (before, after) = (f64::from(old) * var.weight, var.n_weight());
        for e in var.elements.as_slice() {
            edits.pending.push(Pending {
                cnst: e.cnst,
                old: before * e.coeff,
                new: after * e.coeff,
                joins: i32::from(old == 0),
            });
        }
        if old == 0 {
            edits.arrived.push(v);
        }
    }

    /// Solves again from pop `k`: undoes the pops from `k` on, applies the
    /// pending changes, and fills on.
    pub(super) fn solve_from(&mut self, k: PopId, model: &Model) {
        let k = k.index();
        self.solved_from = k;
        let s = &mut self.scratch;
        s.bounded.clear();
        s.candidates.clear();
        s.candidate.resize(self.load.len(), false);
        s.rank.resize(self.load.len(), None);
        s.var_rank.resize(model.variables.len(), None);
        s.look_for_new.resize(self.load.len(), false);
        // Each constraint's state at pop `k`: the use before the first pop
        // from `k` on that touched it, and the weights they took off.
        let log_start = self.pops[k].log_start();
        for u in &self.log[log_start..] {
            let c = u.cnst.index();
            let load = &mut self.load[c];
            if s.candidate[c] {
                load.weight_sum += u.weight;
                load.unfrozen += u.unfrozen;
            } else {
                s.candidate[c] = true;
                s.candidates.push(u.cnst);
                self.touched.mark(u.cnst);
                load.used = u.used;
                load.weight_sum = u.weight;
                load.unfrozen = u.unfrozen;
            }
        }
        self.log.truncate(log_start);
        // The undone pops are open again, in their order.
        s.undone.clear();
        s.undone_bounds.clear();
        for (j, p) in self.pops[k..].iter().enumerate() {
            match p.popped {
                Popped::Constraint(c) => {
                    self.popped_at[c.index()] = None;
                    s.rank[c.index()] = Some(Rank::new(j));
                    s.undone.push(c);
                }
                Popped::Bound(v) => {
                    self.frozen_at[v.index()] = None;
                    s.var_rank[v.index()] = Some(Rank::new(j));
                    s.undone_bounds.push(v);
                }
            }
        }
        s.redone.clear();
        s.redone.resize(self.pops.len() - k, false);
        s.first_open = 0;
        if self.bounded > 0 {
            // The variables they froze that can reach a bound: at a bound,
            // or each with a run of records on the constraint.
            let mut unfreeze = |v: VarId| {
                let level = self.bound_level[v.index()];
                if level.is_finite() && model.is_alive(v) {
                    s.bounded.push((level, v));
                }
            };
            for p in &self.pops[k..] {
                let c = match p.popped {
                    Popped::Bound(v) => {
                        unfreeze(v);
                        continue;
                    }
                    Popped::Constraint(c) => c,
                };
                // Each variable's records are contiguous: a new one starts a run.
                let mut previous = VarId::bits(None);
                for r in &self.records[c.index()].list {
                    if VarId::bits(r.var) != previous {
                        previous = VarId::bits(r.var);
                        if let Some(v) = r.var {
                            unfreeze(v);
                        }
                    }
                }
            }
        }
        for p in &self.edits.pending {
            let c = p.cnst.index();
            let load = &mut self.load[c];
            load.weight_sum = load.weight_sum - p.old + p.new;
            load.unfrozen = load.unfrozen.wrapping_add_signed(p.joins);
            if !s.candidate[c] {
                // A constraint no variable crossed before the new one.
                s.candidate[c] = true;
                s.candidates.push(p.cnst);
                self.touched.mark(p.cnst);
            }
        }
        // A new variable is frozen by whichever of its constraints pops
        // first: those look for it.
        for &v in &self.edits.arrived {
            let level = self.bound_level[v.index()];
            if level.is_finite() {
                s.bounded.push((level, v));
            }
            for e in model.variable(v).elements.as_slice() {
                s.look_for_new[e.cnst.index()] = true;
            }
        }
        for &c in &s.candidates {
            s.candidate[c.index()] = false;
        }
        self.pops.truncate(k);
        // Without bounds in play, the new filling is nearly always the last
        // one's order with a few constraints moved: try that order first.
        let bounds_in_play = !s.bounded.is_empty() || !s.undone_bounds.is_empty();
        if !bounds_in_play && self.fill_in_order(model) {
            self.stats.in_order += 1;
        } else {
            self.stats.sorted += 1;
            self.fill(model);
        }
        let s = &mut self.scratch;
        for &c in &s.undone {
            s.rank[c.index()] = None;
        }
        for &v in &self.edits.arrived {
            self.solved[v.index()] = true;
            for e in model.variable(v).elements.as_slice() {
                s.look_for_new[e.cnst.index()] = false;
            }
            if self.bottleneck[v.index()] == Bottleneck::None {
                // New and unlimited: reported all the same.
                self.switched.push(v);
            }
        }
        for &v in &s.undone_bounds {
            s.var_rank[v.index()] = None;
        }
        s.redone.clear();
        s.first_open = 0;
    }

    /// Undoes the pops from `i` on, in the middle of a filling: each
    /// constraint they touched gets back its use from before the first of
    /// them, and the weight and unfrozen variables they took off; the
    /// variables they froze are unfrozen, those that switched to them
    /// switch back, and they are open again for the variables' switching.
    pub(super) fn roll_back_to(&mut self, i: usize, model: &Model) {
        let log_start = self.pops[i].log_start();
        for u in self.log[log_start..].iter().rev() {
            let load = &mut self.load[u.cnst.index()];
            load.used = u.used;
            load.weight_sum += u.weight;
            load.unfrozen += u.unfrozen;
        }
        self.log.truncate(log_start);
        while let Some(&switch) = self.scratch.switches.last() {
            if switch.pop.index() < i {
                break;
            }
            self.scratch.switches.pop();
            match switch.before {
                Bottleneck::Constraint(b) => self.switch_to(switch.var, b, model),
                before => {
                    self.drop_records(switch.var, model);
                    self.bottleneck[switch.var.index()] = before;
                }
            }
        }
        let s = &mut self.scratch;
        for p in &self.pops[i..] {
            let rank = match p.popped {
                Popped::Constraint(c) => {
                    self.popped_at[c.index()] = None;
                    s.rank[c.index()]
                }
                Popped::Bound(v) => {
                    self.frozen_at[v.index()] = None;
                    s.var_rank[v.index()]
                }
            };
            if let Some(rank) = rank {
                s.redone[rank.index()] = false;
                s.first_open = s.first_open.min(rank.index());
            }
        }
        self.pops.truncate(i);
    }
}
