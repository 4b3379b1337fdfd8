//! Dynamic VMQ on the engine: VM queues that share a busy core spread out.
//!
//! The network in every case: host A (endpoint 0) sends over NIC 0 to host
//! B's NIC 1, under which two VMs (endpoints 1 and 2) receive. Host B has
//! three cores of 40 cycles/s (resources 4, 5, 6); a received byte costs 8
//! cycles, so one core receives at most 5 units/s. Both VMs' queues start on
//! core 5 (static VMQ's round robin wrapped, say); dynamic VMQ may use cores
//! 5 and 6 (core 4 keeps the default queue). Host A's sending is not modelled.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};

use hvnet_engine::{ChangePoints, Sharing};
use hvnet_network::{
    Connection, Cores, DynamicVmq, Endpoint, LoadBalancing, Network, Nic, Path, RunReport, Team,
    TeamingMode, Uplink,
};

/// Each resource's mean use per second, from the recorded change points.
fn per_second(series: &[ChangePoints], end: f64) -> Vec<Vec<f64>> {
    series.iter().map(|c| c.means(0.0, 1.0, end)).collect()
}

const SHARED_CORE: usize = 5;
const OTHER_CORE: usize = 6;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// Resources: 0/1 NIC 0 send/receive, 2/3 NIC 1, 4..6 host B's cores; the
/// links carry `link` units/s.
fn network(link: f64, dynamic: bool) -> Network {
    let mut resources: Vec<_> = [link; 4].iter().map(|&c| (c, Sharing::Shared)).collect();
    resources.extend([(40.0, Sharing::Shared); 3]);
    let endpoint = |uplink, port, last: u8, receive_cores, queue_cores| {
        let address = IpAddr::V4(Ipv4Addr::new(10, 0, 0, last));
        Endpoint {
            receive_cores,
            host_cores: vec![4, 5, 6],
            queue_cores,
            ..Endpoint::new(uplink, port, address, [0, 0x15, 0x5d, 0, 0, last])
        }
    };
    let vm = |port, last| {
        let queue_cores = if dynamic {
            vec![SHARED_CORE, OTHER_CORE]
        } else {
            vec![]
        };
        endpoint(
            Uplink::Nic(1),
            port,
            last,
            Cores::Queue(SHARED_CORE),
            queue_cores,
        )
    };
    let path = Path {
        send_cycles_per_byte: 0.0,
        receive_cycles_per_byte: 8.0,
        ..Path::of_links(vec![(0, 1.0), (3, 1.0)])
    };
    Network {
        resources,
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
        teams: vec![],
        endpoints: vec![
            endpoint(Uplink::Nic(0), 0, 1, Cores::None, vec![]),
            vm(1, 2),
            vm(2, 3),
        ],
        paths: HashMap::from([((0, 1), path)]),
        paths_by_endpoint_mtu: HashMap::new(),
        nic_rss: vec![],
        lacp_timeout: 3.0,
        nic_lacp_timeouts: vec![],
        rebalance_interval: None,
        dynamic_vmq: Some(DynamicVmq {
            interval: 1.0,
            busy: 0.9,
        }),
        shared_queue_overhead: 0.0,
        loads: vec![],
    }
}

fn connection(target: u32, port: u16, amount: f64) -> Connection {
    Connection::new(0, target, Some((port, 5001)), amount, 0.0, None)
}

/// 100 units to each VM, recorded per second.
fn run_both(net: &Network) -> RunReport {
    net.run(
        &[connection(1, 49152, 100.0), connection(2, 49153, 100.0)],
        &[],
        true,
    )
}

#[test]
fn a_busy_shared_core_sheds_a_queue_at_the_first_tick_and_throughput_doubles() {
    // Both queues on core 5: 40 / 8 = 5 units/s for the two, 2.5 each. At the
    // first tick (1 s) core 5 is full (load 1 > 0.9) and holds two queues;
    // core 6 is idle, and one queue (20 cycles/s) there loads it 0.5 < 1:
    // one queue moves. Then each VM has a core: 5 units/s each, 10 in all.
    // Each has 97.5 units left at 1 s: done at 1 + 97.5 / 5 = 20.5 s.
    let run = run_both(&network(100.0, true));
    for c in &run.connections {
        assert!(close(c.end.unwrap(), 20.5), "{:?}", c.end);
        assert_eq!(c.members.len(), 1, "the NICs it uses never change");
    }
    let series = per_second(run.series.as_ref().unwrap(), run.end_time);
    assert!(close(series[SHARED_CORE][0], 40.0) && series[OTHER_CORE][0] == 0.0);
    assert!(close(series[SHARED_CORE][1], 40.0) && close(series[OTHER_CORE][1], 40.0));
    let total = |bin: usize| series[3][bin];
    assert!(
        close(total(0), 5.0) && close(total(1), 10.0),
        "5/s, then 10/s"
    );
}

