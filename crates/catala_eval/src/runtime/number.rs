//! Exact numbers of the Catala runtime: unbounded integers ([`Integer`], also used for money as a
//! number of cents) and exact rationals ([`Decimal`]). Both keep a machine-word fast path
//! (`i64`, with `i128` intermediates) and fall back to `num-bigint` / `num-rational` only when a
//! result does not fit, so the common case of the benchmarks never allocates.
//!
//! Rounding follows Catala's runtime: [`Decimal::round`] is half away from zero
//! (`sgn(q)·⌊|q|+½⌋`), [`Decimal::truncate`] rounds toward zero.

use num_bigint::BigInt;
use num_integer::Integer as _;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::cmp::Ordering;
use std::fmt;
use std::rc::Rc;

/// An unbounded integer. Invariant: `Big` holds only values outside the `i64` range, so two
/// equal integers always have the same representation.
#[derive(Clone, Debug)]
pub enum Integer {
    Small(i64),
    Big(Rc<BigInt>),
}

impl Integer {
    pub const ZERO: Integer = Integer::Small(0);

    pub fn from_i128(v: i128) -> Integer {
        match i64::try_from(v) {
            Ok(s) => Integer::Small(s),
            Err(_) => Integer::Big(Rc::new(BigInt::from(v))),
        }
    }

    pub fn from_bigint(v: BigInt) -> Integer {
        match v.to_i64() {
            Some(s) => Integer::Small(s),
            None => Integer::Big(Rc::new(v)),
        }
    }

    pub(crate) fn to_bigint(&self) -> BigInt {
        match self {
            Integer::Small(s) => BigInt::from(*s),
            Integer::Big(b) => (**b).clone(),
        }
    }

    /// The value as an `i64` when it fits.
    pub fn to_i64(&self) -> Option<i64> {
        match self {
            Integer::Small(s) => Some(*s),
            Integer::Big(_) => None,
        }
    }

    pub fn is_zero(&self) -> bool {
        matches!(self, Integer::Small(0))
    }

    /// -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        match self {
            Integer::Small(s) => s.signum() as i32,
            Integer::Big(b) => {
                if b.is_negative() {
                    -1
                } else {
                    1
                }
            }
        }
    }

    pub fn add(&self, other: &Integer) -> Integer {
        if let (Integer::Small(a), Integer::Small(b)) = (self, other) {
            if let Some(r) = a.checked_add(*b) {
                return Integer::Small(r);
            }
        }
        Integer::from_bigint(self.to_bigint() + other.to_bigint())
    }

    pub fn sub(&self, other: &Integer) -> Integer {
        if let (Integer::Small(a), Integer::Small(b)) = (self, other) {
            if let Some(r) = a.checked_sub(*b) {
                return Integer::Small(r);
            }
        }
        Integer::from_bigint(self.to_bigint() - other.to_bigint())
    }

    pub fn mul(&self, other: &Integer) -> Integer {
        if let (Integer::Small(a), Integer::Small(b)) = (self, other) {
            return Integer::from_i128(*a as i128 * *b as i128);
        }
        Integer::from_bigint(self.to_bigint() * other.to_bigint())
    }

    pub fn neg(&self) -> Integer {
        match self {
            Integer::Small(a) => match a.checked_neg() {
                Some(r) => Integer::Small(r),
                None => Integer::from_i128(-(*a as i128)),
            },
            Integer::Big(b) => Integer::from_bigint(-(**b).clone()),
        }
    }

    pub fn abs(&self) -> Integer {
        if self.signum() < 0 {
            self.neg()
        } else {
            self.clone()
        }
    }

    /// Truncated division and remainder (`self = q·d + r`, `|r| < |d|`, sign of `r` = sign of
    /// `self`). `d` must not be zero.
    pub fn div_rem(&self, d: &Integer) -> (Integer, Integer) {
        if let (Integer::Small(a), Integer::Small(b)) = (self, d) {
            if let (Some(q), Some(r)) = (a.checked_div(*b), a.checked_rem(*b)) {
                return (Integer::Small(q), Integer::Small(r));
            }
        }
        let (q, r) = self.to_bigint().div_rem(&d.to_bigint());
        (Integer::from_bigint(q), Integer::from_bigint(r))
    }
}

