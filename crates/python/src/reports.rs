//! What a run reports, as frozen Python classes: one [`ConnectionReport`]
//! per connection, one [`MigrationReport`] per migration, in a [`RunReport`].

use hvnet_engine::ChangePoints;
use pyo3::prelude::*;

/// Where one connection went and how it fared; times in seconds.
#[pyclass(frozen, get_all, module = "hvnet._core")]
pub struct ConnectionReport {
    end_s: Option<f64>,
    /// `(time, outbound NIC, inbound NIC)` at its start and at every move.
    members: Vec<(f64, Option<u32>, Option<u32>)>,
    blackholed_s: f64,
    /// `(from, to)` of each stretch its path was down.
    blackholes: Vec<(f64, f64)>,
    stalled_since_s: Option<f64>,
    /// The resources down on its route when the run ended, when stalled.
    stalled_on: Vec<usize>,
    /// When the fabric's routing moved it to another route.
    rerouted_s: Vec<f64>,
    sent_bytes: f64,
    send_core_s: f64,
    receive_core_s: f64,
}

/// What one migration did.
#[pyclass(frozen, get_all, module = "hvnet._core")]
pub struct MigrationReport {
    queued_s: f64,
    start_s: Option<f64>,
    end_s: Option<f64>,
    /// `(bytes, start, end)` of each pre-copy pass.
    passes: Vec<(f64, f64, f64)>,
    blackout_s: Option<f64>,
    bytes_sent: f64,
    peak_bytes_per_s: f64,
    peak_wire_bytes_per_s: f64,
    connections: Vec<usize>,
    cpu_core_s_source: f64,
    cpu_core_s_destination: f64,
}

/// What a run produced.
#[pyclass(frozen, get_all, module = "hvnet._core")]
pub struct RunReport {
    connections: Vec<Py<ConnectionReport>>,
    migrations: Vec<Py<MigrationReport>>,
    end_s: f64,
    events: u64,
    wall_s: f64,
    /// Per resource, its use over time as change points `(times_s, values)`:
    /// `values[i]` from `times_s[i]` until the next time (the last until
    /// `end_s`), 0 before the first; None when not recorded.
    series: Option<Vec<(Vec<f64>, Vec<f64>)>>,
}

impl From<&hvnet_network::ConnectionReport> for ConnectionReport {
    fn from(c: &hvnet_network::ConnectionReport) -> Self {
        ConnectionReport {
            end_s: c.end,
            members: c.members.clone(),
            blackholed_s: c.blackholed,
            blackholes: c.blackholes.clone(),
            stalled_since_s: c.stalled_since,
            stalled_on: c.stalled_on.clone(),
            rerouted_s: c.rerouted.clone(),
            sent_bytes: c.sent,
            send_core_s: c.send_core_s,
            receive_core_s: c.receive_core_s,
        }
    }
}

impl From<&hvnet_migration::MigrationReport> for MigrationReport {
    fn from(m: &hvnet_migration::MigrationReport) -> Self {
        MigrationReport {
            queued_s: m.queued,
            start_s: m.start,
            end_s: m.end,
            passes: m.passes.iter().map(|p| (p.bytes, p.start, p.end)).collect(),
            blackout_s: m.blackout,
            bytes_sent: m.bytes_sent,
            peak_bytes_per_s: m.peak_rate,
            peak_wire_bytes_per_s: m.peak_wire_rate,
            connections: m.connections.clone(),
            cpu_core_s_source: m.cpu_core_s_source,
            cpu_core_s_destination: m.cpu_core_s_destination,
        }
    }
}

impl RunReport {
    pub fn new(py: Python<'_>, report: hvnet_migration::RunReport, wall_s: f64) -> PyResult<Self> {
        Ok(RunReport {
            connections: (report.connections.iter())
                .map(|c| Py::new(py, ConnectionReport::from(c)))
                .collect::<PyResult<_>>()?,
            migrations: (report.migrations.iter())
                .map(|m| Py::new(py, MigrationReport::from(m)))
                .collect::<PyResult<_>>()?,
            end_s: report.end_time,
            events: report.events,
            wall_s,
            series: (report.series)
                .map(|all| all.into_iter().map(ChangePoints::into_parts).collect()),
        })
    }
}
