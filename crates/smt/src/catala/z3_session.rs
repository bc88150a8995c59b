//! The last layer of the concolic solver chain ([`super::session`]): the thread's Z3 context
//! holding a concolic exploration's solver state. The path condition is kept as
//! a stack (one `push` per constraint), so a depth-first exploration that negates the last open
//! constraint only pops and pushes the suffix that changed (Section 4.4, incremental solving);
//! with incrementality off, every query starts from a fresh assertion set. Global constraints
//! (input domains, assertions) sit below the stack. After a satisfiable query, money variables
//! can be pulled towards round amounts by trying, in turn, multiples of $100, $10 and $1
//! (Section 4.2), each as one extra query on top of the path condition.

use super::case_split;
use super::term::{Kind, Op, Term, TermNode, VarId};
use super::z3_calendar;
use crate::context::ContextHandle;
use crate::watchdog::Watchdog;
use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};
use z3::ast::{Ast, Bool, Dynamic, Int, Real};
use z3::{Context, Model, Params, SatResult, Solver};

/// Errors of the Catala encoding.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum EncodeError {
    #[error("ill-sorted term: {0}")]
    IllSorted(String),
    #[error("malformed numeric constant: {0}")]
    BadConstant(String),
}

/// The answer to a path query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryOutcome {
    Sat,
    Unsat,
    Unknown,
}

/// How round the money inputs of a model are (Table 5 of the paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RoundnessLevel {
    /// Every money variable is a multiple of $100 (or there is none).
    Hundreds,
    Tens,
    Units,
    /// Some amount has cents.
    Cents,
}

impl RoundnessLevel {
    /// The roundness of some amounts in cents.
    pub fn of_cents(amounts: &[i128]) -> RoundnessLevel {
        for (level, step) in [
            (RoundnessLevel::Hundreds, 10_000),
            (RoundnessLevel::Tens, 1_000),
            (RoundnessLevel::Units, 100),
        ] {
            if amounts.iter().all(|c| c % step == 0) {
                return level;
            }
        }
        RoundnessLevel::Cents
    }
}

/// A variable's value in a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelValue {
    Bool(bool),
    /// Decimal notation.
    Int(String),
    /// Numerator and positive denominator in decimal notation.
    Real(String, String),
}

/// Counters of one session.
#[derive(Debug, Default, Clone, Copy)]
pub struct SessionStats {
    /// Satisfiability checks for path conditions.
    pub path_queries: u64,
    /// Extra checks made to round money inputs.
    pub soft_queries: u64,
    /// Time spent in Z3 checks.
    pub solver_time: Duration,
    /// Path queries answered without Z3 (included in `path_queries`).
    pub fast_queries: u64,
    /// Of those, the ones answered by a model guessed near the last inputs.
    pub guessed_queries: u64,
    /// Path queries the incremental solver gave up on and a fresh solver answered (included
    /// in `path_queries`).
    pub fresh_queries: u64,
}

/// A Z3 solver with the path-condition stack of one exploration.
pub struct Z3Session {
    timeout_ms: Option<u32>,
    /// Created on the first query Z3 has to answer (with the globals asserted).
    solver: Option<Solver<'static>>,
    /// Constraints currently asserted above the globals, one push level each.
    stack: Vec<Term>,
    globals: Vec<Term>,
    incremental: bool,
    /// Encoded terms by node address, in two generations: when the young one is full it
    /// replaces the old one, so the terms of the current path stay encoded while those of
    /// paths long left are released (with their Z3 terms) and memory stays flat.
    cache: HashMap<usize, Encoded>,
    old_cache: HashMap<usize, Encoded>,
    /// The definitions met while encoding the current assertion (see [`Encoded`]).
    definitions: Vec<Bool<'static>>,
    /// The constants standing for calendar operators met (by operator and encoded
    /// arguments), with the constraint defining them.
    calendar: HashMap<(Op, Vec<Int<'static>>), std::rc::Rc<z3_calendar::Defined>>,
    model: Option<Model<'static>>,
    /// When the last path query was answered by a fresh solver: the assertions it held.
    fresh: Option<Vec<Bool<'static>>>,
    /// The last path condition asked.
    path: Vec<Term>,
    /// Values that replace the model's (rounded inputs checked without Z3, see
    /// [`Z3Session::holds_with`]).
    overrides: Vec<(VarId, i128)>,
    /// Path queries Z3 answered, rounding queries and time in Z3 (the other counters stay 0).
    stats: SessionStats,
    /// Where to write the path queries Z3 gave up on, as SMT-LIB 2 files.
    dump_unknown: Option<std::path::PathBuf>,
    /// Ends the incremental solver's checks at the timeout (created with the solver when
    /// there is a timeout); declared before the context, which its thread interrupts.
    watchdog: Option<Watchdog>,
    /// When every check must end (the exploration's deadline, Ctrl-C): checks in flight are
    /// interrupted by the watchdog, and none starts after it.
    stop: crate::Stop,
    /// The thread's Z3 context (see [`crate::context`]), taken on the first query Z3 has to
    /// answer (a run answered without Z3 never creates one: 10 ms); declared last so the
    /// solver, the encoded terms and the model above are dropped before it.
    context: OnceCell<ContextHandle>,
}

/// An encoded term and the definitions its Z3 term relies on: the year, month and day of a
/// date are fresh constants defined by `z = day_number(y, m, d)`, `1 ≤ m ≤ 12` and
/// `1 ≤ d ≤ days_in_month(y, m)` (a far easier problem for Z3 than dividing `z` down to its
/// parts). A definition is asserted with every assertion that uses it, at the same level, so it
/// is never popped while in use.
type Encoded = (Term, Dynamic<'static>, std::rc::Rc<[Bool<'static>]>);

const CACHE_GENERATION: usize = 20_000;
/// Z3's resource limit for one check of the incremental solver (about 0.15 s on this
/// machine; 99% of the path and rounding queries of the housing benchmarks take less than a
/// tenth of it). A path query beyond it goes to a fresh solver ([`Z3Session::check_fresh`]);
/// a rounding query beyond it is given up (a less round input, never a lost path). A
/// resource count rather than a time, so that the inputs chosen do not depend on the
/// machine's load.
const INCREMENTAL_RLIMIT: u32 = 100_000;
/// The same limit for the rounding queries of a path answered by a fresh solver.
const SOFT_RLIMIT: u32 = 100_000;
/// A fresh solver that found a model, with the assertions it holds.
type Solved = (Solver<'static>, Vec<Bool<'static>>);

/// How long a fresh solver searches before a query with a count to split on is split
/// ([`Z3Session::check_fresh`]).
const SPLIT_AFTER_MS: u32 = 10_000;
/// Path queries between two renewals of the incremental solver.
const SOLVER_RENEWAL: u64 = 50_000;

