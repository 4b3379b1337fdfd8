//! Connections on a network of NICs and teams, run on the engine, with
//! failures, failover and rebalancing.
//!
//! Each connection is one engine activity on the path from the member it
//! leaves by to the member it arrives on (see [`crate::team`]). The run
//! reacts to three kinds of events:
//!
//! - **a change**: a resource goes down or comes back (capacity 0 or its
//!   own), or a NIC's link goes down or up. A team sees link state at once
//!   in every mode; a member that is up but forwards nothing (its cable is
//!   dead while its link is up) is seen only by LACP, after `lacp_timeout`
//!   (LACPDUs stop arriving), and never by switch-independent or static
//!   teams. When the carriers of a team change, every connection whose
//!   member is no longer the one the rules pick moves to it.
//! - **a rebalancing tick** of dynamic teams (every `rebalance_interval`):
//!   the team's outbound connections are spread again over its carriers,
//!   largest rate first onto the least-loaded carrier;
//! - **a tick of dynamic VMQ** (every `dynamic_vmq.interval`): a VM queue
//!   on a busy core moves to a less loaded one (see [`vmq`]);
//! - **a completion**.
//!
//! A connection is *black-holed* while its path holds a resource that is
//! down: it moves no data until failover or repair. The run reports, per
//! connection, when it ended, every member it used, and how long it was
//! black-holed.
//!
//! A VM's end of a connection also costs its guest's stack cycles on one of
//! the VM's virtual processors (resources of their own, like cores).
//!
//! The guests' own CPU load runs on the hosts' cores beside the connections
//! and on the VMs' virtual processors (see [`guests`]): it follows the VMs'
//! migrations, takes its share of the cores, never keeps the run going, and
//! is left out of the recorded series.

use std::collections::HashMap;
use std::net::IpAddr;

use hvnet_engine::{
    ActivityId, ActivitySpec, Event, Rate, ResourceId, Seconds, Sharing, Simulation, TimerId,
};

use crate::cores::Cores;

mod guests;
mod migrate;
mod vmq;
use crate::team::{AddressHash, Flow, LoadBalancing, Team, TeamingMode};
pub use guests::Guest;
use guests::Guests;
use migrate::Migrations;
pub use migrate::{Channel, Compression, Migration, MigrationReport};
pub use vmq::DynamicVmq;
use vmq::{Queues, QUEUE_TICK};

/// A NIC's cable, as engine resources.
#[derive(Clone, Copy, Debug)]
pub struct Nic {
    pub send: ResourceId,
    pub receive: ResourceId,
}

/// What carries an endpoint's traffic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Uplink {
    Nic(u32),
    Team(u32),
}

/// A host or VM that sends or receives.
#[derive(Clone, Debug)]
pub struct Endpoint {
    pub uplink: Uplink,
    /// Its port on the vSwitch (Hyper-V port affinity).
    pub port: u32,
    pub address: IpAddr,
    pub mac: [u8; 6],
    /// The cores that send its connections' data.
    pub send_cores: Cores,
    /// The cores that receive its connections' data.
    pub receive_cores: Cores,
    /// All the cores of its host (compression spreads over them).
    pub host_cores: Vec<ResourceId>,
    /// The cores dynamic VMQ may move its queue among (its receive cores
    /// must then be one `Queue`); empty: its cores stay as they are.
    pub queue_cores: Vec<ResourceId>,
    /// A VM's virtual processors on which its own network stack sends and
    /// receives its connections' data; `Cores::None` for a host.
    pub guest_send_cores: Cores,
    pub guest_receive_cores: Cores,
}

/// What a connection between two NICs uses per byte of payload.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Path {
    /// `(resource, coefficient)`: the links (coefficient above 1 for frame
    /// and header overhead) and backplanes on the way.
    pub links: Vec<(ResourceId, f64)>,
    /// CPU cycles per payload byte on the sending and the receiving core.
    pub send_cycles_per_byte: f64,
    pub receive_cycles_per_byte: f64,
    /// Cycles per payload byte on the sending and the receiving VM's
    /// virtual processor (its guest's stack), where an end is a VM.
    pub guest_send_cycles_per_byte: f64,
    pub guest_receive_cycles_per_byte: f64,
}

