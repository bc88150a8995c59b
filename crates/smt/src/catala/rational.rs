//! Exact rational numbers on `i128` (arithmetic checked: `None` on overflow), for the layers
//! that evaluate Catala's decimal terms without Z3 and for the encoder's integer forms.

/// A rational number `n / d` with `d > 0`, in lowest terms; integers have `d = 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Q {
    pub(crate) n: i128,
    pub(crate) d: i128,
}

/// The greatest common divisor of `a` and `b`, not negative (0 when both are 0).
///
/// Binary (Stein's) algorithm on the magnitudes: shifts and subtractions only, since a
/// division of 128-bit integers is a call into the compiler's runtime. Magnitudes that fit in
/// 64 bits (nearly all of them) are worked on as 64-bit integers.
pub(crate) fn gcd(a: i128, b: i128) -> i128 {
    let (a, b) = (a.unsigned_abs(), b.unsigned_abs());
    let g = if a <= u64::MAX as u128 && b <= u64::MAX as u128 {
        u128::from(binary_gcd_u64(a as u64, b as u64))
    } else {
        binary_gcd_u128(a, b)
    };
    // Only gcd(i128::MIN, 0) and gcd(i128::MIN, i128::MIN) are 2^127, which has no `i128`
    // (`Q::new` refuses `i128::MIN` before asking).
    i128::try_from(g).unwrap_or(i128::MAX)
}

/// Binary gcd functions for one unsigned width (the two widths share the algorithm).
macro_rules! binary_gcd {
    ($name:ident, $t:ty) => {
        fn $name(mut a: $t, mut b: $t) -> $t {
            if a == 0 {
                return b;
            }
            if b == 0 {
                return a;
            }
            let shift = (a | b).trailing_zeros();
            a >>= a.trailing_zeros();
            loop {
                b >>= b.trailing_zeros();
                if a > b {
                    std::mem::swap(&mut a, &mut b);
                }
                b -= a;
                if b == 0 {
                    return a << shift;
                }
            }
        }
    };
}

binary_gcd!(binary_gcd_u64, u64);
binary_gcd!(binary_gcd_u128, u128);

/// `n / g` for a `g` that divides `n`, in 64 bits when both fit.
fn div_exact(n: i128, g: i128) -> i128 {
    match (i64::try_from(n), i64::try_from(g)) {
        (Ok(n), Ok(g)) if g != -1 => i128::from(n / g),
        _ => n / g,
    }
}

impl Q {
    pub(crate) fn int(n: i128) -> Q {
        Q { n, d: 1 }
    }

    pub(crate) fn new(n: i128, d: i128) -> Option<Q> {
        if d == 0 {
            return None;
        }
        if d == 1 {
            return Some(Q { n, d });
        }
        if n == i128::MIN || d == i128::MIN {
            // Their magnitude 2^127 has no `i128`: taken as the overflow it nearly is.
            return None;
        }
        let g = gcd(n, d).max(1);
        let (n, d) = if g == 1 {
            (n, d)
        } else {
            (div_exact(n, g), div_exact(d, g))
        };
        Some(if d < 0 {
            Q {
                n: n.checked_neg()?,
                d: d.checked_neg()?,
            }
        } else {
            Q { n, d }
        })
    }

    pub(crate) fn add(self, o: Q) -> Option<Q> {
        if self.d == o.d {
            // Integers, or fractions over the same denominator (cents, rates).
            return Q::new(self.n.checked_add(o.n)?, self.d);
        }
        let n = self
            .n
            .checked_mul(o.d)?
            .checked_add(o.n.checked_mul(self.d)?)?;
        Q::new(n, self.d.checked_mul(o.d)?)
    }

    pub(crate) fn neg(self) -> Option<Q> {
        Some(Q {
            n: self.n.checked_neg()?,
            d: self.d,
        })
    }

