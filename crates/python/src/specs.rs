//! The specs as Python gives them (`hvnet.lower.specs`, read attribute by
//! attribute), and their conversion into the crates' types. Names given as
//! text become types through the crates' own parsers; a path given by its
//! middle gets its routes composed ([`crate::paths`]), a table of
//! migrations its rows expanded ([`crate::migrations`]). Nothing else is
//! checked here (the crates' `check` functions do that).

use std::collections::HashMap;

use hvnet_engine::Sharing;
use hvnet_migration::{Channel, Compression, Guest, GuestMemory, Migration, PrecopyParameters};
use hvnet_network::{
    spec, Change, Connection, Cores, DynamicVmq, Endpoint, Load, Network, Nic, SpecError, Team,
};
use pyo3::FromPyObject;

use crate::migrations::MigrationTableSpec;
use crate::paths::{MiddleSpec, PathSpec, PathTableSpec};

#[derive(FromPyObject)]
pub struct Resource {
    capacity: f64,
    fatpipe: bool,
}

#[derive(FromPyObject)]
pub struct NicSpec {
    send: usize,
    receive: usize,
    rss: CoresSpec,
}

#[derive(FromPyObject)]
pub struct TeamSpec {
    members: Vec<u32>,
    standby: Option<u32>,
    mode: String,
    balancing: String,
    switch_hash: String,
}

#[derive(FromPyObject)]
pub struct UplinkSpec {
    kind: String,
    index: u32,
}

#[derive(Default, FromPyObject)]
pub struct CoresSpec {
    kind: String,
    cores: Vec<usize>,
}

#[derive(FromPyObject)]
pub struct EndpointSpec {
    uplink: UplinkSpec,
    port: u32,
    address: String,
    mac: [u8; 6],
    send_cores: CoresSpec,
    receive_cores: CoresSpec,
    host_cores: Vec<usize>,
    queue_cores: Vec<usize>,
    guest_send_cores: CoresSpec,
    guest_receive_cores: CoresSpec,
}

#[derive(FromPyObject)]
pub struct DynamicVmqSpec {
    interval_s: f64,
    busy: f64,
}

#[derive(FromPyObject)]
pub struct NetworkSpec {
    resources: Vec<Resource>,
    nics: Vec<NicSpec>,
    teams: Vec<TeamSpec>,
    endpoints: Vec<EndpointSpec>,
    paths: Vec<PathSpec>,
    lacp_timeout_s: f64,
    nic_lacp_timeouts_s: Vec<f64>,
    rebalance_interval_s: Option<f64>,
    dynamic_vmq: Option<DynamicVmqSpec>,
    shared_queue_overhead: f64,
    loads: Vec<LoadSpec>,
    middles: Vec<MiddleSpec>,
    /// The NIC pairs' own paths as a table, before `paths`.
    pair_paths: Option<PathTableSpec>,
}

#[derive(FromPyObject)]
pub struct LoadSpec {
    resource: usize,
    steps: Vec<(f64, f64)>,
    weight: f64,
}

#[derive(FromPyObject)]
pub struct ConnectionSpec {
    source: u32,
    target: u32,
    ports: Option<(u16, u16)>,
    amount_bytes: f64,
    start_s: f64,
    stop_s: Option<f64>,
    pinned: Option<(u32, u32)>,
    endpoint_mtu: Option<u32>,
    bound_bytes_per_s: Option<f64>,
}

#[derive(FromPyObject)]
pub struct ChangeSpec {
    at_s: f64,
    kind: String,
    index: usize,
    up: bool,
}

#[derive(FromPyObject)]
pub struct GuestMemorySpec {
    assigned_bytes: f64,
    populated_bytes: f64,
    dirty_bytes_per_s: f64,
    working_set_bytes: f64,
    device_state_bytes: f64,
}

#[derive(FromPyObject)]
pub struct PrecopySpec {
    max_passes: u32,
    stop_bytes: f64,
    switchover_s: f64,
    setup_s: f64,
    setup_serial_s: f64,
}

#[derive(FromPyObject)]
pub struct ChannelSpec {
    nics: Option<(u32, u32)>,
    cycles_per_byte: Option<(f64, f64)>,
    endpoints: Option<(u32, u32)>,
}

