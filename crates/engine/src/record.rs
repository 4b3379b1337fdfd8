//! Resource use over time, exactly: each resource's use as *change points*.
//!
//! Between two events every rate is constant, so the use `u_r(t)` of each
//! resource is a step function. The recorder keeps it as it is: for each
//! resource the points `(t_i, v_i)`, `t_0 < t_1 < … < t_{m-1}`, at which its
//! use changed, with
//!
//! ```text
//!   u(t) = 0      for origin ≤ t < t_0        (no point yet: no use)
//!   u(t) = v_i    for t_i ≤ t < t_{i+1}       (the last, v_{m-1}, until `end`)
//! ```
//!
//! A point is appended only when an event changed the use (`v_i ≠ v_{i-1}`,
//! and `v_0 ≠ 0`), and only for the resources whose constraint the solver
//! touched: memory and time grow with the number of rate changes, not with
//! the length of the run or a sampling step. Everything else follows from
//! the points, exactly (up to the rounding of one sum):
//!
//! ```text
//!   integral over [a, b):    ∫_a^b u = Σ_i v_i · |[t_i, t_{i+1}) ∩ [a, b)|
//!   mean over bin k of step s (from `origin`, the last bin cut at `end`):
//!                            m_k = (1/s) · ∫ u over [origin + k·s, origin + (k+1)·s) ∩ [origin, end)
//!   peak:                    max_t u(t) = max(0, max_i v_i)
//! ```
//!
//! There are `⌈(end − origin)/s⌉` bins; the last may be partly covered, and
//! its mean is still over the whole `s` (Task Manager shows the same thing).
//! The bins are what an earlier recorder accumulated at every event for every
//! resource; they are computed here, on demand, at the output's edge.

use crate::sim::ResourceId;
use crate::units::Seconds;

/// A step function of time: `values[i]` from `times[i]` until `times[i+1]`
/// (the last until the end of the run), 0 before `times[0]`. See the module
/// header.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChangePoints {
    times: Vec<Seconds>,
    values: Vec<f64>,
}

impl ChangePoints {
    pub fn new() -> Self {
        Self::default()
    }

    /// The function that is `values[i]` from `times[i]` on; the times must
    /// not decrease. Repeated values are kept as given.
    pub fn from_points(times: Vec<Seconds>, values: Vec<f64>) -> Self {
        assert_eq!(times.len(), values.len(), "one value per time");
        assert!(
            times.windows(2).all(|w| w[0] <= w[1]),
            "change points must be in time order"
        );
        Self { times, values }
    }

    pub fn times(&self) -> &[Seconds] {
        &self.times
    }

    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Number of change points.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    pub fn into_parts(self) -> (Vec<Seconds>, Vec<f64>) {
        (self.times, self.values)
    }

    /// The value just before any point at or after `t` is appended: the last
    /// value, or 0.
    pub fn last_value(&self) -> f64 {
        self.values.last().copied().unwrap_or(0.0)
    }

    /// The function is `value` from `t` on (`t` not before the last point).
    /// Nothing is stored when the value does not change; a point at the
    /// time of the last one replaces it.
    pub fn push(&mut self, t: Seconds, value: f64) {
        if let Some(&last) = self.times.last() {
            assert!(t >= last, "change point at {t} before the last, {last}");
            if t == last {
                self.times.pop();
                self.values.pop();
            }
        }
        if value != self.last_value() {
            self.times.push(t);
            self.values.push(value);
        }
    }

    /// The value at time `t`.
    pub fn value_at(&self, t: Seconds) -> f64 {
        match self.times.partition_point(|&x| x <= t) {
            0 => 0.0,
            i => self.values[i - 1],
        }
    }

    /// `[start, end)` of piece `i` (the last piece ends at `end`).
    fn piece(&self, i: usize, end: Seconds) -> (Seconds, Seconds) {
        let next = self.times.get(i + 1).copied().unwrap_or(end);
        (self.times[i], next.min(end))
    }

