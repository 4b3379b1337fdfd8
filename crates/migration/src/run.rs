//! Live migrations on the network's run: the pre-copy machine of each VM
//! ([`crate::precopy`]) drives connections between the hosts, as the run's
//! [`Driver`].
//!
//! A migration arrives at its time and waits while its source or its
//! destination host already takes part in its `simultaneous` migrations
//! (Windows defaults to 2; outgoing and incoming count alike: "a host can
//! participate in one outgoing live migration plus one incoming, two
//! outgoing live migrations, or two incoming live migrations", Microsoft
//! Learn, "Run a live migration in the VMM fabric"). Waiting migrations
//! start in the order they arrived, each as soon as both its hosts have
//! room (one blocked by a busy destination does not hold back the next one
//! of its source). Running, each of its steps — a pre-copy pass, then the
//! blackout copy — moves that step's memory bytes over its transport (see
//! [`crate::transport`]: TCP/IP, SMB channels, compression).
//!
//! Its set-up comes first. The part of it that does not overlap
//! (`setup_serial`: each host does it for one migration at a time, as
//! source or destination alike) waits while either of its hosts does it for
//! another migration; those waiting take turns in the order they got there,
//! each as soon as both its hosts are free. The rest of the set-up runs in
//! parallel with everything else. A migration holds its `simultaneous` slot
//! (it has started) while it waits for its turn.
//!
//! A step ends when its bytes have moved and the source has prepared them
//! (`prepare_rate`: in series with the transfer, the network idle
//! meanwhile; published graphs show it as a jig-saw below line rate). The
//! switch-over is a pause; then the VM runs on the destination (its own
//! CPU load with it, see [`crate::guests`]) and the migrations waiting
//! for its two hosts may start. A migration may wait for others (`after`): it is asked
//! for `delay` seconds after the last of them ends (a node drained, patched
//! and back), or at its own time if that is later; one whose `after` never
//! all end is never asked for.

use std::collections::{BTreeSet, HashMap};

use hvnet_engine::{ChangePoints, Seconds, TimerId};
use hvnet_network::{Change, Connection, ConnectionReport, Driver, Network, Resources, Run};

use crate::guests::Guests;
use crate::precopy::{Pass, Precopy, Step};
use crate::spec::{Guest, Migration};

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
    /// The highest rate of its connections together, bytes/s of memory (before
    /// compression), as seen at events.
    pub peak_rate: f64,
    /// The same, in bytes/s its connections send (after compression; frame
    /// headers not counted): what its NICs carry for it.
    pub peak_wire_rate: f64,
    /// Its connections, in order (indices into the run's connection reports).
    pub connections: Vec<usize>,
    /// Core-seconds its connections cost on the source and on the
    /// destination (sums of their `send_core_s` and `receive_core_s`).
    pub cpu_core_s_source: f64,
    pub cpu_core_s_destination: f64,
}

/// What a run with migrations produced.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// One per connection: the given ones, then those migrations opened.
    pub connections: Vec<ConnectionReport>,
    pub migrations: Vec<MigrationReport>,
    pub end_time: Seconds,
    pub events: u64,
    /// `series[r]`: the use of resource `r` over time, as change points from
    /// 0 to `end_time` (see `hvnet_engine::record`), when recorded; the
    /// network's resources only, and the guests' own work is not in it (only
    /// the connections').
    pub series: Option<Vec<ChangePoints>>,
}

/// The migrations' timers.
#[derive(Clone, Copy, Debug)]
pub enum MigrationTimer {
    /// Migration `i` is asked for.
    Arrive(usize),
    /// A wait of migration `i` ended: the source's preparation of a step, or
    /// the switch-over.
    Wait(usize),
    /// When migration `i`'s channels should together have moved its step:
    /// look again (after the event).
    StepCheck(usize),
    /// Migration `i` has done the serial part of its set-up: its hosts are
    /// free for the next one's, and it goes on with the rest.
    SerialDone(usize),
}

