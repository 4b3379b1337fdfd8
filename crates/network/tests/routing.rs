//! The fabric's routing over time: a path's routes change when the caller
//! says its routing converged; connections follow them, black-holed on a
//! dead route until then.
//!
//! The network: host A (NIC 0) and host B (NIC 1), 10 units/s each way,
//! joined through two spines of 10 units/s each (resources 4 and 5), and a
//! resource 6 of capacity 0 that stands for "no route in the fabric".

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};

use hvnet_engine::Sharing;
use hvnet_network::{check, Change, Connection, Endpoint, Network, Nic, Path, Routes, Uplink};

const SPINE1: usize = 4;
const SPINE2: usize = 5;
const NO_ROUTE: usize = 6;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

fn via(spine: usize) -> Vec<(usize, f64)> {
    vec![(0, 1.0), (spine, 1.0), (3, 1.0)]
}

/// A to B over both spines from 0; then, from each `(time, spines)`, over
/// those spines (none: no route).
fn network(changes: &[(f64, &[usize])]) -> Network {
    let mut routing = vec![Routes {
        from: 0.0,
        ecmp: vec![via(SPINE1), via(SPINE2)],
    }];
    for &(from, spines) in changes {
        let ecmp = if spines.is_empty() {
            vec![vec![(0, 1.0), (NO_ROUTE, 1.0), (3, 1.0)]]
        } else {
            spines.iter().map(|&s| via(s)).collect()
        };
        routing.push(Routes { from, ecmp });
    }
    let endpoint = |nic, last: u8| {
        let address = IpAddr::V4(Ipv4Addr::new(10, 0, 0, last));
        Endpoint::new(Uplink::Nic(nic), 0, address, [0, 0x15, 0x5d, 0, 0, last])
    };
    Network {
        resources: [10.0, 10.0, 10.0, 10.0, 10.0, 10.0, 0.0]
            .iter()
            .map(|&c| (c, Sharing::Shared))
            .collect(),
        nics: vec![
            Nic {
                send: 0,
                receive: 1,
            },
            Nic {
                send: 2,
                receive: 3,
            },
        ],
        endpoints: vec![endpoint(0, 1), endpoint(1, 2)],
        paths: HashMap::from([(
            (0, 1),
            Path {
                routing,
                ..Path::default()
            },
        )]),
        lacp_timeout: 3.0,
        ..Network::default()
    }
}

/// A connection from A to B whose ECMP hash picks spine `spine` from both.
fn connection_via(net: &Network, spine: usize, amount: f64) -> Connection {
    for port in 49152..50000u16 {
        let c = Connection::new(0, 1, Some((port, 5001)), amount, 0.0, None);
        let flow = hvnet_network::Flow {
            source: net.endpoints[0].address,
            target: net.endpoints[1].address,
            ports: Some((port, 5001)),
            source_mac: net.endpoints[0].mac,
            target_mac: net.endpoints[1].mac,
        };
        if (flow.ecmp_hash() % 2) as usize == spine - SPINE1 {
            return c;
        }
    }
    unreachable!("some port hashes onto each spine")
}

#[test]
fn a_connection_on_a_dead_spine_is_black_holed_until_routing_converges_then_moves() {
    // Spine 1 dies at 1 s; routing drops it at 1.9 s (detection and
    // convergence, the caller's figures). A 50-unit transfer on spine 1 at
    // 10/s moves 10 by 1 s, nothing until 1.9 s, then 40 over spine 2: it
    // ends at 5.9 s, black-holed 0.9 s, rerouted once.
    let net = network(&[(1.9, &[SPINE2])]);
    let c = connection_via(&net, SPINE1, 50.0);
    let changes = [(
        1.0,
        Change::Resource {
            resource: SPINE1,
            up: false,
        },
    )];
    check(&net, &[c], &changes).unwrap();
    let report = net.run(&[c], &changes, false);
    let r = &report.connections[0];
    assert!(close(r.end.unwrap(), 5.9), "{r:?}");
    assert!(close(r.blackholed, 0.9), "{r:?}");
    assert_eq!(r.blackholes.len(), 1);
    assert!(close(r.blackholes[0].0, 1.0) && close(r.blackholes[0].1, 1.9));
    assert_eq!(r.rerouted, vec![1.9]);
    assert!(r.stalled_on.is_empty());
}

