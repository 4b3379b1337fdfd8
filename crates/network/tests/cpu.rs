//! Cores on the engine: a host's RSS cores and a VM's vCPUs cap what they
//! receive and send, and each connection reports the CPU it cost.
//!
//! The network in every case: host A has a team of NICs 0 and 1 (10 units/s
//! each way); host B has NIC 2 (100 units/s, never the bottleneck).

use hvnet_engine::Sharing;
use hvnet_network::{Change, Cores, LoadBalancing, Network, TeamingMode};

#[path = "support/two_hosts.rs"]
mod two_hosts;
use two_hosts::{
    close, connection, first_member, network, network_with_a_vm_on_b, per_second, ADDRESS_HASH,
};

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
    let run = net.run(&[connection(0, 1, 49152, 100.0)], &[], true);
    assert!(close(run.connections[0].end.unwrap(), 20.0));
    let series = per_second(run.series.as_ref().unwrap(), run.end_time);
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
        let run = net.run(&[connection(0, 1, p, 1.0)], &[], true);
        let series = per_second(run.series.as_ref().unwrap(), run.end_time);
        (6..8).find(|&c| series[c][0] > 0.0).unwrap()
    };
    let first = core(49152);
    let other = (49153..49300)
        .find(|&p| core(p) != first)
        .expect("a port on the other core");
    let run = net.run(
        &[connection(0, 1, 49152, 50.0), connection(0, 1, other, 50.0)],
        &[],
        false,
    );
    assert!(run.connections.iter().all(|c| close(c.end.unwrap(), 10.0)));
}

#[test]
fn a_vms_own_stack_works_on_its_vcpu_and_can_cap_its_stream() {
    // The member carries 10/s, but the VM's receiving vCPU does 20 cycles/s
    // at 4 cycles per byte: 5/s, so 100 units take 20 s; without vRSS a
    // second connection shares that vCPU (2.5/s each), it does not add one.
    let (net, vcpus) = network_with_a_vm_on_b();
    let one = net.run(&[connection(0, 1, 49152, 100.0)], &[], true);
    assert!(close(one.connections[0].end.unwrap(), 20.0));
    let series = per_second(one.series.as_ref().unwrap(), one.end_time);
    assert!(close(series[vcpus[0]][0], 20.0), "the vCPU is full");
    assert!(series[vcpus[1]].iter().all(|&u| u == 0.0));
    let two = net.run(
        &[connection(0, 1, 49152, 50.0), connection(0, 1, 49153, 50.0)],
        &[],
        false,
    );
    assert!(two.connections.iter().all(|c| close(c.end.unwrap(), 20.0)));
}

#[test]
fn a_vm_sends_from_its_vcpus_at_its_stacks_send_cost() {
    // From the VM on B to host A at 1 cycle per byte: the 10/s member
    // limits (10 of the vCPU's 20 cycles/s), as if the guest cost nothing.
    let (net, vcpus) = network_with_a_vm_on_b();
    let run = net.run(&[connection(1, 0, 49152, 100.0)], &[], true);
    assert!(close(run.connections[0].end.unwrap(), 10.0));
    let series = per_second(run.series.as_ref().unwrap(), run.end_time);
    let used: f64 = vcpus.iter().map(|&v| series[v][0]).sum();
    assert!(close(used, 10.0), "{used}");
}

#[test]
fn each_connection_reports_the_cpu_it_cost_on_each_side_stretch_by_stretch() {
    // A sends from a core of 40 cycles/s at 2 cycles per byte; B receives on
    // a core of 40 cycles/s at 4 cycles per byte over the first member, 8
    // over the other. The first member's link goes down at 5 s: 50 units
    // moved at 10/s, then the other 50 at B's core's 40/8 = 5/s (10 s).
    // Sending: 100 × 2 / 40 = 5 core-s; receiving: 50 × 4 / 40 + 50 × 8 / 40
    // = 5 + 10 = 15 core-s.
    let mut net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let first = net.resources.len();
    net.resources
        .extend([(40.0, Sharing::Shared), (40.0, Sharing::Shared)]);
    net.endpoints[0].send_cores = Cores::Queue(first);
    net.endpoints[1].receive_cores = Cores::Queue(first + 1);
    let member = first_member(&net);
    for (&(a, _), path) in net.paths.iter_mut() {
        path.send_cycles_per_byte = 2.0;
        path.receive_cycles_per_byte = if a == member { 4.0 } else { 8.0 };
    }
    let fail = [(
        5.0,
        Change::Link {
            nic: member,
            up: false,
        },
    )];
    let report = &net
        .run(&[connection(0, 1, 49152, 100.0)], &fail, false)
        .connections[0];
    assert_eq!(report.members.len(), 2, "it moved once");
    assert!(close(report.end.unwrap(), 15.0), "{report:?}");
    assert!(close(report.send_core_s, 5.0), "{report:?}");
    assert!(close(report.receive_core_s, 15.0), "{report:?}");
}
