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
//! shrinking a rate whose `r/w` is already no larger. This is the model
//! SimGrid calls LMM (its `sharing_penalty` is our `1/w`).
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
//! drop the saturated constraint. A freeze at level `λ ≤ λ_c` can only raise
//! the level of another constraint `c` it crosses (`(R − xλ)/(S − x) ≥ R/S`),
//! so the constraints wait in a list sorted by level and a touched one is
//! re-filed (further back) only when it reaches the front; levels move
//! little from pop to pop, so it usually steps back a few places
//! (`crate::levels`). Each variable is frozen once: one solve costs `O(E)`
//! for `E` elements, plus a sort of the `C` shared constraints and
//! `O(log C)` for each one filed again.
//!
//! Worked example: links L1 (capacity 10) and L2 (capacity 4); flow x uses
//! L1 and L2, flow y uses L1 only, both weight 1. Levels: L1 10/2 = 5,
//! L2 4/1 = 4. L2 saturates first: x = 4; L1 keeps 6 for y alone: y = 6.
//!
//! # Rates kept per bottleneck
//!
//! The constraint (or bound) whose pop froze a variable is its *bottleneck*
//! `β(v)`, and its rate is `w_v · λ_β(v)`: the solution is the level of each
//! saturated constraint plus each variable's bottleneck. A solve that moves
//! a level moves the rate of every variable bottlenecked there without
//! touching them; only a variable whose bottleneck changes is reported
//! ([`System::switched`]). The event loop keeps each constraint's level
//! integrated over time (a virtual time, as weighted fair queueing does) and
//! its variables' completions in that virtual time, so a level that moves
//! costs one update, not one per variable (`crate::progress`).
//!
//! For the same reason a pop does not visit its variables one by one to take
//! their use off the other constraints: each constraint keeps, for the
//! variables bottlenecked on it, one *record* per other element `(c', n_v · w_v
//! · a_c'v)`, contiguous, and the pop adds `record · λ` to each `c'`'s use and
//! takes it off `S_c'`. Nor does it mark them frozen: a variable bottlenecked
//! on a constraint is frozen once that constraint has popped in the current
//! filling (`System::frozen_by`), so a pop costs one write for its variables,
//! plus one per record. A variable on the popped constraint but bottlenecked
//! elsewhere, and still unfrozen, *switches*: its records move to the popped
//! constraint. Looking for such variables means walking the constraint's
//! variable list; a solve from scratch walks every list, but solving again
//! (below) it can skip nearly all: a variable frozen by an undone pop `j` is
//! still unfrozen when constraint `x` pops only if the new filling has not done
//! `j` again yet, and `j` came before `x`'s own undone pop (the variable froze
//! at `j` while `x` was open). So a pop walks its list only while an undone pop
//! before its own is still open.
//!
//! # Solving again from where it changed
//!
//! Most changes in a simulation remove work: an activity completes, so a
//! variable goes away or stands for fewer activities. If variable `v` was
//! frozen by pop `k`, every constraint it crosses saturated at pop `k` or
//! later, and with less of `v` they saturate no earlier: the pops before `k`
//! are unchanged. Each pop logs, for each constraint it changes, the use
//! before and the weight and unfrozen variables it took off; solving again
//! from pop `k* = min k_v` undoes the log back to `k*`, applies the changes
//! (less weight on the changed variables' constraints), and fills on from
//! there (in the last filling's order, below). The undo is exact where it
//! matters: every constraint is empty after a filling (its weight is reset
//! to exactly 0 when its last variable freezes), so its state at `k*` is the
//! use before the first pop from `k*` on that touched it, and the sum of the
//! weights those pops took off.
//!
//! A change that adds work (a new variable, more activities) may saturate a
//! constraint before any pop, so it solves again from the first pop: the
//! whole log is undone, which rebuilds every constraint's state at 0 from
//! what the pops logged (cheaper than summing every variable's elements
//! again), and a new variable is looked for by the pops of its constraints
//! (it has no bottleneck yet). A new bound or capacity solves from scratch.
//!
//! Worked example: links L1 (capacity 6) and L2 (capacity 10); x uses L1,
//! y uses L1 and L2, z uses L2, all weight 1. The fill: L1 saturates at 3
//! (x = y = 3), then L2 keeps 7 for z alone (z = 7, level 7). Now z ends:
//! it was frozen by the second pop, so x and y (the first) keep their rates,
//! and the state before the second pop is restored (L2 carries y's 3, with
//! z's weight on it), z's weight is taken off, and nothing is left to fill.
//! If x ends instead, both pops are undone and L1 has 6 left for y alone
//! (level 6), L2 10 for y and z (level 5); L2 saturates first, so y = z = 5
//! (y switches from L1 to L2), and L1 carries 5 of its 6.
//! A restart at `k*` is exactly the tail of a solve from 0, so the two agree
//! to rounding (a property test runs random systems through random changes
//! of every kind, each solved again, against a solve from scratch, to 1e-12).
//!
//! Why not only the changed connected component. The constraint graph
//! (constraints linked by the variables they share) splits into components
//! whose problems are independent, so a change could be solved again inside
//! its component. The restart above is already finer: what is filled again
//! is the changed variable's component *in the residual graph at `k*`*
//! (constraints and variables still unfrozen at that pop), plus the other
//! residual components. On the benchmark's star (every host to every host)
//! that residual graph is one component: measured at 1,000 / 4,000 / 16,000
//! flows, the component of the change holds 98.1 % / 99.8 % / 99.99 % of the
//! variables a restart fills again, and 96 % of those really change rate by
//! more than 1e-12. A search for the component would cost as much as the
//! pass it could save, so there is none.
//!
//! # Filling again in the last order
//!
//! Sorting the constraints to fill again, and keeping them sorted as their
//! levels rise, cost as much as the filling itself. It is rarely needed:
//! after an activity leaves, the new filling is the last one's order with a
//! constraint or two moved by a pop or two (on the benchmark's star at
//! 16,000 flows, counted with temporary counters: 90 % of the pops keep
//! their place; 2.0 constraints move per event). So a restart fills in that order, unsorted, and checks it as it
//! goes (`System::fill_in_order`):
//!
//! - each variable freezes at the first of its constraints to pop, and each
//!   popped constraint is exactly full;
//! - if the levels come out non-decreasing in that order and no constraint
//!   that did not pop is over-full (beyond rounding, `FULL_WITHIN`), every
//!   variable has a *bottleneck*: a full constraint on which no variable
//!   runs faster relative to its weight (the others froze at earlier pops,
//!   at lower levels). That characterises the max-min fair rates, which
//!   are unique, so the filling is the one the sorted levels would give;
//! - a constraint taken out of turn shows: one whose level was below a pop's
//!   only falls as variables freeze above it, so it pops below the last pop
//!   or ends over-full. It then goes before the first pop above its level
//!   (or before the pop that froze its last variable): those pops are
//!   rolled back (`System::roll_back_to`, the variables that switched to
//!   them switch back) and done again after it. Most moves are the other
//!   way, the changed constraint's level having risen: a constraint whose
//!   next in the order is already lower goes after it, before popping.
//!
//! After more rolled-back pops than the filling has (levels tied to the
//! last bit can take turns), it gives up: the state goes back to the
//! restart and the sorted filling runs. With bounds in play it runs at once
//! (a bound pop has no place in the last order to keep). [`SolveStats`]
//! counts what happened.
//!
//! The cost per event is therefore one pass over what the pops from `k*` on
//! logged (the undo) and one over their records (the fill), with no sort.
//! On the benchmark's star at 16,000 flows (2,900 live route classes on 128
//! link directions), an event undoes 1,310 log entries and refills 54 pops
//! with 1,500 records; 0.13 pops are rolled back and done again, and 3 of
//! 16,000 restarts give up. A pop walks its variable list in 6 % of pops,
//! and 2.6 variables switch in the 64 % of events where any does.
//!
//! # Which uses changed
//!
//! A solve changes the use `Σ n_v · a_cv · r_v` only of the constraints it
//! logs (and, solving from 0, of those that had a use); removing a variable
//! changes those it crossed. When asked to (`track_changes`), the system
//! lists these constraints as it goes, so a recorder (`crate::record`)
//! looks at them alone (`take_changed`).
//!
//! The split between data (`Constraint`, `Variable`, elements) and the
//! algorithm (`System::solve`) follows SimGrid's `src/kernel/lmm/`.