    pub(crate) fn mul(self, o: Q) -> Option<Q> {
        if self.d == 1 && o.d == 1 {
            return Some(Q::int(self.n.checked_mul(o.n)?));
        }
        Q::new(self.n.checked_mul(o.n)?, self.d.checked_mul(o.d)?)
    }

    pub(crate) fn div(self, o: Q) -> Option<Q> {
        Q::new(self.n.checked_mul(o.d)?, self.d.checked_mul(o.n)?)
    }

    /// Half away from zero, as Catala rounds.
    pub(crate) fn round(self) -> Q {
        let twice = |x: i128| x.checked_mul(2);
        let up = |n: i128| -> Option<i128> {
            // ⌊n/d + 1/2⌋ = ⌊(2n + d) / 2d⌋ for n ≥ 0.
            Some(twice(n)?.checked_add(self.d)?.div_euclid(twice(self.d)?))
        };
        let r = if self.n >= 0 {
            up(self.n)
        } else {
            up(-self.n).map(|x| -x)
        };
        // Overflow needs numbers near 2^126; they cannot come from the inputs we try.
        Q::int(r.unwrap_or(0))
    }

    pub(crate) fn truncate(self) -> Q {
        Q::int(self.n / self.d)
    }
}

/// The rational `n / d` of a term's constant.
pub(crate) fn parse_q(n: &str, d: &str) -> Option<Q> {
    Q::new(n.parse().ok()?, d.parse().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Euclid's algorithm with remainders, the definition the binary one must agree with.
    fn euclid(mut a: i128, mut b: i128) -> i128 {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a.abs()
    }

    #[test]
    fn gcd_agrees_with_euclid_on_small_large_and_negative_numbers() {
        let big = 1i128 << 100;
        let samples = [
            0,
            1,
            -1,
            2,
            6,
            -9,
            12,
            35,
            100,
            -360,
            1 << 40,
            (1 << 62) + 3,
            i64::MAX as i128,
            u64::MAX as i128,
            (u64::MAX as i128) + 1,
            3 * big,
            -(5 * big),
            big + 7,
            i128::MAX,
            -i128::MAX,
        ];
        for &a in &samples {
            for &b in &samples {
                assert_eq!(gcd(a, b), euclid(a, b), "gcd({a}, {b})");
            }
        }
        assert_eq!(gcd(12, 18), 6);
        assert_eq!(gcd(-12, 18), 6);
        assert_eq!(gcd(0, -7), 7);
        assert_eq!(gcd(0, 0), 0);
    }

    #[test]
    fn fractions_are_kept_in_lowest_terms_with_a_positive_denominator() {
        assert_eq!(Q::new(6, -4), Some(Q { n: -3, d: 2 }));
        assert_eq!(Q::new(-10, -5), Some(Q::int(2)));
        assert_eq!(Q::new(0, 7), Some(Q::int(0)));
        assert_eq!(Q::new(1, 0), None);
        assert_eq!(Q::new(i128::MIN, 3), None);
        let third = Q::new(1, 3).unwrap();
        let sixth = Q::new(1, 6).unwrap();
        // Same denominators, different denominators, integers.
        assert_eq!(third.add(third), Q::new(2, 3));
        assert_eq!(
            Q::new(1, 6).unwrap().add(Q::new(1, 6).unwrap()),
            Some(third)
        );
        assert_eq!(third.add(sixth), Q::new(1, 2));
        assert_eq!(Q::int(7).add(Q::int(-9)), Some(Q::int(-2)));
        assert_eq!(Q::int(6).mul(Q::int(-7)), Some(Q::int(-42)));
        assert_eq!(third.mul(Q::int(3)), Some(Q::int(1)));
        assert_eq!(Q::int(i128::MAX).add(Q::int(1)), None);
        assert_eq!(Q::int(i128::MAX).mul(Q::int(2)), None);
        assert_eq!(
            Q::new(7, 2).unwrap().div(Q::new(7, 4).unwrap()),
            Some(Q::int(2))
        );
    }
}
