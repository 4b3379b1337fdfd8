//! How a migration's step moves its bytes over the network:
//!
//! - **TCP/IP** (no channels): over one TCP connection from the source host to
//!   the destination host; the team member and the receiving core follow the
//!   rules of every connection;
//! - **Compression** (over TCP/IP): each byte of memory puts the compressed
//!   bytes on the wire, and costs the (de)compression cycles on all the
//!   source's and destination's cores, at the compression's weight;
//! - **SMB** (channels): over one connection per SMB channel, each bound to its
//!   NIC pair (or, over a team's interface, placed by the team's rules). SMB
//!   hands out the step's chunks to whichever channel is free, so the
//!   channels share the step's bytes by their rates: every channel may carry
//!   the whole step, and the step ends when what they moved together
//!   reaches its size (checked after each event, and by a timer at the time
//!   the current rates would reach it). Each channel's source port is
//!   chosen so that, as far as the receiving host's RSS queues allow, it
//!   lands on a queue (a core) of its own ([`smb_ports`]).

use std::net::IpAddr;

use hvnet_network::{rss_hash, Connection, Cores, FlowKey, Network, Run, MICROSOFT_RSS_KEY};

use crate::run::{MigrationTimer, Migrations, Under};
use crate::spec::{Channel, Migration};

/// SMB listens on port 445.
pub const SMB_PORT: u16 = 445;
/// The first source port SMB tries for the channels of migration `i` is
/// `SMB_SOURCE_PORT + 64 i`, counted on in Windows' dynamic range.
const SMB_SOURCE_PORT: u32 = 63_000;
/// Windows' dynamic (ephemeral) port range: 49152-65535.
const EPHEMERAL_FIRST: u32 = 49_152;
const EPHEMERAL_COUNT: u32 = 65_536 - EPHEMERAL_FIRST;
/// Ports SMB tries for one channel before it settles for a queue in use.
const TRIES: usize = 4096;

/// The `(source, destination)` ports of the SMB channels of migration `i`
/// (the `i`-th of the run): from its first source port on, each channel
/// takes the first port whose connection the destination's RSS queues put
/// on a queue no earlier channel on the same NIC uses, while one is left
/// (assumed: SMB spreads its connections over the RSS queues it opens them
/// for; see docs/model.md). The queues are those of the NIC a channel is
/// bound to (its own RSS settings), else the destination's. A destination
/// without cores modelled takes the ports in turn.
pub fn smb_ports(network: &Network, i: usize, m: &Migration) -> Vec<(u16, u16)> {
    let mut used: Vec<(Option<u32>, usize)> = Vec::new();
    let mut next = SMB_SOURCE_PORT + 64 * i as u32;
    let mut ports = Vec::with_capacity(m.channels.len());
    for channel in &m.channels {
        let (source, target) = channel.endpoints.unwrap_or((m.source, m.target));
        let (source, target) = (
            &network.endpoints[source as usize],
            &network.endpoints[target as usize],
        );
        let in_nic = channel.nics.map(|(_, b)| b);
        let queues = match in_nic.and_then(|n| network.nic_rss.get(n as usize)) {
            Some(rss @ Cores::Rss(_)) => rss,
            _ => &target.receive_cores,
        };
        let in_use =
            |used: &[(Option<u32>, usize)]| used.iter().filter(|(n, _)| *n == in_nic).count();
        let mut taken = (ephemeral(next), None);
        for _ in 0..TRIES {
            let port = ephemeral(next);
            next += 1;
            let queue = queues.queue(hash(source.address, target.address, port));
            taken = (port, queue);
            let free = queue.is_none_or(|q| !used.contains(&(in_nic, q)));
            if free || in_use(&used) >= queues.queues() {
                break;
            }
        }
        used.extend(taken.1.map(|q| (in_nic, q)));
        ports.push((taken.0, SMB_PORT));
    }
    ports
}