use crate::levels::LevelQueue;

/// A resource of the system.
pub type ConstraintId = usize;
/// An activity (or a group of identical activities) of the system.
pub type VariableId = usize;

/// How a resource is shared by the activities that use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// The activities split the capacity (a link direction, a core).
    Shared,
    /// Each activity may use the whole capacity (a non-blocking backplane).
    Fatpipe,
}

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

/// Marks "no pop" / "no bottleneck" in the dense per-variable arrays.
const NONE: u32 = u32::MAX;
/// The bottleneck of a variable frozen by its own bound.
const BOUND: u32 = u32::MAX - 1;
/// How far above its capacity a constraint that did not pop may end, in
/// relative terms, and still count as full rather than over-full: the
/// rounding of the sum of its uses, when it ties with the pop that froze
/// its last variable (two constraints with the same variables, say).
const FULL_WITHIN: f64 = 1e-12;
/// Marks a variable's first record.
const FIRST: u32 = 1 << 31;

#[derive(Clone, Copy, Debug)]
struct ConstraintElement {
    var: u32,
    /// Position of this element in the variable's element list.
    var_slot: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct VariableElement {
    cnst: u32,
    /// Position of this element in the constraint's element list.
    cnst_slot: u32,
    coeff: f64,
}

/// Elements kept inline in the variable: routes are short.
const INLINE_ELEMENTS: usize = 4;

#[derive(Clone, Debug, Default)]
#[repr(C)]
struct Elements {
    len: u32,
    inline: [VariableElement; INLINE_ELEMENTS],
    spill: Vec<VariableElement>,
}

impl Elements {
    fn as_slice(&self) -> &[VariableElement] {
        if self.len as usize <= INLINE_ELEMENTS {
            &self.inline[..self.len as usize]
        } else {
            &self.spill
        }
    }

    fn as_mut_slice(&mut self) -> &mut [VariableElement] {
        if self.len as usize <= INLINE_ELEMENTS {
            &mut self.inline[..self.len as usize]
        } else {
            &mut self.spill
        }
    }

    fn push(&mut self, e: VariableElement) {
        let len = self.len as usize;
        if len < INLINE_ELEMENTS {
            self.inline[len] = e;
        } else {
            if len == INLINE_ELEMENTS {
                self.spill.extend_from_slice(&self.inline);
            }
            self.spill.push(e);
        }
        self.len += 1;
    }

    fn clear(&mut self) {
        self.len = 0;
        self.spill.clear();
    }
}

/// What freezing one variable bottlenecked on a constraint does to one of
/// its other constraints: `n_v · w_v · a_cv` (use per unit of level, and
/// weight taken off `S_c`). A variable that crosses only its bottleneck has
/// one record of the bottleneck itself, which changes nothing. The first
/// record of each variable has `FIRST` in `var` (the pop freezes it there);
/// `var` is `NONE` for a record left by a variable that moved away (dropped
/// when they are many).
#[derive(Clone, Copy, Debug)]
struct Record {
    var: u32,
    cnst: u32,
    weight: f64,
}

#[derive(Clone, Debug)]
struct Constraint {
    capacity: f64,
    sharing: Sharing,
    elements: Vec<ConstraintElement>,
    /// The records of the variables bottlenecked here, each variable's
    /// contiguous.
    records: Vec<Record>,
    /// Records in `records` whose variable moved away.
    dead: u32,
}

#[derive(Clone, Debug, Default)]
struct Variable {
    weight: f64,
    count: u32,
    /// Solved at least once since it was added (its rate is known).
    solved: bool,
    /// Position in `System::alive`, or `u32::MAX` when the slot is free.
    alive_slot: u32,
    /// Where its records start in its bottleneck's `records`.
    records_at: u32,
    elements: Elements,
    bound: f64,
    /// The bound implied by the fatpipe constraints it crosses.
    fatpipe_bound: f64,
}

/// A constraint's use in the current solution, and its state during a
/// solve, kept together for the hot loop.
#[derive(Clone, Copy, Debug, Default)]
struct Load {
    /// The capacity (infinite on a fatpipe, which only bounds each variable),
    /// next to what the hot loop reads.
    capacity: f64,
    /// Σ n_v · a_cv · r_v of the variables frozen so far (after a solve: all);
    /// what remains is `capacity - used`.
    used: f64,
    /// Σ n_v · a_cv · w_v over its unfrozen variables.
    weight_sum: f64,
    /// Unfrozen variables on it.
    unfrozen: u32,
}

impl Load {
    /// The level at which it saturates: what remains over the weight still filling it.
    fn level(&self) -> f64 {
        (self.capacity - self.used).max(0.0) / self.weight_sum.max(f64::MIN_POSITIVE)
    }
}

/// One step of the filling: constraint `cnst` saturated (or variable `var`
/// reached its bound, `cnst == NONE`) at `level`; what it changed starts at
/// `log_start` in the log.
#[derive(Clone, Copy, Debug)]
struct Pop {
    level: f64,
    cnst: u32,
    var: u32,
    log_start: u32,
}

/// What a pop changed on a constraint, to undo it: the use before, and the
/// weight and unfrozen variables it took off.
#[derive(Clone, Copy, Debug)]
struct Undo {
    cnst: u32,
    unfrozen: u32,
    used: f64,
    weight: f64,
}

/// A change since the last solve to the weight of a variable on `cnst`:
/// `S` loses `old` and gains `new`, and the variables on it change by
/// `joins` (-1: it left, +1: it is new, 0: its count changed).
#[derive(Clone, Copy, Debug)]
struct Pending {
    cnst: u32,
    old: f64,
    new: f64,
    joins: i32,
}

/// Per-solve scratch state, kept to avoid allocating at every event.
#[derive(Default, Debug)]
struct Scratch {
    /// Shared constraints that may still saturate, smallest level first.
    levels: LevelQueue,
    /// Variables with a bound, by bound level, highest first.
    bounded: Vec<(f64, u32)>,
    /// Constraints to put in `levels`, and whether each is listed.
    candidates: Vec<u32>,
    candidate: Vec<bool>,
    /// Solving again: which of the pops undone (in their order) the new
    /// filling has done again, and the first it has not. A constraint's
    /// (`rank`) or a bounded variable's (`var_rank`) place among them,
    /// `NONE` if none; the constraints of the undone constraint pops and
    /// the variables of the undone bound pops.
    redone: Vec<bool>,
    undone: Vec<u32>,
    undone_bounds: Vec<u32>,
    first_open: usize,
    rank: Vec<u32>,
    var_rank: Vec<u32>,
    /// Solving from scratch: every pop looks for variables to switch;
    /// solving again: the constraints of the new variables do.
    look_everywhere: bool,
    look_for_new: Vec<bool>,
    /// Filling again in the last filling's order (`System::fill_in_order`):
    /// the constraints in the order they are tried, where in it each pop
    /// since the restart came from, and the variables that switched, as
    /// `(pop, variable, bottleneck before)`, to switch back on a rollback.
    in_order: bool,
    order: Vec<u32>,
    order_at: Vec<u32>,
    switches: Vec<(u32, u32, u32)>,
}

impl Scratch {
    /// The undone pop `j` is done again.
    fn redo(&mut self, j: u32) {
        self.redone[j as usize] = true;
        while self.first_open < self.redone.len() && self.redone[self.first_open] {
            self.first_open += 1;
        }
    }

