//! The solver's state, kept beside the model (`super::model`) and owned by
//! the solver alone: the solution (each saturated constraint's level and
//! use, each variable's bottleneck), the filling that produced it (its pops
//! in order and a log to undo them), the records through which a pop
//! freezes its variables, and the scratch space of one solve.
//!
//! # Records: a pop does not visit its variables
//!
//! Freezing the variables of a saturated constraint `x` must take their
//! use off the other constraints they cross. For the variables
//! bottlenecked on `x`, `x` keeps one *record* per other element
//! `(c', n_v · w_v · a_c'v)`, each variable's contiguous, and the pop adds
//! `record · λ` to each `c'`'s use and takes it off `S_c'`. Nor does the
//! pop mark them frozen: a variable bottlenecked on a constraint is frozen
//! once that constraint has popped in the current filling
//! ([`Solver::frozen_by`]), so a pop costs one write for its variables,
//! plus one per record. A variable on the popped constraint but
//! bottlenecked elsewhere, and still unfrozen, *switches*: its records
//! move to the popped constraint ([`Solver::switch_to`]); the records it
//! leaves behind are marked dead (no variable) and dropped when they are
//! many.

use super::model::{narrow, position, typed_index, ConstraintId, Model, VarId};
use super::restart::Edits;
use super::{Bottleneck, SolveStats};
use crate::levels::LevelQueue;

typed_index! {
    /// A pop of the current filling: its place in `Solver::pops`.
    pub(super) struct PopId;
}

typed_index! {
    /// An undone pop's place among the pops a restart undid, in their order.
    pub(super) struct Rank;
}

/// A constraint's state during a solve, and its use after it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Load {
    /// Σ n_v · a_cv · r_v of the variables frozen so far (after a solve: all);
    /// what remains is `capacity - used`.
    pub used: f64,
    /// `S_c`: Σ n_v · a_cv · w_v over its unfrozen variables.
    pub weight_sum: f64,
    /// Unfrozen variables on it.
    pub unfrozen: u32,
}

impl Load {
    /// The level at which it saturates: what remains of `capacity` over the
    /// weight still filling it. Only asked of a shared constraint.
    #[inline]
    pub fn level(&self, capacity: f64) -> f64 {
        (capacity - self.used).max(0.0) / self.weight_sum.max(f64::MIN_POSITIVE)
    }
}

/// What a pop saturated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Popped {
    /// A shared constraint: its unfrozen variables freeze at its level.
    Constraint(ConstraintId),
    /// A variable's bound (its own, or a fatpipe's).
    Bound(VarId),
}

/// One step of the filling: what saturated, at which level, and where
/// what it changed starts in the log.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pop {
    pub level: f64,
    pub popped: Popped,
    pub log_start: u32,
}

impl Pop {
    pub fn new(level: f64, popped: Popped, log_start: usize) -> Self {
        Self {
            level,
            popped,
            log_start: narrow(log_start),
        }
    }

    /// Where what it changed starts in the log.
    pub fn log_start(&self) -> usize {
        position(self.log_start)
    }
}

/// What a pop changed on a constraint, to undo it: the use before, and the
/// weight and unfrozen variables it took off.
#[derive(Clone, Copy, Debug)]
pub(super) struct Undo {
    pub cnst: ConstraintId,
    pub unfrozen: u32,
    pub used: f64,
    pub weight: f64,
}

/// What freezing one variable bottlenecked on a constraint does to one of
/// its other constraints `cnst`: `weight = n_v · w_v · a_cv` (use per unit
/// of level, and weight taken off `S_c`). A variable that crosses only its
/// bottleneck has one record of the bottleneck itself, which changes
/// nothing. `var` is `None` for a record left by a variable that moved away.
#[derive(Clone, Copy, Debug)]
pub(super) struct Record {
    pub var: Option<VarId>,
    pub cnst: ConstraintId,
    pub weight: f64,
}

