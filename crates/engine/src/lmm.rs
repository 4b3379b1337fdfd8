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
//! saturated constraint. Each variable is frozen once, so one solve costs
//! `O(E + K·C)` for `E` elements, `C` shared constraints and `K` rounds.
//!
//! Worked example: links L1 (capacity 10) and L2 (capacity 4); flow x uses
//! L1 and L2, flow y uses L1 only, both weight 1. Levels: L1 10/2 = 5,
//! L2 4/1 = 4. L2 saturates first: x = 4; L1 keeps 6 for y alone: y = 6.
//!
//! The split between data (`Constraint`, `Variable`, elements) and the
//! algorithm (`System::solve`) follows SimGrid's `src/kernel/lmm/`.

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
    coeff: f64,
    /// Position of this element in the variable's element list.
    var_slot: u32,
}

#[derive(Clone, Copy, Debug)]
struct VariableElement {
    cnst: u32,
    coeff: f64,
    /// Position of this element in the constraint's element list.
    cnst_slot: u32,
}

#[derive(Clone, Debug)]
struct Constraint {
    capacity: f64,
    sharing: Sharing,
    elements: Vec<ConstraintElement>,
}

#[derive(Clone, Debug)]
struct Variable {
    weight: f64,
    bound: f64,
    count: u32,
    value: f64,
    elements: Vec<VariableElement>,
    /// Position in `System::alive`, or `u32::MAX` when the slot is free.
    alive_slot: u32,
}

/// Per-solve scratch state, kept to avoid allocating at every event.
#[derive(Default, Debug)]
struct Scratch {
    remaining: Vec<f64>,
    weight_sum: Vec<f64>,
    unfrozen: Vec<u32>,
    used: Vec<f64>,
    frozen: Vec<bool>,
    effective_bound: Vec<f64>,
    active: Vec<u32>,
    bounded: Vec<(f64, u32)>,
}

