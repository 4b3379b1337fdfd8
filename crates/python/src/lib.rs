//! The PyO3 glue that builds `hvnet._core`. It converts Python values to the
//! engine's inputs and back, turns bad input into `ValueError`, and holds no
//! simulation logic of its own.

use std::net::IpAddr;
use std::time::Instant;

use std::collections::HashMap;

use hvnet_engine::{ActivitySpec, CapacityChange, Sharing, Transfer, Workload};
use hvnet_migration::{GuestMemory, PrecopyParameters};
use hvnet_network::{
    AddressHash, Change, Channel, Compression, Connection, ConnectionReport, Cores, DynamicVmq,
    Endpoint, FlowKey, Guest, LoadBalancing, Migration, Network, Nic, Path, SwitchHash, Team,
    TeamingMode, Uplink, MICROSOFT_RSS_KEY,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

fn bad(msg: String) -> PyErr {
    PyValueError::new_err(msg)
}

/// Runs a whole workload in the engine and returns a dict with `end`
/// (completion time per transfer, None if it never completed), `end_time`,
/// `events`, `wall_s` (engine time only) and `series` (when recorded).
#[pyfunction]
#[pyo3(signature = (capacities, fatpipe, starts, amounts, routes, weights=None, bounds=None, changes=Vec::new(), record_step=None))]
#[allow(clippy::too_many_arguments)]
fn run_workload<'py>(
    py: Python<'py>,
    capacities: Vec<f64>,
    fatpipe: Vec<bool>,
    starts: Vec<f64>,
    amounts: Vec<f64>,
    routes: Vec<Vec<(usize, f64)>>,
    weights: Option<Vec<f64>>,
    bounds: Option<Vec<Option<f64>>>,
    changes: Vec<(f64, usize, f64)>,
    record_step: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let n = amounts.len();
    if fatpipe.len() != capacities.len() {
        return Err(bad(format!(
            "fatpipe has {} entries for {} resources",
            fatpipe.len(),
            capacities.len()
        )));
    }
    if starts.len() != n || routes.len() != n {
        return Err(bad(format!(
            "starts ({}), amounts ({n}) and routes ({}) differ in length",
            starts.len(),
            routes.len()
        )));
    }
    let weights = weights.unwrap_or_else(|| vec![1.0; n]);
    let bounds = bounds.unwrap_or_else(|| vec![None; n]);
    if weights.len() != n || bounds.len() != n {
        return Err(bad("weights and bounds need one entry per transfer".into()));
    }
    for (r, &c) in capacities.iter().enumerate() {
        if !(c.is_finite() && c >= 0.0) {
            return Err(bad(format!(
                "resource {r}: capacity {c} is not a finite number >= 0"
            )));
        }
    }
    let check_resource = |r: usize| -> PyResult<()> {
        if r >= capacities.len() {
            return Err(bad(format!(
                "resource {r} does not exist ({} resources)",
                capacities.len()
            )));
        }
        Ok(())
    };
    let mut transfers = Vec::with_capacity(n);
    for i in 0..n {
        let (start, amount, weight) = (starts[i], amounts[i], weights[i]);
        if !(start.is_finite() && start >= 0.0 && amount.is_finite() && amount >= 0.0) {
            return Err(bad(format!(
                "transfer {i}: start {start} and amount {amount} must be finite and >= 0"
            )));
        }
        if !(weight.is_finite() && weight > 0.0)
            || bounds[i].is_some_and(|b| b.is_nan() || b <= 0.0)
        {
            return Err(bad(format!(
                "transfer {i}: weight must be > 0 and a bound, when given, > 0"
            )));
        }
        for &(r, coeff) in &routes[i] {
            check_resource(r)?;
            if !(coeff.is_finite() && coeff >= 0.0) {
                return Err(bad(format!(
                    "transfer {i}: coefficient {coeff} on resource {r} is not finite and >= 0"
                )));
            }
        }
        transfers.push(Transfer {
            start,
            spec: ActivitySpec {
                amount,
                weight,
                bound: bounds[i],
                usage: routes[i].clone(),
            },
        });
    }
    let mut capacity_changes = Vec::with_capacity(changes.len());
    for (at, resource, capacity) in changes {
        check_resource(resource)?;
        if !(at.is_finite() && at >= 0.0 && capacity.is_finite() && capacity >= 0.0) {
            return Err(bad(format!(
                "capacity change of resource {resource} at {at} to {capacity} is not valid"
            )));
        }
        capacity_changes.push(CapacityChange {
            at,
            resource,
            capacity,
        });
    }
    if let Some(step) = record_step {
        if !(step.is_finite() && step > 0.0) {
            return Err(bad(format!("record_step {step} must be > 0")));
        }
    }
    let sharing = fatpipe
        .iter()
        .map(|&f| if f { Sharing::Fatpipe } else { Sharing::Shared });
    let workload = Workload {
        resources: capacities.iter().copied().zip(sharing).collect(),
        transfers,
        changes: capacity_changes,
        record_step,
    };
    let (result, wall) = py.detach(|| {
        let clock = Instant::now();
        let result = workload.run();
        (result, clock.elapsed().as_secs_f64())
    });
    let out = PyDict::new(py);
    out.set_item("end", result.end)?;
    out.set_item("end_time", result.end_time)?;
    out.set_item("events", result.events)?;
    out.set_item("wall_s", wall)?;
    out.set_item("series", result.series)?;
    Ok(out)
}

