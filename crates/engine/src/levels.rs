//! The constraints waiting to saturate during a sorted filling, smallest
//! level first: a solve from scratch, or a solve again with bounds in play
//! (a solve again without bounds fills in the last order instead, unsorted:
//! `crate::lmm`, its `in_order` module).
//!
//! The filling takes the constraint with the smallest level, freezes its
//! variables, and so raises the levels of the constraints they also cross;
//! a raised one keeps its place until it comes first, and is then moved
//! back ("filed again"). Levels move little from one pop to the next, so a
//! sorted list where the first entry steps back a few places beats a binary
//! heap or a radix heap here (docs/performance.md has the measurement).
//! Keys are `(level bits, constraint)`: levels are non-negative, so their
//! bits order like the numbers, and the constraint breaks ties.

use crate::lmm::ConstraintId;

/// How far an entry filed again is moved step by step before searching.
const STEPS: usize = 16;

/// Keys `(level bits, constraint)`, taken smallest first.
#[derive(Debug, Default)]
pub(crate) struct LevelQueue {
    keys: Vec<(u64, ConstraintId)>,
    /// The first key not taken yet; whether `keys[head..]` is sorted.
    head: usize,
    sorted: bool,
}

impl LevelQueue {
    pub fn clear(&mut self) {
        self.keys.clear();
        self.head = 0;
        self.sorted = false;
    }

    /// Adds a key (before the first `first`).
    pub fn push(&mut self, level: f64, constraint: ConstraintId) {
        debug_assert!(!self.sorted, "keys are added before any is taken");
        self.keys.push((level.to_bits(), constraint));
    }

    /// The smallest key, as (level, constraint).
    pub fn first(&mut self) -> Option<(f64, ConstraintId)> {
        if !self.sorted {
            self.keys.sort_unstable();
            self.sorted = true;
        }
        let &(bits, c) = self.keys.get(self.head)?;
        Some((f64::from_bits(bits), c))
    }

    /// Drops the smallest key (after `first`).
    pub fn take_first(&mut self) {
        self.head += 1;
    }

    /// The smallest key's constraint now has the larger `level` (after
    /// `first`): it moves back past the keys below it.
    pub fn file_first_again(&mut self, level: f64) {
        let key = (level.to_bits(), self.keys[self.head].1);
        let keys = &mut self.keys;
        let (end, mut at) = (keys.len(), self.head);
        let steps = end.min(at + 1 + STEPS);
        while at + 1 < steps && keys[at + 1] < key {
            keys[at] = keys[at + 1];
            at += 1;
        }
        if at + 1 == steps && steps < end && keys[steps] < key {
            let behind = keys[steps..end].partition_point(|e| *e < key);
            keys.copy_within(steps..steps + behind, at);
            at += behind;
        }
        keys[at] = key;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes everything left, filing the first key again `raise` times.
    fn drain(
        q: &mut LevelQueue,
        mut raise: impl FnMut(f64, usize) -> Option<f64>,
    ) -> Vec<(f64, usize)> {
        let mut out = Vec::new();
        while let Some((level, c)) = q.first() {
            match raise(level, c.index()) {
                Some(higher) => q.file_first_again(higher),
                None => {
                    q.take_first();
                    out.push((level, c.index()));
                }
            }
        }
        out
    }

    #[test]
    fn keys_come_out_in_order() {
        // A hundred shuffled levels: out sorted, each once.
        let mut q = LevelQueue::default();
        for c in 0..100 {
            q.push(f64::from((c * 37) % 100), ConstraintId::new(c as usize));
        }
        let out = drain(&mut q, |_, _| None);
        assert_eq!(out.len(), 100);
        assert!(out.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn a_key_filed_again_near_far_or_last_comes_out_in_place() {
        // Levels 0, 10, ..., 390; the first time each comes out, every
        // third constraint rises by 5 (a step), 155 (past the steps, found
        // by the search) or 1000 (past every key). What comes out is
        // sorted, and each constraint once.
        let mut q = LevelQueue::default();
        for c in 0..40 {
            q.push(f64::from(c) * 10.0, ConstraintId::new(c as usize));
        }
        let mut raised = [false; 40];
        let out = drain(&mut q, |level, c| {
            if raised[c] {
                return None;
            }
            raised[c] = true;
            Some(level + [5.0, 155.0, 1000.0][c % 3])
        });
        assert_eq!(out.len(), 40);
        assert!(
            out.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)),
            "{out:?}"
        );
        let mut seen: Vec<usize> = out.iter().map(|e| e.1).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..40).collect::<Vec<_>>());
    }
}
