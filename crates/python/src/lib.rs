//! The PyO3 glue that builds `hvnet._core`: typed conversion in and out,
//! and nothing else.
//!
//! Python describes a run with the frozen dataclasses of
//! `python/hvnet/lower/specs.py`; the structs of `specs` read them by
//! attribute (`#[derive(FromPyObject)]`) and convert into the crates' types.
//! Validation is the crates' (`hvnet_network::check`,
//! `hvnet_migration::check`); the run is the migration crate's
//! (`hvnet_migration::run_with_migrations`). A spec the crates refuse, and
//! any panic during the run, raise one exception type, `CoreError` (a
//! `ValueError`). Results come back as the frozen classes of `reports`.

use std::net::IpAddr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;

use hvnet_engine::ChangePoints;
use hvnet_network::{FlowKey, Network, SpecError, MICROSOFT_RSS_KEY};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod migrations;
mod paths;
mod reports;
mod specs;

use reports::RunReport;
use specs::{CoreRun, RunSpec};

create_exception!(
    hvnet._core,
    CoreError,
    PyValueError,
    "The core refused a spec (it indicates a bug in lowering) or failed while running it."
);

fn core_error(e: SpecError) -> PyErr {
    CoreError::new_err(e.0)
}

/// What a panic carried, as text.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

/// Checks and runs `run` (the GIL released), with the engine's wall time.
fn checked_run(run: &CoreRun) -> Result<(hvnet_migration::RunReport, f64), String> {
    hvnet_network::check(&run.network, &run.connections, &run.changes).map_err(|e| e.0)?;
    hvnet_migration::check(&run.network, &run.migrations, &run.guests).map_err(|e| e.0)?;
    let clock = Instant::now();
    let report = hvnet_migration::run_with_migrations(
        &run.network,
        &run.connections,
        &run.changes,
        &run.migrations,
        &run.guests,
        run.record,
    );
    Ok((report, clock.elapsed().as_secs_f64()))
}

/// Runs connections and live migrations on a network, with failures,
/// failover, rebalancing, dynamic VMQ and the guests' own CPU load.
#[pyfunction]
fn run(py: Python<'_>, spec: RunSpec) -> PyResult<RunReport> {
    let run = CoreRun::try_from(spec).map_err(core_error)?;
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(|| checked_run(&run))));
    let (report, wall) = match outcome {
        Ok(Ok(done)) => done,
        Ok(Err(message)) => return Err(CoreError::new_err(message)),
        Err(payload) => {
            return Err(CoreError::new_err(format!(
                "the core failed: {}",
                panic_message(payload.as_ref())
            )))
        }
    };
    RunReport::new(py, report, wall)
}

/// The paths a network spec gives the core, as `run` reads them (a middle's
/// routes composed around each pair's cables, `paths`): by NIC pair and
/// endpoint MTU (none first), each its routes over time and its cycles per
/// byte. Two ways of writing a spec can be compared by what they give.
#[pyfunction]
fn read_paths(network: specs::NetworkSpec) -> PyResult<Vec<paths::PathReading>> {
    let network = Network::try_from(network).map_err(core_error)?;
    Ok(paths::readings(&network))
}