impl From<i64> for Integer {
    fn from(v: i64) -> Integer {
        Integer::Small(v)
    }
}

impl PartialEq for Integer {
    fn eq(&self, other: &Integer) -> bool {
        match (self, other) {
            (Integer::Small(a), Integer::Small(b)) => a == b,
            (Integer::Big(a), Integer::Big(b)) => a == b,
            _ => false,
        }
    }
}
impl Eq for Integer {}

impl PartialOrd for Integer {
    fn partial_cmp(&self, other: &Integer) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Integer {
    fn cmp(&self, other: &Integer) -> Ordering {
        match (self, other) {
            (Integer::Small(a), Integer::Small(b)) => a.cmp(b),
            _ => self.to_bigint().cmp(&other.to_bigint()),
        }
    }
}

impl fmt::Display for Integer {
    /// Plain decimal digits, no separators (the language-aware printer is in `print`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Integer::Small(s) => write!(f, "{s}"),
            Integer::Big(b) => write!(f, "{b}"),
        }
    }
}

/// An exact rational number. Invariant: `Small` is reduced with a positive denominator, and
/// `Big` holds only values whose reduced numerator or denominator does not fit an `i64`.
#[derive(Clone, Debug)]
pub enum Decimal {
    Small { num: i64, den: i64 },
    Big(Rc<BigRational>),
}

