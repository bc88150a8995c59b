//! One worker of an exploration: the executor of the scope (a transformed copy of the
//! program run with the symbolic companion), its own solver chain, the searcher, and the leaf
//! hook of concolic testing ([`Worker::record_test`]: each path's test, its outcome taken from
//! the plain interpreter, counted and handed to the observers). The loop that drives it is
//! `crate::exploration_loop`; checkpoints, shards and resumption are its observers
//! (`crate::observers`), not fields of the worker.

use crate::checkpoint::Checkpoint;
use crate::executor::{Executor, PathExecutor};
use crate::inputs::{Assignment, InputSpace, Shape};
use crate::observers::{Checkpoints, Observers};
use crate::options::{EvaluationOrder, ExploreOptions};
use crate::replay::{compare, Agreement, PlainRuns};
use crate::results::{Control, Exploration, ExploreStats, Outcome, StopReason, TestCase};
use crate::searcher::{Coverage, DepthFirst, Node, Searcher};
use crate::symbolic::PathConstraint;
use crate::work_pool::WorkPool;
use crate::ConcolicError;
use catala_eval::runtime::json::value_from_json;
use catala_ir::dcalc::{Program, ScopeId};
use smt::catala::term::Term;
use smt::catala::{CatalaSession, RoundnessLevel};
use std::time::{Duration, Instant};

/// One explorer: a transformed copy of the program, its interpreter with the symbolic
/// companion, and its own Z3 session.
pub(crate) struct Worker<'p> {
    /// The plain interpreter of the program as given (Catala's order): each test's outcome is
    /// its run's.
    plain: PlainRuns<'p>,
    program: &'p Program,
    scope: ScopeId,
    pub(crate) options: &'p ExploreOptions,
    pub(crate) start: Instant,
    pub(crate) space: InputSpace,
    /// The inputs' names and units for problem conditions (with `keep_conditions`).
    condition_inputs: Option<std::sync::Arc<explain::Inputs>>,
    pub(crate) money_vars: Vec<smt::catala::VarId>,
    /// The solver chain.
    pub(crate) session: CatalaSession,
    /// Runs the scope with the symbolic companion.
    pub(crate) executor: Executor<'p>,
    pub(crate) tests: Vec<TestCase>,
    pub(crate) mismatches: Vec<(usize, String)>,
    /// The path queries asked when the last test was streamed (for `TestCase::queries`).
    queries_streamed: u64,
    /// The branch points and ways the runs so far went through.
    pub(crate) coverage: Coverage,
    /// Picks the node to negate next (depth-first with checkpoints).
    pub(crate) searcher: Box<dyn Searcher>,
    /// The realistic ranges of the input variables.
    preferences: smt::catala::Preferences,
    /// The outcome kind and roundness of the last test recorded (taken back from the figures
    /// of a checkpoint from which that test's run is done again).
    last_recorded: Option<(String, String)>,
}

/// The program as the exploration runs it: matches folded, exceptions packed, as the
/// optimizations say; definitions in CUTECat's order with [`EvaluationOrder::Paper`].
pub(crate) fn transform(program: &Program, options: &ExploreOptions) -> Program {
    let opt = options.optimizations;
    let mut p = program.clone();
    if opt.case_folding {
        crate::fold::fold_matches(&mut p);
    }
    if opt.exception_packing {
        crate::reorder::pack_exceptions(&mut p);
    }
    if options.order == EvaluationOrder::Paper {
        crate::reorder::cutecat_order(&mut p);
    }
    p
}

impl<'p> Worker<'p> {
    /// Takes up the figures of checkpoint `c`, after checking (when `check_variables`) that
    /// it was made for the input variables of this scope.
    pub(crate) fn take_up(
        &mut self,
        c: &Checkpoint,
        check_variables: bool,
        checkpoints: &mut Checkpoints,
        stats: &mut ExploreStats,
    ) -> Result<(), ConcolicError> {
        if check_variables && c.assignment.len() != self.space.vars.len() {
            return Err(ConcolicError::Resume(format!(
                "the checkpoint has {} variables, this scope {}",
                c.assignment.len(),
                self.space.vars.len()
            )));
        }
        *stats = ExploreStats::resumed(c);
        checkpoints.resume_from(c);
        Ok(())
    }