/// The step a migration is on: its connections share `bytes`.
#[derive(Debug)]
pub(crate) struct Under {
    pub(crate) connections: Vec<usize>,
    pub(crate) bytes: f64,
    pub(crate) check: Option<TimerId>,
}

/// The migrations of a run, and the guests they move: the run's driver.
pub(crate) struct Migrations<'s> {
    pub(crate) specs: &'s [Migration],
    machines: Vec<Precopy>,
    pub(crate) reports: Vec<MigrationReport>,
    /// The migration each migration connection belongs to.
    pub(crate) owner: HashMap<usize, usize>,
    pub(crate) under: Vec<Option<Under>>,
    /// The migrations waiting for each host, by arrival.
    waiting: HashMap<u32, BTreeSet<(u64, usize)>>,
    /// When each waiting migration arrived (its place in line).
    arrival: Vec<u64>,
    arrivals: u64,
    /// How many migrations each host takes part in now.
    active: HashMap<u32, u32>,
    /// How many of its `after` migrations each migration still waits for,
    /// and the migrations that wait for each one.
    pending: Vec<usize>,
    dependents: Vec<Vec<usize>>,
    /// The guest each migration moves, if any.
    guest_of: Vec<Option<usize>>,
    /// The ports of each migration's SMB channels ([`crate::transport::smb_ports`]).
    pub(crate) channel_ports: Vec<Vec<(u16, u16)>>,
    guests: Guests,
    /// The hosts doing the serial part of a migration's set-up now.
    serial_busy: BTreeSet<u32>,
    /// The migrations waiting for their serial set-up, in the order they got
    /// there, each with the length of its whole set-up.
    serial_line: Vec<(usize, Seconds)>,
    /// The rest of each migration's set-up, once its serial part is done.
    setup_rest: Vec<Seconds>,
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

/// Runs `connections` with `changes` on the network, with live migrations:
/// each arrives at its time, waits in its source host's queue, and moves
/// its memory pass by pass; and with the guests' own CPU load on their
/// hosts' cores, which moves with a VM's migration when it ends
/// ([`Guest::migrations`]). The specs must have passed
/// [`hvnet_network::check`] and [`crate::check`].
pub fn run_with_migrations(
    network: &Network,
    connections: &[Connection],
    changes: &[(Seconds, Change)],
    migrations: &[Migration],
    guests: &[Guest],
    record: bool,
) -> RunReport {
    let mut driver = Migrations::new(network, migrations, guests);
    let report = network.drive(connections, changes, record, &mut driver);
    let series =
        (report.series).map(|all| driver.guests.network_work(all, network.resources.len()));
    RunReport {
        migrations: driver.into_reports(&report.connections),
        connections: report.connections,
        end_time: report.end_time,
        events: report.events,
        series,
    }
}

impl<'s> Migrations<'s> {
    fn new(network: &Network, specs: &'s [Migration], guests: &[Guest]) -> Self {
        let mut guest_of = vec![None; specs.len()];
        for (g, guest) in guests.iter().enumerate() {
            for &i in &guest.migrations {
                guest_of[i] = Some(g);
            }
        }
        let hosts = guests.iter().map(|g| g.host).chain(
            specs
                .iter()
                .zip(&guest_of)
                .filter(|(_, g)| g.is_some())
                .map(|(m, _)| m.target),
        );
        Self {
            specs,
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
            arrival: vec![0; specs.len()],
            arrivals: 0,
            active: HashMap::new(),
            pending: specs.iter().map(|m| m.after.len()).collect(),
            dependents: dependents(specs),
            guests: Guests::new(guests, hosts),
            guest_of,
            channel_ports: (specs.iter().enumerate())
                .map(|(i, m)| crate::transport::smb_ports(network, i, m))
                .collect(),
            serial_busy: BTreeSet::new(),
            serial_line: Vec::new(),
            setup_rest: vec![0.0; specs.len()],
        }
    }

