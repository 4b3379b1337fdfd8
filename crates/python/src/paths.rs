//! The paths as Python gives them (`hvnet.lower.specs.Path`, `Middle`): a
//! NIC pair's routes over time as they are, or by the index of a middle,
//! the routes between two switches that every pair whose cables meet them
//! shares (`NetworkSpec.middles`). Here each route of the middle goes
//! between the pair's two cables, so the network crate gets every pair's
//! [`Path`] whole, as if Python had composed it. Nothing is checked here
//! but what the composition needs (a middle that exists, a cable out, not
//! routes and a middle at once); the crates' `check` does the rest. The
//! pairs' own paths mostly come as one table of columns
//! (`specs.PathTable`, [`PathTableSpec`]): one row per pair, expanded here
//! into the same paths.

use hvnet_engine::ResourceId;
use hvnet_network::{Network, Path, Route, Routes, SpecError};
use pyo3::FromPyObject;

#[derive(FromPyObject)]
pub struct RoutesSpec {
    from_s: f64,
    ecmp: Vec<Route>,
}

#[derive(FromPyObject)]
pub struct PathSpec {
    out_nic: u32,
    in_nic: u32,
    routing: Vec<RoutesSpec>,
    send_cycles_per_byte: f64,
    receive_cycles_per_byte: f64,
    guest_send_cycles_per_byte: f64,
    guest_receive_cycles_per_byte: f64,
    endpoint_mtu: Option<u32>,
    /// Its middle, by index, in place of `routing`; the resources of the
    /// cable out of its source NIC and into its target NIC around each of
    /// the middle's routes (`in_cable` `None`: a cable from NIC to NIC).
    middle: Option<usize>,
    out_cable: Option<ResourceId>,
    in_cable: Option<ResourceId>,
}

/// The routes between two switches at one packet size that NIC pairs
/// share (`specs.Middle`): from each time on, each route's resources
/// between a pair's two cables, or `None` where a switch on it drops the
/// packets (the pair's route is then `dropped`, whole).
#[derive(FromPyObject)]
pub struct MiddleSpec {
    routing: Vec<(f64, Vec<Option<Route>>)>,
    /// The use per payload byte of the pair's two cables.
    coefficient: f64,
    dropped: Route,
}

impl MiddleSpec {
    /// A NIC pair's routes over time: each route of the middle between the
    /// cable out of its source NIC and the cable into its target NIC
    /// (`None`: a cable from NIC to NIC, `out` alone), both at the middle's
    /// coefficient.
    fn compose(&self, out: ResourceId, into: Option<ResourceId>) -> Vec<Routes> {
        let c = self.coefficient;
        (self.routing.iter())
            .map(|(from, ecmp)| Routes {
                from: *from,
                ecmp: (ecmp.iter())
                    .map(|part| match part {
                        None => self.dropped.clone(),
                        Some(part) => {
                            let mut route = Vec::with_capacity(part.len() + 2);
                            route.push((out, c));
                            route.extend_from_slice(part);
                            route.extend(into.map(|r| (r, c)));
                            route
                        }
                    })
                    .collect(),
            })
            .collect()
    }
}

/// The NIC pairs' own paths (no endpoint MTU) as columns, one row per pair
/// (`specs.PathTable`): its NICs, its routes as a middle (by index, around
/// its two cables) or, without one, as one of the table's `routings` (a
/// pair with no cabled path), and its cycles per payload byte as one of the
/// table's `costs`.
#[derive(FromPyObject)]
pub struct PathTableSpec {
    out_nic: Vec<u32>,
    in_nic: Vec<u32>,
    middle: Vec<Option<usize>>,
    routing: Vec<Option<usize>>,
    out_cable: Vec<Option<ResourceId>>,
    in_cable: Vec<Option<ResourceId>>,
    cost: Vec<usize>,
    /// The routes over time of the pairs without a middle (`routing`).
    routings: Vec<Vec<RoutesSpec>>,
    /// Cycles per payload byte on the sending and receiving core and vCPU.
    costs: Vec<(f64, f64, f64, f64)>,
}

/// A refusal of the path from NIC `a` to NIC `b`.
fn refused(a: u32, b: u32, why: String) -> SpecError {
    SpecError(format!("path from NIC {a} to NIC {b}: {why}"))
}

/// The routes of the pair from NIC `a` to NIC `b` whose cables go around
/// middle `k` (one of `middles`): the cable out of `a` is needed.
fn around_middle(
    (a, b): (u32, u32),
    middles: &[MiddleSpec],
    k: usize,
    out_cable: Option<ResourceId>,
    in_cable: Option<ResourceId>,
) -> Result<Vec<Routes>, SpecError> {
    let middle = middles.get(k).ok_or_else(|| {
        refused(
            a,
            b,
            format!("middle {k} does not exist ({} middles)", middles.len()),
        )
    })?;
    let out = out_cable
        .ok_or_else(|| refused(a, b, format!("a middle needs the cable out of NIC {a}")))?;
    Ok(middle.compose(out, in_cable))
}

