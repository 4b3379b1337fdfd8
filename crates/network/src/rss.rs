//! Receive side scaling: which queue, and so which core, receives a flow.
//!
//! RSS hashes a flow's addresses (and TCP/UDP ports when it hashes the
//! 4-tuple) with the Toeplitz hash, then looks the low `n` bits of the hash up
//! in an indirection table of `2^n` entries (at most 128) that names a queue.
//! One flow therefore always lands on one queue: one TCP connection is
//! received on one core.
//!
//! Hash input, in network byte order (Microsoft windows-driver-docs,
//! `network/verifying-the-rss-hash-calculation.md`):
//!
//! ```text
//!     source address | destination address | source port | destination port
//!     IPv4: 4 + 4 (+ 2 + 2) bytes         IPv6: 16 + 16 (+ 2 + 2) bytes
//! ```

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::toeplitz::toeplitz;

/// Length of an RSS secret key in bytes; enough for the longest input (IPv6
/// with ports, 36 bytes) plus the 4 bytes the Toeplitz window needs.
pub const RSS_KEY_LEN: usize = 40;

/// Most entries an indirection table may have (2^7).
pub const MAX_INDIRECTION_TABLE_LEN: usize = 128;

const MAX_HASH_INPUT_LEN: usize = 16 + 16 + 2 + 2;

/// The fields of a packet that RSS hashes.
///
/// Windows hashes either the addresses alone or the full 4-tuple, so give
/// both ports or neither. Each port that is `Some` is appended to the hash
/// input in order (source, then destination); a key with only one port
/// hashes an input Windows never builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowKey {
    /// An IPv4 flow.
    Ipv4 {
        /// Source address.
        src: Ipv4Addr,
        /// Destination address.
        dst: Ipv4Addr,
        /// TCP/UDP source port, `None` to hash the addresses only.
        src_port: Option<u16>,
        /// TCP/UDP destination port, `None` to hash the addresses only.
        dst_port: Option<u16>,
    },
    /// An IPv6 flow.
    Ipv6 {
        /// Source address.
        src: Ipv6Addr,
        /// Destination address.
        dst: Ipv6Addr,
        /// TCP/UDP source port, `None` to hash the addresses only.
        src_port: Option<u16>,
        /// TCP/UDP destination port, `None` to hash the addresses only.
        dst_port: Option<u16>,
    },
}

impl FlowKey {
    /// The key of a flow between two addresses of one IP version; `None`
    /// when the versions differ.
    pub fn new(src: IpAddr, dst: IpAddr, ports: Option<(u16, u16)>) -> Option<FlowKey> {
        let (src_port, dst_port) = (ports.map(|p| p.0), ports.map(|p| p.1));
        match (src, dst) {
            (IpAddr::V4(src), IpAddr::V4(dst)) => Some(FlowKey::Ipv4 {
                src,
                dst,
                src_port,
                dst_port,
            }),
            (IpAddr::V6(src), IpAddr::V6(dst)) => Some(FlowKey::Ipv6 {
                src,
                dst,
                src_port,
                dst_port,
            }),
            _ => None,
        }
    }

    /// The same flow with its ports dropped: the key of an address-only
    /// hash (teaming's IPAddresses mode, or non-TCP/UDP traffic).
    pub fn addresses_only(self) -> FlowKey {
        match self {
            FlowKey::Ipv4 { src, dst, .. } => FlowKey::Ipv4 {
                src,
                dst,
                src_port: None,
                dst_port: None,
            },
            FlowKey::Ipv6 { src, dst, .. } => FlowKey::Ipv6 {
                src,
                dst,
                src_port: None,
                dst_port: None,
            },
        }
    }

    /// The bytes RSS feeds to the Toeplitz hash for this flow.
    fn hash_input(&self) -> HashInput {
        let mut input = HashInput::new();
        let (src_port, dst_port) = match self {
            FlowKey::Ipv4 {
                src,
                dst,
                src_port,
                dst_port,
            } => {
                input.push(&src.octets());
                input.push(&dst.octets());
                (src_port, dst_port)
            }
            FlowKey::Ipv6 {
                src,
                dst,
                src_port,
                dst_port,
            } => {
                input.push(&src.octets());
                input.push(&dst.octets());
                (src_port, dst_port)
            }
        };
        for port in [src_port, dst_port].into_iter().flatten() {
            input.push(&port.to_be_bytes());
        }
        input
    }
}

/// A hash input on the stack: at most 36 bytes.
struct HashInput {
    bytes: [u8; MAX_HASH_INPUT_LEN],
    len: usize,
}

impl HashInput {
    fn new() -> Self {
        HashInput {
            bytes: [0; MAX_HASH_INPUT_LEN],
            len: 0,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.bytes[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
    }

    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The RSS hash of a flow under a 40-byte secret key (for example
/// [`MICROSOFT_RSS_KEY`](crate::MICROSOFT_RSS_KEY)).
///
/// Cannot fail: the longest input is 36 bytes, and the Toeplitz hash needs
/// a key only 4 bytes longer than its input.
pub fn rss_hash(key: &FlowKey, secret: &[u8; RSS_KEY_LEN]) -> u32 {
    toeplitz(key.hash_input().as_slice(), secret)
        .expect("a 40-byte key covers every RSS input (36 bytes at most)")
}

/// Why an indirection table could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableError {
    /// The table length is not a power of two from 1 to 128.
    BadLength {
        /// The length that was asked for.
        len: usize,
    },
    /// A round-robin table needs at least one queue to spread over.
    NoQueues,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TableError::BadLength { len } => write!(
                f,
                "an RSS indirection table has a power-of-two number of entries from 1 to \
                 {MAX_INDIRECTION_TABLE_LEN}, not {len}"
            ),
            TableError::NoQueues => {
                write!(f, "an RSS indirection table needs at least one queue")
            }
        }
    }
}

impl std::error::Error for TableError {}

/// Maps the low bits of an RSS hash to a queue (or processor) number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndirectionTable {
    /// `entries[i]` is the queue of every hash whose low bits equal `i`.
    entries: Vec<u16>,
}

