//! Dates and durations with Catala's calendar arithmetic (the `dates_calc` library of the Catala
//! runtime): adding a duration adds the years, then the months, rounds once if the day does not
//! exist in the resulting month (abort, round up to the 1st of the next month, or round down to
//! the last day of the month), then adds the days. Durations are (years, months, days) triples
//! that are never normalised; comparing durations that mix months and days is an error.

use std::cmp::Ordering;
use std::fmt;

/// A valid date of the proleptic Gregorian calendar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Date {
    pub year: i64,
    pub month: u8,
    pub day: u8,
}

/// A period of years, months and days, kept as written (`1 year` is not `12 months` for
/// printing, though they compare equal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Duration {
    pub years: i64,
    pub months: i64,
    pub days: i64,
}

/// What `date + duration` does when the day does not exist in the resulting month.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DateRounding {
    /// The default: the computation is ambiguous and fails.
    #[default]
    Abort,
    /// `date round up`: the first day of the next month.
    Up,
    /// `date round down`: the last day of the month.
    Down,
}

/// Why a date or duration computation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DateError {
    #[error("ambiguous date computation with no rounding mode specified")]
    AmbiguousDate,
    #[error("ambiguous comparison between durations in different units (e.g. months vs. days)")]
    MixedDurationComparison,
    #[error("dividing durations that are not in days")]
    DurationNotInDays,
    #[error("date out of the supported range")]
    OutOfRange,
}

pub(crate) fn is_leap_year(year: i64) -> bool {
    year % 400 == 0 || (year % 4 == 0 && year % 100 != 0)
}

pub fn days_in_month(year: i64, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ => {
            if is_leap_year(year) {
                29
            } else {
                28
            }
        }
    }
}

/// Days since 1970-01-01 of a (valid) civil date.
fn days_from_civil(year: i64, month: u8, day: u8) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = month as i64;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> Date {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    let year = yoe + era * 400 + if month <= 2 { 1 } else { 0 };
    Date { year, month, day }
}

/// Guards the day-count conversions against overflow (±10^12 years is far beyond any law).
const MAX_ABS_YEAR: i64 = 1_000_000_000_000;

impl Date {
    /// A date if `year-month-day` exists.
    pub fn new(year: i64, month: i64, day: i64) -> Option<Date> {
        if !(1..=12).contains(&month) || year.unsigned_abs() > MAX_ABS_YEAR as u64 {
            return None;
        }
        let month = month as u8;
        if day < 1 || day > days_in_month(year, month) as i64 {
            return None;
        }
        Some(Date {
            year,
            month,
            day: day as u8,
        })
    }

    /// Parses `YYYY-MM-DD`.
    pub fn parse(text: &str) -> Option<Date> {
        let mut parts = text.split('-');
        let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
            return None;
        }
        Date::new(y.parse().ok()?, m.parse().ok()?, d.parse().ok()?)
    }

    /// Days since 1970-01-01 (negative before).
    pub fn day_number(self) -> i64 {
        days_from_civil(self.year, self.month, self.day)
    }

    /// The date of a day number (inverse of [`Date::day_number`]); `None` out of the supported
    /// range of years.
    pub fn from_day_number(z: i64) -> Option<Date> {
        // About ±10^12 years either way, the range `Date::new` accepts.
        if z.unsigned_abs() > (MAX_ABS_YEAR as u64) * 366 {
            return None;
        }
        let d = civil_from_days(z);
        Date::new(d.year, i64::from(d.month), i64::from(d.day))
    }

    /// `self + duration` with Catala's rule: years, then months, one rounding, then days.
    pub fn add_duration(self, d: Duration, rounding: DateRounding) -> Result<Date, DateError> {
        let total_months = (self.month as i64 - 1)
            .checked_add(d.months)
            .ok_or(DateError::OutOfRange)?;
        let year = self
            .year
            .checked_add(d.years)
            .and_then(|y| y.checked_add(total_months.div_euclid(12)))
            .filter(|y| y.unsigned_abs() <= MAX_ABS_YEAR as u64)
            .ok_or(DateError::OutOfRange)?;
        let month = (total_months.rem_euclid(12) + 1) as u8;
        let last = days_in_month(year, month);
        let shifted = if self.day <= last {
            Date {
                year,
                month,
                day: self.day,
            }
        } else {
            match rounding {
                DateRounding::Abort => return Err(DateError::AmbiguousDate),
                DateRounding::Down => Date {
                    year,
                    month,
                    day: last,
                },
                DateRounding::Up => {
                    if month == 12 {
                        Date {
                            year: year + 1,
                            month: 1,
                            day: 1,
                        }
                    } else {
                        Date {
                            year,
                            month: month + 1,
                            day: 1,
                        }
                    }
                }
            }
        };
        if d.days == 0 {
            return Ok(shifted);
        }
        if d.days.unsigned_abs() > MAX_ABS_YEAR as u64 {
            return Err(DateError::OutOfRange);
        }
        Ok(civil_from_days(shifted.day_number() + d.days))
    }

    /// `self - other` as a number of days.
    pub(crate) fn sub_date(self, other: Date) -> Duration {
        Duration {
            years: 0,
            months: 0,
            days: self.day_number() - other.day_number(),
        }
    }

    pub fn first_day_of_month(self) -> Date {
        Date { day: 1, ..self }
    }

    pub fn last_day_of_month(self) -> Date {
        Date {
            day: days_in_month(self.year, self.month),
            ..self
        }
    }

    /// The day of the week, from 1 (Monday) to 7 (Sunday).
    pub(crate) fn weekday(self) -> u8 {
        // 1970-01-01, day number 0, was a Thursday.
        ((self.day_number() + 3).rem_euclid(7) + 1) as u8
    }
}

