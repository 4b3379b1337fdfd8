//! Teams on the engine: member use, failover, black holes, rebalancing and cores.
//!
//! The network in every case: host A has a team of NICs 0 and 1 (10 units/s
//! each way); host B has NIC 2 (100 units/s, never the bottleneck).

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};

use hvnet_engine::Sharing;
use hvnet_migration::{GuestMemory, PrecopyParameters};
use hvnet_network::{
    AddressHash, Change, Channel, Compression, Connection, ConnectionReport, Cores, Endpoint,
    Guest, LoadBalancing, Migration, Network, Nic, Path, SwitchHash, Team, TeamingMode, Uplink,
};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// Resources: 0/1 NIC 0 send/receive, 2/3 NIC 1, 4/5 NIC 2.
fn network(mode: TeamingMode, balancing: LoadBalancing, standby: Option<u32>) -> Network {
    let mut paths = HashMap::new();
    for (pair, links) in [
        ((0, 2), [0, 5]),
        ((1, 2), [2, 5]),
        ((2, 0), [4, 1]),
        ((2, 1), [4, 3]),
    ] {
        paths.insert(
            pair,
            Path {
                links: links.iter().map(|&r| (r, 1.0)).collect(),
                ..Path::default()
            },
        );
    }
    let endpoint = |uplink, port, last: u8| Endpoint {
        uplink,
        port,
        address: IpAddr::V4(Ipv4Addr::new(10, 0, 0, last)),
        mac: [0, 0x15, 0x5d, 0, 0, last],
        send_cores: Cores::None,
        receive_cores: Cores::None,
        host_cores: vec![],
        queue_cores: vec![],
        guest_send_cores: Cores::None,
        guest_receive_cores: Cores::None,
    };
    Network {
        resources: [10.0, 10.0, 10.0, 10.0, 100.0, 100.0]
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
            Nic {
                send: 4,
                receive: 5,
            },
        ],
        teams: vec![Team {
            members: vec![0, 1],
            standby,
            mode,
            balancing,
            switch_hash: SwitchHash::TransportPorts,
        }],
        endpoints: vec![
            endpoint(Uplink::Team(0), 0, 1),
            endpoint(Uplink::Nic(2), 0, 2),
            endpoint(Uplink::Team(0), 1, 3),
        ],
        paths,
        lacp_timeout: 3.0,
        rebalance_interval: None,
        dynamic_vmq: None,
    }
}

/// The member the test connection (port 49152, 100 units) leaves by when nothing fails.
fn first_member(net: &Network) -> u32 {
    net.run(&[connection(0, 1, 49152, 100.0)], &[], None)
        .connections[0]
        .members[0]
        .1
        .expect("a member")
}

fn connection(source: u32, target: u32, port: u16, amount: f64) -> Connection {
    Connection {
        source,
        target,
        ports: Some((port, 445)),
        amount,
        start: 0.0,
        stop: None,
        pinned: None,
        cycles: None,
        compression: None,
        weight: 1.0,
        through: None,
    }
}

const ADDRESS_HASH: LoadBalancing = LoadBalancing::AddressHash(AddressHash::TransportPorts);

#[test]
fn one_connection_rides_one_member_at_its_speed() {
    // 100 units at 10/s over one member: 10 s, never two members.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let run = net.run(&[connection(0, 1, 49152, 100.0)], &[], None);
    let report = &run.connections[0];
    assert!(close(report.end.unwrap(), 10.0));
    assert_eq!(report.members.len(), 1, "it never moved");
    assert_eq!(report.blackholed, 0.0);
    assert_eq!(
        report.sent, 100.0,
        "a completed connection sent its whole amount"
    );
}

#[test]
fn many_connections_spread_over_both_members_outbound() {
    // 16 connections of 10 units: address hash uses both members, so the
    // team sends faster than one member (160 units in < 16 s).
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let conns: Vec<_> = (0..16).map(|p| connection(0, 1, 49152 + p, 10.0)).collect();
    let run = net.run(&conns, &[], None);
    let used: std::collections::HashSet<_> =
        run.connections.iter().map(|c| c.members[0].1).collect();
    assert_eq!(used.len(), 2);
    assert!(run.end_time < 16.0 - 1e-9);
}

#[test]
fn address_hash_receives_everything_on_the_primary() {
    // Switch independent + address hash: B→A traffic all arrives on NIC 0,
    // so 16 connections of 10 units take 16 s at 10/s.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let conns: Vec<_> = (0..16).map(|p| connection(1, 0, 49152 + p, 10.0)).collect();
    let run = net.run(&conns, &[], None);
    assert!(run.connections.iter().all(|c| c.members[0].2 == Some(0)));
    assert!(close(run.end_time, 16.0));
}

