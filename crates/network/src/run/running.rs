//! The connections under way, by connection number: one slot per
//! connection (they are numbered densely, the given ones first), so a
//! lookup is an index rather than a hash probe, and a walk goes in
//! connection order, the order in which the engine must see the changes it
//! leads to (its arithmetic follows that order).

use std::ops::Index;

#[derive(Debug)]
pub(super) struct Slots<R> {
    slots: Vec<Option<R>>,
    count: usize,
}

impl<R> Slots<R> {
    pub fn with_capacity(n: usize) -> Self {
        Self {
            slots: Vec::with_capacity(n),
            count: 0,
        }
    }

    /// Puts `r` in slot `k`; returns what was there.
    pub fn insert(&mut self, k: usize, r: R) -> Option<R> {
        if self.slots.len() <= k {
            self.slots.resize_with(k + 1, || None);
        }
        let old = self.slots[k].replace(r);
        if old.is_none() {
            self.count += 1;
        }
        old
    }

    pub fn remove(&mut self, k: usize) -> Option<R> {
        let old = self.slots.get_mut(k)?.take();
        if old.is_some() {
            self.count -= 1;
        }
        old
    }

    pub fn get(&self, k: usize) -> Option<&R> {
        self.slots.get(k)?.as_ref()
    }

    pub fn get_mut(&mut self, k: usize) -> Option<&mut R> {
        self.slots.get_mut(k)?.as_mut()
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The occupied slots, in connection order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, &R)> {
        (self.slots.iter().enumerate()).filter_map(|(k, r)| r.as_ref().map(|r| (k, r)))
    }

    pub fn keys(&self) -> impl Iterator<Item = usize> + '_ {
        self.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &R> {
        self.iter().map(|(_, r)| r)
    }
}

impl<R> Index<usize> for Slots<R> {
    type Output = R;

    /// Connection `k`, which must be under way (the run looks up only the
    /// connections it started and has not ended).
    fn index(&self, k: usize) -> &R {
        self.get(k).expect("a connection under way")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_keep_connection_order_and_count() {
        // Inserted out of order, with a gap and a replacement: walked in
        // number order, counted once each, emptied by removal.
        let mut s = Slots::with_capacity(2);
        assert!(s.insert(5, "e").is_none());
        assert!(s.insert(1, "a").is_none());
        assert_eq!(s.insert(5, "E"), Some("e"));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(1, &"a"), (5, &"E")]);
        assert_eq!(s[1], "a");
        assert_eq!(s.remove(1), Some("a"));
        assert_eq!(s.remove(1), None);
        assert_eq!(s.remove(9), None);
        assert!(!s.is_empty());
        assert_eq!(s.remove(5), Some("E"));
        assert!(s.is_empty());
        assert_eq!(s.get(5), None);
    }
}