/// The records of the variables bottlenecked on one constraint.
#[derive(Clone, Debug, Default)]
pub(super) struct Records {
    pub list: Vec<Record>,
    /// Records in `list` whose variable moved away.
    pub dead: u32,
}

/// A variable that switched to pop `pop`'s constraint while filling in
/// order, and its bottleneck before, to switch it back on a rollback.
#[derive(Clone, Copy, Debug)]
pub(super) struct Switch {
    pub pop: PopId,
    pub var: VarId,
    pub before: Bottleneck,
}

/// Per-solve scratch space, kept to avoid allocating at every event.
#[derive(Default, Debug)]
pub(super) struct Scratch {
    /// Shared constraints that may still saturate, smallest level first.
    pub levels: LevelQueue,
    /// Variables with a bound, by bound level, highest first.
    pub bounded: Vec<(f64, VarId)>,
    /// Constraints to put in `levels`, and whether each is listed.
    pub candidates: Vec<ConstraintId>,
    pub candidate: Vec<bool>,
    /// Solving again: which of the pops undone (in their order) the new
    /// filling has done again, and the first it has not. A constraint's
    /// (`rank`) or a bounded variable's (`var_rank`) place among them; the
    /// constraints of the undone constraint pops and the variables of the
    /// undone bound pops.
    pub redone: Vec<bool>,
    pub undone: Vec<ConstraintId>,
    pub undone_bounds: Vec<VarId>,
    pub first_open: usize,
    pub rank: Vec<Option<Rank>>,
    pub var_rank: Vec<Option<Rank>>,
    /// Solving from scratch: every pop looks for variables to switch;
    /// solving again: the constraints of the new variables do.
    pub look_everywhere: bool,
    pub look_for_new: Vec<bool>,
    /// Filling again in the last filling's order (`super::in_order`): the
    /// constraints in the order they are tried, where in it each pop since
    /// the restart came from, and the variables that switched.
    pub in_order: bool,
    pub order: Vec<ConstraintId>,
    pub order_at: Vec<u32>,
    pub switches: Vec<Switch>,
}

impl Scratch {
    /// The undone pop `j` is done again.
    pub fn redo(&mut self, j: Rank) {
        self.redone[j.index()] = true;
        while self.first_open < self.redone.len() && self.redone[self.first_open] {
            self.first_open += 1;
        }
    }

    /// Variable `v` freezes: if an undone pop was its bound's, it is done.
    pub fn redo_bound_of(&mut self, v: VarId) {
        if let Some(&Some(j)) = self.var_rank.get(v.index()) {
            self.redo(j);
        }
    }
}

/// The constraints whose use may have changed since they were last taken
/// (`System::take_changed`), when tracked.
#[derive(Default, Debug)]
pub(super) struct Touched {
    pub tracking: bool,
    pub list: Vec<ConstraintId>,
    pub listed: Vec<bool>,
}

impl Touched {
    #[inline]
    pub fn mark(&mut self, c: ConstraintId) {
        if self.tracking && !self.listed[c.index()] {
            self.listed[c.index()] = true;
            self.list.push(c);
        }
    }
}

/// Everything the solver keeps, beside the model it solves.
#[derive(Default, Debug)]
pub(super) struct Solver {
    /// Per constraint, parallel to the model's: its load, the level it
    /// saturated at (when it is some variable's bottleneck), its pop in the
    /// current filling, and the records of the variables bottlenecked on it.
    pub load: Vec<Load>,
    pub level: Vec<f64>,
    pub popped_at: Vec<Option<PopId>>,
    pub records: Vec<Records>,
    /// Per variable (dense, read by every pop): its bottleneck, its bound
    /// level `min(b_v, fatpipe) / w_v`, and, at its bound, the pop that
    /// froze it in the current filling. A variable bottlenecked on a
    /// constraint is frozen by that constraint's pop (`popped_at`).
    pub bottleneck: Vec<Bottleneck>,
    pub bound_level: Vec<f64>,
    pub frozen_at: Vec<Option<PopId>>,
    /// Where its records start in its bottleneck's list, and whether it was
    /// solved at least once since it was added (its rate is known).
    pub records_at: Vec<u32>,
    pub solved: Vec<bool>,
    /// Variables with a finite bound level (each can bind).
    pub bounded: u32,
    /// The filling: its pops in order, and what each changed on the
    /// constraints it touched.
    pub pops: Vec<Pop>,
    pub log: Vec<Undo>,
    /// Where the last solve started in `pops`.
    pub solved_from: usize,
    /// Variables whose bottleneck the last solve changed (or whose bound did).
    pub switched: Vec<VarId>,
    pub edits: Edits,
    pub scratch: Scratch,
    pub touched: Touched,
    pub stats: SolveStats,
}

