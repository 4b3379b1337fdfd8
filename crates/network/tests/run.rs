//! Teams on the engine: member use, failover, black holes, rebalancing,
//! timed senders, steady flows and measured load.
//!
//! The network in every case: host A has a team of NICs 0 and 1 (10 units/s
//! each way); host B has NIC 2 (100 units/s, never the bottleneck).

use hvnet_network::{
    Change, Connection, ConnectionReport, Load, LoadBalancing, Network, TeamingMode,
};

#[path = "support/two_hosts.rs"]
mod two_hosts;
use two_hosts::{close, connection, first_member, network, per_second, ADDRESS_HASH};

#[test]
fn one_connection_rides_one_member_at_its_speed() {
    // 100 units at 10/s over one member: 10 s, never two members.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let run = net.run(&[connection(0, 1, 49152, 100.0)], &[], false);
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
    let run = net.run(&conns, &[], false);
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
    let run = net.run(&conns, &[], false);
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
    let run = net.run(&conns, &[], false);
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
        .run(&[connection(0, 1, 49152, 100.0)], &changes, false)
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
    let mut run = net.run(&[connection(0, 1, 49152, 100.0)], &changes, false);
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
    let run = net.run(&conns, &changes, false);
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
    let member = |p| net.run(&[connection(0, 1, p, 1.0)], &[], false).connections[0].members[0].1;
    let first = member(49152);
    let twin = (49153..49300)
        .find(|&p| member(p) == first)
        .expect("two ports on one member");
    let conns = [connection(0, 1, 49152, 20.0), connection(0, 1, twin, 20.0)];
    assert!(close(net.run(&conns, &[], false).end_time, 4.0));
    net.rebalance_interval = Some(1.0);
    let run = net.run(&conns, &[], false);
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
        .run(&[connection(0, 1, 49152, 100.0)], &changes, false)
        .connections[0];
    assert!(close(report.blackholed, 3.0));
    assert!(close(report.end.unwrap(), 13.0));
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
    let report = &net.run(&[timed], &[], false).connections[0];
    assert!(close(report.sent, 30.0));
    assert_eq!(report.end, Some(3.0));
}

#[test]
fn a_steady_flow_sends_at_its_rate_and_no_faster() {
    // A bound of 4/s on a 10/s member, for 10 s: 40 units sent, not the 100
    // the link would allow; its use never rises above 4.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let steady = Connection {
        stop: Some(10.0),
        bound: Some(4.0),
        pinned: Some((0, 2)),
        ..connection(0, 1, 49152, 1e9)
    };
    let run = net.run(&[steady], &[], true);
    assert!(close(run.connections[0].sent, 40.0));
    let use_of_nic0 = &run.series.as_ref().unwrap()[0];
    assert!(use_of_nic0.values().iter().all(|&v| v <= 4.0 + 1e-9));
}

#[test]
fn a_steady_flow_shares_max_min_fairly_below_its_rate() {
    // On one 10/s member: a steady flow bounded at 2 keeps its 2 and a transfer
    // takes the other 8; bounded at 8 it gets the fair 5, as the transfer does.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let pinned = |c: Connection| Connection {
        pinned: Some((0, 2)),
        ..c
    };
    for (bound, steady_rate, transfer_rate) in [(2.0, 2.0, 8.0), (8.0, 5.0, 5.0)] {
        let steady = pinned(Connection {
            stop: Some(10.0),
            bound: Some(bound),
            ..connection(0, 1, 49152, 1e9)
        });
        let transfer = pinned(Connection {
            stop: Some(10.0),
            ..connection(0, 1, 49153, 1e9)
        });
        let run = net.run(&[steady, transfer], &[], false);
        assert!(
            close(run.connections[0].sent, steady_rate * 10.0),
            "bound {bound}"
        );
        assert!(
            close(run.connections[1].sent, transfer_rate * 10.0),
            "bound {bound}"
        );
    }
}

