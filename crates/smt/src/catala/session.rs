//! The concolic engine's solver chain: a path query (the globals and a path condition) goes
//! through the layers of [`crate::layer`] in order: exact answers without Z3 for the simplest
//! conditions ([`FiniteAnswers`]), models guessed near the last inputs ([`Guesses`]), and the
//! [`Z3Session`] with its incremental push/pop stack. Each of the first two can be switched off
//! (`--optim fast`, `--optim guess`). After a satisfiable answer, [`CatalaSession::value`]
//! reads the model of whichever layer answered, and [`CatalaSession::round_money`] pulls the
//! money inputs of a Z3 model towards round amounts (Section 4.2 of the paper), and the date
//! inputs towards round dates when [`CatalaSession::prefer_round_dates`] names them.

use super::finite::FiniteAnswers;
use super::guess::Guesses;
use super::term::{Kind, Op, Term, TermNode, VarId};
use crate::layer::{Chain, SolverLayer, Verdict};
use std::collections::BTreeMap;

pub use super::z3_session::{
    EncodeError, ModelValue, QueryOutcome, RoundnessLevel, SessionStats, Z3Session,
};

/// One path query as the layers see it.
pub struct PathQuery<'a> {
    /// The globals (input domains, assertions), then the path condition.
    pub terms: &'a [&'a Term],
    /// The path condition alone (the Z3 session keeps the globals asserted below it).
    pub path: &'a [Term],
    /// Path queries of the exploration before this one.
    pub asked: u64,
}

/// Where the model of a satisfiable answer is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelSource {
    /// In the Z3 session.
    Z3,
    /// Found without Z3: a value for every variable that occurs (the others are free).
    Own(BTreeMap<VarId, ModelValue>),
}

/// The layers in the order they are asked.
type Layers = Chain<Option<FiniteAnswers>, Chain<Option<Guesses>, Z3Session>>;

/// The solver chain of one concolic exploration.
pub struct CatalaSession {
    layers: Layers,
    globals: Vec<Term>,
    /// Date variables (day numbers), pulled towards round dates.
    dates: Vec<VarId>,
    /// The variables of the last path condition asked.
    path_vars: Vec<VarId>,
    /// Variables whose only global constraints are constant bounds, with those bounds, and
    /// the variables of other global constraints.
    bounds: BTreeMap<VarId, (Option<i128>, Option<i128>)>,
    constrained: Vec<VarId>,
    model: Option<ModelSource>,
    path_queries: u64,
    answered_without_z3: u64,
}

impl CatalaSession {
    /// A chain ending in a Z3 session whose checks stop after `timeout_ms`; `incremental`
    /// selects push/pop reuse. The layers before Z3 are off until enabled.
    pub fn new(timeout_ms: Option<u32>, incremental: bool) -> CatalaSession {
        CatalaSession {
            layers: Chain {
                first: None,
                then: Chain {
                    first: None,
                    then: Z3Session::new(timeout_ms, incremental),
                },
            },
            globals: Vec::new(),
            dates: Vec::new(),
            path_vars: Vec::new(),
            bounds: BTreeMap::new(),
            constrained: Vec::new(),
            model: None,
            path_queries: 0,
            answered_without_z3: 0,
        }
    }

    fn z3(&mut self) -> &mut Z3Session {
        &mut self.layers.then.then
    }

    pub fn stats(&self) -> SessionStats {
        let z3 = self.layers.then.then.stats();
        SessionStats {
            path_queries: self.path_queries,
            soft_queries: z3.soft_queries,
            solver_time: z3.solver_time,
            fast_queries: self.answered_without_z3,
            guessed_queries: self.layers.then.first.as_ref().map_or(0, |g| g.found),
            fresh_queries: z3.fresh_queries,
        }
    }

    /// Answers the queries that [`super::finite::decide`] can decide without Z3, except those
    /// mentioning a variable of `kept` (e.g. money amounts, which Z3 then rounds).
    pub fn enable_fast_path(&mut self, kept: Vec<VarId>) {
        self.layers.first = Some(FiniteAnswers::new(kept));
    }

    /// Before asking Z3, looks for a model near the inputs given to [`CatalaSession::remember`]
    /// (money variables `money` only at multiples of $100); only satisfiable queries can be
    /// answered this way.
    pub fn enable_guesses(&mut self, money: Vec<VarId>) {
        self.layers.then.first = Some(Guesses::new(money));
    }