/// Routes over time as the network crate has them.
fn routes(given: Vec<RoutesSpec>) -> Vec<Routes> {
    (given.into_iter())
        .map(|r| Routes {
            from: r.from_s,
            ecmp: r.ecmp,
        })
        .collect()
}

/// A path with its cycles per payload byte.
fn path(
    routing: Vec<Routes>,
    (send, receive, guest_send, guest_receive): (f64, f64, f64, f64),
) -> Path {
    Path {
        routing,
        send_cycles_per_byte: send,
        receive_cycles_per_byte: receive,
        guest_send_cycles_per_byte: guest_send,
        guest_receive_cycles_per_byte: guest_receive,
    }
}

impl PathSpec {
    /// The path for the network crate, with its NICs and endpoint MTU (its
    /// key there): its routes as given, or composed around its middle (one
    /// of `middles`).
    pub fn into_path(
        self,
        middles: &[MiddleSpec],
    ) -> Result<(u32, u32, Option<u32>, Path), SpecError> {
        let (a, b) = (self.out_nic, self.in_nic);
        let routing = match self.middle {
            None => routes(self.routing),
            Some(k) => {
                let routing = around_middle((a, b), middles, k, self.out_cable, self.in_cable)?;
                if !self.routing.is_empty() {
                    return Err(refused(
                        a,
                        b,
                        "give its routes or a middle, not both".into(),
                    ));
                }
                routing
            }
        };
        let cycles = (
            self.send_cycles_per_byte,
            self.receive_cycles_per_byte,
            self.guest_send_cycles_per_byte,
            self.guest_receive_cycles_per_byte,
        );
        Ok((a, b, self.endpoint_mtu, path(routing, cycles)))
    }
}

impl PathTableSpec {
    /// Each row's NICs and path for the network crate, in row order: the
    /// same as a `PathSpec` per row would give. Refuses columns of
    /// different lengths and an index out of range.
    pub fn into_paths(self, middles: &[MiddleSpec]) -> Result<Vec<(u32, u32, Path)>, SpecError> {
        let rows = self.out_nic.len();
        let lengths = [
            ("in_nic", self.in_nic.len()),
            ("middle", self.middle.len()),
            ("routing", self.routing.len()),
            ("out_cable", self.out_cable.len()),
            ("in_cable", self.in_cable.len()),
            ("cost", self.cost.len()),
        ];
        if let Some((name, n)) = lengths.iter().find(|(_, n)| *n != rows) {
            return Err(SpecError(format!(
                "path table: column {name} has {n} rows, out_nic {rows}"
            )));
        }
        let routings: Vec<Vec<Routes>> = self.routings.into_iter().map(routes).collect();
        let mut paths = Vec::with_capacity(rows);
        for i in 0..rows {
            let (a, b) = (self.out_nic[i], self.in_nic[i]);
            let c = self.cost[i];
            let cycles = *self.costs.get(c).ok_or_else(|| {
                let n = self.costs.len();
                refused(a, b, format!("cost {c} does not exist ({n} costs)"))
            })?;
            let routing = match (self.middle[i], self.routing[i]) {
                (Some(k), None) => {
                    around_middle((a, b), middles, k, self.out_cable[i], self.in_cable[i])?
                }
                (None, Some(r)) => routings.get(r).cloned().ok_or_else(|| {
                    let n = routings.len();
                    refused(a, b, format!("routing {r} does not exist ({n} routings)"))
                })?,
                _ => return Err(refused(a, b, "give one of a routing and a middle".into())),
            };
            paths.push((a, b, path(routing, cycles)));
        }
        Ok(paths)
    }
}

/// A path as the network crate has it: its NICs, endpoint MTU, routes over
/// time (from, ECMP routes) and cycles per payload byte on the sending and
/// receiving core and vCPU.
pub type PathReading = (
    u32,
    u32,
    Option<u32>,
    Vec<(f64, Vec<Route>)>,
    (f64, f64, f64, f64),
);

