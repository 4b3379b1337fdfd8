//! The network's run under random teams, connections and failures (issue
//! 15, item 6): every connection ends or is reported stalled (its path down
//! for good, with the time it went down), its black-holed time is within its
//! lifetime, it sent its amount when it ended and no more than that when it
//! did not, no NIC direction carries more than its speed, the bytes the
//! NICs sent are the bytes the NICs received and the bytes the connections
//! report, and a second run gives the same report, bit for bit.
//!
//! The network: host 0 has a team of NICs 0 and 1, host 1 a team of NICs 2
//! and 3, host 2 NIC 4 alone; every path crosses a switch (one resource).
//! Each teamed host has its own endpoint and two VMs'. `PROPTEST_CASES`
//! raises the number of cases (default 64 here).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};

use hvnet_engine::Sharing;
use hvnet_network::{
    check, AddressHash, Change, Connection, Endpoint, LoadBalancing, Network, Nic, Path, RunReport,
    SwitchHash, Team, TeamingMode, Uplink,
};
use proptest::prelude::*;
use proptest::test_runner::Config;

const NICS: u32 = 5;
const SWITCH: usize = 2 * NICS as usize;
/// The host of each NIC.
const HOST_OF: [u32; 5] = [0, 0, 1, 1, 2];

#[derive(Clone, Debug)]
struct Input {
    speeds: Vec<f64>,
    teams: Vec<(TeamingMode, LoadBalancing)>,
    rebalance: Option<f64>,
    /// `(source endpoint, target endpoint, port, amount, start)`.
    connections: Vec<(u32, u32, u16, f64, f64)>,
    /// `(at, kind, which)`: 0 a NIC fails (its cable and link), 1 it comes
    /// back, 2 its cable dies with the link up (a black hole), 3 the cable
    /// comes back, 4 the switch fails, 5 it comes back, 6 a link alone goes
    /// down, 7 up.
    changes: Vec<(f64, u8, u32)>,
}

fn mode() -> impl Strategy<Value = TeamingMode> {
    prop_oneof![
        Just(TeamingMode::SwitchIndependent),
        Just(TeamingMode::Static),
        Just(TeamingMode::Lacp)
    ]
}

fn balancing() -> impl Strategy<Value = LoadBalancing> {
    prop_oneof![
        Just(LoadBalancing::AddressHash(AddressHash::TransportPorts)),
        Just(LoadBalancing::AddressHash(AddressHash::IpAddresses)),
        Just(LoadBalancing::AddressHash(AddressHash::MacAddresses)),
        Just(LoadBalancing::HyperVPort),
        Just(LoadBalancing::Dynamic),
    ]
}

/// Endpoints: 0..=2 the hosts, 3 and 4 VMs on host 0, 5 and 6 VMs on host 1.
const ENDPOINT_HOST: [u32; 7] = [0, 1, 2, 0, 0, 1, 1];

fn input_strategy() -> impl Strategy<Value = Input> {
    // The target: one of the endpoints on another host than the source's.
    let connection = (
        0u32..7,
        0usize..7,
        1024u16..65000,
        1.0f64..400.0,
        0.0f64..20.0,
    )
        .prop_map(|(s, t, port, amount, start)| {
            let others: Vec<u32> = (0..7u32)
                .filter(|&e| ENDPOINT_HOST[e as usize] != ENDPOINT_HOST[s as usize])
                .collect();
            (s, others[t % others.len()], port, amount, start)
        });
    (
        prop::collection::vec(prop_oneof![Just(10.0), 1.0f64..50.0], NICS as usize),
        prop::collection::vec((mode(), balancing()), 2),
        prop_oneof![Just(None), Just(Some(1.0))],
        prop::collection::vec(connection, 10..200),
        prop::collection::vec((0.0f64..40.0, 0u8..8, 0u32..NICS), 0..16),
    )
        .prop_map(|(speeds, teams, rebalance, connections, changes)| Input {
            speeds,
            teams,
            rebalance,
            connections,
            changes,
        })
}

fn network(input: &Input) -> Network {
    let mut resources: Vec<(f64, Sharing)> = input
        .speeds
        .iter()
        .flat_map(|&s| [(s, Sharing::Shared), (s, Sharing::Shared)])
        .collect();
    resources.push((1000.0, Sharing::Shared));
    let mut paths = HashMap::new();
    for a in 0..NICS {
        for b in 0..NICS {
            if HOST_OF[a as usize] != HOST_OF[b as usize] {
                let links = vec![
                    (2 * a as usize, 1.0),
                    (SWITCH, 1.0),
                    (2 * b as usize + 1, 1.0),
                ];
                paths.insert((a, b), Path::of_links(links));
            }
        }
    }
    let uplink = |host: u32| match host {
        0 => Uplink::Team(0),
        1 => Uplink::Team(1),
        _ => Uplink::Nic(4),
    };
    let endpoints = ENDPOINT_HOST
        .iter()
        .enumerate()
        .map(|(e, &host)| {
            let port = if e < 3 { 0 } else { 1 + (e as u32 - 3) % 2 };
            let address = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1 + e as u8));
            Endpoint::new(
                uplink(host),
                port,
                address,
                [0, 0x15, 0x5d, 0, 0, 1 + e as u8],
            )
        })
        .collect();
    Network {
        resources,
        nics: (0..NICS as usize)
            .map(|n| Nic {
                send: 2 * n,
                receive: 2 * n + 1,
            })
            .collect(),
        teams: input
            .teams
            .iter()
            .enumerate()
            .map(|(t, &(mode, balancing))| Team {
                members: vec![2 * t as u32, 2 * t as u32 + 1],
                standby: None,
                mode,
                balancing,
                switch_hash: SwitchHash::TransportPorts,
            })
            .collect(),
        endpoints,
        paths,
        paths_by_endpoint_mtu: HashMap::new(),
        nic_rss: vec![],
        lacp_timeout: 3.0,
        nic_lacp_timeouts: vec![],
        rebalance_interval: input.rebalance,
        dynamic_vmq: None,
        shared_queue_overhead: 0.0,
        loads: vec![],
    }
}