#[derive(FromPyObject)]
pub struct CompressionSpec {
    ratio: f64,
    zero_ratio: f64,
    compress_cycles_per_byte: f64,
    decompress_cycles_per_byte: f64,
    zero_cycles_per_byte: f64,
    weight: f64,
}

#[derive(FromPyObject)]
pub struct MigrationSpec {
    source: u32,
    target: u32,
    ports: (u16, u16),
    memory: GuestMemorySpec,
    precopy: PrecopySpec,
    prepare_bytes_per_s: Option<f64>,
    at_s: f64,
    hosts: (u32, u32),
    simultaneous: (u32, u32),
    channels: Vec<ChannelSpec>,
    compression: Option<CompressionSpec>,
    after: Vec<usize>,
    delay_s: f64,
    through: Option<usize>,
}

#[derive(FromPyObject)]
pub struct GuestSpec {
    host: u32,
    cores: f64,
    migrations: Vec<usize>,
    vcpus: Vec<usize>,
}

#[derive(FromPyObject)]
pub struct RunSpec {
    network: NetworkSpec,
    connections: Vec<ConnectionSpec>,
    changes: Vec<ChangeSpec>,
    migrations: Vec<MigrationSpec>,
    guests: Vec<GuestSpec>,
    record: bool,
    /// Migrations as rows of routes they share, after `migrations`.
    migration_table: Option<MigrationTableSpec>,
}

/// A run in the crates' types.
pub struct CoreRun {
    pub network: Network,
    pub connections: Vec<Connection>,
    pub changes: Vec<(f64, Change)>,
    pub migrations: Vec<Migration>,
    pub guests: Vec<Guest>,
    /// Record each resource's use over time.
    pub record: bool,
}

impl TryFrom<TeamSpec> for Team {
    type Error = SpecError;

    fn try_from(t: TeamSpec) -> Result<Self, SpecError> {
        Ok(Team {
            members: t.members,
            standby: t.standby,
            mode: t.mode.parse()?,
            balancing: t.balancing.parse()?,
            switch_hash: t.switch_hash.parse()?,
        })
    }
}

impl TryFrom<CoresSpec> for Cores {
    type Error = SpecError;

    fn try_from(c: CoresSpec) -> Result<Self, SpecError> {
        Cores::from_kind(&c.kind, c.cores)
    }
}

impl TryFrom<EndpointSpec> for Endpoint {
    type Error = SpecError;

    fn try_from(e: EndpointSpec) -> Result<Self, SpecError> {
        Ok(Endpoint {
            uplink: spec::uplink(&e.uplink.kind, e.uplink.index)?,
            port: e.port,
            address: spec::parse_address(&e.address)?,
            mac: e.mac,
            send_cores: e.send_cores.try_into()?,
            receive_cores: e.receive_cores.try_into()?,
            host_cores: e.host_cores,
            queue_cores: e.queue_cores,
            guest_send_cores: e.guest_send_cores.try_into()?,
            guest_receive_cores: e.guest_receive_cores.try_into()?,
        })
    }
}

impl TryFrom<NetworkSpec> for Network {
    type Error = SpecError;

    fn try_from(mut n: NetworkSpec) -> Result<Self, SpecError> {
        let sharing = |fatpipe| {
            if fatpipe {
                Sharing::Fatpipe
            } else {
                Sharing::Shared
            }
        };
        let nic_rss = (n.nics.iter_mut())
            .map(|n| Cores::try_from(std::mem::take(&mut n.rss)))
            .collect::<Result<Vec<_>, _>>()?;
        let (mut paths, mut paths_by_endpoint_mtu) = (HashMap::new(), HashMap::new());
        if let Some(table) = n.pair_paths {
            paths.extend(
                (table.into_paths(&n.middles)?)
                    .into_iter()
                    .map(|(a, b, path)| ((a, b), path)),
            );
        }
        for p in n.paths {
            let (a, b, mtu, path) = p.into_path(&n.middles)?;
            match mtu {
                None => paths.insert((a, b), path),
                Some(mtu) => paths_by_endpoint_mtu.insert((a, b, mtu), path),
            };
        }
        Ok(Network {
            resources: (n.resources.iter())
                .map(|r| (r.capacity, sharing(r.fatpipe)))
                .collect(),
            nics: (n.nics.iter())
                .map(|n| Nic {
                    send: n.send,
                    receive: n.receive,
                })
                .collect(),
            nic_rss,
            teams: n
                .teams
                .into_iter()
                .map(Team::try_from)
                .collect::<Result<_, _>>()?,
            endpoints: (n.endpoints.into_iter())
                .map(Endpoint::try_from)
                .collect::<Result<_, _>>()?,
            paths,
            paths_by_endpoint_mtu,
            lacp_timeout: n.lacp_timeout_s,
            nic_lacp_timeouts: n.nic_lacp_timeouts_s,
            rebalance_interval: n.rebalance_interval_s,
            dynamic_vmq: n.dynamic_vmq.map(|v| DynamicVmq {
                interval: v.interval_s,
                busy: v.busy,
            }),
            shared_queue_overhead: n.shared_queue_overhead,
            loads: (n.loads.into_iter())
                .map(|l| Load {
                    resource: l.resource,
                    steps: l.steps,
                    weight: l.weight,
                })
                .collect(),
        })
    }
}

