//! Live migrations on the run: the pre-copy machine of each VM
//! (`hvnet_migration::Precopy`) drives TCP connections between the hosts.
//!
//! A migration arrives at its time and waits in its source host's queue
//! while that host already runs its `simultaneous` migrations (Windows
//! defaults to 2). Running, each of its steps — a pre-copy pass, then the
//! blackout copy — is one TCP connection from the source host to the
//! destination host (TCP/IP: the team member and the receiving core follow
//! the rules of every connection), carrying that step's memory bytes; the
//! switch-over is a pause; then the next queued migration of the host starts.

use std::collections::{HashMap, VecDeque};

use hvnet_engine::{Seconds, Simulation};
use hvnet_migration::{GuestMemory, Pass, Precopy, PrecopyParameters, Step};

use super::{Connection, ConnectionReport, Running, State, SWITCHOVER};

/// One VM's live migration.
#[derive(Clone, Copy, Debug)]
pub struct Migration {
    /// Endpoints of the source and destination hosts.
    pub source: u32,
    pub target: u32,
    /// TCP ports of its connections (live migration listens on 6600).
    pub ports: (u16, u16),
    pub memory: GuestMemory,
    pub parameters: PrecopyParameters,
    /// When it is asked for.
    pub at: Seconds,
    /// Its source host's queue, and how many that host runs at once.
    pub queue: u32,
    pub simultaneous: u32,
}

/// What one migration did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MigrationReport {
    pub queued: Seconds,
    pub start: Option<Seconds>,
    pub end: Option<Seconds>,
    pub passes: Vec<Pass>,
    /// From the VM's pause to its resume on the destination.
    pub blackout: Option<Seconds>,
    /// Memory bytes it moved (passes and blackout copy).
    pub bytes_sent: f64,
    /// The highest rate of its connections, bytes/s, as seen at events.
    pub peak_rate: f64,
    /// Its connections, in order (indices into the run's connection reports).
    pub connections: Vec<usize>,
}

pub(super) struct Migrations {
    specs: Vec<Migration>,
    machines: Vec<Precopy>,
    reports: Vec<MigrationReport>,
    /// The migration each migration connection belongs to.
    pub(super) owner: HashMap<usize, usize>,
    /// The connection each migration is on now.
    current: Vec<Option<usize>>,
    waiting: HashMap<u32, VecDeque<usize>>,
    active: HashMap<u32, u32>,
}

impl Migrations {
    pub(super) fn new(specs: &[Migration]) -> Self {
        Self {
            specs: specs.to_vec(),
            machines: specs
                .iter()
                .map(|m| Precopy::new(m.memory, m.parameters))
                .collect(),
            reports: specs
                .iter()
                .map(|m| MigrationReport {
                    queued: m.at,
                    ..MigrationReport::default()
                })
                .collect(),
            owner: HashMap::new(),
            current: vec![None; specs.len()],
            waiting: HashMap::new(),
            active: HashMap::new(),
        }
    }

    /// Whether a migration is under way or waiting.
    pub(super) fn busy(&self) -> bool {
        self.active.values().any(|&n| n > 0) || self.waiting.values().any(|q| !q.is_empty())
    }

    /// Notes the rate of each migration's connection (for its peak).
    pub(super) fn sample_rates(&mut self, sim: &mut Simulation, running: &HashMap<usize, Running>) {
        for (i, current) in self.current.iter().enumerate() {
            if let Some(r) = current.and_then(|k| running.get(&k)) {
                let rate = sim.rate(r.activity);
                let report = &mut self.reports[i];
                report.peak_rate = report.peak_rate.max(rate);
            }
        }
    }

    pub(super) fn into_reports(mut self) -> Vec<MigrationReport> {
        for (i, machine) in self.machines.iter().enumerate() {
            self.reports[i].passes = machine.passes().to_vec();
            self.reports[i].blackout = machine.blackout();
        }
        self.reports
    }
}

impl State<'_> {
    pub(super) fn migration_arrives(&mut self, sim: &mut Simulation, i: usize) {
        let queue = self.migrations.specs[i].queue;
        self.migrations
            .waiting
            .entry(queue)
            .or_default()
            .push_back(i);
        self.start_waiting_migrations(sim, queue);
    }

    fn start_waiting_migrations(&mut self, sim: &mut Simulation, queue: u32) {
        loop {
            let active = self.migrations.active.get(&queue).copied().unwrap_or(0);
            let Some(&i) = self.migrations.waiting.get(&queue).and_then(|q| q.front()) else {
                return;
            };
            if active >= self.migrations.specs[i].simultaneous {
                return;
            }
            self.migrations
                .waiting
                .get_mut(&queue)
                .expect("a queue")
                .pop_front();
            *self.migrations.active.entry(queue).or_insert(0) += 1;
            self.migrations.reports[i].start = Some(sim.now());
            let step = self.migrations.machines[i].start(sim.now());
            self.migration_step(sim, i, step);
        }
    }

    /// The migration's current step ended (a connection completed, or the switch-over).
    pub(super) fn migration_step_ended(&mut self, sim: &mut Simulation, i: usize) {
        self.migrations.current[i] = None;
        let step = self.migrations.machines[i].step_ended(sim.now());
        self.migration_step(sim, i, step);
    }

    fn migration_step(&mut self, sim: &mut Simulation, i: usize, step: Step) {
        match step {
            Step::Copy { bytes, .. } | Step::Blackout { bytes } => {
                let spec = self.migrations.specs[i];
                let k = self.connections.len();
                self.connections.push(Connection {
                    source: spec.source,
                    target: spec.target,
                    ports: Some(spec.ports),
                    amount: bytes,
                    start: sim.now(),
                    stop: None,
                });
                self.reports.push(ConnectionReport::default());
                self.migrations.owner.insert(k, i);
                self.migrations.current[i] = Some(k);
                self.migrations.reports[i].bytes_sent += bytes;
                self.migrations.reports[i].connections.push(k);
                self.start(sim, k);
                self.keep_rebalancing(sim);
            }
            Step::Switchover { seconds } => {
                sim.schedule(sim.now() + seconds, SWITCHOVER | i as u64);
            }
            Step::Done => {
                self.migrations.reports[i].end = Some(sim.now());
                let queue = self.migrations.specs[i].queue;
                *self
                    .migrations
                    .active
                    .get_mut(&queue)
                    .expect("an active migration") -= 1;
                self.start_waiting_migrations(sim, queue);
            }
        }
    }
}
