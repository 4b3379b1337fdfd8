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
//! `λ_c` and all `b_v / w_v`: freeze the variables it names at `w_v · λ`,
//! subtract their use from the other constraints they cross, and drop the
//! saturated constraint. A freeze at level `λ ≤ λ_c` can only raise the
//! level of another constraint `c` it crosses (`(R − xλ)/(S − x) ≥ R/S`), so
//! the constraints wait in a heap by level and a touched one is re-keyed
//! only when it reaches the top. Each variable is frozen once: one solve
//! costs `O(E log C)` for `E` elements and `C` shared constraints.
//!
//! Worked example: links L1 (capacity 10) and L2 (capacity 4); flow x uses
//! L1 and L2, flow y uses L1 only, both weight 1. Levels: L1 10/2 = 5,
//! L2 4/1 = 4. L2 saturates first: x = 4; L1 keeps 6 for y alone: y = 6.
//!
//! # Solving again from where it changed
//!
//! Most changes in a simulation remove work: an activity completes, so a
//! variable goes away or stands for fewer activities. If variable `v` was
//! frozen at level `λ_v`, every constraint it crosses saturated at `λ_v` or
//! later, and with less of `v` they saturate no earlier. So below `λ_v` the
//! filling is unchanged: every variable frozen below `λ_v` keeps its rate.
//! The solver keeps the order and levels in which variables were frozen,
//! rebuilds the state at `λ* = min λ_v` from the variables frozen at or
//! above it, and fills on from there. Any other change (a new variable, more
//! activities, a new bound or capacity) solves from `λ = 0`.
//!
//! Worked example: links L1 (capacity 6) and L2 (capacity 10); x uses L1,
//! y uses L1 and L2, z uses L2, all weight 1. The fill: L1 saturates at 3
//! (x = y = 3), then L2 keeps 7 for z alone (z = 7, level 7). Now z ends:
//! `λ* = 7`, so x and y (frozen at 3) keep their rates and use, and only
//! L2's state at 7 is rebuilt (z's use given back: L2 carries y's 3):
//! nothing is left to fill. If x ends instead, `λ* = 3` and y and z are
//! filled again from the state at 3 (x's and y's use given back): L1 has 6
//! left for y alone (level 6), L2 has 10 for y and z (level 5); L2
//! saturates first, so y = z = 5, and L1 carries 5 of its 6.
//! A restart at `λ*` is exactly the tail of a solve from 0, so the two agree
//! to rounding (a property test runs random systems through random changes
//! of every kind, each solved again, against a solve from scratch, to 1e-12).
//!
//! Why not only the changed connected component. The constraint graph
//! (constraints linked by the variables they share) splits into components
//! whose problems are independent, so a change could be solved again inside
//! its component. The restart above is already finer: what is filled again
//! is the changed variable's component *in the residual graph at `λ*`*
//! (constraints and variables still unfrozen at that level), plus the other
//! residual components. On the benchmark's star (every host to every host)
//! that residual graph is one component: measured at 1,000 / 4,000 / 16,000
//! flows, the component of the change holds 98.1 % / 99.8 % / 99.99 % of the
//! variables a restart fills again, and 96 % of those really change rate by
//! more than 1e-12. A search for the component would cost as much as the
//! pass it could save, so there is none.
//!
//! The cost per event is therefore about one pass over the variables frozen
//! at or above `λ*` (at 16,000 flows, 1,260 of about 2,900 live route
//! classes on average): giving back their use, then freezing each once.
//! The fill below keeps that pass short: the constraint that froze a
//! variable gets only its use added (it has left the heap, so its weight,
//! count and staleness no longer matter).
//!
//! # Which uses changed
//!
//! A solve changes the use `Σ n_v · a_cv · r_v` only of the constraints
//! crossed by the variables it fills again (and, solving from 0, of those
//! that had a use); removing a variable changes those it crossed. When asked
//! to (`track_changes`), the system lists these constraints as it goes, so a
//! recorder (`crate::record`) looks at them alone (`take_changed`).
//!
//! The split between data (`Constraint`, `Variable`, elements) and the
//! algorithm (`System::solve`) follows SimGrid's `src/kernel/lmm/`.
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;

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

