//! The migrations as Python gives them in bulk (`hvnet.lower.specs`
//! `MigrationTable`): what every migration between two endpoints shares
//! once per route (`MigrationRoute`: endpoints, hosts, queues, channels,
//! the limit they pass, pre-copy), and per migration a row of columns that
//! names its route, its memory and its compression by index. Here each row
//! becomes the [`Migration`] a `specs.Migration` with the same fields would
//! give, in row order. Only the table's shape is checked (columns of one
//! length, indices that exist); the crate's `check` does the rest.

use hvnet_engine::ResourceId;
use hvnet_migration::{Channel, Compression, GuestMemory, Migration, PrecopyParameters};
use hvnet_network::SpecError;
use pyo3::FromPyObject;

use crate::specs::{ChannelSpec, CompressionSpec, GuestMemorySpec, PrecopySpec};

/// What every migration of a route between two endpoints shares
/// (`specs.MigrationRoute`).
#[derive(FromPyObject)]
pub struct MigrationRouteSpec {
    source: u32,
    target: u32,
    hosts: (u32, u32),
    simultaneous: (u32, u32),
    channels: Vec<ChannelSpec>,
    through: Option<ResourceId>,
    precopy: PrecopySpec,
}

/// Migrations as rows (`specs.MigrationTable`): each column one value per
/// migration; `route`, `memory` and `compression` index `routes`,
/// `memories` and `compressions`.
#[derive(FromPyObject)]
pub struct MigrationTableSpec {
    routes: Vec<MigrationRouteSpec>,
    memories: Vec<GuestMemorySpec>,
    compressions: Vec<CompressionSpec>,
    route: Vec<usize>,
    memory: Vec<usize>,
    ports: Vec<(u16, u16)>,
    prepare_bytes_per_s: Vec<Option<f64>>,
    at_s: Vec<f64>,
    after: Vec<Vec<usize>>,
    delay_s: Vec<f64>,
    /// `None`: not the Compression option.
    compression: Vec<Option<usize>>,
}

/// A route in the crate's types, made once for all its migrations.
struct Route {
    source: u32,
    target: u32,
    hosts: (u32, u32),
    simultaneous: (u32, u32),
    channels: Vec<Channel>,
    through: Option<ResourceId>,
    parameters: PrecopyParameters,
}

/// Element `k` of `items` (`what`, for the refusal of row `row`).
fn nth<T: Copy>(items: &[T], k: usize, row: usize, what: &str) -> Result<T, SpecError> {
    items.get(k).copied().ok_or_else(|| {
        SpecError(format!(
            "migration table, row {row}: {what} {k} does not exist (the table has {})",
            items.len()
        ))
    })
}

impl MigrationTableSpec {
    /// Each row's migration, in row order. Refuses columns of different
    /// lengths and an index out of range.
    pub fn into_migrations(mut self) -> Result<Vec<Migration>, SpecError> {
        let rows = self.route.len();
        let lengths = [
            ("memory", self.memory.len()),
            ("ports", self.ports.len()),
            ("prepare_bytes_per_s", self.prepare_bytes_per_s.len()),
            ("at_s", self.at_s.len()),
            ("after", self.after.len()),
            ("delay_s", self.delay_s.len()),
            ("compression", self.compression.len()),
        ];
        if let Some((name, n)) = lengths.iter().find(|(_, n)| *n != rows) {
            return Err(SpecError(format!(
                "migration table: column {name} has {n} rows, route {rows}"
            )));
        }
        let routes: Vec<Route> = (self.routes.iter())
            .map(|r| Route {
                source: r.source,
                target: r.target,
                hosts: r.hosts,
                simultaneous: r.simultaneous,
                channels: r.channels.iter().map(Channel::from).collect(),
                through: r.through,
                parameters: PrecopyParameters::from(&r.precopy),
            })
            .collect();
        let memories: Vec<GuestMemory> = self.memories.iter().map(GuestMemory::from).collect();
        let compressions: Vec<Compression> =
            self.compressions.iter().map(Compression::from).collect();
        let mut migrations = Vec::with_capacity(rows);
        for (i, after) in self.after.iter_mut().enumerate() {
            let route = routes.get(self.route[i]).ok_or_else(|| {
                SpecError(format!(
                    "migration table, row {i}: route {} does not exist (the table has {})",
                    self.route[i],
                    routes.len()
                ))
            })?;
            let compression = match self.compression[i] {
                None => None,
                Some(k) => Some(nth(&compressions, k, i, "compression")?),
            };
            migrations.push(Migration {
                source: route.source,
                target: route.target,
                ports: self.ports[i],
                channels: route.channels.clone(),
                compression,
                memory: nth(&memories, self.memory[i], i, "memory")?,
                parameters: route.parameters,
                prepare_rate: self.prepare_bytes_per_s[i],
                at: self.at_s[i],
                after: std::mem::take(after),
                delay: self.delay_s[i],
                through: route.through,
                hosts: route.hosts,
                simultaneous: route.simultaneous,
            });
        }
        Ok(migrations)
    }
}