impl fmt::Display for Date {
    /// ISO 8601, `YYYY-MM-DD` (the JSON form; the printed value adds `|…|`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.year < 0 {
            write!(f, "-{:04}-{:02}-{:02}", -self.year, self.month, self.day)
        } else {
            write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
        }
    }
}

impl std::ops::Add for Duration {
    type Output = Duration;
    fn add(self, o: Duration) -> Duration {
        Duration::new(
            self.years.wrapping_add(o.years),
            self.months.wrapping_add(o.months),
            self.days.wrapping_add(o.days),
        )
    }
}

impl std::ops::Neg for Duration {
    type Output = Duration;
    fn neg(self) -> Duration {
        Duration::new(
            self.years.wrapping_neg(),
            self.months.wrapping_neg(),
            self.days.wrapping_neg(),
        )
    }
}

impl std::ops::Sub for Duration {
    type Output = Duration;
    fn sub(self, o: Duration) -> Duration {
        self + (-o)
    }
}

impl std::ops::Mul<i64> for Duration {
    type Output = Duration;
    fn mul(self, factor: i64) -> Duration {
        Duration::new(
            self.years.wrapping_mul(factor),
            self.months.wrapping_mul(factor),
            self.days.wrapping_mul(factor),
        )
    }
}

impl Duration {
    pub fn new(years: i64, months: i64, days: i64) -> Duration {
        Duration {
            years,
            months,
            days,
        }
    }

    /// The number of days, when the duration has no years or months.
    pub(crate) fn to_days(self) -> Result<i64, DateError> {
        if self.years != 0 || self.months != 0 {
            Err(DateError::DurationNotInDays)
        } else {
            Ok(self.days)
        }
    }

    /// Catala's comparison: months-and-years durations compare by total months, pure-day
    /// durations by days; anything else is ambiguous.
    pub fn compare(self, o: Duration) -> Result<Ordering, DateError> {
        if self.days == 0 && o.days == 0 {
            let a = self.years as i128 * 12 + self.months as i128;
            let b = o.years as i128 * 12 + o.months as i128;
            Ok(a.cmp(&b))
        } else if self.years == 0 && self.months == 0 && o.years == 0 && o.months == 0 {
            Ok(self.days.cmp(&o.days))
        } else {
            Err(DateError::MixedDurationComparison)
        }
    }

