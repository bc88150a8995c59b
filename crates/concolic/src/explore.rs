//! Concolic exploration of one scope (Section 3 of the paper), joining KLEE's three parts: the
//! [`crate::executor`] runs the scope on concrete inputs with the symbolic companion, which
//! yields the path condition; the [`crate::searcher`] picks the constraint to negate next
//! (depth-first: the last one not yet negated); the solver chain (`smt::catala::session`)
//! gives inputs satisfying the prefix and the negation, and the next run starts from them. The
//! exploration ends when every constraint of the current path has been negated (all feasible
//! paths covered), or at a limit (time, tests, Ctrl-C: a solver check in flight is then
//! interrupted), which the result names in `incomplete` with what it leaves unexplored. The runs
//! evaluate the definitions in Catala's order (the paper's with [`EvaluationOrder::Paper`]).
//! Every path found becomes a [`TestCase`] whose outcome is the plain interpreter's on its
//! inputs, in Catala's order, as `lexprobe run` gives it ([`crate::replay`]); with `check`,
//! the outcome of each path as explored must be that one.
//! Searchers that negate a shallower constraint first (new branches first, coverage-guided)
//! set the open constraints below it aside as subtrees (solved for now, explored later): the
//! same paths, in another order.

use crate::checkpoint::Checkpoint;
use crate::executor::{Executor, Run};
use crate::inputs::{Assignment, InputSpace, Shape};
pub use crate::options::{EvaluationOrder, ExploreOptions, Optimizations, Strategy};
use crate::replay::{compare, Agreement, PlainRuns};
pub use crate::results::{Control, Exploration, ExploreStats, Outcome, StopReason, TestCase};
use crate::searcher::{Coverage, DepthFirst, Node, Searcher, Solo};
pub(crate) use crate::searcher::{Task, WorkPool};
use crate::symbolic::PathConstraint;
use crate::ConcolicError;
use catala_eval::runtime::json::value_from_json;
use catala_ir::dcalc::{Program, ScopeId};
use smt::catala::term::{self, Term};
use smt::catala::{CatalaSession, QueryOutcome, RoundnessLevel};
use std::time::{Duration, Instant};

/// Explores every path of `scope`.
pub fn explore(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
) -> Result<Exploration, ConcolicError> {
    explore_with(program, scope, options, &mut |_, _| Control::Continue)
}

/// Explores every path of `scope`, handing each test to `on_test` (with its index) as soon as
/// it is found; `on_test` may stop the exploration.
pub fn explore_with(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
) -> Result<Exploration, ConcolicError> {
    explore_checkpointed(program, scope, options, on_test, &mut |_| {})
}

/// [`explore_with`], continuing from `options.resume` when given, and handing a
/// [`Checkpoint`] to `on_checkpoint` every `options.checkpoint_every` and when a limit stops
/// the exploration. The figures of a resumed exploration include those of the checkpoint.
pub fn explore_checkpointed(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
    on_checkpoint: &mut dyn FnMut(&Checkpoint),
) -> Result<Exploration, ConcolicError> {
    let pool = Solo::default();
    let start = Instant::now();
    let transformed = transform(program, options);
    let mut worker = Worker::new(program, &transformed, scope, options, start)?;
    let first = match &options.resume {
        Some(c) => {
            worker.take_up(c, true)?;
            pool.tests.set(c.tests);
            c.assignment.clone()
        }
        None => worker.initial_assignment()?,
    };
    worker.run_checkpointed(Some((first, 0)), &pool, on_test, on_checkpoint)?;
    let mut e = worker.finish(pool.stopped.get());
    conclude(&mut e);
    Ok(e)
}

/// Adds to `incomplete` what keeps the exploration from being complete (see
/// [`ExploreStats::gaps`]); `complete` holds only when `incomplete` is empty.
pub(crate) fn conclude(e: &mut Exploration) {
    e.incomplete.extend(e.stats.gaps());
    e.stats.complete &= e.incomplete.is_empty();
}

