//! What a run reports, as frozen Python classes: one [`ConnectionReport`]
//! per connection (made when it is read, from [`ConnectionReports`]), one
//! [`MigrationReport`] per migration, in a [`RunReport`].

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use hvnet_engine::ChangePoints;
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyIterator, PyList};

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

/// The run's connections, in the core's form: a sequence whose items,
/// [`ConnectionReport`]s, are made when they are read (a run of thousands of
/// migrations opens tens of thousands of connections, few of them read).
#[pyclass(frozen, sequence, module = "hvnet._core")]
pub struct ConnectionReports {
    reports: Vec<hvnet_network::ConnectionReport>,
}

#[pymethods]
impl ConnectionReports {
    fn __len__(&self) -> usize {
        self.reports.len()
    }

    /// The report of connection `k` (negative: from the end); IndexError out of range.
    fn __getitem__(&self, k: isize) -> PyResult<ConnectionReport> {
        let n = self.reports.len() as isize;
        let at = if k < 0 { k + n } else { k };
        if at < 0 || at >= n {
            return Err(PyIndexError::new_err(format!(
                "connection {k} is not one of the run's {n}"
            )));
        }
        Ok(ConnectionReport::from(&self.reports[at as usize]))
    }

    /// The connections (indices, in order) that a failure may have touched:
    /// black-holed, moved to another NIC or route, or stalled for good (it
    /// never completed because its path went down). The others' reports
    /// need not be read to know what failures did.
    fn disturbed(&self) -> Vec<usize> {
        (self.reports.iter().enumerate())
            .filter(|(_, c)| {
                !c.blackholes.is_empty()
                    || c.members.len() > 1
                    || !c.rerouted.is_empty()
                    || (c.end.is_none() && c.stalled_since.is_some())
            })
            .map(|(k, _)| k)
            .collect()
    }

    /// Every report, in order.
    fn __iter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyIterator>> {
        let py = slf.py();
        let all = (slf.get().reports.iter())
            .map(|c| Py::new(py, ConnectionReport::from(c)))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, all)?.as_any().try_iter()
    }
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

/// What a run produced. The recording stays here, in the core's form, until
/// it is read: whole (`series`), or scaled for the resources asked for
/// (`scaled_series`, and with their utilisation figures `figured_series`),
/// each point converted once.
#[pyclass(frozen, module = "hvnet._core")]
pub struct RunReport {
    #[pyo3(get)]
    connections: Py<ConnectionReports>,
    #[pyo3(get)]
    migrations: Vec<Py<MigrationReport>>,
    #[pyo3(get)]
    end_s: f64,
    #[pyo3(get)]
    events: u64,
    #[pyo3(get)]
    wall_s: f64,
    recording: Option<Vec<ChangePoints>>,
}

/// One resource's series and figures from [`RunReport::figured_series`]:
/// `(times_s, values, percentiles, busy_s, peak, integral)`; None for a
/// resource that was never used (no points: all its figures are 0).
type FiguredSeries<'py> = (
    Bound<'py, PyList>,
    Bound<'py, PyList>,
    Vec<f64>,
    f64,
    f64,
    f64,
);

/// Hashes a float's bits with one multiplication (Fibonacci hashing), its
/// high bits folded onto the low ones the table indexes by: [`Floats`]
/// looks up a million of them a call, and SipHash's resistance to chosen
/// keys is of no use there.
#[derive(Default)]
struct BitsHasher(u64);

impl Hasher for BitsHasher {
    /// Byte by byte, for completeness ([`Floats`] hashes `u64`s only).
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(b));
        }
    }

    fn write_u64(&mut self, bits: u64) {
        let h = bits.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The Python floats of one call's lists, each value made once (by its
/// bits) and referred to by every list that holds it: a run's series share
/// few times and fewer values (2,048 cores: 800,000 points, 10,000 times,
/// 16 values), and a float already made costs a reference, not an object.
struct Floats<'py> {
    py: Python<'py>,
    made: HashMap<u64, Bound<'py, PyFloat>, BuildHasherDefault<BitsHasher>>,
}

impl<'py> Floats<'py> {
    fn new(py: Python<'py>) -> Self {
        Floats {
            py,
            made: HashMap::default(),
        }
    }

    /// `xs` as a list of floats, equal to theirs to the bit.
    fn list(&mut self, xs: &[f64]) -> PyResult<Bound<'py, PyList>> {
        let (py, made) = (self.py, &mut self.made);
        let items = xs.iter().map(|&x| {
            (made.entry(x.to_bits()))
                .or_insert_with(|| PyFloat::new(py, x))
                .clone()
        });
        PyList::new(py, items)
    }
}

/// Over `[0, end)`, the figures `hvnet.utilisation` gives `points × share`:
/// the time-weighted `percentiles` of the points and their peak, each times
/// `share`, and the time the points are above `busy_share / share` (the
/// product above `busy_share`); all 0 where `share` or `end` is not above 0
/// or the points are 0 throughout (an idle resource).
fn utilisation_figures(
    points: &ChangePoints,
    end: f64,
    percentiles: &[f64],
    busy_share: f64,
    share: f64,
) -> (Vec<f64>, f64, f64) {
    if !(share > 0.0 && end > 0.0 && points.values().iter().any(|&v| v != 0.0)) {
        return (vec![0.0; percentiles.len()], 0.0, 0.0);
    }
    let (values, busy) = points.percentiles_and_busy(end, percentiles, busy_share / share);
    let shares = values.into_iter().map(|v| v * share).collect();
    (shares, busy, points.peak() * share)
}

