//! The cores on the network's run: the guests' own CPU load beside live
//! migrations, and what a migration's connections cost each host's cores.
//!
//! The network in every case: host A has a team of NICs 0 and 1 (10 units/s
//! each way); host B has NIC 2 (100 units/s, never the bottleneck), each
//! given cores where a test needs them.

use hvnet_engine::Sharing;
use hvnet_migration::{run_with_migrations, Channel, Compression, Guest, GuestMemory, Migration};
use hvnet_network::{Cores, Network, TeamingMode};

#[path = "support/migrations.rs"]
mod migrations;
#[path = "../../network/tests/support/two_hosts.rs"]
mod two_hosts;
use migrations::{compression, migration};
use two_hosts::{close, connection, network, network_with_a_vm_on_b, per_second, ADDRESS_HASH};

/// The network with two cores of 40 cycles/s on each host (A: endpoints 0
/// and 2; B: endpoint 1), and the tests' compression (`migrations::compression`).
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
    let compression = compression();
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
        hosts: (source, target),
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
    let idle = &run_with_migrations(&net, &[], &[], std::slice::from_ref(&vm), &[], false);
    let busy_guest = Guest {
        host: 0,
        cores: 2.0,
        migrations: vec![],
        vcpus: vec![],
    };
    let busy = &run_with_migrations(&net, &[], &[], &[vm], &[busy_guest], false);
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
    let idle = &run_with_migrations(&net, &[], &[], std::slice::from_ref(&vm), &[], false);
    let light = Guest {
        host: 0,
        cores: 0.5,
        migrations: vec![],
        vcpus: vec![],
    };
    let loaded = &run_with_migrations(&net, &[], &[], &[vm], &[light], false);
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
    let vm1 = migration(0.0, 100.0, 0.0);
    // The guest on A moves with vm1's migration (migration 0), or stays on A.
    let moves = Guest {
        host: 0,
        cores: 2.0,
        migrations: vec![0],
        vcpus: vec![],
    };
    let stays = Guest {
        migrations: vec![],
        ..moves.clone()
    };
    let on_source_only = Compression {
        compress_cycles: 2.0,
        decompress_cycles: 0.0,
        zero_cycles: 0.0,
        ..compression
    };
    let from_b = compressed(on_source_only, 1, 0, 20.0);
    let from_a = compressed(on_source_only, 0, 1, 20.0);
    let pass_s = |guest: &Guest, other: &Migration| {
        let run = run_with_migrations(
            &net,
            &[],
            &[],
            &[vm1.clone(), other.clone()],
            std::slice::from_ref(guest),
            false,
        );
        assert!(close(run.migrations[0].end.unwrap(), 10.2));
        let pass = run.migrations[1].passes[0];
        pass.end - pass.start
    };
    let (slow, fast) = (200.0 / (0.1 * 40.0 / 1.05), 200.0 / (10.0 / 0.255));
    assert!(close(pass_s(&moves, &from_b), slow));
    assert!(close(pass_s(&stays, &from_b), fast));
    assert!(close(pass_s(&moves, &from_a), fast));
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
    let alone = run_with_migrations(&net, &c, &[], &[], &[], true);
    let full = Guest {
        host: 1,
        cores: 2.0,
        migrations: vec![],
        vcpus: vec![],
    };
    let busy = run_with_migrations(&net, &c, &[], &[], &[full], true);
    assert!(close(alone.connections[0].end.unwrap(), 10.0));
    assert!(close(busy.connections[0].end.unwrap(), 12.5));
    assert_eq!(busy.end_time, 12.5, "the guest does not keep the run going");
    // The recorded core use is the connection's alone: 4 cycles per byte at
    // 8/s = 32 of the core's 40 (the guest's 8 are left out), and nothing
    // on B's other core, which only the guest used.
    let series = per_second(busy.series.as_ref().unwrap(), busy.end_time);
    assert!(close(series[core][0], 32.0), "{:?}", series[core]);
    assert!(series[core + 1].iter().all(|&u| u == 0.0));
    assert_eq!(series.len(), net.resources.len(), "no row for the guests");
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
        migrations: vec![],
        vcpus: vcpus.to_vec(),
    };
    let run = run_with_migrations(
        &net,
        &[connection(0, 1, 49152, 100.0)],
        &[],
        &[],
        &[guest],
        true,
    );
    assert!(close(run.connections[0].end.unwrap(), 25.0));
    let series = per_second(run.series.as_ref().unwrap(), run.end_time);
    assert!(close(series[vcpus[0]][0], 16.0));
}