impl Solver {
    /// A constraint was added to the model.
    pub fn add_constraint(&mut self) {
        self.load.push(Load::default());
        self.level.push(f64::INFINITY);
        self.popped_at.push(None);
        self.records.push(Records::default());
        if self.touched.tracking {
            self.touched.listed.push(false);
        }
        self.edits.full = true;
    }

    /// Variable `v` was added to the model (maybe in a freed slot).
    pub fn add_variable(&mut self, v: VarId, model: &Model) {
        let i = v.index();
        if i == self.bottleneck.len() {
            self.bottleneck.push(Bottleneck::None);
            self.bound_level.push(f64::INFINITY);
            self.frozen_at.push(None);
            self.records_at.push(0);
            self.solved.push(false);
        }
        self.solved[i] = false;
        self.frozen_at[i] = None;
        self.bottleneck[i] = Bottleneck::None;
        self.set_bound_level(v, model.variable(v).bound_level());
        self.arrive(v, 0, model);
    }

    /// Variable `v` is about to leave the model.
    pub fn remove_variable(&mut self, v: VarId, model: &Model) {
        self.forget(v, 0, true, model);
        self.drop_records(v, model);
        self.bottleneck[v.index()] = Bottleneck::None;
        self.set_bound_level(v, f64::INFINITY);
    }

    /// Variable `v` now stands for more (or fewer) activities: its records
    /// carry the new `n · w · a`.
    pub fn reweigh(&mut self, v: VarId, model: &Model) {
        let Bottleneck::Constraint(b) = self.bottleneck[v.index()] else {
            return;
        };
        let var = model.variable(v);
        let n_weight = var.n_weight();
        let list = &mut self.records[b.index()].list;
        let mut at = position(self.records_at[v.index()]);
        for e in var.elements.as_slice() {
            if e.cnst != b {
                list[at].weight = n_weight * e.coeff;
                at += 1;
            }
        }
    }

    /// Variable `v`'s bound level changed (its bound, or a fatpipe's capacity).
    pub fn rebound(&mut self, v: VarId, model: &Model) {
        self.set_bound_level(v, model.variable(v).bound_level());
        self.edits.rebound.push(v);
    }

    /// Sets `v`'s bound level, counting the variables whose is finite.
    fn set_bound_level(&mut self, v: VarId, level: f64) {
        let was = self.bound_level[v.index()].is_finite();
        self.bound_level[v.index()] = level;
        match (was, level.is_finite()) {
            (false, true) => self.bounded += 1,
            (true, false) => self.bounded -= 1,
            _ => {}
        }
    }

    /// The rate of each of `v`'s activities.
    pub fn value(&self, v: VarId, model: &Model) -> f64 {
        let weight = model.variable(v).weight;
        match self.bottleneck[v.index()] {
            Bottleneck::Bound => weight * self.bound_level[v.index()],
            Bottleneck::None if self.solved[v.index()] => f64::INFINITY,
            Bottleneck::None => 0.0,
            Bottleneck::Constraint(c) => weight * self.level[c.index()],
        }
    }

    /// The level at which shared constraint `c` saturates now (a fatpipe
    /// never saturates: it bounds each of its variables instead).
    #[inline]
    pub fn level_of(&self, c: ConstraintId, model: &Model) -> f64 {
        debug_assert!(!model.is_fatpipe(c), "a fatpipe has no level");
        self.load[c.index()].level(model.constraint(c).capacity)
    }

