//! What a run is given: the network (resources, NICs, teams, endpoints,
//! paths and parameters), its connections and its changes, by index, and
//! their validation.
//!
//! - here: the specs' types, and the queries a run makes of a [`Network`];
//! - `checks`: [`check`] refuses what the run cannot run (an index out of
//!   range, a number that is not finite, a connection with no path), each
//!   with a message that says which part is wrong. A run of specs that
//!   passed [`check`] does not panic;
//! - `names`: names given as text (a teaming mode, a kind of cores, an
//!   address, a change) become types through `FromStr` and constructors
//!   ([`parse_address`], [`uplink`]), with the same messages.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;

use hvnet_engine::{Rate, ResourceId, Seconds, Sharing};

use crate::cores::Cores;
use crate::load::Load;
use crate::team::Team;

mod checks;
mod names;

pub use checks::check;
pub use names::{parse_address, uplink};

/// Why a spec cannot be run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

fn bad<T>(message: String) -> Result<T, SpecError> {
    Err(SpecError(message))
}

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

impl Endpoint {
    /// An endpoint whose cores are not modelled: its connections cost no CPU.
    pub fn new(uplink: Uplink, port: u32, address: IpAddr, mac: [u8; 6]) -> Self {
        Endpoint {
            uplink,
            port,
            address,
            mac,
            send_cores: Cores::None,
            receive_cores: Cores::None,
            host_cores: vec![],
            queue_cores: vec![],
            guest_send_cores: Cores::None,
            guest_receive_cores: Cores::None,
        }
    }
}

/// One way through the fabric between two NICs: `(resource, coefficient)`
/// of each link (coefficient above 1 for frame and header overhead) and
/// backplane on the way.
pub type Route = Vec<(ResourceId, f64)>;

/// The equal-cost routes between two NICs from a time on.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Routes {
    /// When they come into force.
    pub from: Seconds,
    /// At least one. A connection takes route `Flow::ecmp_hash mod n`
    /// (ECMP); a route with a resource that is down black-holes it.
    pub ecmp: Vec<Route>,
}

/// What a connection between two NICs uses per byte of payload.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Path {
    /// The routes in force from each time on: the first from 0, then one
    /// each time the fabric's routing converges on a change (the caller
    /// computes when, and which routes remain).
    pub routing: Vec<Routes>,
    /// CPU cycles per payload byte on the sending and the receiving core.
    pub send_cycles_per_byte: f64,
    pub receive_cycles_per_byte: f64,
    /// Cycles per payload byte on the sending and the receiving VM's
    /// virtual processor (its guest's stack), where an end is a VM.
    pub guest_send_cycles_per_byte: f64,
    pub guest_receive_cycles_per_byte: f64,
}

impl Path {
    /// A path of one route at all times, costing no CPU.
    pub fn of_links(links: Route) -> Self {
        Path {
            routing: vec![Routes {
                from: 0.0,
                ecmp: vec![links],
            }],
            ..Path::default()
        }
    }

    /// Which of `routing` is in force at `t`.
    pub fn epoch_at(&self, t: Seconds) -> usize {
        self.routing
            .partition_point(|r| r.from <= t)
            .saturating_sub(1)
    }

    /// The route a flow of ECMP hash `hash` takes in epoch `epoch`, and its
    /// place among that epoch's routes; `None` for a path given no routes
    /// (`check` refuses one).
    pub fn route(&self, epoch: usize, hash: u32) -> Option<(usize, &Route)> {
        let ecmp = &self.routing.get(epoch)?.ecmp;
        if ecmp.is_empty() {
            return None;
        }
        let choice = hash as usize % ecmp.len();
        Some((choice, &ecmp[choice]))
    }

    /// The times after 0 at which its routes change.
    pub fn changes(&self) -> impl Iterator<Item = Seconds> + '_ {
        self.routing.iter().map(|r| r.from).filter(|&t| t > 0.0)
    }
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
    /// The largest IP packet its endpoints' own stacks send (the smaller of
    /// two VMs' MTUs, a VM network adapter's own setting): its paths are
    /// then [`Network::paths_by_endpoint_mtu`]'s for that MTU, whose frames
    /// and costs reflect it. `None`: the NICs' [`Network::paths`].
    pub endpoint_mtu: Option<u32>,
    /// The most it sends, in payload bytes per second (a steady flow's
    /// rate): it shares max-min fairly below that, never above. `None`: as
    /// fast as its share allows.
    pub bound: Option<Rate>,
}

impl Connection {
    /// An ordinary connection: placed by the rules, the path's cycles, no
    /// compression, weight 1, through nothing else.
    pub fn new(
        source: u32,
        target: u32,
        ports: Option<(u16, u16)>,
        amount: f64,
        start: Seconds,
        stop: Option<Seconds>,
    ) -> Self {
        Self {
            source,
            target,
            ports,
            amount,
            start,
            stop,
            pinned: None,
            cycles: None,
            compression: None,
            weight: 1.0,
            through: None,
            endpoint_mtu: None,
            bound: None,
        }
    }
}