#[test]
fn hyper_v_port_keeps_each_vm_port_on_one_member_both_ways() {
    // Endpoint 0 (port 0) and endpoint 2 (port 1) are two VMs: port 0 uses
    // NIC 0 and port 1 uses NIC 1, for sending and for receiving.
    let net = network(
        TeamingMode::SwitchIndependent,
        LoadBalancing::HyperVPort,
        None,
    );
    let conns = [
        connection(0, 1, 49152, 10.0),
        connection(2, 1, 49153, 10.0),
        connection(1, 2, 49154, 10.0),
    ];
    let run = net.run(&conns, &[], None);
    assert_eq!(run.connections[0].members[0].1, Some(0));
    assert_eq!(run.connections[1].members[0].1, Some(1));
    assert_eq!(run.connections[2].members[0].2, Some(1));
}

#[test]
fn a_link_failure_moves_the_connection_to_the_other_member_at_once() {
    // The connection's member loses its link at 4 s (40 done): it moves to
    // the other member at 4 s and finishes the last 60 at 10/s, at 10 s.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let first = first_member(&net);
    let nic = net.nics[first as usize];
    let changes = [
        (
            4.0,
            Change::Link {
                nic: first,
                up: false,
            },
        ),
        (
            4.0,
            Change::Resource {
                resource: nic.send,
                up: false,
            },
        ),
        (
            4.0,
            Change::Resource {
                resource: nic.receive,
                up: false,
            },
        ),
    ];
    let report = &net
        .run(&[connection(0, 1, 49152, 100.0)], &changes, None)
        .connections[0];
    assert!(close(report.end.unwrap(), 10.0));
    assert_eq!(report.members.len(), 2);
    assert_eq!(report.members[1].0, 4.0);
    assert_eq!(report.members[1].1, Some(1 - first));
    assert_eq!(report.blackholed, 0.0);
}

/// A member whose cable forwards nothing from 4 s while its link stays up.
fn blackhole(net: &Network, nic: u32) -> Vec<(f64, Change)> {
    cable(net, nic, 4.0, false).to_vec()
}

/// Both directions of a NIC's cable going down (`up: false`) or coming back at `at`.
fn cable(net: &Network, nic: u32, at: f64, up: bool) -> [(f64, Change); 2] {
    let n = net.nics[nic as usize];
    [
        (
            at,
            Change::Resource {
                resource: n.send,
                up,
            },
        ),
        (
            at,
            Change::Resource {
                resource: n.receive,
                up,
            },
        ),
    ]
}

/// One connection of 100 units over an address-hash team whose first member
/// black-holes from 4 s (`blackhole`): what became of it.
fn blackholed_first_member(mode: TeamingMode) -> ConnectionReport {
    let net = network(mode, ADDRESS_HASH, None);
    let first = first_member(&net);
    let changes = blackhole(&net, first);
    let mut run = net.run(&[connection(0, 1, 49152, 100.0)], &changes, None);
    run.connections.swap_remove(0)
}

#[test]
fn a_switch_independent_team_never_sees_a_port_that_forwards_nothing() {
    // Link up, no traffic: the connection is black-holed from 4 s on and
    // never completes.
    let report = &blackholed_first_member(TeamingMode::SwitchIndependent);
    assert_eq!(report.end, None);
    assert_eq!(report.members.len(), 1);
}

#[test]
fn lacp_sees_a_port_that_forwards_nothing_after_its_timeout() {
    // LACP: black-holed from 4 s to 7 s (the 3 s LACPDU timeout), then moved:
    // the last 60 units end at 7 + 6 = 13 s.
    let report = &blackholed_first_member(TeamingMode::Lacp);
    assert!(close(report.blackholed, 3.0));
    assert!(close(report.end.unwrap(), 13.0));
    assert_eq!(report.members[1].0, 7.0);
}

