//! The model refiner, run after a satisfiable answer of Z3: it pulls the money inputs of the
//! model towards round amounts (Section 4.2 of the paper), trying, in turn, multiples of $100,
//! $10 and $1, and the dates towards January 1st, then the first day of a month. A candidate
//! is first checked exactly against the query ([`super::guess::all_hold`]: a rounded input
//! that changes no branch of the path is taken without asking Z3); otherwise it is one
//! "soft" query, the candidate values as assumptions on top of the path condition, in the
//! solver that answered (or, for a fresh solver's model, in a new fresh solver). A soft query
//! only chooses among models of a path already known satisfiable, so giving up costs a less
//! round input, never a path; it is bounded by Z3's resource count ([`SOFT_RLIMIT`]) rather
//! than time, so the inputs chosen do not depend on the machine's load.

use super::calendar::{round_dates_near, roundness, DateRoundness};
use super::model::{Origin, Z3Model};
use super::pinned::PinnedFacts;
use super::prefer::{Preferences, Preferred, PreferredUnit};
use super::query::{ModelValue, RoundnessLevel};
use super::term::{Term, VarId};
use super::z3_base::SharedZ3;
use super::z3_incremental::INCREMENTAL_TIME_CAP;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use z3::ast::{Ast, Bool, Int};
use z3::{Model, SatResult};

/// Z3's resource limit for a rounding query of a path answered by a fresh solver (that of
/// the incremental solver applies to the others).
const SOFT_RLIMIT: u32 = 100_000;

/// Days a date range is widened by when a path needs a date outside it (ten years).
const DATE_SLACK: i128 = 3_653;

/// Refines the models of one chain.
pub(crate) struct ModelRefiner {
    /// Rounding queries asked of Z3.
    pub(crate) soft_queries: u64,
    /// Time spent in them.
    pub(crate) time: Duration,
    /// The realistic ranges: no rounding moves a variable further from its range.
    pub(crate) preferences: Preferences,
    /// Rounding queries answered "no" without Z3 (see [`super::pinned`]).
    pub(crate) refuted: u64,
    /// The pinned variables of the query being refined, computed when first needed.
    facts: Option<PinnedFacts>,
    base: SharedZ3,
}

impl ModelRefiner {
    pub(crate) fn new(base: SharedZ3) -> ModelRefiner {
        ModelRefiner {
            soft_queries: 0,
            time: Duration::ZERO,
            preferences: Preferences::default(),
            refuted: 0,
            facts: None,
            base,
        }
    }