/// One connection between two endpoints.
#[derive(Clone, Copy, Debug)]
pub struct Connection {
    pub source: u32,
    pub target: u32,
    /// TCP/UDP ports; `None` for other traffic.
    pub ports: Option<(u16, u16)>,
    pub amount: f64,
    pub start: Seconds,
    /// When the sender stops (a test that runs for a set time, like
    /// ntttcp's `-t`); `None` to send until `amount` is done.
    pub stop: Option<Seconds>,
    /// The NIC pair it is bound to (an SMB channel), instead of the one the
    /// team rules give; `None`: the rules decide.
    pub pinned: Option<(u32, u32)>,
    /// Cycles per byte on its sending and receiving cores, instead of its
    /// path's (RDMA moves data with next to no CPU); `None`: the path's.
    pub cycles: Option<(f64, f64)>,
    /// Compression on the way: `(wire bytes per byte, compress cycles per
    /// byte, decompress cycles per byte)`; the (de)compression is spread over
    /// all the sending and receiving host's cores. `None`: no compression.
    pub compression: Option<(f64, f64, f64)>,
    /// Its weight in the max-min share (below 1: it yields to the rest, as
    /// compression uses only otherwise idle CPU).
    pub weight: f64,
    /// A resource it also passes through, one unit per byte (a host's SMB
    /// bandwidth limit for live migration); `None`: none.
    pub through: Option<ResourceId>,
}

/// Something that goes down or comes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// A resource loses (`up: false`) or regains its capacity.
    Resource { resource: ResourceId, up: bool },
    /// A NIC's link state.
    Link { nic: u32, up: bool },
}

/// The network and its parameters.
#[derive(Clone, Debug, Default)]
pub struct Network {
    /// `(capacity, sharing)` of each resource; ids are positions.
    pub resources: Vec<(Rate, Sharing)>,
    pub nics: Vec<Nic>,
    pub teams: Vec<Team>,
    pub endpoints: Vec<Endpoint>,
    /// From NIC `a` (leaving by it) to NIC `b` (arriving on it).
    pub paths: HashMap<(u32, u32), Path>,
    /// How long an LACP team takes to see a member that forwards nothing.
    pub lacp_timeout: Seconds,
    /// Period of dynamic teams' rebalancing; `None` for none.
    pub rebalance_interval: Option<Seconds>,
    /// Dynamic VMQ's parameters; `None`: every queue stays on its core.
    pub dynamic_vmq: Option<DynamicVmq>,
}

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
    /// When its path went down for good: it never completed because of it.
    pub stalled_since: Option<Seconds>,
    /// Bytes it moved: its amount when it completed, less when it was
    /// stopped or never completed.
    pub sent: f64,
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// One per connection: the given ones, then those migrations opened.
    pub connections: Vec<ConnectionReport>,
    pub migrations: Vec<MigrationReport>,
    pub end_time: Seconds,
    pub events: u64,
    /// `series[r][k]`: mean use of resource `r` in bin `k`, when recorded;
    /// the guests' own work is not in it (only the connections').
    pub series: Option<Vec<Vec<f64>>>,
}

const START: u64 = 0;
const CHANGE: u64 = 1 << 60;
const LACP: u64 = 2 << 60;
/// A rebalancing tick: of dynamic teams, or of dynamic VMQ (`REBALANCE | 1`).
const REBALANCE: u64 = 3 << 60;
const STOP: u64 = 4 << 60;
pub(crate) const MIGRATE: u64 = 5 << 60;
const WAIT: u64 = 6 << 60;
const STEP_CHECK: u64 = 7 << 60;
const KIND: u64 = 7 << 60;

pub(crate) struct Running {
    activity: ActivityId,
    out_nic: Option<u32>,
    in_nic: Option<u32>,
    blackholed_since: Option<Seconds>,
}

