//! A small seeded pseudo-random generator (xoshiro256**, seeded through SplitMix64) so that
//! every search is reproducible from its `--seed` on every platform, independent of any
//! external crate's algorithm choices.

/// The generator state.
#[derive(Debug, Clone)]
pub struct SeededRng {
    state: [u64; 4],
}

fn splitmix64(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SeededRng {
    /// A generator determined by `seed`.
    pub fn new(seed: u64) -> SeededRng {
        let mut s = seed;
        SeededRng {
            state: [
                splitmix64(&mut s),
                splitmix64(&mut s),
                splitmix64(&mut s),
                splitmix64(&mut s),
            ],
        }
    }

    /// A generator for a named sub-stream (e.g. one per relation), stable under reordering.
    pub(crate) fn for_stream(seed: u64, name: &str) -> SeededRng {
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        for b in name.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01B3);
        }
        SeededRng::new(seed ^ h)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        let result = self.state[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.state[1] << 17;
        self.state[2] ^= self.state[0];
        self.state[3] ^= self.state[1];
        self.state[1] ^= self.state[2];
        self.state[0] ^= self.state[3];
        self.state[2] ^= t;
        self.state[3] = self.state[3].rotate_left(45);
        result
    }

    /// Uniform in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform integer in [lo, hi] (inclusive); `lo` when the range is empty.
    pub(crate) fn int_in(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        let span = (hi as i128 - lo as i128 + 1) as u128;
        let draw = (self.next_u64() as u128) % span;
        (lo as i128 + draw as i128) as i64
    }

    /// Uniform index below `n` (0 when n = 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// True with probability p.
    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_ranges_respected() {
        let mut a = SeededRng::new(7);
        let mut b = SeededRng::new(7);
        let xs: Vec<u64> = (0..5).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..5).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(SeededRng::new(8).next_u64(), xs[0]);
        let mut seen = [false; 5];
        for _ in 0..1000 {
            let v = a.int_in(-2, 2);
            assert!((-2..=2).contains(&v));
            seen[(v + 2) as usize] = true;
            let u = a.unit();
            assert!((0.0..1.0).contains(&u));
        }
        assert!(seen.iter().all(|s| *s));
    }
}
