//! Connections on a network of NICs and teams, run on the engine, with
//! failures, failover and rebalancing.
//!
//! Each connection is one engine activity on the path from the member it
//! leaves by to the member it arrives on (see [`crate::team`]). The run
//! reacts to these events:
//!
//! - **a change** (`failover`): a resource goes down or comes back
//!   (capacity 0 or its own), or a NIC's link goes down or up. A team sees
//!   link state at once in every mode; a member that is up but forwards
//!   nothing (its cable is dead while its link is up) is seen only by LACP,
//!   after `lacp_timeout` (LACPDUs stop arriving), and never by
//!   switch-independent or static teams. When the carriers of a team
//!   change, every connection whose member is no longer the one the rules
//!   pick moves to it.
//! - **a rebalancing tick** of dynamic teams (`rebalance`, every
//!   `rebalance_interval`): the team's outbound connections are spread again
//!   over its carriers, largest rate first onto the least-loaded carrier;
//! - **a tick of dynamic VMQ** (every `dynamic_vmq.interval`): a VM queue
//!   on a busy core moves to a less loaded one (see `vmq`);
//! - **a routing change** (`routing`): the fabric's routes between two
//!   NICs change at a time the caller computed (its routing converged on a
//!   failure or a repair); every connection whose route is no longer the
//!   one its ECMP hash picks among those left moves to it;
//! - **a completion**, and a timed sender's **stop**.
//!
//! A connection is *black-holed* while its route holds a resource that is
//! down: it moves no data until failover, rerouting or repair. The run reports, per
//! connection, when it ended, every member it used, how long it was
//! black-holed, and the CPU it cost on each side ([`ConnectionReport`]).
//!
//! A VM's end of a connection also costs its guest's stack cycles on one of
//! the VM's virtual processors (resources of their own, like cores).
//!
//! **Driving a run.** A higher layer (live migration) drives the run through
//! a [`Driver`]: it may add resources before the run starts, open and close
//! connections ([`Run::open`], [`Run::close`], [`Run::reroute`]), read what
//! they moved and their rates, run background work, schedule timers of its
//! own type, and it is told of each completion of a connection it may own
//! and after every event. [`Network::run`] is the run with no driver.
//!
//! **Timers.** The engine's timers carry a `u64` tag; the run keeps a table
//! of typed timers ([`Timer`]: the network's kinds and the driver's own
//! `Driver::Timer`) and tags each engine timer with its position in that
//! table. Every kind is a variant, matched without a catch-all; the engine
//! is unchanged (its ties between timers are broken by scheduling order, as
//! before).
//!
//! Here: the run's types and what a driver may call; `lifecycle`: a run
//! made from its specs, each event handled, its report finished.

use std::collections::HashSet;

use hvnet_engine::{
    ActivityId, ActivitySpec, ChangePoints, Rate, ResourceId, Seconds, Sharing, Simulation, TimerId,
};

use crate::spec::{Change, Connection, Network};

mod connections;
mod failover;
mod lifecycle;
mod loads;
mod placement;
mod rebalance;
mod routing;
mod running;
mod sharing;
mod vmq;

use vmq::Queues;

/// Where one connection went and how it fared.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConnectionReport {
    /// When it completed; `None` if it never did.
    pub end: Option<Seconds>,
    /// `(time, outbound NIC, inbound NIC)` at its start and at every move;
    /// a NIC is `None` while its team has no carrier.
    pub members: Vec<(Seconds, Option<u32>, Option<u32>)>,
    /// Seconds during which its path was down.
    pub blackholed: Seconds,
    /// Each stretch `(from, to)` of some length during which its path was
    /// down (the last one to the end of the run when it never came back).
    pub blackholes: Vec<(Seconds, Seconds)>,
    /// When its path went down for good: it never completed because of it.
    pub stalled_since: Option<Seconds>,
    /// The resources down on its route when the run ended, when it was
    /// stalled (what cut it); empty otherwise.
    pub stalled_on: Vec<ResourceId>,
    /// When the fabric's routing moved it to another route between the same
    /// NICs, one that carried it.
    pub rerouted: Vec<Seconds>,
    /// Bytes it moved: its amount when it completed, less when it was
    /// stopped or never completed.
    pub sent: f64,
    /// Core-seconds it cost on the sending side: over each stretch between
    /// two of its moves, the bytes it moved × the cycles per byte on each
    /// CPU resource of that side (the sending core, the VM's sending vCPU,
    /// compression on the host's cores) / that resource's capacity.
    pub send_core_s: f64,
    /// The same on the receiving side (receiving core and vCPU, decompression).
    pub receive_core_s: f64,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// One per connection: the given ones, then those a driver opened.
    pub connections: Vec<ConnectionReport>,
    pub end_time: Seconds,
    pub events: u64,
    /// `series[r]`: the use of resource `r` over time, as change points
    /// from 0 to `end_time` (see `hvnet_engine::record`), when recorded: one
    /// per resource of the engine, the network's then any a driver added.
    pub series: Option<Vec<ChangePoints>>,
}