#[test]
fn a_standby_member_carries_nothing_until_the_active_one_fails() {
    // Team of NIC 0 (active) and NIC 1 (standby): all 16 connections use
    // NIC 0; when NIC 0's link dies at 4 s they all move to NIC 1.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, Some(1));
    let conns: Vec<_> = (0..16).map(|p| connection(0, 1, 49152 + p, 10.0)).collect();
    let changes = [
        (4.0, Change::Link { nic: 0, up: false }),
        (
            4.0,
            Change::Resource {
                resource: 0,
                up: false,
            },
        ),
        (
            4.0,
            Change::Resource {
                resource: 1,
                up: false,
            },
        ),
    ];
    let run = net.run(&conns, &changes, None);
    assert!(run.connections.iter().all(|c| c.members[0].1 == Some(0)));
    assert!(run
        .connections
        .iter()
        .filter(|c| c.end.unwrap() > 4.0)
        .all(|c| c.members.last().unwrap().1 == Some(1)));
    assert!(
        close(run.end_time, 16.0),
        "160 units at 10/s on one member at a time"
    );
}

#[test]
fn dynamic_rebalancing_spreads_connections_a_hash_put_together() {
    // Find two ports that hash onto the same member: without rebalancing
    // they share 10/s (20 units end at 4 s); with a 1 s rebalancing tick
    // they are split at 1 s and end at 1 + 1.5 = 2.5 s.
    let mut net = network(TeamingMode::SwitchIndependent, LoadBalancing::Dynamic, None);
    let member = |p| net.run(&[connection(0, 1, p, 1.0)], &[], None).connections[0].members[0].1;
    let first = member(49152);
    let twin = (49153..49300)
        .find(|&p| member(p) == first)
        .expect("two ports on one member");
    let conns = [connection(0, 1, 49152, 20.0), connection(0, 1, twin, 20.0)];
    assert!(close(net.run(&conns, &[], None).end_time, 4.0));
    net.rebalance_interval = Some(1.0);
    let run = net.run(&conns, &[], None);
    assert!(run.connections.iter().all(|c| close(c.end.unwrap(), 2.5)));
    assert!(
        close(run.end_time, 2.5),
        "no rebalancing tick outlives the last connection"
    );
    assert_ne!(
        run.connections[0].members.last().unwrap().1,
        run.connections[1].members.last().unwrap().1
    );
}

#[test]
fn a_team_with_every_member_down_black_holes_until_one_returns() {
    // Both links down from 2 s to 5 s: 3 s black-holed, and the 100 units
    // end at 10 + 3 = 13 s.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let mut changes = Vec::new();
    for nic in 0..2u32 {
        for (at, up) in [(2.0, false), (5.0, true)] {
            changes.push((at, Change::Link { nic, up }));
            changes.extend(cable(&net, nic, at, up));
        }
    }
    let report = &net
        .run(&[connection(0, 1, 49152, 100.0)], &changes, None)
        .connections[0];
    assert!(close(report.blackholed, 3.0));
    assert!(close(report.end.unwrap(), 13.0));
}

/// Host B receives with RSS on two cores of 40 cycles/s; each byte costs 8
/// cycles there, so one core receives at most 5 units/s.
fn with_receive_cores(net: &mut Network) {
    let first = net.resources.len();
    net.resources.push((40.0, Sharing::Shared));
    net.resources.push((40.0, Sharing::Shared));
    net.endpoints[1].receive_cores = Cores::Rss(vec![first, first + 1]);
    for path in net.paths.values_mut() {
        path.receive_cycles_per_byte = 8.0;
    }
}

#[test]
fn one_connection_is_received_on_one_core_and_its_speed_caps_the_stream() {
    // The link carries 10/s but the receiving core only 40/8 = 5/s: 100 units take 20 s.
    let mut net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    with_receive_cores(&mut net);
    let run = net.run(&[connection(0, 1, 49152, 100.0)], &[], Some(1.0));
    assert!(close(run.connections[0].end.unwrap(), 20.0));
    let series = run.series.unwrap();
    let busy: Vec<f64> = (6..8).map(|core| series[core][0]).collect();
    assert!(
        busy.contains(&40.0) && busy.contains(&0.0),
        "one core full, the other idle: {busy:?}"
    );
}

#[test]
fn connections_on_different_cores_add_up_to_the_link() {
    // Two connections whose hashes pick different cores: 5/s each, 10/s in all.
    let mut net = network(
        TeamingMode::SwitchIndependent,
        LoadBalancing::HyperVPort,
        None,
    );
    with_receive_cores(&mut net);
    let core = |p: u16| {
        let run = net.run(&[connection(0, 1, p, 1.0)], &[], Some(1.0));
        let series = run.series.unwrap();
        (6..8).find(|&c| series[c][0] > 0.0).unwrap()
    };
    let first = core(49152);
    let other = (49153..49300)
        .find(|&p| core(p) != first)
        .expect("a port on the other core");
    let run = net.run(
        &[connection(0, 1, 49152, 50.0), connection(0, 1, other, 50.0)],
        &[],
        None,
    );
    assert!(run.connections.iter().all(|c| close(c.end.unwrap(), 10.0)));
}

