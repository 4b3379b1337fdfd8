//! What a run of migrations is given, beside the network's specs: each VM's
//! [`Migration`] (its transport: TCP/IP, SMB [`Channel`]s or
//! [`Compression`]; its queue; what it waits for) and the busy VMs' own CPU
//! load ([`Guest`]), and their validation ([`check`]).

use hvnet_engine::{ResourceId, Seconds};
use hvnet_network::{Network, SpecError};

use crate::precopy::{GuestMemory, PrecopyParameters};

/// One SMB channel: a connection bound to a NIC pair, or (over a team's
/// interface) placed on the team's members by the team's rules.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Channel {
    /// The NIC pair it is bound to; `None`: the team rules decide, by its
    /// ports (SMB picks them: [`crate::transport::smb_ports`]).
    pub nics: Option<(u32, u32)>,
    /// Cycles per byte on the sending and receiving cores instead of the
    /// path's (SMB Direct: RDMA); `None`: the path's.
    pub cycles: Option<(f64, f64)>,
    /// The endpoints it joins instead of the migration's: a team interface
    /// of its own (SMB over several team interfaces); `None`: the migration's.
    pub endpoints: Option<(u32, u32)>,
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
    pub fn per_byte(&self, bytes: f64, zero_bytes: f64) -> (f64, f64, f64) {
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
    /// Its source and destination hosts, as the caller numbers them (a
    /// host's migrations may leave by different endpoints), and how many
    /// live migrations each takes part in at once (Set-VMHost
    /// MaximumVirtualMachineMigrations): outgoing and incoming count alike,
    /// so it starts only when both hosts have room.
    pub hosts: (u32, u32),
    pub simultaneous: (u32, u32),
}

/// One VM's own CPU load.
#[derive(Clone, Debug, PartialEq)]
pub struct Guest {
    /// The endpoint of the host it runs on at the start.
    pub host: u32,
    /// Cores' worth of work it keeps busy: its vCPUs × its load (0..1).
    pub cores: f64,
    /// The migrations (indices) that move it: it runs on the destination
    /// of each once it ends. Empty for a VM that stays.
    pub migrations: Vec<usize>,
    /// Its virtual processors (resources), when they are modelled: the same
    /// work keeps each of them `cores / vcpus.len()` busy.
    pub vcpus: Vec<ResourceId>,
}

fn valid(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

fn bad<T>(message: String) -> Result<T, SpecError> {
    Err(SpecError(message))
}

/// Checks the migrations and guests against a network that passed
/// [`hvnet_network::check`].
pub fn check(
    network: &Network,
    migrations: &[Migration],
    guests: &[Guest],
) -> Result<(), SpecError> {
    for (i, m) in migrations.iter().enumerate() {
        check_migration(network, i, m)?;
    }
    let mut moved = vec![false; migrations.len()];
    for (g, guest) in guests.iter().enumerate() {
        if !network.has_endpoint(guest.host) {
            return bad(format!("guest {g}: endpoint does not exist"));
        }
        if !valid(guest.cores) {
            return bad(format!(
                "guest {g}: cores {} is not a finite number >= 0",
                guest.cores
            ));
        }
        for &i in &guest.migrations {
            match moved.get_mut(i) {
                Some(m) if !*m => *m = true,
                Some(_) => return bad(format!("migration {i} moves two guests")),
                None => return bad(format!("guest {g}: migration {i} does not exist")),
            }
        }
        for &r in &guest.vcpus {
            network.check_resource(r)?;
        }
    }
    Ok(())
}

fn check_migration(network: &Network, i: usize, m: &Migration) -> Result<(), SpecError> {
    if !network.has_endpoint(m.source) || !network.has_endpoint(m.target) {
        return bad(format!("migration {i}: endpoint does not exist"));
    }
    let memory = &m.memory;
    let sizes = [
        memory.assigned,
        memory.populated,
        memory.dirty_rate,
        memory.working_set,
        memory.device_state,
        m.parameters.stop_bytes,
        m.parameters.switchover,
        m.parameters.setup,
        m.parameters.setup_serial,
        m.at,
    ];
    if !sizes.into_iter().all(valid)
        || memory.populated > memory.assigned
        || m.parameters.setup_serial > m.parameters.setup
    {
        return bad(format!(
            "migration {i}: sizes, rates and times must be finite and >= 0 \
             (populated <= assigned, the serial set-up <= the set-up)"
        ));
    }
    if m.after.iter().any(|&j| j >= i) || !valid(m.delay) {
        return bad(format!(
            "migration {i}: it can only wait for earlier migrations, for a delay >= 0"
        ));
    }
    if m.through
        .is_some_and(|r| network.check_resource(r).is_err())
    {
        return bad(format!("migration {i}: resource does not exist"));
    }
    if m.prepare_rate.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
        return bad(format!(
            "migration {i}: the source's prepare rate must be finite and > 0"
        ));
    }
    if m.parameters.max_passes == 0 || m.simultaneous.0 == 0 || m.simultaneous.1 == 0 {
        return bad(format!(
            "migration {i}: at least one pass and one migration at a time"
        ));
    }
    check_transport(network, i, m)
}

/// Its channels, its compression, and a path for every NIC pair its
/// connections may use.
fn check_transport(network: &Network, i: usize, m: &Migration) -> Result<(), SpecError> {
    let no_path = |a: u32, b: u32| {
        bad(format!(
            "migration {i}: no path given from NIC {a} to NIC {b}"
        ))
    };
    // The endpoint pairs whose connections the team rules place: the migration's
    // (TCP/IP, Compression), or an SMB channel's that no NIC pair binds.
    let mut placed_by_rules: Vec<(u32, u32)> = Vec::new();
    if m.channels.is_empty() {
        placed_by_rules.push((m.source, m.target));
    }
    for channel in &m.channels {
        let ends = channel.endpoints.unwrap_or((m.source, m.target));
        if !network.has_endpoint(ends.0) || !network.has_endpoint(ends.1) {
            return bad(format!(
                "migration {i}: a channel's endpoint does not exist"
            ));
        }
        match channel.nics {
            Some((a, b)) => {
                network.check_nic(a)?;
                network.check_nic(b)?;
                for (x, y) in network.pinned_pairs(ends.0, ends.1, (a, b)) {
                    if !network.has_path(x, y) {
                        return no_path(x, y);
                    }
                }
            }
            None => placed_by_rules.push(ends),
        }
        if channel.cycles.is_some_and(|(a, b)| !(valid(a) && valid(b))) {
            return bad(format!(
                "migration {i}: cycles per byte must be finite and >= 0"
            ));
        }
    }
    if let Some(c) = m.compression {
        let costs = [
            c.ratio,
            c.zero_ratio,
            c.compress_cycles,
            c.decompress_cycles,
            c.zero_cycles,
        ];
        if !(costs.into_iter().all(valid) && c.weight > 0.0 && c.weight.is_finite()) {
            return bad(format!(
                "migration {i}: compression parameters must be >= 0 (weight > 0)"
            ));
        }
    }
    placed_by_rules.sort_unstable();
    placed_by_rules.dedup();
    for (source, target) in placed_by_rules {
        let (s, t) = (
            &network.endpoints[source as usize],
            &network.endpoints[target as usize],
        );
        for a in network.candidates(s.uplink) {
            for b in network.candidates(t.uplink) {
                if !network.has_path(a, b) {
                    return no_path(a, b);
                }
            }
        }
    }
    Ok(())
}
