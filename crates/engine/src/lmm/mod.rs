//! The linear max-min solver: weighted max-min fair sharing of resources.
//!
//! # The problem
//!
//! Resources are *constraints* `c` with a capacity `C_c`. Activities are
//! *variables* `v` with a weight `w_v > 0`, an optional per-activity bound
//! `b_v`, and a usage coefficient `a_cv ≥ 0` on each resource they use (an
//! *element*). A variable may stand for `n_v` identical activities (same
//! elements, weight and bound); each of them gets the same rate `r_v`. Find
//! the rates such that
//!
//! ```text
//!   shared  c:  Σ_v n_v · a_cv · r_v  ≤ C_c        (the activities split C_c)
//!   fatpipe c:  max_v a_cv · r_v      ≤ C_c        (each activity may use all of C_c)
//!   every v:    r_v ≤ b_v
//! ```
//!
//! and the vector `(r_v / w_v)` is max-min fair: no rate can grow without
//! shrinking a rate whose `r/w` is already no larger. The solution is
//! unique. This is the model SimGrid calls LMM (its `sharing_penalty` is
//! our `1/w`).
//!
//! # The algorithm: progressive filling
//!
//! Raise a common level `λ` from 0; every unfrozen variable runs at
//! `r_v = w_v · λ`. A fatpipe constraint only caps each variable at
//! `C_c / a_cv`, so it folds into the variable's bound. A shared constraint
//! saturates at `λ_c = R_c / S_c`, with `R_c` its remaining capacity and
//! `S_c = Σ_unfrozen n_v · a_cv · w_v`. Repeatedly take the smallest of all
//! `λ_c` and all `b_v / w_v` (a *pop*): freeze the variables it names at
//! `w_v · λ`, subtract their use from the other constraints they cross, and
//! drop the saturated constraint (`fill`).
//!
//! Worked example: links L1 (capacity 10) and L2 (capacity 4); flow x uses
//! L1 and L2, flow y uses L1 only, both weight 1. Levels: L1 10/2 = 5,
//! L2 4/1 = 4. L2 saturates first: x = 4; L1 keeps 6 for y alone: y = 6.
//!
//! # The solution: levels and bottlenecks
//!
//! The constraint (or bound) whose pop froze a variable is its *bottleneck*
//! `β(v)`, and its rate is `w_v · λ_β(v)`: the solution is the level of each
//! saturated constraint plus each variable's bottleneck. A solve that moves
//! a level moves the rate of every variable bottlenecked there without
//! touching them; only a variable whose bottleneck changes is reported
//! ([`System::switched`]). The event loop keeps each constraint's level
//! integrated over time, so a level that moves costs one update, not one
//! per variable (`crate::progress`).
//!
//! # Solving again
//!
//! A solve starts again from the first pop a change can reach, not from 0
//! (`restart`). It assumes that the pops before that one are unchanged:
//! true when work leaves (a variable frozen by pop `k`, with less weight,
//! makes no constraint it crosses saturate earlier than `k`), so a
//! departure restarts at the pop that froze it, an arrival at the first
//! pop, and a new constraint, bound or capacity solves from scratch. The
//! filling logs what each pop changed, and the log undoes the pops from
//! the restart on exactly, because every constraint is empty (weight 0)
//! after a filling. The new filling then tries the last filling's order,
//! checking that its levels come out non-decreasing and no constraint
//! over-full, which certifies the max-min solution (`in_order`); with
//! bounds in play, or when that order needs too many repairs, it sorts.
//! [`SolveStats`] counts which way each solve went.
//!
//! # Which uses changed
//!
//! A solve changes the use `Σ n_v · a_cv · r_v` only of the constraints it
//! logs (and, solving from 0, of those that had a use); removing a variable
//! changes those it crossed. When asked to ([`System::track_changes`]), the
//! system lists these constraints as it goes, so a recorder
//! (`crate::record`) looks at them alone ([`System::take_changed`]).
//!
//! # Where things are
//!
//! As SimGrid's `src/kernel/lmm/` keeps the system's data apart from the
//! solver that owns its scratch space: `model` holds the data
//! (constraints, variables, elements, typed ids), `solver` the solver's
//! state (the solution, the filling and its log, the records, the
//! scratch), `fill` the sorted progressive filling, `restart` solving
//! again with the undo, and `in_order` the filling in the last order.
//! [`System`] puts the model and the solver together.

mod fill;
mod in_order;
mod model;
mod restart;
mod solver;
#[cfg(test)]
mod tests;

pub use model::{merge_coefficients, ConstraintId, Sharing, VarId};

use model::Model;
use solver::Solver;

/// What limits a variable's rate in the last solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bottleneck {
    /// A saturated constraint: the rate is `weight · level(c)`.
    Constraint(ConstraintId),
    /// Its own bound (or a fatpipe's): the rate is fixed.
    Bound,
    /// Nothing: not solved yet (rate 0) or unlimited (rate infinite).
    None,
}

/// How the solves went so far, counted by the solver for tests and
/// benchmarks (`Simulation::solve_stats`; the engine's `star` example
/// prints them): which way each solve filled, and what filling in the last
/// order cost. A solve from scratch and a solve again both count once;
/// docs/performance.md has what they come to on the benchmark's star.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolveStats {
    /// Solves from scratch (the first, and after a new constraint, bound
    /// or capacity).
    pub from_scratch: u64,
    /// Solves again (from the pop a change reaches), filled in the last
    /// filling's order.
    pub in_order: u64,
    /// Solves again filled with sorted levels: bounds were in play, or
    /// filling in order gave up.
    pub sorted: u64,
    /// Fillings in order that gave up (each also counts in `sorted`).
    pub given_up: u64,
    /// Pops rolled back while filling in order, to put a constraint taken
    /// out of turn before them.
    pub rolled_back: u64,
    /// Constraints that did not pop, found over-full at the end of a
    /// filling in order and moved back.
    pub over_full: u64,
}