impl From<ConnectionSpec> for Connection {
    fn from(c: ConnectionSpec) -> Self {
        Connection {
            pinned: c.pinned,
            endpoint_mtu: c.endpoint_mtu,
            bound: c.bound_bytes_per_s,
            ..Connection::new(
                c.source,
                c.target,
                c.ports,
                c.amount_bytes,
                c.start_s,
                c.stop_s,
            )
        }
    }
}

impl From<&CompressionSpec> for Compression {
    fn from(c: &CompressionSpec) -> Self {
        Compression {
            ratio: c.ratio,
            zero_ratio: c.zero_ratio,
            compress_cycles: c.compress_cycles_per_byte,
            decompress_cycles: c.decompress_cycles_per_byte,
            zero_cycles: c.zero_cycles_per_byte,
            weight: c.weight,
        }
    }
}

impl From<&GuestMemorySpec> for GuestMemory {
    fn from(m: &GuestMemorySpec) -> Self {
        GuestMemory {
            assigned: m.assigned_bytes,
            populated: m.populated_bytes,
            dirty_rate: m.dirty_bytes_per_s,
            working_set: m.working_set_bytes,
            device_state: m.device_state_bytes,
        }
    }
}

impl From<&PrecopySpec> for PrecopyParameters {
    fn from(p: &PrecopySpec) -> Self {
        PrecopyParameters {
            max_passes: p.max_passes,
            stop_bytes: p.stop_bytes,
            switchover: p.switchover_s,
            setup: p.setup_s,
            setup_serial: p.setup_serial_s,
        }
    }
}

impl From<&ChannelSpec> for Channel {
    fn from(c: &ChannelSpec) -> Self {
        Channel {
            nics: c.nics,
            cycles: c.cycles_per_byte,
            endpoints: c.endpoints,
        }
    }
}

impl From<MigrationSpec> for Migration {
    fn from(m: MigrationSpec) -> Self {
        Migration {
            source: m.source,
            target: m.target,
            ports: m.ports,
            channels: m.channels.iter().map(Channel::from).collect(),
            compression: m.compression.as_ref().map(Compression::from),
            memory: GuestMemory::from(&m.memory),
            parameters: PrecopyParameters::from(&m.precopy),
            prepare_rate: m.prepare_bytes_per_s,
            at: m.at_s,
            after: m.after,
            delay: m.delay_s,
            through: m.through,
            hosts: m.hosts,
            simultaneous: m.simultaneous,
        }
    }
}

impl From<GuestSpec> for Guest {
    fn from(g: GuestSpec) -> Self {
        Guest {
            host: g.host,
            cores: g.cores,
            migrations: g.migrations,
            vcpus: g.vcpus,
        }
    }
}

impl TryFrom<RunSpec> for CoreRun {
    type Error = SpecError;

    fn try_from(r: RunSpec) -> Result<Self, SpecError> {
        Ok(CoreRun {
            network: r.network.try_into()?,
            connections: r.connections.into_iter().map(Connection::from).collect(),
            changes: (r.changes.into_iter())
                .map(|c| Ok((c.at_s, Change::from_kind(&c.kind, c.index, c.up)?)))
                .collect::<Result<_, SpecError>>()?,
            migrations: (r.migrations.into_iter().map(Migration::from))
                .chain(match r.migration_table {
                    None => vec![],
                    Some(table) => table.into_migrations()?,
                })
                .collect(),
            guests: r.guests.into_iter().map(Guest::from).collect(),
            record: r.record,
        })
    }
}