/// The Toeplitz hash of `data` under `key` (Microsoft's default RSS key when None).
#[pyfunction]
#[pyo3(signature = (data, key=None))]
fn toeplitz(data: &[u8], key: Option<&[u8]>) -> PyResult<u32> {
    hvnet_network::toeplitz(data, key.unwrap_or(&MICROSOFT_RSS_KEY))
        .map_err(|e| PyValueError::new_err(e.to_string()))
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
    let bad = |msg: String| PyValueError::new_err(msg);
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

/// A step function from Python's lists, refused (ValueError) unless each
/// time has its value and the times do not decrease.
fn change_points(times: Vec<f64>, values: Vec<f64>) -> PyResult<ChangePoints> {
    if times.len() != values.len() {
        return Err(PyValueError::new_err(format!(
            "{} times but {} values: give each time its value",
            times.len(),
            values.len()
        )));
    }
    let out_of_order = |w: &[f64]| {
        matches!(
            w[0].partial_cmp(&w[1]),
            None | Some(std::cmp::Ordering::Greater)
        )
    };
    if times.windows(2).any(out_of_order) {
        return Err(PyValueError::new_err("change points must be in time order"));
    }
    Ok(ChangePoints::from_points(times, values))
}

/// A series' change points as `hvnet.series.Series` keeps them
/// (`ChangePoints::scaled`): each value times `scale`, noise within
/// `rounding` of its largest value 0, and no point that says nothing.
#[pyfunction]
fn scaled_points(
    times: Vec<f64>,
    values: Vec<f64>,
    scale: f64,
    rounding: f64,
) -> PyResult<(Vec<f64>, Vec<f64>)> {
    Ok(change_points(times, values)?
        .scaled(scale, rounding)
        .into_parts())
}

/// The integral of a step function over each of `bins` bins of `width`
/// from 0, up to `end` (`ChangePoints::bin_integrals`).
#[pyfunction]
fn bin_integrals(
    times: Vec<f64>,
    values: Vec<f64>,
    width: f64,
    end: f64,
    bins: usize,
) -> PyResult<Vec<f64>> {
    Ok(change_points(times, values)?.bin_integrals(width, end, bins))
}

/// A step function's time-weighted `percentiles` over `[0, end)` (in
/// increasing order) and its time above `threshold`
/// (`ChangePoints::percentiles_and_busy`).
#[pyfunction]
fn percentiles_and_busy(
    times: Vec<f64>,
    values: Vec<f64>,
    end: f64,
    percentiles: Vec<f64>,
    threshold: f64,
) -> PyResult<(Vec<f64>, f64)> {
    Ok(change_points(times, values)?.percentiles_and_busy(end, &percentiles, threshold))
}

/// For each step function of `series`, over `[0, end)`: its time-weighted
/// `percentiles` and its time above its entry of `thresholds`
/// (`percentiles_and_busy`), and its peak (`ChangePoints::peak`); the
/// utilisation of thousands of cores in one call.
#[pyfunction]
fn series_figures(
    series: Vec<(Vec<f64>, Vec<f64>)>,
    end: f64,
    percentiles: Vec<f64>,
    thresholds: Vec<f64>,
) -> PyResult<Vec<(Vec<f64>, f64, f64)>> {
    if series.len() != thresholds.len() {
        return Err(PyValueError::new_err(format!(
            "{} series but {} thresholds: give each series its threshold",
            series.len(),
            thresholds.len()
        )));
    }
    (series.into_iter().zip(thresholds))
        .map(|((times, values), threshold)| {
            let points = change_points(times, values)?;
            let (shares, busy) = points.percentiles_and_busy(end, &percentiles, threshold);
            Ok((shares, busy, points.peak()))
        })
        .collect()
}

/// The mean of a step function over each bin, times `scale`
/// (`ChangePoints::bin_means`).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn bin_means(
    times: Vec<f64>,
    values: Vec<f64>,
    width: f64,
    end: f64,
    axis_end: f64,
    bins: usize,
    scale: f64,
) -> PyResult<Vec<f64>> {
    Ok(change_points(times, values)?.bin_means(width, end, axis_end, bins, scale))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CoreError", m.py().get_type::<CoreError>())?;
    m.add_class::<RunReport>()?;
    m.add_class::<reports::ConnectionReport>()?;
    m.add_class::<reports::ConnectionReports>()?;
    m.add_class::<reports::MigrationReport>()?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(read_paths, m)?)?;
    m.add_function(wrap_pyfunction!(toeplitz, m)?)?;
    m.add_function(wrap_pyfunction!(rss_hash, m)?)?;
    m.add_function(wrap_pyfunction!(scaled_points, m)?)?;
    m.add_function(wrap_pyfunction!(bin_integrals, m)?)?;
    m.add_function(wrap_pyfunction!(percentiles_and_busy, m)?)?;
    m.add_function(wrap_pyfunction!(series_figures, m)?)?;
    m.add_function(wrap_pyfunction!(bin_means, m)?)?;
    Ok(())
}