#[test]
fn a_measured_load_takes_its_rate_and_the_connections_share_the_rest() {
    // NIC 0 sends a replayed 4/s from 0 to 5 s, then nothing; a 100-unit
    // connection on NIC 0 gets the other 6/s, then all 10: 30 by 5 s, the
    // remaining 70 by 12 s. The recorded use of NIC 0 is 10 throughout, and
    // the load alone would show 4 then 0.
    let mut net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    net.loads = vec![Load {
        resource: 0,
        steps: vec![(0.0, 4.0), (5.0, 0.0)],
        weight: 1.0,
    }];
    let copy = Connection {
        pinned: Some((0, 2)),
        ..connection(0, 1, 49152, 100.0)
    };
    let run = net.run(&[copy], &[], true);
    assert!(close(run.connections[0].end.unwrap(), 12.0));
    let alone = net.run(&[], &[], true);
    assert_eq!(alone.end_time, 5.0);
    let per_s = per_second(alone.series.as_ref().unwrap(), alone.end_time);
    assert_eq!(per_s[0], vec![4.0; 5]);
}

#[test]
fn a_load_on_a_resource_that_does_not_exist_is_refused() {
    let mut net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    net.loads = vec![Load {
        resource: 99,
        steps: vec![(0.0, 1.0)],
        weight: 1.0,
    }];
    let err = hvnet_network::check(&net, &[], &[]).unwrap_err();
    assert_eq!(err.0, "load 0: resource 99 does not exist");
    net.loads[0] = Load {
        resource: 0,
        steps: vec![(2.0, 1.0), (1.0, 1.0)],
        weight: 1.0,
    };
    let err = hvnet_network::check(&net, &[], &[]).unwrap_err();
    assert!(
        err.0.contains("times must be finite, >= 0 and increasing"),
        "{}",
        err.0
    );
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
        .run(&[connection(0, 1, 49152, 1000.0)], &changes, false)
        .connections[0];
    assert_eq!(report.members[1].0, 9.0);
    assert!(close(report.blackholed, 4.0));
}

#[test]
fn a_connection_pinned_to_a_team_member_moves_to_another_while_its_member_is_down() {
    // A host vNIC mapped to team member 0 (an SMB Direct channel): 100 units
    // at 10/s. Member 0's cable and link go down at 2 s and come back at 6 s:
    // the connection moves to member 1 at once (no black hole), and back at
    // 6 s; it ends at 10 s as if nothing happened.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let pinned = Connection {
        pinned: Some((0, 2)),
        ..connection(0, 1, 49152, 100.0)
    };
    let mut changes = cable(&net, 0, 2.0, false).to_vec();
    changes.push((2.0, Change::Link { nic: 0, up: false }));
    changes.extend(cable(&net, 0, 6.0, true));
    changes.push((6.0, Change::Link { nic: 0, up: true }));
    hvnet_network::check(&net, &[pinned], &changes).unwrap();
    let r = &net.run(&[pinned], &changes, false).connections[0];
    assert_eq!(
        r.members,
        vec![
            (0.0, Some(0), Some(2)),
            (2.0, Some(1), Some(2)),
            (6.0, Some(0), Some(2))
        ]
    );
    assert_eq!(r.blackholed, 0.0);
    assert!(close(r.end.unwrap(), 10.0));
}

#[test]
fn a_connection_pinned_to_a_nic_outside_a_team_stays_on_it() {
    // Pinned to B's NIC 2 (no team there): its cable down from 2 s black-holes
    // it until it is back at 6 s.
    let net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let pinned = Connection {
        pinned: Some((2, 0)),
        ..connection(1, 0, 49152, 100.0)
    };
    let mut changes = cable(&net, 2, 2.0, false).to_vec();
    changes.push((2.0, Change::Link { nic: 2, up: false }));
    changes.extend(cable(&net, 2, 6.0, true));
    changes.push((6.0, Change::Link { nic: 2, up: true }));
    let r = &net.run(&[pinned], &changes, false).connections[0];
    assert!(close(r.blackholed, 4.0), "{r:?}");
    assert!(close(r.end.unwrap(), 14.0));
}