fn teaming_mode(name: &str) -> PyResult<TeamingMode> {
    Ok(match name {
        "switch_independent" => TeamingMode::SwitchIndependent,
        "static" => TeamingMode::Static,
        "lacp" => TeamingMode::Lacp,
        _ => return Err(bad(format!("unknown teaming mode {name:?}"))),
    })
}

fn load_balancing(name: &str) -> PyResult<LoadBalancing> {
    Ok(match name {
        "transport_ports" => LoadBalancing::AddressHash(AddressHash::TransportPorts),
        "ip_addresses" => LoadBalancing::AddressHash(AddressHash::IpAddresses),
        "mac_addresses" => LoadBalancing::AddressHash(AddressHash::MacAddresses),
        "hyperv_port" => LoadBalancing::HyperVPort,
        "dynamic" => LoadBalancing::Dynamic,
        _ => return Err(bad(format!("unknown load balancing {name:?}"))),
    })
}

fn switch_hash(name: &str) -> PyResult<SwitchHash> {
    Ok(match name {
        "transport_ports" => SwitchHash::TransportPorts,
        "ip_addresses" => SwitchHash::IpAddresses,
        "mac_addresses" => SwitchHash::MacAddresses,
        _ => return Err(bad(format!("unknown switch hash {name:?}"))),
    })
}

