//! A run from start to end: made from its specs (each connection's start, each
//! change and stop scheduled), each event handled, and its report finished.

use std::collections::{HashMap, HashSet};

use hvnet_engine::{Event, Recorder, ResourceId, Seconds, Simulation};

use super::vmq::Queues;
use super::{
    routing, running, sharing, ConnectionReport, Driver, Resources, Run, RunReport, Timer,
};
use crate::cores::Cores;
use crate::spec::{Change, Connection, Network};

/// The connections' start times, each with the connections that start then.
fn start_groups(connections: &[Connection]) -> Vec<(Seconds, Vec<usize>)> {
    let mut starts: Vec<(Seconds, Vec<usize>)> = Vec::new();
    let mut order: Vec<usize> = (0..connections.len()).collect();
    order.sort_by(|&a, &b| connections[a].start.total_cmp(&connections[b].start));
    for k in order {
        match starts.last_mut() {
            Some((t, ks)) if *t == connections[k].start => ks.push(k),
            _ => starts.push((connections[k].start, vec![k])),
        }
    }
    starts
}

/// The cores that two or more NICs' RSS sets hold; none when sharing one
/// costs nothing more (`Network::shared_queue_overhead` 0).
fn rss_sharers(network: &Network) -> HashSet<ResourceId> {
    if network.shared_queue_overhead == 0.0 {
        return HashSet::new();
    }
    let mut count: HashMap<ResourceId, u32> = HashMap::new();
    for rss in &network.nic_rss {
        if let Cores::Rss(cores) = rss {
            for &core in cores {
                *count.entry(core).or_insert(0) += 1;
            }
        }
    }
    (count.into_iter())
        .filter_map(|(core, k)| (k > 1).then_some(core))
        .collect()
}

impl Network {
    /// Runs `connections` with `changes` (sorted or not) until nothing can
    /// progress; records each resource's use over time when `record`.
    /// The specs must have passed [`crate::check`].
    pub fn run(
        &self,
        connections: &[Connection],
        changes: &[(Seconds, Change)],
        record: bool,
    ) -> RunReport {
        self.drive(connections, changes, record, &mut ())
    }

    /// Like [`Network::run`], driven by `driver` (see [`Driver`]).
    pub fn drive<D: Driver>(
        &self,
        connections: &[Connection],
        changes: &[(Seconds, Change)],
        record: bool,
        driver: &mut D,
    ) -> RunReport {
        let mut run = Run::new(self, connections, changes, record, driver);
        driver.begin(&mut run);
        run.refresh_shared_cores();
        while let Some(event) = run.sim.next_event() {
            run.events += 1;
            run.handle(driver, event);
            run.refresh_shared_cores();
        }
        run.finish()
    }
}

impl<'a, T: Copy> Run<'a, T> {
    fn new<D: Driver<Timer = T>>(
        network: &'a Network,
        connections: &[Connection],
        changes: &'a [(Seconds, Change)],
        record: bool,
        driver: &mut D,
    ) -> Self {
        let mut sim = Simulation::new();
        for &(capacity, sharing) in &network.resources {
            sim.add_resource(capacity, sharing);
        }
        driver.add_resources(network, &mut Resources { sim: &mut sim });
        if record {
            sim.record();
        }
        let mut run = Run {
            network,
            sim,
            connections: connections.to_vec(),
            changes,
            starts: start_groups(connections),
            resource_up: vec![true; network.resources.len()],
            resources_down: 0,
            link_up: vec![true; network.nics.len()],
            lacpdu_ok: vec![true; network.nics.len()],
            silent_since: vec![None; network.nics.len()],
            carriers: Vec::new(),
            running: running::Slots::with_capacity(connections.len()),
            of_activity: running::Slots::with_capacity(connections.len()),
            reports: vec![ConnectionReport::default(); connections.len()],
            tick: None,
            queues: Queues::new(network),
            rss_sharers: rss_sharers(network),
            receivers: sharing::Receivers::new(),
            receivers_changed: Vec::new(),
            timers: Vec::new(),
            events: 0,
            loads: vec![None; network.loads.len()],
        };
        for g in 0..run.starts.len() {
            run.schedule_timer(run.starts[g].0, Timer::Start(g));
        }
        for (i, &(at, _)) in changes.iter().enumerate() {
            run.schedule_timer(at, Timer::Change(i));
        }
        for at in routing::change_times(network) {
            run.schedule_timer(at, Timer::Routing);
        }
        for (i, load) in network.loads.iter().enumerate() {
            if let Some(&(at, _)) = load.steps.first() {
                run.schedule_timer(at, Timer::Load(i, 0));
            }
        }
        for (k, c) in connections.iter().enumerate() {
            if let Some(stop) = c.stop {
                run.schedule_timer(stop.max(c.start), Timer::Stop(k));
            }
        }
        run.update_carriers();
        run
    }

    fn handle<D: Driver<Timer = T>>(&mut self, driver: &mut D, event: Event) {
        match event {
            Event::Completed(a) => {
                // A driver that ends a group of connections at once may have
                // stopped one that completed at the same instant, its event
                // still queued: nothing happened.
                let Some(k) = self.of_activity.remove(a.0 as usize) else {
                    return;
                };
                self.completed(k);
                driver.completed(self, k);
                self.stop_ticks_when_idle(driver.busy());
            }
            Event::Timer(_, tag) => match self.timers[tag as usize] {
                Timer::Start(g) => {
                    for k in self.starts[g].1.clone() {
                        self.start(k);
                    }
                    self.keep_rebalancing();
                    self.keep_balancing_queues();
                }
                Timer::Change(i) => {
                    let (_, change) = self.changes[i];
                    self.apply(change);
                    self.keep_rebalancing();
                    self.keep_balancing_queues();
                }
                Timer::Lacp(nic) => self.lacp_timeout(nic),
                Timer::Rebalance => self.rebalance(),
                Timer::QueueTick => self.balance_queues(),
                Timer::Stop(k) => self.stop(k, driver.busy()),
                Timer::Routing => self.follow_routes(),
                Timer::Load(i, j) => self.step_load(i, j),
                Timer::Driver(timer) => driver.timer(self, timer),
            },
        }
        driver.after_event(self);
    }

    /// The end of the run: what the connections still running moved, and
    /// those black-holed for good.
    fn finish(mut self) -> RunReport {
        let end_time = self.sim.now();
        let keys: Vec<usize> = self.running.keys().collect();
        for k in keys {
            self.account(k);
            let running = &self.running[k];
            let report = &mut self.reports[k];
            report.sent = self.connections[k].amount - self.sim.remaining(running.activity);
            if let Some(since) = running.blackholed_since {
                report.blackholed += end_time - since;
                if end_time > since {
                    report.blackholes.push((since, end_time));
                }
                report.stalled_since = Some(since);
            }
            self.reports[k].stalled_on = self.down_on_route(k);
        }
        let series = self.sim.take_recorder().map(Recorder::into_series);
        RunReport {
            connections: self.reports,
            end_time,
            events: self.events,
            series,
        }
    }

    // ---- what a driver may do ---------------------------------------------
}