pub(crate) struct State<'a> {
    network: &'a Network,
    /// Every connection so far: the given ones, then those migrations opened.
    connections: Vec<Connection>,
    changes: &'a [(Seconds, Change)],
    starts: Vec<(Seconds, Vec<usize>)>,
    resource_up: Vec<bool>,
    link_up: Vec<bool>,
    /// LACP's view: false once LACPDUs have stopped for `lacp_timeout`.
    lacpdu_ok: Vec<bool>,
    /// Since when each NIC's cable has forwarded nothing (for LACP's timeout).
    silent_since: Vec<Option<Seconds>>,
    carriers: Vec<Vec<u32>>,
    running: HashMap<usize, Running>,
    of_activity: HashMap<ActivityId, usize>,
    reports: Vec<ConnectionReport>,
    /// The next rebalancing tick, when one is scheduled.
    tick: Option<TimerId>,
    migrations: Migrations,
    guests: Guests,
    /// Where each dynamic VM queue is now (the run's, not the network's).
    queues: Queues,
}

impl Network {
    fn nic_works_for(&self, team: &Team, nic: u32, link_up: &[bool], lacpdu_ok: &[bool]) -> bool {
        link_up[nic as usize] && (team.mode != TeamingMode::Lacp || lacpdu_ok[nic as usize])
    }

    fn cable_dead(&self, nic: u32, resource_up: &[bool]) -> bool {
        let n = self.nics[nic as usize];
        !resource_up[n.send] || !resource_up[n.receive]
    }
}

