//! Sets of numbers as sorted unions of disjoint intervals: the values an input may take in one
//! case of a condition. Integer sets (integers, money in cents, day numbers, days) keep closed
//! integer bounds, so `x > 4` and `x >= 5` are the same set and `[1, 4] ∪ [5, 9]` is `[1, 9]`;
//! decimal sets keep open and closed bounds.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::One;
use std::cmp::Ordering;

/// One end of an interval.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Bound {
    pub value: BigRational,
    pub inclusive: bool,
}

/// An interval; `None` is unbounded on that side.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Interval {
    pub lo: Option<Bound>,
    pub hi: Option<Bound>,
}

/// A union of disjoint, non-adjacent intervals in increasing order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NumSet {
    pub integral: bool,
    pub parts: Vec<Interval>,
}

/// A comparison of a value with a constant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

fn bound(value: BigRational, inclusive: bool) -> Option<Bound> {
    Some(Bound { value, inclusive })
}

/// The larger of two lower bounds (`None` is −∞).
fn max_lo(a: &Option<Bound>, b: &Option<Bound>) -> Option<Bound> {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(x), Some(y)) => match x.value.cmp(&y.value) {
            Ordering::Greater => a.clone(),
            Ordering::Less => b.clone(),
            Ordering::Equal => bound(x.value.clone(), x.inclusive && y.inclusive),
        },
    }
}

/// The smaller of two upper bounds (`None` is +∞).
fn min_hi(a: &Option<Bound>, b: &Option<Bound>) -> Option<Bound> {
    match (a, b) {
        (None, x) | (x, None) => x.clone(),
        (Some(x), Some(y)) => match x.value.cmp(&y.value) {
            Ordering::Less => a.clone(),
            Ordering::Greater => b.clone(),
            Ordering::Equal => bound(x.value.clone(), x.inclusive && y.inclusive),
        },
    }
}

/// The larger of two upper bounds.
fn max_hi(a: &Option<Bound>, b: &Option<Bound>) -> Option<Bound> {
    match (a, b) {
        (None, _) | (_, None) => None,
        (Some(x), Some(y)) => match x.value.cmp(&y.value) {
            Ordering::Greater => a.clone(),
            Ordering::Less => b.clone(),
            Ordering::Equal => bound(x.value.clone(), x.inclusive || y.inclusive),
        },
    }
}

/// Lower bounds in increasing order: −∞ first, then by value, a closed bound before an open one.
fn lo_order(a: &Option<Bound>, b: &Option<Bound>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => x
            .value
            .cmp(&y.value)
            .then_with(|| y.inclusive.cmp(&x.inclusive)),
    }
}

impl Interval {
    fn is_empty(&self) -> bool {
        match (&self.lo, &self.hi) {
            (Some(l), Some(h)) => match l.value.cmp(&h.value) {
                Ordering::Greater => true,
                Ordering::Equal => !(l.inclusive && h.inclusive),
                Ordering::Less => false,
            },
            _ => false,
        }
    }

    /// Closed integer bounds: `x > 4.5` becomes `x >= 5`, `x < 3` becomes `x <= 2`.
    fn to_integral(&self) -> Interval {
        let lo = self.lo.as_ref().map(|b| {
            let v = if b.inclusive {
                b.value.ceil()
            } else {
                b.value.floor() + BigRational::one()
            };
            Bound {
                value: v,
                inclusive: true,
            }
        });
        let hi = self.hi.as_ref().map(|b| {
            let v = if b.inclusive {
                b.value.floor()
            } else {
                b.value.ceil() - BigRational::one()
            };
            Bound {
                value: v,
                inclusive: true,
            }
        });
        Interval { lo, hi }
    }

    fn intersect(&self, other: &Interval) -> Interval {
        Interval {
            lo: max_lo(&self.lo, &other.lo),
            hi: min_hi(&self.hi, &other.hi),
        }
    }