fn connections(input: &Input) -> Vec<Connection> {
    input
        .connections
        .iter()
        .map(|&(s, t, port, amount, start)| {
            Connection::new(s, t, Some((port, 445)), amount, start, None)
        })
        .collect()
}

fn changes(input: &Input) -> Vec<(f64, Change)> {
    let mut out = Vec::new();
    for &(at, kind, nic) in &input.changes {
        let n = nic as usize;
        let cable = |up| {
            [
                Change::Resource {
                    resource: 2 * n,
                    up,
                },
                Change::Resource {
                    resource: 2 * n + 1,
                    up,
                },
            ]
        };
        let link = |up| Change::Link { nic, up };
        let these: Vec<Change> = match kind {
            0 => cable(false).into_iter().chain([link(false)]).collect(),
            1 => cable(true).into_iter().chain([link(true)]).collect(),
            2 => cable(false).to_vec(),
            3 => cable(true).to_vec(),
            4 => vec![Change::Resource {
                resource: SWITCH,
                up: false,
            }],
            5 => vec![Change::Resource {
                resource: SWITCH,
                up: true,
            }],
            6 => vec![link(false)],
            _ => vec![link(true)],
        };
        out.extend(these.into_iter().map(|c| (at, c)));
    }
    out
}

fn cases(default: u32) -> Config {
    let n = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    Config::with_cases(n)
}

fn integral(report: &RunReport, r: usize) -> f64 {
    report.series.as_ref().expect("recorded")[r].integral(0.0, report.end_time)
}

proptest! {
    #![proptest_config(cases(64))]

    #[test]
    fn connections_end_or_stall_and_bytes_are_conserved(input in input_strategy()) {
        let net = network(&input);
        let conns = connections(&input);
        let changes = changes(&input);
        check(&net, &conns, &changes).map_err(|e| TestCaseError::fail(e.0))?;
        let report = net.run(&conns, &changes, true);
        let eps = 1e-9;
        let mut total = 0.0;
        for (k, (c, r)) in conns.iter().zip(&report.connections).enumerate() {
            prop_assert!(r.end.is_some() || r.stalled_since.is_some(),
                "connection {} neither ended nor is reported stalled: {:?}", k, r);
            prop_assert!(!(r.end.is_some() && r.stalled_since.is_some()), "connection {} ended and stalled", k);
            let until = r.end.unwrap_or(report.end_time);
            prop_assert!(r.blackholed >= 0.0 && r.blackholed <= until - c.start + eps,
                "connection {}: black-holed {} s of a {} s life", k, r.blackholed, until - c.start);
            if let Some(since) = r.stalled_since {
                prop_assert!(since >= c.start - eps && since <= report.end_time + eps);
                prop_assert!(r.blackholed >= report.end_time - since - eps, "stalled time not counted black-holed");
            }
            match r.end {
                Some(end) => {
                    prop_assert!(end >= c.start - eps);
                    prop_assert_eq!(r.sent, c.amount);
                }
                None => prop_assert!(r.sent >= 0.0 && r.sent <= c.amount * (1.0 + eps),
                    "connection {}: sent {} of {} and did not end: {:?}", k, r.sent, c.amount, r),
            }
            prop_assert!(!r.members.is_empty() && (r.members[0].0 - c.start).abs() <= eps);
            prop_assert!(r.members.windows(2).all(|w| w[0].0 <= w[1].0), "members out of time order");
            total += r.sent;
        }
        // No NIC direction above its speed; what left the NICs arrived on NICs and is what the connections sent.
        let series = report.series.as_ref().expect("recorded");
        for (r, &(cap, _)) in net.resources.iter().enumerate() {
            prop_assert!(series[r].peak() <= cap * (1.0 + 1e-9), "resource {} peaks at {} over {}", r, series[r].peak(), cap);
            prop_assert!(series[r].values().iter().all(|&v| v >= -1e-9), "negative use on {}", r);
        }
        let sent: f64 = (0..NICS as usize).map(|n| integral(&report, 2 * n)).sum();
        let received: f64 = (0..NICS as usize).map(|n| integral(&report, 2 * n + 1)).sum();
        let switched = integral(&report, SWITCH);
        for (what, x) in [("received", received), ("switched", switched), ("reported", total)] {
            prop_assert!((sent - x).abs() <= 1e-6 * sent.max(1.0), "NICs sent {} but {} {}", sent, what, x);
        }
        // Determinism.
        let again = net.run(&conns, &changes, true);
        prop_assert!(again.connections == report.connections, "a rerun's connections differ");
        prop_assert!(again.series == report.series, "a rerun's series differ");
        prop_assert_eq!(again.end_time.to_bits(), report.end_time.to_bits());
        prop_assert_eq!(again.events, report.events);
    }
}
