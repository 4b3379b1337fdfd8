//! The Toeplitz hash that RSS (receive side scaling) and address-hash NIC
//! teaming use to pick a queue or a team member for a flow.
//!
//! Number the bits of the input and of the secret key from 0, most
//! significant bit of byte 0 first. Let `K[i..i+32)` be the 32-bit window of
//! the key that starts at bit `i`. Then
//!
//! ```text
//!     h(input) = XOR over every set bit i of input of K[i..i+32)
//! ```
//!
//! so the key needs at least `input.len() + 4` bytes. Two consequences the
//! tests check: the all-zero input hashes to 0, and the hash is linear over
//! XOR, `h(a ^ b) = h(a) ^ h(b)` for inputs of equal length.
//!
//! The implementation walks the input a byte at a time and keeps the key
//! bytes `j..j+8` in a 64-bit `window` while it handles input byte `j`; the
//! key window of bit `b` of that byte is then `window >> (32 - b)` cut to 32
//! bits. A bit-by-bit version of the formula above lives in the tests and
//! must agree with it on every input.
//!
//! Source: Microsoft windows-driver-docs, `network/verifying-the-rss-hash-calculation.md`.

use std::fmt;

/// The default RSS secret key from Microsoft's verification page (40 bytes).
pub const MICROSOFT_RSS_KEY: [u8; 40] = [
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
    0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
    0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
];

/// Why a Toeplitz hash could not be computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashError {
    /// The key must be at least 4 bytes longer than the input.
    KeyTooShort {
        /// Length of the key that was given, in bytes.
        key_len: usize,
        /// Length the input requires: `input.len() + 4` bytes.
        needed: usize,
    },
}

impl fmt::Display for HashError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HashError::KeyTooShort { key_len, needed } => write!(
                f,
                "Toeplitz key is {key_len} bytes but this input needs at least {needed} \
                 (input length + 4)"
            ),
        }
    }
}

impl std::error::Error for HashError {}

/// Toeplitz hash of `input` under `key`, as RSS computes it.
///
/// Fails when `key` is shorter than `input.len() + 4` bytes.
pub fn toeplitz(input: &[u8], key: &[u8]) -> Result<u32, HashError> {
    let needed = input.len() + 4;
    if key.len() < needed {
        return Err(HashError::KeyTooShort {
            key_len: key.len(),
            needed,
        });
    }
    // Key bytes past the end only ever reach the bits that get cut off.
    let key_byte = |k: usize| u64::from(key.get(k).copied().unwrap_or(0));

    let mut window = (0..8).fold(0u64, |w, k| (w << 8) | key_byte(k));
    let mut hash = 0u32;
    for (j, &byte) in input.iter().enumerate() {
        for bit in 0..8 {
            if byte & (0x80 >> bit) != 0 {
                hash ^= (window >> (32 - bit)) as u32;
            }
        }
        window = (window << 8) | key_byte(j + 8);
    }
    Ok(hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition, one bit at a time: the reference the fast path must match.
    fn toeplitz_by_definition(input: &[u8], key: &[u8]) -> u32 {
        let bit = |bytes: &[u8], i: usize| bytes[i / 8] & (0x80 >> (i % 8)) != 0;
        let key_window =
            |start: usize| (0..32).fold(0u32, |w, k| (w << 1) | u32::from(bit(key, start + k)));
        (0..input.len() * 8)
            .filter(|&i| bit(input, i))
            .fold(0, |hash, i| hash ^ key_window(i))
    }

    #[test]
    fn the_zero_input_hashes_to_zero() {
        assert_eq!(toeplitz(&[0; 36], &MICROSOFT_RSS_KEY), Ok(0));
    }

    #[test]
    fn the_empty_input_hashes_to_zero_and_needs_only_four_key_bytes() {
        assert_eq!(toeplitz(&[], &[0xff; 4]), Ok(0));
    }

    #[test]
    fn a_single_set_bit_selects_the_key_window_starting_at_that_bit() {
        // Bit 0 (MSB of byte 0) selects key bytes 0..4.
        assert_eq!(toeplitz(&[0x80], &MICROSOFT_RSS_KEY), Ok(0x6d5a56da));
        // Bit 8 (MSB of byte 1) selects key bytes 1..5.
        assert_eq!(toeplitz(&[0x00, 0x80], &MICROSOFT_RSS_KEY), Ok(0x5a56da25));
        // Bit 4 selects the window shifted by half a byte: 0xd5a56da2.
        assert_eq!(toeplitz(&[0x08], &MICROSOFT_RSS_KEY), Ok(0xd5a56da2));
    }

    #[test]
    fn a_key_shorter_than_input_plus_four_bytes_is_refused() {
        let err = toeplitz(&[1; 12], &[0; 15]).unwrap_err();
        assert_eq!(
            err,
            HashError::KeyTooShort {
                key_len: 15,
                needed: 16
            }
        );
        assert_eq!(
            err.to_string(),
            "Toeplitz key is 15 bytes but this input needs at least 16 (input length + 4)"
        );
    }

    #[test]
    fn the_longest_rss_input_fits_the_40_byte_key_exactly() {
        // IPv6 with ports: 16 + 16 + 2 + 2 = 36 bytes; 36 + 4 = 40.
        let input = [0xff; 36];
        assert_eq!(
            toeplitz(&input, &MICROSOFT_RSS_KEY),
            Ok(toeplitz_by_definition(&input, &MICROSOFT_RSS_KEY))
        );
        assert!(toeplitz(&[0xff; 37], &MICROSOFT_RSS_KEY).is_err());
    }

    proptest! {
        #[test]
        fn the_fast_path_agrees_with_the_definition(
            input in proptest::collection::vec(any::<u8>(), 0..=36),
            key in proptest::collection::vec(any::<u8>(), 40..=48),
        ) {
            prop_assert_eq!(toeplitz(&input, &key), Ok(toeplitz_by_definition(&input, &key)));
        }

        #[test]
        fn the_hash_is_linear_h_of_a_xor_b_is_h_a_xor_h_b(
            pair in proptest::collection::vec(any::<(u8, u8)>(), 0..=36),
            key in proptest::collection::vec(any::<u8>(), 40..=40),
        ) {
            let a: Vec<u8> = pair.iter().map(|p| p.0).collect();
            let b: Vec<u8> = pair.iter().map(|p| p.1).collect();
            let a_xor_b: Vec<u8> = pair.iter().map(|p| p.0 ^ p.1).collect();
            prop_assert_eq!(
                toeplitz(&a_xor_b, &key).unwrap(),
                toeplitz(&a, &key).unwrap() ^ toeplitz(&b, &key).unwrap()
            );
        }

        #[test]
        fn a_longer_key_does_not_change_the_hash(
            input in proptest::collection::vec(any::<u8>(), 0..=20),
            extra in proptest::collection::vec(any::<u8>(), 0..=8),
        ) {
            let short = &MICROSOFT_RSS_KEY[..input.len() + 4];
            let mut long = short.to_vec();
            long.extend_from_slice(&extra);
            prop_assert_eq!(toeplitz(&input, short), toeplitz(&input, &long));
        }
    }
}