/// A port counted on from the start of Windows' dynamic range past its end.
fn ephemeral(port: u32) -> u16 {
    let port = if port < EPHEMERAL_FIRST {
        port
    } else {
        EPHEMERAL_FIRST + (port - EPHEMERAL_FIRST) % EPHEMERAL_COUNT
    };
    u16::try_from(port).unwrap_or(u16::MAX)
}

/// The RSS hash of an SMB connection from `port` to 445.
fn hash(source: IpAddr, target: IpAddr, port: u16) -> u32 {
    FlowKey::new(source, target, Some((port, SMB_PORT)))
        .map_or(0, |key| rss_hash(&key, &MICROSOFT_RSS_KEY))
}

impl Migrations<'_> {
    /// Opens the connections of migration `i`'s step of `bytes`, of which
    /// `zero_bytes` are zero pages.
    pub(crate) fn copy(
        &mut self,
        run: &mut Run<'_, MigrationTimer>,
        i: usize,
        bytes: f64,
        zero_bytes: f64,
    ) {
        let spec = &self.specs[i];
        // TCP/IP is one connection that the rules place; SMB one per channel.
        let bound: Vec<Option<(Channel, (u16, u16))>> = if spec.channels.is_empty() {
            vec![None]
        } else {
            let ports = self.channel_ports[i].iter().copied();
            spec.channels.iter().copied().zip(ports).map(Some).collect()
        };
        let connections = bound.into_iter().map(|channel| {
            let (pinned, ports, cycles, ends) = match channel {
                Some((c, ports)) => (c.nics, ports, c.cycles, c.endpoints),
                None => (None, spec.ports, None, None),
            };
            let (source, target) = ends.unwrap_or((spec.source, spec.target));
            Connection {
                pinned,
                cycles,
                compression: spec.compression.map(|c| c.per_byte(bytes, zero_bytes)),
                weight: spec.compression.map_or(1.0, |c| c.weight),
                through: spec.through,
                ..Connection::new(source, target, Some(ports), bytes, run.now(), None)
            }
        });
        let connections: Vec<Connection> = connections.collect();
        let opened = run.open(connections);
        for &k in &opened {
            self.owner.insert(k, i);
        }
        self.reports[i].connections.extend(&opened);
        self.reports[i].bytes_sent += bytes;
        self.under[i] = Some(Under {
            connections: opened,
            bytes,
            check: None,
        });
    }

    /// After every event: note each step's rate, end the steps whose channels
    /// have moved their bytes together, and set a timer for when the others will.
    pub(crate) fn check_steps(&mut self, run: &mut Run<'_, MigrationTimer>) {
        let mut i = 0;
        while i < self.under.len() {
            let Some(under) = &self.under[i] else {
                i += 1;
                continue;
            };
            let (mut moved, mut rate, mut wire) = (0.0, 0.0, 0.0);
            for &k in &under.connections {
                if let Some(m) = run.moved(k) {
                    let r = run.rate(k).unwrap_or(0.0);
                    moved += m;
                    rate += r;
                    wire += r * run.connection(k).compression.map_or(1.0, |(w, _, _)| w);
                }
            }
            let report = &mut self.reports[i];
            report.peak_rate = report.peak_rate.max(rate);
            report.peak_wire_rate = report.peak_wire_rate.max(wire);
            let left = under.bytes - moved;
            let several = under.connections.len() > 1;
            // Done when what is left is a rounding error of the bytes, or would take
            // less than the clock can resolve now (late in a long run, a step whose
            // check fell at `now` again would be looked at forever).
            let unresolvable = rate > 0.0 && run.now() + left / rate <= run.now();
            if several && (left <= 1e-9 * under.bytes || unresolvable) {
                // The next step (the blackout copy) starts now: look at it again.
                self.finish_step(run, i);
                continue;
            } else if several && rate > 0.0 {
                if let Some(under) = self.under[i].as_mut() {
                    if let Some(timer) = under.check.take() {
                        run.cancel_timer(timer);
                    }
                    let at = run.now() + left / rate;
                    under.check = Some(run.schedule(at, MigrationTimer::StepCheck(i)));
                }
            }
            i += 1;
        }
    }
}
