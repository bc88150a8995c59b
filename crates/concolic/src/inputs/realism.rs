//! Realistic inputs. A test whose inputs are implausible (a date in 2126, a contract of −1 day,
//! a household of −3 children) reads as an artefact of the tool even when the problem it shows
//! is genuine. The exploration therefore prefers, wherever the path leaves the choice:
//!
//! - **dates** within the years the program speaks of: from January 1st of the earliest year to
//!   December 31st of the latest year of the date literals of the scope, of the scopes it
//!   calls and of the top-level definitions (literals outside the explored dates, such as the
//!   sentinels `|0000-01-01|` or `|2999-12-31|`, are left out), or the range given in
//!   [`crate::ExploreOptions::date_range`]; an unconstrained date is January 1st of the middle
//!   year;
//! - **durations** not negative, in the unit the rules compare durations with: when every
//!   duration literal compared with another duration is in years, the months and days are
//!   preferred at 0 (a duration compared with `3 year` gets years), when every one is in days,
//!   the years and months are;
//! - **integers** not negative and small: from 0 to 100, or to twice the largest integer
//!   literal of the program when that is larger;
//! - money round, as the solver layers already do.
//!
//! These are preferences ([`smt::catala::Preferences`]), never constraints: a path that needs
//! a date in 1900 or a negative integer is still found, with the value nearest to the range.
//!
//! The same ranges rank the tests of a problem ([`Realism::typicality`]): the example shown
//! first for a problem is its most typical test, the one with the fewest inputs outside the
//! ranges, then with its dates closest to the middle of the date range, then the first found.

use super::{Shape, FIRST_DAY, LAST_DAY};
use catala_eval::runtime::{Date, Value};
use catala_ir::dcalc::{BinaryOp, CmpType, Expr, ExprKind, Literal, Program, ScopeId, Stmt};
use smt::catala::{Preferences, Preferred, PreferredUnit, VarId};
use std::collections::BTreeSet;

/// The smallest upper bound of the preferred integers.
const SMALL_INTEGERS: i64 = 100;

/// The unit the rules compare durations with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DurationUnit {
    /// Every duration literal compared is in whole years.
    Years,
    /// In years and months (no days).
    Months,
    /// In days only.
    Days,
    /// Both, or no comparison with a literal: no unit preferred.
    Any,
}

/// The realistic ranges of a scope's inputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Realism {
    /// The first and last day (day numbers) of the preferred dates, whole years; `None` when
    /// the program has no date literal in the explored range and none was given.
    pub dates: Option<(i64, i64)>,
    /// The largest preferred integer (the smallest is 0).
    pub max_integer: i64,
    pub duration_unit: DurationUnit,
}

/// How typical a test is: smaller is more typical (see [`Realism::typicality`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Typicality {
    /// Inputs outside their realistic range.
    pub outside: usize,
    /// Days between its dates and the middle of the date range, summed.
    pub spread: i64,
}

/// What the literals of a program say.
#[derive(Default)]
struct Literals {
    years: BTreeSet<i64>,
    max_integer: i64,
    /// Units of the duration literals compared with a duration.
    compared: BTreeSet<DurationUnit>,
}

impl PartialOrd for DurationUnit {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for DurationUnit {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (*self as u8).cmp(&(*other as u8))
    }
}

fn unit_of(years: i64, months: i64, days: i64) -> Option<DurationUnit> {
    match (years != 0, months != 0, days != 0) {
        (_, _, true) if years == 0 && months == 0 => Some(DurationUnit::Days),
        (true, false, false) => Some(DurationUnit::Years),
        (_, true, false) => Some(DurationUnit::Months),
        (false, false, false) => None,
        _ => Some(DurationUnit::Any),
    }
}