fn gcd_u128(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

impl Decimal {
    pub const ZERO: Decimal = Decimal::Small { num: 0, den: 1 };

    /// `num / den` for a non-zero `den`, reduced.
    pub fn from_i128_ratio(num: i128, den: i128) -> Decimal {
        let (mut num, mut den) = if den < 0 { (-num, -den) } else { (num, den) };
        let g = gcd_u128(num.unsigned_abs(), den.unsigned_abs());
        if g > 1 {
            let g = g as i128;
            num /= g;
            den /= g;
        }
        match (i64::try_from(num), i64::try_from(den)) {
            (Ok(n), Ok(d)) => Decimal::Small { num: n, den: d },
            _ => Decimal::Big(Rc::new(BigRational::new_raw(
                BigInt::from(num),
                BigInt::from(den),
            ))),
        }
    }

    pub(crate) fn from_bigrational(r: BigRational) -> Decimal {
        // `BigRational` arithmetic keeps values reduced with a positive denominator.
        match (r.numer().to_i64(), r.denom().to_i64()) {
            (Some(n), Some(d)) => Decimal::Small { num: n, den: d },
            _ => Decimal::Big(Rc::new(r)),
        }
    }

    /// `num / den` for a non-zero `den`.
    pub fn from_ratio(num: &Integer, den: &Integer) -> Decimal {
        if let (Integer::Small(n), Integer::Small(d)) = (num, den) {
            return Decimal::from_i128_ratio(*n as i128, *d as i128);
        }
        Decimal::from_bigrational(BigRational::new(num.to_bigint(), den.to_bigint()))
    }

    pub fn from_integer(i: &Integer) -> Decimal {
        match i {
            Integer::Small(n) => Decimal::Small { num: *n, den: 1 },
            Integer::Big(b) => Decimal::Big(Rc::new(BigRational::from_integer((**b).clone()))),
        }
    }

    pub(crate) fn to_bigrational(&self) -> BigRational {
        match self {
            Decimal::Small { num, den } => {
                BigRational::new_raw(BigInt::from(*num), BigInt::from(*den))
            }
            Decimal::Big(b) => (**b).clone(),
        }
    }

    /// Numerator (carrying the sign) and positive denominator of the reduced fraction.
    pub fn numer_denom(&self) -> (Integer, Integer) {
        match self {
            Decimal::Small { num, den } => (Integer::Small(*num), Integer::Small(*den)),
            Decimal::Big(b) => (
                Integer::from_bigint(b.numer().clone()),
                Integer::from_bigint(b.denom().clone()),
            ),
        }
    }

    pub fn is_zero(&self) -> bool {
        matches!(self, Decimal::Small { num: 0, .. })
    }

    pub fn signum(&self) -> i32 {
        match self {
            Decimal::Small { num, .. } => num.signum() as i32,
            Decimal::Big(b) => {
                if b.is_negative() {
                    -1
                } else if b.is_zero() {
                    0
                } else {
                    1
                }
            }
        }
    }

    pub fn add(&self, other: &Decimal) -> Decimal {
        if let (Decimal::Small { num: a, den: b }, Decimal::Small { num: c, den: d }) =
            (self, other)
        {
            if b == d {
                return Decimal::from_i128_ratio(*a as i128 + *c as i128, *b as i128);
            }
            let (a, b, c, d) = (*a as i128, *b as i128, *c as i128, *d as i128);
            return Decimal::from_i128_ratio(a * d + c * b, b * d);
        }
        Decimal::from_bigrational(self.to_bigrational() + other.to_bigrational())
    }

    pub fn sub(&self, other: &Decimal) -> Decimal {
        self.add(&other.neg())
    }

    pub fn mul(&self, other: &Decimal) -> Decimal {
        if let (Decimal::Small { num: a, den: b }, Decimal::Small { num: c, den: d }) =
            (self, other)
        {
            return Decimal::from_i128_ratio(*a as i128 * *c as i128, *b as i128 * *d as i128);
        }
        Decimal::from_bigrational(self.to_bigrational() * other.to_bigrational())
    }

    /// `self / other`; `None` when `other` is zero.
    pub(crate) fn checked_div(&self, other: &Decimal) -> Option<Decimal> {
        if other.is_zero() {
            return None;
        }
        if let (Decimal::Small { num: a, den: b }, Decimal::Small { num: c, den: d }) =
            (self, other)
        {
            return Some(Decimal::from_i128_ratio(
                *a as i128 * *d as i128,
                *b as i128 * *c as i128,
            ));
        }
        Some(Decimal::from_bigrational(
            self.to_bigrational() / other.to_bigrational(),
        ))
    }

    pub fn neg(&self) -> Decimal {
        match self {
            Decimal::Small { num, den } => match num.checked_neg() {
                Some(n) => Decimal::Small { num: n, den: *den },
                None => Decimal::from_i128_ratio(-(*num as i128), *den as i128),
            },
            Decimal::Big(b) => Decimal::from_bigrational(-(**b).clone()),
        }
    }

    /// Half away from zero: `sgn(q)·⌊|q|+½⌋`.
    pub fn round(&self) -> Integer {
        match self {
            Decimal::Small { num, den } => {
                let (n, d) = (num.unsigned_abs() as u128, *den as u128);
                let abs_round = (2 * n + d) / (2 * d);
                let r = abs_round as i128;
                Integer::from_i128(if *num < 0 { -r } else { r })
            }
            Decimal::Big(b) => {
                let n = b.numer().abs();
                let d = b.denom().clone();
                let two = BigInt::from(2);
                let abs_round = (&two * n + &d).div_floor(&(&two * d));
                Integer::from_bigint(if b.is_negative() {
                    -abs_round
                } else {
                    abs_round
                })
            }
        }
    }

    /// Rounds toward zero.
    pub fn truncate(&self) -> Integer {
        match self {
            Decimal::Small { num, den } => Integer::Small(num / den),
            Decimal::Big(b) => Integer::from_bigint(b.to_integer()),
        }
    }

    pub fn is_integer(&self) -> bool {
        match self {
            Decimal::Small { den, .. } => *den == 1,
            Decimal::Big(b) => b.denom().is_one(),
        }
    }

    /// Parses `"-12.345"`, `"12"` or `"3/4"`.
    pub fn parse(text: &str) -> Option<Decimal> {
        let text = text.trim();
        if let Some((n, d)) = text.split_once('/') {
            let n: BigInt = n.trim().parse().ok()?;
            let d: BigInt = d.trim().parse().ok()?;
            if d.is_zero() {
                return None;
            }
            return Some(Decimal::from_bigrational(BigRational::new(n, d)));
        }
        let (negative, body) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text.strip_prefix('+').unwrap_or(text)),
        };
        let (int_part, frac_part) = body.split_once('.').unwrap_or((body, ""));
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        if !int_part.bytes().all(|b| b.is_ascii_digit())
            || !frac_part.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let digits = format!("{int_part}{frac_part}");
        let numer: BigInt = if digits.is_empty() {
            BigInt::zero()
        } else {
            digits.parse().ok()?
        };
        let denom = num_traits::pow(BigInt::from(10), frac_part.len());
        let r = BigRational::new(if negative { -numer } else { numer }, denom);
        Some(Decimal::from_bigrational(r))
    }
}

