//! Load measured on a resource, replayed: a step function of its use over
//! time (what a host NIC's counters showed), run as background work on that
//! resource. At each step it asks for the rate measured; it shares the
//! resource max-min fairly with the connections, never above that rate, so
//! where the connections need the room the replayed load yields its fair
//! share like any of them. Its weight sets that share: a connection's rate
//! counts payload, which takes more than its own bytes of a link (frame
//! headers), so a load weighted by that factor gets the same share of the
//! line as a connection. It has no amount and never completes: a run lasts
//! until its last step, and a load holds its last rate to the run's end (a
//! replay ends with a step to 0).

use hvnet_engine::{Rate, ResourceId, Seconds};

use crate::spec::SpecError;

/// A measured load on one resource.
#[derive(Clone, Debug, PartialEq)]
pub struct Load {
    pub resource: ResourceId,
    /// `(from, rate)`: from each time on, the rate it asks for (capacity
    /// units per second: bytes/s on a link), until the next step.
    pub steps: Vec<(Seconds, Rate)>,
    /// Its weight in the max-min share (see the module's header).
    pub weight: f64,
}

impl Load {
    /// Fails unless its resource is one of `resources`, its times are
    /// finite, >= 0 and increasing, and its rates finite and >= 0.
    pub fn check(&self, i: usize, resources: usize) -> Result<(), SpecError> {
        let fail = |why: String| Err(SpecError(format!("load {i}: {why}")));
        if self.resource >= resources {
            return fail(format!("resource {} does not exist", self.resource));
        }
        if !(self.weight.is_finite() && self.weight > 0.0) {
            return fail(format!("weight {} must be finite and > 0", self.weight));
        }
        let mut last = None;
        for &(at, rate) in &self.steps {
            if !(at.is_finite() && at >= 0.0 && last.is_none_or(|t| at > t)) {
                return fail(format!(
                    "step at {at}: times must be finite, >= 0 and increasing"
                ));
            }
            if !(rate.is_finite() && rate >= 0.0) {
                return fail(format!("step at {at}: rate {rate} must be finite and >= 0"));
            }
            last = Some(at);
        }
        Ok(())
    }
}