#[test]
fn a_connection_on_the_surviving_spine_never_stops() {
    // The same failure; a transfer hashed onto spine 2 is untouched: 50
    // units at 10/s end at 5 s, not black-holed, never rerouted.
    let net = network(&[(1.9, &[SPINE2])]);
    let c = connection_via(&net, SPINE2, 50.0);
    let changes = [(
        1.0,
        Change::Resource {
            resource: SPINE1,
            up: false,
        },
    )];
    let r = &net.run(&[c], &changes, false).connections[0];
    assert!(close(r.end.unwrap(), 5.0), "{r:?}");
    assert_eq!(r.blackholed, 0.0);
    assert!(r.rerouted.is_empty());
}

#[test]
fn routes_come_back_after_a_repair_and_flows_rehash_over_them() {
    // Spine 1 dies at 1 s, leaves routing at 1.9 s, is repaired at 3 s and
    // back in routing at 3.5 s: a flow hashed onto spine 1 moves to spine 2
    // at 1.9 s and back at 3.5 s: 10 + 16 + 24 = 50 units by 5.9 s.
    let net = network(&[(1.9, &[SPINE2]), (3.5, &[SPINE1, SPINE2])]);
    let c = connection_via(&net, SPINE1, 50.0);
    let changes = [
        (
            1.0,
            Change::Resource {
                resource: SPINE1,
                up: false,
            },
        ),
        (
            3.0,
            Change::Resource {
                resource: SPINE1,
                up: true,
            },
        ),
    ];
    let r = &net.run(&[c], &changes, false).connections[0];
    assert!(close(r.end.unwrap(), 5.9), "{r:?}");
    assert_eq!(r.rerouted, vec![1.9, 3.5]);
}

#[test]
fn with_no_route_left_a_connection_stalls_and_says_what_cut_it() {
    // Both spines die at 1 s; routing converges on "no route" at 1.9 s: the
    // transfer stalls for good on the no-route resource, held down from 0.
    let net = network(&[(1.9, &[])]);
    let c = connection_via(&net, SPINE1, 50.0);
    let changes = [
        (
            0.0,
            Change::Resource {
                resource: NO_ROUTE,
                up: false,
            },
        ),
        (
            1.0,
            Change::Resource {
                resource: SPINE1,
                up: false,
            },
        ),
        (
            1.0,
            Change::Resource {
                resource: SPINE2,
                up: false,
            },
        ),
    ];
    let report = net.run(&[c], &changes, false);
    let r = &report.connections[0];
    assert_eq!(r.end, None);
    assert!(close(r.stalled_since.unwrap(), 1.0), "{r:?}");
    assert_eq!(r.stalled_on, vec![NO_ROUTE]);
    assert!(close(r.sent, 10.0));
}

#[test]
fn ecmp_spreads_connections_over_the_routes() {
    // 64 connections between the same two NICs: the ECMP hash of their
    // ports puts some on each spine (a per-flow, not a per-pair, choice).
    let net = network(&[]);
    let spines: Vec<usize> = (0..64u16)
        .map(|i| {
            let flow = hvnet_network::Flow {
                source: net.endpoints[0].address,
                target: net.endpoints[1].address,
                ports: Some((49152 + i, 5001)),
                source_mac: net.endpoints[0].mac,
                target_mac: net.endpoints[1].mac,
            };
            (flow.ecmp_hash() % 2) as usize
        })
        .collect();
    let on_first = spines.iter().filter(|&&s| s == 0).count();
    assert!((16..=48).contains(&on_first), "{on_first} of 64 on spine 1");
}

#[test]
fn routes_must_start_at_zero_and_go_forward() {
    let mut net = network(&[(2.0, &[SPINE2])]);
    net.paths.get_mut(&(0, 1)).unwrap().routing[1].from = 0.0;
    let refused = check(&net, &[], &[]).unwrap_err().0;
    assert!(refused.contains("times must increase"), "{refused}");
    net.paths.get_mut(&(0, 1)).unwrap().routing[0].from = 1.0;
    let refused = check(&net, &[], &[]).unwrap_err().0;
    assert!(refused.contains("must start at 0"), "{refused}");
    net.paths.get_mut(&(0, 1)).unwrap().routing = vec![Routes {
        from: 0.0,
        ecmp: vec![],
    }];
    let refused = check(&net, &[], &[]).unwrap_err().0;
    assert!(refused.contains("no route"), "{refused}");
}
