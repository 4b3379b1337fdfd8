//! What a run is given: the network (resources, NICs, teams, endpoints,
//! paths and parameters), its connections and its changes, by index, and
//! their validation.
//!
//! [`check`] refuses what the run cannot run (an index out of range, a
//! number that is not finite, a connection with no path), each with a
//! message that says which part is wrong. Names given as text (a teaming
//! mode, a kind of cores, an address) become types through `FromStr` and
//! the constructors here, with the same messages. A run of specs that
//! passed [`check`] does not panic.

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

use hvnet_engine::{Rate, ResourceId, Seconds, Sharing};

use crate::cores::Cores;
use crate::load::Load;
use crate::team::{AddressHash, LoadBalancing, SwitchHash, Team, TeamingMode};

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

impl FromStr for TeamingMode {
    type Err = SpecError;

    fn from_str(name: &str) -> Result<Self, SpecError> {
        Ok(match name {
            "switch_independent" => TeamingMode::SwitchIndependent,
            "static" => TeamingMode::Static,
            "lacp" => TeamingMode::Lacp,
            _ => return bad(format!("unknown teaming mode {name:?}")),
        })
    }
}

impl FromStr for LoadBalancing {
    type Err = SpecError;

    fn from_str(name: &str) -> Result<Self, SpecError> {
        Ok(match name {
            "transport_ports" => LoadBalancing::AddressHash(AddressHash::TransportPorts),
            "ip_addresses" => LoadBalancing::AddressHash(AddressHash::IpAddresses),
            "mac_addresses" => LoadBalancing::AddressHash(AddressHash::MacAddresses),
            "hyperv_port" => LoadBalancing::HyperVPort,
            "dynamic" => LoadBalancing::Dynamic,
            _ => return bad(format!("unknown load balancing {name:?}")),
        })
    }
}

impl FromStr for SwitchHash {
    type Err = SpecError;

    fn from_str(name: &str) -> Result<Self, SpecError> {
        Ok(match name {
            "transport_ports" => SwitchHash::TransportPorts,
            "ip_addresses" => SwitchHash::IpAddresses,
            "mac_addresses" => SwitchHash::MacAddresses,
            _ => return bad(format!("unknown switch hash {name:?}")),
        })
    }
}

/// An endpoint's address.
pub fn parse_address(address: &str) -> Result<IpAddr, SpecError> {
    address
        .parse()
        .or_else(|_| bad(format!("{address:?} is not an IP address")))
}

/// An uplink by kind (`"nic"` or `"team"`) and index.
pub fn uplink(kind: &str, index: u32) -> Result<Uplink, SpecError> {
    match kind {
        "nic" => Ok(Uplink::Nic(index)),
        "team" => Ok(Uplink::Team(index)),
        _ => bad(format!("endpoint uplink {kind:?} {index} does not exist")),
    }
}

impl Cores {
    /// Cores by kind: `"none"`, `"rss"` (1 to 64 cores), `"queue"` (one
    /// core) or `"spread"` (one or more).
    pub fn from_kind(kind: &str, cores: Vec<ResourceId>) -> Result<Cores, SpecError> {
        Ok(match (kind, cores.as_slice()) {
            ("none", _) => Cores::None,
            ("rss", _) if !cores.is_empty() && cores.len() <= 64 => Cores::Rss(cores),
            ("queue", &[core]) => Cores::Queue(core),
            ("spread", _) if !cores.is_empty() => Cores::Spread(cores),
            _ => {
                return bad(format!(
                    "cores {kind:?} with {} cores is not valid",
                    cores.len()
                ))
            }
        })
    }

    fn resources(&self) -> &[ResourceId] {
        match self {
            Cores::None => &[],
            Cores::Queue(core) => std::slice::from_ref(core),
            Cores::Rss(cores) | Cores::Spread(cores) => cores,
        }
    }
}