/// Elements kept inline in the variable: routes are short, and the solver's
/// hot loop reads them for every variable it freezes.
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

#[derive(Clone, Debug)]
struct Constraint {
    capacity: f64,
    sharing: Sharing,
    elements: Vec<ConstraintElement>,
}

/// Fields in the order the solver reads them, so that a variable's hot
/// part shares cache lines.
#[derive(Clone, Debug, Default)]
#[repr(C)]
struct Variable {
    weight: f64,
    /// The last solve's result: rate of each activity, the level it was
    /// frozen at (infinite if never frozen) and the count it was solved for
    /// (0 if it was added since).
    value: f64,
    level: f64,
    count: u32,
    solved_count: u32,
    /// Position in `System::alive`, or `u32::MAX` when the slot is free.
    alive_slot: u32,
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

/// Per-solve scratch state, kept to avoid allocating at every event.
#[derive(Default, Debug)]
struct Scratch {
    /// Shared constraints that may still saturate, smallest level first.
    levels: BinaryHeap<Reverse<(u64, u32)>>,
    /// Constraints whose level in `levels` is out of date (too low).
    stale: Vec<bool>,
    frozen: Vec<bool>,
    refill: Vec<u32>,
    bounded: Vec<(f64, u32)>,
}

/// A set of constraints and variables, and their max-min fair solution.
#[derive(Default, Debug)]
pub struct System {
    constraints: Vec<Constraint>,
    fatpipe: Vec<bool>,
    variables: Vec<Variable>,
    free_variables: Vec<usize>,
    alive: Vec<u32>,
    /// Whether each variable slot is in use (dense, so checking it does not
    /// load the variable).
    is_alive: Vec<bool>,
    /// Per constraint, parallel to `constraints`.
    load: Vec<Load>,
    /// Variables in the order the last solves froze them, with their levels
    /// made non-decreasing (for the binary search of a restart) and rates.
    order: Vec<Frozen>,
    /// Where in `order` the last solve started.
    solved_from: usize,
    /// The level to solve again from; `None` when nothing changed.
    restart: Option<f64>,
    scratch: Scratch,
    changes: Changes,
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

    fn changed_from(&mut self, level: f64) {
        self.restart = Some(self.restart.map_or(level, |l| l.min(level)));
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
        self.changed_from(0.0);
        self.constraints.len() - 1
    }

    pub fn set_capacity(&mut self, c: ConstraintId, capacity: f64) {
        assert!(
            capacity.is_finite() && capacity >= 0.0,
            "capacity must be finite and >= 0, got {capacity}"
        );
        self.constraints[c].capacity = capacity;
        if !self.fatpipe[c] {
            self.load[c].capacity = capacity;
        }
        if self.fatpipe[c] {
            for k in 0..self.constraints[c].elements.len() {
                let v = self.constraints[c].elements[k].var as usize;
                self.variables[v].fatpipe_bound = self.fatpipe_bound(v);
            }
        }
        self.changed_from(0.0);
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
        var.value = 0.0;
        var.level = f64::INFINITY;
        var.solved_count = 0;
        var.alive_slot = self.alive.len() as u32;
        if self.is_alive.len() <= id {
            self.is_alive.resize(id + 1, false);
        }
        self.is_alive[id] = true;
        var.elements.clear();
        self.alive.push(id as u32);
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
        self.changed_from(0.0);
        id
    }

    /// Removes a variable; its id may be reused by a later `add_variable`.
    pub fn remove_variable(&mut self, v: VariableId) {
        let slot = self.variables[v].alive_slot;
        assert!(slot != u32::MAX, "variable {v} is not in the system");
        self.forget_solution(v);
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
        self.is_alive[v] = false;
        self.free_variables.push(v);
    }

    /// Changes how many identical activities the variable stands for (>= 1).
    pub fn set_count(&mut self, v: VariableId, count: u32) {
        assert!(count > 0, "a variable stands for at least one activity");
        let var = &self.variables[v];
        if var.count == count {
            return;
        }
        let (level, more) = (var.level, count > var.count);
        self.variables[v].count = count;
        self.changed_from(if more { 0.0 } else { level });
    }

    pub fn set_bound(&mut self, v: VariableId, bound: f64) {
        assert!(
            bound > 0.0,
            "bound must be > 0 (use INFINITY for none), got {bound}"
        );
        self.variables[v].bound = bound;
        self.changed_from(0.0);
    }