/// A set of constraints and variables, and their max-min fair solution.
#[derive(Default, Debug)]
pub struct System {
    model: Model,
    solver: Solver,
}

impl System {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a resource. Capacity must be finite and non-negative.
    pub fn add_constraint(&mut self, capacity: f64, sharing: Sharing) -> ConstraintId {
        let c = self.model.add_constraint(capacity, sharing);
        self.solver.add_constraint();
        c
    }

    /// Changes a resource's capacity (finite, non-negative); the next
    /// solve starts from scratch.
    pub fn set_capacity(&mut self, c: ConstraintId, capacity: f64) {
        self.model.set_capacity(c, capacity);
        if self.model.is_fatpipe(c) {
            for user in self.model.users(c) {
                self.solver.rebound(user.var, &self.model);
            }
        }
        self.solver.edits.full = true;
    }

    pub fn capacity(&self, c: ConstraintId) -> f64 {
        self.model.constraint(c).capacity
    }

    pub fn sharing(&self, c: ConstraintId) -> Sharing {
        self.model.constraint(c).sharing
    }

    /// Number of constraints added so far (their ids are `0..count`).
    pub fn constraint_count(&self) -> usize {
        self.model.constraints.len()
    }

    /// Adds a variable standing for `count` identical activities.
    /// `bound` is per activity; `f64::INFINITY` means unbounded.
    /// Elements with a zero coefficient are ignored; a repeated constraint is
    /// used once with the coefficients merged (see [`merge_coefficients`]).
    pub fn add_variable(
        &mut self,
        weight: f64,
        bound: f64,
        count: u32,
        elements: &[(ConstraintId, f64)],
    ) -> VarId {
        let v = self.model.add_variable(weight, bound, count, elements);
        self.solver.add_variable(v, &self.model);
        v
    }

    /// Removes a variable; its id may be reused by a later `add_variable`.
    pub fn remove_variable(&mut self, v: VarId) {
        self.model.check_alive(v);
        self.solver.remove_variable(v, &self.model);
        self.model.remove_variable(v);
    }

    /// Changes how many identical activities the variable stands for (>= 1).
    pub fn set_count(&mut self, v: VarId, count: u32) {
        model::check_count(count);
        let old = self.model.variable(v).count;
        if old == count {
            return;
        }
        if count > old {
            self.model.set_count(v, count);
            self.solver.arrive(v, old, &self.model);
        } else {
            // Forgotten at the weight the last solve gave it.
            self.solver.forget(v, count, false, &self.model);
            self.model.set_count(v, count);
        }
        self.solver.reweigh(v, &self.model);
    }

    /// Changes a variable's bound (> 0, `f64::INFINITY` for none); the
    /// next solve starts from scratch.
    pub fn set_bound(&mut self, v: VarId, bound: f64) {
        self.model.set_bound(v, bound);
        self.solver.rebound(v, &self.model);
        self.solver.edits.full = true;
    }

    /// Solves the system if anything changed since the last solve.
    /// Returns whether it solved.
    pub fn solve(&mut self) -> bool {
        self.solver.solve(&self.model)
    }

    /// The rate of each of the variable's activities, from the last solve.
    pub fn value(&self, v: VarId) -> f64 {
        self.solver.value(v, &self.model)
    }

    /// What limits the variable's rate in the last solve.
    pub fn bottleneck(&self, v: VarId) -> Bottleneck {
        self.solver.bottleneck[v.index()]
    }

    /// The level `c` saturated at in the last solve that popped it: the
    /// rate per unit of weight of the variables bottlenecked on it.
    pub fn level(&self, c: ConstraintId) -> f64 {
        self.solver.level[c.index()]
    }

    /// The constraints the last solve saturated, with their levels (the
    /// others kept theirs); after a solve from scratch, all of them.
    pub fn saturated(&self) -> impl Iterator<Item = (ConstraintId, f64)> + '_ {
        let solver = &self.solver;
        solver.pops[solver.solved_from..]
            .iter()
            .filter_map(|p| match p.popped {
                solver::Popped::Constraint(c) => Some((c, p.level)),
                solver::Popped::Bound(_) => None,
            })
    }

    /// The variables whose rate the last solve changed other than through
    /// their bottleneck's level: their bottleneck changed (or they are new),
    /// or they are at their bound and it changed. A variable may be listed
    /// twice.
    pub fn switched(&self) -> &[VarId] {
        &self.solver.switched
    }

    /// Σ n_v · a_cv · r_v over the variables on `c`, from the last solve.
    pub fn usage(&self, c: ConstraintId) -> f64 {
        self.solver.load[c.index()].used
    }

    /// Tracks, from now on, which constraints' use may change (every
    /// constraint counts as changed once), for [`System::take_changed`].
    pub fn track_changes(&mut self) {
        self.solver.track_changes();
    }

    /// Calls `f(c, usage)` for each constraint whose use may have changed
    /// since the last call (or since [`System::track_changes`]), and forgets
    /// them. Any other constraint's use is the same as it was then. Costs
    /// nothing per constraint the solver did not touch.
    pub fn take_changed(&mut self, f: impl FnMut(ConstraintId, f64)) {
        self.solver.take_changed(f);
    }

    /// How the solves went so far.
    pub fn stats(&self) -> SolveStats {
        self.solver.stats
    }

    /// Number of variables in the system.
    pub fn variable_count(&self) -> usize {
        self.model.alive.len()
    }
}