/// `∫ points` over `[0, end)` as `hvnet.series.Series.integral` computes it:
/// one bin of `ChangePoints::bin_integrals` when `end` is finite and above
/// 0, else piece by piece.
fn integral_to(points: &ChangePoints, end: f64) -> f64 {
    if end > 0.0 && end < f64::INFINITY {
        points.bin_integrals(end, end, 1)[0]
    } else {
        points.integral(0.0, end)
    }
}

#[pymethods]
impl RunReport {
    /// Per resource, its use over time as change points `(times_s, values)`:
    /// `values[i]` from `times_s[i]` until the next time (the last until
    /// `end_s`), 0 before the first; None when not recorded.
    #[getter]
    fn series(&self) -> Option<Vec<(Vec<f64>, Vec<f64>)>> {
        (self.recording.as_ref()).map(|all| {
            all.iter()
                .map(|c| (c.times().to_vec(), c.values().to_vec()))
                .collect()
        })
    }

    /// Whether the run recorded each resource's use.
    #[getter]
    fn recorded(&self) -> bool {
        self.recording.is_some()
    }

    /// The change points of each of `resources` as `hvnet.series.Series`
    /// keeps them, its values times its entry of `scales`
    /// (`ChangePoints::scaled`, as `scaled_points` gives them; each distinct
    /// value one float, [`Floats`]); ValueError when the run did not record,
    /// a resource is not one of the run's, or the lists' lengths differ.
    fn scaled_series<'py>(
        &self,
        py: Python<'py>,
        resources: Vec<usize>,
        scales: Vec<f64>,
        rounding: f64,
    ) -> PyResult<Vec<(Bound<'py, PyList>, Bound<'py, PyList>)>> {
        let all = self.recording()?;
        if resources.len() != scales.len() {
            return Err(PyValueError::new_err(format!(
                "{} resources but {} scales: give each resource its scale",
                resources.len(),
                scales.len()
            )));
        }
        let mut floats = Floats::new(py);
        (resources.iter().zip(&scales))
            .map(|(&r, &scale)| {
                let points = scaled(all, r, scale, rounding)?;
                Ok((floats.list(points.times())?, floats.list(points.values())?))
            })
            .collect()
    }

    /// For each `(resource, scale, share)` of `wanted`: the resource's
    /// change points as `scaled_series` gives them, and, computed from them
    /// in the same call, what `hvnet.utilisation` makes of those points
    /// times the share (a NIC's 1/speed, 1 for a core's busy share) over
    /// `[0, end)` (`utilisation_figures`): the time-weighted `percentiles`
    /// and the peak, each times the share, and the seconds the product is
    /// above `busy_share`, all 0 for an idle resource; and last, the
    /// points' integral over `[0, end)` (`hvnet.series.Series.integral`: a
    /// NIC's bits). None for a resource with no points (never used: all of
    /// that is 0), which read-back makes one shared idle series. ValueError
    /// when the run did not record or a resource is not one of the run's.
    fn figured_series<'py>(
        &self,
        py: Python<'py>,
        wanted: Vec<(usize, f64, f64)>,
        rounding: f64,
        end: f64,
        percentiles: Vec<f64>,
        busy_share: f64,
    ) -> PyResult<Vec<Option<FiguredSeries<'py>>>> {
        let all = self.recording()?;
        let mut floats = Floats::new(py);
        (wanted.iter())
            .map(|&(r, scale, share)| {
                let points = scaled(all, r, scale, rounding)?;
                if points.is_empty() {
                    return Ok(None); // most cores of a large cluster: read back as one shared idle series
                }
                let (figures, busy, peak) =
                    utilisation_figures(&points, end, &percentiles, busy_share, share);
                let integral = integral_to(&points, end);
                let (times, values) = (floats.list(points.times())?, floats.list(points.values())?);
                Ok(Some((times, values, figures, busy, peak, integral)))
            })
            .collect()
    }
}

/// Resource `r`'s points of `all`, each value times `scale`, as
/// `hvnet.series.Series` keeps them (`ChangePoints::scaled`); ValueError
/// when `r` is not one of the run's resources.
fn scaled(all: &[ChangePoints], r: usize, scale: f64, rounding: f64) -> PyResult<ChangePoints> {
    let points = all.get(r).ok_or_else(|| {
        PyValueError::new_err(format!(
            "resource {r} is not one of the run's {}",
            all.len()
        ))
    })?;
    Ok(points.scaled(scale, rounding))
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
            connections: Py::new(
                py,
                ConnectionReports {
                    reports: report.connections,
                },
            )?,
            migrations: (report.migrations.iter())
                .map(|m| Py::new(py, MigrationReport::from(m)))
                .collect::<PyResult<_>>()?,
            end_s: report.end_time,
            events: report.events,
            wall_s,
            recording: report.series,
        })
    }

    /// Each resource's recorded use; ValueError when the run did not record.
    fn recording(&self) -> PyResult<&[ChangePoints]> {
        (self.recording.as_deref())
            .ok_or_else(|| PyValueError::new_err("the run did not record its resources' use"))
    }
}