fn valid(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

impl Network {
    /// Fails unless `r` is one of its resources.
    pub fn check_resource(&self, r: ResourceId) -> Result<ResourceId, SpecError> {
        if r < self.resources.len() {
            Ok(r)
        } else {
            bad(format!("resource {r} does not exist"))
        }
    }

    /// Fails unless `n` is one of its NICs.
    pub fn check_nic(&self, n: u32) -> Result<u32, SpecError> {
        if (n as usize) < self.nics.len() {
            Ok(n)
        } else {
            bad(format!("NIC {n} does not exist"))
        }
    }

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

    /// Checks the network alone: resources, NICs, teams, endpoints, paths
    /// and parameters.
    pub fn check(&self) -> Result<(), SpecError> {
        for (r, &(c, _)) in self.resources.iter().enumerate() {
            if !valid(c) {
                return bad(format!(
                    "resource {r}: capacity {c} is not a finite number >= 0"
                ));
            }
        }
        for nic in &self.nics {
            self.check_resource(nic.send)?;
            self.check_resource(nic.receive)?;
        }
        for (i, load) in self.loads.iter().enumerate() {
            load.check(i, self.resources.len())?;
        }
        if !valid(self.shared_queue_overhead) {
            return bad(format!(
                "shared queue overhead {} is not a finite number >= 0",
                self.shared_queue_overhead
            ));
        }
        if !self.nic_rss.is_empty() && self.nic_rss.len() != self.nics.len() {
            return bad(format!(
                "{} NICs but RSS cores for {}: give each NIC its cores, or none",
                self.nics.len(),
                self.nic_rss.len()
            ));
        }
        for &r in self.nic_rss.iter().flat_map(|c| c.resources()) {
            self.check_resource(r)?;
        }
        for team in &self.teams {
            if team.members.is_empty() {
                return bad("a team needs at least one member".into());
            }
            for &m in team.members.iter().chain(team.standby.iter()) {
                self.check_nic(m)?;
            }
        }
        for endpoint in &self.endpoints {
            self.check_endpoint(endpoint)?;
        }
        // A team hashes a flow's two addresses together (`team::Flow::key`),
        // and any two endpoints may be joined by a connection a driver opens
        // while running: one IP version for the whole network.
        if let Some(first) = self.endpoints.first() {
            if let Some(other) = self
                .endpoints
                .iter()
                .find(|e| e.address.is_ipv4() != first.address.is_ipv4())
            {
                return bad(format!(
                    "endpoints {} and {} are of different IP versions; use one for the whole network",
                    first.address, other.address
                ));
            }
        }
        self.check_paths()?;
        self.check_parameters()
    }

    fn check_endpoint(&self, endpoint: &Endpoint) -> Result<(), SpecError> {
        match endpoint.uplink {
            Uplink::Nic(n) => {
                self.check_nic(n)?;
            }
            Uplink::Team(t) if (t as usize) < self.teams.len() => {}
            Uplink::Team(t) => return bad(format!("endpoint uplink \"team\" {t} does not exist")),
        }
        let cores = [
            &endpoint.send_cores,
            &endpoint.receive_cores,
            &endpoint.guest_send_cores,
            &endpoint.guest_receive_cores,
        ];
        for &r in cores
            .iter()
            .flat_map(|c| c.resources())
            .chain(&endpoint.host_cores)
            .chain(&endpoint.queue_cores)
        {
            self.check_resource(r)?;
        }
        if !endpoint.queue_cores.is_empty() && !matches!(endpoint.receive_cores, Cores::Queue(_)) {
            return bad(format!(
                "endpoint {}: only a VM queue (receive cores \"queue\") can be dynamic",
                endpoint.address
            ));
        }
        Ok(())
    }

    fn check_paths(&self) -> Result<(), SpecError> {
        let mut pairs: Vec<&(u32, u32)> = self.paths.keys().collect();
        pairs.sort_unstable();
        for &(a, b) in pairs {
            self.check_path(
                &format!("path from NIC {a} to NIC {b}"),
                a,
                b,
                &self.paths[&(a, b)],
            )?;
        }
        let mut keys: Vec<&(u32, u32, u32)> = self.paths_by_endpoint_mtu.keys().collect();
        keys.sort_unstable();
        for &(a, b, mtu) in keys {
            let path = &self.paths_by_endpoint_mtu[&(a, b, mtu)];
            self.check_path(
                &format!("path from NIC {a} to NIC {b} at MTU {mtu}"),
                a,
                b,
                path,
            )?;
        }
        Ok(())
    }

    fn check_path(&self, name: &str, a: u32, b: u32, path: &Path) -> Result<(), SpecError> {
        self.check_nic(a)?;
        self.check_nic(b)?;
        if path.routing.first().is_none_or(|r| r.from != 0.0) {
            return bad(format!("{name}: its routes must start at 0"));
        }
        for pair in path.routing.windows(2) {
            if !(pair[1].from.is_finite() && pair[1].from > pair[0].from) {
                return bad(format!(
                    "{name}: routes from {} after routes from {}: times must increase",
                    pair[1].from, pair[0].from
                ));
            }
        }
        for routes in &path.routing {
            if routes.ecmp.is_empty() {
                return bad(format!("{name}: no route from {}", routes.from));
            }
            for &(r, coeff) in routes.ecmp.iter().flatten() {
                if !valid(coeff) {
                    return bad(format!(
                        "{name}: coefficient {coeff} is not finite and >= 0"
                    ));
                }
                self.check_resource(r)?;
            }
        }
        let cycles = [
            path.send_cycles_per_byte,
            path.receive_cycles_per_byte,
            path.guest_send_cycles_per_byte,
            path.guest_receive_cycles_per_byte,
        ];
        if !cycles.into_iter().all(valid) {
            return bad(format!("{name}: cycles per byte must be finite and >= 0"));
        }
        Ok(())
    }

    fn check_parameters(&self) -> Result<(), SpecError> {
        if !valid(self.lacp_timeout)
            || !self.nic_lacp_timeouts.iter().all(|&t| valid(t))
            || self
                .rebalance_interval
                .is_some_and(|r| !(r.is_finite() && r > 0.0))
        {
            return bad("lacp_timeout must be >= 0 and rebalance_interval > 0".into());
        }
        if self.dynamic_vmq.is_some_and(|v| {
            !(v.interval.is_finite() && v.interval > 0.0 && v.busy > 0.0 && v.busy <= 1.0)
        }) {
            return bad("dynamic_vmq needs an interval > 0 and a busy share in (0, 1]".into());
        }
        Ok(())
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

    /// Checks a connection (`i` names it in messages) against the network:
    /// its endpoints, amount and times, and a path for every pair of NICs
    /// it may use.
    pub fn check_connection(&self, i: usize, c: &Connection) -> Result<(), SpecError> {
        if !self.has_endpoint(c.source) || !self.has_endpoint(c.target) {
            return bad(format!("connection {i}: endpoint does not exist"));
        }
        if !(valid(c.amount) && valid(c.start)) {
            return bad(format!(
                "connection {i}: amount {} and start {} must be finite and >= 0",
                c.amount, c.start
            ));
        }
        let (s, t) = (
            &self.endpoints[c.source as usize],
            &self.endpoints[c.target as usize],
        );
        // A pinned connection (an SMB channel, traffic inside one virtual
        // switch) uses its pair alone; any other, each pair the rules may give.
        let pairs: Vec<(u32, u32)> = match c.pinned {
            Some((a, b)) => {
                self.check_nic(a)?;
                self.check_nic(b)?;
                self.pinned_pairs(c.source, c.target, (a, b))
            }
            None => self
                .candidates(s.uplink)
                .into_iter()
                .flat_map(|a| self.candidates(t.uplink).into_iter().map(move |b| (a, b)))
                .collect(),
        };
        for (a, b) in pairs {
            if self.path(a, b, c.endpoint_mtu).is_none() {
                let at = c
                    .endpoint_mtu
                    .map_or(String::new(), |m| format!(" at MTU {m}"));
                return bad(format!(
                    "connection {i}: no path given from NIC {a} to NIC {b}{at}"
                ));
            }
        }
        if c.stop.is_some_and(|t| !valid(t)) {
            return bad(format!("connection {i}: stop must be a time >= 0"));
        }
        if c.bound.is_some_and(|b| !(b.is_finite() && b > 0.0)) {
            return bad(format!(
                "connection {i}: a rate bound must be finite and > 0"
            ));
        }
        Ok(())
    }

    /// Checks a change against the network.
    pub fn check_change(&self, at: Seconds, change: Change) -> Result<(), SpecError> {
        if !valid(at) {
            return bad(format!("change at {at} is not a time >= 0"));
        }
        match change {
            Change::Resource { resource, .. } => self.check_resource(resource).map(|_| ()),
            Change::Link { nic, .. } => self.check_nic(nic).map(|_| ()),
        }
    }
}

/// Checks everything [`Network::run`] is given: the network, each
/// connection and change.
pub fn check(
    network: &Network,
    connections: &[Connection],
    changes: &[(Seconds, Change)],
) -> Result<(), SpecError> {
    network.check()?;
    for (i, c) in connections.iter().enumerate() {
        network.check_connection(i, c)?;
    }
    for &(at, change) in changes {
        network.check_change(at, change)?;
    }
    Ok(())
}

impl Change {
    /// A change by kind: `"resource"` (`index` a resource) or `"link"`
    /// (`index` a NIC), going down (`up: false`) or coming back.
    pub fn from_kind(kind: &str, index: usize, up: bool) -> Result<Change, SpecError> {
        match kind {
            "resource" => Ok(Change::Resource {
                resource: index,
                up,
            }),
            "link" => match u32::try_from(index) {
                Ok(nic) => Ok(Change::Link { nic, up }),
                Err(_) => bad(format!("NIC {index} does not exist")),
            },
            _ => bad(format!("unknown change {kind:?}")),
        }
    }
}