    /// True when every number of `inner` is in this interval (both not empty).
    fn contains(&self, inner: &Interval) -> bool {
        let lo_ok = match (&self.lo, &inner.lo) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(o), Some(i)) => match o.value.cmp(&i.value) {
                Ordering::Less => true,
                Ordering::Equal => o.inclusive || !i.inclusive,
                Ordering::Greater => false,
            },
        };
        let hi_ok = match (&self.hi, &inner.hi) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(o), Some(i)) => match o.value.cmp(&i.value) {
                Ordering::Greater => true,
                Ordering::Equal => o.inclusive || !i.inclusive,
                Ordering::Less => false,
            },
        };
        lo_ok && hi_ok
    }

    /// True when this interval ends before `later` begins (so no number of `later` is in it
    /// or in the intervals before it).
    fn ends_before(&self, later: &Interval) -> bool {
        match (&self.hi, &later.lo) {
            (None, _) | (_, None) => false,
            (Some(h), Some(l)) => match h.value.cmp(&l.value) {
                Ordering::Less => true,
                Ordering::Equal => !(h.inclusive && l.inclusive),
                Ordering::Greater => false,
            },
        }
    }

    /// True when `next` (starting no earlier) overlaps or touches this interval, so that their
    /// union is one interval.
    fn joins(&self, next: &Interval, integral: bool) -> bool {
        let (Some(h), Some(l)) = (&self.hi, &next.lo) else {
            return true;
        };
        if integral {
            return l.value <= &h.value + BigRational::one();
        }
        match l.value.cmp(&h.value) {
            Ordering::Less => true,
            Ordering::Equal => l.inclusive || h.inclusive,
            Ordering::Greater => false,
        }
    }
}

impl NumSet {
    /// Every number.
    pub fn full(integral: bool) -> NumSet {
        NumSet {
            integral,
            parts: vec![Interval { lo: None, hi: None }],
        }
    }

    /// No number.
    pub fn empty(integral: bool) -> NumSet {
        NumSet {
            integral,
            parts: Vec::new(),
        }
    }

    /// The numbers `x` with `x cmp k`.
    pub fn compare(integral: bool, cmp: Cmp, k: BigRational) -> NumSet {
        let one = |lo, hi| NumSet::of(integral, vec![Interval { lo, hi }]);
        match cmp {
            Cmp::Lt => one(None, bound(k, false)),
            Cmp::Le => one(None, bound(k, true)),
            Cmp::Gt => one(bound(k, false), None),
            Cmp::Ge => one(bound(k, true), None),
            Cmp::Eq => one(bound(k.clone(), true), bound(k, true)),
            Cmp::Ne => NumSet::of(
                integral,
                vec![
                    Interval {
                        lo: None,
                        hi: bound(k.clone(), false),
                    },
                    Interval {
                        lo: bound(k, false),
                        hi: None,
                    },
                ],
            ),
        }
    }