impl From<i64> for Decimal {
    fn from(v: i64) -> Decimal {
        Decimal::Small { num: v, den: 1 }
    }
}

impl PartialEq for Decimal {
    fn eq(&self, other: &Decimal) -> bool {
        match (self, other) {
            (Decimal::Small { num: a, den: b }, Decimal::Small { num: c, den: d }) => {
                a == c && b == d
            }
            (Decimal::Big(a), Decimal::Big(b)) => a == b,
            _ => false,
        }
    }
}
impl Eq for Decimal {}

impl PartialOrd for Decimal {
    fn partial_cmp(&self, other: &Decimal) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Decimal {
    fn cmp(&self, other: &Decimal) -> Ordering {
        if let (Decimal::Small { num: a, den: b }, Decimal::Small { num: c, den: d }) =
            (self, other)
        {
            return (*a as i128 * *d as i128).cmp(&(*c as i128 * *b as i128));
        }
        self.to_bigrational().cmp(&other.to_bigrational())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Decimal {
        Decimal::parse(s).unwrap_or_else(|| panic!("bad literal {s}"))
    }

    #[test]
    fn integer_overflow_promotes_to_big_and_back() {
        let max = Integer::from(i64::MAX);
        let over = max.add(&Integer::from(1));
        assert!(matches!(over, Integer::Big(_)));
        assert_eq!(over.to_string(), "9223372036854775808");
        let back = over.sub(&Integer::from(1));
        assert_eq!(back, max);
        assert!(matches!(back, Integer::Small(_)));
        let sq = max.mul(&max);
        assert_eq!(sq.to_string(), "85070591730234615847396907784232501249");
    }

    #[test]
    fn decimal_arithmetic_is_exact() {
        let third = Decimal::from_ratio(&1.into(), &3.into());
        let sum = third.add(&third).add(&third);
        assert_eq!(sum, Decimal::from(1));
        assert_eq!(dec("0.1").add(&dec("0.2")), dec("0.3"));
        assert!(dec("0.1").checked_div(&Decimal::ZERO).is_none());
        assert_eq!(dec("-1.5").cmp(&dec("-1.25")), Ordering::Less);
        assert_eq!(dec("3/6"), dec("0.5"));
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(dec("2.5").round(), Integer::from(3));
        assert_eq!(dec("-2.5").round(), Integer::from(-3));
        assert_eq!(dec("2.4999").round(), Integer::from(2));
        assert_eq!(dec("-0.4").round(), Integer::from(0));
        assert_eq!(dec("-42.443").truncate(), Integer::from(-42));
        assert_eq!(dec("42.9").truncate(), Integer::from(42));
    }

    #[test]
    fn big_rationals_round_the_same_way() {
        let big = dec("123456789012345678901234567890.5");
        assert!(matches!(big, Decimal::Big(_)));
        assert_eq!(big.round().to_string(), "123456789012345678901234567891");
        assert_eq!(
            big.neg().round().to_string(),
            "-123456789012345678901234567891"
        );
        assert_eq!(big.truncate().to_string(), "123456789012345678901234567890");
    }
}