    /// `∫ u` over `[a, b)` (`b` no later than the end of the run).
    pub fn integral(&self, a: Seconds, b: Seconds) -> f64 {
        let mut sum = 0.0;
        for i in 0..self.times.len() {
            let (from, to) = self.piece(i, b);
            let overlap = to - from.max(a);
            if overlap > 0.0 {
                sum += self.values[i] * overlap;
            }
        }
        sum
    }

    /// The mean over each bin `[origin + k·step, origin + (k+1)·step)` up to
    /// `end`: `⌈(end − origin)/step⌉` bins, the last over the whole `step`
    /// even when `end` cuts it.
    pub fn means(&self, origin: Seconds, step: Seconds, end: Seconds) -> Vec<f64> {
        assert!(
            step > 0.0 && step.is_finite(),
            "bin step must be > 0, got {step}"
        );
        let bins = if end > origin {
            (((end - origin) / step).ceil() as usize).max(1)
        } else {
            0
        };
        let mut out = vec![0.0; bins];
        for i in 0..self.times.len() {
            let (from, to) = self.piece(i, end);
            let (from, u) = (from.max(origin), self.values[i]);
            if to <= from || u == 0.0 {
                continue;
            }
            let first = ((from - origin) / step).floor().max(0.0) as usize;
            let last = (((to - origin) / step).ceil() as usize)
                .max(first + 1)
                .min(bins);
            for (k, bin) in out.iter_mut().enumerate().take(last).skip(first) {
                let (lo, hi) = (origin + k as f64 * step, origin + (k + 1) as f64 * step);
                if from <= lo && to >= hi {
                    // The whole bin: far from the origin, `hi - lo` is not
                    // `step` to the last digits.
                    *bin += u;
                    continue;
                }
                let overlap = to.min(hi) - from.max(lo);
                if overlap > 0.0 {
                    *bin += u * overlap / step;
                }
            }
        }
        out
    }

    /// The integral over each bin `[k·width, (k+1)·width)` of `bins` from
    /// 0, up to `end` (nothing after it): each piece adds `value · overlap`
    /// to every bin it overlaps. Where a face draws a grid (`hvnet.series`),
    /// and the same arithmetic as its Python form had, to the last digit.
    pub fn bin_integrals(&self, width: Seconds, end: Seconds, bins: usize) -> Vec<f64> {
        let mut sums = vec![0.0; bins];
        if !(width > 0.0 && width.is_finite()) {
            return sums;
        }
        for i in 0..self.times.len() {
            let (from, to) = self.piece(i, end);
            let (from, value) = (from.max(0.0), self.values[i]);
            if to <= from || value == 0.0 {
                continue;
            }
            let first = (from / width).floor().max(0.0) as usize;
            let last = ((to / width).ceil() as usize).max(first + 1).min(bins);
            for (k, sum) in sums.iter_mut().enumerate().take(last).skip(first) {
                let low = k as f64 * width;
                let overlap = to.min(low + width) - from.max(low);
                if overlap > 0.0 {
                    *sum += value * overlap;
                }
            }
        }
        sums
    }

    /// The mean over each bin of [`ChangePoints::bin_integrals`], times
    /// `scale`: each bin over its width, the last over its part before
    /// `axis_end` (a report's time axis, `hvnet.report.resample.Grid`).
    pub fn bin_means(
        &self,
        width: Seconds,
        end: Seconds,
        axis_end: Seconds,
        bins: usize,
        scale: f64,
    ) -> Vec<f64> {
        let mut means = self.bin_integrals(width, end, bins);
        let last = means.len().saturating_sub(1);
        for (k, mean) in means.iter_mut().enumerate() {
            let (low, high) = (k as f64 * width, (k + 1) as f64 * width);
            let high = if k == last { high.min(axis_end) } else { high };
            *mean = *mean / (high - low) * scale;
        }
        means
    }

