//! Hashing for the engine's tables. Keys are already-random-looking 64-bit numbers (page keys, object ids,
//! LBNs); what they need is a cheap mix that spreads sequential LBNs over all bits, because `hashbrown`
//! takes the bucket from the low bits and the control tag from the top 7.

use std::hash::{BuildHasherDefault, Hasher};

/// MurmurHash3's 64-bit finalizer: a bijection, so distinct keys never collide in the full 64 bits.
#[inline(always)]
pub fn mix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^= k >> 33;
    k
}

/// A `Hasher` for `u64`-like keys built on [`mix64`]; for `HashMap`s whose keys are page keys or ids.
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline]
    fn finish(&self) -> u64 {
        mix64(self.0)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Only reached for non-integer keys; fold the bytes so that the hasher stays total.
        for chunk in bytes.chunks(8) {
            let mut buf = [0u8; 8];
            buf[..chunk.len()].copy_from_slice(chunk);
            self.0 = mix64(self.0 ^ u64::from_le_bytes(buf));
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 ^= i;
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.0 ^= i as u64;
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.0 ^= i as u64;
    }
}

pub type KeyBuildHasher = BuildHasherDefault<KeyHasher>;
/// A `HashMap` over integer keys with [`KeyHasher`].
pub type KeyMap<K, V> = hashbrown::HashMap<K, V, KeyBuildHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mix_spreads_sequential_keys_over_low_and_high_bits() {
        let mut low = std::collections::HashSet::new();
        let mut top = std::collections::HashSet::new();
        for k in 0..1024u64 {
            low.insert(mix64(k) & 1023);
            top.insert(mix64(k) >> 57);
        }
        assert!(low.len() > 600, "low bits poorly mixed: {}", low.len());
        assert_eq!(top.len(), 128, "top 7 bits must take every value");
    }
}