#[test]
fn a_timed_sender_stops_and_reports_what_it_sent() {
    // Like ntttcp -t 3: a connection with far more to send than 3 s allow
    // stops at 3 s having sent 30 units at 10/s.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let timed = Connection {
        stop: Some(3.0),
        ..connection(0, 1, 49152, 1e9)
    };
    let report = &net.run(&[timed], &[], None).connections[0];
    assert!(close(report.sent, 30.0));
    assert_eq!(report.end, Some(3.0));
}

#[test]
fn a_repair_resets_lacps_count_of_missed_lacpdus() {
    // Black hole 4–5 s, repaired, black hole again from 6 s: LACP counts its
    // 3 s from 6 s, so the connection moves at 9 s (black-holed 1 + 3 s).
    let net = network(TeamingMode::Lacp, ADDRESS_HASH, None);
    let first = first_member(&net);
    let mut changes = Vec::new();
    for (at, up) in [(4.0, false), (5.0, true), (6.0, false)] {
        changes.extend(cable(&net, first, at, up));
    }
    let report = &net
        .run(&[connection(0, 1, 49152, 1000.0)], &changes, None)
        .connections[0];
    assert_eq!(report.members[1].0, 9.0);
    assert!(close(report.blackholed, 4.0));
}

fn migration(at: f64, memory: f64, dirty_rate: f64) -> Migration {
    Migration {
        source: 0,
        target: 1,
        ports: (49500, 6600),
        channels: vec![],
        compression: None,
        memory: GuestMemory {
            assigned: memory,
            populated: memory,
            dirty_rate,
            working_set: memory,
            device_state: 1.0,
        },
        parameters: PrecopyParameters {
            max_passes: 5,
            stop_bytes: 2.0,
            switchover: 0.1,
        },
        prepare_rate: None,
        at,
        after: vec![],
        delay: 0.0,
        through: None,
        queue: 0,
        simultaneous: 2,
        guest: None,
    }
}

#[test]
fn an_idle_vm_migrates_in_one_pass_over_one_member() {
    // 100 units at 10/s: pass 1 ends at 10 s; the blackout copies the device
    // state (1 unit, 0.1 s) and switches over (0.1 s): it ends at 10.2 s.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let run = net.run_with_migrations(&[], &[], &[migration(0.0, 100.0, 0.0)], &[], None);
    let m = &run.migrations[0];
    assert_eq!(m.passes.len(), 1);
    assert!(close(m.end.unwrap(), 10.2));
    assert!(close(m.blackout.unwrap(), 0.2));
    assert!(close(m.bytes_sent, 101.0));
    assert!(close(m.peak_rate, 10.0));
    let members: std::collections::HashSet<_> = m
        .connections
        .iter()
        .map(|&k| run.connections[k].members[0].1)
        .collect();
    assert_eq!(
        members.len(),
        1,
        "a TCP/IP migration never uses two members"
    );
}

#[test]
fn each_pass_copies_what_the_guest_dirtied_meanwhile() {
    // Dirtying 1/s: pass 1 (100 units) takes 10 s and leaves 10; pass 2 takes
    // 1 s and leaves 1, under the stop of 2: blackout copies 1 + 1.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let run = net.run_with_migrations(&[], &[], &[migration(0.0, 100.0, 1.0)], &[], None);
    let m = &run.migrations[0];
    let bytes: Vec<f64> = m.passes.iter().map(|p| p.bytes).collect();
    assert!(bytes.len() == 2 && close(bytes[1], 10.0));
    assert!(close(m.end.unwrap(), 11.0 + 0.2 + 0.1));
}

#[test]
fn a_host_runs_two_migrations_at_once_and_queues_the_third() {
    // Three idle VMs of 100 units asked at 0 s, 2 at a time: the first two
    // share the link (5/s each) and end together; the third starts then.
    let net = network(
        TeamingMode::SwitchIndependent,
        LoadBalancing::HyperVPort,
        None,
    );
    let migrations: Vec<_> = (0..3)
        .map(|i| Migration {
            ports: (49500 + i as u16, 6600),
            ..migration(0.0, 100.0, 0.0)
        })
        .collect();
    let run = net.run_with_migrations(&[], &[], &migrations, &[], None);
    let (first, third) = (&run.migrations[0], &run.migrations[2]);
    assert_eq!(first.start, Some(0.0));
    assert_eq!(third.queued, 0.0);
    let first_free = first.end.unwrap().min(run.migrations[1].end.unwrap());
    assert_eq!(third.start, Some(first_free));
    assert!(third.start.unwrap() > 0.0);
}