    /// Ends Z3's checks, in flight or to come, once `stop` is reached (the exploration's
    /// deadline, Ctrl-C): they answer unknown (see [`Z3Session::stop_at`]).
    pub fn stop_at(&mut self, stop: crate::Stop) {
        self.z3().stop_at(stop);
    }

    /// Whether the [`crate::Stop`] given to [`CatalaSession::stop_at`] is reached.
    pub fn stopped(&self) -> bool {
        self.layers.then.then.stopped()
    }

    /// Writes the path queries Z3 gives up on to `dir` (see [`Z3Session::dump_unknown_to`]).
    pub fn dump_unknown_to(&mut self, dir: std::path::PathBuf) {
        self.z3().dump_unknown_to(dir);
    }

    /// Prefers human-friendly values for the date variables `dates` (day numbers): January
    /// 1st, then the first day of a month, in the answers of every layer (call after enabling
    /// the layers). Z3's dates are rounded by [`CatalaSession::round_money`].
    pub fn prefer_round_dates(&mut self, dates: Vec<VarId>) {
        if let Some(f) = &mut self.layers.first {
            f.dates = dates.clone();
        }
        if let Some(g) = &mut self.layers.then.first {
            g.dates = dates.clone();
        }
        self.dates = dates;
    }

    /// Records the inputs of the run the next queries start from.
    pub fn remember(&mut self, inputs: impl IntoIterator<Item = (VarId, ModelValue)>) {
        if let Some(g) = &mut self.layers.then.first {
            g.remember(inputs);
        }
    }

    /// Adds a constraint that holds in every query (input domains, input assertions).
    pub fn add_global(&mut self, t: &Term) -> Result<(), EncodeError> {
        self.note_bounds(t);
        self.globals.push(t.clone());
        self.z3().add_global(t)
    }

    /// Is the conjunction of the globals and `path` satisfiable? On `Sat`, the model is kept
    /// for [`CatalaSession::value`].
    pub fn check_path(&mut self, path: &[Term]) -> Result<QueryOutcome, EncodeError> {
        self.path_vars.clear();
        for t in path {
            t.collect_vars(&mut self.path_vars);
        }
        let terms: Vec<&Term> = self.globals.iter().chain(path).collect();
        let query = PathQuery {
            terms: &terms,
            path,
            asked: self.path_queries,
        };
        let z3_before = self.layers.then.then.stats().path_queries;
        let verdict = self.layers.decide(&query)?;
        self.path_queries += 1;
        if self.layers.then.then.stats().path_queries == z3_before {
            self.answered_without_z3 += 1;
        }
        Ok(match verdict {
            Some(Verdict::Sat(source)) => {
                self.model = Some(source);
                QueryOutcome::Sat
            }
            Some(Verdict::Unsat) => QueryOutcome::Unsat,
            Some(Verdict::Unknown) | None => QueryOutcome::Unknown,
        })
    }

    /// After a satisfiable [`CatalaSession::check_path`]: the roundness of the money inputs
    /// `money_vars`, pulled towards multiples of $100, $10, $1 when Z3 gave the model (see
    /// [`Z3Session::round_money`]); a model found without Z3 is kept as it is.
    pub fn round_money(&mut self, money_vars: &[VarId]) -> Result<RoundnessLevel, EncodeError> {
        if self.model == Some(ModelSource::Z3) {
            let level = self.z3().round_money(money_vars)?;
            // Dates outside the path are free: `value` gives them round values directly.
            let dates: Vec<VarId> = self
                .dates
                .iter()
                .copied()
                .filter(|v| self.path_vars.binary_search(v).is_ok())
                .collect();
            self.z3().round_dates(&dates, money_vars)?;
            return Ok(level);
        }
        if money_vars.is_empty() {
            return Ok(RoundnessLevel::Hundreds);
        }
        let current: Option<Vec<i128>> = money_vars
            .iter()
            .map(|v| match self.value(*v, Kind::Int) {
                Some(ModelValue::Int(s)) => s.parse::<i128>().ok(),
                _ => None,
            })
            .collect();
        Ok(current.map_or(RoundnessLevel::Cents, |c| RoundnessLevel::of_cents(&c)))
    }

    /// The value of a variable in the last model (completed with defaults when unconstrained).
    pub fn value(&self, v: VarId, kind: Kind) -> Option<ModelValue> {
        match self.model.as_ref()? {
            ModelSource::Z3 => {
                let value = self.layers.then.then.value(v, kind);
                Some(self.free_date_rounded(v, value?))
            }
            ModelSource::Own(m) => Some(m.get(&v).cloned().unwrap_or(match kind {
                Kind::Bool => ModelValue::Bool(false),
                Kind::Int => ModelValue::Int("0".into()),
                Kind::Real => ModelValue::Real("0".into(), "1".into()),
            })),
        }
    }
}

