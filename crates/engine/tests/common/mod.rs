//! A slow, obviously-correct reference: progressive filling recomputed from
//! scratch each round, and a time-stepping simulator built on it. Nothing
//! here is incremental, grouped or clever.

#![allow(dead_code)]

use hvnet_engine::Sharing;

#[derive(Clone, Debug)]
pub struct RefVar {
    pub weight: f64,
    pub bound: f64,
    pub usage: Vec<(usize, f64)>,
}

/// Weighted max-min rates by naive progressive filling.
pub fn reference_rates(caps: &[(f64, Sharing)], vars: &[RefVar]) -> Vec<f64> {
    let mut rate = vec![0.0; vars.len()];
    let mut frozen = vec![false; vars.len()];
    loop {
        // The level at which each constraint, and each bound, would bind.
        let mut level = f64::INFINITY;
        for (c, &(cap, sharing)) in caps.iter().enumerate() {
            let mut used = 0.0;
            let mut weights = 0.0;
            for (v, var) in vars.iter().enumerate() {
                for &(cc, a) in &var.usage {
                    if cc != c || a == 0.0 {
                        continue;
                    }
                    match sharing {
                        Sharing::Shared if frozen[v] => used += a * rate[v],
                        Sharing::Shared => weights += a * var.weight,
                        Sharing::Fatpipe if !frozen[v] => level = level.min(cap / (a * var.weight)),
                        Sharing::Fatpipe => {}
                    }
                }
            }
            if weights > 0.0 {
                level = level.min((cap - used).max(0.0) / weights);
            }
        }
        for (v, var) in vars.iter().enumerate() {
            if !frozen[v] {
                level = level.min(var.bound / var.weight);
            }
        }
        if !level.is_finite() {
            break;
        }
        // Freeze every variable that touches something binding at that level.
        let mut froze_any = false;
        let snapshot = frozen.clone();
        for (v, var) in vars.iter().enumerate() {
            if snapshot[v] {
                continue;
            }
            let r = var.weight * level;
            let mut binds = r >= var.bound * (1.0 - 1e-12);
            for &(c, a) in &var.usage {
                if a == 0.0 {
                    continue;
                }
                let (cap, sharing) = caps[c];
                binds |= match sharing {
                    Sharing::Fatpipe => a * r >= cap * (1.0 - 1e-12),
                    Sharing::Shared => {
                        let total: f64 = vars
                            .iter()
                            .enumerate()
                            .flat_map(|(u, ru)| {
                                ru.usage
                                    .iter()
                                    .filter(move |e| e.0 == c)
                                    .map(move |e| (u, e.1))
                            })
                            .map(|(u, au)| {
                                au * if snapshot[u] {
                                    rate[u]
                                } else {
                                    vars[u].weight * level
                                }
                            })
                            .sum();
                        total >= cap * (1.0 - 1e-12) - 1e-12
                    }
                };
            }
            if binds {
                rate[v] = r;
                frozen[v] = true;
                froze_any = true;
            }
        }
        if !froze_any {
            break;
        }
    }
    for (v, f) in frozen.iter().enumerate() {
        if !f {
            rate[v] = f64::INFINITY;
        }
    }
    rate
}

/// Completion times of transfers (start, amount, var) by stepping from
/// event to event, re-solving everything from scratch each time.
pub fn reference_completions(
    caps: &[(f64, Sharing)],
    transfers: &[(f64, f64, RefVar)],
) -> Vec<Option<f64>> {
    let mut left: Vec<f64> = transfers.iter().map(|t| t.1).collect();
    let mut end = vec![None; transfers.len()];
    let mut now = 0.0f64;
    loop {
        let running: Vec<usize> = (0..transfers.len())
            .filter(|&i| end[i].is_none() && transfers[i].0 <= now + 1e-12)
            .collect();
        let vars: Vec<RefVar> = running.iter().map(|&i| transfers[i].2.clone()).collect();
        let rates = reference_rates(caps, &vars);
        let mut next = f64::INFINITY;
        for (k, &i) in running.iter().enumerate() {
            if rates[k] > 0.0 {
                next = next.min(now + left[i] / rates[k]);
            }
        }
        for t in transfers.iter().filter(|t| t.0 > now + 1e-12) {
            next = next.min(t.0);
        }
        if !next.is_finite() {
            return end;
        }
        for (k, &i) in running.iter().enumerate() {
            if rates[k].is_infinite() {
                left[i] = 0.0;
            } else {
                left[i] -= rates[k] * (next - now);
            }
            if left[i] <= 1e-9 * transfers[i].1 {
                end[i] = Some(next);
            }
        }
        now = next;
    }
}