/// What drives a run from above: the run calls it at its start, on its own
/// timers, at each completion and after every event.
pub trait Driver {
    /// Its timers' payload.
    type Timer: Copy;

    /// Adds its own resources, after the network's and before the run
    /// starts recording.
    fn add_resources(&mut self, _network: &Network, _resources: &mut Resources<'_>) {}

    /// Starts: the network's own timers are scheduled, no event has happened.
    fn begin(&mut self, _run: &mut Run<'_, Self::Timer>) {}

    /// One of its timers fired.
    fn timer(&mut self, run: &mut Run<'_, Self::Timer>, timer: Self::Timer);

    /// Connection `k` completed (it is no longer running).
    fn completed(&mut self, _run: &mut Run<'_, Self::Timer>, _k: usize) {}

    /// After every event the run handled.
    fn after_event(&mut self, _run: &mut Run<'_, Self::Timer>) {}

    /// Whether it has work under way or waiting: the network keeps its
    /// periodic ticks while it does.
    fn busy(&self) -> bool {
        false
    }
}

/// No driver: a run of the network's connections alone.
impl Driver for () {
    type Timer = std::convert::Infallible;

    fn timer(&mut self, _run: &mut Run<'_, Self::Timer>, timer: Self::Timer) {
        match timer {}
    }
}

/// Adds resources to the engine before the run starts.
pub struct Resources<'s> {
    sim: &'s mut Simulation,
}

impl Resources<'_> {
    pub fn add(&mut self, capacity: Rate, sharing: Sharing) -> ResourceId {
        self.sim.add_resource(capacity, sharing)
    }
}

/// Every kind of timer of a run.
#[derive(Clone, Copy, Debug)]
pub enum Timer<T> {
    /// The connections of start group `g` start.
    Start(usize),
    /// Change `i` happens.
    Change(usize),
    /// LACP's timeout for a NIC that went silent.
    Lacp(u32),
    /// Dynamic teams' rebalancing tick.
    Rebalance,
    /// Dynamic VMQ's tick.
    QueueTick,
    /// The sender of connection `k` stops.
    Stop(usize),
    /// The fabric's routes change (some paths' next [`crate::Routes`]).
    Routing,
    /// Step `j` of measured load `i` ([`crate::load`]).
    Load(usize, usize),
    /// The driver's own.
    Driver(T),
}

/// A running connection.
struct Running {
    activity: ActivityId,
    out_nic: Option<u32>,
    in_nic: Option<u32>,
    blackholed_since: Option<Seconds>,
    /// Its route: the epoch of its path's routing and its place among that
    /// epoch's equal-cost routes.
    route: (usize, usize),
    /// Its work left when its current route was set, and the core-seconds
    /// per byte of work on each side on that route.
    segment_from: f64,
    send_core_s_per_byte: f64,
    receive_core_s_per_byte: f64,
    /// The factor its receive cycles per byte were given, and the shared
    /// core and NIC it is received on by RSS, if it is ([`sharing`]).
    receive_factor: f64,
    shared_on: Option<(ResourceId, u32)>,
}

/// A run under way: the engine, and where every connection is.
pub struct Run<'a, T> {
    network: &'a Network,
    sim: Simulation,
    /// Every connection so far: the given ones, then those a driver opened.
    connections: Vec<Connection>,
    changes: &'a [(Seconds, Change)],
    starts: Vec<(Seconds, Vec<usize>)>,
    resource_up: Vec<bool>,
    /// How many of `resource_up` are false (none, in most runs: then no
    /// path needs looking at to know it is up).
    resources_down: usize,
    link_up: Vec<bool>,
    /// LACP's view: false once LACPDUs have stopped for `lacp_timeout`.
    lacpdu_ok: Vec<bool>,
    /// Since when each NIC's cable has forwarded nothing (for LACP's timeout).
    silent_since: Vec<Option<Seconds>>,
    carriers: Vec<Vec<u32>>,
    running: running::Slots<Running>,
    /// The connection of each engine activity that is one, by activity id.
    of_activity: running::Slots<usize>,
    reports: Vec<ConnectionReport>,
    /// The next rebalancing tick, when one is scheduled.
    tick: Option<TimerId>,
    /// Where each dynamic VM queue is now (the run's, not the network's).
    queues: Queues,
    /// The cores that two or more NICs' RSS sets hold (`lifecycle::rss_sharers`).
    rss_sharers: HashSet<ResourceId>,
    /// How many connections each NIC receives by RSS on each of those cores
    /// now, and the (core, NIC) pairs that appeared or went since the last
    /// event ([`sharing`]).
    receivers: sharing::Receivers,
    receivers_changed: Vec<(ResourceId, u32)>,
    /// The typed timers; an engine timer's tag is its position here.
    timers: Vec<Timer<T>>,
    events: u64,
    /// The background activity of each measured load, while it asks for more than 0.
    loads: Vec<Option<ActivityId>>,
}

impl<'a, T: Copy> Run<'a, T> {
    fn schedule_timer(&mut self, at: Seconds, timer: Timer<T>) -> TimerId {
        let tag = self.timers.len() as u64;
        self.timers.push(timer);
        self.sim.schedule(at, tag)
    }

    /// The time now.
    pub fn now(&self) -> Seconds {
        self.sim.now()
    }

    pub fn network(&self) -> &'a Network {
        self.network
    }

    /// Connection `k` (the given ones, then those a driver opened).
    pub fn connection(&self, k: usize) -> &Connection {
        &self.connections[k]
    }

    /// What connection `k` has reported so far.
    pub fn report(&self, k: usize) -> &ConnectionReport {
        &self.reports[k]
    }

    /// Opens `connections` now, in order, placed by the rules (or bound to
    /// their NIC pair), and resumes dynamic teams' rebalancing ticks if they
    /// had stopped; returns their indices.
    pub fn open(&mut self, connections: impl IntoIterator<Item = Connection>) -> Vec<usize> {
        let mut opened = Vec::new();
        for mut c in connections {
            c.start = self.sim.now();
            let k = self.connections.len();
            self.connections.push(c);
            self.reports.push(ConnectionReport::default());
            self.start(k);
            opened.push(k);
        }
        self.keep_rebalancing();
        opened
    }

    /// Ends connection `k` now if it is running: it reports what it moved.
    /// The time it was black-holed until now is not added (a driver closes
    /// the rest of a group that has done its work), and the periodic ticks
    /// go on (the driver is still busy).
    pub fn close(&mut self, k: usize) {
        self.end(k);
    }

    /// Moves running connection `k` to another NIC pair (`None`: no NIC on
    /// that side, it stalls).
    pub fn reroute(&mut self, k: usize, out_nic: Option<u32>, in_nic: Option<u32>) {
        self.move_to(k, out_nic, in_nic);
    }

    /// Bytes running connection `k` has moved; `None` if it is not running.
    pub fn moved(&self, k: usize) -> Option<f64> {
        let r = self.running.get(k)?;
        Some(self.connections[k].amount - self.sim.remaining(r.activity))
    }

    /// The rate of running connection `k` now; `None` if it is not running.
    pub fn rate(&mut self, k: usize) -> Option<Rate> {
        let activity = self.running.get(k)?.activity;
        Some(self.sim.rate(activity))
    }

    /// Schedules one of the driver's timers.
    pub fn schedule(&mut self, at: Seconds, timer: T) -> TimerId {
        self.schedule_timer(at, Timer::Driver(timer))
    }

    pub fn cancel_timer(&mut self, timer: TimerId) {
        self.sim.cancel_timer(timer);
    }

    /// Starts work that is not a connection (a guest's own CPU load).
    pub fn start_background(&mut self, spec: &ActivitySpec) -> ActivityId {
        self.sim.start(spec)
    }

    /// Changes the bound of background work.
    pub fn set_background_bound(&mut self, activity: ActivityId, bound: Option<Rate>) {
        self.sim.set_bound(activity, bound);
    }

    /// Ends background work.
    pub fn cancel_background(&mut self, activity: ActivityId) {
        self.sim.cancel(activity);
    }
}
