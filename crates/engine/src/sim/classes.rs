//! Classes: the activities that share one solver variable, because they have
//! the same resources, coefficients, weight and bound (see the parent
//! module); a member joins, leaves, and moves to another class.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{Activity, ActivityId, ActivitySpec, ActivityState, ResourceId, Simulation};
use crate::lmm::{merge_coefficients, ConstraintId, VarId};
use crate::progress::Target;
use crate::units::Amount;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct ClassKey {
    usage: Vec<(ResourceId, u64)>,
    weight: u64,
    bound: u64,
}

#[derive(Debug)]
pub(super) struct Class {
    key: ClassKey,
    pub(super) var: VarId,
    pub(super) members: u32,
    /// Targets of the members, smallest first. Entries of members that left
    /// are dropped when they reach the top, so the top is always a member.
    pub(super) targets: BinaryHeap<Reverse<(Target, u32)>>,
}

impl Class {
    /// Drops entries of members that left, until the top is a member; returns
    /// the smallest target (infinite when the class is empty).
    fn drop_departed(&mut self, activities: &[Activity], id: u32) -> f64 {
        while let Some(&Reverse((Target(t), a))) = self.targets.peek() {
            let act = &activities[a as usize];
            if act.state == ActivityState::Running && act.class == id && act.target == t {
                return t;
            }
            self.targets.pop();
        }
        f64::INFINITY
    }
}

impl Simulation {
    pub(super) fn class(&self, c: u32) -> &Class {
        self.classes[c as usize].as_ref().expect("live class")
    }

    fn class_mut(&mut self, c: u32) -> &mut Class {
        self.classes[c as usize].as_mut().expect("live class")
    }

    pub(super) fn spec_of(&self, a: ActivityId) -> ActivitySpec {
        let act = &self.activities[a.0 as usize];
        assert_eq!(
            act.state,
            ActivityState::Running,
            "activity {a:?} is not running"
        );
        let key = &self.class(act.class).key;
        ActivitySpec {
            amount: act.amount,
            weight: f64::from_bits(key.weight),
            bound: Some(f64::from_bits(key.bound)).filter(|b| b.is_finite()),
            usage: key
                .usage
                .iter()
                .map(|&(r, c)| (r, f64::from_bits(c)))
                .collect(),
        }
    }

    pub(super) fn move_to(&mut self, a: ActivityId, spec: &ActivitySpec) {
        let left = self.remaining(a);
        self.leave_class(a);
        self.join_class(a, left, spec);
    }

    /// The class an activity of this spec belongs to: its usage with each
    /// resource once (coefficients merged as the resource's sharing says),
    /// sorted, and the key that identifies the class.
    fn class_key(&self, spec: &ActivitySpec) -> (Vec<(ConstraintId, f64)>, ClassKey) {
        assert!(
            spec.weight > 0.0 && spec.weight.is_finite(),
            "weight must be finite and > 0"
        );
        let bound = spec.bound.unwrap_or(f64::INFINITY);
        assert!(bound > 0.0, "bound must be > 0");
        let mut usage: Vec<(ConstraintId, f64)> = Vec::with_capacity(spec.usage.len());
        for &(r, coeff) in &spec.usage {
            assert!(r < self.lmm.constraint_count(), "unknown resource {r}");
            assert!(
                coeff >= 0.0 && coeff.is_finite(),
                "coefficient must be finite and >= 0"
            );
            if coeff == 0.0 {
                continue;
            }
            let r = ConstraintId::new(r);
            match usage.iter_mut().find(|u| u.0 == r) {
                Some(u) => u.1 = merge_coefficients(self.lmm.sharing(r), u.1, coeff),
                None => usage.push((r, coeff)),
            }
        }
        usage.sort_by_key(|u| u.0);
        let key = ClassKey {
            usage: usage
                .iter()
                .map(|&(r, c)| (r.index(), c.to_bits()))
                .collect(),
            weight: spec.weight.to_bits(),
            bound: bound.to_bits(),
        };
        (usage, key)
    }

    pub(super) fn join_class(&mut self, a: ActivityId, work: Amount, spec: &ActivitySpec) {
        let (usage, key) = self.class_key(spec);
        let bound = f64::from_bits(key.bound);
        let c = match self.class_of_key.get(&key) {
            Some(&c) => {
                let members = self.class(c).members + 1;
                let var = self.class(c).var;
                self.lmm.set_count(var, members);
                self.class_mut(c).members = members;
                c
            }
            None => {
                let var = self.lmm.add_variable(spec.weight, bound, 1, &usage);
                let class = Class {
                    key: key.clone(),
                    var,
                    members: 1,
                    targets: BinaryHeap::new(),
                };
                let c = match self.free_classes.pop() {
                    Some(c) => {
                        self.classes[c as usize] = Some(class);
                        c
                    }
                    None => {
                        self.classes.push(Some(class));
                        (self.classes.len() - 1) as u32
                    }
                };
                self.progress.new_class(c, self.now, spec.weight);
                self.class_of_key.insert(key, c);
                if self.class_of_var.len() <= var.index() {
                    self.class_of_var.resize(var.index() + 1, u32::MAX);
                }
                self.class_of_var[var.index()] = c;
                c
            }
        };
        let target = self.progress.add_member(c, self.now, work);
        let class = self.classes[c as usize].as_mut().expect("live class");
        class.targets.push(Reverse((Target(target), a.0)));
        let act = &mut self.activities[a.0 as usize];
        act.class = c;
        act.target = target;
        self.rates_stale = true;
        if work <= 0.0 {
            // Nothing to do: it completes at once, in this batch.
            self.collect_class_completions(c);
        }
    }

    /// Takes a running activity out of its class (its heap entry goes stale).
    pub(super) fn leave_class(&mut self, a: ActivityId) {
        let c = self.activities[a.0 as usize].class;
        self.activities[a.0 as usize].class = u32::MAX;
        let class = self.class_mut(c);
        class.members -= 1;
        let (members, var) = (class.members, class.var);
        if members == 0 {
            let class = self.classes[c as usize].take().expect("live class");
            self.progress.free_class(c);
            self.class_of_key.remove(&class.key);
            self.lmm.remove_variable(var);
            self.free_classes.push(c);
        } else {
            self.lmm.set_count(var, members);
            let class = self.classes[c as usize].as_mut().expect("live class");
            let next_target = class.drop_departed(&self.activities, c);
            self.progress.set_next_target(c, next_target);
        }
        self.rates_stale = true;
    }
}
