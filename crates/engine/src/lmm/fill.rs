//! Progressive filling with sorted levels: a solve from scratch, and a
//! solve again with bounds in play (or after filling in the last order
//! gave up, `super::in_order`).
//!
//! Every unfrozen variable runs at `r_v = w_v · λ` as the common level `λ`
//! rises. A shared constraint `c` saturates at `λ_c = R_c / S_c` (what
//! remains of its capacity over `S_c = Σ_unfrozen n_v · a_cv · w_v`), a
//! variable at its bound level `b_v / w_v`. The filling takes the smallest
//! of them (a *pop*), freezes the variables it names, and goes on.
//!
//! A freeze at level `λ ≤ λ_c` only raises the level of another constraint
//! `c` the variable crosses: `(R − xλ) / (S − x) ≥ R / S`. So the
//! constraints wait in a list sorted by level, and one whose level rose
//! since it was filed is filed again (further back) only when it reaches
//! the front (`crate::levels`). The bounds wait in a list sorted once.
//! Each variable freezes once: a solve costs `O(E)` for `E` elements, a
//! sort of the `C` shared constraints, and `O(log C)` for each one filed
//! again.

use super::model::{ConstraintId, Model, VarId};
use super::solver::{Load, Pop, PopId, Popped, Rank, Solver, Switch, Touched, Undo};
use super::Bottleneck;

impl Solver {
    /// Solves every variable of `model` from level 0.
    pub(super) fn solve_from_scratch(&mut self, model: &Model) {
        self.stats.from_scratch += 1;
        self.solved_from = 0;
        self.pops.clear();
        self.log.clear();
        self.popped_at.fill(None);
        for (c, load) in self.load.iter_mut().enumerate() {
            if load.used != 0.0 {
                self.touched.mark(ConstraintId::new(c));
            }
            *load = Load::default();
        }
        let s = &mut self.scratch;
        s.bounded.clear();
        s.candidates.clear();
        s.candidate.resize(self.load.len(), false);
        for &v in &model.alive {
            let i = v.index();
            if !self.solved[i] && self.bottleneck[i] == Bottleneck::None {
                // New: reported even if it stays unlimited.
                self.switched.push(v);
            }
            self.solved[i] = true;
            self.frozen_at[i] = None;
            let var = model.variable(v);
            let n_weight = var.n_weight();
            for e in var.elements.as_slice() {
                self.touched.mark(e.cnst);
                let load = &mut self.load[e.cnst.index()];
                load.weight_sum += n_weight * e.coeff;
                load.unfrozen += 1;
            }
            let level = self.bound_level[i];
            if level.is_finite() {
                s.bounded.push((level, v));
            }
        }
        s.candidates
            .extend((0..self.load.len()).map(ConstraintId::new));
        s.look_everywhere = true;
        self.fill(model);
        self.scratch.look_everywhere = false;
        // A variable never frozen crosses no shared constraint and has no
        // bound: its rate is infinite.
        for &v in &model.alive {
            if self.frozen_by(v).is_none() && self.bottleneck[v.index()] != Bottleneck::None {
                self.drop_records(v, model);
                self.bottleneck[v.index()] = Bottleneck::None;
            }
        }
    }

    /// Fills from the state the solve set up: the `candidates` may still
    /// saturate, the `bounded` may reach their bound.
    pub(super) fn fill(&mut self, model: &Model) {
        let s = &mut self.scratch;
        // Highest level first, so the next bound to bind is popped from the end.
        s.bounded.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        s.levels.clear();
        for &c in &s.candidates {
            let load = &self.load[c.index()];
            if !model.is_fatpipe(c) && load.unfrozen > 0 {
                s.levels.push(load.level(model.constraint(c).capacity), c);
            }
        }
        loop {
            while self
                .scratch
                .bounded
                .last()
                .is_some_and(|&(_, v)| self.frozen_by(v).is_some())
            {
                self.scratch.bounded.pop();
            }
            let bound_level = self.scratch.bounded.last().map_or(f64::INFINITY, |b| b.0);
            // The constraint that saturates first, filed again while its
            // level rose since it was filed.
            let best = loop {
                let Some((level, c)) = self.scratch.levels.first() else {
                    break None;
                };
                if self.load[c.index()].unfrozen == 0 {
                    self.scratch.levels.take_first();
                    continue;
                }
                let now = self.level_of(c, model);
                if now > level {
                    self.scratch.levels.file_first_again(now);
                } else {
                    break Some((now, c));
                }
            };
            match best {
                Some((level, c)) if level < bound_level => {
                    self.scratch.levels.take_first();
                    self.pop_constraint(c, level, model);
                }
                _ => {
                    let Some((level, v)) = self.scratch.bounded.pop() else {
                        break;
                    };
                    self.pop_bound(v, level, model);
                }
            }
        }
    }

