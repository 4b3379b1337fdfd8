//! The system's data, apart from how it is solved: constraints (resources:
//! a capacity and a sharing policy), variables (activities: a weight, a
//! bound and how many identical activities one stands for) and the
//! elements linking them (variable `v` uses `a_cv` of constraint `c` per
//! unit of rate). SimGrid keeps `Constraint`, `Variable` and `Element`
//! apart from `MaxMin::do_solve` the same way; the solver (`super::solver`)
//! reads this data and keeps its own state beside it.
//!
//! Ids are typed indices ([`ConstraintId`], [`VarId`], and the solver's
//! `PopId` and `Rank`): the `n`-th constraint added is
//! `ConstraintId::new(n)`, and a removed variable's id is reused by the
//! next one added. An id that may be absent keeps a niche, so that its
//! `Option` is as small as the id.

use std::fmt;

/// Defines a typed index: a `u32` kept as `index + 1` in a `NonZeroU32`,
/// for ids that may be absent, so that an `Option` of it (no variable, no
/// pop) takes no more room than the index itself and needs no sentinel.
macro_rules! typed_index {
    ($(#[$doc:meta])* $vis:vis struct $name:ident;) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis struct $name(::std::num::NonZeroU32);

        impl $name {
            /// The id of index `index` (below `u32::MAX`).
            #[inline]
            pub fn new(index: usize) -> Self {
                let raw = u32::try_from(index).ok().and_then(|i| i.checked_add(1));
                let raw = raw.and_then(::std::num::NonZeroU32::new);
                Self(raw.expect(concat!(stringify!($name), " out of range")))
            }

            /// Its place in the dense arrays.
            #[inline]
            pub fn index(self) -> usize {
                $crate::lmm::model::position(self.0.get() - 1)
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!(stringify!($name), "({})"), self.index())
            }
        }
    };
}
pub(super) use typed_index;

/// A resource of the system. Never absent, so it is the plain index: the
/// hottest loops (the log's undo, a pop's records) index by it directly.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConstraintId(u32);

impl ConstraintId {
    /// The id of index `index` (below 2^32).
    #[inline]
    pub fn new(index: usize) -> Self {
        Self(narrow(index))
    }

    /// Its place in the dense arrays.
    #[inline]
    pub fn index(self) -> usize {
        position(self.0)
    }
}

impl fmt::Debug for ConstraintId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ConstraintId({})", self.0)
    }
}

typed_index! {
    /// An activity (or a group of identical activities) of the system.
    pub struct VarId;
}

impl VarId {
    /// An optional id as one number (0 for none), to compare two in one
    /// instruction where a list is scanned for where each variable's run
    /// of records starts.
    #[inline]
    pub(super) fn bits(id: Option<Self>) -> u32 {
        id.map_or(0, |id| id.0.get())
    }
}

/// A position kept in a `u32` (slots in lists, starts in logs) as an index.
#[inline]
pub(super) fn position(p: u32) -> usize {
    // Lossless: hvnet's targets have at least 32-bit pointers.
    p as usize
}

/// A list's length or index kept in a `u32`, to keep the hot arrays small.
#[inline]
pub(super) fn narrow(i: usize) -> u32 {
    u32::try_from(i).expect("fewer than 2^32 entries")
}

/// How a resource is shared by the activities that use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// The activities split the capacity (a link direction, a core).
    Shared,
    /// Each activity may use the whole capacity (a non-blocking backplane).
    Fatpipe,
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

/// A variable's use of a constraint, seen from the variable.
#[derive(Clone, Copy, Debug)]
pub(super) struct Element {
    pub cnst: ConstraintId,
    /// Position of the matching [`User`] in the constraint's list.
    pub cnst_slot: u32,
    /// `a_cv`: what one unit of the variable's rate uses of the constraint.
    pub coeff: f64,
}

impl Element {
    /// Fills the unused inline slots.
    const UNUSED: Element = Element {
        cnst: ConstraintId(0),
        cnst_slot: 0,
        coeff: 0.0,
    };
}