/// A set of constraints and variables, and their max-min fair solution.
#[derive(Default, Debug)]
pub struct System {
    constraints: Vec<Constraint>,
    variables: Vec<Variable>,
    free_variables: Vec<usize>,
    alive: Vec<u32>,
    modified: bool,
    scratch: Scratch,
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
        });
        self.modified = true;
        self.constraints.len() - 1
    }

    pub fn set_capacity(&mut self, c: ConstraintId, capacity: f64) {
        assert!(
            capacity.is_finite() && capacity >= 0.0,
            "capacity must be finite and >= 0, got {capacity}"
        );
        self.constraints[c].capacity = capacity;
        self.modified = true;
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
        let id = match self.free_variables.pop() {
            Some(id) => id,
            None => {
                self.variables.push(Variable {
                    weight,
                    bound,
                    count,
                    value: 0.0,
                    elements: Vec::new(),
                    alive_slot: u32::MAX,
                });
                self.variables.len() - 1
            }
        };
        let slot = self.alive.len() as u32;
        self.alive.push(id as u32);
        let var = &mut self.variables[id];
        *var = Variable {
            weight,
            bound,
            count,
            value: 0.0,
            elements: std::mem::take(&mut var.elements),
            alive_slot: slot,
        };
        var.elements.clear();
        for &(c, coeff) in elements {
            assert!(
                coeff >= 0.0 && coeff.is_finite(),
                "coefficient must be finite and >= 0, got {coeff}"
            );
            if coeff == 0.0 {
                continue;
            }
            let var = &mut self.variables[id];
            if let Some(e) = var.elements.iter_mut().find(|e| e.cnst as usize == c) {
                e.coeff = merge_coefficients(self.constraints[c].sharing, e.coeff, coeff);
                let slot = e.cnst_slot as usize;
                let total = e.coeff;
                self.constraints[c].elements[slot].coeff = total;
                continue;
            }
            let cnst = &mut self.constraints[c];
            let var_slot = var.elements.len() as u32;
            var.elements.push(VariableElement {
                cnst: c as u32,
                coeff,
                cnst_slot: cnst.elements.len() as u32,
            });
            cnst.elements.push(ConstraintElement {
                var: id as u32,
                coeff,
                var_slot,
            });
        }
        self.modified = true;
        id
    }

    /// Removes a variable; its id may be reused by a later `add_variable`.
    pub fn remove_variable(&mut self, v: VariableId) {
        let slot = self.variables[v].alive_slot;
        assert!(slot != u32::MAX, "variable {v} is not in the system");
        let elements = std::mem::take(&mut self.variables[v].elements);
        for e in &elements {
            let cnst = &mut self.constraints[e.cnst as usize];
            let pos = e.cnst_slot as usize;
            cnst.elements.swap_remove(pos);
            if let Some(moved) = cnst.elements.get(pos).copied() {
                self.variables[moved.var as usize].elements[moved.var_slot as usize].cnst_slot =
                    pos as u32;
            }
        }
        self.variables[v].elements = elements;
        self.variables[v].elements.clear();
        self.alive.swap_remove(slot as usize);
        if let Some(&moved) = self.alive.get(slot as usize) {
            self.variables[moved as usize].alive_slot = slot;
        }
        self.variables[v].alive_slot = u32::MAX;
        self.variables[v].value = 0.0;
        self.free_variables.push(v);
        self.modified = true;
    }

    pub fn set_count(&mut self, v: VariableId, count: u32) {
        assert!(count > 0, "a variable stands for at least one activity");
        if self.variables[v].count != count {
            self.variables[v].count = count;
            self.modified = true;
        }
    }

    pub fn set_bound(&mut self, v: VariableId, bound: f64) {
        assert!(
            bound > 0.0,
            "bound must be > 0 (use INFINITY for none), got {bound}"
        );
        self.variables[v].bound = bound;
        self.modified = true;
    }

    /// The rate of each of the variable's activities, from the last solve.
    pub fn value(&self, v: VariableId) -> f64 {
        self.variables[v].value
    }

    /// Σ n_v · a_cv · r_v over the variables on `c`, from the last solve.
    pub fn usage(&self, c: ConstraintId) -> f64 {
        self.scratch.used.get(c).copied().unwrap_or(0.0)
    }

    pub fn variable_count(&self) -> usize {
        self.alive.len()
    }

    /// Solves the system if anything changed since the last solve.
    /// Returns whether it solved.
    pub fn solve(&mut self) -> bool {
        if !self.modified {
            return false;
        }
        self.do_solve();
        self.modified = false;
        true
    }

    fn do_solve(&mut self) {
        let n_cnst = self.constraints.len();
        let n_var = self.variables.len();
        let s = &mut self.scratch;
        s.remaining.clear();
        s.remaining
            .extend(self.constraints.iter().map(|c| c.capacity));
        s.weight_sum.clear();
        s.weight_sum.resize(n_cnst, 0.0);
        s.unfrozen.clear();
        s.unfrozen.resize(n_cnst, 0);
        s.used.clear();
        s.used.resize(n_cnst, 0.0);
        s.frozen.clear();
        s.frozen.resize(n_var, true);
        s.effective_bound.resize(n_var, f64::INFINITY);
        s.bounded.clear();

        // Fold fatpipe constraints into bounds; sum the weights on shared ones.
        for &v in &self.alive {
            let v = v as usize;
            let var = &self.variables[v];
            let mut bound = var.bound;
            for e in &var.elements {
                let c = e.cnst as usize;
                let cnst = &self.constraints[c];
                match cnst.sharing {
                    Sharing::Fatpipe => bound = bound.min(cnst.capacity / e.coeff),
                    Sharing::Shared => {
                        s.weight_sum[c] += var.count as f64 * e.coeff * var.weight;
                        s.unfrozen[c] += 1;
                    }
                }
            }
            s.frozen[v] = false;
            s.effective_bound[v] = bound;
            if bound.is_finite() {
                s.bounded.push((bound / var.weight, v as u32));
            }
        }
        // Highest level first, so the next bound to bind is popped from the end.
        s.bounded.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        s.active.clear();
        s.active
            .extend((0..n_cnst as u32).filter(|&c| s.unfrozen[c as usize] > 0));

        loop {
            while let Some(&(_, v)) = s.bounded.last() {
                if s.frozen[v as usize] {
                    s.bounded.pop();
                } else {
                    break;
                }
            }
            let bound_level = s.bounded.last().map_or(f64::INFINITY, |b| b.0);
            let mut best: Option<(f64, usize)> = None;
            for (i, &c) in s.active.iter().enumerate() {
                let c = c as usize;
                let level = s.remaining[c].max(0.0) / s.weight_sum[c];
                if best.is_none_or(|(l, _)| level < l) {
                    best = Some((level, i));
                }
            }
            match best {
                Some((level, i)) if level < bound_level => {
                    let c = s.active.swap_remove(i) as usize;
                    for k in 0..self.constraints[c].elements.len() {
                        let v = self.constraints[c].elements[k].var as usize;
                        if !s.frozen[v] {
                            let rate = self.variables[v].weight * level;
                            freeze(s, &self.constraints, &mut self.variables[v], v, rate);
                        }
                    }
                    s.active.retain(|&c| s.unfrozen[c as usize] > 0);
                }
                _ => {
                    let Some((_, v)) = s.bounded.pop() else { break };
                    let v = v as usize;
                    let rate = s.effective_bound[v];
                    freeze(s, &self.constraints, &mut self.variables[v], v, rate);
                    if s.active.iter().any(|&c| s.unfrozen[c as usize] == 0) {
                        s.active.retain(|&c| s.unfrozen[c as usize] > 0);
                    }
                }
            }
        }
        // Variables that cross no shared constraint and have no bound have no
        // finite rate; they are reported as infinitely fast.
        for &v in &self.alive {
            if !s.frozen[v as usize] {
                self.variables[v as usize].value = f64::INFINITY;
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

/// Freezes variable `v` at `rate` and takes its use off every constraint it crosses.
fn freeze(s: &mut Scratch, constraints: &[Constraint], var: &mut Variable, v: usize, rate: f64) {
    s.frozen[v] = true;
    var.value = rate;
    let n = var.count as f64;
    for e in &var.elements {
        let c = e.cnst as usize;
        let used = n * e.coeff * rate;
        s.used[c] += used;
        if constraints[c].sharing == Sharing::Shared {
            s.remaining[c] -= used;
            s.weight_sum[c] -= n * e.coeff * var.weight;
            s.unfrozen[c] -= 1;
        }
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