/// One explorer: a transformed copy of the program, its interpreter with the symbolic
/// companion, and its own Z3 session.
pub(crate) struct Worker<'p> {
    /// The plain interpreter of the program as given (Catala's order): each test's outcome is
    /// its run's.
    plain: PlainRuns<'p>,
    program: &'p Program,
    scope: ScopeId,
    options: &'p ExploreOptions,
    start: Instant,
    pub(crate) space: InputSpace,
    money_vars: Vec<smt::catala::VarId>,
    /// The solver chain.
    pub(crate) session: CatalaSession,
    /// Runs the scope with the symbolic companion.
    pub(crate) executor: Executor<'p>,
    pub(crate) tests: Vec<TestCase>,
    pub(crate) stats: ExploreStats,
    pub(crate) mismatches: Vec<(usize, String)>,
    /// The checkpoint this exploration continues (its figures).
    pub(crate) resumed: Option<Checkpoint>,
    /// The done flags of the checkpoint, for the first run of the first subtree explored.
    pub(crate) resume_flags: Option<Vec<bool>>,
    /// In a shard: the position of the subtree being explored in the shard's list; the
    /// checkpoints then hold it and are written at any depth.
    pub(crate) shard_subtree: Option<usize>,
    /// In a shard: the positions of the subtrees done so far that could not be explored
    /// entirely (kept in checkpoints).
    pub(crate) lost_subtrees: Vec<usize>,
    pub(crate) last_checkpoint: Instant,
    /// The path queries asked when the last test was streamed (for `TestCase::queries`).
    queries_streamed: u64,
    /// The branch points and ways the runs so far went through.
    coverage: Coverage,
    /// Picks the node to negate next (depth-first with checkpoints: the subtrees other
    /// searchers set aside are not in them).
    searcher: Box<dyn Searcher>,
    /// The outcome kind and roundness of the last test recorded (taken back from the figures
    /// of a checkpoint from which that test's run is done again).
    last_recorded: Option<(String, String)>,
}

/// The program as the exploration runs it: matches folded, exceptions packed, as the
/// optimizations say; definitions in CUTECat's order with [`EvaluationOrder::Paper`].
pub(crate) fn transform(program: &Program, options: &ExploreOptions) -> Program {
    let opt = options.optimizations;
    let folded;
    let program = if opt.case_folding {
        folded = crate::fold::fold_matches(program);
        &folded
    } else {
        program
    };
    let packed;
    let program = if opt.exception_packing {
        packed = crate::reorder::pack_exceptions(program);
        &packed
    } else {
        program
    };
    match options.order {
        EvaluationOrder::Catala => program.clone(),
        EvaluationOrder::Paper => crate::reorder::cutecat_order(program),
    }
}

impl<'p> Worker<'p> {
    /// Takes up the figures and the done flags of checkpoint `c`, after checking (when
    /// `check_variables`) that it was made for the input variables of this scope.
    pub(crate) fn take_up(
        &mut self,
        c: &Checkpoint,
        check_variables: bool,
    ) -> Result<(), ConcolicError> {
        if check_variables && c.assignment.len() != self.space.vars.len() {
            return Err(ConcolicError::Resume(format!(
                "the checkpoint has {} variables, this scope {}",
                c.assignment.len(),
                self.space.vars.len()
            )));
        }
        self.stats.tests = c.tests;
        self.stats.by_outcome = c.by_outcome.clone();
        self.stats.by_roundness = c.by_roundness.clone();
        self.resumed = Some(c.clone());
        self.resume_flags = Some(c.done.clone());
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
        let mut session = CatalaSession::from_config(chain);
        for d in &space.domains {
            session.add_global(d)?;
        }
        Ok(Worker {
            plain: PlainRuns::new(original, scope),
            program,
            scope,
            options,
            start,
            space,
            money_vars,
            session,
            executor,
            tests: Vec::new(),
            stats: ExploreStats::default(),
            mismatches: Vec::new(),
            resumed: None,
            resume_flags: None,
            shard_subtree: None,
            lost_subtrees: Vec::new(),
            last_checkpoint: start,
            queries_streamed: 0,
            coverage: Coverage::default(),
            searcher: if options.checkpoint_every.is_none() && options.resume.is_none() {
                options.strategy.searcher()
            } else {
                Box::new(DepthFirst)
            },
            last_recorded: None,
        })
    }

