//! Exact rational numbers on `i128` (arithmetic checked: `None` on overflow), for the layers
//! that evaluate Catala's decimal terms without Z3 and for the encoder's integer forms.

/// A rational number `n / d` with `d > 0`, in lowest terms; integers have `d = 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Q {
    pub(crate) n: i128,
    pub(crate) d: i128,
}

/// The greatest common divisor of `a` and `b`, not negative (0 when both are 0).
pub(crate) fn gcd(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.abs()
}

impl Q {
    pub(crate) fn int(n: i128) -> Q {
        Q { n, d: 1 }
    }

    pub(crate) fn new(n: i128, d: i128) -> Option<Q> {
        if d == 0 {
            return None;
        }
        let g = gcd(n, d).max(1);
        let (n, d) = (n / g, d / g);
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
