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
//!   the current rates would reach it).

use hvnet_network::{Connection, Run};

use crate::run::{MigrationTimer, Migrations, Under};
use crate::spec::Channel;

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
        let bound: Vec<Option<Channel>> = if spec.channels.is_empty() {
            vec![None]
        } else {
            spec.channels.iter().copied().map(Some).collect()
        };
        let connections = bound.into_iter().map(|channel| {
            let (pinned, ports, cycles) = match channel {
                Some(c) => (c.nics, c.ports, c.cycles),
                None => (None, spec.ports, None),
            };
            Connection {
                pinned,
                cycles,
                compression: spec.compression.map(|c| c.per_byte(bytes, zero_bytes)),
                weight: spec.compression.map_or(1.0, |c| c.weight),
                through: spec.through,
                ..Connection::new(
                    spec.source,
                    spec.target,
                    Some(ports),
                    bytes,
                    run.now(),
                    None,
                )
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
            let (mut moved, mut rate) = (0.0, 0.0);
            for &k in &under.connections {
                if let Some(m) = run.moved(k) {
                    moved += m;
                    rate += run.rate(k).unwrap_or(0.0);
                }
            }
            let report = &mut self.reports[i];
            report.peak_rate = report.peak_rate.max(rate);
            let left = under.bytes - moved;
            let several = under.connections.len() > 1;
            if several && left <= 1e-9 * under.bytes {
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