    /// The inputs of the first run: defaults, overridden by the hints.
    pub(crate) fn initial_assignment(&mut self) -> Result<Assignment, ConcolicError> {
        let mut assignment: Assignment = vec![None; self.space.vars.len()];
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

    /// The limit reached with `tests` tests found in all (those of the checkpoint resumed
    /// included; `max_tests` counts the others).
    pub(crate) fn limit(&self, tests: usize) -> Option<StopReason> {
        let before = self.resumed.as_ref().map_or(0, |c| c.tests);
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

    /// Stops at `reason` (the first reason given is kept).
    pub(crate) fn stop_at(&mut self, reason: StopReason) {
        self.stats.stopped_by.get_or_insert(reason);
    }

    pub(crate) fn limit_reached(&mut self, tests: usize) -> bool {
        match self.limit(tests) {
            Some(r) => {
                self.stop_at(r);
                true
            }
            None => false,
        }
    }

    /// Whether checkpoints are written from this subtree.
    fn checkpoints_here(&self, floor: usize) -> bool {
        self.options.checkpoint_every.is_some() && (floor == 0 || self.shard_subtree.is_some())
    }

    /// A checkpoint from which the run on `assignment`, whose test is the last recorded, is
    /// done again, its path's nodes marked as `done` says: for a stop that cannot wait for
    /// the next inputs. The figures leave that test out (it is found again, on the same
    /// path).
    fn checkpoint_rerun(&self, assignment: &Assignment, done: Vec<bool>) -> Checkpoint {
        let mut c = self.checkpoint(assignment, &[]);
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

    /// Explores depth-first the subtrees of `first` and then of the tasks the pool hands out,
    /// until the pool has no more or a limit is reached. Sets `stats.complete` when this worker
    /// ran out of work without being stopped.
    pub(crate) fn run(
        &mut self,
        first: Option<Task>,
        pool: &dyn WorkPool,
        on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
    ) -> Result<(), ConcolicError> {
        self.run_checkpointed(first, pool, on_test, &mut |_| {})
    }

    fn run_checkpointed(
        &mut self,
        first: Option<Task>,
        pool: &dyn WorkPool,
        on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
        on_checkpoint: &mut dyn FnMut(&Checkpoint),
    ) -> Result<(), ConcolicError> {
        let mut task = first.or_else(|| pool.take());
        while let Some((assignment, floor)) = task {
            if !self.explore_subtree(assignment, floor, pool, on_test, on_checkpoint)? {
                pool.stop();
                return Ok(());
            }
            task = pool.take();
        }
        self.stats.complete = !pool.is_stopped();
        Ok(())
    }

    /// Depth-first exploration below `floor` starting from `assignment`. Returns false when
    /// the exploration must end (a limit, or the caller).
    pub(crate) fn explore_subtree(
        &mut self,
        mut assignment: Assignment,
        floor: usize,
        pool: &dyn WorkPool,
        on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
        on_checkpoint: &mut dyn FnMut(&Checkpoint),
    ) -> Result<bool, ConcolicError> {
        let mut resumed_done = self.resume_flags.take();
        // Set when a limit is reached: the next inputs are still solved for, to checkpoint.
        let mut stopping = false;
        let mut prefix: Vec<Node> = Vec::new();
        // Early-conflict lemmas: (p, ¬χ') holds for queries negating a node at position p or
        // later, as long as the first p nodes of the stack stay (Fig. 10).
        let mut lemmas: Vec<(usize, Term)> = Vec::new();
        let mut roundness = roundness_of(&assignment, &self.money_vars);
        loop {
            if pool.is_stopped() {
                return Ok(false);
            }
            if let Some(reason) = self.hard_stop() {
                // The next inputs are known: the checkpoint is the state before their run.
                self.stop_at(reason);
                if self.checkpoints_here(floor) && !stopping {
                    let done = match &resumed_done {
                        Some(flags) => flags.clone(),
                        None => prefix.iter().map(|n| n.done).collect(),
                    };
                    let mut c = self.checkpoint(&assignment, &[]);
                    c.done = done;
                    self.last_checkpoint = Instant::now();
                    on_checkpoint(&c);
                }
                return Ok(false);
            }
            self.remember_inputs(&assignment);
            let Run {
                inputs,
                path,
                outcome,
                lemmas: learnt,
            } = self.executor.run(&assignment);
            if !learnt.is_empty() {
                self.stats.early_lemmas += learnt.len();
                lemmas.extend(learnt);
                lemmas.sort_by_key(|(p, _)| *p);
            }
            let (index, control) =
                self.record_test(pool, inputs, &path, outcome, roundness, on_test);
            if control == Control::Stop {
                self.stop_at(StopReason::Caller);
                return Ok(false);
            }
            match self.limit(index + 1) {
                None => {}
                Some(reason @ StopReason::Tests(_)) => {
                    self.stop_at(reason);
                    if !self.checkpoints_here(floor) {
                        return Ok(false);
                    }
                    // The next inputs are solved for, to checkpoint the state before their
                    // run.
                    stopping = true;
                }
                Some(reason) => {
                    // Time or Ctrl-C: no more queries; this run is done again on resumption.
                    self.stop_at(reason);
                    if self.checkpoints_here(floor) {
                        let done = match &resumed_done {
                            Some(flags) => flags.clone(),
                            None => prefix.iter().map(|n| n.done).collect(),
                        };
                        let c = self.checkpoint_rerun(&assignment, done);
                        self.last_checkpoint = Instant::now();
                        on_checkpoint(&c);
                    }
                    return Ok(false);
                }
            }
            // The new branch stack: the prefix keeps its flags, new constraints are open;
            // constraints above the floor belong to the worker that handed this subtree out.
            let mut stack: Vec<Node> = Vec::with_capacity(path.len());
            for (i, c) in path.into_iter().enumerate() {
                // Constraints above the floor are never negated here, whatever the flags.
                let done = match (&resumed_done, prefix.get(i)) {
                    (Some(flags), _) => flags.get(i).copied().unwrap_or(false),
                    (None, Some(p)) => {
                        if p.term != c.term {
                            self.stats.divergences += 1;
                        }
                        p.done
                    }
                    (None, None) => false,
                } || i < floor;
                self.coverage.record(c.span, c.way);
                stack.push(Node {
                    term: c.term,
                    done: done || c.fixed,
                    other_way: Some((c.span, c.way ^ 1)),
                });
            }
            resumed_done = None;
            loop {
                if pool.hungry() {
                    self.share(&mut stack, &lemmas, floor, pool)?;
                }
                let Some(pick) = self
                    .searcher
                    .pick(&stack, &self.coverage, !lemmas.is_empty())
                else {
                    if stopping {
                        // The test limit came with the last path of this subtree: it cut
                        // nothing here.
                        self.stats.stopped_by = None;
                    }
                    return Ok(true);
                };
                let i = pick.negate;
                if pick.set_aside_below {
                    self.hand_out_below(&mut stack, i, pool)?;
                }
                // The flags of the path before this negation (depth-first: the nodes below
                // `i` are done), for a checkpoint at a stop during the query.
                let below = stack.len() - i - 1;
                stack.truncate(i + 1);
                let negated = term::not(&stack[i].term);
                stack[i] = Node {
                    term: negated,
                    done: true,
                    other_way: None,
                };
                lemmas.retain(|(p, _)| *p <= i);
                let mut query = with_lemmas(&stack, &lemmas);
                let mut outcome = self.session.check_path(&query)?;
                if outcome == QueryOutcome::Unknown && !lemmas.is_empty() {
                    // The lemmas made the query too hard for the solver: they only prune, so
                    // the search goes on without them.
                    lemmas.clear();
                    self.stats.dropped_lemmas += 1;
                    query = with_lemmas(&stack, &lemmas);
                    outcome = self.session.check_path(&query)?;
                }
                if outcome != QueryOutcome::Sat {
                    if let Some(reason) = self.hard_stop() {
                        // A limit interrupted the query, or came during it: not an answer.
                        self.stop_at(reason);
                        if self.checkpoints_here(floor) {
                            let mut done: Vec<bool> = stack[..i].iter().map(|n| n.done).collect();
                            done.push(outcome == QueryOutcome::Unsat);
                            done.extend(std::iter::repeat_n(true, below));
                            let c = self.checkpoint_rerun(&assignment, done);
                            self.last_checkpoint = Instant::now();
                            on_checkpoint(&c);
                        }
                        return Ok(false);
                    }
                }
                if outcome == QueryOutcome::Unknown {
                    // The solver gave up: the subtree is skipped and the exploration is not
                    // complete.
                    self.stats.unknown_queries += 1;
                }
                if outcome == QueryOutcome::Sat {
                    (assignment, roundness) = self.model_inputs(&query)?;
                    prefix = stack;
                    let due = self
                        .options
                        .checkpoint_every
                        .is_some_and(|every| self.last_checkpoint.elapsed() >= every);
                    if (due || stopping) && self.checkpoints_here(floor) {
                        self.last_checkpoint = Instant::now();
                        on_checkpoint(&self.checkpoint(&assignment, &prefix));
                    }
                    if stopping {
                        return Ok(false);
                    }
                    break;
                }
            }
        }
    }

    /// Counts, checks and hands out the test of one run; gives its index and the caller's
    /// answer.
    fn record_test(
        &mut self,
        pool: &dyn WorkPool,
        inputs: Vec<Option<catala_eval::runtime::Value>>,
        path: &[PathConstraint],
        outcome: Outcome,
        roundness: RoundnessLevel,
        on_test: &mut dyn FnMut(usize, &TestCase) -> Control,
    ) -> (usize, Control) {
        let opt = self.options.optimizations;
        let index = pool.count_test() - 1;
        // The test's outcome is the plain run's on its inputs (Catala's order). A path ending
        // with outputs has the same outputs in any order: only checked.
        let outcome = if self.options.check || !matches!(outcome, Outcome::Ok(_)) {
            let plain = self.plain.outcome(&inputs);
            match compare(self.plain.program(), &outcome, &plain, opt.lazy_defaults) {
                Agreement::Same | Agreement::ErrorAfterAssertion => {}
                Agreement::LazyConflict => self.stats.relabelled += 1,
                Agreement::Differ(why) => {
                    self.stats.relabelled += 1;
                    if self.options.check {
                        self.mismatches.push((index, why));
                    }
                }
            }
            plain
        } else {
            outcome
        };
        *self
            .stats
            .by_outcome
            .entry(outcome.kind().to_string())
            .or_default() += 1;
        *self
            .stats
            .by_roundness
            .entry(format!("{roundness:?}"))
            .or_default() += 1;
        let asked = self.session.stats().path_queries;
        let queries = asked.saturating_sub(self.queries_streamed);
        self.queries_streamed = asked;
        let test = TestCase {
            queries,
            inputs,
            outcome,
            constraints: if self.options.keep_constraints {
                path.iter().map(|c| c.term.to_string()).collect()
            } else {
                Vec::new()
            },
            roundness,
            path: crate::path_id::PathId::of(path),
            found_at: self.start.elapsed(),
        };
        let control = on_test(index, &test);
        self.stats.tests += 1;
        self.last_recorded = Some((test.outcome.kind().to_string(), format!("{roundness:?}")));
        if self.options.keep_tests {
            self.tests.push(test);
        }
        (index, control)
    }

    /// Hands the shallowest open subtree of `stack` (below `floor`) to the pool, when another
    /// one stays open here.
    fn share(
        &mut self,
        stack: &mut [Node],
        lemmas: &[(usize, Term)],
        floor: usize,
        pool: &dyn WorkPool,
    ) -> Result<(), ConcolicError> {
        let mut open = stack
            .iter()
            .enumerate()
            .filter(|(i, n)| *i >= floor && !n.done)
            .map(|(i, _)| i);
        let (Some(k), Some(_)) = (open.next(), open.next()) else {
            return Ok(());
        };
        let mut query: Vec<Term> = stack[..k].iter().map(|n| n.term.clone()).collect();
        query.push(term::not(&stack[k].term));
        let nodes: Vec<Node> = query
            .into_iter()
            .map(|term| Node {
                term,
                done: true,
                other_way: None,
            })
            .collect();
        let relevant: Vec<(usize, Term)> =
            lemmas.iter().filter(|(p, _)| *p <= k).cloned().collect();
        let query = with_lemmas(&nodes, &relevant);
        let outcome = self.session.check_path(&query)?;
        // When the solver gives up, the branch stays here, open.
        stack[k].done = outcome != QueryOutcome::Unknown;
        if outcome == QueryOutcome::Sat {
            let (assignment, _) = self.model_inputs(&query)?;
            pool.give((assignment, k + 1));
        }
        Ok(())
    }

    /// Hands every open node of `stack` after position `k` to the pool as a subtree (solving
    /// for its inputs now) and marks it done, so the search can go on at `k`.
    fn hand_out_below(
        &mut self,
        stack: &mut [Node],
        k: usize,
        pool: &dyn WorkPool,
    ) -> Result<(), ConcolicError> {
        for j in k + 1..stack.len() {
            if stack[j].done {
                continue;
            }
            let mut query: Vec<Term> = stack[..j].iter().map(|n| n.term.clone()).collect();
            query.push(term::not(&stack[j].term));
            stack[j].done = true;
            match self.session.check_path(&query)? {
                QueryOutcome::Sat => {
                    let (assignment, _) = self.model_inputs(&query)?;
                    pool.give((assignment, j + 1));
                }
                QueryOutcome::Unsat => {}
                // A query a limit interrupted is not one the solver gave up on: the limit is
                // reported instead.
                QueryOutcome::Unknown if self.session.stopped() => {}
                QueryOutcome::Unknown => self.stats.unknown_queries += 1,
            }
        }
        Ok(())
    }

    /// The inputs of the current model (money rounded when soft constraints are on).
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

    /// The state before the run on `assignment`, whose path starts with `prefix`.
    pub(crate) fn checkpoint(&self, assignment: &Assignment, prefix: &[Node]) -> Checkpoint {
        let s = self.session.stats();
        let (calls, soft, elapsed) = self.resumed_figures();
        Checkpoint {
            assignment: assignment.clone(),
            done: prefix.iter().map(|n| n.done).collect(),
            tests: self.stats.tests,
            solver_calls: calls + s.path_queries,
            soft_solver_calls: soft + s.soft_queries,
            elapsed: elapsed + self.start.elapsed(),
            solver_time: self
                .resumed
                .as_ref()
                .map_or(Duration::ZERO, |c| c.solver_time)
                + s.solver_time,
            by_outcome: self.stats.by_outcome.clone(),
            by_roundness: self.stats.by_roundness.clone(),
            subtree: self.shard_subtree.unwrap_or(0),
            lost_subtrees: self.lost_subtrees.clone(),
        }
    }

    /// Solver calls, rounding calls and time of the explorations this one continues.
    fn resumed_figures(&self) -> (u64, u64, Duration) {
        self.resumed.as_ref().map_or((0, 0, Duration::ZERO), |c| {
            (c.solver_calls, c.soft_solver_calls, c.elapsed)
        })
    }

    /// The figures and tests of this worker.
    pub(crate) fn finish(mut self, stopped: bool) -> Exploration {
        let s = self.session.stats();
        let (calls, soft, elapsed) = self.resumed_figures();
        self.stats.solver_calls = calls + s.path_queries;
        self.stats.soft_solver_calls = soft + s.soft_queries;
        self.stats.queries_without_z3 = s.fast_queries;
        self.stats.guessed_queries = s.guessed_queries;
        self.stats.fresh_queries = s.fresh_queries;
        self.stats.solver_time = self
            .resumed
            .as_ref()
            .map_or(Duration::ZERO, |c| c.solver_time)
            + s.solver_time;
        self.stats.time = elapsed + self.start.elapsed();
        let incomplete: Vec<String> = self.executor.incomplete().iter().cloned().collect();
        // Concrete-only operations or runs leaving their prefix may hide paths.
        self.stats.complete = self.stats.complete
            && !stopped
            && incomplete.is_empty()
            && self.stats.divergences == 0
            && self.stats.unknown_queries == 0;
        Exploration {
            tests: self.tests,
            stats: self.stats,
            incomplete,
            replay_mismatches: self.mismatches,
        }
    }
}

/// The terms of a query: the stack's constraints with each lemma before the node it is
/// attached to.
fn with_lemmas(stack: &[Node], lemmas: &[(usize, Term)]) -> Vec<Term> {
    let mut query: Vec<Term> = Vec::with_capacity(stack.len() + lemmas.len());
    let mut pending = lemmas.iter().peekable();
    for (k, n) in stack.iter().enumerate() {
        while let Some((_, l)) = pending.next_if(|(p, _)| *p == k) {
            query.push(l.clone());
        }
        query.push(n.term.clone());
    }
    query
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

fn roundness_of(a: &Assignment, money: &[smt::catala::VarId]) -> RoundnessLevel {
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
