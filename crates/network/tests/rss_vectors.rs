//! Microsoft's RSS verification vectors, read from `shared/data/rss-toeplitz-vectors.json`
//! (windows-driver-docs, `network/verifying-the-rss-hash-calculation.md`).

use std::net::IpAddr;
use std::path::PathBuf;

use hvnet_network::{rss_hash, toeplitz, FlowKey, MICROSOFT_RSS_KEY};
use serde_json::Value;

fn vectors_file() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/data/rss-toeplitz-vectors.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn str_field<'a>(vector: &'a Value, name: &str) -> &'a str {
    vector[name]
        .as_str()
        .unwrap_or_else(|| panic!("vector field {name:?} is not a string: {vector}"))
}

fn port_field(vector: &Value, name: &str) -> u16 {
    let port = vector[name]
        .as_u64()
        .unwrap_or_else(|| panic!("vector field {name:?} is not a number: {vector}"));
    u16::try_from(port).unwrap_or_else(|_| panic!("{name} = {port} is not a port"))
}

fn hash_field(vector: &Value, name: &str) -> u32 {
    let text = str_field(vector, name);
    let hex = text.strip_prefix("0x").unwrap_or(text);
    u32::from_str_radix(hex, 16).unwrap_or_else(|e| panic!("{name} = {text:?}: {e}"))
}

fn flow_key(vector: &Value, with_ports: bool) -> FlowKey {
    let src: IpAddr = str_field(vector, "source").parse().unwrap();
    let dst: IpAddr = str_field(vector, "destination").parse().unwrap();
    let (src_port, dst_port) = if with_ports {
        (
            Some(port_field(vector, "source_port")),
            Some(port_field(vector, "destination_port")),
        )
    } else {
        (None, None)
    };
    match (src, dst) {
        (IpAddr::V4(src), IpAddr::V4(dst)) => FlowKey::Ipv4 {
            src,
            dst,
            src_port,
            dst_port,
        },
        (IpAddr::V6(src), IpAddr::V6(dst)) => FlowKey::Ipv6 {
            src,
            dst,
            src_port,
            dst_port,
        },
        _ => panic!("vector mixes address families: {vector}"),
    }
}

#[test]
fn the_default_key_is_the_one_in_the_vectors_file() {
    let file = vectors_file();
    let key: Vec<u8> = file["key_hex"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .map(|byte| u8::from_str_radix(byte, 16).unwrap())
        .collect();
    assert_eq!(key, MICROSOFT_RSS_KEY);
}

#[test]
fn every_microsoft_vector_hashes_as_documented_with_and_without_ports() {
    let file = vectors_file();
    let vectors = file["vectors"].as_array().expect("\"vectors\" is a list");
    let (mut ipv4, mut ipv6, mut failures) = (0, 0, Vec::new());

    for vector in vectors {
        for (with_ports, expected_field) in [(false, "hash_ip_only"), (true, "hash_with_ports")] {
            let key = flow_key(vector, with_ports);
            match key {
                FlowKey::Ipv4 { .. } => ipv4 += 1,
                FlowKey::Ipv6 { .. } => ipv6 += 1,
            }
            let expected = hash_field(vector, expected_field);
            let got = rss_hash(&key, &MICROSOFT_RSS_KEY);
            if got != expected {
                failures.push(format!(
                    "{key:?}: got {got:#010x}, expected {expected:#010x}"
                ));
            }
        }
    }

    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
    // The page has 5 IPv4 and 3 IPv6 vectors, each checked with and without ports.
    assert_eq!((ipv4, ipv6), (10, 6), "unexpected number of vectors");
}

#[test]
fn the_first_vector_by_hand_through_the_raw_toeplitz_hash() {
    // 66.9.149.187:2794 -> 161.142.100.80:1766, laid out as the page says.
    let input = [66, 9, 149, 187, 161, 142, 100, 80, 0x0a, 0xea, 0x06, 0xe6];
    assert_eq!(toeplitz(&input[..8], &MICROSOFT_RSS_KEY), Ok(0x323e8fc2));
    assert_eq!(toeplitz(&input, &MICROSOFT_RSS_KEY), Ok(0x51ccc178));
}