    /// Variable `v` freezes: if an undone pop was its bound's, it is done.
    fn redo_bound_of(&mut self, v: usize) {
        if let Some(&j) = self.var_rank.get(v) {
            if j != NONE {
                self.redo(j);
            }
        }
    }
}

/// How the solves went so far: which way each filled, and what filling in
/// the last order cost (for tests and benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolveStats {
    /// Solves from scratch.
    pub from_scratch: u64,
    /// Solves again (from the pop a change reaches), filled in the last
    /// filling's order.
    pub in_order: u64,
    /// Solves again filled with sorted levels: bounds were in play, or
    /// filling in order gave up.
    pub sorted: u64,
    /// Fillings in order that gave up.
    pub given_up: u64,
    /// Pops rolled back while filling in order.
    pub rolled_back: u64,
    /// Constraints that did not pop, found over-full at the end of a
    /// filling in order and moved back.
    pub over_full: u64,
}

/// A set of constraints and variables, and their max-min fair solution.
#[derive(Default, Debug)]
pub struct System {
    constraints: Vec<Constraint>,
    fatpipe: Vec<bool>,
    /// Per constraint, parallel to `constraints`.
    load: Vec<Load>,
    /// The level each constraint saturated at, when it is some variable's
    /// bottleneck.
    level: Vec<f64>,
    variables: Vec<Variable>,
    free_variables: Vec<usize>,
    alive: Vec<u32>,
    /// Per variable (dense, read by every pop): its bottleneck (a
    /// constraint, `BOUND` or `NONE`), its bound level `min(b_v, fatpipe) /
    /// w_v`, and, at its bound, the pop that froze it in the current filling
    /// (`NONE`: not frozen). A variable bottlenecked on a constraint is
    /// frozen by that constraint's pop (`popped_at`): a pop freezes its
    /// variables without visiting them ([`System::frozen_by`]).
    bottleneck: Vec<u32>,
    bound_level: Vec<f64>,
    frozen_at: Vec<u32>,
    /// Variables with a finite bound level (each can bind).
    bounded: u32,
    /// Per constraint: its pop in the current filling (`NONE`: none).
    popped_at: Vec<u32>,
    /// The filling: its pops in order, and what each changed on the
    /// constraints it touched.
    pops: Vec<Pop>,
    log: Vec<Undo>,
    /// Where the last solve started in `pops`.
    solved_from: usize,
    /// Variables whose bottleneck the last solve changed, and those whose
    /// bound changed since (their rate moves if they stay at it).
    switched: Vec<u32>,
    rebound: Vec<u32>,
    /// What to solve: from scratch, or from pop `restart` (`None`: nothing
    /// changed) with the `pending` changes.
    full: bool,
    restart: Option<u32>,
    pending: Vec<Pending>,
    /// Variables added since the last solve, when it starts again from the
    /// first pop.
    arrived: Vec<u32>,
    scratch: Scratch,
    changes: Changes,
    stats: SolveStats,
}

/// The constraints whose use may have changed since they were last taken
/// ([`System::take_changed`]), when tracked.
#[derive(Default, Debug)]
struct Changes {
    tracking: bool,
    list: Vec<u32>,
    listed: Vec<bool>,
}

impl Changes {
    #[inline]
    fn mark(&mut self, c: u32) {
        if self.tracking && !self.listed[c as usize] {
            self.listed[c as usize] = true;
            self.list.push(c);
        }
    }
}

impl System {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a resource. Capacity must be finite and non-negative.
    pub fn add_constraint(&mut self, capacity: f64, sharing: Sharing) -> ConstraintId {
        assert!(
            capacity.is_finite() && capacity >= 0.0,
            "capacity must be finite and >= 0, got {capacity}"
        );
        self.constraints.push(Constraint {
            capacity,
            sharing,
            elements: Vec::new(),
            records: Vec::new(),
            dead: 0,
        });
        self.fatpipe.push(sharing == Sharing::Fatpipe);
        if self.changes.tracking {
            self.changes.listed.push(false);
        }
        let load_capacity = if sharing == Sharing::Fatpipe {
            f64::INFINITY
        } else {
            capacity
        };
        self.load.push(Load {
            capacity: load_capacity,
            ..Load::default()
        });
        self.level.push(f64::INFINITY);
        self.popped_at.push(NONE);
        self.full = true;
        self.constraints.len() - 1
    }

    pub fn set_capacity(&mut self, c: ConstraintId, capacity: f64) {
        assert!(
            capacity.is_finite() && capacity >= 0.0,
            "capacity must be finite and >= 0, got {capacity}"
        );
        self.constraints[c].capacity = capacity;
        if self.fatpipe[c] {
            for k in 0..self.constraints[c].elements.len() {
                let v = self.constraints[c].elements[k].var as usize;
                self.variables[v].fatpipe_bound = self.fatpipe_bound(v);
                self.update_bound_level(v);
                self.rebound.push(v as u32);
            }
        } else {
            self.load[c].capacity = capacity;
        }
        self.full = true;
    }

    pub fn capacity(&self, c: ConstraintId) -> f64 {
        self.constraints[c].capacity
    }

    pub fn sharing(&self, c: ConstraintId) -> Sharing {
        self.constraints[c].sharing
    }