type TeamArgs = (Vec<u32>, Option<u32>, String, String, String);
type CoresArgs = (String, Vec<usize>);
/// (uplink kind, uplink, vSwitch port, address, MAC, send cores, receive cores, host cores,
/// dynamic queue cores, guest send vCPUs, guest receive vCPUs)
type EndpointArgs = (
    String,
    u32,
    u32,
    String,
    [u8; 6],
    CoresArgs,
    CoresArgs,
    Vec<usize>,
    Vec<usize>,
    CoresArgs,
    CoresArgs,
);
/// (links with their use per byte, cycles per byte on the sending and receiving core, and on
/// the sending and receiving VM's vCPU)
type PathArgs = (Vec<(usize, f64)>, f64, f64, f64, f64);
type ConnectionArgs = (u32, u32, Option<(u16, u16)>, f64, f64, Option<f64>);
type ChangeArgs = (f64, String, usize, bool);
/// (source endpoint, target endpoint, ports, [assigned, populated, dirty rate, working set,
/// device state] in bytes and bytes/s, (max passes, stop bytes, switch-over s, prepare bytes/s or None), at s, queue,
/// simultaneous, SMB channels: [(NIC pair or None, ports, cycles per byte send/receive or None)],
/// compression or None, (migrations it waits for, delay s), resource all its bytes pass or None)
type MigrationArgs = (
    u32,
    u32,
    (u16, u16),
    [f64; 5],
    (u32, f64, f64, Option<f64>),
    f64,
    u32,
    u32,
    Vec<ChannelArgs>,
    Option<CompressionArgs>,
    (Vec<usize>, f64),
    Option<usize>,
);
type ChannelArgs = (Option<(u32, u32)>, (u16, u16), Option<(f64, f64)>);
/// Compression: ratio, zero-page ratio, compress, decompress and zero-page cycles per byte, weight.
type CompressionArgs = [f64; 6];
/// A VM's own CPU load: the endpoint of the host it starts on, the cores'
/// worth of work it keeps busy (vCPUs × load), the migrations (indices)
/// that move it, and its vCPUs (resources; empty when not modelled).
type GuestArgs = (u32, f64, Vec<usize>, Vec<usize>);