    /// The pop that froze `v` in the current filling, if any.
    #[inline]
    pub fn frozen_by(&self, v: VarId) -> Option<PopId> {
        match self.bottleneck[v.index()] {
            Bottleneck::Bound => self.frozen_at[v.index()],
            Bottleneck::None => None,
            Bottleneck::Constraint(b) => self.popped_at[b.index()],
        }
    }

    /// Takes variable `v`'s records off its bottleneck's list.
    pub fn drop_records(&mut self, v: VarId, model: &Model) {
        let Bottleneck::Constraint(b) = self.bottleneck[v.index()] else {
            return;
        };
        let n = (model.variable(v).elements.len() - 1).max(1);
        let at = position(self.records_at[v.index()]);
        let records = &mut self.records[b.index()];
        for r in &mut records.list[at..at + n] {
            debug_assert_eq!(r.var, Some(v));
            r.var = None;
        }
        records.dead += narrow(n);
        if records.list.len() >= 16 && 4 * position(records.dead) > records.list.len() {
            records.list.retain(|r| r.var.is_some());
            records.dead = 0;
            // Each variable's records are contiguous: a new one starts a run.
            let mut previous = VarId::bits(None);
            for (i, r) in records.list.iter().enumerate() {
                if VarId::bits(r.var) != previous {
                    previous = VarId::bits(r.var);
                    if let Some(w) = r.var {
                        self.records_at[w.index()] = narrow(i);
                    }
                }
            }
        }
    }

    /// Makes constraint `c` variable `v`'s bottleneck: its records move
    /// there, so it freezes with the constraint's other variables.
    pub fn switch_to(&mut self, v: VarId, c: ConstraintId, model: &Model) {
        self.scratch.redo_bound_of(v);
        self.drop_records(v, model);
        let var = model.variable(v);
        let n_weight = var.n_weight();
        let list = &mut self.records[c.index()].list;
        let at = list.len();
        self.records_at[v.index()] = narrow(at);
        for e in var.elements.as_slice() {
            if e.cnst != c {
                list.push(Record {
                    var: Some(v),
                    cnst: e.cnst,
                    weight: n_weight * e.coeff,
                });
            }
        }
        if list.len() == at {
            // Only the bottleneck: a record that only freezes it.
            list.push(Record {
                var: Some(v),
                cnst: c,
                weight: 0.0,
            });
        }
        self.bottleneck[v.index()] = Bottleneck::Constraint(c);
        self.switched.push(v);
    }

    /// Solves if anything changed since the last solve; returns whether it did.
    pub fn solve(&mut self, model: &Model) -> bool {
        self.switched.clear();
        if self.edits.full {
            self.solve_from_scratch(model);
        } else if let Some(k) = self.edits.restart {
            self.solve_from(k, model);
        } else {
            return false;
        }
        let edits = &mut self.edits;
        edits.full = false;
        edits.restart = None;
        edits.pending.clear();
        edits.arrived.clear();
        for v in edits.rebound.drain(..) {
            if model.is_alive(v) {
                self.switched.push(v);
            }
        }
        true
    }

    /// Tracks, from now on, which constraints' use may change; every
    /// constraint counts as changed once.
    pub fn track_changes(&mut self) {
        let touched = &mut self.touched;
        touched.tracking = true;
        touched.listed = vec![true; self.load.len()];
        touched.list = (0..self.load.len()).map(ConstraintId::new).collect();
    }

    /// Calls `f(c, usage)` for each constraint touched since the last call,
    /// and forgets them.
    pub fn take_changed(&mut self, mut f: impl FnMut(ConstraintId, f64)) {
        let touched = &mut self.touched;
        for &c in &touched.list {
            touched.listed[c.index()] = false;
            f(c, self.load[c.index()].used);
        }
        touched.list.clear();
    }
}
