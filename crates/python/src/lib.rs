//! The PyO3 glue that builds `hvnet._core`. It converts Python values to the
//! engine's inputs and back, turns bad input into `ValueError`, and holds no
//! simulation logic of its own.

use std::net::IpAddr;
use std::time::Instant;

use hvnet_engine::{ActivitySpec, CapacityChange, Sharing, Transfer, Workload};
use hvnet_network::{FlowKey, MICROSOFT_RSS_KEY};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

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
    let key = match (parse(src_ip)?, parse(dst_ip)?) {
        (IpAddr::V4(src), IpAddr::V4(dst)) => FlowKey::Ipv4 {
            src,
            dst,
            src_port,
            dst_port,
        },
        (IpAddr::V6(src), IpAddr::V6(dst)) => FlowKey::Ipv6 {
            src,
            dst,
            src_port,
            dst_port,
        },
        _ => {
            return Err(bad(format!(
                "{src_ip} and {dst_ip} are not of the same IP version"
            )))
        }
    };
    Ok(hvnet_network::rss_hash(&key, &MICROSOFT_RSS_KEY))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run_workload, m)?)?;
    m.add_function(wrap_pyfunction!(toeplitz, m)?)?;
    m.add_function(wrap_pyfunction!(rss_hash, m)?)?;
    Ok(())
}