impl CatalaSession {
    /// Records the constant bounds a global constraint puts on one variable (`lo ≤ v ≤ hi`,
    /// as the input domains are written); the variables of any other global are constrained.
    fn note_bounds(&mut self, t: &Term) {
        let bound = |b: &Term| -> Option<(VarId, Op, i128)> {
            match &**b {
                TermNode::App(op @ (Op::Ge | Op::Le), args) if args.len() == 2 => {
                    match (&*args[0], &*args[1]) {
                        (TermNode::Var(v, Kind::Int), TermNode::Int(c)) => {
                            Some((*v, *op, c.parse().ok()?))
                        }
                        _ => None,
                    }
                }
                _ => None,
            }
        };
        let parts: Vec<Term> = match &**t {
            TermNode::App(Op::And, args) => args.clone(),
            _ => vec![t.clone()],
        };
        let found: Option<Vec<(VarId, Op, i128)>> = parts.iter().map(bound).collect();
        match found {
            Some(found) => {
                for (v, op, c) in found {
                    let entry = self.bounds.entry(v).or_insert((None, None));
                    if op == Op::Ge {
                        entry.0 = Some(entry.0.map_or(c, |x| x.max(c)));
                    } else {
                        entry.1 = Some(entry.1.map_or(c, |x| x.min(c)));
                    }
                }
            }
            None => t.collect_vars(&mut self.constrained),
        }
    }

    /// A date variable outside the last path condition, whose only global constraints are
    /// bounds, takes January 1st (or the first of the month) of its model value's year when
    /// that is within its bounds: any value satisfies the query.
    fn free_date_rounded(&self, v: VarId, value: ModelValue) -> ModelValue {
        use super::calendar::{round_dates_near, roundness, DateRoundness};
        let ModelValue::Int(text) = &value else {
            return value;
        };
        let Ok(z) = text.parse::<i128>() else {
            return value;
        };
        if roundness(z) == DateRoundness::YearStart
            || !self.dates.contains(&v)
            || self.path_vars.binary_search(&v).is_ok()
            || self.constrained.binary_search(&v).is_ok()
        {
            return value;
        }
        let (lo, hi) = self.bounds.get(&v).copied().unwrap_or((None, None));
        let within = |x: &i128| lo.is_none_or(|l| *x >= l) && hi.is_none_or(|h| *x <= h);
        // January 1st of its year, then the first of its month.
        match [0, 2]
            .iter()
            .filter_map(|i| round_dates_near(z).get(*i).copied())
            .find(within)
        {
            Some(r) => ModelValue::Int(r.to_string()),
            None => value,
        }
    }
}

impl<'a> SolverLayer<PathQuery<'a>> for Z3Session {
    type Model = ModelSource;
    type Error = EncodeError;

    fn decide(&mut self, q: &PathQuery<'a>) -> Result<Option<Verdict<ModelSource>>, EncodeError> {
        Ok(Some(match self.check_path(q.path, q.asked)? {
            QueryOutcome::Sat => Verdict::Sat(ModelSource::Z3),
            QueryOutcome::Unsat => Verdict::Unsat,
            QueryOutcome::Unknown => Verdict::Unknown,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::term::{app, int_const, var, Op};

    #[test]
    fn simple_queries_are_answered_before_z3_and_the_rest_by_z3() {
        let mut s = CatalaSession::new(None, true);
        s.enable_fast_path(Vec::new());
        let x = var(VarId(0), Kind::Int);
        let y = var(VarId(1), Kind::Int);
        // one variable against a constant: the finite layer
        let simple = app(Op::Gt, vec![x.clone(), int_const("3")]);
        assert_eq!(s.check_path(&[simple]).ok(), Some(QueryOutcome::Sat));
        assert!(matches!(s.value(VarId(0), Kind::Int), Some(ModelValue::Int(v)) if v == "4"));
        // two variables in one comparison: Z3
        let two = app(Op::Gt, vec![x, y]);
        assert_eq!(s.check_path(&[two]).ok(), Some(QueryOutcome::Sat));
        let st = s.stats();
        assert_eq!((st.path_queries, st.fast_queries), (2, 1));
    }
}