    fn into_reports(mut self, connections: &[ConnectionReport]) -> Vec<MigrationReport> {
        for (i, machine) in self.machines.iter().enumerate() {
            let report = &mut self.reports[i];
            report.passes = machine.passes().to_vec();
            report.blackout = machine.blackout();
            for &k in &report.connections {
                report.cpu_core_s_source += connections[k].send_core_s;
                report.cpu_core_s_destination += connections[k].receive_core_s;
            }
        }
        self.reports
    }

    fn arrives(&mut self, run: &mut Run<'_, MigrationTimer>, i: usize) {
        self.reports[i].queued = run.now();
        self.arrivals += 1;
        self.arrival[i] = self.arrivals;
        let (source, target) = self.specs[i].hosts;
        for host in [source, target] {
            (self.waiting.entry(host).or_default()).insert((self.arrivals, i));
        }
        self.start_waiting(run, source);
    }

    /// Whether `host` takes part in fewer than `limit` migrations now.
    fn has_room(&self, host: u32, limit: u32) -> bool {
        self.active.get(&host).copied().unwrap_or(0) < limit
    }

    /// Starts the migrations waiting for `host`, in the order they arrived,
    /// each whose source and destination both have room.
    fn start_waiting(&mut self, run: &mut Run<'_, MigrationTimer>, host: u32) {
        let Some(line) = self.waiting.get(&host) else {
            return;
        };
        let line: Vec<usize> = line.iter().map(|&(_, i)| i).collect();
        for i in line {
            let still_waiting =
                (self.waiting.get(&host)).is_some_and(|line| line.contains(&(self.arrival[i], i)));
            let m = &self.specs[i];
            if !still_waiting {
                continue; // started by a migration that ended meanwhile
            }
            let (source, target) = m.hosts;
            if !(self.has_room(source, m.simultaneous.0) && self.has_room(target, m.simultaneous.1))
            {
                continue;
            }
            for end in [source, target] {
                *self.active.entry(end).or_insert(0) += 1;
                if let Some(line) = self.waiting.get_mut(&end) {
                    line.remove(&(self.arrival[i], i));
                }
            }
            self.reports[i].start = Some(run.now());
            let step = self.machines[i].start(run.now());
            self.step(run, i, step);
        }
    }

    /// A wait of migration `i` ended: the source's preparation of a step's
    /// memory, or the switch-over.
    fn wait_ended(&mut self, run: &mut Run<'_, MigrationTimer>, i: usize) {
        let step = self.machines[i].step_ended(run.now());
        self.step(run, i, step);
    }

    /// Ends the current step: closes its other connections and goes on.
    pub(crate) fn finish_step(&mut self, run: &mut Run<'_, MigrationTimer>, i: usize) {
        let Some(under) = self.under[i].take() else {
            return;
        };
        if let Some(timer) = under.check {
            run.cancel_timer(timer);
        }
        for &k in &under.connections {
            self.owner.remove(&k);
            run.close(k);
        }
        // The source prepares each byte of memory outside the transfer: the
        // step ends when that is done too.
        match self.specs[i].prepare_rate {
            Some(rate) if under.bytes > 0.0 => {
                run.schedule(run.now() + under.bytes / rate, MigrationTimer::Wait(i));
            }
            _ => self.wait_ended(run, i),
        }
    }

    fn step(&mut self, run: &mut Run<'_, MigrationTimer>, i: usize, step: Step) {
        match step {
            Step::Copy {
                bytes, zero_bytes, ..
            } => self.copy(run, i, bytes, zero_bytes),
            Step::Blackout { bytes } => self.copy(run, i, bytes, 0.0),
            Step::Setup { seconds } if self.specs[i].parameters.setup_serial > 0.0 => {
                self.serial_line.push((i, seconds));
                self.start_serial(run);
            }
            Step::Setup { seconds } | Step::Switchover { seconds } => {
                run.schedule(run.now() + seconds, MigrationTimer::Wait(i));
            }
            Step::Done => self.done(run, i),
        }
    }

