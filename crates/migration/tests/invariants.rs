//! Live migrations under random failures (issue 15, item 6): each migration
//! ends, or its report says it did not (no end) and why: it started and one
//! of its connections is reported stalled (its path down for good), or it
//! never started because a migration it waits for (`after`, or ahead of it
//! in its host's queue) did not end. An ended migration moved at least its
//! assigned memory, paused and resumed once (a blackout), its passes lie in
//! its window; every connection ends or is reported stalled; a second run
//! gives the same report, bit for bit.
//!
//! The network: host 0 has a team of NICs 0 and 1, host 1 a team of NICs 2
//! and 3, host 2 NIC 4 alone; every path crosses a switch (one resource).
//! `PROPTEST_CASES` raises the number of cases (default 48 here).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};

use hvnet_engine::Sharing;
use hvnet_migration::{
    check as check_migrations, run_with_migrations, Channel, GuestMemory, Migration,
    PrecopyParameters,
};
use hvnet_network::{
    check, AddressHash, Change, Endpoint, LoadBalancing, Network, Nic, Path, SwitchHash, Team,
    TeamingMode, Uplink,
};
use proptest::prelude::*;
use proptest::test_runner::Config;

const NICS: u32 = 5;
const SWITCH: usize = 2 * NICS as usize;
const HOST_OF: [u32; 5] = [0, 0, 1, 1, 2];

#[derive(Clone, Debug)]
struct Spec {
    source: u32,
    target: u32,
    assigned: f64,
    populated: f64,
    dirty_rate: f64,
    max_passes: u32,
    smb: bool,
    at: f64,
    after: Option<(usize, f64)>,
    setup: f64,
}

#[derive(Clone, Debug)]
struct Input {
    speeds: Vec<f64>,
    modes: Vec<(TeamingMode, LoadBalancing)>,
    simultaneous: u32,
    migrations: Vec<Spec>,
    /// `(at, kind, nic)`: see `changes`.
    changes: Vec<(f64, u8, u32)>,
}

