//! NIC teams: which member carries a connection, in each direction.
//!
//! The rules (BEHAVIOUR.md, from Microsoft's NIC teaming documentation):
//!
//! | mode               | algorithm    | outbound member          | inbound member               |
//! |--------------------|--------------|--------------------------|------------------------------|
//! | switch independent | address hash | hash of the connection   | the primary member           |
//! | switch independent | Hyper-V port | the port's member        | the port's member            |
//! | switch independent | dynamic      | hash of the connection   | the port's member            |
//! | static, LACP       | any          | as above                 | the switch's own hash        |
//!
//! The address hash is the RSS Toeplitz hash of the fields the variant names
//! (TransportPorts: addresses and ports; IPAddresses: addresses; MacAddresses:
//! MAC addresses), falling back to addresses for non-TCP/UDP traffic. The
//! members that carry traffic (*carriers*) are the active members the mode
//! sees as working, or the standby when an active member is down.
//!
//! Assumed (no public source states them; each is a documented choice):
//! - a hash picks carrier `hash mod n`, and a vSwitch port is affinitized to
//!   carrier `port mod n` (ports spread over members in order);
//! - the primary member is the first working carrier;
//! - the switch hashes its configured fields with the Toeplitz hash under a
//!   key of its own ([`SWITCH_HASH_KEY`]): independent of the host's choice.

use std::net::IpAddr;

use crate::rss::{rss_hash, FlowKey};
use crate::toeplitz::{toeplitz, MICROSOFT_RSS_KEY};

/// How the team and the switch agree (or not) on the team.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TeamingMode {
    /// The switch knows nothing of the team; link state is all the team sees.
    SwitchIndependent,
    /// The switch ports are configured as a static aggregate.
    Static,
    /// IEEE 802.1AX: LACPDUs detect a member that is up but forwards nothing.
    Lacp,
}

/// The fields an address hash reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressHash {
    TransportPorts,
    IpAddresses,
    MacAddresses,
}

/// How a team spreads traffic over its members.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadBalancing {
    AddressHash(AddressHash),
    HyperVPort,
    Dynamic,
}

/// The fields a switch hashes to pick the member it sends to (a switch setting).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchHash {
    MacAddresses,
    IpAddresses,
    TransportPorts,
}

/// The Toeplitz key the model's switches hash with: Microsoft's RSS key
/// rotated by 13 bytes, so the switch's choice is independent of the host's.
pub const SWITCH_HASH_KEY: [u8; 40] = {
    let mut key = [0u8; 40];
    let mut i = 0;
    while i < 40 {
        key[i] = MICROSOFT_RSS_KEY[(i + 13) % 40];
        i += 1;
    }
    key
};

/// The Toeplitz key the model's routed switches spread flows over
/// equal-cost routes with (ECMP): Microsoft's RSS key rotated by 27 bytes,
/// independent of the host's and of the port-channels' choices (switches
/// seed their ECMP hash apart from their port-channel hash, so the two do
/// not polarise).
pub const ECMP_HASH_KEY: [u8; 40] = {
    let mut key = [0u8; 40];
    let mut i = 0;
    while i < 40 {
        key[i] = MICROSOFT_RSS_KEY[(i + 27) % 40];
        i += 1;
    }
    key
};

/// A connection as the teams and switches on its path see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flow {
    pub source: IpAddr,
    pub target: IpAddr,
    /// TCP/UDP ports; `None` for other traffic.
    pub ports: Option<(u16, u16)>,
    pub source_mac: [u8; 6],
    pub target_mac: [u8; 6],
}

impl Flow {
    /// Its RSS key. Unreachable panic: `Network::check` refuses a network
    /// whose endpoints mix IP versions, and every flow joins two endpoints.
    fn key(&self, with_ports: bool) -> FlowKey {
        let ports = self.ports.filter(|_| with_ports);
        FlowKey::new(self.source, self.target, ports).unwrap_or_else(|| {
            panic!(
                "a flow between {} and {} mixes IP versions",
                self.source, self.target
            )
        })
    }

    fn mac_hash(&self, key: &[u8; 40]) -> u32 {
        let mut input = [0u8; 12];
        input[..6].copy_from_slice(&self.source_mac);
        input[6..].copy_from_slice(&self.target_mac);
        toeplitz(&input, key).expect("a 40-byte key covers 12 bytes")
    }

