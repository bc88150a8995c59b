//! The concolic engine's solver chain behind one facade: a path query (the globals and a path
//! condition) goes through the layers assembled by [`super::chain::assemble`] from a
//! [`ChainConfig`], within the budget of the query timeout, and the [`Answer`] names the
//! layer that gave it. After a satisfiable answer, [`CatalaSession::value`] reads the model of
//! whichever layer answered, and [`CatalaSession::round_money`] runs the model refiner
//! ([`super::refine`]) on a Z3 model: money inputs towards round amounts (Section 4.2 of the
//! paper), and the date inputs towards round dates when the configuration names them.

use super::chain::{assemble, ChainConfig, Layers};
use super::query::{
    Answer, Budget, EncodeError, Layer, ModelSource, ModelValue, PathQuery, QueryOutcome,
    RoundnessLevel,
};
use super::refine::ModelRefiner;
use super::stats::SessionStats;
use super::term::{Kind, Op, Term, TermNode, VarId};
use super::z3_base::{millis, SharedZ3, Z3Base};
use crate::layer::{SolverLayer, Verdict};
use std::collections::BTreeMap;

/// The solver chain of one concolic exploration.
pub struct CatalaSession {
    config: ChainConfig,
    layers: Layers,
    refiner: ModelRefiner,
    globals: Vec<Term>,
    /// The variables of the last path condition asked.
    path_vars: Vec<VarId>,
    /// The last path condition, when Z3 found its model (for the refiner).
    path: Vec<Term>,
    /// Variables whose only global constraints are constant bounds, with those bounds, and
    /// the variables of other global constraints.
    bounds: BTreeMap<VarId, (Option<i128>, Option<i128>)>,
    constrained: Vec<VarId>,
    model: Option<ModelSource>,
    stats: SessionStats,
    /// Declared last: the layers and the model above hold Z3 objects of its context.
    z3: SharedZ3,
}

impl CatalaSession {
    /// A chain of Z3 layers alone whose queries stop after `timeout_ms` (the whole query);
    /// `incremental` selects push/pop reuse. The layers before Z3 are off until enabled.
    pub fn new(timeout_ms: Option<u32>, incremental: bool) -> CatalaSession {
        CatalaSession::from_config(ChainConfig {
            query_timeout: millis(timeout_ms),
            incremental,
            ..ChainConfig::default()
        })
    }

    /// The chain `config` describes.
    pub fn from_config(config: ChainConfig) -> CatalaSession {
        let z3 = Z3Base::shared(config.query_timeout, config.stop.clone());
        CatalaSession {
            layers: assemble(&config, &z3),
            refiner: {
                let mut r = ModelRefiner::new(z3.clone());
                r.preferences = config.preferences.clone();
                r
            },
            config,
            globals: Vec::new(),
            path_vars: Vec::new(),
            path: Vec::new(),
            bounds: BTreeMap::new(),
            constrained: Vec::new(),
            model: None,
            stats: SessionStats::default(),
            z3,
        }
    }

    /// Assembles the chain again after a change of configuration (before the first query:
    /// the guesses' last inputs are not kept).
    fn reassemble(&mut self) {
        self.layers = assemble(&self.config, &self.z3);
    }

    pub fn stats(&self) -> SessionStats {
        let z3 = self.z3.borrow();
        SessionStats {
            soft_queries: self.refiner.soft_queries,
            soft_refuted: self.refiner.refuted,
            solver_time: z3.solver_time + self.refiner.time,
            fresh_queries: self.z3_layers().then.as_ref().map_or(0, |f| f.asked),
            ..self.stats
        }
    }

    fn z3_layers(&self) -> &super::chain::Z3Layers {
        &self.layers.then.then.then.then.then.inner
    }

    /// Answers the queries that [`super::finite::decide`] can decide without Z3, except those
    /// mentioning a variable of `kept` (e.g. money amounts, which Z3 then rounds).
    pub fn enable_fast_path(&mut self, kept: Vec<VarId>) {
        self.config.finite = Some(kept);
        self.reassemble();
    }

    /// Before asking Z3, looks for a model near the inputs given to [`CatalaSession::remember`]
    /// (money variables `money` at multiples of $100 first); only satisfiable queries can be
    /// answered this way.
    pub fn enable_guesses(&mut self, money: Vec<VarId>) {
        self.config.guesses = Some(money);
        self.reassemble();
    }

    /// Ends Z3's checks, in flight or to come, once `stop` is reached (the exploration's
    /// deadline, Ctrl-C): they answer unknown (call before the first query).
    pub fn stop_at(&mut self, stop: crate::Stop) {
        self.config.stop = stop.clone();
        self.z3.borrow_mut().stop = stop;
    }

    /// Whether the [`crate::Stop`] given to [`CatalaSession::stop_at`] is reached.
    pub fn stopped(&self) -> bool {
        self.config.stop.reached()
    }

    /// Writes the path queries Z3 gives up on to `dir` (see the `dump` wrapper of the chain).
    pub fn dump_unknown_to(&mut self, dir: std::path::PathBuf) {
        self.config.dump_unknown = Some(dir);
        self.reassemble();
    }

    /// Prefers the realistic ranges `prefs` in the answers of every layer (see
    /// [`super::prefer`]); Z3's models are moved into them by [`CatalaSession::round_money`].
    pub fn prefer_realistic(&mut self, prefs: super::prefer::Preferences) {
        self.refiner.preferences = prefs.clone();
        self.config.preferences = prefs;
        self.reassemble();
    }

