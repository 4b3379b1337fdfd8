//! Measured loads on the run ([`crate::load`]): at each step a load's
//! background activity is started, given its new rate as a bound, or ended
//! when the rate drops to 0.

use hvnet_engine::ActivitySpec;

use super::{Run, Timer};

impl<T: Copy> Run<'_, T> {
    /// Step `j` of load `i` begins; the next is scheduled.
    pub(super) fn step_load(&mut self, i: usize, j: usize) {
        let load = &self.network.loads[i];
        let rate = load.steps[j].1;
        match (self.loads[i], rate > 0.0) {
            (Some(activity), true) => self.sim.set_bound(activity, Some(rate)),
            (Some(activity), false) => {
                self.sim.cancel(activity);
                self.loads[i] = None;
            }
            (None, true) => {
                let spec = ActivitySpec {
                    bound: Some(rate),
                    weight: load.weight,
                    ..ActivitySpec::new(f64::INFINITY, vec![(load.resource, 1.0)])
                };
                self.loads[i] = Some(self.sim.start(&spec));
            }
            (None, false) => {}
        }
        if let Some(&(at, _)) = load.steps.get(j + 1) {
            self.schedule_timer(at, Timer::Load(i, j + 1));
        }
    }
}