    /// Starts the serial set-up of the migrations waiting for it, in the
    /// order they got there, each whose source and destination hosts are
    /// both free of another's.
    fn start_serial(&mut self, run: &mut Run<'_, MigrationTimer>) {
        let mut k = 0;
        while k < self.serial_line.len() {
            let (i, seconds) = self.serial_line[k];
            let (source, target) = self.specs[i].hosts;
            if self.serial_busy.contains(&source) || self.serial_busy.contains(&target) {
                k += 1;
                continue;
            }
            self.serial_line.remove(k);
            self.serial_busy.extend([source, target]);
            let serial = self.specs[i].parameters.setup_serial;
            self.setup_rest[i] = (seconds - serial).max(0.0);
            run.schedule(run.now() + serial, MigrationTimer::SerialDone(i));
        }
    }

    /// Migration `i` has done the serial part of its set-up: its hosts take
    /// the next one's, and it goes on with the rest of its own.
    fn serial_done(&mut self, run: &mut Run<'_, MigrationTimer>, i: usize) {
        let (source, target) = self.specs[i].hosts;
        self.serial_busy.remove(&source);
        self.serial_busy.remove(&target);
        run.schedule(run.now() + self.setup_rest[i], MigrationTimer::Wait(i));
        self.start_serial(run);
    }

    /// Migration `i` ended: those waiting for it may be asked for, its
    /// guest runs on the destination, and its host's queue moves on.
    fn done(&mut self, run: &mut Run<'_, MigrationTimer>, i: usize) {
        self.reports[i].end = Some(run.now());
        for &j in &self.dependents[i] {
            self.pending[j] -= 1;
            if self.pending[j] == 0 {
                let spec = &self.specs[j];
                let at = spec.at.max(run.now() + spec.delay);
                run.schedule(at, MigrationTimer::Arrive(j));
            }
        }
        if let Some(g) = self.guest_of[i] {
            self.guests.moved(g, self.specs[i].target);
            self.guests.place(run);
        }
        let (source, target) = self.specs[i].hosts;
        for host in [source, target] {
            if let Some(active) = self.active.get_mut(&host) {
                *active -= 1;
            }
        }
        self.start_waiting(run, source);
        self.start_waiting(run, target);
    }
}

impl Driver for Migrations<'_> {
    type Timer = MigrationTimer;

    fn add_resources(&mut self, network: &Network, resources: &mut Resources<'_>) {
        self.guests.add_meters(network, resources);
    }

    fn begin(&mut self, run: &mut Run<'_, MigrationTimer>) {
        for (i, m) in self.specs.iter().enumerate() {
            if m.after.is_empty() {
                run.schedule(m.at, MigrationTimer::Arrive(i));
            }
        }
        self.guests.place(run);
    }

    fn timer(&mut self, run: &mut Run<'_, MigrationTimer>, timer: MigrationTimer) {
        match timer {
            MigrationTimer::Arrive(i) => self.arrives(run, i),
            MigrationTimer::Wait(i) => self.wait_ended(run, i),
            MigrationTimer::SerialDone(i) => self.serial_done(run, i),
            MigrationTimer::StepCheck(_) => {}
        }
    }

    /// A connection of a migration completed: its step has moved all its bytes.
    fn completed(&mut self, run: &mut Run<'_, MigrationTimer>, k: usize) {
        if let Some(i) = self.owner.remove(&k) {
            self.finish_step(run, i);
        }
    }

    fn after_event(&mut self, run: &mut Run<'_, MigrationTimer>) {
        self.check_steps(run);
    }

    /// Whether a migration is under way or waiting.
    fn busy(&self) -> bool {
        self.active.values().any(|&n| n > 0) || self.waiting.values().any(|q| !q.is_empty())
    }
}