    /// Tries to make every variable of `money_vars` (cents) a multiple of $100, then $10,
    /// then $1, keeping the first model of `terms` (the query) that works. Returns the level
    /// reached.
    ///
    /// Each level tries two candidate assignments, every amount of the current model rounded
    /// up to the level's multiple, then every amount rounded down: a query with fixed amounts
    /// is much cheaper for Z3 than one with divisibility constraints, and the path condition
    /// stays satisfied by construction. Z3 is asked at the first level only: below it, the
    /// candidates are checked exactly against the model and nothing more. On the restricted
    /// housing benefits, of the rounding queries Z3 answered, 260 of 7,090 found multiples of
    /// $100, 9 of 3,587 multiples of $10 and none of 2,150 multiples of $1: a path that pins
    /// an amount off the hundreds pins it off the tens too. Without the 5,737 queries below
    /// the first level the exploration took 33.8 s of CPU instead of 38.2 s; 26 fewer tests
    /// at multiples of $10, 14 more at $1, 13 more with cents.
    pub(crate) fn round_money(
        &mut self,
        m: &mut Z3Model,
        terms: &[Term],
        money_vars: &[VarId],
    ) -> RoundnessLevel {
        let levels = [
            (RoundnessLevel::Hundreds, 10_000, true),
            (RoundnessLevel::Tens, 1_000, false),
            (RoundnessLevel::Units, 100, false),
        ];
        if money_vars.is_empty() {
            return RoundnessLevel::Hundreds;
        }
        let Some(current) = money_vars
            .iter()
            .map(|v| m.int(*v))
            .collect::<Option<Vec<i128>>>()
        else {
            return RoundnessLevel::Cents;
        };
        let vars: Vec<Int<'static>> = {
            let base = self.base.borrow();
            money_vars
                .iter()
                .map(|v| base.encoder.int_var(*v))
                .collect()
        };
        for (level, step, ask_z3) in levels {
            if current.iter().all(|c| c % step == 0) {
                return level;
            }
            let up: Vec<i128> = current
                .iter()
                .map(|c| c.div_euclid(step) * step + if c % step == 0 { 0 } else { step })
                .collect();
            let down: Vec<i128> = current.iter().map(|c| c.div_euclid(step) * step).collect();
            for candidate in [up, down] {
                let moved: Vec<(VarId, i128)> = money_vars
                    .iter()
                    .copied()
                    .zip(candidate.iter().copied())
                    .collect();
                if holds_with(m, terms, &moved) {
                    m.overrides.extend(moved);
                    return level;
                }
                if !ask_z3 || self.refuted(terms, &moved) {
                    continue;
                }
                let Some(assumptions) = candidate
                    .iter()
                    .zip(&vars)
                    .map(|(c, v)| Some(v._eq(&self.int_const(*c)?)))
                    .collect::<Option<Vec<Bool<'static>>>>()
                else {
                    continue;
                };
                if let Some(model) = self.soft_check(m, &assumptions) {
                    m.model = model;
                    m.overrides.clear();
                    return level;
                }
            }
        }
        RoundnessLevel::Cents
    }

    /// When some date of `dates` (day numbers) is not on the first of a month, tries to move
    /// the dates to January 1st, then to the first day of a month, keeping the variables of
    /// `kept` (the rounded money) at their values. Each level tries every date at once,
    /// rounded down and then up (the first day of the year or month and of the next), then,
    /// when that fails and several dates are off, one date at a time.
    pub(crate) fn round_dates(
        &mut self,
        m: &mut Z3Model,
        terms: &[Term],
        dates: &[VarId],
        kept: &[VarId],
    ) {
        if dates.is_empty() {
            return;
        }
        let Some(current) = dates.iter().map(|v| m.int(*v)).collect::<Option<Vec<_>>>() else {
            return;
        };
        let Some(kept_values) = kept.iter().map(|v| m.int(*v)).collect::<Option<Vec<_>>>() else {
            return;
        };
        // The kept values Z3 is given (those fitting in 64 bits), as assumptions and as pairs.
        let kept_fixed: Vec<(VarId, i128)> = kept
            .iter()
            .copied()
            .zip(kept_values.iter().copied())
            .filter(|(_, x)| i64::try_from(*x).is_ok())
            .collect();
        let fixed: Vec<Bool<'static>> = {
            let base = self.base.borrow();
            kept_fixed
                .iter()
                .filter_map(|(v, x)| Some(base.encoder.int_var(*v)._eq(&self.int_const(*x)?)))
                .collect()
        };
        // Dates already on the first of a month are left alone (moving them to January 1st
        // would cost soft queries on nearly every model of programs comparing dates with
        // first days of months, for little).
        if current
            .iter()
            .all(|z| roundness(*z) <= DateRoundness::MonthStart)
        {
            return;
        }
        let levels = [
            (DateRoundness::YearStart, 0, 1),
            (DateRoundness::MonthStart, 2, 3),
        ];
        // Every date at once, then (when some date cannot move) one date at a time.
        let mut values = current;
        let mut moved = false;
        'levels: for (level, down, up) in levels {
            if values.iter().all(|z| roundness(*z) <= level) {
                return;
            }
            for pick in [down, up] {
                let candidate: Vec<i128> = values
                    .iter()
                    .map(|z| {
                        if roundness(*z) <= level {
                            *z
                        } else {
                            round_dates_near(*z).get(pick).copied().unwrap_or(*z)
                        }
                    })
                    .collect();
                if self.try_dates(m, terms, dates, &candidate, (&fixed, &kept_fixed)) {
                    values = candidate;
                    moved = true;
                    break 'levels;
                }
            }
        }
        let unround = values
            .iter()
            .filter(|z| roundness(**z) != DateRoundness::YearStart)
            .count();
        if moved || unround < 2 {
            return;
        }
        for i in 0..values.len() {
            'one: for (level, down, up) in levels {
                if roundness(values[i]) <= level {
                    break;
                }
                for pick in [down, up] {
                    let mut candidate = values.clone();
                    candidate[i] = round_dates_near(values[i])
                        .get(pick)
                        .copied()
                        .unwrap_or(values[i]);
                    if self.try_dates(m, terms, dates, &candidate, (&fixed, &kept_fixed)) {
                        values = candidate;
                        break 'one;
                    }
                }
            }
        }
    }

    /// Is the query satisfiable with the dates at these values and the assumptions `fixed`?
    /// When it is, its model becomes `m`'s.
    fn try_dates(
        &mut self,
        m: &mut Z3Model,
        terms: &[Term],
        dates: &[VarId],
        values: &[i128],
        (fixed, kept): (&[Bool<'static>], &[(VarId, i128)]),
    ) -> bool {
        let moved: Vec<(VarId, i128)> = dates.iter().copied().zip(values.iter().copied()).collect();
        let further = moved.iter().any(|(v, z)| {
            let now = m.int(*v).map_or(0, |x| self.preferences.distance(*v, x));
            self.preferences.distance(*v, *z) > now
        });
        if further {
            return false;
        }
        if holds_with(m, terms, &moved) {
            m.overrides.retain(|(v, _)| !dates.contains(v));
            m.overrides.extend(moved);
            return true;
        }
        let mut pinned_down = moved.clone();
        pinned_down.extend_from_slice(kept);
        if self.refuted(terms, &pinned_down) {
            return false;
        }
        let mut assumptions = fixed.to_vec();
        for (v, z) in dates.iter().zip(values) {
            let Some(k) = self.int_const(*z) else {
                continue;
            };
            assumptions.push(self.base.borrow().encoder.int_var(*v)._eq(&k));
        }
        match self.soft_check(m, &assumptions) {
            Some(model) => {
                // The model keeps the values of `fixed` (the overrides among them).
                m.model = model;
                m.overrides.clear();
                true
            }
            None => false,
        }
    }

    /// Starts the refinement of a new query's model: what was known of the last one goes.
    pub(crate) fn new_query(&mut self) {
        self.facts = None;
    }

    /// Whether the query `terms` (the one being refined) certainly has no model with the
    /// variables of `fixed` at these values (see [`super::pinned`]); counted in `refuted`.
    fn refuted(&mut self, terms: &[Term], fixed: &[(VarId, i128)]) -> bool {
        let facts = self.facts.get_or_insert_with(|| PinnedFacts::of(terms));
        let refuted = facts.refutes(fixed);
        self.refuted += u64::from(refuted);
        refuted
    }

    /// A Z3 integer constant (the amounts and dates refined fit in 64 bits).
    fn int_const(&self, x: i128) -> Option<Int<'static>> {
        let value = i64::try_from(x).ok()?;
        Some(Int::from_i64(self.base.borrow().encoder.ctx(), value))
    }

    /// One soft query (the model's query under `assumptions`): its model when Z3 finds one
    /// within its resource limit.
    fn soft_check(&mut self, m: &Z3Model, assumptions: &[Bool<'static>]) -> Option<Model<'static>> {
        self.soft_queries += 1;
        let start = Instant::now();
        // A rounding query is never worth more than the cap of a path query's first check.
        let cap = |t: Option<Duration>| {
            Some(t.map_or(INCREMENTAL_TIME_CAP, |t| t.min(INCREMENTAL_TIME_CAP)))
        };
        let model = match &m.origin {
            Origin::Fresh(assertions) => {
                let mut base = self.base.borrow_mut();
                let timeout = base.timeout;
                let fresh = base.new_solver(Some(SOFT_RLIMIT), false);
                for b in assertions.iter().chain(assumptions) {
                    fresh.assert(b);
                }
                let r = {
                    let _watch = base.watch_for(cap(timeout));
                    fresh.check()
                };
                (r == SatResult::Sat).then(|| fresh.get_model()).flatten()
            }
            // The first solver's resource limit applies.
            Origin::Solver(solver) => {
                let base = self.base.borrow();
                let r = {
                    let _watch = base.watch_for(cap(base.timeout));
                    solver.check_assumptions(assumptions)
                };
                (r == SatResult::Sat).then(|| solver.get_model()).flatten()
            }
        };
        self.time += start.elapsed();
        model
    }
}

impl ModelRefiner {
    /// Moves the variables of `vars` whose values lie outside their preferred ranges
    /// (`prefs`) into them when the query `terms` allows it, keeping the variables of `kept`
    /// (the rounded money) at their values. Candidates checked exactly come first, without
    /// Z3: every such variable at its preferred point, then at the nearest value of its
    /// range, then each one alone. When some variable is still outside, one soft query asks
    /// for all of them inside their ranges at once, and when that fails and some range is
    /// bounded on both sides, a second one for their lower bounds alone (each bounded like
    /// every soft query); when Z3 finds none, the model stays as it is. Returns whether a
    /// soft query was asked.
    pub(crate) fn prefer_realistic(
        &mut self,
        m: &mut Z3Model,
        terms: &[Term],
        vars: &[VarId],
        prefs: &Preferences,
        kept: &[VarId],
    ) -> bool {
        let outside: Vec<(VarId, i128, Preferred)> = vars
            .iter()
            .filter_map(|v| {
                let p = *prefs.get(*v)?;
                let x = m.int(*v)?;
                (p.distance(x) > 0).then_some((*v, x, p))
            })
            .collect();
        if outside.is_empty() {
            return false;
        }
        let all_at = |pick: &dyn Fn(&(VarId, i128, Preferred)) -> i128| -> Vec<(VarId, i128)> {
            outside.iter().map(|o| (o.0, pick(o))).collect()
        };
        for moved in [all_at(&|o| o.2.point), all_at(&|o| o.2.clamp(o.1))] {
            if holds_with(m, terms, &moved) {
                m.overrides
                    .retain(|(v, _)| !moved.iter().any(|(u, _)| u == v));
                m.overrides.extend(moved);
                return false;
            }
        }
        let mut still = Vec::new();
        for (v, x, p) in &outside {
            let mut placed = false;
            for z in [p.point, p.clamp(*x)] {
                let moved = [(*v, z)];
                if holds_with(m, terms, &moved) {
                    m.overrides.retain(|(u, _)| u != v);
                    m.overrides.extend(moved);
                    placed = true;
                    break;
                }
            }
            if !placed {
                still.push((*v, *p));
            }
        }
        if still.is_empty() {
            return false;
        }
        let Some(kept_values) = kept.iter().map(|v| m.int(*v)).collect::<Option<Vec<_>>>() else {
            return false;
        };
        let mut fixed: Vec<Bool<'static>> = Vec::new();
        {
            let base = self.base.borrow();
            for (v, x) in kept.iter().zip(&kept_values) {
                if let Some(k) = self.int_const(*x) {
                    fixed.push(base.encoder.int_var(*v)._eq(&k));
                }
            }
            // Overrides are values the model does not have: they are kept as assumptions.
            for (v, x) in &m.overrides {
                if kept.contains(v) || still.iter().any(|(u, _)| u == v) {
                    continue;
                }
                if let Some(k) = self.int_const(*x) {
                    fixed.push(base.encoder.int_var(*v)._eq(&k));
                }
            }
        }
        // The whole ranges, then ranges relaxed: counts only not negative (as days where the
        // rules compare years), dates within ten more years on each side (nearest to the
        // program's years when the path needs others).
        for relaxed in [false, true] {
            let mut assumptions = fixed.clone();
            let mut changed = false;
            {
                let base = self.base.borrow();
                for (v, p) in &still {
                    let var = base.encoder.int_var(*v);
                    let (lo, hi) = match (relaxed, p.unit) {
                        (false, _) => (p.lo, p.hi),
                        (true, PreferredUnit::Count) => (p.lo, None),
                        (true, PreferredUnit::Day) => (
                            p.lo.map(|lo| lo - DATE_SLACK),
                            p.hi.map(|hi| hi + DATE_SLACK),
                        ),
                    };
                    changed |= (lo, hi) != (p.lo, p.hi);
                    if let Some(lo) = lo.and_then(|lo| self.int_const(lo)) {
                        assumptions.push(var.ge(&lo));
                    }
                    if let Some(hi) = hi.and_then(|hi| self.int_const(hi)) {
                        assumptions.push(var.le(&hi));
                    }
                }
            }
            if relaxed && !changed {
                break;
            }
            if let Some(model) = self.soft_check(m, &assumptions) {
                m.model = model;
                m.overrides.clear();
                break;
            }
        }
        true
    }
}

/// Do `terms` hold, exactly, with the variables of `moved` at these values and the others at
/// their values in `m`?
fn holds_with(m: &Z3Model, terms: &[Term], moved: &[(VarId, i128)]) -> bool {
    let mut values = BTreeMap::new();
    for (v, kind) in super::guess::variables(terms) {
        let value = match moved.iter().find(|(u, _)| *u == v) {
            Some((_, x)) => ModelValue::Int(x.to_string()),
            None => match m.value(v, kind) {
                Some(x) => x,
                None => return false,
            },
        };
        values.insert(v, value);
    }
    super::guess::all_hold(terms, &values)
}