#[test]
fn smb_spreads_each_step_over_its_channels() {
    // Two SMB channels, one on each of A's NICs (10/s each): an idle VM of
    // 200 units moves at 20/s, in 10 s, where TCP/IP rides one member at 10/s.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let tcp = migration(0.0, 200.0, 0.0);
    let channel = |nic, port| Channel {
        nics: Some((nic, 2)),
        ports: (port, 445),
        cycles: None,
    };
    let smb = Migration {
        channels: vec![channel(0, 50000), channel(1, 50001)],
        ..migration(0.0, 200.0, 0.0)
    };
    let over_tcp = &net
        .run_with_migrations(&[], &[], &[tcp], &[], None)
        .migrations[0];
    let over_smb = &net
        .run_with_migrations(&[], &[], &[smb], &[], None)
        .migrations[0];
    assert!(close(over_tcp.passes[0].end, 20.0));
    assert!(close(over_smb.passes[0].end, 10.0));
    assert!(close(over_smb.peak_rate, 20.0));
    assert!(
        close(over_smb.bytes_sent, 201.0),
        "each byte counted once, not once per channel"
    );
}

#[test]
fn compression_puts_fewer_bytes_on_the_wire_at_the_cost_of_cpu() {
    // An idle VM of 200 units, half of them zero pages; compressed to 1/2
    // (data) and 1/100 (zero pages), so each unit of memory puts 0.255 on
    // the wire: the 10/s member moves 39.2 units of memory per second, as
    // long as the cores (two of 40 cycles/s per host, 1 cycle per byte to
    // compress or decompress: 80/s) keep up. Pass 1 takes 200 / 39.2 s.
    let mut net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let first = net.resources.len();
    for _ in 0..4 {
        net.resources.push((40.0, Sharing::Shared));
    }
    net.endpoints[0].host_cores = vec![first, first + 1];
    net.endpoints[1].host_cores = vec![first + 2, first + 3];
    let compression = Compression {
        ratio: 0.5,
        zero_ratio: 0.01,
        compress_cycles: 1.0,
        decompress_cycles: 1.0,
        zero_cycles: 1.0,
        weight: 0.1,
    };
    let vm = Migration {
        compression: Some(compression),
        memory: GuestMemory {
            populated: 100.0,
            ..migration(0.0, 200.0, 0.0).memory
        },
        ..migration(0.0, 200.0, 0.0)
    };
    let m = &net
        .run_with_migrations(&[], &[], &[vm], &[], None)
        .migrations[0];
    assert!(
        close(m.passes[0].end, 200.0 / (10.0 / 0.255)),
        "{:?}",
        m.passes
    );
}

#[test]
fn a_migration_that_waits_for_others_is_asked_for_a_delay_after_the_last_ends() {
    // Two idle VMs of 100 units migrate at once. The third waits for both,
    // then 30 s (a node's patch time): it is queued when the later of them
    // ends + 30 s, not at its own time 0, and starts at once.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let mut migrations: Vec<Migration> = (0..2)
        .map(|i| Migration {
            ports: (49500 + i as u16, 6600),
            ..migration(0.0, 100.0, 0.0)
        })
        .collect();
    migrations.push(Migration {
        after: vec![0, 1],
        delay: 30.0,
        ..migration(0.0, 100.0, 0.0)
    });
    let run = net.run_with_migrations(&[], &[], &migrations, &[], None);
    let last_end = run.migrations[0]
        .end
        .unwrap()
        .max(run.migrations[1].end.unwrap());
    let third = &run.migrations[2];
    assert!(close(third.queued, last_end + 30.0), "{third:?}");
    assert_eq!(third.start, Some(third.queued));
    // Alone on the member, it moves its 100 units at 10/s.
    assert!(
        third.passes[0].end - third.passes[0].start < 10.5,
        "{third:?}"
    );
}