impl Z3Session {
    /// A session on the thread's context. `timeout_ms` bounds each check; `incremental`
    /// selects push/pop reuse.
    pub fn new(timeout_ms: Option<u32>, incremental: bool) -> Z3Session {
        Z3Session {
            timeout_ms,
            solver: None,
            stack: Vec::new(),
            globals: Vec::new(),
            incremental,
            cache: HashMap::new(),
            old_cache: HashMap::new(),
            definitions: Vec::new(),
            calendar: HashMap::new(),
            model: None,
            fresh: None,
            path: Vec::new(),
            overrides: Vec::new(),
            stats: SessionStats::default(),
            dump_unknown: None,
            watchdog: None,
            stop: crate::Stop::default(),
            context: OnceCell::new(),
        }
    }

    pub fn stats(&self) -> SessionStats {
        self.stats
    }

    /// Ends every check, path or rounding query, in flight or to come, once `stop` is reached:
    /// they answer unknown (call before the first query).
    pub fn stop_at(&mut self, stop: crate::Stop) {
        self.stop = stop;
    }

    /// Whether the session's [`crate::Stop`] is reached.
    pub fn stopped(&self) -> bool {
        self.stop.reached()
    }

    /// Writes every path query Z3 gives up on (after the fresh solver) to `dir` as an
    /// SMT-LIB 2 file, `unknown-PID-N.smt2`, for inspection with another solver or in a bug
    /// report. `dir` must exist; writing is best effort (a file that cannot be written is
    /// skipped and the exploration goes on).
    pub fn dump_unknown_to(&mut self, dir: std::path::PathBuf) {
        self.dump_unknown = Some(dir);
    }

    fn dump(&self, solver: &Solver<'static>) {
        let Some(dir) = &self.dump_unknown else {
            return;
        };
        let reason = solver.get_reason_unknown().unwrap_or_default();
        let text = format!("; reason unknown: {reason}\n{solver}\n(check-sat)\n");
        let file = dir.join(format!(
            "unknown-{}-{}.smt2",
            std::process::id(),
            self.stats.path_queries
        ));
        // Best effort: the caller created the directory; a file that cannot be written is
        // skipped, the query is still counted unknown.
        let _ = std::fs::write(&file, text);
    }