    /// The set of the given intervals, normalised.
    pub fn of(integral: bool, parts: Vec<Interval>) -> NumSet {
        let mut parts: Vec<Interval> = parts
            .into_iter()
            .map(|i| if integral { i.to_integral() } else { i })
            .filter(|i| !i.is_empty())
            .collect();
        parts.sort_by(|a, b| lo_order(&a.lo, &b.lo));
        let mut out: Vec<Interval> = Vec::with_capacity(parts.len());
        for p in parts {
            match out.last_mut() {
                Some(last) if last.joins(&p, integral) => last.hi = max_hi(&last.hi, &p.hi),
                _ => out.push(p),
            }
        }
        NumSet {
            integral,
            parts: out,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    pub fn intersect(&self, other: &NumSet) -> NumSet {
        let mut parts = Vec::new();
        for a in &self.parts {
            for b in &other.parts {
                parts.push(a.intersect(b));
            }
        }
        NumSet::of(self.integral && other.integral, parts)
    }

    pub fn union(&self, other: &NumSet) -> NumSet {
        let parts = self.parts.iter().chain(&other.parts).cloned().collect();
        NumSet::of(self.integral && other.integral, parts)
    }

    /// The numbers not in the set.
    pub fn complement(&self) -> NumSet {
        let flip = |b: &Bound| Bound {
            value: b.value.clone(),
            inclusive: !b.inclusive,
        };
        let mut gaps = Vec::new();
        let mut lo: Option<Bound> = None;
        for p in &self.parts {
            if let Some(b) = &p.lo {
                gaps.push(Interval {
                    lo: lo.clone(),
                    hi: Some(flip(b)),
                });
            }
            match &p.hi {
                Some(b) => lo = Some(flip(b)),
                None => return NumSet::of(self.integral, gaps),
            }
        }
        gaps.push(Interval { lo, hi: None });
        NumSet::of(self.integral, gaps)
    }

    /// True when every number of `self` is in `other`.
    pub fn is_subset(&self, other: &NumSet) -> bool {
        if self.integral != other.integral {
            return &self.intersect(other) == self;
        }
        // Both normalised: the parts of `other` are disjoint and do not touch, so each part
        // of `self`, an interval, lies inside one part of `other` or is not covered. The parts
        // are in increasing order on both sides: one pass.
        let mut j = 0;
        'parts: for a in &self.parts {
            while let Some(b) = other.parts.get(j) {
                if b.contains(a) {
                    continue 'parts;
                }
                if b.ends_before(a) {
                    j += 1;
                } else {
                    return false;
                }
            }
            return false;
        }
        true
    }

    /// The only number of the set, if it has exactly one.
    pub fn single(&self) -> Option<&BigRational> {
        match self.parts.as_slice() {
            [Interval {
                lo: Some(l),
                hi: Some(h),
            }] if l.value == h.value => Some(&l.value),
            _ => None,
        }
    }

    /// The integers of the set when it is finite and has at most `limit` of them.
    pub fn integers(&self, limit: usize) -> Option<Vec<BigInt>> {
        let mut out = Vec::new();
        for p in &self.parts {
            let (Some(l), Some(h)) = (&p.lo, &p.hi) else {
                return None;
            };
            let mut v = l.value.ceil().to_integer();
            let end = h.value.floor().to_integer();
            while v <= end {
                if out.len() == limit {
                    return None;
                }
                out.push(v.clone());
                v += 1;
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(n: i64) -> BigRational {
        BigRational::from_integer(BigInt::from(n))
    }

    #[test]
    fn integer_bounds_are_closed_and_adjacent_intervals_join() {
        let a = NumSet::compare(true, Cmp::Gt, q(4));
        assert_eq!(a, NumSet::compare(true, Cmp::Ge, q(5)));
        let low = NumSet::compare(true, Cmp::Le, q(4));
        assert_eq!(low.union(&a), NumSet::full(true));
        // Decimals: x <= 4 and x > 4 join, x < 4 and x > 4 do not.
        let d = NumSet::compare(false, Cmp::Le, q(4)).union(&NumSet::compare(false, Cmp::Gt, q(4)));
        assert_eq!(d, NumSet::full(false));
        let gap =
            NumSet::compare(false, Cmp::Lt, q(4)).union(&NumSet::compare(false, Cmp::Gt, q(4)));
        assert_eq!(gap, NumSet::compare(false, Cmp::Ne, q(4)));
        assert_eq!(gap.parts.len(), 2);
    }

    #[test]
    fn subset_agrees_with_the_intersection() {
        // Every pair of sets built from a few comparisons and their unions, integral and not:
        // the one-pass test gives what `a ∩ b = a` says.
        for integral in [true, false] {
            let mut sets = vec![NumSet::full(integral), NumSet::empty(integral)];
            for k in [0, 3, 4, 7] {
                for cmp in [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Eq, Cmp::Ne] {
                    sets.push(NumSet::compare(integral, cmp, q(k)));
                }
            }
            let n = sets.len();
            for i in 0..n {
                for j in (i + 1)..n.min(i + 8) {
                    let u = sets[i].union(&sets[j]);
                    let x = sets[i].intersect(&sets[j]);
                    sets.push(u);
                    sets.push(x);
                }
            }
            let mut subsets = 0;
            for a in &sets {
                for b in &sets {
                    let slow = &a.intersect(b) == a;
                    assert_eq!(a.is_subset(b), slow, "{a:?} ⊆ {b:?}");
                    subsets += usize::from(slow);
                }
            }
            assert!(subsets > sets.len(), "the pairs include proper subsets");
        }
    }

    #[test]
    fn intersection_subset_and_points() {
        let band =
            NumSet::compare(true, Cmp::Gt, q(20)).intersect(&NumSet::compare(true, Cmp::Le, q(22)));
        assert_eq!(band.integers(10), Some(vec![21.into(), 22.into()]));
        assert!(band.is_subset(&NumSet::compare(true, Cmp::Ge, q(0))));
        assert!(!band.is_subset(&NumSet::compare(true, Cmp::Le, q(21))));
        let none = band.intersect(&NumSet::compare(true, Cmp::Lt, q(21)));
        assert!(none.is_empty());
        let point = band.intersect(&NumSet::compare(true, Cmp::Ne, q(21)));
        assert_eq!(point.single(), Some(&q(22)));
        // The complement of 21 <= x <= 22 is x <= 20 or x >= 23; twice, the band again.
        let outside = band.complement();
        assert_eq!(
            outside,
            NumSet::compare(true, Cmp::Le, q(20)).union(&NumSet::compare(true, Cmp::Ge, q(23)))
        );
        assert_eq!(outside.complement(), band);
        assert!(NumSet::full(false).complement().is_empty());
        assert_eq!(NumSet::empty(false).complement(), NumSet::full(false));
        // Decimals keep open ends: not (x < 4) is x >= 4.
        assert_eq!(
            NumSet::compare(false, Cmp::Lt, q(4)).complement(),
            NumSet::compare(false, Cmp::Ge, q(4))
        );
    }
}