impl Literals {
    fn expr(&mut self, e: &Expr, scopes: &mut Vec<ScopeId>) {
        match &e.kind {
            ExprKind::Literal(Literal::Date { year, .. }) => {
                self.years.insert(*year);
            }
            ExprKind::Literal(Literal::Integer(n)) => {
                let n: i64 = n.try_into().unwrap_or(i64::MAX);
                self.max_integer = self.max_integer.max(n.saturating_abs());
            }
            ExprKind::ScopeCall { scope, .. } => scopes.push(*scope),
            ExprKind::Binary {
                op:
                    BinaryOp::Lt(CmpType::Duration)
                    | BinaryOp::Le(CmpType::Duration)
                    | BinaryOp::Gt(CmpType::Duration)
                    | BinaryOp::Ge(CmpType::Duration),
                lhs,
                rhs,
                ..
            } => {
                for side in [lhs, rhs] {
                    if let ExprKind::Literal(Literal::Duration {
                        years,
                        months,
                        days,
                    }) = side.kind
                    {
                        self.compared.extend(unit_of(years, months, days));
                    }
                }
            }
            _ => {}
        }
        for c in e.children() {
            self.expr(c, scopes);
        }
    }
}

impl Realism {
    /// The realistic ranges of the inputs of `scope`: dates within `date_range` when given
    /// (widened to whole years), else within the years of the program's date literals.
    pub fn of(program: &Program, scope: ScopeId, date_range: Option<(Date, Date)>) -> Realism {
        let mut found = Literals::default();
        let mut seen = BTreeSet::new();
        let mut todo = vec![scope];
        while let Some(s) = todo.pop() {
            if !seen.insert(s) {
                continue;
            }
            let Some(decl) = program.scopes.get(s.0 as usize) else {
                continue;
            };
            for stmt in &decl.body {
                let mut exprs: Vec<&Expr> = Vec::new();
                match stmt {
                    Stmt::Define { expr, .. } => exprs.push(expr),
                    Stmt::CallSubScope {
                        scope: callee,
                        args,
                        ..
                    } => {
                        todo.push(*callee);
                        exprs.extend(args.iter().flatten());
                    }
                    Stmt::Assert { expr, .. } => exprs.push(expr),
                    #[allow(unreachable_patterns)]
                    _ => {}
                }
                for e in exprs {
                    found.expr(e, &mut todo);
                }
            }
        }
        for d in &program.topdefs {
            found.expr(&d.body, &mut todo);
        }
        let year_of = |z: i64| Date::from_day_number(z).map(|d| d.year);
        let (first_year, last_year) = (year_of(FIRST_DAY), year_of(LAST_DAY));
        let explored =
            |y: &i64| first_year.is_some_and(|f| *y >= f) && last_year.is_some_and(|l| *y <= l);
        let years: Option<(i64, i64)> = match date_range {
            Some((a, b)) => Some((a.year.min(b.year), a.year.max(b.year))),
            None => {
                let mut inside = found.years.iter().copied().filter(explored);
                let first = inside.next();
                first.map(|f| (f, inside.next_back().unwrap_or(f)))
            }
        };
        let dates = years.and_then(|(a, b)| whole_years(a, b));
        let duration_unit = match found.compared.len() {
            1 => found
                .compared
                .iter()
                .next()
                .copied()
                .unwrap_or(DurationUnit::Any),
            // Years and months together: months are not days.
            2 if !found.compared.contains(&DurationUnit::Days)
                && !found.compared.contains(&DurationUnit::Any) =>
            {
                DurationUnit::Months
            }
            _ => DurationUnit::Any,
        };
        Realism {
            dates,
            max_integer: SMALL_INTEGERS.max(found.max_integer.saturating_mul(2)),
            duration_unit,
        }
    }

    /// The preferred point of the dates: January 1st of the middle year of the range.
    pub fn date_point(&self) -> Option<i64> {
        let (lo, hi) = self.dates?;
        let (a, b) = (Date::from_day_number(lo)?, Date::from_day_number(hi)?);
        Some(Date::new((a.year + b.year) / 2, 1, 1)?.day_number())
    }

    fn date_preference(&self) -> Option<Preferred> {
        let (lo, hi) = self.dates?;
        Some(Preferred {
            lo: Some(i128::from(lo)),
            hi: Some(i128::from(hi)),
            point: i128::from(self.date_point()?),
            unit: PreferredUnit::Day,
        })
    }

    /// The preferred ranges of the variables of `shapes`.
    pub(crate) fn preferences(&self, shapes: &[Shape]) -> Preferences {
        let mut prefs = Preferences::default();
        for s in shapes {
            self.prefer(s, &mut prefs);
        }
        prefs
    }