/// Runs connections on NICs and teams, with failures, failover and
/// rebalancing (of dynamic teams every `rebalance_interval`, of dynamic VM
/// queues per `dynamic_vmq`: (interval s, busy share of a core)). Returns a dict with, per connection, `end` (None if it never
/// completed), `members` ([(time, out NIC, in NIC)]), `blackholed`
/// (seconds) and `stalled_since` (when its path went down for good, or
/// None), and `end_time`, `events`, `wall_s`, `series` (the connections'
/// use of each resource: the guests' own CPU load is not in it).
#[pyfunction]
#[pyo3(signature = (capacities, fatpipe, nics, teams, endpoints, paths, connections, changes, lacp_timeout, rebalance_interval=None, record_step=None, migrations=Vec::new(), guests=Vec::new(), dynamic_vmq=None))]
#[allow(clippy::too_many_arguments)]
fn run_network<'py>(
    py: Python<'py>,
    capacities: Vec<f64>,
    fatpipe: Vec<bool>,
    nics: Vec<(usize, usize)>,
    teams: Vec<TeamArgs>,
    endpoints: Vec<EndpointArgs>,
    paths: HashMap<(u32, u32), PathArgs>,
    connections: Vec<ConnectionArgs>,
    changes: Vec<ChangeArgs>,
    lacp_timeout: f64,
    rebalance_interval: Option<f64>,
    record_step: Option<f64>,
    migrations: Vec<MigrationArgs>,
    guests: Vec<GuestArgs>,
    dynamic_vmq: Option<(f64, f64)>,
) -> PyResult<Bound<'py, PyDict>> {
    let n_res = capacities.len();
    if fatpipe.len() != n_res {
        return Err(bad(format!(
            "fatpipe has {} entries for {n_res} resources",
            fatpipe.len()
        )));
    }
    for (r, &c) in capacities.iter().enumerate() {
        if !(c.is_finite() && c >= 0.0) {
            return Err(bad(format!(
                "resource {r}: capacity {c} is not a finite number >= 0"
            )));
        }
    }
    let resource = |r: usize| {
        if r < n_res {
            Ok(r)
        } else {
            Err(bad(format!("resource {r} does not exist")))
        }
    };
    let nic_index = |n: u32| {
        if (n as usize) < nics.len() {
            Ok(n)
        } else {
            Err(bad(format!("NIC {n} does not exist")))
        }
    };
    let nics_out = nics
        .iter()
        .map(|&(send, receive)| {
            Ok(Nic {
                send: resource(send)?,
                receive: resource(receive)?,
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let mut teams_out = Vec::with_capacity(teams.len());
    for (members, standby, mode, balancing, switch_fields) in teams {
        if members.is_empty() {
            return Err(bad("a team needs at least one member".into()));
        }
        for &m in members.iter().chain(standby.iter()) {
            nic_index(m)?;
        }
        teams_out.push(Team {
            members,
            standby,
            mode: teaming_mode(&mode)?,
            balancing: load_balancing(&balancing)?,
            switch_hash: switch_hash(&switch_fields)?,
        });
    }
    let mut endpoints_out = Vec::with_capacity(endpoints.len());
    let cores = |(kind, cores): CoresArgs| -> PyResult<Cores> {
        let cores = cores
            .into_iter()
            .map(resource)
            .collect::<PyResult<Vec<_>>>()?;
        Ok(match (kind.as_str(), cores.as_slice()) {
            ("none", _) => Cores::None,
            ("rss", _) if !cores.is_empty() && cores.len() <= 64 => Cores::Rss(cores),
            ("queue", &[core]) => Cores::Queue(core),
            ("spread", _) if !cores.is_empty() => Cores::Spread(cores),
            _ => {
                return Err(bad(format!(
                    "cores {kind:?} with {} cores is not valid",
                    cores.len()
                )))
            }
        })
    };
    for (
        kind,
        index,
        port,
        address,
        mac,
        send,
        receive,
        host_cores,
        queue_cores,
        guest_send,
        guest_receive,
    ) in endpoints
    {
        let uplink = match kind.as_str() {
            "nic" => Uplink::Nic(nic_index(index)?),
            "team" if (index as usize) < teams_out.len() => Uplink::Team(index),
            _ => {
                return Err(bad(format!(
                    "endpoint uplink {kind:?} {index} does not exist"
                )))
            }
        };
        let address: IpAddr = address
            .parse()
            .map_err(|_| bad(format!("{address:?} is not an IP address")))?;
        let receive_cores = cores(receive)?;
        if !queue_cores.is_empty() && !matches!(receive_cores, Cores::Queue(_)) {
            return Err(bad(format!(
                "endpoint {address}: only a VM queue (receive cores \"queue\") can be dynamic"
            )));
        }
        endpoints_out.push(Endpoint {
            uplink,
            port,
            address,
            mac,
            send_cores: cores(send)?,
            receive_cores,
            host_cores: host_cores
                .into_iter()
                .map(resource)
                .collect::<PyResult<Vec<_>>>()?,
            queue_cores: queue_cores
                .into_iter()
                .map(resource)
                .collect::<PyResult<Vec<_>>>()?,
            guest_send_cores: cores(guest_send)?,
            guest_receive_cores: cores(guest_receive)?,
        });
    }
    let mut paths_out = HashMap::with_capacity(paths.len());
    for (
        (a, b),
        (
            links,
            send_cycles_per_byte,
            receive_cycles_per_byte,
            guest_send_cycles_per_byte,
            guest_receive_cycles_per_byte,
        ),
    ) in paths
    {
        nic_index(a)?;
        nic_index(b)?;
        let mut usage = Vec::with_capacity(links.len());
        for (r, coeff) in links {
            if !(coeff.is_finite() && coeff >= 0.0) {
                return Err(bad(format!(
                    "path from NIC {a} to NIC {b}: coefficient {coeff} is not finite and >= 0"
                )));
            }
            usage.push((resource(r)?, coeff));
        }
        let valid = |x: f64| x.is_finite() && x >= 0.0;
        if ![
            send_cycles_per_byte,
            receive_cycles_per_byte,
            guest_send_cycles_per_byte,
            guest_receive_cycles_per_byte,
        ]
        .into_iter()
        .all(valid)
        {
            return Err(bad(format!(
                "path from NIC {a} to NIC {b}: cycles per byte must be finite and >= 0"
            )));
        }
        paths_out.insert(
            (a, b),
            Path {
                links: usage,
                send_cycles_per_byte,
                receive_cycles_per_byte,
                guest_send_cycles_per_byte,
                guest_receive_cycles_per_byte,
            },
        );
    }
    let mut connections_out = Vec::with_capacity(connections.len());
    for (i, (source, target, ports, amount, start, stop)) in connections.into_iter().enumerate() {
        if source as usize >= endpoints_out.len() || target as usize >= endpoints_out.len() {
            return Err(bad(format!("connection {i}: endpoint does not exist")));
        }
        if !(amount.is_finite() && amount >= 0.0 && start.is_finite() && start >= 0.0) {
            return Err(bad(format!(
                "connection {i}: amount {amount} and start {start} must be finite and >= 0"
            )));
        }
        let (s, t) = (
            &endpoints_out[source as usize],
            &endpoints_out[target as usize],
        );
        if s.address.is_ipv4() != t.address.is_ipv4() {
            return Err(bad(format!(
                "connection {i}: endpoints of different IP versions"
            )));
        }
        for a in candidates(&s.uplink, &teams_out) {
            for b in candidates(&t.uplink, &teams_out) {
                if !paths_out.contains_key(&(a, b)) {
                    return Err(bad(format!(
                        "connection {i}: no path given from NIC {a} to NIC {b}"
                    )));
                }
            }
        }
        if stop.is_some_and(|t| !(t.is_finite() && t >= 0.0)) {
            return Err(bad(format!("connection {i}: stop must be a time >= 0")));
        }
        connections_out.push(Connection {
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
        });
    }
    let mut changes_out = Vec::with_capacity(changes.len());
    for (at, kind, index, up) in changes {
        if !(at.is_finite() && at >= 0.0) {
            return Err(bad(format!("change at {at} is not a time >= 0")));
        }
        let change = match kind.as_str() {
            "resource" => Change::Resource {
                resource: resource(index)?,
                up,
            },
            "link" => Change::Link {
                nic: nic_index(index as u32)?,
                up,
            },
            _ => return Err(bad(format!("unknown change {kind:?}"))),
        };
        changes_out.push((at, change));
    }
    if !(lacp_timeout.is_finite() && lacp_timeout >= 0.0)
        || rebalance_interval.is_some_and(|r| !(r.is_finite() && r > 0.0))
    {
        return Err(bad(
            "lacp_timeout must be >= 0 and rebalance_interval > 0".into()
        ));
    }
    if record_step.is_some_and(|s| !(s.is_finite() && s > 0.0)) {
        return Err(bad("record_step must be > 0".into()));
    }
    if dynamic_vmq.is_some_and(|(interval, busy)| {
        !(interval.is_finite() && interval > 0.0 && busy.is_finite() && busy > 0.0 && busy <= 1.0)
    }) {
        return Err(bad(
            "dynamic_vmq needs an interval > 0 and a busy share in (0, 1]".into(),
        ));
    }
    let sharing = fatpipe
        .iter()
        .map(|&f| if f { Sharing::Fatpipe } else { Sharing::Shared });
    let network = Network {
        resources: capacities.iter().copied().zip(sharing).collect(),
        nics: nics_out,
        teams: teams_out,
        endpoints: endpoints_out,
        paths: paths_out,
        lacp_timeout,
        rebalance_interval,
        dynamic_vmq: dynamic_vmq.map(|(interval, busy)| DynamicVmq { interval, busy }),
    };
    let mut migrations_out = Vec::with_capacity(migrations.len());
    for (
        i,
        (
            source,
            target,
            ports,
            memory,
            (max_passes, stop_bytes, switchover, prepare_rate),
            at,
            queue,
            simultaneous,
            channels,
            compression,
            (after, delay),
            through,
        ),
    ) in migrations.into_iter().enumerate()
    {
        let [assigned, populated, dirty_rate, working_set, device_state] = memory;
        let valid = |x: f64| x.is_finite() && x >= 0.0;
        if source as usize >= network.endpoints.len() || target as usize >= network.endpoints.len()
        {
            return Err(bad(format!("migration {i}: endpoint does not exist")));
        }
        if !memory.iter().all(|&x| valid(x))
            || populated > assigned
            || !valid(stop_bytes)
            || !valid(switchover)
            || !valid(at)
        {
            return Err(bad(format!("migration {i}: sizes, rates and times must be finite and >= 0 (populated <= assigned)")));
        }
        if after.iter().any(|&j| j >= i) || !valid(delay) {
            return Err(bad(format!(
                "migration {i}: it can only wait for earlier migrations, for a delay >= 0"
            )));
        }
        if through.is_some_and(|r| r >= n_res) {
            return Err(bad(format!("migration {i}: resource does not exist")));
        }
        if prepare_rate.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
            return Err(bad(format!(
                "migration {i}: the source's prepare rate must be finite and > 0"
            )));
        }
        if max_passes == 0 || simultaneous == 0 {
            return Err(bad(format!(
                "migration {i}: at least one pass and one migration at a time"
            )));
        }
        let mut channels_out = Vec::with_capacity(channels.len());
        for (nics, channel_ports, cycles) in channels {
            if let Some(nics) = nics {
                nic_index(nics.0)?;
                nic_index(nics.1)?;
                if !network.paths.contains_key(&nics) {
                    return Err(bad(format!(
                        "migration {i}: no path given from NIC {} to NIC {}",
                        nics.0, nics.1
                    )));
                }
            }
            if cycles.is_some_and(|(a, b)| !(valid(a) && valid(b))) {
                return Err(bad(format!(
                    "migration {i}: cycles per byte must be finite and >= 0"
                )));
            }
            channels_out.push(Channel {
                nics,
                ports: channel_ports,
                cycles,
            });
        }
        let compression = match compression {
            Some([ratio, zero_ratio, compress_cycles, decompress_cycles, zero_cycles, weight]) => {
                let costs = [
                    ratio,
                    zero_ratio,
                    compress_cycles,
                    decompress_cycles,
                    zero_cycles,
                ];
                let ok = costs.iter().all(|&x| valid(x)) && weight > 0.0 && weight.is_finite();
                if !ok {
                    return Err(bad(format!(
                        "migration {i}: compression parameters must be >= 0 (weight > 0)"
                    )));
                }
                Some(Compression {
                    ratio,
                    zero_ratio,
                    compress_cycles,
                    decompress_cycles,
                    zero_cycles,
                    weight,
                })
            }
            None => None,
        };
        migrations_out.push(Migration {
            source,
            target,
            ports,
            channels: channels_out,
            compression,
            memory: GuestMemory {
                assigned,
                populated,
                dirty_rate,
                working_set,
                device_state,
            },
            parameters: PrecopyParameters {
                max_passes,
                stop_bytes,
                switchover,
            },
            prepare_rate,
            at,
            after,
            delay,
            through,
            queue,
            simultaneous,
            guest: None,
        });
    }
    let mut guests_out = Vec::with_capacity(guests.len());
    for (g, (host, cores, moves, vcpus)) in guests.into_iter().enumerate() {
        if host as usize >= network.endpoints.len() {
            return Err(bad(format!("guest {g}: endpoint does not exist")));
        }
        if !(cores.is_finite() && cores >= 0.0) {
            return Err(bad(format!(
                "guest {g}: cores {cores} is not a finite number >= 0"
            )));
        }
        for i in moves {
            match migrations_out.get_mut(i) {
                Some(m) if m.guest.is_none() => m.guest = Some(g),
                Some(_) => return Err(bad(format!("migration {i} moves two guests"))),
                None => return Err(bad(format!("guest {g}: migration {i} does not exist"))),
            }
        }
        let vcpus = vcpus
            .into_iter()
            .map(resource)
            .collect::<PyResult<Vec<_>>>()?;
        guests_out.push(Guest { host, cores, vcpus });
    }
    let (report, wall) = py.detach(|| {
        let clock = Instant::now();
        let report = network.run_with_migrations(
            &connections_out,
            &changes_out,
            &migrations_out,
            &guests_out,
            record_step,
        );
        (report, clock.elapsed().as_secs_f64())
    });
    let out = PyDict::new(py);
    let migration_reports = PyList::empty(py);
    for m in &report.migrations {
        let d = PyDict::new(py);
        d.set_item("queued", m.queued)?;
        d.set_item("start", m.start)?;
        d.set_item("end", m.end)?;
        d.set_item(
            "passes",
            m.passes
                .iter()
                .map(|p| (p.bytes, p.start, p.end))
                .collect::<Vec<_>>(),
        )?;
        d.set_item("blackout", m.blackout)?;
        d.set_item("bytes_sent", m.bytes_sent)?;
        d.set_item("peak_rate", m.peak_rate)?;
        d.set_item("connections", m.connections.clone())?;
        migration_reports.append(d)?;
    }
    out.set_item("migrations", migration_reports)?;
    let connections = &report.connections;
    per_connection(&out, "end", connections, |c| c.end)?;
    per_connection(&out, "members", connections, |c| c.members.clone())?;
    per_connection(&out, "blackholed", connections, |c| c.blackholed)?;
    per_connection(&out, "sent", connections, |c| c.sent)?;
    per_connection(&out, "stalled_since", connections, |c| c.stalled_since)?;
    out.set_item("end_time", report.end_time)?;
    out.set_item("events", report.events)?;
    out.set_item("wall_s", wall)?;
    out.set_item("series", report.series)?;
    Ok(out)
}

/// One list per field of the connection reports, in connection order.
fn per_connection<'py, T: IntoPyObject<'py>>(
    out: &Bound<'py, PyDict>,
    key: &str,
    reports: &[ConnectionReport],
    field: impl Fn(&ConnectionReport) -> T,
) -> PyResult<()> {
    out.set_item(key, reports.iter().map(field).collect::<Vec<_>>())
}

/// The NICs an uplink may send or receive on.
fn candidates(uplink: &Uplink, teams: &[Team]) -> Vec<u32> {
    match *uplink {
        Uplink::Nic(n) => vec![n],
        Uplink::Team(t) => teams[t as usize].members.clone(),
    }
}

/// The Toeplitz hash of `data` under `key` (Microsoft's default RSS key when None).
#[pyfunction]
#[pyo3(signature = (data, key=None))]
fn toeplitz(data: &[u8], key: Option<&[u8]>) -> PyResult<u32> {
    hvnet_network::toeplitz(data, key.unwrap_or(&MICROSOFT_RSS_KEY)).map_err(|e| bad(e.to_string()))
}

/// The RSS hash of a connection, as Windows computes it with its default key.
#[pyfunction]
#[pyo3(signature = (src_ip, dst_ip, src_port=None, dst_port=None))]
fn rss_hash(
    src_ip: &str,
    dst_ip: &str,
    src_port: Option<u16>,
    dst_port: Option<u16>,
) -> PyResult<u32> {
    let parse = |s: &str| {
        s.parse::<IpAddr>()
            .map_err(|_| bad(format!("{s:?} is not an IPv4 or IPv6 address")))
    };
    if src_port.is_some() != dst_port.is_some() {
        return Err(bad("give both ports or neither".into()));
    }
    let ports = src_port.zip(dst_port);
    let key = FlowKey::new(parse(src_ip)?, parse(dst_ip)?, ports).ok_or_else(|| {
        bad(format!(
            "{src_ip} and {dst_ip} are not of the same IP version"
        ))
    })?;
    Ok(hvnet_network::rss_hash(&key, &MICROSOFT_RSS_KEY))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run_workload, m)?)?;
    m.add_function(wrap_pyfunction!(run_network, m)?)?;
    m.add_function(wrap_pyfunction!(toeplitz, m)?)?;
    m.add_function(wrap_pyfunction!(rss_hash, m)?)?;
    Ok(())
}
