//! The order the time-weighted percentiles walk a step function's pieces in
//! (`ChangePoints::percentiles_and_busy`): by value, then by duration.
//!
//! A piece is `(value, duration)`. With no NaN and no -0.0 among them
//! ("plain"), `total_cmp` orders as `partial_cmp` does and two pieces that
//! compare equal are the same bits, so any sort by (value, duration) gives
//! one and the same sequence: the stable sort's, which the percentiles were
//! defined on (`hvnet.series.Series.percentile`).
//!
//! A core's busy share takes a handful of values over thousands of pieces
//! (a 2,048-core Compression run: 800,000 pieces, 16 values). For such
//! pieces the sequence is made by grouping them by value, ordering the few
//! values, and sorting each group's durations alone: the same sequence as
//! the whole sort, in fewer and cheaper comparisons. Pieces of more than
//! [`FEW_VALUES`] values are sorted whole.

use crate::units::Seconds;

/// The most distinct values grouped; pieces of more are sorted whole.
const FEW_VALUES: usize = 32;

/// Sorts plain `pieces` (no NaN, no -0.0 in either field) by value, then by
/// duration: the same sequence as `sort_unstable_by` on that key.
pub(crate) fn sort_plain(pieces: &mut [(f64, Seconds)]) {
    let Some(groups) = group_by_value(pieces) else {
        pieces.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        return;
    };
    let Groups { values, of } = groups;
    // Where each group starts once the groups are in value order.
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_unstable_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut count = vec![0_usize; values.len()];
    for &g in &of {
        count[g] += 1;
    }
    let mut start = vec![0_usize; values.len()];
    let mut next = 0;
    for &g in &order {
        start[g] = next;
        next += count[g];
    }
    // Each group's durations together, then sorted, then written back with its value.
    let mut durations = vec![0.0; pieces.len()];
    let mut filled = start.clone();
    for (&(_, d), &g) in pieces.iter().zip(&of) {
        durations[filled[g]] = d;
        filled[g] += 1;
    }
    for &g in &order {
        let group = &mut durations[start[g]..start[g] + count[g]];
        group.sort_unstable_by(f64::total_cmp);
        for (k, &d) in group.iter().enumerate() {
            pieces[start[g] + k] = (values[g], d);
        }
    }
}

/// The distinct values of some pieces, in the order first met, and each
/// piece's among them.
struct Groups {
    values: Vec<f64>,
    of: Vec<usize>,
}

/// `pieces` grouped by value (plain values: equal is the same bits); None
/// when they take more than [`FEW_VALUES`].
fn group_by_value(pieces: &[(f64, Seconds)]) -> Option<Groups> {
    let mut values: Vec<f64> = Vec::new();
    let mut of = Vec::with_capacity(pieces.len());
    let mut last = usize::MAX; // the group of the piece before: a run of equal values looks once
    for &(v, _) in pieces {
        let g = if last < values.len() && values[last].to_bits() == v.to_bits() {
            last
        } else if let Some(g) = values.iter().position(|x| x.to_bits() == v.to_bits()) {
            g
        } else if values.len() < FEW_VALUES {
            values.push(v);
            values.len() - 1
        } else {
            return None;
        };
        of.push(g);
        last = g;
    }
    Some(Groups { values, of })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole sort, for reference.
    fn sorted_whole(pieces: &[(f64, f64)]) -> Vec<(u64, u64)> {
        let mut whole = pieces.to_vec();
        whole.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
        bits(&whole)
    }

    fn bits(pieces: &[(f64, f64)]) -> Vec<(u64, u64)> {
        pieces
            .iter()
            .map(|&(v, d)| (v.to_bits(), d.to_bits()))
            .collect()
    }

    #[test]
    fn few_values_are_grouped_into_the_whole_sorts_sequence() {
        let mut pieces = vec![
            (0.5, 3.0),
            (0.25, 2.0),
            (0.5, 1.0),
            (1.0, 0.5),
            (0.25, 2.0),
            (0.0, 7.0),
        ];
        let expected = sorted_whole(&pieces);
        assert!(group_by_value(&pieces).is_some_and(|g| g.values.len() == 4));
        sort_plain(&mut pieces);
        assert_eq!(bits(&pieces), expected);
    }

    #[test]
    fn more_values_than_few_are_sorted_whole() {
        let count = u32::try_from(FEW_VALUES).expect("a small number") + 5;
        let mut pieces: Vec<(f64, f64)> = (0..count)
            .rev()
            .map(|k| (f64::from(k) * 0.1, f64::from(k % 3)))
            .collect();
        let expected = sorted_whole(&pieces);
        assert!(group_by_value(&pieces).is_none());
        sort_plain(&mut pieces);
        assert_eq!(bits(&pieces), expected);
    }

    #[test]
    fn no_pieces_stay_none() {
        let mut pieces: Vec<(f64, f64)> = Vec::new();
        sort_plain(&mut pieces);
        assert!(pieces.is_empty());
    }
}