    fn start_pop(&mut self, level: f64, popped: Popped) -> PopId {
        let k = PopId::new(self.pops.len());
        self.pops.push(Pop::new(level, popped, self.log.len()));
        k
    }

    /// Constraint `x` saturates at `level`: every unfrozen variable on it
    /// freezes there (switching to it if its bottleneck was elsewhere), and
    /// its records take their use off the other constraints.
    pub(super) fn pop_constraint(&mut self, x: ConstraintId, level: f64, model: &Model) {
        let k = self.start_pop(level, Popped::Constraint(x));
        let xi = x.index();
        // Its variables, and those that switch to it, are frozen.
        self.popped_at[xi] = Some(k);
        let load = &mut self.load[xi];
        self.log.push(Undo {
            cnst: x,
            unfrozen: load.unfrozen,
            used: load.used,
            weight: load.weight_sum,
        });
        self.touched.mark(x);
        self.level[xi] = level;
        // All the weight still on `x` freezes at `level`: x is full.
        load.used += load.weight_sum * level;
        load.weight_sum = 0.0;
        load.unfrozen = 0;
        // A variable on `x` frozen elsewhere in the last filling is still
        // unfrozen only if that pop is not done again yet, and it came
        // before x's: look for such variables only when one is open
        // (`super::restart`).
        let s = &mut self.scratch;
        let rank = s.rank.get(xi).copied().flatten();
        if let Some(rank) = rank {
            s.redo(rank);
        }
        let look = s.look_everywhere
            || s.look_for_new[xi]
            || s.first_open < rank.map_or(usize::MAX, Rank::index).min(s.redone.len());
        if look {
            for user in model.users(x) {
                let v = user.var;
                let before = self.bottleneck[v.index()];
                if self.frozen_by(v).is_none() && before != Bottleneck::Constraint(x) {
                    if self.scratch.in_order {
                        self.scratch.switches.push(Switch {
                            pop: k,
                            var: v,
                            before,
                        });
                    }
                    self.switch_to(v, x, model);
                }
            }
        }
        let Self {
            records,
            load,
            log,
            touched,
            ..
        } = self;
        let records = &records[xi].list;
        log.reserve(records.len());
        for r in records {
            // A record left by a variable that moved away, or one that only
            // marks a variable with no other constraint.
            if r.var.is_none() || r.cnst == x {
                continue;
            }
            take_off(
                &mut load[r.cnst.index()],
                r.cnst,
                r.weight,
                level,
                log,
                touched,
            );
        }
    }

    /// Variable `v` reaches its bound level `level` before any constraint
    /// it crosses saturates.
    fn pop_bound(&mut self, v: VarId, level: f64, model: &Model) {
        let k = self.start_pop(level, Popped::Bound(v));
        self.frozen_at[v.index()] = Some(k);
        self.scratch.redo_bound_of(v);
        if self.bottleneck[v.index()] != Bottleneck::Bound {
            self.drop_records(v, model);
            self.bottleneck[v.index()] = Bottleneck::Bound;
            self.switched.push(v);
        }
        let var = model.variable(v);
        let n_weight = var.n_weight();
        for e in var.elements.as_slice() {
            let load = &mut self.load[e.cnst.index()];
            let (log, touched) = (&mut self.log, &mut self.touched);
            take_off(load, e.cnst, n_weight * e.coeff, level, log, touched);
        }
    }
}

/// A variable of `weight` (n · w · a) freezes at `level` on constraint `c`:
/// its use goes on, its weight and itself off what is still filling `c`, and
/// what it changed goes in the log.
#[inline]
fn take_off(
    load: &mut Load,
    c: ConstraintId,
    weight: f64,
    level: f64,
    log: &mut Vec<Undo>,
    touched: &mut Touched,
) {
    log.push(Undo {
        cnst: c,
        unfrozen: 1,
        used: load.used,
        weight,
    });
    touched.mark(c);
    load.used += weight * level;
    load.unfrozen -= 1;
    // The last weight off a constraint leaves exactly none.
    load.weight_sum = if load.unfrozen == 0 {
        0.0
    } else {
        load.weight_sum - weight
    };
}