    pub fn constraint_count(&self) -> usize {
        self.constraints.len()
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
    ) -> VariableId {
        assert!(
            weight > 0.0 && weight.is_finite(),
            "weight must be finite and > 0, got {weight}"
        );
        assert!(
            bound > 0.0,
            "bound must be > 0 (use INFINITY for none), got {bound}"
        );
        assert!(count > 0, "a variable stands for at least one activity");
        let id = self.free_variables.pop().unwrap_or_else(|| {
            self.variables.push(Variable::default());
            self.frozen_at.push(NONE);
            self.bottleneck.push(NONE);
            self.bound_level.push(f64::INFINITY);
            self.variables.len() - 1
        });
        let mut merged: Vec<(ConstraintId, f64)> = Vec::with_capacity(elements.len());
        for &(c, coeff) in elements {
            assert!(
                coeff >= 0.0 && coeff.is_finite(),
                "coefficient must be finite and >= 0, got {coeff}"
            );
            if coeff == 0.0 {
                continue;
            }
            match merged.iter_mut().find(|e| e.0 == c) {
                Some(e) => e.1 = merge_coefficients(self.constraints[c].sharing, e.1, coeff),
                None => merged.push((c, coeff)),
            }
        }
        let var = &mut self.variables[id];
        var.weight = weight;
        var.bound = bound;
        var.count = count;
        var.solved = false;
        var.alive_slot = self.alive.len() as u32;
        var.elements.clear();
        self.alive.push(id as u32);
        self.frozen_at[id] = NONE;
        self.bottleneck[id] = NONE;
        for (c, coeff) in merged {
            let cnst = &mut self.constraints[c];
            let var = &mut self.variables[id];
            let var_slot = var.elements.len;
            var.elements.push(VariableElement {
                cnst: c as u32,
                cnst_slot: cnst.elements.len() as u32,
                coeff,
            });
            cnst.elements.push(ConstraintElement {
                var: id as u32,
                var_slot,
            });
        }
        self.variables[id].fatpipe_bound = self.fatpipe_bound(id);
        self.update_bound_level(id);
        self.arrive(id, 0);
        id
    }

    /// Removes a variable; its id may be reused by a later `add_variable`.
    pub fn remove_variable(&mut self, v: VariableId) {
        let slot = self.variables[v].alive_slot;
        assert!(slot != u32::MAX, "variable {v} is not in the system");
        self.forget(v, 0, true);
        self.drop_records(v);
        self.bottleneck[v] = NONE;
        self.set_bound_level(v, f64::INFINITY);
        let elements = std::mem::take(&mut self.variables[v].elements);
        for e in elements.as_slice() {
            let cnst = &mut self.constraints[e.cnst as usize];
            let pos = e.cnst_slot as usize;
            cnst.elements.swap_remove(pos);
            if let Some(moved) = cnst.elements.get(pos).copied() {
                self.variables[moved.var as usize].elements.as_mut_slice()
                    [moved.var_slot as usize]
                    .cnst_slot = pos as u32;
            }
        }
        self.variables[v].elements = elements;
        self.variables[v].elements.clear();
        self.alive.swap_remove(slot as usize);
        if let Some(&moved) = self.alive.get(slot as usize) {
            self.variables[moved as usize].alive_slot = slot;
        }
        self.variables[v].alive_slot = u32::MAX;
        self.free_variables.push(v);
    }

    /// Changes how many identical activities the variable stands for (>= 1).
    pub fn set_count(&mut self, v: VariableId, count: u32) {
        assert!(count > 0, "a variable stands for at least one activity");
        let old = self.variables[v].count;
        if old == count {
            return;
        }
        if count > old {
            self.variables[v].count = count;
            self.arrive(v, old);
        } else {
            self.forget(v, count, false);
            self.variables[v].count = count;
        }
        // Its records, if it is bottlenecked on a constraint, carry n · w · a.
        let var = &self.variables[v];
        let n_weight = count as f64 * var.weight;
        let b = self.bottleneck[v];
        if b < BOUND {
            let records = &mut self.constraints[b as usize].records;
            let mut at = var.records_at as usize;
            for e in var.elements.as_slice() {
                if e.cnst != b {
                    records[at].weight = n_weight * e.coeff;
                    at += 1;
                }
            }
        }
    }

    pub fn set_bound(&mut self, v: VariableId, bound: f64) {
        assert!(
            bound > 0.0,
            "bound must be > 0 (use INFINITY for none), got {bound}"
        );
        self.variables[v].bound = bound;
        self.update_bound_level(v);
        self.rebound.push(v as u32);
        self.full = true;
    }

    /// The rate of each of the variable's activities, from the last solve.
    pub fn value(&self, v: VariableId) -> f64 {
        let var = &self.variables[v];
        match self.bottleneck[v] {
            BOUND => var.weight * self.bound_level[v],
            NONE if var.solved => f64::INFINITY,
            NONE => 0.0,
            c => var.weight * self.level[c as usize],
        }
    }

    /// What limits the variable's rate in the last solve.
    pub fn bottleneck(&self, v: VariableId) -> Bottleneck {
        match self.bottleneck[v] {
            BOUND => Bottleneck::Bound,
            NONE => Bottleneck::None,
            c => Bottleneck::Constraint(c as usize),
        }
    }

    /// The level `c` saturated at in the last solve that popped it: the
    /// rate per unit of weight of the variables bottlenecked on it.
    pub fn level(&self, c: ConstraintId) -> f64 {
        self.level[c]
    }

