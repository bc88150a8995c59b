//! A fast hasher for the maps of this workspace whose keys are hashed many times per query:
//! interned terms (hashed by their children's addresses), structural keys of the derivative
//! caches, fingerprints. The standard library's default (SipHash-1-3, keyed per map) resists
//! chosen collisions, which nothing here needs, and cost about 7 % of the instructions of a
//! small concolic exploration; this one mixes each word written with a multiply-rotate step and
//! finishes with MurmurHash3's avalanche, so the low bits a table uses depend on every bit.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Multiply-rotate hashing of the words written, finished by an avalanche.
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            // The length tells "ab" from "ab\0".
            self.write_u64(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(K);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        // The finaliser of MurmurHash3: every bit of the state reaches the bits a table uses.
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^ (x >> 33)
    }
}

/// Builds [`FastHasher`]s.
pub type FastBuild = BuildHasherDefault<FastHasher>;

/// A `HashMap` with the [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, FastBuild>;

/// A `HashSet` with the [`FastHasher`].
pub type FastSet<K> = HashSet<K, FastBuild>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn hash_of<T: Hash + ?Sized>(x: &T) -> u64 {
        FastBuild::default().hash_one(x)
    }

    #[test]
    fn equal_keys_hash_alike_and_near_keys_apart() {
        assert_eq!(hash_of(&(3u32, "ab")), hash_of(&(3u32, "ab")));
        assert_ne!(hash_of(&1u64), hash_of(&2u64));
        assert_ne!(hash_of(&("ab", "c")), hash_of(&("a", "bc")));
        // Bytes written as they are: a trailing zero byte changes the hash.
        let raw = |bytes: &[u8]| {
            let mut h = FastHasher::default();
            h.write(bytes);
            h.finish()
        };
        assert_ne!(raw(b"ab"), raw(b"ab\0"));
        assert_ne!(raw(b"12345678"), raw(b"12345678\0"));
    }

    #[test]
    fn consecutive_integers_spread_over_the_low_bits() {
        // A table of 1024 buckets uses the low 10 bits: 1024 consecutive keys (addresses
        // 16 bytes apart, as interned nodes are) should fill most of them.
        let buckets: HashSet<u64> = (0..1024u64).map(|i| hash_of(&(i * 16)) & 1023).collect();
        assert!(buckets.len() > 600, "{} buckets used", buckets.len());
    }
}
