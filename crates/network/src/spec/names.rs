//! Names given as text become the specs' types, with the checks' messages.

use std::net::IpAddr;
use std::str::FromStr;

use hvnet_engine::ResourceId;

use super::{bad, Change, SpecError, Uplink};
use crate::cores::Cores;
use crate::team::{AddressHash, LoadBalancing, SwitchHash, TeamingMode};

impl FromStr for TeamingMode {
    type Err = SpecError;

    fn from_str(name: &str) -> Result<Self, SpecError> {
        Ok(match name {
            "switch_independent" => TeamingMode::SwitchIndependent,
            "static" => TeamingMode::Static,
            "lacp" => TeamingMode::Lacp,
            _ => return bad(format!("unknown teaming mode {name:?}")),
        })
    }
}

impl FromStr for LoadBalancing {
    type Err = SpecError;

    fn from_str(name: &str) -> Result<Self, SpecError> {
        Ok(match name {
            "transport_ports" => LoadBalancing::AddressHash(AddressHash::TransportPorts),
            "ip_addresses" => LoadBalancing::AddressHash(AddressHash::IpAddresses),
            "mac_addresses" => LoadBalancing::AddressHash(AddressHash::MacAddresses),
            "hyperv_port" => LoadBalancing::HyperVPort,
            "dynamic" => LoadBalancing::Dynamic,
            _ => return bad(format!("unknown load balancing {name:?}")),
        })
    }
}

impl FromStr for SwitchHash {
    type Err = SpecError;

    fn from_str(name: &str) -> Result<Self, SpecError> {
        Ok(match name {
            "transport_ports" => SwitchHash::TransportPorts,
            "ip_addresses" => SwitchHash::IpAddresses,
            "mac_addresses" => SwitchHash::MacAddresses,
            _ => return bad(format!("unknown switch hash {name:?}")),
        })
    }
}

/// An endpoint's address.
pub fn parse_address(address: &str) -> Result<IpAddr, SpecError> {
    address
        .parse()
        .or_else(|_| bad(format!("{address:?} is not an IP address")))
}

/// An uplink by kind (`"nic"` or `"team"`) and index.
pub fn uplink(kind: &str, index: u32) -> Result<Uplink, SpecError> {
    match kind {
        "nic" => Ok(Uplink::Nic(index)),
        "team" => Ok(Uplink::Team(index)),
        _ => bad(format!("endpoint uplink {kind:?} {index} does not exist")),
    }
}

impl Cores {
    /// Cores by kind: `"none"`, `"rss"` (1 to 64 cores), `"queue"` (one
    /// core) or `"spread"` (one or more).
    pub fn from_kind(kind: &str, cores: Vec<ResourceId>) -> Result<Cores, SpecError> {
        Ok(match (kind, cores.as_slice()) {
            ("none", _) => Cores::None,
            ("rss", _) if !cores.is_empty() && cores.len() <= 64 => Cores::Rss(cores),
            ("queue", &[core]) => Cores::Queue(core),
            ("spread", _) if !cores.is_empty() => Cores::Spread(cores),
            _ => {
                return bad(format!(
                    "cores {kind:?} with {} cores is not valid",
                    cores.len()
                ))
            }
        })
    }
}

impl Change {
    /// A change by kind: `"resource"` (`index` a resource) or `"link"`
    /// (`index` a NIC), going down (`up: false`) or coming back.
    pub fn from_kind(kind: &str, index: usize, up: bool) -> Result<Change, SpecError> {
        match kind {
            "resource" => Ok(Change::Resource {
                resource: index,
                up,
            }),
            "link" => match u32::try_from(index) {
                Ok(nic) => Ok(Change::Link { nic, up }),
                Err(_) => bad(format!("NIC {index} does not exist")),
            },
            _ => bad(format!("unknown change {kind:?}")),
        }
    }
}