/// Every path of `network`, by NIC pair and endpoint MTU (none first).
pub fn readings(network: &Network) -> Vec<PathReading> {
    let own = (network.paths.iter()).map(|(&(a, b), path)| (a, b, None, path));
    let by_mtu =
        (network.paths_by_endpoint_mtu.iter()).map(|(&(a, b, m), path)| (a, b, Some(m), path));
    let mut all: Vec<_> = own.chain(by_mtu).collect();
    all.sort_unstable_by_key(|&(a, b, mtu, _)| (a, b, mtu));
    (all.into_iter())
        .map(|(a, b, mtu, p)| {
            let routing = (p.routing.iter())
                .map(|r| (r.from, r.ecmp.clone()))
                .collect();
            let cycles = (
                p.send_cycles_per_byte,
                p.receive_cycles_per_byte,
                p.guest_send_cycles_per_byte,
                p.guest_receive_cycles_per_byte,
            );
            (a, b, mtu, routing, cycles)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(middle: Option<usize>, in_cable: Option<ResourceId>) -> PathSpec {
        PathSpec {
            out_nic: 0,
            in_nic: 1,
            routing: vec![],
            send_cycles_per_byte: 1.0,
            receive_cycles_per_byte: 2.0,
            guest_send_cycles_per_byte: 3.0,
            guest_receive_cycles_per_byte: 4.0,
            endpoint_mtu: Some(1500),
            middle,
            out_cable: Some(10),
            in_cable,
        }
    }

    /// Two spines, the second dropping the frames, then (after a failure) no
    /// route left: the no-route resource between the cables.
    fn middle() -> MiddleSpec {
        MiddleSpec {
            routing: vec![
                (0.0, vec![Some(vec![(3, 1.5), (4, 1.5)]), None]),
                (2.0, vec![Some(vec![(9, 1.0)])]),
            ],
            coefficient: 1.5,
            dropped: vec![(8, 1.0)],
        }
    }

    #[test]
    fn a_middle_goes_between_the_pairs_two_cables() {
        let (a, b, mtu, path) = path(Some(0), Some(11)).into_path(&[middle()]).unwrap();
        assert_eq!((a, b, mtu), (0, 1, Some(1500)));
        let routes = |from, ecmp| Routes { from, ecmp };
        assert_eq!(
            path.routing,
            vec![
                routes(
                    0.0,
                    vec![
                        vec![(10, 1.5), (3, 1.5), (4, 1.5), (11, 1.5)],
                        vec![(8, 1.0)]
                    ]
                ),
                routes(2.0, vec![vec![(10, 1.5), (9, 1.0), (11, 1.5)]]),
            ]
        );
        let costs = (path.send_cycles_per_byte, path.receive_cycles_per_byte);
        assert_eq!(costs, (1.0, 2.0));
        assert_eq!(path.guest_receive_cycles_per_byte, 4.0);
    }

    #[test]
    fn a_table_row_is_the_path_of_the_same_fields_and_a_short_column_is_refused() {
        let table = || PathTableSpec {
            out_nic: vec![0, 1],
            in_nic: vec![1, 0],
            middle: vec![Some(0), None],
            routing: vec![None, Some(0)],
            out_cable: vec![Some(10), None],
            in_cable: vec![Some(11), None],
            cost: vec![1, 0],
            routings: vec![vec![RoutesSpec {
                from_s: 0.0,
                ecmp: vec![vec![(7, 1.0)]],
            }]],
            costs: vec![(0.0, 0.0, 0.0, 0.0), (1.0, 2.0, 3.0, 4.0)],
        };
        let rows = table().into_paths(&[middle()]).unwrap();
        let mut own = path(Some(0), Some(11));
        own.endpoint_mtu = None;
        let (.., expected) = own.into_path(&[middle()]).unwrap();
        assert_eq!((rows[0].0, rows[0].1), (0, 1));
        assert_eq!(rows[0].2.routing, expected.routing);
        assert_eq!(rows[0].2.guest_receive_cycles_per_byte, 4.0);
        assert_eq!(rows[1].2.routing[0].ecmp, vec![vec![(7, 1.0)]]);
        let mut short = table();
        short.cost.pop();
        let refused = short.into_paths(&[middle()]).unwrap_err();
        assert_eq!(refused.0, "path table: column cost has 1 rows, out_nic 2");
    }

    #[test]
    fn a_cable_from_nic_to_nic_is_one_cable() {
        let one = MiddleSpec {
            routing: vec![(0.0, vec![Some(vec![])])],
            coefficient: 1.25,
            dropped: vec![],
        };
        let (.., path) = path(Some(0), None).into_path(&[one]).unwrap();
        assert_eq!(path.routing[0].ecmp, vec![vec![(10, 1.25)]]);
    }

    #[test]
    fn a_path_without_a_middle_keeps_its_routes_and_a_wrong_middle_is_refused() {
        let mut given = path(None, None);
        given.routing = vec![RoutesSpec {
            from_s: 0.0,
            ecmp: vec![vec![(5, 1.0)]],
        }];
        let (.., kept) = given.into_path(&[]).unwrap();
        assert_eq!(kept.routing[0].ecmp, vec![vec![(5, 1.0)]]);
        let missing = path(Some(1), Some(11)).into_path(&[middle()]).unwrap_err();
        assert_eq!(
            missing.0,
            "path from NIC 0 to NIC 1: middle 1 does not exist (1 middles)"
        );
        let mut both = path(Some(0), Some(11));
        both.routing = vec![RoutesSpec {
            from_s: 0.0,
            ecmp: vec![],
        }];
        assert!(both
            .into_path(&[middle()])
            .unwrap_err()
            .0
            .ends_with("not both"));
    }
}
