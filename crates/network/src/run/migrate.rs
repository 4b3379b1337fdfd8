//! Live migrations on the run: the pre-copy machine of each VM
//! (`hvnet_migration::Precopy`) drives connections between the hosts.
//!
//! A migration arrives at its time and waits in its source host's queue
//! while that host already runs its `simultaneous` migrations (Windows
//! defaults to 2). Running, each of its steps — a pre-copy pass, then the
//! blackout copy — moves that step's memory bytes:
//!
//! - **TCP/IP** (no channels): over one TCP connection from the source host to
//!   the destination host; the team member and the receiving core follow the
//!   rules of every connection;
//! - **SMB** (channels): over one connection per SMB channel, each bound to its
//!   NIC pair (or, over a team's interface, placed by the team's rules). SMB hands out the step's chunks to whichever channel is free,
//!   so the channels share the step's bytes by their rates: every channel
//!   may carry the whole step, and the step ends when what they moved
//!   together reaches its size (checked at each event, and by a timer at the
//!   time the current rates would reach it).
//!
//! A step ends when its bytes have moved and the source has prepared them
//! (`prepare_rate`: in series with the transfer, the network idle
//! meanwhile; published graphs show it as a jig-saw below line rate). The
//! switch-over is a pause; then the VM runs on the destination (its own
//! CPU load with it, see [`super::guests`]) and the next queued migration of
//! the host starts. A migration may wait for others (`after`): it is asked
//! for `delay` seconds after the last of them ends (a node drained, patched
//! and back), or at its own time if that is later; one whose `after` never
//! all end is never asked for.

use std::collections::{HashMap, VecDeque};

use hvnet_engine::{ResourceId, Seconds, Simulation, TimerId};
use hvnet_migration::{GuestMemory, Pass, Precopy, PrecopyParameters, Step};

use super::{Connection, ConnectionReport, State, MIGRATE, STEP_CHECK, WAIT};

/// One SMB channel: a connection bound to a NIC pair, or (over a team's
/// interface) placed on the team's members by the team's rules.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Channel {
    /// The NIC pair it is bound to; `None`: the team rules decide, by its ports.
    pub nics: Option<(u32, u32)>,
    pub ports: (u16, u16),
    /// Cycles per byte on the sending and receiving cores instead of the
    /// path's (SMB Direct: RDMA); `None`: the path's.
    pub cycles: Option<(f64, f64)>,
}

/// The Compression option: memory is compressed on the source, sent over
/// TCP, and decompressed on the destination, on otherwise idle cores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compression {
    /// Compressed bytes per byte of ordinary memory, and of zero pages.
    pub ratio: f64,
    pub zero_ratio: f64,
    /// Cycles per byte to compress and to decompress ordinary memory, and
    /// for either on zero pages.
    pub compress_cycles: f64,
    pub decompress_cycles: f64,
    pub zero_cycles: f64,
    /// Weight of its connections in the max-min share: below 1, they yield
    /// to everything else on the cores (and links) they share.
    pub weight: f64,
}