    /// Prefers human-friendly values for the date variables `dates` (day numbers): January
    /// 1st, then the first day of a month, in the answers of every layer. Z3's dates are
    /// rounded by [`CatalaSession::round_money`].
    pub fn prefer_round_dates(&mut self, dates: Vec<VarId>) {
        self.config.round_dates = dates;
        self.reassemble();
    }

    /// Records the inputs of the run the next queries start from.
    pub fn remember(&mut self, inputs: impl IntoIterator<Item = (VarId, ModelValue)>) {
        let inputs: Vec<(VarId, ModelValue)> = inputs.into_iter().collect();
        if let Some(s) = &mut self.layers.then.first {
            s.remember(inputs.iter().cloned());
        }
        if let Some(g) = &mut self.layers.then.then.then.first {
            g.remember(inputs);
        }
    }

    /// Adds a constraint that holds in every query (input domains, input assertions).
    pub fn add_global(&mut self, t: &Term) -> Result<(), EncodeError> {
        self.note_bounds(t);
        self.globals.push(t.clone());
        Ok(())
    }

    /// Is the conjunction of the globals and `path` satisfiable? On `Sat`, the model is kept
    /// for [`CatalaSession::value`].
    pub fn check_path(&mut self, path: &[Term]) -> Result<QueryOutcome, EncodeError> {
        Ok(self.ask(path)?.outcome)
    }

    /// [`CatalaSession::check_path`], with the layer that answered.
    pub fn ask(&mut self, path: &[Term]) -> Result<Answer, EncodeError> {
        self.ask_within(path, Budget::within(self.config.query_timeout))
    }

    /// [`CatalaSession::ask`] within `budget` (instead of the query timeout).
    pub fn ask_within(&mut self, path: &[Term], budget: Budget) -> Result<Answer, EncodeError> {
        self.path_vars.clear();
        for t in path {
            t.collect_vars(&mut self.path_vars);
        }
        let terms: Vec<&Term> = self.globals.iter().chain(path).collect();
        let query = PathQuery::new(&terms, path, self.stats.path_queries, budget);
        let verdict = self.layers.decide(&query)?;
        let layer = query.answered_by().unwrap_or(Layer::Z3);
        let outcome = match verdict {
            Some(Verdict::Sat(source)) => {
                if matches!(source, ModelSource::Z3(_)) {
                    self.path.clear();
                    self.path.extend_from_slice(path);
                }
                self.model = Some(source);
                QueryOutcome::Sat
            }
            Some(Verdict::Unsat) => QueryOutcome::Unsat,
            Some(Verdict::Unknown) | None => QueryOutcome::Unknown,
        };
        self.stats.count(layer, outcome);
        Ok(Answer { outcome, layer })
    }

    /// After a satisfiable [`CatalaSession::check_path`]: the roundness of the money inputs
    /// `money_vars`, pulled towards multiples of $100, $10, $1 when Z3 gave the model (see
    /// the model refiner, `refine`), and the dates of the path towards round dates; a model found
    /// without Z3 is kept as it is.
    pub fn round_money(&mut self, money_vars: &[VarId]) -> Result<RoundnessLevel, EncodeError> {
        if let Some(ModelSource::Z3(m)) = &mut self.model {
            self.refiner.new_query();
            let terms: Vec<Term> = self.globals.iter().chain(&self.path).cloned().collect();
            let level = self.refiner.round_money(m, &terms, money_vars);
            // Dates outside the path are free: `value` gives them round values directly.
            let dates: Vec<VarId> = self
                .config
                .round_dates
                .iter()
                .copied()
                .filter(|v| self.path_vars.binary_search(v).is_ok())
                .collect();
            self.refiner.round_dates(m, &terms, &dates, money_vars);
            // Then into the realistic ranges; a soft query there may leave dates less round.
            if !self.config.preferences.is_empty()
                && self.refiner.prefer_realistic(
                    m,
                    &terms,
                    &self.path_vars,
                    &self.config.preferences,
                    money_vars,
                )
            {
                self.refiner.round_dates(m, &terms, &dates, money_vars);
            }
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
            ModelSource::Z3(m) => Some(self.free_date_rounded(v, m.value(v, kind)?)),
            ModelSource::Own(m) => Some(m.get(&v).cloned().unwrap_or(match kind {
                Kind::Bool => ModelValue::Bool(false),
                Kind::Int => ModelValue::Int(self.config.preferences.point(v).to_string()),
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

    /// A variable outside the last path condition, whose only global constraints are bounds,
    /// takes its preferred point when its value is outside its preferred range; a date
    /// variable then takes January 1st (or the first of the month) of its model value's year when
    /// that is within its bounds: any value satisfies the query.
    fn free_date_rounded(&self, v: VarId, value: ModelValue) -> ModelValue {
        use super::calendar::{round_dates_near, roundness, DateRoundness};
        let ModelValue::Int(text) = &value else {
            return value;
        };
        let Ok(z) = text.parse::<i128>() else {
            return value;
        };
        let free = self.path_vars.binary_search(&v).is_err()
            && self.constrained.binary_search(&v).is_err();
        let (lo, hi) = self.bounds.get(&v).copied().unwrap_or((None, None));
        let within = |x: &i128| lo.is_none_or(|l| *x >= l) && hi.is_none_or(|h| *x <= h);
        // Outside its preferred range and free: its preferred point.
        if let Some(p) = self.config.preferences.get(v) {
            if free && p.distance(z) > 0 && within(&p.point) {
                return ModelValue::Int(p.point.to_string());
            }
        }
        if roundness(z) == DateRoundness::YearStart
            || !self.config.round_dates.contains(&v)
            || self.path_vars.binary_search(&v).is_ok()
            || self.constrained.binary_search(&v).is_ok()
        {
            return value;
        }
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

#[cfg(test)]
pub(crate) mod tests;