    /// Puts a check under the watchdog with its own limit (in milliseconds); nothing when the
    /// session has no watchdog (the check then has Z3's own timeout).
    fn watch_for(&self, limit_ms: Option<u32>) -> Option<crate::watchdog::Watch<'_>> {
        let limit = limit_ms.map(|t| Duration::from_millis(u64::from(t)));
        self.watchdog.as_ref().map(|w| w.watch_for(limit))
    }

    fn ctx(&self) -> &'static Context {
        self.context.get_or_init(ContextHandle::of_thread).get()
    }

    /// The solver, created with the globals on first use.
    ///
    /// `arith.nl.delay` is 0: Z3 (4.8) tries its complete nonlinear procedure (nlsat, bounded)
    /// on a final check that linearization leaves open only after a number of such checks, 500
    /// by default, counted across the solver's checks. A new solver therefore searches the
    /// money formulas' products with lemmas alone for its first hundreds of queries, and a
    /// long-lived one does not: that was the warm-up that made 32 shard processes of the
    /// restricted housing benefits cost 30 % more CPU than one process (56.2 s against 43.3 s;
    /// 48.5 s with the delay at 0, the single process unchanged at 43.0 s).
    fn ensure_solver(&mut self) -> Result<(), EncodeError> {
        if self.solver.is_some() {
            return Ok(());
        }
        let solver = Solver::new(self.ctx());
        let mut params = Params::new(self.ctx());
        // Z3's own timer costs two thread switches per check (see `crate::watchdog`): every
        // check is timed by the watchdog, which also ends any check at the session's stop (and
        // Z3's timer is never used beside it: the two ending a check at once can deadlock).
        let limit = self.timeout_ms.map(|t| Duration::from_millis(u64::from(t)));
        if self.watchdog.is_none() && (limit.is_some() || self.stop.is_set()) {
            self.watchdog = Some(Watchdog::new(self.ctx(), limit, self.stop.clone()));
        }
        if let (Some(t), None) = (self.timeout_ms, &self.watchdog) {
            params.set_u32("timeout", t);
        }
        if self.incremental {
            params.set_u32("rlimit", INCREMENTAL_RLIMIT);
            params.set_u32("arith.nl.delay", 0);
        }
        solver.set_params(&params);
        for t in self.globals.clone() {
            for b in self.assertion(&t)? {
                solver.assert(&b);
            }
        }
        self.solver = Some(solver);
        Ok(())
    }

    /// Adds a constraint that holds in every query (input domains, input assertions).
    pub fn add_global(&mut self, t: &Term) -> Result<(), EncodeError> {
        self.globals.push(t.clone());
        if self.solver.is_some() {
            let bs = self.assertion(t)?;
            self.pop_to(0);
            if let Some(solver) = &self.solver {
                for b in &bs {
                    solver.assert(b);
                }
            }
        }
        Ok(())
    }

    fn pop_to(&mut self, len: usize) {
        if self.stack.len() > len {
            let n = self.stack.len() - len;
            if let Some(solver) = &self.solver {
                solver.pop(n as u32);
            }
            self.stack.truncate(len);
        }
    }

    /// Is the conjunction of the globals and `path` satisfiable? On `Sat`, the model is kept
    /// for [`Z3Session::value`]. `asked` counts the path queries of the exploration so far
    /// (answered by any layer): the incremental solver is renewed every [`SOLVER_RENEWAL`].
    pub fn check_path(&mut self, path: &[Term], asked: u64) -> Result<QueryOutcome, EncodeError> {
        if self.incremental && asked % SOLVER_RENEWAL == SOLVER_RENEWAL - 1 {
            self.renew_solver();
        }
        self.ensure_solver()?;
        self.path.clear();
        self.path.extend_from_slice(path);
        if self.incremental {
            let common = self
                .stack
                .iter()
                .zip(path)
                .take_while(|(a, b)| std::rc::Rc::ptr_eq(a, b) || a == b)
                .count();
            self.pop_to(common);
            for t in &path[common..] {
                let bs = self.assertion(t)?;
                if let Some(solver) = &self.solver {
                    solver.push();
                    for b in &bs {
                        solver.assert(b);
                    }
                }
                self.stack.push(t.clone());
            }
        } else {
            if let Some(solver) = &self.solver {
                solver.reset();
            }
            self.stack.clear();
            for t in self.globals.clone().iter().chain(path) {
                let bs = self.assertion(t)?;
                if let Some(solver) = &self.solver {
                    for b in &bs {
                        solver.assert(b);
                    }
                }
            }
        }
        self.stats.path_queries += 1;
        let outcome = self.check();
        if !self.incremental {
            // Leave no path constraint behind for `add_global`.
            self.stack.clear();
        }
        Ok(outcome)
    }

    /// Replaces the solver by a fresh one holding the globals only: Z3's incremental solver
    /// keeps state across push/pop that grows with the number of queries.
    fn renew_solver(&mut self) {
        self.solver = None;
        self.stack.clear();
    }

    fn check(&mut self) -> QueryOutcome {
        self.fresh = None;
        self.overrides.clear();
        let Some(solver) = &self.solver else {
            return QueryOutcome::Unknown;
        };
        if self.stop.reached() {
            return QueryOutcome::Unknown;
        }
        let start = Instant::now();
        let r = {
            let _watch = self.watchdog.as_ref().map(Watchdog::watch);
            solver.check()
        };
        self.stats.solver_time += start.elapsed();
        match r {
            SatResult::Sat => {
                self.model = solver.get_model();
                QueryOutcome::Sat
            }
            SatResult::Unsat => QueryOutcome::Unsat,
            SatResult::Unknown if self.stop.reached() => QueryOutcome::Unknown,
            SatResult::Unknown if self.incremental => self.check_fresh(),
            SatResult::Unknown => {
                if let Some(solver) = &self.solver {
                    self.dump(solver);
                }
                QueryOutcome::Unknown
            }
        }
    }

    /// The current query (the globals and the stack, encoded as they were asserted) in a
    /// fresh solver, when the incremental one gave up within
    /// [`INCREMENTAL_RLIMIT`]: a solver that has never been pushed simplifies the whole
    /// problem first (constants propagated, equalities solved), which the incremental one
    /// does not, and the money formulas' roundings are then often solved in milliseconds where
    /// the incremental solver searches for seconds. The same assertions, so the same answer;
    /// on a model, the following soft queries use fresh solvers too ([`Z3Session::soft_check`]).
    ///
    /// When the query has a count with few values left ([`case_split::split_variable`]), the
    /// fresh solver has [`SPLIT_AFTER_MS`] at most, and if it gives up the query is split into
    /// one query per value, each with the session's timeout.
    fn check_fresh(&mut self) -> QueryOutcome {
        let start = Instant::now();
        let mut assertions = Vec::new();
        for t in self.globals.clone().iter().chain(self.stack.clone().iter()) {
            match self.assertion(t) {
                Ok(bs) => assertions.extend(bs),
                Err(_) => return QueryOutcome::Unknown,
            }
        }
        let split = {
            let terms: Vec<&Term> = self.globals.iter().chain(&self.stack).collect();
            case_split::split_variable(&terms)
        };
        let first_limit = match (&split, self.timeout_ms) {
            (Some(_), Some(t)) => Some(t.min(SPLIT_AFTER_MS)),
            (Some(_), None) => Some(SPLIT_AFTER_MS),
            (None, t) => t,
        };
        let fresh = self.fresh_solver_within(&assertions, &[], None, first_limit);
        self.stats.fresh_queries += 1;
        let first = {
            let _watch = self.watch_for(first_limit);
            fresh.check()
        };
        let (r, solved) = match (first, split) {
            (SatResult::Sat, _) => (SatResult::Sat, Some((fresh, assertions))),
            (SatResult::Unknown, _) if self.stop.reached() => (SatResult::Unknown, None),
            (SatResult::Unknown, Some((v, values))) => self.check_cases(&assertions, v, &values),
            (SatResult::Unknown, None) => {
                self.dump(&fresh);
                (SatResult::Unknown, None)
            }
            (SatResult::Unsat, _) => (SatResult::Unsat, None),
        };
        self.stats.solver_time += start.elapsed();
        match (r, solved) {
            (SatResult::Sat, Some((solver, held))) => {
                self.model = solver.get_model();
                self.fresh = Some(held);
                QueryOutcome::Sat
            }
            (SatResult::Unsat, _) => QueryOutcome::Unsat,
            _ => QueryOutcome::Unknown,
        }
    }

    /// The query `assertions` split on the values of `v`: satisfiable with the first value
    /// that is (the solver and its assertions returned), unsatisfiable when every value is,
    /// unknown otherwise (the first case given up on is dumped).
    fn check_cases(
        &mut self,
        assertions: &[Bool<'static>],
        v: VarId,
        values: &[i128],
    ) -> (SatResult, Option<Solved>) {
        let x = Int::new_const(self.ctx(), format!("v{}", v.0));
        let mut unknown = false;
        for value in values {
            let Some(k) = Int::from_str(self.ctx(), &value.to_string()) else {
                unknown = true;
                continue;
            };
            let case = [x._eq(&k)];
            let solver = self.fresh_solver(assertions, &case, None);
            if self.stop.reached() {
                return (SatResult::Unknown, None);
            }
            let r = {
                let _watch = self.watch_for(self.timeout_ms);
                solver.check()
            };
            match r {
                SatResult::Sat => {
                    let held = assertions.iter().chain(&case).cloned().collect();
                    return (SatResult::Sat, Some((solver, held)));
                }
                SatResult::Unsat => {}
                SatResult::Unknown => {
                    if !unknown {
                        self.dump(&solver);
                    }
                    unknown = true;
                }
            }
        }
        let r = if unknown {
            SatResult::Unknown
        } else {
            SatResult::Unsat
        };
        (r, None)
    }

    /// A new solver holding `assertions` and `extra`, with the session's timeout and, when
    /// given, a resource limit.
    fn fresh_solver(
        &self,
        assertions: &[Bool<'static>],
        extra: &[Bool<'static>],
        rlimit: Option<u32>,
    ) -> Solver<'static> {
        self.fresh_solver_within(assertions, extra, rlimit, self.timeout_ms)
    }

    /// [`Z3Session::fresh_solver`] with the timeout `timeout_ms`.
    fn fresh_solver_within(
        &self,
        assertions: &[Bool<'static>],
        extra: &[Bool<'static>],
        rlimit: Option<u32>,
        timeout_ms: Option<u32>,
    ) -> Solver<'static> {
        let solver = Solver::new(self.ctx());
        let mut params = Params::new(self.ctx());
        // With a watchdog, the check is timed by it (see `Z3Session::watch_for`).
        if let (Some(t), None) = (timeout_ms, &self.watchdog) {
            params.set_u32("timeout", t);
        }
        if let Some(r) = rlimit {
            params.set_u32("rlimit", r);
        }
        solver.set_params(&params);
        for b in assertions.iter().chain(extra) {
            solver.assert(b);
        }
        solver
    }

    /// After a satisfiable [`Z3Session::check_path`]: tries to make every variable of
    /// `money_vars` (cents) a multiple of $100, then $10, then $1, keeping the first model
    /// that works. Returns the level reached.
    ///
    /// Each level tries two candidate assignments, every amount of the current model rounded
    /// up to the level's multiple, then every amount rounded down, as assumptions (equalities)
    /// on top of the path condition: a query with fixed amounts is much cheaper for Z3 than one
    /// with divisibility constraints, and the path condition stays satisfied by construction.
    /// Below the first level a candidate is only checked exactly against the model, not
    /// asked of Z3 (see the figures in the body).
    pub fn round_money(&mut self, money_vars: &[VarId]) -> Result<RoundnessLevel, EncodeError> {
        // Z3 is asked at the first level only: below it, the candidates are checked exactly
        // against the model ([`Z3Session::holds_with`]) and nothing more. On the restricted
        // housing benefits, of the rounding queries Z3 answered, 260 of 7,090 found
        // multiples of $100, 9 of 3,587 multiples of $10 and none of 2,150 multiples of $1:
        // a path that pins an amount off the hundreds pins it off the tens too. Without the
        // 5,737 queries below the first level the exploration took 33.8 s of CPU instead of
        // 38.2 s; 26 fewer tests at multiples of $10, 14 more at $1, 13 more with cents.
        let levels = [
            (RoundnessLevel::Hundreds, 10_000, true),
            (RoundnessLevel::Tens, 1_000, false),
            (RoundnessLevel::Units, 100, false),
        ];
        if money_vars.is_empty() {
            return Ok(RoundnessLevel::Hundreds);
        }
        let current: Vec<Option<i128>> = money_vars
            .iter()
            .map(|v| match self.value(*v, Kind::Int) {
                Some(ModelValue::Int(s)) => s.parse::<i128>().ok(),
                _ => None,
            })
            .collect();
        let Some(current) = current.into_iter().collect::<Option<Vec<i128>>>() else {
            return Ok(RoundnessLevel::Cents);
        };
        let refine = self.model.is_some() && self.solver.is_some();
        // Z3 terms only when refining: a guessed model needs no Z3 context at all.
        let vars: Vec<Int<'static>> = if refine {
            money_vars
                .iter()
                .map(|v| Int::new_const(self.ctx(), format!("v{}", v.0)))
                .collect()
        } else {
            Vec::new()
        };
        for (level, step, ask_z3) in levels {
            if current.iter().all(|c| c % step == 0) {
                return Ok(level);
            }
            if !refine {
                continue;
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
                if self.holds_with(&moved) {
                    self.overrides.extend(moved);
                    return Ok(level);
                }
                if !ask_z3 {
                    continue;
                }
                let Some(assumptions) = candidate
                    .iter()
                    .zip(&vars)
                    .map(|(c, v)| {
                        let value = i64::try_from(*c).ok()?;
                        Some(v._eq(&Int::from_i64(self.ctx(), value)))
                    })
                    .collect::<Option<Vec<Bool<'static>>>>()
                else {
                    continue;
                };
                if let Some(m) = self.soft_check(&assumptions) {
                    self.model = Some(m);
                    self.overrides.clear();
                    return Ok(level);
                }
            }
        }
        Ok(RoundnessLevel::Cents)
    }

    /// After a satisfiable [`Z3Session::check_path`] (and the rounding of money): when some
    /// date of `dates` (day numbers) is not on the first of a month, tries to move the dates
    /// to January 1st, then to the first day of a month, keeping the variables of `kept` (the rounded money) at their values. Each
    /// level tries every date at once, rounded down and then up (the first day of the year or
    /// month and of the next), as assumptions on top of the path condition, as
    /// [`Z3Session::round_money`] does.
    pub fn round_dates(&mut self, dates: &[VarId], kept: &[VarId]) -> Result<(), EncodeError> {
        use super::calendar::{round_dates_near, roundness, DateRoundness};
        if dates.is_empty() || self.model.is_none() || self.solver.is_none() {
            return Ok(());
        }
        let read = |s: &Self, v: &VarId| match s.value(*v, Kind::Int) {
            Some(ModelValue::Int(x)) => x.parse::<i128>().ok(),
            _ => None,
        };
        let Some(current) = dates
            .iter()
            .map(|v| read(self, v))
            .collect::<Option<Vec<i128>>>()
        else {
            return Ok(());
        };
        let Some(kept_values) = kept
            .iter()
            .map(|v| read(self, v))
            .collect::<Option<Vec<i128>>>()
        else {
            return Ok(());
        };
        let ctx = self.ctx();
        let int_var = |v: &VarId| Int::new_const(ctx, format!("v{}", v.0));
        let fixed: Vec<Bool<'static>> = kept
            .iter()
            .zip(&kept_values)
            .filter_map(|(v, x)| Some(int_var(v)._eq(&Int::from_i64(ctx, i64::try_from(*x).ok()?))))
            .collect();
        // Dates already on the first of a month are left alone (moving them to January 1st
        // would cost soft queries on nearly every model of programs comparing dates with
        // first days of months, for little).
        if current
            .iter()
            .all(|z| roundness(*z) <= DateRoundness::MonthStart)
        {
            return Ok(());
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
                return Ok(());
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
                if self.try_dates(dates, &candidate, &fixed)? {
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
            return Ok(());
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
                    if self.try_dates(dates, &candidate, &fixed)? {
                        values = candidate;
                        break 'one;
                    }
                }
            }
        }
        Ok(())
    }

    /// Is the path condition satisfiable with the dates at these values and the assumptions
    /// `fixed`? When it is, its model becomes the session's.
    fn try_dates(
        &mut self,
        dates: &[VarId],
        values: &[i128],
        fixed: &[Bool<'static>],
    ) -> Result<bool, EncodeError> {
        let moved: Vec<(VarId, i128)> = dates.iter().copied().zip(values.iter().copied()).collect();
        if self.holds_with(&moved) {
            self.overrides.retain(|(v, _)| !dates.contains(v));
            self.overrides.extend(moved);
            return Ok(true);
        }
        let ctx = self.ctx();
        let mut assumptions = fixed.to_vec();
        for (v, z) in dates.iter().zip(values) {
            let Ok(z) = i64::try_from(*z) else { continue };
            let x = Int::new_const(ctx, format!("v{}", v.0));
            assumptions.push(x._eq(&Int::from_i64(ctx, z)));
        }
        match self.soft_check(&assumptions) {
            Some(m) => {
                // The model keeps the values of `fixed` (the overrides among them).
                self.model = Some(m);
                self.overrides.clear();
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Do the globals and the last path condition hold, exactly, with the variables of
    /// `moved` at these values and the others at their values in the model? A rounded input
    /// that changes no branch of the path is so taken without asking Z3 (the other inputs
    /// keep their values).
    fn holds_with(&self, moved: &[(VarId, i128)]) -> bool {
        let terms: Vec<Term> = self.globals.iter().chain(&self.path).cloned().collect();
        let mut values = BTreeMap::new();
        for (v, kind) in super::guess::variables(&terms) {
            let value = match moved.iter().find(|(u, _)| *u == v) {
                Some((_, x)) => ModelValue::Int(x.to_string()),
                None => match self.value(v, kind) {
                    Some(x) => x,
                    None => return false,
                },
            };
            values.insert(v, value);
        }
        super::guess::all_hold(&terms, &values)
    }

    /// One soft query (the path condition under `assumptions`): its model when Z3 finds one
    /// within its resource limit ([`INCREMENTAL_RLIMIT`], [`SOFT_RLIMIT`]). A soft query only chooses among models of a path already known
    /// satisfiable, so giving up costs a less round input, never a path; the bound is Z3's
    /// resource count rather than time, so the inputs chosen do not depend on the machine's
    /// load.
    fn soft_check(&mut self, assumptions: &[Bool<'static>]) -> Option<Model<'static>> {
        self.stats.soft_queries += 1;
        let start = Instant::now();
        let model = match &self.fresh {
            // The path needed a fresh solver: so does its refinement, the assumptions asserted
            // (and simplified away with the rest).
            Some(assertions) => {
                let fresh = self.fresh_solver(assertions, assumptions, Some(SOFT_RLIMIT));
                let r = {
                    let _watch = self.watch_for(self.timeout_ms);
                    fresh.check()
                };
                (r == SatResult::Sat).then(|| fresh.get_model()).flatten()
            }
            // The incremental solver's resource limit applies.
            None => {
                let solver = self.solver.as_ref()?;
                let r = {
                    let _watch = self.watchdog.as_ref().map(Watchdog::watch);
                    solver.check_assumptions(assumptions)
                };
                (r == SatResult::Sat).then(|| solver.get_model()).flatten()
            }
        };
        self.stats.solver_time += start.elapsed();
        model
    }

    /// The value of a variable in the last model (completed with defaults when unconstrained).
    pub fn value(&self, v: VarId, kind: Kind) -> Option<ModelValue> {
        let model = self.model.as_ref()?;
        if let Some((_, x)) = self.overrides.iter().find(|(u, _)| *u == v) {
            return Some(ModelValue::Int(x.to_string()));
        }
        let name = format!("v{}", v.0);
        match kind {
            Kind::Bool => model
                .eval(&Bool::new_const(self.ctx(), name), true)?
                .as_bool()
                .map(ModelValue::Bool),
            Kind::Int => {
                let i = model.eval(&Int::new_const(self.ctx(), name), true)?;
                match i.as_i64() {
                    Some(n) => Some(ModelValue::Int(n.to_string())),
                    None => parse_int_text(&i.to_string()).map(ModelValue::Int),
                }
            }
            Kind::Real => {
                let r = model.eval(&Real::new_const(self.ctx(), name), true)?;
                match r.as_real() {
                    Some((n, d)) => Some(ModelValue::Real(n.to_string(), d.to_string())),
                    None => parse_real_text(&r.to_string()).map(|(n, d)| ModelValue::Real(n, d)),
                }
            }
        }
    }

    /// What asserting `t` takes: its encoding and the definitions it relies on.
    fn assertion(&mut self, t: &Term) -> Result<Vec<Bool<'static>>, EncodeError> {
        self.definitions.clear();
        let b = self.encode_bool(t)?;
        let mut out: Vec<Bool<'static>> = Vec::new();
        for d in std::mem::take(&mut self.definitions) {
            if !out.contains(&d) {
                out.push(d);
            }
        }
        out.push(b);
        Ok(out)
    }

    /// The constants standing for a calendar operator on encoded arguments (one set per
    /// operator and arguments), their definition noted for the current assertion.
    fn calendar_op(&mut self, op: Op, args: &[Term]) -> Result<Int<'static>, EncodeError> {
        let ctx = self.ctx();
        let xs = args
            .iter()
            .map(|a| self.encode_int(a))
            .collect::<Result<Vec<_>, _>>()?;
        let bad = || EncodeError::IllSorted(format!("{op:?}"));
        let key = (
            match op {
                Op::Mod => Op::IntDiv,
                Op::MonthOf | Op::DayOf => Op::YearOf,
                other => other,
            },
            xs.clone(),
        );
        let defined = match self.calendar.get(&key) {
            Some(d) => d.clone(),
            None => {
                let d = std::rc::Rc::new(match (op, xs.as_slice()) {
                    (Op::IntDiv | Op::Mod, [a, b]) => z3_calendar::floor_div(ctx, a, b),
                    (Op::YearOf | Op::MonthOf | Op::DayOf, [z]) => z3_calendar::civil(ctx, z),
                    (Op::DaysInMonth, [y, m]) => z3_calendar::days_in_month(ctx, y, m),
                    (Op::DayNumber, [y, m, d]) => z3_calendar::day_number(ctx, y, m, d),
                    _ => return Err(bad()),
                });
                self.calendar.insert(key, d.clone());
                d
            }
        };
        self.definitions.push(defined.definition.clone());
        let index = match op {
            Op::Mod | Op::MonthOf => 1,
            Op::DayOf => 2,
            _ => 0,
        };
        defined.values.get(index).cloned().ok_or_else(bad)
    }

    fn encode_bool(&mut self, t: &Term) -> Result<Bool<'static>, EncodeError> {
        self.encode(t)?
            .as_bool()
            .ok_or_else(|| EncodeError::IllSorted(t.to_string()))
    }

    fn encode_int(&mut self, t: &Term) -> Result<Int<'static>, EncodeError> {
        self.encode(t)?
            .as_int()
            .ok_or_else(|| EncodeError::IllSorted(t.to_string()))
    }

    fn encode_real(&mut self, t: &Term) -> Result<Real<'static>, EncodeError> {
        let d = self.encode(t)?;
        if let Some(i) = d.as_int() {
            return Ok(Real::from_int(&i));
        }
        d.as_real()
            .ok_or_else(|| EncodeError::IllSorted(t.to_string()))
    }

    /// Encodes a term (memoised on the shared node).
    fn encode(&mut self, t: &Term) -> Result<Dynamic<'static>, EncodeError> {
        let key = std::rc::Rc::as_ptr(t) as usize;
        if let Some((_, d, defs)) = self.cache.get(&key) {
            self.definitions.extend(defs.iter().cloned());
            return Ok(d.clone());
        }
        let (d, defs) = match self.old_cache.remove(&key) {
            Some((_, d, defs)) => {
                self.definitions.extend(defs.iter().cloned());
                (d, defs)
            }
            None => {
                let start = self.definitions.len();
                let d = self.encode_node(t)?;
                let defs: std::rc::Rc<[Bool<'static>]> = self.definitions[start..].into();
                (d, defs)
            }
        };
        if self.cache.len() >= CACHE_GENERATION {
            self.old_cache = std::mem::take(&mut self.cache);
            if self.calendar.len() >= CACHE_GENERATION {
                // Parts of day numbers no longer in use go with their terms (a part still in
                // use gets fresh constants and a new definition).
                self.calendar.clear();
            }
        }
        self.cache.insert(key, (t.clone(), d.clone(), defs));
        Ok(d)
    }

    fn encode_node(&mut self, t: &Term) -> Result<Dynamic<'static>, EncodeError> {
        let ctx = self.ctx();
        let bad = || EncodeError::IllSorted(t.to_string());
        Ok(match &**t {
            TermNode::Var(v, k) => {
                let name = format!("v{}", v.0);
                match k {
                    Kind::Bool => Dynamic::from_ast(&Bool::new_const(ctx, name)),
                    Kind::Int => Dynamic::from_ast(&Int::new_const(ctx, name)),
                    Kind::Real => Dynamic::from_ast(&Real::new_const(ctx, name)),
                }
            }
            TermNode::Bool(b) => Dynamic::from_ast(&Bool::from_bool(ctx, *b)),
            TermNode::Int(s) => Dynamic::from_ast(
                &Int::from_str(ctx, s).ok_or_else(|| EncodeError::BadConstant(s.clone()))?,
            ),
            TermNode::Real(n, d) => Dynamic::from_ast(
                &Real::from_real_str(ctx, n, d)
                    .ok_or_else(|| EncodeError::BadConstant(format!("{n}/{d}")))?,
            ),
            TermNode::App(op, args) => {
                let arg = |i: usize| args.get(i).ok_or_else(bad);
                match op {
                    Op::Not => Dynamic::from_ast(&self.encode_bool(arg(0)?)?.not()),
                    Op::And | Op::Or => {
                        let parts = args
                            .iter()
                            .map(|a| self.encode_bool(a))
                            .collect::<Result<Vec<_>, _>>()?;
                        let refs: Vec<&Bool<'static>> = parts.iter().collect();
                        if *op == Op::And {
                            Dynamic::from_ast(&Bool::and(ctx, &refs))
                        } else {
                            Dynamic::from_ast(&Bool::or(ctx, &refs))
                        }
                    }
                    Op::Xor => {
                        let a = self.encode_bool(arg(0)?)?;
                        let b = self.encode_bool(arg(1)?)?;
                        Dynamic::from_ast(&a.xor(&b))
                    }
                    Op::Add | Op::Sub | Op::Mul | Op::Neg => {
                        self.encode_arith(*op, t.kind(), args).map_err(|_| bad())?
                    }
                    Op::Div => {
                        let a = self.encode_real(arg(0)?)?;
                        let b = self.encode_real(arg(1)?)?;
                        Dynamic::from_ast(&a.div(&b))
                    }
                    Op::ToReal => Dynamic::from_ast(&self.encode_real(arg(0)?)?),
                    Op::Round | Op::Truncate => {
                        let q = self.encode_real(arg(0)?)?;
                        let zero = Real::from_real(ctx, 0, 1);
                        let half = if *op == Op::Round {
                            Real::from_real(ctx, 1, 2)
                        } else {
                            zero.clone()
                        };
                        let pos = Real::add(ctx, &[&q, &half]).to_int();
                        let neg = Real::add(ctx, &[&q.unary_minus(), &half])
                            .to_int()
                            .unary_minus();
                        Dynamic::from_ast(&q.ge(&zero).ite(&pos, &neg))
                    }
                    Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                        let (a, b) = (arg(0)?, arg(1)?);
                        if a.kind() == Kind::Real || b.kind() == Kind::Real {
                            let x = self.encode_real(a)?;
                            let y = self.encode_real(b)?;
                            Dynamic::from_ast(&match op {
                                Op::Lt => x.lt(&y),
                                Op::Le => x.le(&y),
                                Op::Gt => x.gt(&y),
                                _ => x.ge(&y),
                            })
                        } else {
                            let x = self.encode_int(a)?;
                            let y = self.encode_int(b)?;
                            Dynamic::from_ast(&match op {
                                Op::Lt => x.lt(&y),
                                Op::Le => x.le(&y),
                                Op::Gt => x.gt(&y),
                                _ => x.ge(&y),
                            })
                        }
                    }
                    Op::Eq => {
                        let (a, b) = (arg(0)?, arg(1)?);
                        if a.kind() == Kind::Real || b.kind() == Kind::Real {
                            let x = self.encode_real(a)?;
                            let y = self.encode_real(b)?;
                            Dynamic::from_ast(&x._eq(&y))
                        } else {
                            let x = self.encode(a)?;
                            let y = self.encode(b)?;
                            Dynamic::from_ast(&x._eq(&y))
                        }
                    }
                    Op::IntDiv
                    | Op::Mod
                    | Op::YearOf
                    | Op::MonthOf
                    | Op::DayOf
                    | Op::DaysInMonth
                    | Op::DayNumber => {
                        if matches!(op, Op::IntDiv | Op::Mod)
                            && !matches!(args.get(1).map(|b| &**b), Some(TermNode::Int(k)) if !k.starts_with('-') && k != "0")
                        {
                            return Err(bad());
                        }
                        Dynamic::from_ast(&self.calendar_op(*op, args)?)
                    }
                    Op::Ite => {
                        let c = self.encode_bool(arg(0)?)?;
                        let x = self.encode(arg(1)?)?;
                        let y = self.encode(arg(2)?)?;
                        Dynamic::from_ast(&c.ite(&x, &y))
                    }
                }
            }
        })
    }

    fn encode_arith(
        &mut self,
        op: Op,
        kind: Kind,
        args: &[Term],
    ) -> Result<Dynamic<'static>, EncodeError> {
        let ctx = self.ctx();
        if kind == Kind::Real {
            let xs = args
                .iter()
                .map(|a| self.encode_real(a))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Real<'static>> = xs.iter().collect();
            let first = xs.first().ok_or(EncodeError::IllSorted("arity".into()))?;
            Ok(Dynamic::from_ast(&match op {
                Op::Add => Real::add(ctx, &refs),
                Op::Sub => Real::sub(ctx, &refs),
                Op::Mul => Real::mul(ctx, &refs),
                _ => first.unary_minus(),
            }))
        } else {
            let xs = args
                .iter()
                .map(|a| self.encode_int(a))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Int<'static>> = xs.iter().collect();
            let first = xs.first().ok_or(EncodeError::IllSorted("arity".into()))?;
            Ok(Dynamic::from_ast(&match op {
                Op::Add => Int::add(ctx, &refs),
                Op::Sub => Int::sub(ctx, &refs),
                Op::Mul => Int::mul(ctx, &refs),
                _ => first.unary_minus(),
            }))
        }
    }
}

