//! The paths as Python gives them (`hvnet.lower.specs.Path`, `Middle`): a
//! NIC pair's routes over time as they are, or by the index of a middle,
//! the routes between two switches that every pair whose cables meet them
//! shares (`NetworkSpec.middles`). Here each route of the middle goes
//! between the pair's two cables, so the network crate gets every pair's
//! [`Path`] whole, as if Python had composed it. Nothing is checked here
//! but what the composition needs (a middle that exists, a cable out, not
//! routes and a middle at once); the crates' `check` does the rest.

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
            None => (self.routing.into_iter())
                .map(|r| Routes {
                    from: r.from_s,
                    ecmp: r.ecmp,
                })
                .collect(),
            Some(k) => {
                let refused =
                    |why: String| SpecError(format!("path from NIC {a} to NIC {b}: {why}"));
                let middle = middles.get(k).ok_or_else(|| {
                    refused(format!(
                        "middle {k} does not exist ({} middles)",
                        middles.len()
                    ))
                })?;
                let out = (self.out_cable)
                    .ok_or_else(|| refused(format!("a middle needs the cable out of NIC {a}")))?;
                if !self.routing.is_empty() {
                    return Err(refused("give its routes or a middle, not both".into()));
                }
                middle.compose(out, self.in_cable)
            }
        };
        let path = Path {
            routing,
            send_cycles_per_byte: self.send_cycles_per_byte,
            receive_cycles_per_byte: self.receive_cycles_per_byte,
            guest_send_cycles_per_byte: self.guest_send_cycles_per_byte,
            guest_receive_cycles_per_byte: self.guest_receive_cycles_per_byte,
        };
        Ok((a, b, self.endpoint_mtu, path))
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