    /// Equal as written, or equal by [`Duration::compare`].
    pub fn equals(self, o: Duration) -> Result<bool, DateError> {
        if self == o {
            return Ok(true);
        }
        Ok(self.compare(o)? == Ordering::Equal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(y: i64, m: i64, d: i64) -> Date {
        Date::new(y, m, d).unwrap_or_else(|| panic!("invalid test date"))
    }

    #[test]
    fn month_arithmetic_rounds_once() {
        let jan31 = date(2019, 1, 31);
        let one_month = Duration::new(0, 1, 0);
        assert_eq!(
            jan31.add_duration(one_month, DateRounding::Abort),
            Err(DateError::AmbiguousDate)
        );
        assert_eq!(
            jan31.add_duration(one_month, DateRounding::Up),
            Ok(date(2019, 3, 1))
        );
        assert_eq!(
            jan31.add_duration(one_month, DateRounding::Down),
            Ok(date(2019, 2, 28))
        );
        // Years and months are added before the single rounding: 2020-02-29 + 1 year 0 month
        // does not exist; + 1 year 12 months lands on 2022-02-28 when rounding down.
        let leap = date(2020, 2, 29);
        assert_eq!(
            leap.add_duration(Duration::new(1, 0, 0), DateRounding::Abort),
            Err(DateError::AmbiguousDate)
        );
        assert_eq!(
            leap.add_duration(Duration::new(4, 0, 0), DateRounding::Abort),
            Ok(date(2024, 2, 29))
        );
        // Days come after the rounding: Jan 31 + 1 month 1 day, rounding down = Mar 1.
        assert_eq!(
            jan31.add_duration(Duration::new(0, 1, 1), DateRounding::Down),
            Ok(date(2019, 3, 1))
        );
        assert_eq!(
            date(2019, 12, 31).add_duration(Duration::new(0, 2, 0), DateRounding::Up),
            Ok(date(2020, 3, 1))
        );
        assert_eq!(
            date(2019, 3, 31).add_duration(Duration::new(0, -13, 0), DateRounding::Down),
            Ok(date(2018, 2, 28))
        );
    }

    #[test]
    fn day_arithmetic_crosses_months_and_years() {
        assert_eq!(
            date(2019, 12, 25).add_duration(Duration::new(0, 0, 10), DateRounding::Abort),
            Ok(date(2020, 1, 4))
        );
        assert_eq!(
            date(2020, 3, 1).add_duration(Duration::new(0, 0, -1), DateRounding::Abort),
            Ok(date(2020, 2, 29))
        );
        assert_eq!(date(2020, 3, 1).sub_date(date(2019, 3, 1)).days, 366);
        assert_eq!(date(2019, 3, 1).sub_date(date(2020, 3, 1)).days, -366);
        assert_eq!(date(1970, 1, 1).day_number(), 0);
        assert_eq!(civil_from_days(-1), date(1969, 12, 31));
    }

    #[test]
    fn duration_comparisons() {
        let year = Duration::new(1, 0, 0);
        assert_eq!(year.compare(Duration::new(0, 12, 0)), Ok(Ordering::Equal));
        assert_eq!(year.equals(Duration::new(0, 12, 0)), Ok(true));
        assert_eq!(
            year.compare(Duration::new(0, 0, 365)),
            Err(DateError::MixedDurationComparison)
        );
        assert_eq!(
            Duration::new(0, 0, 3).compare(Duration::new(0, 0, 4)),
            Ok(Ordering::Less)
        );
        assert_eq!(
            Duration::new(0, 1, 2).to_days(),
            Err(DateError::DurationNotInDays)
        );
    }

    #[test]
    fn extreme_durations_are_errors_not_panics() {
        let d = date(2019, 1, 31);
        for p in [
            Duration::new(i64::MAX, 0, 0),
            Duration::new(0, i64::MAX, 0),
            Duration::new(0, i64::MIN, 0),
            Duration::new(0, 0, i64::MIN),
        ] {
            assert_eq!(
                d.add_duration(p, DateRounding::Up),
                Err(DateError::OutOfRange)
            );
        }
        assert_eq!(Date::new(i64::MIN, 1, 1), None);
    }

    #[test]
    fn parse_and_display() {
        assert_eq!(Date::parse("2019-01-31"), Some(date(2019, 1, 31)));
        assert_eq!(Date::parse("2019-02-29"), None);
        assert_eq!(Date::parse("2019-1-31"), None);
        assert_eq!(date(5, 3, 7).to_string(), "0005-03-07");
    }

    #[test]
    fn weekdays_on_both_sides_of_the_epoch() {
        // 1970-01-01 (day 0) was a Thursday, the day before a Wednesday.
        assert_eq!(date(1970, 1, 1).weekday(), 4);
        assert_eq!(date(1969, 12, 31).weekday(), 3);
        assert_eq!(date(2000, 1, 1).weekday(), 6);
        assert_eq!(date(2024, 3, 3).weekday(), 7);
        assert_eq!(date(1900, 1, 1).weekday(), 1);
    }
}