    /// The constraints the last solve saturated, with their levels (the
    /// others kept theirs); after a solve from scratch, all of them.
    pub fn saturated(&self) -> impl Iterator<Item = (ConstraintId, f64)> + '_ {
        self.pops[self.solved_from..]
            .iter()
            .filter(|p| p.cnst != NONE)
            .map(|p| (p.cnst as usize, p.level))
    }

    /// The variables whose rate the last solve changed other than through
    /// their bottleneck's level: their bottleneck changed (or they are new),
    /// or they are at their bound and it changed. A variable may be listed
    /// twice.
    pub fn switched(&self) -> &[u32] {
        &self.switched
    }

    /// Σ n_v · a_cv · r_v over the variables on `c`, from the last solve.
    pub fn usage(&self, c: ConstraintId) -> f64 {
        self.load[c].used
    }

    /// Tracks, from now on, which constraints' use may change (every
    /// constraint counts as changed once), for [`System::take_changed`].
    pub fn track_changes(&mut self) {
        let ch = &mut self.changes;
        ch.tracking = true;
        ch.listed = vec![true; self.constraints.len()];
        ch.list = (0..self.constraints.len() as u32).collect();
    }

    /// Calls `f(c, usage)` for each constraint whose use may have changed
    /// since the last call (or since [`System::track_changes`]), and forgets
    /// them. Any other constraint's use is the same as it was then. Costs
    /// nothing per constraint the solver did not touch.
    pub fn take_changed(&mut self, mut f: impl FnMut(ConstraintId, f64)) {
        let ch = &mut self.changes;
        for &c in &ch.list {
            ch.listed[c as usize] = false;
            f(c as usize, self.load[c as usize].used);
        }
        ch.list.clear();
    }

    /// How the solves went so far.
    pub fn stats(&self) -> SolveStats {
        self.stats
    }

    pub fn variable_count(&self) -> usize {
        self.alive.len()
    }

    fn fatpipe_bound(&self, v: VariableId) -> f64 {
        let mut bound = f64::INFINITY;
        for e in self.variables[v].elements.as_slice() {
            if self.fatpipe[e.cnst as usize] {
                bound = bound.min(self.constraints[e.cnst as usize].capacity / e.coeff);
            }
        }
        bound
    }

    fn update_bound_level(&mut self, v: VariableId) {
        self.set_bound_level(v, self.compute_bound_level(v));
    }

    /// Sets `v`'s bound level, counting the variables whose is finite.
    fn set_bound_level(&mut self, v: VariableId, level: f64) {
        let was = self.bound_level[v].is_finite();
        self.bound_level[v] = level;
        match (was, level.is_finite()) {
            (false, true) => self.bounded += 1,
            (true, false) => self.bounded -= 1,
            _ => {}
        }
    }

    /// The pop that froze `v` in the current filling, `NONE` if none.
    #[inline]
    fn frozen_by(&self, v: usize) -> u32 {
        match self.bottleneck[v] {
            BOUND => self.frozen_at[v],
            NONE => NONE,
            b => self.popped_at[b as usize],
        }
    }

    fn compute_bound_level(&self, v: VariableId) -> f64 {
        let var = &self.variables[v];
        let bound = var.bound.min(var.fatpipe_bound);
        if bound.is_finite() {
            bound / var.weight
        } else {
            f64::INFINITY
        }
    }

    /// Notes that variable `v` now stands for `count` activities (0: it
    /// leaves): if the last solve froze it, the solution changed from the
    /// pop that froze it, and its constraints' weight changes there.
    fn forget(&mut self, v: VariableId, count: u32, gone: bool) {
        let var = &self.variables[v];
        if !var.solved {
            // Added since the last solve, which starts from scratch.
            self.full = true;
            return;
        }
        let k = self.frozen_by(v);
        if k == NONE {
            // Unlimited (no shared constraint, no bound): it weighs on nothing.
            return;
        }
        self.restart = Some(self.restart.map_or(k, |r| r.min(k)));
        let (old, new) = (var.count as f64 * var.weight, count as f64 * var.weight);
        for e in var.elements.as_slice() {
            self.pending.push(Pending {
                cnst: e.cnst,
                old: old * e.coeff,
                new: new * e.coeff,
                joins: -i32::from(gone),
            });
        }
    }

    /// Notes that variable `v` now stands for more activities than the
    /// `old` of the last solve (0: it is new). More weight may saturate a
    /// constraint before any pop of the last filling, so the solution may
    /// change from the first pop: the solve starts again there, with its
    /// constraints' weight changed (solving from scratch only when there is
    /// no filling to start from, or nothing for the new one to weigh on).
    fn arrive(&mut self, v: VariableId, old: u32) {
        let var = &self.variables[v];
        if self.full || self.pops.is_empty() || var.elements.len == 0 {
            self.full = true;
            return;
        }
        if old > 0 && !var.solved {
            // Added since the last solve: it is already arriving.
            self.full = true;
            return;
        }
        self.restart = Some(0);
        let (before, after) = (old as f64 * var.weight, var.count as f64 * var.weight);
        for e in var.elements.as_slice() {
            self.pending.push(Pending {
                cnst: e.cnst,
                old: before * e.coeff,
                new: after * e.coeff,
                joins: i32::from(old == 0),
            });
        }
        if old == 0 {
            self.arrived.push(v as u32);
        }
    }

    /// Takes variable `v`'s records off its bottleneck's list.
    fn drop_records(&mut self, v: VariableId) {
        let b = self.bottleneck[v];
        if b >= BOUND {
            return;
        }
        let n = (self.variables[v].elements.len as usize - 1).max(1);
        let at = self.variables[v].records_at as usize;
        let cnst = &mut self.constraints[b as usize];
        for r in &mut cnst.records[at..at + n] {
            debug_assert_eq!((r.var & !FIRST) as usize, v);
            r.var = NONE;
        }
        cnst.dead += n as u32;
        if cnst.records.len() >= 16 && 4 * cnst.dead as usize > cnst.records.len() {
            cnst.records.retain(|r| r.var != NONE);
            cnst.dead = 0;
            for (i, r) in cnst.records.iter().enumerate() {
                if r.var & FIRST != 0 {
                    self.variables[(r.var & !FIRST) as usize].records_at = i as u32;
                }
            }
        }
    }

    /// Makes constraint `c` variable `v`'s bottleneck: its records move
    /// there, so it freezes with the constraint's other variables.
    fn switch_to(&mut self, v: VariableId, c: u32) {
        self.scratch.redo_bound_of(v);
        self.drop_records(v);
        let var = &mut self.variables[v];
        let n_weight = var.count as f64 * var.weight;
        let records = &mut self.constraints[c as usize].records;
        let at = records.len();
        var.records_at = at as u32;
        for e in var.elements.as_slice() {
            if e.cnst != c {
                records.push(Record {
                    var: v as u32,
                    cnst: e.cnst,
                    weight: n_weight * e.coeff,
                });
            }
        }
        if records.len() == at {
            // Only the bottleneck: a record that only freezes it.
            records.push(Record {
                var: v as u32,
                cnst: c,
                weight: 0.0,
            });
        }
        records[at].var |= FIRST;
        self.bottleneck[v] = c;
        self.switched.push(v as u32);
    }

    /// Solves the system if anything changed since the last solve.
    /// Returns whether it solved.
    pub fn solve(&mut self) -> bool {
        self.switched.clear();
        if self.full {
            self.solve_from_scratch();
        } else if let Some(k) = self.restart {
            self.solve_from(k as usize);
        } else {
            return false;
        }
        self.full = false;
        self.restart = None;
        self.pending.clear();
        self.arrived.clear();
        for v in std::mem::take(&mut self.rebound) {
            if self.variables[v as usize].alive_slot != u32::MAX {
                self.switched.push(v);
            }
        }
        true
    }

    fn solve_from_scratch(&mut self) {
        self.stats.from_scratch += 1;
        self.solved_from = 0;
        self.pops.clear();
        self.log.clear();
        self.popped_at.fill(NONE);
        for (c, load) in self.load.iter_mut().enumerate() {
            if load.used != 0.0 {
                self.changes.mark(c as u32);
            }
            load.used = 0.0;
            load.weight_sum = 0.0;
            load.unfrozen = 0;
        }
        let s = &mut self.scratch;
        s.bounded.clear();
        s.candidates.clear();
        s.candidate.resize(self.load.len(), false);
        for &v in &self.alive {
            let var = &mut self.variables[v as usize];
            if !var.solved && self.bottleneck[v as usize] == NONE {
                // New: reported even if it stays unlimited.
                self.switched.push(v);
            }
            var.solved = true;
            self.frozen_at[v as usize] = NONE;
            let n_weight = var.count as f64 * var.weight;
            for e in var.elements.as_slice() {
                self.changes.mark(e.cnst);
                let load = &mut self.load[e.cnst as usize];
                load.weight_sum += n_weight * e.coeff;
                load.unfrozen += 1;
            }
            let level = self.bound_level[v as usize];
            if level.is_finite() {
                s.bounded.push((level, v));
            }
        }
        s.candidates.extend(0..self.load.len() as u32);
        s.look_everywhere = true;
        self.fill();
        self.scratch.look_everywhere = false;
        // A variable never frozen crosses no shared constraint and has no
        // bound: its rate is infinite.
        for k in 0..self.alive.len() {
            let v = self.alive[k] as usize;
            if self.frozen_by(v) == NONE && self.bottleneck[v] != NONE {
                self.drop_records(v);
                self.bottleneck[v] = NONE;
            }
        }
    }

    /// Solves again from pop `k`: undoes the pops from `k` on, applies the
    /// pending changes, and fills on.
    fn solve_from(&mut self, k: usize) {
        self.solved_from = k;
        let s = &mut self.scratch;
        s.bounded.clear();
        s.candidates.clear();
        s.candidate.resize(self.load.len(), false);
        s.rank.resize(self.load.len(), NONE);
        s.var_rank.resize(self.variables.len(), NONE);
        s.look_for_new.resize(self.load.len(), false);
        // Every constraint is full after a filling (no weight and no
        // unfrozen variable left on it), so its state at pop `k` is the use
        // before the first pop from `k` on that touched it, and the sum of
        // the weights those pops took off.
        let pop = self.pops[k];
        for u in &self.log[pop.log_start as usize..] {
            let load = &mut self.load[u.cnst as usize];
            if s.candidate[u.cnst as usize] {
                load.weight_sum += u.weight;
                load.unfrozen += u.unfrozen;
            } else {
                s.candidate[u.cnst as usize] = true;
                s.candidates.push(u.cnst);
                self.changes.mark(u.cnst);
                load.used = u.used;
                load.weight_sum = u.weight;
                load.unfrozen = u.unfrozen;
            }
        }
        self.log.truncate(pop.log_start as usize);
        // The undone pops are open again, in their order: a variable
        // switches only where the new filling overtakes it.
        s.undone.clear();
        s.undone_bounds.clear();
        for (j, p) in self.pops[k..].iter().enumerate() {
            if p.cnst != NONE {
                self.popped_at[p.cnst as usize] = NONE;
                s.rank[p.cnst as usize] = j as u32;
                s.undone.push(p.cnst);
            } else {
                self.frozen_at[p.var as usize] = NONE;
                s.var_rank[p.var as usize] = j as u32;
                s.undone_bounds.push(p.var);
            }
        }
        s.redone.clear();
        s.redone.resize(self.pops.len() - k, false);
        s.first_open = 0;
        if self.bounded > 0 {
            // The variables they froze that can reach a bound: at a bound, or
            // the first record of each on the constraint.
            let mut unfreeze = |v: u32| {
                let level = self.bound_level[v as usize];
                if level.is_finite() && self.variables[v as usize].alive_slot != u32::MAX {
                    s.bounded.push((level, v));
                }
            };
            for p in &self.pops[k..] {
                if p.cnst == NONE {
                    unfreeze(p.var);
                    continue;
                }
                for r in &self.constraints[p.cnst as usize].records {
                    if r.var != NONE && r.var & FIRST != 0 {
                        unfreeze(r.var & !FIRST);
                    }
                }
            }
        }
        for p in &self.pending {
            let load = &mut self.load[p.cnst as usize];
            load.weight_sum = load.weight_sum - p.old + p.new;
            load.unfrozen = load.unfrozen.wrapping_add_signed(p.joins);
            if !s.candidate[p.cnst as usize] {
                // A constraint no variable crossed before the new one.
                s.candidate[p.cnst as usize] = true;
                s.candidates.push(p.cnst);
                self.changes.mark(p.cnst);
            }
        }
        // A new variable is frozen by whichever of its constraints pops
        // first: those look for it.
        for &v in &self.arrived {
            let level = self.bound_level[v as usize];
            if level.is_finite() {
                s.bounded.push((level, v));
            }
            for e in self.variables[v as usize].elements.as_slice() {
                s.look_for_new[e.cnst as usize] = true;
            }
        }
        for &c in &s.candidates {
            s.candidate[c as usize] = false;
        }
        self.pops.truncate(k);
        // Without bounds in play, the new filling is nearly always the last
        // one's order with a few constraints moved: try that order first.
        let bounds_in_play = !s.bounded.is_empty() || !s.undone_bounds.is_empty();
        if !bounds_in_play && self.fill_in_order() {
            self.stats.in_order += 1;
        } else {
            self.stats.sorted += 1;
            self.fill();
        }
        let s = &mut self.scratch;
        for &c in &s.undone {
            s.rank[c as usize] = NONE;
        }
        for &v in &self.arrived {
            let var = &mut self.variables[v as usize];
            var.solved = true;
            for e in var.elements.as_slice() {
                s.look_for_new[e.cnst as usize] = false;
            }
            if self.bottleneck[v as usize] == NONE {
                // New and unlimited: reported all the same.
                self.switched.push(v);
            }
        }
        for &v in &s.undone_bounds {
            s.var_rank[v as usize] = NONE;
        }
        s.redone.clear();
        s.first_open = 0;
    }

    /// The filling of the module header, from the state the solve set up:
    /// `candidates` may still saturate, `bounded` may reach their bound.
    fn fill(&mut self) {
        let s = &mut self.scratch;
        // Highest level first, so the next bound to bind is popped from the end.
        s.bounded.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        // A freeze only raises the level of the other constraints the
        // variable crosses (it took less than their level), so a constraint
        // whose level rose since it was filed is filed again when it
        // reaches the front.
        s.levels.clear();
        for &c in &s.candidates {
            let load = &self.load[c as usize];
            if !self.fatpipe[c as usize] && load.unfrozen > 0 {
                s.levels.push(load.level(), c);
            }
        }
        loop {
            while self
                .scratch
                .bounded
                .last()
                .is_some_and(|&(_, v)| self.frozen_by(v as usize) != NONE)
            {
                self.scratch.bounded.pop();
            }
            let bound_level = self.scratch.bounded.last().map_or(f64::INFINITY, |b| b.0);
            // The constraint that saturates first (levels are >= 0, so their
            // bits order like the numbers).
            let best = loop {
                let s = &mut self.scratch;
                let Some((level, c)) = s.levels.first() else {
                    break None;
                };
                let load = &self.load[c as usize];
                if load.unfrozen == 0 {
                    s.levels.take_first();
                    continue;
                }
                let now = load.level();
                if now > level {
                    // Its level rose: it moves back.
                    s.levels.file_first_again(now);
                } else {
                    break Some((now, c));
                }
            };
            match best {
                Some((level, c)) if level < bound_level => {
                    self.scratch.levels.take_first();
                    self.pop_constraint(c, level);
                }
                _ => {
                    let Some((level, v)) = self.scratch.bounded.pop() else {
                        break;
                    };
                    self.pop_bound(v, level);
                }
            }
        }
    }

    /// The filling again from the restart in the order of the pops it
    /// undid, then the other constraints it touched, checked as it goes
    /// (the module header's "Filling again in the last order"). Returns
    /// whether it filled; if not, the state is back at the restart.
    fn fill_in_order(&mut self) -> bool {
        let k = self.pops.len();
        let s = &mut self.scratch;
        s.order.clear();
        s.order.extend_from_slice(&s.undone);
        for &c in &s.candidates {
            if s.rank[c as usize] == NONE && !self.fatpipe[c as usize] {
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
                match self.over_full(k) {
                    None => break true,
                    Some((from, i)) => {
                        // It goes before the pop that froze its last variable.
                        self.stats.over_full += 1;
                        match self.move_back(k, i, from, &mut budget) {
                            Some(to) => at = to,
                            None => break false,
                        }
                        continue;
                    }
                }
            };
            let load = &self.load[c as usize];
            if load.unfrozen == 0 {
                at += 1;
                continue;
            }
            let level = load.level();
            if self.pops.len() > k && level < self.pops[self.pops.len() - 1].level {
                // `c` saturates below pops already done: it goes before the
                // first of them above its level.
                let i = k + self.pops[k..].partition_point(|p| p.level <= level);
                match self.move_back(k, i, at, &mut budget) {
                    Some(to) => at = to,
                    None => break false,
                }
                continue;
            }
            // The next one saturating first: `c` is not the lowest, it
            // goes after it (cheaper than popping it and rolling it back).
            let next = self
                .scratch
                .order
                .get(at + 1)
                .map(|&n| &self.load[n as usize]);
            if next.is_some_and(|n| n.unfrozen > 0 && n.level() < level) {
                self.scratch.order.swap(at, at + 1);
                continue;
            }
            self.scratch.order_at.push(at as u32);
            self.pop_constraint(c, level);
            at += 1;
        };
        if !filled {
            self.stats.given_up += 1;
            self.roll_back_to(k);
        }
        self.scratch.in_order = false;
        filled
    }

    /// After filling in order from pop `k`: the place in the order of a
    /// constraint that did not pop and is over-full, and the pop that froze
    /// its last variable (its last change in the log; the restart if none).
    fn over_full(&self, k: usize) -> Option<(usize, usize)> {
        // Every constraint in the order is open at the restart, so one that
        // has not popped since has no pop at all.
        let over = self.scratch.order.iter().position(|&c| {
            let load = &self.load[c as usize];
            self.popped_at[c as usize] == NONE && load.used > load.capacity * (1.0 + FULL_WITHIN)
        });
        let from = over?;
        let c = self.scratch.order[from];
        let i = match self.log.iter().rposition(|u| u.cnst == c) {
            Some(entry) => self.pops.partition_point(|p| p.log_start <= entry as u32) - 1,
            None => k,
        };
        Some((from, i.max(k)))
    }

    /// Moves the constraint at place `from` in the order to just before pop
    /// `i`'s (from the restart `k` on), rolls back to pop `i`, and returns
    /// its new place. `None` (give up) when that would roll back more pops
    /// than are left in `budget`, or pop `i`'s is not before it (rounding).
    fn move_back(&mut self, k: usize, i: usize, from: usize, budget: &mut usize) -> Option<usize> {
        let rolled = self.pops.len() - i;
        let s = &mut self.scratch;
        let to = s.order_at[i - k] as usize;
        if rolled > *budget || to >= from {
            return None;
        }
        *budget -= rolled;
        s.order[to..=from].rotate_right(1);
        s.order_at.truncate(i - k);
        self.stats.rolled_back += rolled as u64;
        self.roll_back_to(i);
        Some(to)
    }

    /// Undoes the pops from `i` on, in the middle of a filling: each
    /// constraint they touched gets back its use from before the first of
    /// them, and the weight and unfrozen variables they took off; the
    /// variables they froze are unfrozen, those that switched to them
    /// switch back, and they are open again for the variables' switching.
    fn roll_back_to(&mut self, i: usize) {
        let pop = self.pops[i];
        for u in self.log[pop.log_start as usize..].iter().rev() {
            let load = &mut self.load[u.cnst as usize];
            load.used = u.used;
            load.weight_sum += u.weight;
            load.unfrozen += u.unfrozen;
        }
        self.log.truncate(pop.log_start as usize);
        while let Some(&(j, v, b)) = self.scratch.switches.last() {
            if (j as usize) < i {
                break;
            }
            self.scratch.switches.pop();
            if b < BOUND {
                self.switch_to(v as usize, b);
            } else {
                self.drop_records(v as usize);
                self.bottleneck[v as usize] = b;
            }
        }
        let s = &mut self.scratch;
        for p in &self.pops[i..] {
            let rank = if p.cnst != NONE {
                self.popped_at[p.cnst as usize] = NONE;
                s.rank[p.cnst as usize]
            } else {
                self.frozen_at[p.var as usize] = NONE;
                s.var_rank[p.var as usize]
            };
            if rank != NONE {
                s.redone[rank as usize] = false;
                s.first_open = s.first_open.min(rank as usize);
            }
        }
        self.pops.truncate(i);
    }

    fn start_pop(&mut self, level: f64, cnst: u32, var: u32) -> u32 {
        let k = self.pops.len() as u32;
        self.pops.push(Pop {
            level,
            cnst,
            var,
            log_start: self.log.len() as u32,
        });
        k
    }

    /// Constraint `x` saturates at `level`: every unfrozen variable on it
    /// freezes there (switching to it if its bottleneck was elsewhere), and
    /// its records take their use off the other constraints.
    fn pop_constraint(&mut self, x: u32, level: f64) {
        let k = self.start_pop(level, x, NONE);
        let xi = x as usize;
        // Its variables, and those that switch to it, are frozen.
        self.popped_at[xi] = k;
        let load = &mut self.load[xi];
        self.log.push(Undo {
            cnst: x,
            unfrozen: load.unfrozen,
            used: load.used,
            weight: load.weight_sum,
        });
        self.changes.mark(x);
        self.level[xi] = level;
        // All the weight still on `x` freezes at `level`: x is full.
        load.used += load.weight_sum * level;
        load.weight_sum = 0.0;
        load.unfrozen = 0;
        // A variable on `x` frozen elsewhere in the last filling is still
        // unfrozen only if that pop is not done again yet, and it came
        // before x's: look for such variables only when one is open.
        let s = &mut self.scratch;
        let rank = s.rank.get(xi).copied().unwrap_or(NONE);
        if rank != NONE {
            s.redo(rank);
        }
        let look = s.look_everywhere
            || s.look_for_new[xi]
            || s.first_open < (rank as usize).min(s.redone.len());
        if look {
            for i in 0..self.constraints[xi].elements.len() {
                let v = self.constraints[xi].elements[i].var as usize;
                if self.frozen_by(v) == NONE && self.bottleneck[v] != x {
                    if self.scratch.in_order {
                        self.scratch
                            .switches
                            .push((k, v as u32, self.bottleneck[v]));
                    }
                    self.switch_to(v, x);
                }
            }
        }
        let Self {
            constraints,
            load,
            log,
            changes,
            ..
        } = self;
        let records = &constraints[xi].records;
        log.reserve(records.len());
        for r in records {
            // A record left by a variable that moved away, or one that only
            // marks a variable with no other constraint.
            if r.var == NONE || r.cnst == x {
                continue;
            }
            take_off(
                &mut load[r.cnst as usize],
                r.cnst,
                r.weight,
                level,
                log,
                changes,
            );
        }
    }

    /// Variable `v` reaches its bound level `level` before any constraint
    /// it crosses saturates.
    fn pop_bound(&mut self, v: u32, level: f64) {
        let k = self.start_pop(level, NONE, v);
        let vi = v as usize;
        self.frozen_at[vi] = k;
        self.scratch.redo_bound_of(vi);
        if self.bottleneck[vi] != BOUND {
            self.drop_records(vi);
            self.bottleneck[vi] = BOUND;
            self.switched.push(v);
        }
        let var = &self.variables[vi];
        let n_weight = var.count as f64 * var.weight;
        for e in var.elements.as_slice() {
            let load = &mut self.load[e.cnst as usize];
            let (log, changes) = (&mut self.log, &mut self.changes);
            take_off(load, e.cnst, n_weight * e.coeff, level, log, changes);
        }
    }
}