impl State<'_> {
    fn flow(&self, c: &Connection) -> Flow {
        let (s, t) = (
            &self.network.endpoints[c.source as usize],
            &self.network.endpoints[c.target as usize],
        );
        Flow {
            source: s.address,
            target: t.address,
            ports: c.ports,
            source_mac: s.mac,
            target_mac: t.mac,
        }
    }

    fn update_carriers(&mut self) {
        let net = self.network;
        self.carriers = net
            .teams
            .iter()
            .map(|team| {
                team.carriers(|m| net.nic_works_for(team, m, &self.link_up, &self.lacpdu_ok))
            })
            .collect();
    }

    /// The NICs the rules give a connection now.
    fn members(&self, c: &Connection) -> (Option<u32>, Option<u32>) {
        if let Some((out_nic, in_nic)) = c.pinned {
            return (Some(out_nic), Some(in_nic));
        }
        let flow = self.flow(c);
        let source = &self.network.endpoints[c.source as usize];
        let target = &self.network.endpoints[c.target as usize];
        let out_nic = match source.uplink {
            Uplink::Nic(n) => Some(n),
            Uplink::Team(t) => self.network.teams[t as usize].outbound(
                &flow,
                source.port,
                &self.carriers[t as usize],
            ),
        };
        let in_nic = match target.uplink {
            Uplink::Nic(n) => Some(n),
            Uplink::Team(t) => self.network.teams[t as usize].inbound(
                &flow,
                target.port,
                &self.carriers[t as usize],
            ),
        };
        (out_nic, in_nic)
    }

    /// The engine usage of connection `k` between two NICs: the links of
    /// the path, and the cycles of the cores that send and receive it. With
    /// no member on either side, it uses the dead NIC's own cable so that it
    /// stalls.
    fn usage(&self, k: usize, out_nic: Option<u32>, in_nic: Option<u32>) -> Vec<(ResourceId, f64)> {
        let c = &self.connections[k];
        let fallback = self.fallback(c);
        let pair = (out_nic.unwrap_or(fallback.0), in_nic.unwrap_or(fallback.1));
        let path = self
            .network
            .paths
            .get(&pair)
            .unwrap_or_else(|| panic!("no path from NIC {} to NIC {}", pair.0, pair.1));
        let hash = self.flow(c).team_hash(AddressHash::TransportPorts);
        let (source, target) = (
            &self.network.endpoints[c.source as usize],
            &self.network.endpoints[c.target as usize],
        );
        let (send, receive) = self.cycles_per_byte(c, out_nic, in_nic);
        // Compressed, each byte of work puts `wire` bytes on the links and the stack.
        let wire = c.compression.map_or(1.0, |(wire, _, _)| wire);
        let mut usage: Vec<(ResourceId, f64)> =
            path.links.iter().map(|&(r, a)| (r, a * wire)).collect();
        if let Some(core) = self.send_core(c.source, hash) {
            usage.push((core, send));
        }
        if let Some(core) = self.receive_core(c.target, hash) {
            usage.push((core, receive));
        }
        // A VM's own stack works on one of its virtual processors.
        for (vcpus, cycles) in [
            (&source.guest_send_cores, path.guest_send_cycles_per_byte),
            (
                &target.guest_receive_cores,
                path.guest_receive_cycles_per_byte,
            ),
        ] {
            usage.extend(vcpus.core(hash).map(|vcpu| (vcpu, cycles * wire)));
        }
        if let Some((_, compress, decompress)) = c.compression {
            for (cores, cycles) in [
                (&source.host_cores, compress),
                (&target.host_cores, decompress),
            ] {
                let n = cores.len().max(1) as f64;
                usage.extend(cores.iter().map(|&core| (core, cycles / n)));
            }
        }
        usage.extend(c.through.map(|r| (r, 1.0)));
        usage
    }

    /// Cycles per byte of work that connection `c` puts on its sending and
    /// its receiving core between two NICs (compressed: per wire byte of it).
    fn cycles_per_byte(
        &self,
        c: &Connection,
        out_nic: Option<u32>,
        in_nic: Option<u32>,
    ) -> (f64, f64) {
        let fallback = self.fallback(c);
        let pair = (out_nic.unwrap_or(fallback.0), in_nic.unwrap_or(fallback.1));
        let (send, receive) = match (c.cycles, self.network.paths.get(&pair)) {
            (Some(cycles), _) => cycles,
            (None, Some(path)) => (path.send_cycles_per_byte, path.receive_cycles_per_byte),
            (None, None) => (0.0, 0.0),
        };
        let wire = c.compression.map_or(1.0, |(wire, _, _)| wire);
        (send * wire, receive * wire)
    }

    fn fallback(&self, c: &Connection) -> (u32, u32) {
        let first = |e: u32| match self.network.endpoints[e as usize].uplink {
            Uplink::Nic(n) => n,
            Uplink::Team(t) => self.network.teams[t as usize].members[0],
        };
        (first(c.source), first(c.target))
    }

    fn start(&mut self, sim: &mut Simulation, k: usize) {
        let c = self.connections[k];
        let (out_nic, in_nic) = self.members(&c);
        let usage = self.usage(k, out_nic, in_nic);
        let activity = sim.start(&ActivitySpec {
            weight: c.weight,
            ..ActivitySpec::new(c.amount, usage)
        });
        self.reports[k].members.push((sim.now(), out_nic, in_nic));
        self.of_activity.insert(activity, k);
        self.running.insert(
            k,
            Running {
                activity,
                out_nic,
                in_nic,
                blackholed_since: None,
            },
        );
        self.update_blackhole(sim.now(), k);
    }

    /// Moves every running connection to the members the rules give it now.
    fn follow_rules(&mut self, sim: &mut Simulation) {
        let mut keys: Vec<usize> = self.running.keys().copied().collect();
        keys.sort_unstable();
        for k in keys {
            let c = self.connections[k];
            let members = self.members(&c);
            let r = &self.running[&k];
            let (out_nic, in_nic) = match self.network.endpoints[c.source as usize].uplink {
                // Dynamic teams keep the member rebalancing gave, while it carries.
                Uplink::Team(t)
                    if c.pinned.is_none()
                        && self.network.teams[t as usize].balancing == LoadBalancing::Dynamic
                        && r.out_nic
                            .is_some_and(|n| self.carriers[t as usize].contains(&n)) =>
                {
                    (r.out_nic, members.1)
                }
                _ => members,
            };
            self.move_to(sim, k, out_nic, in_nic);
        }
    }

    fn move_to(
        &mut self,
        sim: &mut Simulation,
        k: usize,
        out_nic: Option<u32>,
        in_nic: Option<u32>,
    ) {
        let r = &self.running[&k];
        if (r.out_nic, r.in_nic) == (out_nic, in_nic) {
            return;
        }
        let usage = self.usage(k, out_nic, in_nic);
        sim.reroute(r.activity, usage);
        let r = self.running.get_mut(&k).expect("running");
        r.out_nic = out_nic;
        r.in_nic = in_nic;
        self.reports[k].members.push((sim.now(), out_nic, in_nic));
        self.update_blackhole(sim.now(), k);
    }

    fn path_down(&self, k: usize) -> bool {
        let r = &self.running[&k];
        let path = self.network.paths.get(&(
            r.out_nic.unwrap_or(self.fallback(&self.connections[k]).0),
            r.in_nic.unwrap_or(self.fallback(&self.connections[k]).1),
        ));
        r.out_nic.is_none()
            || r.in_nic.is_none()
            || path.is_some_and(|p| p.links.iter().any(|&(res, _)| !self.resource_up[res]))
    }

    fn update_blackhole(&mut self, now: Seconds, k: usize) {
        let down = self.path_down(k);
        let r = self.running.get_mut(&k).expect("running");
        match (r.blackholed_since, down) {
            (None, true) => r.blackholed_since = Some(now),
            (Some(since), false) => {
                self.reports[k].blackholed += now - since;
                r.blackholed_since = None;
            }
            _ => {}
        }
    }

    fn apply(&mut self, sim: &mut Simulation, change: Change) {
        match change {
            Change::Resource { resource, up } => {
                self.resource_up[resource] = up;
                sim.set_capacity(
                    resource,
                    if up {
                        self.network.resources[resource].0
                    } else {
                        0.0
                    },
                );
            }
            Change::Link { nic, up } => self.link_up[nic as usize] = up,
        }
        // LACP: a member whose cable forwards nothing while its link is up
        // is seen after the LACPDU timeout; a working cable is seen at once.
        // A timer per silence: it only counts if the cable has stayed dead
        // since, so a repair in between resets the count.
        for team in &self.network.teams {
            if team.mode != TeamingMode::Lacp {
                continue;
            }
            for &m in &team.members {
                let m = m as usize;
                if !self.network.cable_dead(m as u32, &self.resource_up) {
                    self.lacpdu_ok[m] = true;
                    self.silent_since[m] = None;
                } else if self.link_up[m] && self.lacpdu_ok[m] && self.silent_since[m].is_none() {
                    self.silent_since[m] = Some(sim.now());
                    sim.schedule(sim.now() + self.network.lacp_timeout, LACP | m as u64);
                }
            }
        }
        self.update_carriers();
        self.follow_rules(sim);
        let keys: Vec<usize> = self.running.keys().copied().collect();
        for k in keys {
            self.update_blackhole(sim.now(), k);
        }
    }

    fn lacp_timeout(&mut self, sim: &mut Simulation, nic: u32) {
        let n = nic as usize;
        let timeout = self.network.lacp_timeout;
        let silent_long_enough =
            self.silent_since[n].is_some_and(|since| sim.now() - since >= timeout - 1e-9);
        if self.link_up[n] && silent_long_enough {
            self.lacpdu_ok[n] = false;
            self.update_carriers();
            self.follow_rules(sim);
        }
    }

    /// Spreads each dynamic team's outbound connections again: largest rate
    /// first, each onto the carrier with the least outbound rate so far
    /// (connections bound to a NIC pair stay where they are).
    fn rebalance(&mut self, sim: &mut Simulation) {
        self.tick = None;
        let net = self.network;
        for (t, team) in net.teams.iter().enumerate() {
            if team.balancing != LoadBalancing::Dynamic || self.carriers[t].is_empty() {
                continue;
            }
            let mut leaving: Vec<(f64, usize)> = self
                .running
                .iter()
                .filter(|(&k, _)| {
                    let c = &self.connections[k];
                    c.pinned.is_none()
                        && self.network.endpoints[c.source as usize].uplink
                            == Uplink::Team(t as u32)
                })
                .map(|(&k, r)| (sim.rate(r.activity), k))
                .collect();
            leaving.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut load: Vec<(f64, u32)> = self.carriers[t].iter().map(|&m| (0.0, m)).collect();
            for (rate, k) in leaving {
                let least = load
                    .iter_mut()
                    .min_by(|a, b| a.0.total_cmp(&b.0))
                    .expect("a carrier");
                least.0 += rate;
                let (member, in_nic) = (least.1, self.running[&k].in_nic);
                self.move_to(sim, k, Some(member), in_nic);
            }
        }
        self.keep_rebalancing(sim);
    }

    /// Schedules the next rebalancing tick while a dynamic team has a
    /// connection that moves data (a stalled run must be able to end).
    fn keep_rebalancing(&mut self, sim: &mut Simulation) {
        let Some(interval) = self.network.rebalance_interval else {
            return;
        };
        if self.tick.is_some()
            || !self
                .network
                .teams
                .iter()
                .any(|t| t.balancing == LoadBalancing::Dynamic)
        {
            return;
        }
        if self.running.values().any(|r| sim.rate(r.activity) > 0.0) {
            self.tick = Some(sim.schedule(sim.now() + interval, REBALANCE));
        }
    }

    /// No tick outlives the last connection: the run ends with its last real event.
    fn stop_rebalancing_when_idle(&mut self, sim: &mut Simulation) {
        if self.running.is_empty() && !self.migrations.busy() {
            if let Some(tick) = self.tick.take() {
                sim.cancel_timer(tick);
            }
            self.stop_balancing_queues(sim);
        }
    }

    /// The sender of connection `k` stops: what it moved so far is what it sent.
    fn stop(&mut self, sim: &mut Simulation, k: usize) {
        let Some(r) = self.running.remove(&k) else {
            return;
        };
        self.of_activity.remove(&r.activity);
        self.reports[k].sent = self.connections[k].amount - sim.remaining(r.activity);
        sim.cancel(r.activity);
        if let Some(since) = r.blackholed_since {
            self.reports[k].blackholed += sim.now() - since;
        }
        self.reports[k].end = Some(sim.now());
        self.stop_rebalancing_when_idle(sim);
    }

    fn handle(&mut self, sim: &mut Simulation, event: Event) {
        match event {
            Event::Completed(a) => {
                // A migration step that ended stops its other connections; one of
                // them may have completed at the same instant, its event still queued.
                let Some(k) = self.of_activity.remove(&a) else {
                    return;
                };
                self.update_blackhole(sim.now(), k);
                self.running.remove(&k);
                self.reports[k].end = Some(sim.now());
                self.reports[k].sent = self.connections[k].amount;
                if let Some(i) = self.migrations.owner.remove(&k) {
                    self.migration_connection_completed(sim, i);
                }
                self.stop_rebalancing_when_idle(sim);
            }
            Event::Timer(_, tag) => match tag & KIND {
                START => {
                    for k in self.starts[tag as usize].1.clone() {
                        self.start(sim, k);
                    }
                    self.keep_rebalancing(sim);
                    self.keep_balancing_queues(sim);
                }
                CHANGE => {
                    let (_, change) = self.changes[(tag & !KIND) as usize];
                    self.apply(sim, change);
                    self.keep_rebalancing(sim);
                    self.keep_balancing_queues(sim);
                }
                LACP => self.lacp_timeout(sim, (tag & 0xffff_ffff) as u32),
                STOP => self.stop(sim, (tag & !KIND) as usize),
                MIGRATE => self.migration_arrives(sim, (tag & !KIND) as usize),
                WAIT => self.wait_ended(sim, (tag & !KIND) as usize),
                STEP_CHECK => {}
                _ if tag == QUEUE_TICK => self.balance_queues(sim),
                _ => self.rebalance(sim),
            },
        }
        self.after_event(sim);
    }
}