    /// The hash a team computes in address-hash or dynamic mode.
    pub fn team_hash(&self, fields: AddressHash) -> u32 {
        match fields {
            AddressHash::TransportPorts => rss_hash(&self.key(true), &MICROSOFT_RSS_KEY),
            AddressHash::IpAddresses => rss_hash(&self.key(false), &MICROSOFT_RSS_KEY),
            AddressHash::MacAddresses => self.mac_hash(&MICROSOFT_RSS_KEY),
        }
    }

    /// The hash a switch computes to pick the member it sends to.
    pub fn switch_hash(&self, fields: SwitchHash) -> u32 {
        match fields {
            SwitchHash::TransportPorts => rss_hash(&self.key(true), &SWITCH_HASH_KEY),
            SwitchHash::IpAddresses => rss_hash(&self.key(false), &SWITCH_HASH_KEY),
            SwitchHash::MacAddresses => self.mac_hash(&SWITCH_HASH_KEY),
        }
    }
}

impl Flow {
    /// The hash a routed fabric spreads the flow over equal-cost routes by:
    /// its addresses and ports (its addresses alone for non-TCP/UDP traffic).
    pub fn ecmp_hash(&self) -> u32 {
        rss_hash(&self.key(true), &ECMP_HASH_KEY)
    }
}

/// A team of NICs, named by the caller's indices.
#[derive(Clone, Debug, PartialEq)]
pub struct Team {
    pub members: Vec<u32>,
    pub standby: Option<u32>,
    pub mode: TeamingMode,
    pub balancing: LoadBalancing,
    /// What the switch its members are cabled to hashes (static and LACP).
    pub switch_hash: SwitchHash,
}

impl Team {
    /// The members that carry traffic, in member order, given which members
    /// work (as the mode can tell): the working active members, plus the
    /// standby when an active member does not work.
    pub fn carriers(&self, works: impl Fn(u32) -> bool) -> Vec<u32> {
        let active = self
            .members
            .iter()
            .copied()
            .filter(|&m| Some(m) != self.standby);
        let mut carriers: Vec<u32> = active.clone().filter(|&m| works(m)).collect();
        let one_down = active.count() > carriers.len();
        if let Some(standby) = self.standby {
            if one_down && works(standby) {
                carriers.push(standby);
            }
        }
        carriers
    }

    /// The member a connection leaves by; `port` is the sender's vSwitch port.
    pub fn outbound(&self, flow: &Flow, port: u32, carriers: &[u32]) -> Option<u32> {
        let hash = match self.balancing {
            LoadBalancing::HyperVPort => return pick(carriers, port),
            LoadBalancing::AddressHash(fields) => flow.team_hash(non_tcp_fallback(fields, flow)),
            LoadBalancing::Dynamic => {
                flow.team_hash(non_tcp_fallback(AddressHash::TransportPorts, flow))
            }
        };
        pick(carriers, hash)
    }

    /// The member a connection arrives on; `port` is the receiver's vSwitch port.
    pub fn inbound(&self, flow: &Flow, port: u32, carriers: &[u32]) -> Option<u32> {
        match (self.mode, self.balancing) {
            (TeamingMode::Static | TeamingMode::Lacp, _) => {
                pick(carriers, flow.switch_hash(self.switch_hash))
            }
            (TeamingMode::SwitchIndependent, LoadBalancing::AddressHash(_)) => {
                carriers.first().copied()
            }
            (TeamingMode::SwitchIndependent, _) => pick(carriers, port),
        }
    }
}

/// Non-TCP/UDP traffic falls back from the port hash to the address hash.
fn non_tcp_fallback(fields: AddressHash, flow: &Flow) -> AddressHash {
    match (fields, flow.ports) {
        (AddressHash::TransportPorts, None) => AddressHash::IpAddresses,
        (fields, _) => fields,
    }
}

