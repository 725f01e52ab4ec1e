//! Bytes marked 64 at a time, as the bits of a word: how the csv reader
//! splits a plain line by its special bytes and the json reader passes
//! over strings to their ends, a step per marked byte rather than per
//! byte.

use wide::u8x16;

/// Bytes marked at once: one word of bits.
pub(crate) const BLOCK: usize = 64;

/// The bits of the bytes of a block that `hit` marks: bit `i` is byte `i`.
/// `hit` is given the block 16 bytes at a time and answers with each byte
/// all ones or all zeros, whose bits are then taken at once: one
/// instruction on x86-64 (SSE2's byte mask), a few with NEON or
/// WebAssembly SIMD, a byte at a time on a machine with none of them.
#[inline(always)]
pub(crate) fn mark(bytes: &[u8; BLOCK], hit: impl Fn(u8x16) -> u8x16) -> u64 {
    let (sixteens, _) = bytes.as_chunks::<16>();
    let mut bits = 0u64;
    for (i, sixteen) in sixteens.iter().enumerate() {
        bits |= u64::from(hit(u8x16::new(*sixteen)).to_bitmask()) << (16 * i);
    }
    bits
}

/// Whether every byte of a block is ASCII.
#[inline(always)]
pub(crate) fn ascii(bytes: &[u8; BLOCK]) -> bool {
    // Each byte's high bit, as `mark` takes them.
    mark(bytes, |sixteen| sixteen) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::testing::Rng;

    #[test]
    fn each_marked_byte_is_its_bit() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..1_000 {
            let state = rng.next();
            // Bytes of every kind, some of them the one marked.
            let bytes: [u8; BLOCK] = std::array::from_fn(|i| {
                let pick = state.rotate_left(i as u32);
                if pick & 1 == 1 {
                    b'"'
                } else {
                    (pick >> 8) as u8
                }
            });
            let quotes = mark(&bytes, |v| v.simd_eq(u8x16::splat(b'"')));
            let below = mark(&bytes, |v| v.simd_lt(u8x16::splat(0x20)));
            for (i, &byte) in bytes.iter().enumerate() {
                assert_eq!(quotes >> i & 1 == 1, byte == b'"', "{bytes:?} at {i}");
                assert_eq!(below >> i & 1 == 1, byte < 0x20, "{bytes:?} at {i}");
            }
            assert_eq!(ascii(&bytes), bytes.iter().all(u8::is_ascii));
        }
        assert!(ascii(&[b'a'; BLOCK]));
        let mut one = [b'a'; BLOCK];
        one[63] = 0x80;
        assert!(!ascii(&one));
        assert_eq!(mark(&one, |v| v.simd_eq(u8x16::splat(0x80))), 1 << 63);
    }
}