fn input_strategy() -> impl Strategy<Value = Input> {
    let mode = prop_oneof![
        Just(TeamingMode::SwitchIndependent),
        Just(TeamingMode::Static),
        Just(TeamingMode::Lacp)
    ];
    let balancing = prop_oneof![
        Just(LoadBalancing::AddressHash(AddressHash::TransportPorts)),
        Just(LoadBalancing::HyperVPort),
        Just(LoadBalancing::Dynamic),
    ];
    let spec = (
        0u32..3,
        1u32..3,
        1.0f64..300.0,
        0.0f64..=1.0,
        prop_oneof![Just(0.0), 0.0f64..5.0],
        1u32..6,
        any::<bool>(),
        0.0f64..20.0,
        prop_oneof![3 => Just(None), 1 => (any::<prop::sample::Index>(), 0.0f64..5.0).prop_map(Some)],
        prop_oneof![Just(0.0), 0.0f64..3.0],
    );
    (
        prop::collection::vec(prop_oneof![Just(10.0), 2.0f64..50.0], NICS as usize),
        prop::collection::vec((mode, balancing), 2),
        1u32..4,
        prop::collection::vec(spec, 1..40),
        prop::collection::vec((0.0f64..60.0, 0u8..8, 0u32..NICS), 0..12),
    )
        .prop_map(|(speeds, modes, simultaneous, specs, changes)| {
            let migrations = specs
                .into_iter()
                .enumerate()
                .map(
                    |(
                        i,
                        (
                            source,
                            shift,
                            assigned,
                            share,
                            dirty_rate,
                            max_passes,
                            smb,
                            at,
                            after,
                            setup,
                        ),
                    )| {
                        Spec {
                            source,
                            target: (source + shift) % 3,
                            assigned,
                            populated: assigned * share,
                            dirty_rate,
                            max_passes,
                            smb,
                            at,
                            after: after
                                .filter(|_| i > 0)
                                .map(|(j, delay)| (j.index(i), delay)),
                            setup,
                        }
                    },
                )
                .collect();
            Input {
                speeds,
                modes,
                simultaneous,
                migrations,
                changes,
            }
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
    let endpoints = (0..3u8)
        .map(|h| {
            let uplink = match h {
                0 => Uplink::Team(0),
                1 => Uplink::Team(1),
                _ => Uplink::Nic(4),
            };
            let address = IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1 + h));
            Endpoint::new(uplink, 0, address, [0, 0x15, 0x5d, 0, 0, 1 + h])
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
            .modes
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
        rebalance_interval: Some(1.0),
        dynamic_vmq: None,
        shared_queue_overhead: 0.0,
        loads: vec![],
    }
}

fn migrations(input: &Input) -> Vec<Migration> {
    input
        .migrations
        .iter()
        .enumerate()
        .map(|(i, s)| Migration {
            source: s.source,
            target: s.target,
            ports: (49152 + i as u16, 6600),
            channels: if s.smb {
                vec![
                    Channel {
                        nics: None,
                        cycles: None,
                        endpoints: None,
                    };
                    2
                ]
            } else {
                vec![]
            },
            compression: None,
            memory: GuestMemory {
                assigned: s.assigned,
                populated: s.populated,
                dirty_rate: s.dirty_rate,
                working_set: s.assigned / 4.0,
                device_state: 1.0,
            },
            parameters: PrecopyParameters {
                max_passes: s.max_passes,
                stop_bytes: 2.0,
                switchover: 0.1,
                setup: s.setup,
                setup_serial: 0.0,
            },
            prepare_rate: None,
            at: s.at,
            after: s.after.iter().map(|a| a.0).collect(),
            delay: s.after.map_or(0.0, |a| a.1),
            through: None,
            hosts: (s.source, s.target),
            simultaneous: (input.simultaneous, input.simultaneous),
        })
        .collect()
}

/// 0/1: a NIC fails (cable and link) / comes back; 2/3: its cable dies
/// with the link up / comes back; 4/5: the switch fails / comes back; 6/7:
/// a link alone goes down / up.
fn changes(input: &Input) -> Vec<(f64, Change)> {
    let mut out = Vec::new();
    for &(at, kind, nic) in &input.changes {
        let n = nic as usize;
        let cable = |up| {
            vec![
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
        let these = match kind {
            0 => [cable(false), vec![link(false)]].concat(),
            1 => [cable(true), vec![link(true)]].concat(),
            2 => cable(false),
            3 => cable(true),
            4 | 5 => vec![Change::Resource {
                resource: SWITCH,
                up: kind == 5,
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

proptest! {
    #![proptest_config(cases(48))]

    #[test]
    fn every_migration_ends_or_says_why_not(input in input_strategy()) {
        let net = network(&input);
        let specs = migrations(&input);
        let changes = changes(&input);
        check(&net, &[], &changes).map_err(|e| TestCaseError::fail(e.0))?;
        check_migrations(&net, &specs, &[]).map_err(|e| TestCaseError::fail(e.0))?;
        let run = run_with_migrations(&net, &[], &changes, &specs, &[], true);
        let eps = 1e-9;
        prop_assert_eq!(run.migrations.len(), specs.len());
        for (k, c) in run.connections.iter().enumerate() {
            prop_assert!(c.end.is_some() || c.stalled_since.is_some(), "connection {} neither ended nor stalled: {:?}", k, c);
            prop_assert!(c.sent >= 0.0, "connection {} sent {}", k, c.sent);
        }
        for (i, (m, spec)) in run.migrations.iter().zip(&specs).enumerate() {
            prop_assert!(m.bytes_sent >= 0.0 && m.peak_rate >= 0.0);
            match m.end {
                Some(end) => {
                    let start = m.start.expect("an ended migration started");
                    prop_assert!(m.queued <= start + eps && start <= end + eps, "migration {}: queued {}, start {}, end {}", i, m.queued, start, end);
                    prop_assert!(m.bytes_sent >= spec.memory.assigned * (1.0 - eps),
                        "migration {} ended having moved {} of {} assigned", i, m.bytes_sent, spec.memory.assigned);
                    prop_assert!(m.blackout.is_some_and(|b| b >= 0.0 && b <= end - start + eps), "migration {}: blackout {:?}", i, m.blackout);
                    prop_assert!(!m.passes.is_empty());
                    for p in &m.passes {
                        prop_assert!(p.start >= start - eps && p.end <= end + eps && p.start <= p.end + eps);
                    }
                    let passes: f64 = m.passes.iter().map(|p| p.bytes).sum();
                    prop_assert!(passes <= m.bytes_sent * (1.0 + eps));
                }
                None => {
                    let stalled = m.connections.iter().any(|&k| run.connections[k].end.is_none() && run.connections[k].stalled_since.is_some());
                    let blocked = |j: usize| run.migrations[j].end.is_none();
                    let reason = match m.start {
                        Some(_) => stalled,
                        None => spec.after.iter().any(|&j| blocked(j))
                            || specs.iter().enumerate().any(|(j, o)| {
                                let shares_a_host = [o.source, o.target].iter().any(|h| [spec.source, spec.target].contains(h));
                                j != i && shares_a_host && blocked(j) && run.migrations[j].start.is_some()
                            }),
                    };
                    prop_assert!(reason, "migration {} did not end and nothing says why: {:?}", i, m);
                }
            }
        }
        let series = run.series.as_ref().expect("recorded");
        for (r, &(cap, _)) in net.resources.iter().enumerate() {
            prop_assert!(series[r].peak() <= cap * (1.0 + 1e-9), "resource {} peaks at {} over {}", r, series[r].peak(), cap);
        }
        let again = run_with_migrations(&net, &[], &changes, &specs, &[], true);
        prop_assert!(again.migrations == run.migrations, "a rerun's migrations differ");
        prop_assert!(again.connections == run.connections, "a rerun's connections differ");
        prop_assert!(again.series == run.series, "a rerun's series differ");
        prop_assert_eq!(again.end_time.to_bits(), run.end_time.to_bits());
    }
}