impl IndirectionTable {
    /// A table with the given entries; their number must be a power of two
    /// from 1 to 128.
    pub fn new(entries: Vec<u16>) -> Result<Self, TableError> {
        let len = entries.len();
        if !len.is_power_of_two() || len > MAX_INDIRECTION_TABLE_LEN {
            return Err(TableError::BadLength { len });
        }
        Ok(IndirectionTable { entries })
    }

    /// A table of `len` entries filled with queues `0, 1, .., queues - 1, 0,
    /// 1, ..` in turn: the even spread of Windows' default table. With
    /// `queues` dividing `len`, every queue gets the same share of hashes.
    pub fn round_robin(len: usize, queues: u16) -> Result<Self, TableError> {
        if queues == 0 {
            return Err(TableError::NoQueues);
        }
        Self::new((0..len).map(|i| (i % usize::from(queues)) as u16).collect())
    }

    /// The queue that receives a flow with this RSS hash.
    pub fn queue(&self, hash: u32) -> u16 {
        let mask = (self.entries.len() - 1) as u32;
        self.entries[(hash & mask) as usize]
    }

    /// The table's entries, indexed by the hash's low bits.
    pub fn entries(&self) -> &[u16] {
        &self.entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MICROSOFT_RSS_KEY;

    fn v4(src: [u8; 4], dst: [u8; 4], ports: Option<(u16, u16)>) -> FlowKey {
        FlowKey::Ipv4 {
            src: src.into(),
            dst: dst.into(),
            src_port: ports.map(|p| p.0),
            dst_port: ports.map(|p| p.1),
        }
    }

    #[test]
    fn the_ipv4_input_is_source_then_destination_then_ports_big_endian() {
        let key = v4([1, 2, 3, 4], [5, 6, 7, 8], Some((0x0102, 0x0304)));
        assert_eq!(
            key.hash_input().as_slice(),
            [1, 2, 3, 4, 5, 6, 7, 8, 0x01, 0x02, 0x03, 0x04]
        );
        assert_eq!(
            key.addresses_only().hash_input().as_slice(),
            [1, 2, 3, 4, 5, 6, 7, 8]
        );
    }

    #[test]
    fn the_ipv6_input_with_ports_is_36_bytes() {
        let key = FlowKey::Ipv6 {
            src: Ipv6Addr::LOCALHOST,
            dst: Ipv6Addr::UNSPECIFIED,
            src_port: Some(445),
            dst_port: Some(6600),
        };
        let input = key.hash_input();
        assert_eq!(input.as_slice().len(), 36);
        assert_eq!(input.as_slice()[15], 1);
        assert_eq!(input.as_slice()[32..], [0x01, 0xbd, 0x19, 0xc8]);
    }

    #[test]
    fn one_flow_always_hashes_to_the_same_value() {
        let key = v4([10, 0, 0, 1], [10, 0, 0, 2], Some((50000, 445)));
        assert_eq!(
            rss_hash(&key, &MICROSOFT_RSS_KEY),
            rss_hash(&key, &MICROSOFT_RSS_KEY)
        );
    }

    #[test]
    fn table_lengths_must_be_powers_of_two_up_to_128() {
        for len in [1, 2, 4, 64, 128] {
            assert!(IndirectionTable::round_robin(len, 4).is_ok(), "{len}");
        }
        for len in [0, 3, 100, 256] {
            assert_eq!(
                IndirectionTable::round_robin(len, 4),
                Err(TableError::BadLength { len })
            );
        }
        assert_eq!(
            TableError::BadLength { len: 3 }.to_string(),
            "an RSS indirection table has a power-of-two number of entries from 1 to 128, not 3"
        );
    }

    #[test]
    fn a_table_needs_at_least_one_queue() {
        assert_eq!(
            IndirectionTable::round_robin(128, 0),
            Err(TableError::NoQueues)
        );
    }

    #[test]
    fn round_robin_fills_queues_in_turn() {
        let table = IndirectionTable::round_robin(8, 3).unwrap();
        assert_eq!(table.entries(), [0, 1, 2, 0, 1, 2, 0, 1]);
    }

    #[test]
    fn a_table_with_4_queues_gives_each_queue_a_quarter_of_the_hashes() {
        let table = IndirectionTable::round_robin(128, 4).unwrap();
        let mut hashes_per_queue = [0u32; 4];
        for hash in 0..4096u32 {
            hashes_per_queue[usize::from(table.queue(hash))] += 1;
        }
        assert_eq!(hashes_per_queue, [1024; 4]);
    }

    #[test]
    fn only_the_low_bits_of_the_hash_choose_the_queue() {
        let table = IndirectionTable::new((0..16).rev().collect()).unwrap();
        assert_eq!(table.queue(0), 15);
        assert_eq!(table.queue(5), 10);
        assert_eq!(table.queue(0xffff_fff0 | 5), 10);
    }

    #[test]
    fn more_queues_than_entries_leaves_the_extra_queues_unused() {
        let table = IndirectionTable::round_robin(4, 16).unwrap();
        assert_eq!(table.entries(), [0, 1, 2, 3]);
    }
}
