//! Times the engine alone on the benchmark's star workload:
//! `cargo run --release -p hvnet-engine --example star -- HOSTS FLOWS SEED`.
//! N hosts with one full-duplex 10 GbE link each to a non-blocking switch;
//! flows between random pairs, 0.1–10 GB, all starting at 0. With a fourth
//! argument, writes each flow's completion time there, one per line (to
//! compare two builds of the engine).

use std::time::Instant;

use hvnet_engine::{ActivitySpec, Sharing, Transfer, Workload};

/// A small deterministic generator (SplitMix64), enough for a workload.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .take(3)
        .map(|a| a.parse().expect("numbers: HOSTS FLOWS SEED"))
        .collect();
    let (hosts, flows, mut seed) = (
        args.first().copied().unwrap_or(64),
        args.get(1).copied().unwrap_or(8000),
        args.get(2).copied().unwrap_or(1),
    );
    let link = 10e9 / 8.0;
    // Resource 2h is host h's send direction, 2h+1 its receive direction.
    let resources = vec![(link, Sharing::Shared); 2 * hosts as usize];
    let transfers = (0..flows)
        .map(|_| {
            let src = splitmix(&mut seed) % hosts;
            let dst = (src + 1 + splitmix(&mut seed) % (hosts - 1)) % hosts;
            let bytes = 1e8 + (splitmix(&mut seed) % 9_900_000_000) as f64;
            Transfer {
                start: 0.0,
                spec: ActivitySpec::new(
                    bytes,
                    vec![(2 * src as usize, 1.0), (2 * dst as usize + 1, 1.0)],
                ),
            }
        })
        .collect();
    let workload = Workload {
        resources,
        transfers,
        changes: vec![],
        record: false,
    };
    let clock = Instant::now();
    let result = workload.run();
    let wall = clock.elapsed().as_secs_f64();
    println!(
        "{hosts} hosts, {flows} flows: {} events, end {:.3} s simulated, {wall:.3} s wall",
        result.events, result.end_time
    );
    let s = result.solves;
    println!(
        "solves: {} from scratch, {} again in the last order ({} pops rolled back, {} given up), {} again sorted",
        s.from_scratch, s.in_order, s.rolled_back, s.given_up, s.sorted
    );
    if let Some(path) = std::env::args().nth(4) {
        let lines: Vec<String> = result
            .end
            .iter()
            .map(|t| t.map_or("never".into(), |t| format!("{t:e}")))
            .collect();
        std::fs::write(&path, lines.join("\n") + "\n").expect("write the completion times");
    }
}