#[test]
fn a_migration_waiting_for_one_that_never_ends_is_never_asked_for() {
    // Every link goes down for good at 1 s: the first migration stalls, so
    // the one that waits for it never starts.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let migrations = vec![
        migration(0.0, 100.0, 0.0),
        Migration {
            after: vec![0],
            ..migration(0.0, 100.0, 0.0)
        },
    ];
    let down: Vec<(f64, Change)> = (0..net.resources.len())
        .map(|resource| {
            (
                1.0,
                Change::Resource {
                    resource,
                    up: false,
                },
            )
        })
        .collect();
    let run = net.run_with_migrations(&[], &down, &migrations, &[], None);
    assert_eq!(run.migrations[0].end, None);
    assert_eq!(run.migrations[1].start, None);
}

#[test]
fn a_shared_limit_caps_the_migrations_through_it_together() {
    // Two migrations through one resource of 4/s (an SMB bandwidth limit)
    // move 2/s each although the member could carry 10/s: 100 units take 50 s.
    let mut net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let limit = net.resources.len();
    net.resources.push((4.0, Sharing::Shared));
    let migrations: Vec<Migration> = (0..2)
        .map(|i| Migration {
            ports: (49500 + i as u16, 6600),
            through: Some(limit),
            ..migration(0.0, 100.0, 0.0)
        })
        .collect();
    let run = net.run_with_migrations(&[], &[], &migrations, &[], None);
    for m in &run.migrations {
        assert!(close(m.passes[0].end, 50.0), "{m:?}");
    }
}

// ---- the guests' own CPU load ---------------------------------------------

/// The network with two cores of 40 cycles/s on each host (A: endpoints 0
/// and 2; B: endpoint 1), and the compression of the test above.
fn network_with_cores() -> (Network, Compression) {
    let mut net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let first = net.resources.len();
    for _ in 0..4 {
        net.resources.push((40.0, Sharing::Shared));
    }
    for e in [0, 2] {
        net.endpoints[e].host_cores = vec![first, first + 1];
    }
    net.endpoints[1].host_cores = vec![first + 2, first + 3];
    let compression = Compression {
        ratio: 0.5,
        zero_ratio: 0.01,
        compress_cycles: 1.0,
        decompress_cycles: 1.0,
        zero_cycles: 1.0,
        weight: 0.1,
    };
    (net, compression)
}

/// A compressed migration of 200 units, half of them zero pages (1 cycle per
/// byte to compress, spread over the host's 2 cores: 0.5 on each).
fn compressed(compression: Compression, source: u32, target: u32, at: f64) -> Migration {
    Migration {
        source,
        target,
        compression: Some(compression),
        memory: GuestMemory {
            populated: 100.0,
            ..migration(at, 200.0, 0.0).memory
        },
        queue: source,
        ..migration(at, 200.0, 0.0)
    }
}

#[test]
fn guests_filling_the_cores_leave_compression_only_its_weights_share() {
    // Idle host A: pass 1 runs at the link's 10/0.255 units/s (the cores
    // have 80 cycles/s to spare): 200 / 39.2 = 5.1 s. With a guest keeping
    // both cores busy (2 cores' worth: 40 cycles/s asked of each core), each
    // core is shared at level λ: the guest takes λ cycles/s, compression
    // (weight 0.1) 0.1·λ units/s at 0.5 cycles each; the core is full when
    // λ·(1 + 0.05) = 40, so compression moves 0.1 · 40/1.05 = 3.81 units/s:
    // pass 1 takes 200 / 3.81 = 52.5 s, ten times as long.
    let (net, compression) = network_with_cores();
    let vm = compressed(compression, 0, 1, 0.0);
    let idle = &net.run_with_migrations(&[], &[], std::slice::from_ref(&vm), &[], None);
    let busy_guest = Guest {
        host: 0,
        cores: 2.0,
        vcpus: vec![],
    };
    let busy = &net.run_with_migrations(&[], &[], &[vm], &[busy_guest], None);
    assert!(close(
        idle.migrations[0].passes[0].end,
        200.0 / (10.0 / 0.255)
    ));
    let rate = 0.1 * 40.0 / 1.05;
    assert!(
        close(busy.migrations[0].passes[0].end, 200.0 / rate),
        "{:?}",
        busy.migrations[0].passes
    );
    // The run ends with the migration, though the guest never stops.
    assert_eq!(busy.end_time, busy.migrations[0].end.unwrap());
}

#[test]
fn a_guest_that_leaves_room_changes_nothing() {
    // A quarter of a core's worth on each of A's cores (10 of 40 cycles/s)
    // leaves compression all it can use (it needs 19.6 per core at the
    // link's pace): the migration takes exactly as long as on an idle host.
    let (net, compression) = network_with_cores();
    let vm = compressed(compression, 0, 1, 0.0);
    let idle = &net.run_with_migrations(&[], &[], std::slice::from_ref(&vm), &[], None);
    let light = Guest {
        host: 0,
        cores: 0.5,
        vcpus: vec![],
    };
    let loaded = &net.run_with_migrations(&[], &[], &[vm], &[light], None);
    assert!(close(
        loaded.migrations[0].end.unwrap(),
        idle.migrations[0].end.unwrap()
    ));
}