    /// A worker exploring `program` (the result of [`transform`] on `original`, which the
    /// replay check runs).
    pub(crate) fn new(
        original: &'p Program,
        program: &'p Program,
        scope: ScopeId,
        options: &'p ExploreOptions,
        start: Instant,
    ) -> Result<Worker<'p>, ConcolicError> {
        let opt = options.optimizations;
        let mut space = InputSpace::new(options.max_list_length);
        if let Some(hints) = &options.hints {
            space.raise_for_hints(program, scope, hints);
        }
        let executor = Executor::new(program, scope, opt, &mut space)?;
        let money_vars: Vec<_> = (0..space.vars.len())
            .filter(|i| space.vars[*i].is_money)
            .map(|i| smt::catala::VarId(i as u32))
            .collect();
        let mut chain = opt.solver_chain(&money_vars, &space.dates);
        chain.query_timeout = options
            .query_timeout
            .map(|t| t.max(Duration::from_millis(1)));
        chain.dump_unknown = options.dump_unknown.clone();
        chain.stop = smt::Stop {
            deadline: options.timeout.map(|t| start + t),
            flag: options.cancel.clone(),
        };
        // Realistic values first, where the paths leave the choice (a preference only).
        let realism = crate::inputs::realism::Realism::of(original, scope, options.date_range);
        let shapes: Vec<Shape> = executor.shapes.iter().flatten().cloned().collect();
        chain.preferences = realism.preferences(&shapes);
        let preferences = chain.preferences.clone();
        let mut session = CatalaSession::from_config(chain);
        for d in space.domains.iter().chain(&executor.input_space) {
            session.add_global(d)?;
        }
        let condition_inputs = options.keep_conditions.then(|| {
            std::sync::Arc::new(crate::condition_inputs::condition_inputs(
                program, &space, &shapes,
            ))
        });
        Ok(Worker {
            plain: PlainRuns::new(original, scope),
            condition_inputs,
            program,
            scope,
            options,
            start,
            space,
            money_vars,
            session,
            executor,
            tests: Vec::new(),
            mismatches: Vec::new(),
            queries_streamed: 0,
            coverage: Coverage::default(),
            searcher: if options.checkpoint_every.is_none() && options.resume.is_none() {
                options.strategy.searcher()
            } else {
                Box::new(DepthFirst)
            },
            last_recorded: None,
            preferences,
        })
    }

    /// The inputs of the first run: the preferred points of the realistic ranges (dates in
    /// the middle of the program's years), the defaults elsewhere, overridden by the hints.
    pub(crate) fn initial_assignment(&mut self) -> Result<Assignment, ConcolicError> {
        let mut assignment: Assignment = vec![None; self.space.vars.len()];
        for (v, point) in crate::inputs::realism::initial_points(&self.preferences) {
            if let Some(slot) = assignment.get_mut(v.0 as usize) {
                *slot = Some(smt::catala::ModelValue::Int(point.to_string()));
            }
        }
        if let Some(hints) = &self.options.hints {
            absorb_hints(
                self.program,
                self.scope,
                hints,
                &mut self.executor.shapes,
                &mut assignment,
            )?;
        }
        Ok(assignment)
    }

    /// The limit reached with `tests` tests found in all (those found before, `before`,
    /// included; `max_tests` counts the others).
    pub(crate) fn limit(&self, tests: usize, before: usize) -> Option<StopReason> {
        match self.options.max_tests {
            Some(m) if tests.saturating_sub(before) >= m => Some(StopReason::Tests(m)),
            _ => self.hard_stop(),
        }
    }

    /// The time limit passed or the cancel flag raised: the limits that interrupt the solver.
    pub(crate) fn hard_stop(&self) -> Option<StopReason> {
        if let Some(t) = self.options.timeout.filter(|t| self.start.elapsed() >= *t) {
            return Some(StopReason::Time(t));
        }
        if self
            .options
            .cancel
            .as_ref()
            .is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
        {
            return Some(StopReason::Interrupted);
        }
        None
    }

    pub(crate) fn limit_reached(
        &self,
        stats: &mut ExploreStats,
        tests: usize,
        before: usize,
    ) -> bool {
        match self.limit(tests, before) {
            Some(r) => {
                stats.stop_at(r);
                true
            }
            None => false,
        }
    }

    /// A checkpoint from which the run on `assignment`, whose test is the last recorded, is
    /// done again, its path's nodes marked as `done` says: for a stop that cannot wait for
    /// the next inputs. The figures leave that test out (it is found again, on the same
    /// path).
    pub(crate) fn checkpoint_rerun(
        &self,
        stats: &ExploreStats,
        saving: &Checkpoints,
        pool: &dyn WorkPool,
        assignment: &Assignment,
        done: Vec<bool>,
    ) -> Checkpoint {
        let mut c = self.checkpoint(stats, saving, pool, assignment, &[]);
        c.done = done;
        c.tests = c.tests.saturating_sub(1);
        if let Some((kind, roundness)) = &self.last_recorded {
            for (map, key) in [(&mut c.by_outcome, kind), (&mut c.by_roundness, roundness)] {
                if let Some(n) = map.get_mut(key) {
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        map.remove(key);
                    }
                }
            }
        }
        c
    }

    /// Counts, checks and hands out the test of one run; gives its index and the caller's
    /// answer.
    pub(crate) fn record_test(
        &mut self,
        pool: &dyn WorkPool,
        inputs: Vec<Option<catala_eval::runtime::Value>>,
        path: &[PathConstraint],
        (outcome, outside_input_space): (Outcome, bool),
        roundness: RoundnessLevel,
        obs: &mut Observers,
    ) -> (usize, Control) {
        let stats = &mut *obs.stats;
        let opt = self.options.optimizations;
        let index = pool.count_test() - 1;
        // The test's outcome is the plain run's on its inputs (Catala's order). A path ending
        // with outputs has the same outputs in any order: only checked.
        let outcome = if self.options.check || !matches!(outcome, Outcome::Ok(_)) {
            let plain = self.plain.outcome(&inputs);
            match compare(self.plain.program(), &outcome, &plain, opt.lazy_defaults) {
                Agreement::Same | Agreement::ErrorAfterAssertion => {}
                Agreement::LazyConflict => stats.relabelled += 1,
                Agreement::Differ(why) => {
                    stats.relabelled += 1;
                    if self.options.check {
                        self.mismatches.push((index, why));
                    }
                }
            }
            plain
        } else {
            outcome
        };
        *stats
            .by_outcome
            .entry(outcome.kind().to_string())
            .or_default() += 1;
        if outside_input_space && matches!(outcome, Outcome::Error(_)) {
            stats.outside_with_error += 1;
        }
        *stats
            .by_roundness
            .entry(format!("{roundness:?}"))
            .or_default() += 1;
        let asked = self.session.stats().path_queries;
        let queries = asked.saturating_sub(self.queries_streamed);
        self.queries_streamed = asked;
        // A run outside the input space has a path that stops at the input assertion it
        // fails: no condition of its outcome.
        let condition = match (&self.condition_inputs, &outcome) {
            _ if outside_input_space => None,
            (Some(names), Outcome::Error(_)) => {
                let terms: Vec<_> = path.iter().map(|c| c.term.clone()).collect();
                Some(explain::PathCase::of(&terms, names))
            }
            _ => None,
        };
        let test = TestCase {
            queries,
            inputs,
            outcome,
            constraints: if self.options.keep_constraints {
                path.iter().map(|c| c.term.to_string()).collect()
            } else {
                Vec::new()
            },
            condition,
            roundness,
            path: crate::path_id::PathId::of(path),
            found_at: self.start.elapsed(),
            outside_input_space,
        };
        let control = (obs.tests)(index, &test);
        stats.tests += 1;
        self.last_recorded = Some((test.outcome.kind().to_string(), format!("{roundness:?}")));
        if self.options.keep_tests {
            self.tests.push(test);
        }
        (index, control)
    }

    /// Lets the solver's guesses start from these inputs (the last run's).
    pub(crate) fn remember_inputs(&mut self, assignment: &Assignment) {
        if self.options.optimizations.guesses {
            self.session.remember(
                assignment
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| Some((smt::catala::VarId(i as u32), v.clone()?))),
            );
        }
    }

    /// The inputs of the current model (money rounded when soft constraints are on).
    pub(crate) fn model_inputs(
        &mut self,
        query: &[Term],
    ) -> Result<(Assignment, RoundnessLevel), ConcolicError> {
        let opt = self.options.optimizations;
        let mut roundness = if opt.soft_constraints {
            // Money variables outside the path are free: the model leaves them at 0.
            let in_path = variables_of(query);
            let constrained: Vec<_> = self
                .money_vars
                .iter()
                .copied()
                .filter(|v| in_path.contains(v))
                .collect();
            self.session.round_money(&constrained)?
        } else {
            RoundnessLevel::Cents
        };
        let assignment: Assignment = self
            .space
            .vars
            .iter()
            .enumerate()
            .map(|(i, v)| self.session.value(smt::catala::VarId(i as u32), v.kind))
            .collect();
        if !opt.soft_constraints {
            roundness = roundness_of(&assignment, &self.money_vars);
        }
        Ok((assignment, roundness))
    }

    /// The figures so far, with those of the explorations this one continues.
    pub(crate) fn figures(&self, stats: &ExploreStats, saving: &Checkpoints) -> Checkpoint {
        let s = self.session.stats();
        let (calls, soft, elapsed, solver_time) = saving.resumed_figures();
        Checkpoint {
            tests: stats.tests,
            solver_calls: calls + s.path_queries,
            soft_solver_calls: soft + s.soft_queries,
            elapsed: elapsed + self.start.elapsed(),
            solver_time: solver_time + s.solver_time,
            by_outcome: stats.by_outcome.clone(),
            by_roundness: stats.by_roundness.clone(),
            subtree: saving.shard_subtree.unwrap_or(0),
            lost_subtrees: saving.lost_subtrees.clone(),
            ..Checkpoint::default()
        }
    }

    /// The state before the run on `assignment`, whose path starts with `prefix`, with the
    /// subtrees waiting in `pool`.
    pub(crate) fn checkpoint(
        &self,
        stats: &ExploreStats,
        saving: &Checkpoints,
        pool: &dyn WorkPool,
        assignment: &Assignment,
        prefix: &[Node],
    ) -> Checkpoint {
        Checkpoint {
            assignment: assignment.clone(),
            done: prefix.iter().map(|n| n.done).collect(),
            pending: pool.waiting(),
            ..self.figures(stats, saving)
        }
    }

    /// The figures and tests of this worker.
    pub(crate) fn finish(
        self,
        mut stats: ExploreStats,
        stopped: bool,
        saving: &Checkpoints,
    ) -> Exploration {
        let s = self.session.stats();
        let (calls, soft, elapsed, solver_time) = saving.resumed_figures();
        stats.solver_calls = calls + s.path_queries;
        stats.soft_solver_calls = soft + s.soft_queries;
        stats.queries_without_z3 = s.fast_queries;
        stats.guessed_queries = s.guessed_queries;
        stats.fresh_queries = s.fresh_queries;
        stats.solver_time = solver_time + s.solver_time;
        stats.time = elapsed + self.start.elapsed();
        let incomplete: Vec<String> = self.executor.incomplete().iter().cloned().collect();
        // Concrete-only operations or runs leaving their prefix may hide paths.
        stats.complete = stats.complete
            && !stopped
            && incomplete.is_empty()
            && stats.divergences == 0
            && stats.unknown_queries == 0;
        Exploration {
            tests: self.tests,
            stats,
            incomplete,
            replay_mismatches: self.mismatches,
        }
    }
}