impl Network {
    /// Runs `connections` with `changes` (sorted or not) until nothing can
    /// progress; records resource use over bins of `record_step` seconds.
    pub fn run(
        &self,
        connections: &[Connection],
        changes: &[(Seconds, Change)],
        record_step: Option<Seconds>,
    ) -> RunReport {
        self.run_with_migrations(connections, changes, &[], &[], record_step)
    }

    /// Like [`Network::run`], with live migrations: each arrives at its time,
    /// waits in its source host's queue, and moves its memory pass by pass;
    /// and with the guests' own CPU load on their hosts' cores, which moves
    /// with a VM's migration when it ends ([`Migration::guest`]).
    pub fn run_with_migrations(
        &self,
        connections: &[Connection],
        changes: &[(Seconds, Change)],
        migrations: &[Migration],
        guests: &[Guest],
        record_step: Option<Seconds>,
    ) -> RunReport {
        let mut sim = Simulation::new();
        for &(capacity, sharing) in &self.resources {
            sim.add_resource(capacity, sharing);
        }
        let guest_hosts = guests.iter().map(|g| g.host).chain(
            migrations
                .iter()
                .filter(|m| m.guest.is_some())
                .map(|m| m.target),
        );
        let guests = Guests::new(guests, guest_hosts, self, &mut sim);
        if let Some(step) = record_step {
            sim.record(step);
        }
        let mut starts: Vec<(Seconds, Vec<usize>)> = Vec::new();
        let mut order: Vec<usize> = (0..connections.len()).collect();
        order.sort_by(|&a, &b| connections[a].start.total_cmp(&connections[b].start));
        for k in order {
            match starts.last_mut() {
                Some((t, ks)) if *t == connections[k].start => ks.push(k),
                _ => starts.push((connections[k].start, vec![k])),
            }
        }
        for (g, (t, _)) in starts.iter().enumerate() {
            sim.schedule(*t, START | g as u64);
        }
        for (i, (at, _)) in changes.iter().enumerate() {
            sim.schedule(*at, CHANGE | i as u64);
        }
        for (k, c) in connections.iter().enumerate() {
            if let Some(stop) = c.stop {
                sim.schedule(stop.max(c.start), STOP | k as u64);
            }
        }
        let migrations = Migrations::new(migrations);
        for (i, at) in migrations.arrivals() {
            sim.schedule(at, MIGRATE | i as u64);
        }
        let mut state = State {
            network: self,
            connections: connections.to_vec(),
            changes,
            starts,
            resource_up: vec![true; self.resources.len()],
            link_up: vec![true; self.nics.len()],
            lacpdu_ok: vec![true; self.nics.len()],
            silent_since: vec![None; self.nics.len()],
            carriers: Vec::new(),
            running: HashMap::new(),
            of_activity: HashMap::new(),
            reports: vec![ConnectionReport::default(); connections.len()],
            tick: None,
            migrations,
            guests,
            queues: Queues::new(self),
        };
        state.update_carriers();
        state.guests.place(&mut sim, self);
        let mut events = 0u64;
        sim.run(|sim, event| {
            events += 1;
            state.handle(sim, event);
        });
        let end_time = sim.now();
        let mut keys: Vec<usize> = state.running.keys().copied().collect();
        keys.sort_unstable();
        for k in keys {
            let running = &state.running[&k];
            state.reports[k].sent = state.connections[k].amount - sim.remaining(running.activity);
            if let Some(since) = running.blackholed_since {
                state.reports[k].blackholed += end_time - since;
                state.reports[k].stalled_since = Some(since);
            }
        }
        let series = sim.recorder().map(|rec| {
            let all = (0..sim.resource_count())
                .map(|r| rec.series(r).to_vec())
                .collect();
            state.guests.network_work(all, self.resources.len())
        });
        RunReport {
            connections: state.reports,
            migrations: state.migrations.into_reports(),
            end_time,
            events,
            series,
        }
    }
}