/// Reads Z3's printing of an integer numeral: `42` or `(- 42)`.
fn parse_int_text(s: &str) -> Option<String> {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix("(-").and_then(|r| r.strip_suffix(')')) {
        let digits = inner.trim();
        return digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| format!("-{digits}"));
    }
    s.bytes().all(|b| b.is_ascii_digit()).then(|| s.to_string())
}

/// Reads Z3's printing of a rational numeral: `2.0`, `(/ 1.0 3.0)`, `(- (/ 1.0 3.0))`.
fn parse_real_text(s: &str) -> Option<(String, String)> {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix("(-").and_then(|r| r.strip_suffix(')')) {
        let (n, d) = parse_real_text(inner)?;
        return Some((format!("-{n}"), d));
    }
    if let Some(inner) = s.strip_prefix("(/").and_then(|r| r.strip_suffix(')')) {
        let mut parts = inner.split_whitespace();
        let n = parse_int_text(parts.next()?.trim_end_matches(".0"))?;
        let d = parse_int_text(parts.next()?.trim_end_matches(".0"))?;
        return Some((n, d));
    }
    parse_int_text(s.trim_end_matches(".0")).map(|n| (n, "1".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::term::{app, int_const, real_const, var};

    #[test]
    fn rounding_is_half_away_from_zero() {
        // round(x) = -3 with x = -5/2 exactly: only possible if -2.5 rounds to -3.
        let mut s = Z3Session::new(None, true);
        let x = var(VarId(0), Kind::Real);
        let is_half = app(Op::Eq, vec![x.clone(), real_const("-5", "2")]);
        let rounds_to = |k: &str| app(Op::Eq, vec![app(Op::Round, vec![x.clone()]), int_const(k)]);
        assert_eq!(
            s.check_path(&[is_half.clone(), rounds_to("-3")], 0).ok(),
            Some(QueryOutcome::Sat)
        );
        assert_eq!(
            s.check_path(&[is_half.clone(), rounds_to("-2")], 1).ok(),
            Some(QueryOutcome::Unsat)
        );
        let is_pos = app(Op::Eq, vec![x.clone(), real_const("5", "2")]);
        assert_eq!(
            s.check_path(&[is_pos, rounds_to("3")], 2).ok(),
            Some(QueryOutcome::Sat)
        );
    }

    #[test]
    fn a_fresh_solver_gives_the_answers_of_the_incremental_one() {
        // x · y = 391 = 17 · 23 with x, y > 1 has models; x · y = 389 (a prime) has none.
        let x = var(VarId(0), Kind::Int);
        let y = var(VarId(1), Kind::Int);
        let above_one = |v: &Term| app(Op::Gt, vec![v.clone(), int_const("1")]);
        let read = |s: &Z3Session, v: u32| match s.value(VarId(v), Kind::Int) {
            Some(ModelValue::Int(n)) => n.parse::<i64>().unwrap_or(0),
            other => panic!("{other:?}"),
        };
        for (n, expected) in [("391", QueryOutcome::Sat), ("389", QueryOutcome::Unsat)] {
            let mut s = Z3Session::new(None, true);
            let product = app(
                Op::Eq,
                vec![app(Op::Mul, vec![x.clone(), y.clone()]), int_const(n)],
            );
            let path = [above_one(&x), above_one(&y), product];
            assert_eq!(s.check_path(&path, 0).ok(), Some(expected));
            assert_eq!(s.check_fresh(), expected);
            if expected == QueryOutcome::Sat {
                let (a, b) = (read(&s, 0), read(&s, 1));
                assert!(a > 1 && b > 1 && a * b == 391, "{a} {b}");
                // Rounding in fresh solvers: x cannot be a multiple of $1 (100 cents), the
                // model stays a model.
                assert_eq!(s.round_money(&[VarId(0)]).ok(), Some(RoundnessLevel::Cents));
                let (a, b) = (read(&s, 0), read(&s, 1));
                assert!(a > 1 && b > 1 && a * b == 391, "{a} {b}");
            }
        }
    }

    #[test]
    fn a_new_solver_answers_a_nonlinear_query_within_its_resource_limit() {
        // A Pythagorean triple with 100 < x and z < 200 (e.g. 119² + 120² = 169²): within the
        // incremental solver's resource limit only when Z3 tries nlsat from its first final
        // check (`arith.nl.delay` 0); with the default delay of 500 the first check gives up
        // and the query goes to a fresh solver.
        let mut s = Z3Session::new(Some(60_000), true);
        let v = |i: u32| var(VarId(i), Kind::Int);
        let square = |i: u32| app(Op::Mul, vec![v(i), v(i)]);
        let path = vec![
            app(Op::Gt, vec![v(1), int_const("0")]),
            app(Op::Gt, vec![v(0), int_const("100")]),
            app(Op::Lt, vec![v(2), int_const("200")]),
            app(
                Op::Eq,
                vec![app(Op::Add, vec![square(0), square(1)]), square(2)],
            ),
        ];
        assert_eq!(s.check_path(&path, 0).ok(), Some(QueryOutcome::Sat));
        assert_eq!(
            s.stats().fresh_queries,
            0,
            "answered by the incremental solver"
        );
        let n = |i: u32| match s.value(VarId(i), Kind::Int) {
            Some(ModelValue::Int(t)) => t.parse::<i128>().ok(),
            _ => None,
        };
        let (Some(x), Some(y), Some(z)) = (n(0), n(1), n(2)) else {
            panic!("no model values")
        };
        assert!(
            x * x + y * y == z * z && x > 100 && y > 0 && z < 200,
            "{x} {y} {z}"
        );
    }

    #[test]
    fn the_query_timeout_ends_an_incremental_check_that_uses_few_resources() {
        // x³ = 2y³ + 4z³ over positives (unsatisfiable by descent): Z3 4.8 spends about 20 s
        // on it before using up the incremental solver's resource limit. With a 0.5 s timeout
        // the incremental check and then the fresh solver's both end at the timeout.
        let mut s = Z3Session::new(Some(500), true);
        let v = |i: u32| var(VarId(i), Kind::Int);
        let cube = |i: u32| app(Op::Mul, vec![v(i), v(i), v(i)]);
        let mut path: Vec<Term> = (0..3)
            .map(|i| app(Op::Gt, vec![v(i), int_const("0")]))
            .collect();
        path.push(app(Op::Lt, vec![v(0), int_const("1000")]));
        path.push(app(
            Op::Eq,
            vec![
                cube(0),
                app(
                    Op::Add,
                    vec![
                        app(Op::Mul, vec![int_const("2"), cube(1)]),
                        app(Op::Mul, vec![int_const("4"), cube(2)]),
                    ],
                ),
            ],
        ));
        let start = Instant::now();
        assert_eq!(s.check_path(&path, 0).ok(), Some(QueryOutcome::Unknown));
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{:?}",
            start.elapsed()
        );
        // The session goes on: the next query is answered.
        let easy = vec![app(Op::Gt, vec![v(0), int_const("3")])];
        assert_eq!(s.check_path(&easy, 1).ok(), Some(QueryOutcome::Sat));
    }

    #[test]
    fn a_query_z3_gives_up_on_is_written_as_smt_lib() {
        // x³ + y³ = z³ with x, y, z > 0 has no model (Fermat, n = 3), which Z3 cannot prove:
        // with a 200 ms limit the query is unknown, and the file holds the cubes and a check.
        let dir = std::env::temp_dir().join(format!("lexprobe-dump-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let mut s = Z3Session::new(Some(200), true);
        s.dump_unknown_to(dir.clone());
        let v = |i: u32| var(VarId(i), Kind::Int);
        let cube = |i: u32| app(Op::Mul, vec![v(i), v(i), v(i)]);
        let mut path: Vec<Term> = (0..3)
            .map(|i| app(Op::Gt, vec![v(i), int_const("0")]))
            .collect();
        path.push(app(
            Op::Eq,
            vec![app(Op::Add, vec![cube(0), cube(1)]), cube(2)],
        ));
        assert_eq!(s.check_path(&path, 0).ok(), Some(QueryOutcome::Unknown));
        let files: Vec<_> = std::fs::read_dir(&dir)
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        assert_eq!(files.len(), 1, "{files:?}");
        let text = std::fs::read_to_string(&files[0]).unwrap_or_default();
        assert!(
            text.contains("(assert") && text.contains("(check-sat)"),
            "{text}"
        );
        assert!(text.contains('*'), "{text}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_split_query_is_satisfiable_with_one_case_and_unsatisfiable_with_none() {
        // n ∈ {1, 2, 3}: n · x = 6 with x > 2 holds for n = 1 (x = 6) and n = 2 (x = 3), the
        // first case found is n = 1; n · x = 7 with 1 < x < 7 holds for no n.
        let mut s = Z3Session::new(Some(5_000), true);
        let ctx = s.ctx();
        let n = Int::new_const(ctx, "v0");
        let x = Int::new_const(ctx, "v1");
        let k = |i: i64| Int::from_i64(ctx, i);
        let domain = vec![n.ge(&k(1)), n.le(&k(3))];
        let times = |c: i64| Int::mul(ctx, &[&n, &x])._eq(&k(c));
        let mut six = domain.clone();
        six.extend([times(6), x.gt(&k(2))]);
        let (r, solved) = s.check_cases(&six, VarId(0), &[1, 2, 3]);
        assert_eq!(r, SatResult::Sat);
        let Some((solver, held)) = solved else {
            panic!("no model")
        };
        assert_eq!(held.len(), six.len() + 1);
        let model = solver.get_model().expect("a model");
        assert_eq!(model.eval(&n, true).and_then(|v| v.as_i64()), Some(1));
        assert_eq!(model.eval(&x, true).and_then(|v| v.as_i64()), Some(6));
        let mut seven = domain;
        seven.extend([times(7), x.gt(&k(1)), x.lt(&k(7))]);
        let (r, solved) = s.check_cases(&seven, VarId(0), &[1, 2, 3]);
        assert_eq!(r, SatResult::Unsat);
        assert!(solved.is_none());
    }

    #[test]
    fn the_resource_limit_applies_to_each_check_alone() {
        // Many small queries whose resource counts add up far beyond the limit: each is
        // answered by the incremental solver itself.
        let mut s = Z3Session::new(None, true);
        let x = var(VarId(0), Kind::Int);
        let y = var(VarId(1), Kind::Int);
        let bounds = app(Op::Gt, vec![x.clone(), int_const("1")]);
        for n in 0..1500 {
            let product = app(
                Op::Eq,
                vec![
                    app(Op::Mul, vec![x.clone(), y.clone()]),
                    int_const((2 * n + 4).to_string()),
                ],
            );
            let path = [bounds.clone(), product];
            assert_eq!(s.check_path(&path, n).ok(), Some(QueryOutcome::Sat));
        }
        let Some(solver) = &s.solver else {
            panic!("no solver")
        };
        let used = match solver.get_statistics().value("rlimit count") {
            Some(z3::StatisticsValue::UInt(u)) => u64::from(u),
            other => panic!("{other:?}"),
        };
        assert!(used > u64::from(INCREMENTAL_RLIMIT), "{used}");
        assert_eq!(s.stats().fresh_queries, 0);
    }

    #[test]
    fn rounded_money_is_checked_exactly_before_asking_z3() {
        let read = |s: &Z3Session, v: u32| match s.value(VarId(v), Kind::Int) {
            Some(ModelValue::Int(n)) => n.parse::<i64>().unwrap_or(0),
            other => panic!("{other:?}"),
        };
        let c = var(VarId(0), Kind::Int);
        let y = var(VarId(1), Kind::Int);
        // c > 12,345 alone: $200 (20,000 cents) or more keeps the path; no soft query.
        let mut s = Z3Session::new(None, true);
        let gt = app(Op::Gt, vec![c.clone(), int_const("12345")]);
        assert_eq!(s.check_path(&[gt], 0).ok(), Some(QueryOutcome::Sat));
        if read(&s, 0) % 10_000 != 0 {
            assert_eq!(
                s.round_money(&[VarId(0)]).ok(),
                Some(RoundnessLevel::Hundreds)
            );
            assert_eq!(s.stats().soft_queries, 0);
        }
        let v = read(&s, 0);
        assert!(v > 12_345 && v % 10_000 == 0, "{v}");
        // c = y + 1 with y > 5 and y < 100,000: rounding c needs another y, which only Z3
        // finds.
        let mut s = Z3Session::new(None, true);
        let path = [
            app(
                Op::Eq,
                vec![c.clone(), app(Op::Add, vec![y.clone(), int_const("1")])],
            ),
            app(Op::Gt, vec![y.clone(), int_const("5")]),
            app(Op::Lt, vec![y.clone(), int_const("100000")]),
        ];
        assert_eq!(s.check_path(&path, 0).ok(), Some(QueryOutcome::Sat));
        let (c0, y0) = (read(&s, 0), read(&s, 1));
        assert_eq!(c0, y0 + 1);
        if c0 % 10_000 != 0 {
            assert_eq!(
                s.round_money(&[VarId(0)]).ok(),
                Some(RoundnessLevel::Hundreds)
            );
            assert!(s.stats().soft_queries >= 1);
        }
        let (c1, y1) = (read(&s, 0), read(&s, 1));
        assert!(
            c1 % 10_000 == 0 && c1 == y1 + 1 && y1 > 5 && y1 < 100_000,
            "{c1} {y1}"
        );
    }

    #[test]
    fn z3_is_asked_for_round_amounts_at_the_hundreds_only() {
        // x = 12,340 + k cents with 0 ≤ k ≤ 1,000 (k not money): no multiple of $100 is
        // reachable, $130 is (k = 660), but only by moving k, which the exact check of a
        // candidate does not do; below the hundreds Z3 is not asked, so the two queries of
        // the hundreds are the only rounding queries.
        let mut s = Z3Session::new(None, true);
        let x = var(VarId(0), Kind::Int);
        let k = var(VarId(1), Kind::Int);
        let path = vec![
            app(Op::Ge, vec![k.clone(), int_const("0")]),
            app(Op::Le, vec![k.clone(), int_const("1000")]),
            app(Op::Eq, vec![x, app(Op::Add, vec![int_const("12340"), k])]),
        ];
        assert_eq!(s.check_path(&path, 0).ok(), Some(QueryOutcome::Sat));
        let level = s.round_money(&[VarId(0)]).ok();
        assert_ne!(level, Some(RoundnessLevel::Hundreds));
        assert!(s.stats().soft_queries <= 2, "{:?}", s.stats());
    }

    #[test]
    fn money_is_pulled_to_round_amounts() {
        // cents > 1_000_000 (i.e. more than $10,000): the refined model is a multiple of $100.
        let mut s = Z3Session::new(None, true);
        let c = var(VarId(3), Kind::Int);
        let gt = app(Op::Gt, vec![c, int_const("1000000")]);
        assert_eq!(s.check_path(&[gt], 0).ok(), Some(QueryOutcome::Sat));
        let level = s.round_money(&[VarId(3)]).ok();
        assert_eq!(level, Some(RoundnessLevel::Hundreds));
        let Some(ModelValue::Int(v)) = s.value(VarId(3), Kind::Int) else {
            panic!("no model value")
        };
        let v: i64 = v.parse().unwrap_or(0);
        assert!(v > 1_000_000 && v % 10_000 == 0, "{v}");
    }

    #[test]
    fn z3_numerals_are_read_back() {
        assert_eq!(parse_int_text("(- 12)").as_deref(), Some("-12"));
        assert_eq!(
            parse_real_text("(- (/ 1.0 3.0))"),
            Some(("-1".into(), "3".into()))
        );
    }
}
