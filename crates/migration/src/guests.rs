//! The guests' own CPU load on the network's run: what the VMs' work leaves of their
//! host's cores for network processing and for live-migration compression.
//!
//! A guest keeps `cores` cores' worth of work busy (vCPUs × its load). The
//! hypervisor is assumed to spread a VM's virtual processors evenly over all
//! its host's physical cores, so a host of `n` cores whose guests ask
//! `G = Σ cores_g` puts on each core `c` (of `C_c` cycles/s) a demand of
//!
//! ```text
//!   D_c = G / n · C_c   cycles/s
//! ```
//!
//! Each busy core carries one *background* activity of the engine: infinite
//! work (it never completes, and never keeps the run going), weight 1, rate
//! bound `D_c`, using the core with coefficient 1 (its rate is in cycles/s).
//! The engine's weighted max-min then shares each core:
//!
//! - while the guests and the network work together fit in the core, each
//!   gets what it asks: the guests `D_c`, the connections what their links
//!   and other cores allow;
//! - when they do not (the core is oversubscribed), rates are equalised:
//!   the guests' cycles/s and a weight-1 connection's bytes/s on the core.
//!   A connection using `k` cycles per byte there gets `C_c / (1 + k)`
//!   bytes/s (`k/(1+k)` of the core) rather than `C_c / k` alone: it slows,
//!   but never stalls;
//! - a compression connection has weight `w` (0.1): on a core full of guest
//!   work it gets `w` bytes/s per cycle/s the guests get, so it keeps only a
//!   small share — it uses the CPU that is otherwise idle, and little more.
//!
//! A VM's virtual processors (when the caller models them) carry the same
//! work: each of its `v` vCPUs of `C` cycles/s a background activity bound
//! by `cores / v · C`, beside its own stack's share of its connections.
//!
//! A VM's load is on its source host until its migration ends, then on its
//! destination: `Guests::moved` at a migration's end, then
//! `Guests::place` re-bounds the cores' activities.
//!
//! The guests' work is not network work: each busy core has a *meter*, a
//! resource of its own (a fatpipe that never limits) that only the core's
//! background activity uses. The recorded use of a core minus that of its
//! meter is the network and migration work alone, which is what the run
//! reports.

use std::collections::BTreeMap;

use hvnet_engine::{ActivityId, ActivitySpec, ChangePoints, ResourceId, Sharing};
use hvnet_network::{Network, Resources, Run};

use crate::spec::Guest;

/// A core that guests may use: its meter, and its background activity with
/// that activity's bound (cycles/s) while guests ask for the core.
#[derive(Debug)]
struct Core {
    meter: ResourceId,
    busy: Option<(ActivityId, f64)>,
}

pub(crate) struct Guests {
    specs: Vec<Guest>,
    /// The endpoint of the host each guest runs on now.
    host_of: Vec<u32>,
    /// The endpoints of every host a guest may run on.
    hosts: Vec<u32>,
    /// Every core of every host a guest may run on, by resource id.
    cores: BTreeMap<ResourceId, Core>,
}

impl Guests {
    /// The guests, which may run on the hosts of endpoints `hosts` (where
    /// they run at the start, and where migrations move them).
    pub(crate) fn new(specs: &[Guest], hosts: impl IntoIterator<Item = u32>) -> Self {
        let mut hosts: Vec<u32> = hosts.into_iter().collect();
        hosts.sort_unstable();
        hosts.dedup();
        Self {
            specs: specs.to_vec(),
            host_of: specs.iter().map(|g| g.host).collect(),
            hosts,
            cores: BTreeMap::new(),
        }
    }

    /// Adds a meter for every core of every host a guest may run on, and
    /// for every vCPU: call before the simulation starts recording.
    pub(crate) fn add_meters(&mut self, network: &Network, resources: &mut Resources<'_>) {
        let vcpus = self.specs.iter().flat_map(|g| g.vcpus.iter().copied());
        for core in self
            .hosts
            .iter()
            .flat_map(|&host| network.endpoints[host as usize].host_cores.iter().copied())
            .chain(vcpus)
        {
            self.cores.entry(core).or_insert_with(|| Core {
                meter: resources.add(f64::MAX, Sharing::Fatpipe),
                busy: None,
            });
        }
    }

    /// Guest `g` runs on the host of endpoint `host` from now on.
    pub(crate) fn moved(&mut self, g: usize, host: u32) {
        self.host_of[g] = host;
    }

    /// Each core's demand `D_c = G / n · C_c`, from where the guests run
    /// now, and each virtual processor's: its share of its guest's work.
    fn demand(&self, network: &Network) -> BTreeMap<ResourceId, f64> {
        let mut demand = BTreeMap::new();
        for (guest, &host) in self.specs.iter().zip(&self.host_of) {
            for processors in [&network.endpoints[host as usize].host_cores, &guest.vcpus] {
                let n = processors.len() as f64;
                for &core in processors {
                    let cycles = guest.cores / n * network.resources[core].0;
                    *demand.entry(core).or_insert(0.0) += cycles;
                }
            }
        }
        demand
    }

    /// Starts, re-bounds or ends each core's background activity to match
    /// where the guests run now.
    pub(crate) fn place<T: Copy>(&mut self, run: &mut Run<'_, T>) {
        let demand = self.demand(run.network());
        for (&core, state) in &mut self.cores {
            let wanted = demand.get(&core).copied().unwrap_or(0.0);
            match state.busy {
                Some((_, bound)) if bound == wanted => {}
                Some((activity, _)) if wanted > 0.0 => {
                    run.set_background_bound(activity, Some(wanted));
                    state.busy = Some((activity, wanted));
                }
                Some((activity, _)) => {
                    run.cancel_background(activity);
                    state.busy = None;
                }
                None if wanted > 0.0 => {
                    let activity = run.start_background(&ActivitySpec {
                        bound: Some(wanted),
                        ..ActivitySpec::new(f64::INFINITY, vec![(core, 1.0), (state.meter, 1.0)])
                    });
                    state.busy = Some((activity, wanted));
                }
                None => {}
            }
        }
    }

    /// The recorded use of each core less its guests' (`series[r]`, one
    /// step function per resource of the network, then the meters): the
    /// network's resources only, with the guests' work taken off their
    /// cores. Both are step functions, so the difference is one, exactly:
    /// a change point wherever either changes.
    pub(crate) fn network_work(
        &self,
        mut series: Vec<ChangePoints>,
        resources: usize,
    ) -> Vec<ChangePoints> {
        for (&core, state) in &self.cores {
            let meter = std::mem::take(&mut series[state.meter]);
            series[core] = series[core].combine(&meter, |used, guests| {
                // What is left is the network's; below rounding, it is none.
                let left = used - guests;
                if left > 1e-9 * guests {
                    left
                } else {
                    0.0
                }
            });
        }
        series.truncate(resources);
        series
    }
}
