//! Preferred values of the input variables: the realistic ranges the layers of the chain
//! choose from first (dates within the years a program speaks of, counts small and not
//! negative, durations in the unit the rules compare with). They are preferences, never
//! constraints: a layer picks a value inside a variable's [`Preferred`] range when the query
//! allows one, and the value nearest to it otherwise, so no path is lost by them.
//!
//! The distance of a value to its range is what the layers minimise: for a date (a day
//! number) it counts whole calendar years outside the range, so that among the dates a path
//! forces outside, the roundest of the nearest year can still be chosen; for a count it is the
//! difference, counted twice below the range (a count of −1 is less plausible than one of 1
//! above a range `0..=0`: a duration of 1 day rather than −1 day where days are not wanted).

use super::calendar::civil;
use super::term::VarId;
use std::collections::BTreeMap;

/// What a preferred range measures, for its distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreferredUnit {
    /// Day numbers; the distance counts calendar years outside the range.
    Day,
    /// Plain integers (counts, parts of durations).
    Count,
}

/// The preferred range of one integer variable, and the value it takes when nothing
/// constrains it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Preferred {
    /// Smallest preferred value (`None`: no bound below).
    pub lo: Option<i128>,
    /// Largest preferred value (`None`: no bound above).
    pub hi: Option<i128>,
    /// The value given when nothing constrains the variable (inside the range).
    pub point: i128,
    pub unit: PreferredUnit,
}

impl Preferred {
    /// A count in `lo..=hi` whose unconstrained value is `lo`.
    pub fn count(lo: i128, hi: Option<i128>) -> Preferred {
        Preferred {
            lo: Some(lo),
            hi,
            point: lo,
            unit: PreferredUnit::Count,
        }
    }

    /// How far `x` is outside the range (0 inside): whole years for dates.
    pub fn distance(&self, x: i128) -> i128 {
        let (below, above) = (self.lo.filter(|lo| x < *lo), self.hi.filter(|hi| x > *hi));
        match (self.unit, below, above) {
            (_, None, None) => 0,
            (PreferredUnit::Count, Some(lo), _) => (lo - x).saturating_mul(2),
            (PreferredUnit::Count, None, Some(hi)) => x - hi,
            (PreferredUnit::Day, Some(lo), _) => year_gap(x, lo),
            (PreferredUnit::Day, None, Some(hi)) => year_gap(hi, x),
        }
    }

    /// The value of the range nearest to `x`.
    pub fn clamp(&self, x: i128) -> i128 {
        let x = self.lo.map_or(x, |lo| x.max(lo));
        self.hi.map_or(x, |hi| x.min(hi))
    }
}

/// Calendar years from the date `early` up to the date `late` (`late` after `early`), at
/// least 1.
fn year_gap(early: i128, late: i128) -> i128 {
    match (civil(early), civil(late)) {
        (Some((a, _, _)), Some((b, _, _))) => (b - a).max(1),
        _ => (late - early) / 365 + 1,
    }
}

/// The preferred ranges of the variables that have one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preferences {
    ranges: BTreeMap<VarId, Preferred>,
}

impl Preferences {
    /// Prefers `p` for the variable `v`.
    pub fn set(&mut self, v: VarId, p: Preferred) {
        self.ranges.insert(v, p);
    }

    pub fn get(&self, v: VarId) -> Option<&Preferred> {
        self.ranges.get(&v)
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The variables with a preferred range, with it.
    pub fn iter(&self) -> impl Iterator<Item = (VarId, &Preferred)> {
        self.ranges.iter().map(|(v, p)| (*v, p))
    }

    /// How far `x` is outside the range of `v` (0 when `v` has none).
    pub fn distance(&self, v: VarId, x: i128) -> i128 {
        self.ranges.get(&v).map_or(0, |p| p.distance(x))
    }

    /// The value `v` takes when nothing constrains it: its preferred point, or 0.
    pub fn point(&self, v: VarId) -> i128 {
        self.ranges.get(&v).map_or(0, |p| p.point)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::calendar::day_number;

    #[test]
    fn dates_are_measured_in_years_outside_and_counts_in_units() {
        let day = |y, m, d| day_number(y, m, d).unwrap_or(0);
        // 2023-01-01 to 2025-12-31, its middle year's January 1st as the point.
        let dates = Preferred {
            lo: Some(day(2023, 1, 1)),
            hi: Some(day(2025, 12, 31)),
            point: day(2024, 1, 1),
            unit: PreferredUnit::Day,
        };
        assert_eq!(dates.distance(day(2024, 6, 1)), 0);
        // 2022-12-31 and 2022-01-01 are both one year before the range.
        assert_eq!(dates.distance(day(2022, 12, 31)), 1);
        assert_eq!(dates.distance(day(2022, 1, 1)), 1);
        assert_eq!(dates.distance(day(1970, 1, 1)), 53);
        assert_eq!(dates.distance(day(2126, 3, 1)), 101);
        assert_eq!(dates.clamp(day(1970, 1, 1)), day(2023, 1, 1));
        let count = Preferred::count(0, Some(100));
        assert_eq!(count.distance(-1), 2, "below counts twice");
        assert_eq!(count.distance(7), 0);
        assert_eq!(count.distance(130), 30);
        assert_eq!(count.clamp(-5), 0);
        let mut p = Preferences::default();
        p.set(VarId(3), count);
        assert_eq!(p.distance(VarId(3), -2), 4);
        assert_eq!(p.distance(VarId(4), -2), 0, "no range, no distance");
        assert_eq!(p.point(VarId(4)), 0);
    }
}