    /// The rate of each of the variable's activities, from the last solve.
    pub fn value(&self, v: VariableId) -> f64 {
        self.variables[v].value
    }

    /// Σ n_v · a_cv · r_v over the variables on `c`, from the last solve.
    pub fn usage(&self, c: ConstraintId) -> f64 {
        self.load[c].used
    }

    /// `(variable, rate)` for each variable the last solve gave a rate; the
    /// others kept theirs.
    pub fn new_values(&self) -> impl Iterator<Item = (u32, f64)> + '_ {
        self.order[self.solved_from..]
            .iter()
            .map(|f| (f.var, f.rate))
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

    /// Takes a variable's solved use off its constraints, and marks the
    /// solution changed from the level it was frozen at.
    fn forget_solution(&mut self, v: VariableId) {
        let var = &mut self.variables[v];
        if var.solved_count == 0 {
            // Never solved: added since the last solve, which starts from 0.
            self.changed_from(0.0);
            return;
        }
        let (n_rate, level) = (var.solved_count as f64 * var.value, var.level);
        var.solved_count = 0;
        if level.is_finite() {
            for e in var.elements.as_slice() {
                self.load[e.cnst as usize].used -= n_rate * e.coeff;
                self.changes.mark(e.cnst);
            }
            self.changed_from(level);
        }
    }

    /// Solves the system if anything changed since the last solve.
    /// Returns whether it solved.
    pub fn solve(&mut self) -> bool {
        let Some(restart) = self.restart.take() else {
            return false;
        };
        self.do_solve(restart);
        true
    }