#[test]
fn a_guest_moves_with_its_vm_when_the_migration_ends() {
    // vm1 (2 cores' worth) migrates A → B over TCP/IP (no compression, no
    // CPU) from 0 s: 100 units at 10/s, done at 10.2 s. At 20 s another VM
    // migrates with a compression that works on its source host alone (2
    // cycles per byte of data, zero pages and decompression free: 1 per byte
    // of memory, 0.5 on each core, as above). From B, whose cores are now
    // vm1's, its pass 1 is as slow as in the test above (52.5 s); had vm1's
    // load stayed on A, it would take 5.1 s. From A, idle again, it is as
    // fast as on an idle host.
    let (net, compression) = network_with_cores();
    let vm1 = Migration {
        guest: Some(0),
        ..migration(0.0, 100.0, 0.0)
    };
    let stays = Migration {
        guest: None,
        ..vm1.clone()
    };
    let on_a = Guest {
        host: 0,
        cores: 2.0,
        vcpus: vec![],
    };
    let on_source_only = Compression {
        compress_cycles: 2.0,
        decompress_cycles: 0.0,
        zero_cycles: 0.0,
        ..compression
    };
    let from_b = compressed(on_source_only, 1, 0, 20.0);
    let from_a = compressed(on_source_only, 0, 1, 20.0);
    let pass_s = |vm1: &Migration, other: &Migration| {
        let run = net.run_with_migrations(
            &[],
            &[],
            &[vm1.clone(), other.clone()],
            std::slice::from_ref(&on_a),
            None,
        );
        assert!(close(run.migrations[0].end.unwrap(), 10.2));
        let pass = run.migrations[1].passes[0];
        pass.end - pass.start
    };
    let (slow, fast) = (200.0 / (0.1 * 40.0 / 1.05), 200.0 / (10.0 / 0.255));
    assert!(close(pass_s(&vm1, &from_b), slow));
    assert!(close(pass_s(&stays, &from_b), fast));
    assert!(close(pass_s(&vm1, &from_a), fast));
    assert!(close(pass_s(&stays, &from_a), slow));
}

#[test]
fn an_oversubscribed_core_slows_network_work_but_never_stalls_it() {
    // B receives on its first core (40 cycles/s) at 4 cycles per byte: alone,
    // a connection of 100 units runs at min(link 10, 40/4 = 10) = 10/s. A
    // guest keeping both of B's cores busy (2 cores' worth: 40 cycles/s asked
    // of each) shares the core at an equal rate λ, its cycles/s and the
    // connection's units/s: λ + 4λ = 40, so the connection moves 8/s and
    // ends at 12.5 s — slower, but not never.
    let (mut net, _) = network_with_cores();
    let core = net.endpoints[1].host_cores[0];
    net.endpoints[1].receive_cores = Cores::Queue(core);
    for path in net.paths.values_mut() {
        path.receive_cycles_per_byte = 4.0;
    }
    let c = [connection(0, 1, 49152, 100.0)];
    let alone = net.run_with_migrations(&c, &[], &[], &[], Some(1.0));
    let full = Guest {
        host: 1,
        cores: 2.0,
        vcpus: vec![],
    };
    let busy = net.run_with_migrations(&c, &[], &[], &[full], Some(1.0));
    assert!(close(alone.connections[0].end.unwrap(), 10.0));
    assert!(close(busy.connections[0].end.unwrap(), 12.5));
    assert_eq!(busy.end_time, 12.5, "the guest does not keep the run going");
    // The recorded core use is the connection's alone: 4 cycles per byte at
    // 8/s = 32 of the core's 40 (the guest's 8 are left out), and nothing
    // on B's other core, which only the guest used.
    let series = busy.series.as_ref().unwrap();
    assert!(close(series[core][0], 32.0), "{:?}", series[core]);
    assert!(series[core + 1].iter().all(|&u| u == 0.0));
    assert_eq!(series.len(), net.resources.len(), "no row for the guests");
}

