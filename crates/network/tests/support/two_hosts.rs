//! The test network both crates' run tests share (included with `#[path]` by
//! `crates/network/tests/run.rs`, `crates/migration/tests/run.rs` and
//! `crates/migration/tests/cores.rs`): host A has a team of NICs 0 and 1 (10
//! units/s each way); host B has NIC 2 (100 units/s, never the bottleneck).

#![allow(dead_code)] // each test file that includes this uses part of it

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};

use hvnet_engine::{ChangePoints, Sharing};
use hvnet_network::{
    AddressHash, Connection, Cores, Endpoint, LoadBalancing, Network, Nic, Path, SwitchHash, Team,
    TeamingMode, Uplink,
};

/// Load balancing by address hash over the transport ports.
pub const ADDRESS_HASH: LoadBalancing = LoadBalancing::AddressHash(AddressHash::TransportPorts);

/// A connection of `amount` from endpoint `source`'s `port` to port 445 of `target`, at 0.
pub fn connection(source: u32, target: u32, port: u16, amount: f64) -> Connection {
    Connection::new(source, target, Some((port, 445)), amount, 0.0, None)
}

/// The member the test connection (port 49152, 100 units) leaves by when nothing fails.
pub fn first_member(net: &Network) -> u32 {
    net.run(&[connection(0, 1, 49152, 100.0)], &[], false)
        .connections[0]
        .members[0]
        .1
        .expect("a member")
}

/// Each resource's mean use per second, from the recorded change points.
pub fn per_second(series: &[ChangePoints], end: f64) -> Vec<Vec<f64>> {
    series.iter().map(|c| c.means(0.0, 1.0, end)).collect()
}

pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// Resources: 0/1 NIC 0 send/receive, 2/3 NIC 1, 4/5 NIC 2.
pub fn network(mode: TeamingMode, balancing: LoadBalancing, standby: Option<u32>) -> Network {
    let mut paths = HashMap::new();
    for (pair, links) in [
        ((0, 2), [0, 5]),
        ((1, 2), [2, 5]),
        ((2, 0), [4, 1]),
        ((2, 1), [4, 3]),
    ] {
        paths.insert(
            pair,
            Path::of_links(links.iter().map(|&r| (r, 1.0)).collect()),
        );
    }
    let endpoint = |uplink, port, last: u8| {
        let address = IpAddr::V4(Ipv4Addr::new(10, 0, 0, last));
        Endpoint::new(uplink, port, address, [0, 0x15, 0x5d, 0, 0, last])
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
        paths_by_endpoint_mtu: HashMap::new(),
        nic_rss: vec![],
        lacp_timeout: 3.0,
        nic_lacp_timeouts: vec![],
        rebalance_interval: None,
        dynamic_vmq: None,
        shared_queue_overhead: 0.0,
        loads: vec![],
    }
}

/// Endpoint 1 (host B) made a VM with two vCPUs of 20 cycles/s (resources
/// added at the end), its stack receiving on its first vCPU at 4 cycles per
/// byte and sending from either at 1: returns the network and the vCPUs.
pub fn network_with_a_vm_on_b() -> (Network, [usize; 2]) {
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
