//! A whole workload in one call: transfers that start at given times and
//! capacity changes at given times, run until nothing can progress.
//!
//! This is how callers outside Rust use the engine: they describe the run
//! once, and the event loop never leaves Rust.

use crate::lmm::{Sharing, SolveStats};
use crate::record::{ChangePoints, Recorder};
use crate::sim::{ActivitySpec, Event, ResourceId, Simulation};
use crate::units::{Rate, Seconds};

/// A transfer that starts at `start`.
#[derive(Clone, Debug)]
pub struct Transfer {
    pub start: Seconds,
    pub spec: ActivitySpec,
}

/// A resource's capacity becomes `capacity` at `at` (0: down).
#[derive(Clone, Copy, Debug)]
pub struct CapacityChange {
    pub at: Seconds,
    pub resource: ResourceId,
    pub capacity: Rate,
}

/// Everything one run needs.
#[derive(Clone, Debug, Default)]
pub struct Workload {
    /// `(capacity, sharing)` of each resource; ids are positions.
    pub resources: Vec<(Rate, Sharing)>,
    pub transfers: Vec<Transfer>,
    pub changes: Vec<CapacityChange>,
    /// Record each resource's use over time (as change points).
    pub record: bool,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct WorkloadResult {
    /// Completion time of each transfer, in input order; `None` if it never
    /// completed (its path stayed down, or it had no capacity at all).
    pub end: Vec<Option<Seconds>>,
    /// Time of the last event.
    pub end_time: Seconds,
    /// `series[r]`: the use of resource `r` over time from 0 to `end_time`,
    /// when recorded.
    pub series: Option<Vec<ChangePoints>>,
    /// Number of events processed.
    pub events: u64,
    /// How the solver's solves went.
    pub solves: SolveStats,
}

const START_TAG: u64 = 0;
const CHANGE_TAG: u64 = 1 << 62;

impl Workload {
    pub fn run(&self) -> WorkloadResult {
        let mut sim = Simulation::new();
        for &(capacity, sharing) in &self.resources {
            sim.add_resource(capacity, sharing);
        }
        if self.record {
            sim.record();
        }
        // Transfers in start order; one timer per distinct start time.
        let mut order: Vec<usize> = (0..self.transfers.len()).collect();
        order.sort_by(|&a, &b| self.transfers[a].start.total_cmp(&self.transfers[b].start));
        let mut groups: Vec<(Seconds, std::ops::Range<usize>)> = Vec::new();
        for (pos, &i) in order.iter().enumerate() {
            let start = self.transfers[i].start;
            match groups.last_mut() {
                Some((t, range)) if *t == start => range.end = pos + 1,
                _ => groups.push((start, pos..pos + 1)),
            }
        }
        for (g, (t, _)) in groups.iter().enumerate() {
            sim.schedule(*t, START_TAG + g as u64);
        }
        for (k, change) in self.changes.iter().enumerate() {
            sim.schedule(change.at, CHANGE_TAG + k as u64);
        }

        let mut index_of: Vec<usize> = Vec::with_capacity(self.transfers.len());
        let mut end: Vec<Option<Seconds>> = vec![None; self.transfers.len()];
        let mut events = 0u64;
        sim.run(|sim, event| {
            events += 1;
            match event {
                Event::Timer(_, tag) if tag >= CHANGE_TAG => {
                    let change = self.changes[(tag - CHANGE_TAG) as usize];
                    sim.set_capacity(change.resource, change.capacity);
                }
                Event::Timer(_, tag) => {
                    for &i in &order[groups[tag as usize].1.clone()] {
                        let id = sim.start(&self.transfers[i].spec);
                        debug_assert_eq!(id.0 as usize, index_of.len());
                        index_of.push(i);
                    }
                }
                Event::Completed(a) => end[index_of[a.0 as usize]] = Some(sim.now()),
            }
        });
        let series = sim.take_recorder().map(Recorder::into_series);
        WorkloadResult {
            end,
            end_time: sim.now(),
            series,
            events,
            solves: sim.solve_stats(),
        }
    }
}