/// Endpoint 1 (host B) made a VM with two vCPUs of 20 cycles/s (resources
/// added at the end), its stack receiving on its first vCPU at 4 cycles per
/// byte and sending from either at 1: returns the network and the vCPUs.
fn network_with_a_vm_on_b() -> (Network, [usize; 2]) {
    let mut net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let vcpus = [net.resources.len(), net.resources.len() + 1];
    net.resources.extend([(20.0, Sharing::Shared); 2]);
    net.endpoints[1].guest_receive_cores = Cores::Queue(vcpus[0]);
    net.endpoints[1].guest_send_cores = Cores::Spread(vcpus.to_vec());
    for path in net.paths.values_mut() {
        path.guest_receive_cycles_per_byte = 4.0;
        path.guest_send_cycles_per_byte = 1.0;
    }
    (net, vcpus)
}

#[test]
fn a_vms_own_stack_works_on_its_vcpu_and_can_cap_its_stream() {
    // The member carries 10/s, but the VM's receiving vCPU does 20 cycles/s
    // at 4 cycles per byte: 5/s, so 100 units take 20 s; without vRSS a
    // second connection shares that vCPU (2.5/s each), it does not add one.
    let (net, vcpus) = network_with_a_vm_on_b();
    let one = net.run(&[connection(0, 1, 49152, 100.0)], &[], Some(1.0));
    assert!(close(one.connections[0].end.unwrap(), 20.0));
    let series = one.series.as_ref().unwrap();
    assert!(close(series[vcpus[0]][0], 20.0), "the vCPU is full");
    assert!(series[vcpus[1]].iter().all(|&u| u == 0.0));
    let two = net.run(
        &[connection(0, 1, 49152, 50.0), connection(0, 1, 49153, 50.0)],
        &[],
        None,
    );
    assert!(two.connections.iter().all(|c| close(c.end.unwrap(), 20.0)));
}

#[test]
fn a_vm_sends_from_its_vcpus_at_its_stacks_send_cost() {
    // From the VM on B to host A at 1 cycle per byte: the 10/s member
    // limits (10 of the vCPU's 20 cycles/s), as if the guest cost nothing.
    let (net, vcpus) = network_with_a_vm_on_b();
    let run = net.run(&[connection(1, 0, 49152, 100.0)], &[], Some(1.0));
    assert!(close(run.connections[0].end.unwrap(), 10.0));
    let series = run.series.as_ref().unwrap();
    let used: f64 = vcpus.iter().map(|&v| series[v][0]).sum();
    assert!(close(used, 10.0), "{used}");
}

#[test]
fn a_busy_guest_keeps_its_vcpus_from_its_own_stack() {
    // The guest's own work keeps both vCPUs full (2 cores' worth): on the
    // receiving vCPU it shares at an equal rate λ with the connection,
    // λ + 4λ = 20, so the connection moves 4/s (25 s for 100 units), and
    // the vCPU's recorded use is the connection's 16 cycles/s alone.
    let (net, vcpus) = network_with_a_vm_on_b();
    let guest = Guest {
        host: 1,
        cores: 2.0,
        vcpus: vcpus.to_vec(),
    };
    let run = net.run_with_migrations(
        &[connection(0, 1, 49152, 100.0)],
        &[],
        &[],
        &[guest],
        Some(1.0),
    );
    assert!(close(run.connections[0].end.unwrap(), 25.0));
    assert!(close(run.series.as_ref().unwrap()[vcpus[0]][0], 16.0));
}

#[test]
fn guests_alone_end_the_run_at_once() {
    let (net, _) = network_with_cores();
    let guest = Guest {
        host: 0,
        cores: 1.0,
        vcpus: vec![],
    };
    let run = net.run_with_migrations(&[], &[], &[], &[guest], Some(1.0));
    assert_eq!(run.end_time, 0.0);
    assert_eq!(run.events, 0);
}

#[test]
fn the_sources_preparation_adds_its_time_to_each_step_with_the_network_idle() {
    // 100 units at 10/s take 10 s on the wire; the source prepares 50 units/s
    // in series: pass 1 ends at 10 + 2 = 12 s. The blackout copy (1 unit of
    // device state) takes 0.1 + 0.02 s, then the 0.1 s switch-over.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let vm = Migration {
        prepare_rate: Some(50.0),
        ..migration(0.0, 100.0, 0.0)
    };
    let m = &net
        .run_with_migrations(&[], &[], &[vm], &[], None)
        .migrations[0];
    assert!(close(m.passes[0].end, 12.0), "{:?}", m.passes);
    assert!(close(m.end.unwrap(), 12.0 + 0.12 + 0.1), "{m:?}");
}