/// Something that goes down or comes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// A resource loses (`up: false`) or regains its capacity.
    Resource { resource: ResourceId, up: bool },
    /// A NIC's link state.
    Link { nic: u32, up: bool },
}

/// Dynamic VMQ's parameters (see [`crate::run`]'s `vmq`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DynamicVmq {
    /// How often queues are spread again.
    pub interval: Seconds,
    /// Share of its capacity above which a core sheds a queue (0..1].
    pub busy: f64,
}

/// The network and its parameters.
#[derive(Clone, Debug, Default)]
pub struct Network {
    /// `(capacity, sharing)` of each resource; ids are positions.
    pub resources: Vec<(Rate, Sharing)>,
    pub nics: Vec<Nic>,
    /// Each NIC's own RSS cores: a host's traffic that arrives on it is
    /// received there (an LBFO member's RSS settings are its own). Empty, or
    /// `Cores::None` for a NIC: the receiving endpoint's set.
    pub nic_rss: Vec<Cores>,
    pub teams: Vec<Team>,
    pub endpoints: Vec<Endpoint>,
    /// From NIC `a` (leaving by it) to NIC `b` (arriving on it).
    pub paths: HashMap<(u32, u32), Path>,
    /// From NIC `a` to NIC `b` for connections whose endpoints send packets
    /// of at most `mtu` bytes (`Connection::endpoint_mtu`): `(a, b, mtu)`.
    pub paths_by_endpoint_mtu: HashMap<(u32, u32, u32), Path>,
    /// How long an LACP team takes to see a member that forwards nothing.
    pub lacp_timeout: Seconds,
    /// Each NIC's own LACP timeout (an LACP team's timer, fast or slow);
    /// empty, or shorter than the NICs: `lacp_timeout` for the others.
    pub nic_lacp_timeouts: Vec<Seconds>,
    /// Period of dynamic teams' rebalancing; `None` for none.
    pub rebalance_interval: Option<Seconds>,
    /// Dynamic VMQ's parameters; `None`: every queue stays on its core.
    pub dynamic_vmq: Option<DynamicVmq>,
    /// What a core that several NICs' RSS queues use at once costs more: a
    /// host's own connection received by RSS on a core where `m` other NICs
    /// receive now costs `1 + overhead × m` times its cycles per byte there
    /// (see `run::sharing`). 0: sharing a core costs nothing beyond sharing
    /// its capacity.
    pub shared_queue_overhead: f64,
    /// Measured load replayed on resources (a host NIC's counters), as
    /// background work ([`crate::load`]).
    pub loads: Vec<Load>,
}

impl Network {
    /// Fails unless `e` is one of its endpoints.
    pub fn has_endpoint(&self, e: u32) -> bool {
        (e as usize) < self.endpoints.len()
    }

    /// How long LACP takes to see that NIC `nic` forwards nothing.
    pub fn lacp_timeout_of(&self, nic: u32) -> Seconds {
        self.nic_lacp_timeouts
            .get(nic as usize)
            .copied()
            .unwrap_or(self.lacp_timeout)
    }

    /// Whether a path is given from NIC `a` to NIC `b`.
    pub fn has_path(&self, a: u32, b: u32) -> bool {
        self.paths.contains_key(&(a, b))
    }

    /// The path from NIC `a` to NIC `b` of a connection whose endpoints send
    /// packets of at most `endpoint_mtu` bytes (`None`: the NICs' own).
    pub fn path(&self, a: u32, b: u32, endpoint_mtu: Option<u32>) -> Option<&Path> {
        match endpoint_mtu {
            None => self.paths.get(&(a, b)),
            Some(mtu) => self.paths_by_endpoint_mtu.get(&(a, b, mtu)),
        }
    }

    /// The NICs an uplink may send or receive on.
    pub fn candidates(&self, uplink: Uplink) -> Vec<u32> {
        match uplink {
            Uplink::Nic(n) => vec![n],
            Uplink::Team(t) => self.teams[t as usize].members.clone(),
        }
    }

    /// The NIC pairs a connection pinned to `(a, b)` between endpoints
    /// `source` and `target` may use: its own, and, on a side whose pinned
    /// NIC is a member of that endpoint's team, the team's other members
    /// (it moves to one while its own is down: `run::placement`).
    pub fn pinned_pairs(&self, source: u32, target: u32, (a, b): (u32, u32)) -> Vec<(u32, u32)> {
        let side = |endpoint: u32, nic: u32| -> Vec<u32> {
            match self.endpoints.get(endpoint as usize).map(|e| e.uplink) {
                Some(Uplink::Team(t)) if self.teams[t as usize].members.contains(&nic) => {
                    let mut members = vec![nic];
                    members.extend(self.teams[t as usize].members.iter().filter(|&&m| m != nic));
                    members
                }
                _ => vec![nic],
            }
        };
        let outs = side(source, a);
        let ins = side(target, b);
        outs.iter()
            .flat_map(|&x| ins.iter().map(move |&y| (x, y)))
            .collect()
    }
}