/// A variable of `weight` (n · w · a) freezes at `level` on constraint `c`:
/// its use goes on, its weight and itself off what is still filling `c`, and
/// what it changed goes in the log.
#[inline]
fn take_off(
    load: &mut Load,
    c: u32,
    weight: f64,
    level: f64,
    log: &mut Vec<Undo>,
    changes: &mut Changes,
) {
    log.push(Undo {
        cnst: c,
        unfrozen: 1,
        used: load.used,
        weight,
    });
    changes.mark(c);
    load.used += weight * level;
    load.unfrozen -= 1;
    // The last weight off a constraint leaves exactly none.
    load.weight_sum = if load.unfrozen == 0 {
        0.0
    } else {
        load.weight_sum - weight
    };
}

/// The coefficient of a resource used twice by one activity: the uses add
/// up on a shared resource; on a fatpipe only the larger one counts (each
/// use may take the whole capacity). SimGrid's `System::expand` does the same.
pub fn merge_coefficients(sharing: Sharing, a: f64, b: f64) -> f64 {
    match sharing {
        Sharing::Shared => a + b,
        Sharing::Fatpipe => a.max(b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    #[test]
    fn worked_example_from_the_header() {
        // L1 (10) carries x and y; L2 (4) carries x. L2 binds first: x = 4, y = 6.
        let mut s = System::new();
        let l1 = s.add_constraint(10.0, Sharing::Shared);
        let l2 = s.add_constraint(4.0, Sharing::Shared);
        let x = s.add_variable(1.0, f64::INFINITY, 1, &[(l1, 1.0), (l2, 1.0)]);
        let y = s.add_variable(1.0, f64::INFINITY, 1, &[(l1, 1.0)]);
        s.solve();
        assert!(close(s.value(x), 4.0));
        assert!(close(s.value(y), 6.0));
    }

    #[test]
    fn worked_restart_example_from_the_header() {
        // L1 (6): x, y; L2 (10): y, z. L1 first at 3 (x = y = 3), then z = 7.
        let build = || {
            let mut s = System::new();
            let l1 = s.add_constraint(6.0, Sharing::Shared);
            let l2 = s.add_constraint(10.0, Sharing::Shared);
            let x = s.add_variable(1.0, f64::INFINITY, 1, &[(l1, 1.0)]);
            let y = s.add_variable(1.0, f64::INFINITY, 1, &[(l1, 1.0), (l2, 1.0)]);
            let z = s.add_variable(1.0, f64::INFINITY, 1, &[(l2, 1.0)]);
            s.solve();
            assert!(close(s.value(x), 3.0) && close(s.value(y), 3.0) && close(s.value(z), 7.0));
            (s, [x, y, z], [l1, l2])
        };
        // z ends: restart at 7; nothing below moves, nothing is filled again.
        let (mut s, [x, y, z], [_, l2]) = build();
        s.remove_variable(z);
        s.solve();
        assert_eq!(s.saturated().count(), 0);
        assert!(s.switched().is_empty());
        assert!(close(s.value(x), 3.0) && close(s.value(y), 3.0));
        assert!(close(s.usage(l2), 3.0));
        // x ends: restart at 3; y and z filled again, L2 binds at 5.
        let (mut s, [x, y, z], [l1, l2]) = build();
        s.remove_variable(x);
        s.solve();
        // L2 is the only pop, and y moves to it from L1.
        assert_eq!(s.saturated().collect::<Vec<_>>(), vec![(l2, 5.0)]);
        assert_eq!(s.switched(), &[y as u32]);
        assert_eq!(s.bottleneck(y), Bottleneck::Constraint(l2));
        assert!(close(s.value(y), 5.0) && close(s.value(z), 5.0));
        assert!(close(s.usage(l1), 5.0));
    }

    #[test]
    fn a_group_of_identical_activities_counts_each_member() {
        // Three identical flows grouped in one variable share a link of 9
        // with one other flow: all four get 9/4.
        let mut s = System::new();
        let l = s.add_constraint(9.0, Sharing::Shared);
        let group = s.add_variable(1.0, f64::INFINITY, 3, &[(l, 1.0)]);
        let single = s.add_variable(1.0, f64::INFINITY, 1, &[(l, 1.0)]);
        s.solve();
        assert!(close(s.value(group), 2.25));
        assert!(close(s.value(single), 2.25));
        assert!(close(s.usage(l), 9.0));
    }

    #[test]
    fn removed_variable_frees_its_share_and_its_id_is_reused() {
        let mut s = System::new();
        let l = s.add_constraint(10.0, Sharing::Shared);
        let a = s.add_variable(1.0, f64::INFINITY, 1, &[(l, 1.0)]);
        let b = s.add_variable(1.0, f64::INFINITY, 1, &[(l, 1.0)]);
        s.solve();
        assert!(close(s.value(b), 5.0));
        s.remove_variable(a);
        s.solve();
        assert!(close(s.value(b), 10.0));
        let c = s.add_variable(1.0, f64::INFINITY, 1, &[(l, 1.0)]);
        assert_eq!(c, a);
        s.solve();
        assert!(close(s.value(b), 5.0) && close(s.value(c), 5.0));
    }

    #[test]
    fn a_default_system_has_nothing_to_solve_until_something_is_added() {
        let mut s = System::default();
        assert!(!s.solve());
        let l = s.add_constraint(4.0, Sharing::Shared);
        let v = s.add_variable(1.0, f64::INFINITY, 2, &[(l, 1.0)]);
        assert!(s.solve());
        assert!(close(s.value(v), 2.0));
    }

    #[test]
    fn solve_does_nothing_when_nothing_changed() {
        let mut s = System::new();
        let l = s.add_constraint(1.0, Sharing::Shared);
        s.add_variable(1.0, f64::INFINITY, 1, &[(l, 1.0)]);
        assert!(s.solve());
        assert!(!s.solve());
        s.set_capacity(l, 2.0);
        assert!(s.solve());
    }
}
