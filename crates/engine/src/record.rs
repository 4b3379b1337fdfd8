//! Resource use over time, for charts: the mean use of each resource over
//! fixed bins of `step` seconds (Task Manager shows the same thing).

use crate::sim::ResourceId;
use crate::units::{Rate, Seconds};

/// Bins of mean resource use. `bins[r][k]` is the mean use of resource `r`
/// over `[origin + k·step, origin + (k+1)·step)`.
#[derive(Clone, Debug)]
pub struct Recorder {
    step: Seconds,
    origin: Seconds,
    bins: Vec<Vec<f64>>,
}

impl Recorder {
    pub fn new(step: Seconds, resources: usize, origin: Seconds) -> Self {
        assert!(
            step > 0.0 && step.is_finite(),
            "recording step must be > 0, got {step}"
        );
        Self {
            step,
            origin,
            bins: vec![Vec::new(); resources],
        }
    }

    pub fn step(&self) -> Seconds {
        self.step
    }

    pub fn origin(&self) -> Seconds {
        self.origin
    }

    /// Mean use per bin of one resource; the last bin may be partly filled.
    pub fn series(&self, r: ResourceId) -> &[f64] {
        &self.bins[r]
    }

    /// Adds the use between `from` and `to`, constant over that interval.
    pub(crate) fn accumulate(
        &mut self,
        from: Seconds,
        to: Seconds,
        usage: impl Fn(ResourceId) -> Rate,
    ) {
        let first = ((from - self.origin) / self.step).floor().max(0.0) as usize;
        let last = (((to - self.origin) / self.step).ceil() as usize).max(first + 1);
        for (r, bins) in self.bins.iter_mut().enumerate() {
            if bins.len() < last {
                bins.resize(last, 0.0);
            }
            let u = usage(r);
            if u == 0.0 {
                continue;
            }
            for (k, bin) in bins.iter_mut().enumerate().take(last).skip(first) {
                let lo = self.origin + k as f64 * self.step;
                let overlap = to.min(lo + self.step) - from.max(lo);
                if overlap > 0.0 {
                    *bin += u * overlap / self.step;
                }
            }
        }
    }
}