/// A variable's use of a constraint, seen from the constraint.
#[derive(Clone, Copy, Debug)]
pub(super) struct User {
    pub var: VarId,
    /// Position of the matching [`Element`] in the variable's list.
    pub var_slot: u32,
}

/// Elements kept inline in the variable: routes are short.
const INLINE_ELEMENTS: usize = 4;

/// A variable's elements, the first few inline.
#[derive(Clone, Debug)]
#[repr(C)]
pub(super) struct Elements {
    len: u32,
    inline: [Element; INLINE_ELEMENTS],
    spill: Vec<Element>,
}

impl Default for Elements {
    fn default() -> Self {
        Self {
            len: 0,
            inline: [Element::UNUSED; INLINE_ELEMENTS],
            spill: Vec::new(),
        }
    }
}

impl Elements {
    pub fn len(&self) -> usize {
        position(self.len)
    }

    pub fn as_slice(&self) -> &[Element] {
        if self.len() <= INLINE_ELEMENTS {
            &self.inline[..self.len()]
        } else {
            &self.spill
        }
    }

    fn as_mut_slice(&mut self) -> &mut [Element] {
        let len = self.len();
        if len <= INLINE_ELEMENTS {
            &mut self.inline[..len]
        } else {
            &mut self.spill
        }
    }