    /// The algorithm of the module header, in one piece (as SimGrid's
    /// `lmm_solve` is): its steps share the saturation state of every
    /// constraint and variable, which splitting would only pass around.
    fn do_solve(&mut self, restart: f64) {
        let s = &mut self.scratch;
        // The variables to fill again: all of them, or those frozen at or
        // above the restart level; the others keep their rates and use.
        s.refill.clear();
        let give_back = restart > 0.0;
        if !give_back {
            self.order.clear();
            for (c, load) in self.load.iter_mut().enumerate() {
                if load.used != 0.0 {
                    self.changes.mark(c as u32);
                }
                load.used = 0.0;
            }
            s.refill.extend_from_slice(&self.alive);
            self.order.reserve(s.refill.len());
        } else {
            let keep = self.order.partition_point(|f| f.level < restart);
            s.refill.extend(
                self.order[keep..]
                    .iter()
                    .map(|f| f.var)
                    .filter(|&v| self.is_alive[v as usize]),
            );
            self.order.truncate(keep);
        }
        self.solved_from = self.order.len();
        for load in &mut self.load {
            load.weight_sum = 0.0;
            load.unfrozen = 0;
        }
        s.frozen.clear();
        s.frozen.resize(self.variables.len(), true);
        s.stale.resize(self.load.len(), false);
        s.bounded.clear();
        // One pass over the variables to fill again: give back their old
        // use, and add their weights to the constraints they cross.
        for &v in &s.refill {
            let var = &mut self.variables[v as usize];
            s.frozen[v as usize] = false;
            let old_use = if give_back && var.value.is_finite() {
                var.solved_count as f64 * var.value
            } else {
                0.0
            };
            let n_weight = var.count as f64 * var.weight;
            for e in var.elements.as_slice() {
                // Only the constraints of the variables filled again can
                // change their use in this solve.
                self.changes.mark(e.cnst);
                let load = &mut self.load[e.cnst as usize];
                load.used -= old_use * e.coeff;
                load.weight_sum += n_weight * e.coeff;
                load.unfrozen += 1;
            }
            var.value = f64::INFINITY;
            var.level = f64::INFINITY;
            var.solved_count = var.count;
            let bound = var.bound.min(var.fatpipe_bound);
            if bound.is_finite() {
                s.bounded.push((bound / var.weight, v));
            }
        }
        // Highest level first, so the next bound to bind is popped from the end.
        s.bounded.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        // Shared constraints that may still saturate, by level. A freeze only
        // raises the level of the other constraints the variable crosses
        // (it took less than their level), so a touched constraint is marked
        // stale and its level recomputed when it reaches the top.
        s.levels.clear();
        for c in 0..self.load.len() {
            let load = &self.load[c];
            s.stale[c] = false;
            if !self.fatpipe[c] && load.unfrozen > 0 {
                s.levels.push(Reverse((load.level().to_bits(), c as u32)));
            }
        }

        let mut filling = Filling {
            order: &mut self.order,
            load: &mut self.load,
            frozen: &mut s.frozen,
            stale: &mut s.stale,
        };
        loop {
            while s
                .bounded
                .last()
                .is_some_and(|&(_, v)| filling.frozen[v as usize])
            {
                s.bounded.pop();
            }
            let bound_level = s.bounded.last().map_or(f64::INFINITY, |b| b.0);
            // The constraint that saturates first (levels are >= 0, so their
            // bits order like the numbers).
            let best = loop {
                let Some(mut top) = s.levels.peek_mut() else {
                    break None;
                };
                let Reverse((bits, c)) = *top;
                let load = &filling.load[c as usize];
                if load.unfrozen == 0 {
                    PeekMut::pop(top);
                } else if filling.stale[c as usize] {
                    filling.stale[c as usize] = false;
                    *top = Reverse((load.level().to_bits(), c));
                } else {
                    break Some((f64::from_bits(bits), c as usize));
                }
            };
            match best {
                Some((level, c)) if level < bound_level => {
                    s.levels.pop();
                    let elements = &self.constraints[c].elements;
                    for e in elements {
                        let v = e.var as usize;
                        if !filling.frozen[v] {
                            filling.freeze(&mut self.variables[v], v, level, c);
                        }
                    }
                }
                _ => {
                    let Some((level, v)) = s.bounded.pop() else {
                        break;
                    };
                    filling.freeze(
                        &mut self.variables[v as usize],
                        v as usize,
                        level,
                        usize::MAX,
                    );
                }
            }
        }
        // A variable never frozen crosses no shared constraint and has no
        // bound: its rate is infinite.
        if !give_back {
            for &v in &self.alive {
                if !s.frozen[v as usize] {
                    self.order.push(Frozen {
                        level: f64::INFINITY,
                        var: v,
                        rate: f64::INFINITY,
                    });
                }
            }
        }
    }
}

/// A variable frozen by a solve: at which (non-decreasing) level, at which rate.
#[derive(Clone, Copy, Debug)]
struct Frozen {
    level: f64,
    var: u32,
    rate: f64,
}

/// What freezing a variable updates.
struct Filling<'a> {
    order: &'a mut Vec<Frozen>,
    load: &'a mut [Load],
    frozen: &'a mut [bool],
    stale: &'a mut [bool],
}

impl Filling<'_> {
    /// Freezes variable `v` at `level` (rate `w_v · level`) and takes its use
    /// off every constraint it crosses. `saturated` is the constraint that
    /// froze it (`usize::MAX` for its bound): out of the heap already, it
    /// needs only its use, not its weight, count or staleness.
    fn freeze(&mut self, var: &mut Variable, v: usize, level: f64, saturated: usize) {
        self.frozen[v] = true;
        let rate = var.weight * level;
        var.value = rate;
        var.level = level;
        let monotone = self.order.last().map_or(level, |f| f.level.max(level));
        self.order.push(Frozen {
            level: monotone,
            var: v as u32,
            rate,
        });
        let n_rate = var.count as f64 * rate;
        let n_weight = var.count as f64 * var.weight;
        for e in var.elements.as_slice() {
            let c = e.cnst as usize;
            let load = &mut self.load[c];
            load.used += n_rate * e.coeff;
            if c != saturated {
                load.weight_sum -= n_weight * e.coeff;
                load.unfrozen -= 1;
                self.stale[c] = true;
            }
        }
    }
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
        assert_eq!(s.new_values().count(), 0);
        assert!(close(s.value(x), 3.0) && close(s.value(y), 3.0));
        assert!(close(s.usage(l2), 3.0));
        // x ends: restart at 3; y and z filled again, L2 binds at 5.
        let (mut s, [x, y, z], [l1, _]) = build();
        s.remove_variable(x);
        s.solve();
        assert_eq!(s.new_values().count(), 2);
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