#[test]
fn without_dynamic_vmq_the_queues_stay_shared() {
    // The same run with neither queue dynamic: 2.5 units/s each throughout,
    // 100 units in 40 s, core 6 idle; and no tick, so no extra event.
    let run = run_both(&network(100.0, false));
    for c in &run.connections {
        assert!(close(c.end.unwrap(), 40.0));
    }
    let series = per_second(run.series.as_ref().unwrap(), run.end_time);
    assert!(series[OTHER_CORE].iter().all(|&u| u == 0.0));
    let mut off = network(100.0, true);
    off.dynamic_vmq = None;
    let run_off = run_both(&off);
    assert!(run_off
        .connections
        .iter()
        .all(|c| close(c.end.unwrap(), 40.0)));
    assert_eq!(
        run_off.events, run.events,
        "no VMQ tick without dynamic VMQ"
    );
}

#[test]
fn a_shared_core_below_the_threshold_keeps_its_queues() {
    // Links of 4 units/s: 2 units/s each, 4 × 8 = 32 cycles/s on core 5, a
    // load of 0.8 < 0.9: nothing moves, both end at 100 / 2 = 50 s, as static.
    let dynamic = run_both(&network(4.0, true));
    let fixed = run_both(&network(4.0, false));
    for (d, f) in dynamic.connections.iter().zip(&fixed.connections) {
        assert!(close(d.end.unwrap(), 50.0) && close(f.end.unwrap(), 50.0));
    }
    assert!(dynamic.series.unwrap()[OTHER_CORE].is_empty());
}

#[test]
fn queues_alone_on_their_cores_never_tick() {
    // One queue on each core from the start: nothing can move, the run is
    // the static one, event for event (each ends at 100 / 5 = 20 s).
    let spread = |dynamic| {
        let mut net = network(100.0, dynamic);
        net.endpoints[2].receive_cores = Cores::Queue(OTHER_CORE);
        run_both(&net)
    };
    let (dynamic, fixed) = (spread(true), spread(false));
    assert_eq!(dynamic.events, fixed.events);
    for (d, f) in dynamic.connections.iter().zip(&fixed.connections) {
        assert!(close(d.end.unwrap(), 20.0));
        assert_eq!(d.end, f.end);
    }
}

#[test]
fn a_moved_queue_keeps_its_team_members() {
    // The VMs behind a Hyper-V port team of NICs 1 and 2: each VM's port
    // keeps its member whether or not its queue moves; the time is 20.5 s
    // as on one NIC.
    let team = |dynamic| {
        let mut net = network(100.0, dynamic);
        net.resources.push((100.0, Sharing::Shared));
        net.resources.push((100.0, Sharing::Shared));
        net.nics.push(Nic {
            send: 7,
            receive: 8,
        });
        net.paths.insert(
            (0, 2),
            Path {
                routing: Path::of_links(vec![(0, 1.0), (8, 1.0)]).routing,
                ..net.paths[&(0, 1)].clone()
            },
        );
        net.teams.push(Team {
            members: vec![1, 2],
            standby: None,
            mode: TeamingMode::SwitchIndependent,
            balancing: LoadBalancing::HyperVPort,
            switch_hash: hvnet_network::SwitchHash::TransportPorts,
        });
        for e in [1, 2] {
            net.endpoints[e].uplink = Uplink::Team(0);
        }
        run_both(&net)
    };
    let (dynamic, fixed) = (team(true), team(false));
    for (d, f) in dynamic.connections.iter().zip(&fixed.connections) {
        assert_eq!(d.members, f.members);
        assert!(close(d.end.unwrap(), 20.5), "{:?}", d.end);
    }
}