/// The variables of some terms (shared subterms visited once).
fn variables_of(terms: &[Term]) -> std::collections::BTreeSet<smt::catala::VarId> {
    let mut seen: std::collections::HashSet<*const smt::catala::TermNode> = Default::default();
    let mut out = std::collections::BTreeSet::new();
    let mut todo: Vec<&Term> = terms.iter().collect();
    while let Some(t) = todo.pop() {
        if !seen.insert(std::rc::Rc::as_ptr(t)) {
            continue;
        }
        match &**t {
            smt::catala::TermNode::Var(v, _) => {
                out.insert(*v);
            }
            smt::catala::TermNode::App(_, args) => todo.extend(args.iter()),
            _ => {}
        }
    }
    out
}

pub(crate) fn roundness_of(a: &Assignment, money: &[smt::catala::VarId]) -> RoundnessLevel {
    let cents = |v: &smt::catala::VarId| match a.get(v.0 as usize) {
        Some(Some(smt::catala::ModelValue::Int(s))) => s.parse::<i128>().unwrap_or(1),
        _ => 0,
    };
    if money.iter().all(|v| cents(v) % 10_000 == 0) {
        RoundnessLevel::Hundreds
    } else if money.iter().all(|v| cents(v) % 1_000 == 0) {
        RoundnessLevel::Tens
    } else if money.iter().all(|v| cents(v) % 100 == 0) {
        RoundnessLevel::Units
    } else {
        RoundnessLevel::Cents
    }
}

fn absorb_hints(
    program: &Program,
    scope: ScopeId,
    hints: &serde_json::Value,
    shapes: &mut [Option<Shape>],
    assignment: &mut Assignment,
) -> Result<(), ConcolicError> {
    let decl = program.scope(scope);
    let serde_json::Value::Object(given) = hints else {
        return Err(ConcolicError::Hints("expected a JSON object".into()));
    };
    for key in given.keys() {
        if !decl.inputs.iter().any(|i| &i.name == key) {
            return Err(ConcolicError::Hints(format!(
                "scope {} has no input {key}",
                decl.name
            )));
        }
    }
    // Each given input is read on its own: the others keep their default values.
    for (idx, input) in decl.inputs.iter().enumerate() {
        let Some(j) = given.get(&input.name) else {
            continue;
        };
        let path = format!("/{}", input.name);
        let value = value_from_json(program, &input.ty, j, &path)
            .map_err(|e| ConcolicError::Hints(format!("{}: {}", e.path, e.message)))?;
        if let Some(Some(shape)) = shapes.get_mut(idx) {
            shape.absorb(&value, assignment);
        }
    }
    Ok(())
}