    /// The points as a face keeps them (`hvnet.series.Series.of`): each
    /// value times `scale`, a value within `rounding` of the series' largest
    /// (in magnitude) taken as 0 (what subtracting one use from another
    /// leaves), and without the points that say nothing: a leading 0, a value
    /// equal to the one before, an earlier point at the same time.
    pub fn scaled(&self, scale: f64, rounding: f64) -> ChangePoints {
        let floor = rounding * self.values.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
        let mut out = ChangePoints::new();
        for (&t, &v) in self.times.iter().zip(&self.values) {
            let v = if v.abs() <= floor { 0.0 } else { v * scale };
            if out.times.last() == Some(&t) {
                out.times.pop();
                out.values.pop();
            }
            if v != out.last_value() {
                out.times.push(t);
                out.values.push(v);
            }
        }
        out
    }

    /// Over `[0, end)`: the time-weighted `percentiles` (each 0 to 100: the
    /// smallest value the function is at or below for that share of the
    /// time), and the time it is above `threshold` (`hvnet.utilisation`).
    pub fn percentiles_and_busy(
        &self,
        end: Seconds,
        percentiles: &[f64],
        threshold: f64,
    ) -> (Vec<f64>, Seconds) {
        let mut pieces: Vec<(f64, Seconds)> = Vec::with_capacity(self.times.len() + 1);
        if let Some(&first) = self.times.first() {
            if first > 0.0 {
                pieces.push((0.0, first.min(end)));
            }
        }
        for i in 0..self.times.len() {
            let (from, to) = self.piece(i, end);
            let overlap = to - from.max(0.0);
            if overlap > 0.0 {
                pieces.push((self.values[i], overlap));
            }
        }
        let busy = pieces
            .iter()
            .filter(|&&(value, _)| value > threshold)
            .map(|&(_, d)| d)
            .fold(0.0, |sum, d| sum + d);
        // By value, then duration. With no NaN or -0.0 any sort gives the
        // stable one's order (`pieces::sort_plain`, which groups few values).
        let plain = |x: f64| !(x.is_nan() || x.to_bits() == (-0.0_f64).to_bits());
        if pieces.iter().all(|&(value, d)| plain(value) && plain(d)) {
            crate::pieces::sort_plain(&mut pieces);
        } else {
            pieces.sort_by(|a, b| {
                (a.0.partial_cmp(&b.0))
                    .unwrap_or(std::cmp::Ordering::Equal)
                    .then(a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal))
            });
        }
        let highest = pieces.last().map_or(0.0, |p| p.0);
        let mut out = vec![highest; percentiles.len()];
        let (mut covered, mut wanted) = (0.0, 0);
        for &(value, duration) in &pieces {
            covered += duration;
            while wanted < percentiles.len() && covered >= percentiles[wanted] / 100.0 * end {
                out[wanted] = value;
                wanted += 1;
            }
        }
        (out, busy)
    }

    /// The highest value the function takes (0 before its first point).
    pub fn peak(&self) -> f64 {
        self.values
            .iter()
            .fold(0.0, |m, &v| if v > m { v } else { m })
    }

    /// The function `t ↦ f(self(t), other(t))`, with a point wherever either
    /// has one and the value changes; `f(0, 0)` must be 0.
    pub fn combine(&self, other: &Self, f: impl Fn(f64, f64) -> f64) -> Self {
        let mut out = Self {
            times: Vec::with_capacity(self.len().max(other.len())),
            values: Vec::with_capacity(self.len().max(other.len())),
        };
        let (mut i, mut j) = (0, 0);
        let (mut a, mut b) = (0.0, 0.0);
        while i < self.len() || j < other.len() {
            let ta = self.times.get(i).copied().unwrap_or(f64::INFINITY);
            let tb = other.times.get(j).copied().unwrap_or(f64::INFINITY);
            let t = ta.min(tb);
            if ta == t {
                a = self.values[i];
                i += 1;
            }
            if tb == t {
                b = other.values[j];
                j += 1;
            }
            out.push(t, f(a, b));
        }
        out
    }
}

/// Each resource's use over time, as change points from `origin` to `end`
/// (the time the simulation last advanced to).
#[derive(Clone, Debug)]
pub struct Recorder {
    origin: Seconds,
    end: Seconds,
    series: Vec<ChangePoints>,
}