#[test]
fn guests_alone_end_the_run_at_once() {
    let (net, _) = network_with_cores();
    let guest = Guest {
        host: 0,
        cores: 1.0,
        migrations: vec![],
        vcpus: vec![],
    };
    let run = run_with_migrations(&net, &[], &[], &[], &[guest], true);
    assert_eq!(run.end_time, 0.0);
    assert_eq!(run.events, 0);
}

#[test]
fn a_migration_reports_the_cpu_its_connections_cost_on_each_host() {
    // The compressed migration of 200 units (half zero pages) and its
    // blackout copy of 1 unit of device state: every byte of memory costs 1
    // cycle to compress on A (0.5 on each of its 2 cores of 40 cycles/s) and
    // 1 to decompress on B, and no core sends or receives it (no RSS or VMQ
    // here): 201 × (0.5 / 40 + 0.5 / 40) = 5.025 core-s on each host.
    let (net, compression) = network_with_cores();
    let vm = compressed(compression, 0, 1, 0.0);
    let run = run_with_migrations(&net, &[], &[], &[vm], &[], false);
    let m = &run.migrations[0];
    assert!(close(m.bytes_sent, 201.0), "{m:?}");
    assert!(close(m.cpu_core_s_source, 201.0 / 40.0), "{m:?}");
    assert!(close(m.cpu_core_s_destination, 201.0 / 40.0), "{m:?}");
    let per_connection: f64 = m
        .connections
        .iter()
        .map(|&k| run.connections[k].send_core_s)
        .sum();
    assert_eq!(per_connection, m.cpu_core_s_source);
}

#[test]
fn smb_gives_each_channel_a_receive_queue_of_its_own_while_one_is_left() {
    // B receives with RSS over 4 cores: 4 channels land on 4 different
    // queues; a 5th shares one. Without cores modelled, the ports are taken
    // in turn from migration i's first port, 63000 + 64 i, counted on in
    // Windows' dynamic range (49152-65535) past its end.
    let mut net = network(TeamingMode::SwitchIndependent, ADDRESS_HASH, None);
    let cores = Cores::Rss(vec![10, 11, 12, 13]);
    let channel = Channel {
        nics: None,
        cycles: None,
        endpoints: None,
    };
    let smb = |n| Migration {
        channels: vec![channel; n],
        ..migration(0.0, 200.0, 0.0)
    };
    let in_turn = hvnet_migration::transport::smb_ports(&net, 0, &smb(3));
    assert_eq!(in_turn, vec![(63000, 445), (63001, 445), (63002, 445)]);
    let wrapped = hvnet_migration::transport::smb_ports(&net, 100, &smb(1));
    let expected = 49152 + (63000 + 6400 - 49152) % 16384;
    assert_eq!(wrapped, vec![(expected as u16, 445)]);

    net.endpoints[1].receive_cores = cores.clone();
    let hash = |port: u16| {
        let key = hvnet_network::FlowKey::new(
            net.endpoints[0].address,
            net.endpoints[1].address,
            Some((port, 445)),
        )
        .unwrap();
        hvnet_network::rss_hash(&key, &hvnet_network::MICROSOFT_RSS_KEY)
    };
    let ports = hvnet_migration::transport::smb_ports(&net, 0, &smb(5));
    let queues: Vec<usize> = ports
        .iter()
        .map(|&(p, _)| cores.queue(hash(p)).unwrap())
        .collect();
    let mut first_four = queues[..4].to_vec();
    first_four.sort_unstable();
    assert_eq!(
        first_four,
        vec![0, 1, 2, 3],
        "ports {ports:?} land on queues {queues:?}"
    );
    assert!(ports
        .iter()
        .all(|&(p, d)| (63000..63064).contains(&p) && d == 445));
}
