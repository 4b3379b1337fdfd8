//! The specs' validation: what `check` refuses, and with which message.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr};

use hvnet_engine::Sharing;
use hvnet_network::{
    check, Change, Connection, Cores, Endpoint, LoadBalancing, Network, Nic, Path, SpecError,
    TeamingMode, Uplink,
};

/// Two NICs (resources 0/1 and 2/3) and a path from NIC 0 to NIC 1 only.
fn network() -> Network {
    let endpoint = |nic, last: u8| {
        let address = IpAddr::V4(Ipv4Addr::new(10, 0, 0, last));
        Endpoint::new(Uplink::Nic(nic), 0, address, [0, 0x15, 0x5d, 0, 0, last])
    };
    Network {
        resources: vec![(10.0, Sharing::Shared); 4],
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
        paths: HashMap::from([((0, 1), Path::of_links(vec![(0, 1.0), (3, 1.0)]))]),
        lacp_timeout: 3.0,
        ..Network::default()
    }
}

fn message(result: Result<(), SpecError>) -> String {
    result.expect_err("refused").to_string()
}

#[test]
fn a_valid_run_passes() {
    let c = Connection::new(0, 1, Some((49152, 5001)), 100.0, 0.0, None);
    let change = (1.0, Change::Link { nic: 1, up: false });
    assert_eq!(check(&network(), &[c], &[change]), Ok(()));
}

#[test]
fn a_connection_needs_a_path_for_its_nics() {
    let back = Connection::new(1, 0, None, 100.0, 0.0, None);
    assert_eq!(
        message(check(&network(), &[back], &[])),
        "connection 0: no path given from NIC 1 to NIC 0"
    );
}

#[test]
fn indices_and_numbers_out_of_range_are_refused() {
    let mut net = network();
    net.nics[1].receive = 9;
    assert_eq!(message(net.check()), "resource 9 does not exist");
    let mut net = network();
    net.resources[2].0 = f64::NAN;
    assert_eq!(
        message(net.check()),
        "resource 2: capacity NaN is not a finite number >= 0"
    );
    let c = Connection::new(0, 1, None, -1.0, 0.0, None);
    assert_eq!(
        message(check(&network(), &[c], &[])),
        "connection 0: amount -1 and start 0 must be finite and >= 0"
    );
    let change = (0.0, Change::Link { nic: 5, up: true });
    assert_eq!(
        message(check(&network(), &[], &[change])),
        "NIC 5 does not exist"
    );
}

#[test]
fn names_become_types_or_are_refused() {
    assert_eq!("lacp".parse(), Ok(TeamingMode::Lacp));
    assert_eq!("dynamic".parse(), Ok(LoadBalancing::Dynamic));
    assert_eq!(
        "lacp2".parse::<TeamingMode>().unwrap_err().to_string(),
        "unknown teaming mode \"lacp2\""
    );
    assert_eq!(
        Cores::from_kind("queue", vec![1, 2])
            .unwrap_err()
            .to_string(),
        "cores \"queue\" with 2 cores is not valid"
    );
    assert_eq!(
        Change::from_kind("switch", 0, true)
            .unwrap_err()
            .to_string(),
        "unknown change \"switch\""
    );
}

#[test]
fn endpoints_of_two_ip_versions_are_refused_before_any_flow_is_hashed() {
    // A team hashes both addresses of a flow together, and a driver may join
    // any two endpoints while running: mixing versions is refused up front,
    // not when a connection is hashed.
    let mut n = network();
    n.endpoints[1].address = "fd00::2".parse().unwrap();
    let refused = message(check(&n, &[], &[]));
    assert!(refused.contains("different IP versions"), "{refused}");
}

#[test]
fn a_connection_of_a_vm_mtu_needs_the_path_for_that_mtu() {
    // A VM's own MTU gives its connections paths of their own (`paths_by_endpoint_mtu`):
    // one without its path is refused, naming the MTU; with it, accepted.
    let mut n = network();
    let c = Connection {
        endpoint_mtu: Some(1500),
        ..Connection::new(0, 1, Some((49152, 5001)), 100.0, 0.0, None)
    };
    let refused = message(check(&n, &[c], &[]));
    assert!(
        refused.contains("from NIC 0 to NIC 1 at MTU 1500"),
        "{refused}"
    );
    let path = n.paths[&(0, 1)].clone();
    n.paths_by_endpoint_mtu.insert((0, 1, 1500), path);
    assert_eq!(check(&n, &[c], &[]), Ok(()));
}

#[test]
fn a_pinned_connection_needs_only_its_own_pair() {
    // Traffic inside a virtual switch is pinned to a NIC pair with no links; the
    // pairs its endpoints' uplinks would give need no path.
    let mut n = network();
    n.nics.push(Nic {
        send: 0,
        receive: 0,
    });
    let c = Connection {
        pinned: Some((2, 2)),
        ..Connection::new(1, 0, None, 100.0, 0.0, None)
    };
    let refused = message(check(&n, &[c], &[]));
    assert!(refused.contains("from NIC 2 to NIC 2"), "{refused}");
    n.paths.insert((2, 2), Path::of_links(Vec::new()));
    assert_eq!(check(&n, &[c], &[]), Ok(()));
}