    fn prefer(&self, shape: &Shape, prefs: &mut Preferences) {
        let none = Preferred::count(0, Some(0));
        match shape {
            Shape::Integer(v) => {
                prefs.set(*v, Preferred::count(0, Some(i128::from(self.max_integer))));
            }
            Shape::Date(v) => {
                if let Some(p) = self.date_preference() {
                    prefs.set(*v, p);
                }
            }
            Shape::Duration {
                years,
                months,
                days,
            } => {
                let any = Preferred::count(0, None);
                let (y, m, d) = match self.duration_unit {
                    DurationUnit::Years => (any, none, none),
                    DurationUnit::Months => (any, Preferred::count(0, Some(11)), none),
                    DurationUnit::Days => (none, none, any),
                    DurationUnit::Any => (any, any, any),
                };
                for (v, p) in [(years, y), (months, m), (days, d)] {
                    prefs.set(*v, p);
                }
            }
            Shape::List { elems, .. } => elems.iter().for_each(|e| self.prefer(e, prefs)),
            Shape::Struct(_, parts) | Shape::Tuple(parts) => {
                parts.iter().for_each(|p| self.prefer(p, prefs))
            }
            Shape::Enum { payloads, .. } => payloads
                .iter()
                .flatten()
                .for_each(|p| self.prefer(p, prefs)),
            Shape::Optional { inner, .. } => self.prefer(inner, prefs),
            Shape::Bool(_) | Shape::Decimal(_) | Shape::Money(_) | Shape::Fixed(_) => {}
        }
    }

    /// How typical the inputs of a test are: the number of inputs outside their realistic
    /// range (a date outside the date range, a negative or large integer, a duration with a
    /// negative part or with a part the rules do not compare in), then the days between its
    /// dates and the middle of the date range, summed. The most typical test of a problem is
    /// the smallest, the first found among equals.
    pub fn typicality(&self, inputs: &[Option<Value>]) -> Typicality {
        let mut t = Typicality {
            outside: 0,
            spread: 0,
        };
        for v in inputs.iter().flatten() {
            self.rank(v, &mut t);
        }
        t
    }

    fn rank(&self, v: &Value, t: &mut Typicality) {
        match v {
            Value::Date(d) => {
                if let Some((lo, hi)) = self.dates {
                    let z = d.day_number();
                    if z < lo || z > hi {
                        t.outside += 1;
                    }
                    t.spread = t.spread.saturating_add((z - (lo + hi) / 2).abs());
                }
            }
            Value::Integer(i) => {
                let n = i.to_i64();
                if n.is_none_or(|n| !(0..=self.max_integer).contains(&n)) {
                    t.outside += 1;
                }
            }
            Value::Duration(d) => {
                let negative = d.years < 0 || d.months < 0 || d.days < 0;
                let off_unit = match self.duration_unit {
                    DurationUnit::Years => d.months != 0 || d.days != 0,
                    DurationUnit::Months => d.days != 0,
                    DurationUnit::Days => d.years != 0 || d.months != 0,
                    DurationUnit::Any => false,
                };
                if negative || off_unit {
                    t.outside += 1;
                }
            }
            Value::List(items) | Value::Tuple(items) => items.iter().for_each(|x| self.rank(x, t)),
            Value::Struct(s) => s.fields.iter().for_each(|x| self.rank(x, t)),
            Value::Enum(e) => self.rank(&e.payload, t),
            _ => {}
        }
    }
}

/// January 1st of year `a` to December 31st of year `b` as day numbers, within the explored
/// dates; `None` when that leaves nothing.
fn whole_years(a: i64, b: i64) -> Option<(i64, i64)> {
    let lo = Date::new(a, 1, 1)?.day_number().max(FIRST_DAY);
    let hi = Date::new(b, 12, 31)?.day_number().min(LAST_DAY);
    (lo <= hi).then_some((lo, hi))
}

/// The preferred dates of a range given as two dates (in either order), widened to whole
/// years, as day numbers.
pub fn preferred_dates(a: Date, b: Date) -> Option<(i64, i64)> {
    whole_years(a.year.min(b.year), a.year.max(b.year))
}

/// Day numbers of the preferred points of the variables of `prefs` that are not 0 (the
/// dates), for the inputs of the first run.
pub(crate) fn initial_points(prefs: &Preferences) -> Vec<(VarId, i128)> {
    prefs
        .iter()
        .filter(|(_, p)| p.point != 0)
        .map(|(v, p)| (v, p.point))
        .collect()
}