fn pick(carriers: &[u32], n: u32) -> Option<u32> {
    if carriers.is_empty() {
        None
    } else {
        Some(carriers[n as usize % carriers.len()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv4Addr;

    fn flow(src_port: u16) -> Flow {
        Flow {
            source: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 1)),
            target: IpAddr::V4(Ipv4Addr::new(10, 0, 0, 2)),
            ports: Some((src_port, 445)),
            source_mac: [0, 0x15, 0x5d, 0, 0, 1],
            target_mac: [0, 0x15, 0x5d, 0, 0, 2],
        }
    }

    fn team(mode: TeamingMode, balancing: LoadBalancing) -> Team {
        Team {
            members: vec![10, 11],
            standby: None,
            mode,
            balancing,
            switch_hash: SwitchHash::TransportPorts,
        }
    }

    #[test]
    fn address_hash_spreads_connections_but_receives_on_the_primary() {
        // Switch independent + address hash: 64 connections leave by both
        // members, and every one arrives on the first member.
        let t = team(
            TeamingMode::SwitchIndependent,
            LoadBalancing::AddressHash(AddressHash::TransportPorts),
        );
        let carriers = t.carriers(|_| true);
        let out: Vec<_> = (0..64)
            .map(|p| t.outbound(&flow(49152 + p), 0, &carriers).unwrap())
            .collect();
        assert!(out.contains(&10) && out.contains(&11));
        assert!((0..64).all(|p| t.inbound(&flow(49152 + p), 0, &carriers) == Some(10)));
    }

    #[test]
    fn hyper_v_port_binds_a_port_to_one_member_both_ways() {
        let t = team(TeamingMode::SwitchIndependent, LoadBalancing::HyperVPort);
        let carriers = t.carriers(|_| true);
        for p in 0..64 {
            assert_eq!(t.outbound(&flow(49152 + p), 3, &carriers), Some(11));
            assert_eq!(t.inbound(&flow(49152 + p), 3, &carriers), Some(11));
        }
    }

    #[test]
    fn ip_address_hash_ignores_ports() {
        let t = team(
            TeamingMode::SwitchIndependent,
            LoadBalancing::AddressHash(AddressHash::IpAddresses),
        );
        let carriers = t.carriers(|_| true);
        let first = t.outbound(&flow(49152), 0, &carriers);
        assert!((0..64).all(|p| t.outbound(&flow(49152 + p), 0, &carriers) == first));
    }

    #[test]
    fn a_switch_dependent_team_receives_where_the_switch_hashes() {
        // LACP: the switch spreads inbound connections over both members on its own.
        let t = team(TeamingMode::Lacp, LoadBalancing::Dynamic);
        let carriers = t.carriers(|_| true);
        let inbound: Vec<_> = (0..64)
            .map(|p| t.inbound(&flow(49152 + p), 0, &carriers).unwrap())
            .collect();
        assert!(inbound.contains(&10) && inbound.contains(&11));
    }

    #[test]
    fn the_standby_carries_only_when_an_active_member_is_down() {
        let t = Team {
            members: vec![10, 11, 12],
            standby: Some(12),
            ..team(TeamingMode::SwitchIndependent, LoadBalancing::Dynamic)
        };
        assert_eq!(t.carriers(|_| true), vec![10, 11]);
        assert_eq!(t.carriers(|m| m != 11), vec![10, 12]);
        assert_eq!(t.carriers(|m| m == 12), vec![12]);
        assert_eq!(t.carriers(|_| false), Vec::<u32>::new());
    }

    #[test]
    fn non_tcp_traffic_falls_back_to_the_address_hash() {
        let t = team(
            TeamingMode::SwitchIndependent,
            LoadBalancing::AddressHash(AddressHash::TransportPorts),
        );
        let mut f = flow(0);
        f.ports = None;
        assert_eq!(
            f.team_hash(non_tcp_fallback(AddressHash::TransportPorts, &f)),
            f.team_hash(AddressHash::IpAddresses)
        );
        assert!(t.outbound(&f, 0, &t.carriers(|_| true)).is_some());
    }

    #[test]
    fn a_team_with_no_working_member_carries_nothing() {
        let t = team(TeamingMode::Static, LoadBalancing::HyperVPort);
        assert_eq!(t.outbound(&flow(1), 0, &[]), None);
        assert_eq!(t.inbound(&flow(1), 0, &[]), None);
    }
}