    fn push(&mut self, e: Element) {
        let len = self.len();
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

/// A resource: what it can carry, and how. Who uses it is kept apart
/// (`Model::users`), so that the filling, which reads the capacities of
/// the constraints it compares, reads a dense array of them.
#[derive(Clone, Copy, Debug)]
pub(super) struct Constraint {
    pub capacity: f64,
    pub sharing: Sharing,
}

/// An activity, or `count` identical ones.
#[derive(Clone, Debug, Default)]
pub(super) struct Variable {
    pub weight: f64,
    /// Per activity; infinite for none.
    pub bound: f64,
    pub count: u32,
    /// The bound implied by the fatpipe constraints it crosses.
    pub fatpipe_bound: f64,
    /// Position in `Model::alive`, `None` when the slot is free.
    pub alive_slot: Option<u32>,
    pub elements: Elements,
}

impl Variable {
    /// `n_v · w_v`: the weight of all the activities it stands for.
    pub fn n_weight(&self) -> f64 {
        f64::from(self.count) * self.weight
    }

    /// The level `min(b_v, fatpipe) / w_v` at which it reaches its bound.
    pub fn bound_level(&self) -> f64 {
        let bound = self.bound.min(self.fatpipe_bound);
        if bound.is_finite() {
            bound / self.weight
        } else {
            f64::INFINITY
        }
    }
}

fn check_capacity(capacity: f64) {
    assert!(
        capacity.is_finite() && capacity >= 0.0,
        "capacity must be finite and >= 0, got {capacity}"
    );
}

fn check_bound(bound: f64) {
    assert!(
        bound > 0.0,
        "bound must be > 0 (use INFINITY for none), got {bound}"
    );
}

pub(super) fn check_count(count: u32) {
    assert!(count > 0, "a variable stands for at least one activity");
}

/// The constraints and variables of a system.
#[derive(Default, Debug)]
pub(super) struct Model {
    pub constraints: Vec<Constraint>,
    /// Per constraint, the variables that use it.
    users: Vec<Vec<User>>,
    pub variables: Vec<Variable>,
    free_variables: Vec<VarId>,
    /// The variables in the system, in no particular order.
    pub alive: Vec<VarId>,
}

impl Model {
    pub fn constraint(&self, c: ConstraintId) -> &Constraint {
        &self.constraints[c.index()]
    }

    pub fn users(&self, c: ConstraintId) -> &[User] {
        &self.users[c.index()]
    }

    pub fn variable(&self, v: VarId) -> &Variable {
        &self.variables[v.index()]
    }

    pub fn is_fatpipe(&self, c: ConstraintId) -> bool {
        self.constraint(c).sharing == Sharing::Fatpipe
    }

    /// Adds a resource. Capacity must be finite and non-negative.
    pub fn add_constraint(&mut self, capacity: f64, sharing: Sharing) -> ConstraintId {
        check_capacity(capacity);
        self.constraints.push(Constraint { capacity, sharing });
        self.users.push(Vec::new());
        ConstraintId::new(self.constraints.len() - 1)
    }

    /// Sets `c`'s capacity; on a fatpipe, its variables' bounds follow.
    pub fn set_capacity(&mut self, c: ConstraintId, capacity: f64) {
        check_capacity(capacity);
        self.constraints[c.index()].capacity = capacity;
        if self.is_fatpipe(c) {
            for k in 0..self.users(c).len() {
                let v = self.users(c)[k].var;
                self.variables[v.index()].fatpipe_bound = self.fatpipe_bound(v);
            }
        }
    }

    /// Adds a variable (see `System::add_variable`), reusing a free slot.
    pub fn add_variable(
        &mut self,
        weight: f64,
        bound: f64,
        count: u32,
        elements: &[(ConstraintId, f64)],
    ) -> VarId {
        assert!(
            weight > 0.0 && weight.is_finite(),
            "weight must be finite and > 0, got {weight}"
        );
        check_bound(bound);
        check_count(count);
        let id = self.free_variables.pop().unwrap_or_else(|| {
            self.variables.push(Variable::default());
            VarId::new(self.variables.len() - 1)
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
                Some(e) => e.1 = merge_coefficients(self.constraint(c).sharing, e.1, coeff),
                None => merged.push((c, coeff)),
            }
        }
        let var = &mut self.variables[id.index()];
        var.weight = weight;
        var.bound = bound;
        var.count = count;
        var.alive_slot = Some(narrow(self.alive.len()));
        var.elements.clear();
        self.alive.push(id);
        for (c, coeff) in merged {
            let users = &mut self.users[c.index()];
            let var = &mut self.variables[id.index()];
            let var_slot = var.elements.len;
            var.elements.push(Element {
                cnst: c,
                cnst_slot: narrow(users.len()),
                coeff,
            });
            users.push(User { var: id, var_slot });
        }
        self.variables[id.index()].fatpipe_bound = self.fatpipe_bound(id);
        id
    }

    /// Takes `v` off its constraints and frees its slot.
    pub fn remove_variable(&mut self, v: VarId) {
        let slot = self
            .variable(v)
            .alive_slot
            .unwrap_or_else(|| panic!("variable {v:?} is not in the system"));
        let mut elements = std::mem::take(&mut self.variables[v.index()].elements);
        for e in elements.as_slice() {
            let users = &mut self.users[e.cnst.index()];
            let pos = position(e.cnst_slot);
            users.swap_remove(pos);
            if let Some(moved) = users.get(pos).copied() {
                self.variables[moved.var.index()].elements.as_mut_slice()
                    [position(moved.var_slot)]
                .cnst_slot = e.cnst_slot;
            }
        }
        elements.clear();
        self.variables[v.index()].elements = elements;
        self.alive.swap_remove(position(slot));
        if let Some(&moved) = self.alive.get(position(slot)) {
            self.variables[moved.index()].alive_slot = Some(slot);
        }
        self.variables[v.index()].alive_slot = None;
        self.free_variables.push(v);
    }

    /// Whether `v` is in the system (not removed).
    pub fn is_alive(&self, v: VarId) -> bool {
        self.variable(v).alive_slot.is_some()
    }

    /// Panics if `v` is not in the system.
    pub fn check_alive(&self, v: VarId) {
        assert!(self.is_alive(v), "variable {v:?} is not in the system");
    }

    pub fn set_count(&mut self, v: VarId, count: u32) {
        self.variables[v.index()].count = count;
    }

    pub fn set_bound(&mut self, v: VarId, bound: f64) {
        check_bound(bound);
        self.variables[v.index()].bound = bound;
    }

    /// The bound the fatpipes `v` crosses put on it: `min C_c / a_cv`.
    fn fatpipe_bound(&self, v: VarId) -> f64 {
        let mut bound = f64::INFINITY;
        for e in self.variable(v).elements.as_slice() {
            let cnst = self.constraint(e.cnst);
            if cnst.sharing == Sharing::Fatpipe {
                bound = bound.min(cnst.capacity / e.coeff);
            }
        }
        bound
    }
}
