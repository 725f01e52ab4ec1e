//! Bytes marked 64 at a time, as the bits of a word: how the csv reader
//! splits a plain line by its special bytes and the json reader passes
//! over strings to their ends, a step per marked byte rather than per
//! byte.

/// Bytes marked at once: one word of bits.
pub(crate) const BLOCK: usize = 64;

/// The bits of a block's marks, given as a 0 or 1 byte per position: bit
/// `i` is byte `i`. Each 8 bytes are gathered into 8 bits by one multiply
/// (the bit of byte `i` lands at bit 56 + `i`, and no two partial products
/// meet), so that with the 0/1 bytes compared a vector at a time, the
/// compiler marks a block without a branch.
#[inline(always)]
pub(crate) fn gather(hits: &[u8; BLOCK]) -> u64 {
    let mut bits = 0u64;
    for (i, eight) in hits.chunks_exact(8).enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(eight);
        let gathered = u64::from_le_bytes(word).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        bits |= gathered << (8 * i);
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_byte_is_its_bit() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..1_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let hits: [u8; BLOCK] = std::array::from_fn(|i| u8::from(state >> i & 1 == 1));
            assert_eq!(gather(&hits), state);
        }
        assert_eq!(gather(&[1; BLOCK]), u64::MAX);
        assert_eq!(gather(&[0; BLOCK]), 0);
    }
}