impl Recorder {
    pub(crate) fn new(resources: usize, origin: Seconds) -> Self {
        Self {
            origin,
            end: origin,
            series: vec![ChangePoints::new(); resources],
        }
    }

    /// When recording started.
    pub fn origin(&self) -> Seconds {
        self.origin
    }

    /// The end of what is recorded: the last value of each resource holds
    /// until then.
    pub fn end(&self) -> Seconds {
        self.end
    }

    /// The use of resource `r` over time.
    pub fn series(&self, r: ResourceId) -> &ChangePoints {
        &self.series[r]
    }

    /// Every resource's use over time, by resource id.
    pub fn into_series(self) -> Vec<ChangePoints> {
        self.series
    }

    /// `∫ u_r` over `[a, b) ∩ [origin, end)`: what resource `r` carried.
    pub fn integral(&self, r: ResourceId, a: Seconds, b: Seconds) -> f64 {
        self.series[r].integral(a.max(self.origin), b.min(self.end))
    }

    /// The mean use of resource `r` over bins of `step` from the origin to
    /// the end (see [`ChangePoints::means`]).
    pub fn means(&self, r: ResourceId, step: Seconds) -> Vec<f64> {
        self.series[r].means(self.origin, step, self.end)
    }

    /// The highest use of resource `r`.
    pub fn peak(&self, r: ResourceId) -> f64 {
        self.series[r].peak()
    }

    /// Resource `r` is used at `usage` from `t` on.
    pub(crate) fn note(&mut self, r: ResourceId, t: Seconds, usage: f64) {
        self.series[r].push(t, usage);
    }

    /// What is noted holds until `t` at least.
    pub(crate) fn reach(&mut self, t: Seconds) {
        self.end = self.end.max(t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(points: &[(f64, f64)]) -> ChangePoints {
        let mut c = ChangePoints::new();
        for &(t, v) in points {
            c.push(t, v);
        }
        c
    }

    #[test]
    fn a_point_only_where_the_value_changes() {
        let c = steps(&[(0.0, 0.0), (1.0, 5.0), (2.0, 5.0), (3.0, 2.0), (3.0, 5.0)]);
        // 0 at 0 is no change; 5 again at 2 is none; 2 at 3 is replaced by 5, no change.
        assert_eq!(c.times(), [1.0]);
        assert_eq!(c.values(), [5.0]);
        assert_eq!(c.value_at(0.5), 0.0);
        assert_eq!(c.value_at(1.0), 5.0);
    }

    #[test]
    fn integral_means_and_peak_are_exact() {
        // 4 on [1, 2.5), 8 on [2.5, 3), 0 from 3; the run ends at 3.5.
        let c = steps(&[(1.0, 4.0), (2.5, 8.0), (3.0, 0.0)]);
        assert_eq!(c.integral(0.0, 3.5), 4.0 * 1.5 + 8.0 * 0.5);
        assert_eq!(c.integral(2.0, 2.75), 4.0 * 0.5 + 8.0 * 0.25);
        // Bins of 1 s: [0,1) 0, [1,2) 4, [2,3) 2+4, [3,4) 0 (cut at 3.5).
        assert_eq!(c.means(0.0, 1.0, 3.5), [0.0, 4.0, 6.0, 0.0]);
        assert_eq!(c.means(0.0, 1.0, 0.0), Vec::<f64>::new());
        assert_eq!(c.peak(), 8.0);
        assert_eq!(ChangePoints::new().peak(), 0.0);
    }

    #[test]
    fn combine_merges_the_points_of_both() {
        let a = steps(&[(0.0, 10.0), (2.0, 6.0), (4.0, 0.0)]);
        let b = steps(&[(1.0, 4.0), (2.0, 0.0)]);
        let d = a.combine(&b, |x, y| x - y);
        assert_eq!(d.times(), [0.0, 1.0, 4.0]);
        assert_eq!(d.values(), [10.0, 6.0, 0.0]);
        assert_eq!(
            d.integral(0.0, 5.0),
            a.integral(0.0, 5.0) - b.integral(0.0, 5.0)
        );
    }
}