impl Compression {
    /// `(wire bytes, compress cycles, decompress cycles)` per byte of a step
    /// of `bytes` of which `zero_bytes` are zero pages.
    fn per_byte(&self, bytes: f64, zero_bytes: f64) -> (f64, f64, f64) {
        let zero = if bytes > 0.0 {
            (zero_bytes / bytes).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let data = 1.0 - zero;
        (
            data * self.ratio + zero * self.zero_ratio,
            data * self.compress_cycles + zero * self.zero_cycles,
            data * self.decompress_cycles + zero * self.zero_cycles,
        )
    }
}

/// One VM's live migration.
#[derive(Clone, Debug)]
pub struct Migration {
    /// Endpoints of the source and destination hosts.
    pub source: u32,
    pub target: u32,
    /// TCP ports of its TCP/IP connections (live migration listens on 6600).
    pub ports: (u16, u16),
    /// SMB channels; empty for TCP/IP and Compression.
    pub channels: Vec<Channel>,
    /// The Compression option (over TCP); `None` otherwise.
    pub compression: Option<Compression>,
    pub memory: GuestMemory,
    pub parameters: PrecopyParameters,
    /// Bytes of memory per second the source prepares for sending (reads,
    /// maps and hands over guest pages) in series with the transfer, not
    /// overlapped with it: each step of `b` bytes takes `b / rate` longer
    /// than its transfer. `None`: no such time.
    pub prepare_rate: Option<f64>,
    /// When it is asked for (at the earliest, with `after`).
    pub at: Seconds,
    /// Migrations (earlier in the list) that must end before it is asked
    /// for, and the pause after the last of them ends (a patched node's
    /// downtime); empty: it is asked for at `at`.
    pub after: Vec<usize>,
    pub delay: Seconds,
    /// A resource all its connections also pass through, one unit per byte
    /// of memory (its source host's SMB bandwidth limit for live migration).
    pub through: Option<ResourceId>,
    /// Its source host's queue, and how many that host runs at once.
    pub queue: u32,
    pub simultaneous: u32,
    /// The VM's own CPU load (an index into the run's guests), which runs on
    /// the destination once the migration ends; `None` for an idle VM.
    pub guest: Option<usize>,
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
    /// The highest rate of its connections together, bytes/s, as seen at events.
    pub peak_rate: f64,
    /// Its connections, in order (indices into the run's connection reports).
    pub connections: Vec<usize>,
}

/// The step a migration is on: its connections share `bytes`.
#[derive(Debug)]
struct Under {
    connections: Vec<usize>,
    bytes: f64,
    check: Option<TimerId>,
}

pub(super) struct Migrations {
    specs: Vec<Migration>,
    machines: Vec<Precopy>,
    reports: Vec<MigrationReport>,
    /// The migration each migration connection belongs to.
    pub(super) owner: HashMap<usize, usize>,
    under: Vec<Option<Under>>,
    waiting: HashMap<u32, VecDeque<usize>>,
    active: HashMap<u32, u32>,
    /// How many of its `after` migrations each migration still waits for,
    /// and the migrations that wait for each one.
    pending: Vec<usize>,
    dependents: Vec<Vec<usize>>,
}

/// For each migration, the migrations that wait for it.
fn dependents(specs: &[Migration]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); specs.len()];
    for (i, m) in specs.iter().enumerate() {
        for &j in &m.after {
            out[j].push(i);
        }
    }
    out
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
            under: specs.iter().map(|_| None).collect(),
            waiting: HashMap::new(),
            active: HashMap::new(),
            pending: specs.iter().map(|m| m.after.len()).collect(),
            dependents: dependents(specs),
        }
    }

    /// When each migration that waits for no other is asked for.
    pub(super) fn arrivals(&self) -> impl Iterator<Item = (usize, Seconds)> + '_ {
        self.specs
            .iter()
            .enumerate()
            .filter(|(_, m)| m.after.is_empty())
            .map(|(i, m)| (i, m.at))
    }

    /// Whether a migration is under way or waiting.
    pub(super) fn busy(&self) -> bool {
        self.active.values().any(|&n| n > 0) || self.waiting.values().any(|q| !q.is_empty())
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
        self.migrations.reports[i].queued = sim.now();
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

    /// A connection of migration `i` completed: its step has moved all its bytes.
    pub(super) fn migration_connection_completed(&mut self, sim: &mut Simulation, i: usize) {
        self.finish_step(sim, i);
    }

    /// A wait of migration `i` ended: the source's preparation of a step's
    /// memory, or the switch-over.
    pub(super) fn wait_ended(&mut self, sim: &mut Simulation, i: usize) {
        let step = self.migrations.machines[i].step_ended(sim.now());
        self.migration_step(sim, i, step);
    }

    /// Ends the current step: stops its other connections and goes on.
    fn finish_step(&mut self, sim: &mut Simulation, i: usize) {
        let Some(under) = self.migrations.under[i].take() else {
            return;
        };
        if let Some(timer) = under.check {
            sim.cancel_timer(timer);
        }
        for &k in &under.connections {
            self.migrations.owner.remove(&k);
            if let Some(r) = self.running.remove(&k) {
                self.of_activity.remove(&r.activity);
                self.reports[k].sent = self.connections[k].amount - sim.remaining(r.activity);
                self.reports[k].end = Some(sim.now());
                sim.cancel(r.activity);
            }
        }
        // The source prepares each byte of memory outside the transfer: the
        // step ends when that is done too.
        match self.migrations.specs[i].prepare_rate {
            Some(rate) if under.bytes > 0.0 => {
                sim.schedule(sim.now() + under.bytes / rate, WAIT | i as u64);
            }
            _ => {
                let step = self.migrations.machines[i].step_ended(sim.now());
                self.migration_step(sim, i, step);
            }
        }
    }

    fn migration_step(&mut self, sim: &mut Simulation, i: usize, step: Step) {
        match step {
            Step::Copy { bytes, .. } | Step::Blackout { bytes } => {
                let zero_bytes = match step {
                    Step::Copy { zero_bytes, .. } => zero_bytes,
                    _ => 0.0,
                };
                let spec = self.migrations.specs[i].clone();
                // TCP/IP is one connection that the rules place; SMB one per channel.
                let bound: Vec<Option<Channel>> = if spec.channels.is_empty() {
                    vec![None]
                } else {
                    spec.channels.iter().copied().map(Some).collect()
                };
                let mut connections = Vec::with_capacity(bound.len());
                for channel in bound {
                    let (pinned, ports, cycles) = match channel {
                        Some(c) => (c.nics, c.ports, c.cycles),
                        None => (None, spec.ports, None),
                    };
                    let k = self.connections.len();
                    self.connections.push(Connection {
                        source: spec.source,
                        target: spec.target,
                        ports: Some(ports),
                        amount: bytes,
                        start: sim.now(),
                        stop: None,
                        pinned,
                        cycles,
                        compression: spec.compression.map(|c| c.per_byte(bytes, zero_bytes)),
                        weight: spec.compression.map_or(1.0, |c| c.weight),
                        through: spec.through,
                    });
                    self.reports.push(ConnectionReport::default());
                    self.migrations.owner.insert(k, i);
                    self.migrations.reports[i].connections.push(k);
                    connections.push(k);
                    self.start(sim, k);
                }
                self.migrations.reports[i].bytes_sent += bytes;
                self.migrations.under[i] = Some(Under {
                    connections,
                    bytes,
                    check: None,
                });
                self.keep_rebalancing(sim);
            }
            Step::Switchover { seconds } => {
                sim.schedule(sim.now() + seconds, WAIT | i as u64);
            }
            Step::Done => {
                self.migrations.reports[i].end = Some(sim.now());
                for j in self.migrations.dependents[i].clone() {
                    self.migrations.pending[j] -= 1;
                    if self.migrations.pending[j] == 0 {
                        let spec = &self.migrations.specs[j];
                        let at = spec.at.max(sim.now() + spec.delay);
                        sim.schedule(at, MIGRATE | j as u64);
                    }
                }
                if let Some(g) = self.migrations.specs[i].guest {
                    self.guests.moved(g, self.migrations.specs[i].target);
                    self.guests.place(sim, self.network);
                }
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

    /// After every event: note each step's rate, end the steps whose channels
    /// have moved their bytes together, and set a timer for when the others will.
    pub(super) fn after_event(&mut self, sim: &mut Simulation) {
        let mut i = 0;
        while i < self.migrations.under.len() {
            let Some(under) = &self.migrations.under[i] else {
                i += 1;
                continue;
            };
            let (mut moved, mut rate) = (0.0, 0.0);
            for &k in &under.connections {
                if let Some(r) = self.running.get(&k) {
                    moved += self.connections[k].amount - sim.remaining(r.activity);
                    rate += sim.rate(r.activity);
                }
            }
            let report = &mut self.migrations.reports[i];
            report.peak_rate = report.peak_rate.max(rate);
            let left = under.bytes - moved;
            if under.connections.len() > 1 && left <= 1e-9 * under.bytes {
                // The next step (the blackout copy) starts now: look at it again.
                self.finish_step(sim, i);
                continue;
            } else if under.connections.len() > 1 && rate > 0.0 {
                let under = self.migrations.under[i].as_mut().expect("a step under way");
                if let Some(timer) = under.check.take() {
                    sim.cancel_timer(timer);
                }
                under.check = Some(sim.schedule(sim.now() + left / rate, STEP_CHECK | i as u64));
            }
            i += 1;
        }
    }
}
