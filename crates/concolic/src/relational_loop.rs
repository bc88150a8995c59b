//! The loop of a relational exploration: the product executor runs the cases of a relation
//! on one assignment; the leaf hook asks, at each leaf whose cases gave their outputs, the
//! caller's goal for a violation condition and the solver chain whether it can hold there
//! (a violation found without Z3 is confirmed by the goal, else Z3 alone is asked); the
//! frontier (the searcher of this loop) holds every open branch of the runs so far, in the
//! order of [`RelationalOrder`]; queries the first time limit left unanswered wait for a
//! second pass with a longer one. What the loop reports is [`RelationalResult`].
//!
//! A loop may explore the subtrees of a plan rather than the whole tree (`Seeds`, handed out
//! one at a time and shared by the threads of a parallel exploration): each seed's inputs are
//! run with the branches of its prefix closed, a run leaving the prefix is counted and not
//! explored, and once the frontier is empty the next seed is taken. The plan itself is made by
//! another instance of the loop here, [`plan_pieces`], which splits the product's tree as the
//! planner of one program's tree (`crate::plan`) splits that.
//!
//! A caller may direct the loop ([`Direction`]): it ranks the branches of each run, and the
//! open branches of a higher rank are negated before those of a lower one (each rank depth
//! first), the rank 0 ones in the order of [`RelationalOrder`]. Only the order changes: every
//! open branch is still negated before the exploration calls itself complete.

use crate::executor::PathExecutor;
use crate::exploration_loop::{drive, Flow, LoopSteps, Negation};
use crate::frontier::{DepthFirstFrontier, Frontier, NewBranchesFirstFrontier, Open};
use crate::inputs::Assignment;
use crate::int_rounding::IntRounding;
use crate::path_id::PathId;
use crate::product_executor::{CaseOutcome, ProductLeaf, ProductRun};
use crate::relational::{
    Goal, LeafMode, RelationalOptions, RelationalOrder, RelationalResult, RelationalSpace,
    Violation,
};
use crate::symbolic::PathConstraint;
use crate::ConcolicError;
use catala_syntax::Span;
use smt::catala::term::{Term, VarId};
use smt::catala::{CatalaSession, QueryOutcome};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// One constraint of a product run's path condition, with where it comes from.
#[derive(Clone, Debug)]
struct Branch {
    term: Term,
    /// An assertion that held: never negated.
    fixed: bool,
    /// The case whose run added it.
    case: usize,
    span: Span,
    way: u32,
}

/// The branches of a product run: its path, and the case each constraint comes from.
fn branches(path: &[PathConstraint], case_of: &[usize]) -> Vec<Branch> {
    path.iter()
        .zip(case_of)
        .map(|(c, case)| Branch {
            term: c.term.clone(),
            fixed: c.fixed,
            case: *case,
            span: c.span,
            way: c.way,
        })
        .collect()
}

/// Where a branch of a product run is: the case whose run met it, the position of the
/// condition, and which way the run went (as [`PathConstraint::way`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Site {
    pub(crate) case: usize,
    pub(crate) span: Span,
    pub(crate) way: u32,
}

/// Ranks the branches of each run: those of a higher rank are negated first; rank 0 is the
/// loop's own order.
pub(crate) trait Direction {
    /// One rank per branch of a run's path (`sites`, in run order).
    fn ranks(&mut self, sites: &[Site]) -> Vec<u8>;
}

/// The identifier of a product run's path ([`PathId`]: one decision per constraint).
fn path_id(path: &[Branch]) -> PathId {
    PathId::from(path.iter().map(|b| b.way & 1 == 1).collect::<Vec<bool>>())
}

/// Where the subtrees a loop explores after its first come from: a plan's, handed out one at
/// a time (shared between the threads of a parallel exploration), each as the prefix of its
/// paths and inputs following it.
pub(crate) type Seeds<'a> = Box<dyn FnMut() -> Option<(PathId, Assignment)> + 'a>;

/// A product run whose branches are negated later.
struct RunRecord {
    assignment: Assignment,
    path: Vec<Branch>,
}

/// The share of the time spent so far that second-pass queries on leaves may take before
/// every branch is negated.
const LEAF_RETRY_SHARE: f64 = 0.25;

/// A query the first time limit left unanswered, for the second pass.
enum Pending {
    Leaf {
        query: Vec<Term>,
        id: PathId,
        path: Vec<Term>,
        goal: Term,
        outcomes: Vec<CaseOutcome>,
    },
    Branch(Open),
}

/// Everything the leaf and branch queries share.
pub(crate) struct Queries<'a> {
    pub(crate) space: &'a RelationalSpace,
    pub(crate) money: Vec<VarId>,
    /// The globals with roundings as integer variables, and their definitions.
    pub(crate) globals: Vec<Term>,
    pub(crate) options: &'a RelationalOptions,
}

impl Queries<'_> {
    pub(crate) fn session(
        &self,
        timeout: Option<Duration>,
        guesses: bool,
    ) -> Result<CatalaSession, ConcolicError> {
        let timeout_ms = timeout.map(|t| u32::try_from(t.as_millis()).unwrap_or(u32::MAX).max(1));
        let mut session = CatalaSession::new(timeout_ms, true);
        session.enable_fast_path(self.money.clone());
        if guesses {
            session.enable_guesses(self.money.clone());
        }
        for g in &self.globals {
            session.add_global(g)?;
        }
        Ok(session)
    }

    pub(crate) fn read_model(&self, session: &CatalaSession) -> Assignment {
        self.space
            .vars
            .iter()
            .enumerate()
            .map(|(i, v)| session.value(VarId(i as u32), v.kind))
            .collect()
    }

    /// The model of a satisfiable leaf query, money pulled towards round amounts.
    fn violation_model(
        &self,
        session: &mut CatalaSession,
        query: &[Term],
    ) -> Result<Assignment, ConcolicError> {
        let mut used = Vec::new();
        for t in query {
            t.collect_vars(&mut used);
        }
        let constrained: Vec<VarId> = self
            .money
            .iter()
            .copied()
            .filter(|v| used.binary_search(v).is_ok())
            .collect();
        session.round_money(&constrained)?;
        Ok(self.read_model(session))
    }

    pub(crate) fn remember(&self, session: &mut CatalaSession, assignment: &Assignment) {
        if self.options.guesses {
            session.remember(
                assignment
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| Some((VarId(i as u32), v.clone()?))),
            );
        }
    }
}

/// The query negating branch `o`.
fn branch_query(runs: &[RunRecord], o: Open) -> Vec<Term> {
    let path = &runs[o.run].path;
    let mut query: Vec<Term> = path[..o.i].iter().map(|b| b.term.clone()).collect();
    query.push(smt::catala::term::not(&path[o.i].term));
    query
}

/// The relational exploration loop: the product executor, the frontier of open branches,
/// the leaf hook (the goal asked at each leaf, [`Self::judge_leaf`]) and the second pass over
/// the queries the first time limit left unanswered.
pub(crate) struct RelationalLoop<'a, E: PathExecutor<Run = ProductRun>> {
    pub(crate) goal: &'a mut dyn Goal,
    pub(crate) options: &'a RelationalOptions,
    pub(crate) start: Instant,
    /// Runs the cases: a product of runs of one program, or of several.
    pub(crate) executor: E,
    pub(crate) rounding: IntRounding,
    pub(crate) q: Queries<'a>,
    /// The solver chain of the branch and leaf queries.
    pub(crate) session: CatalaSession,
    pub(crate) result: RelationalResult,
    /// Stop at the first violation or collect them all; stop a product run at its first
    /// failing case or run them all.
    pub(crate) mode: LeafMode,
    /// Z3 (and the finite layer) alone, for violations found without Z3 that do not hold.
    confirm: Option<CatalaSession>,
    retry_asked: u64,
    retry_spent: Duration,
    retry_without_z3: u64,
    runs: Vec<RunRecord>,
    /// The searcher: the open branches of every run so far.
    frontier: Box<dyn Frontier>,
    /// Ranks the branches of each run (none: the frontier's order alone).
    pub(crate) direction: Option<Box<dyn Direction + 'a>>,
    /// The open branches of rank `r + 1` at index `r`, the latest deepest on top.
    ranked: Vec<Vec<Open>>,
    covered: HashSet<(usize, Span, u32)>,
    pending: Vec<Pending>,
    complete: bool,
    /// The subtrees to explore once the frontier is empty (none: the tree below the first
    /// run only).
    pub(crate) seeds: Option<Seeds<'a>>,
    /// The prefix the next run's inputs were taken for (a seed's): a run leaving it is not
    /// explored, and the exploration is not complete.
    seed_prefix: Option<PathId>,
    /// The path pairs of every loop of a parallel exploration, for its pair limit.
    pub(crate) shared_pairs: Option<&'a AtomicUsize>,
    /// A seed's subtree cut short by a limit is given back whole ([`RelationalResult::
    /// unfinished`]), what was found in it taken back, so that it can be explored again.
    pub(crate) restartable: bool,
    /// The seed being explored, and the figures when it started (pairs, judged pairs, error
    /// pairs, violations).
    current: Option<(PathId, Assignment)>,
    mark: (usize, usize, usize, usize),
}

impl<'a, E: PathExecutor<Run = ProductRun>> RelationalLoop<'a, E> {
    /// A loop with its parts; [`Self::run`] explores from the first assignment.
    pub(crate) fn new(
        goal: &'a mut dyn Goal,
        options: &'a RelationalOptions,
        start: Instant,
        (executor, rounding, q): (E, IntRounding, Queries<'a>),
        session: CatalaSession,
    ) -> Self {
        // One case has no partner to bring to the other side of a branch: depth first, which
        // keeps the solver's stack of common prefixes (about 2.5 times as many pairs per
        // second on the housing benefits).
        let frontier: Box<dyn Frontier> =
            if options.order == RelationalOrder::NewBranchesFirst && q.space.cases.len() > 1 {
                Box::<NewBranchesFirstFrontier>::default()
            } else {
                Box::<DepthFirstFrontier>::default()
            };
        RelationalLoop {
            goal,
            options,
            start,
            executor,
            rounding,
            q,
            session,
            result: RelationalResult::default(),
            mode: LeafMode::default(),
            confirm: None,
            retry_asked: 0,
            retry_spent: Duration::ZERO,
            retry_without_z3: 0,
            runs: Vec::new(),
            frontier,
            direction: None,
            ranked: Vec::new(),
            covered: HashSet::new(),
            pending: Vec::new(),
            complete: true,
            seeds: None,
            seed_prefix: None,
            shared_pairs: None,
            restartable: false,
            current: None,
            mark: (0, 0, 0, 0),
        }
    }

    fn over_budget(&self) -> bool {
        self.options
            .budget
            .is_some_and(|b| self.start.elapsed() >= b)
    }

    fn budget_text(&self) -> String {
        format!(
            "time budget of {:.1} s spent",
            self.options.budget.map_or(0.0, |b| b.as_secs_f64())
        )
    }

    /// The path queries of the exploration and those answered without Z3, the elapsed time.
    pub(crate) fn finish_figures(&mut self) {
        let stats = self.session.stats();
        self.result.path_queries = stats.path_queries + self.retry_asked;
        self.result.queries_without_z3 = stats.fast_queries + self.retry_without_z3;
        self.result.elapsed_s = self.start.elapsed().as_secs_f64();
    }

    /// Explores from `first` until every branch is negated, a violation is found or a limit
    /// is reached.
    pub(crate) fn run(self, first: Assignment) -> Result<RelationalResult, ConcolicError> {
        self.run_from((first, 0))
    }

    /// Explores the seeds' subtrees (none: a complete exploration of nothing).
    pub(crate) fn run_seeds(mut self) -> Result<RelationalResult, ConcolicError> {
        match self.next_seed() {
            Some(first) => self.run_from(first),
            None => {
                self.result.complete = true;
                self.finish_figures();
                Ok(self.result)
            }
        }
    }

    /// The inputs of the next seed and their bound (the length of its prefix).
    fn next_seed(&mut self) -> Option<(Assignment, usize)> {
        self.current = None;
        let (prefix, assignment) = self.seeds.as_mut()?()?;
        let bound = prefix.len();
        if self.restartable {
            self.current = Some((prefix.clone(), assignment.clone()));
            let r = &self.result;
            self.mark = (
                r.path_pairs,
                r.judged_pairs,
                r.error_pairs,
                r.violations.len(),
            );
        }
        self.seed_prefix = Some(prefix);
        Some((assignment, bound))
    }

    /// Gives back the seed a limit cut short, and takes back what was found in it.
    fn give_back_current(&mut self) {
        if self.result.stopped.is_none() {
            return;
        }
        let Some(seed) = self.current.take() else {
            return;
        };
        let (pairs, judged, errors, found) = self.mark;
        self.result.path_pairs = pairs;
        self.result.judged_pairs = judged;
        self.result.error_pairs = errors;
        self.result.violations.truncate(found);
        self.result.unfinished.push(seed);
    }

    /// Explores from inputs `first` whose branches from `bound` on are open.
    fn run_from(mut self, first: (Assignment, usize)) -> Result<RelationalResult, ConcolicError> {
        drive(&mut self, first)?;
        self.give_back_current();
        // Queries never answered, including those the second pass did not reach.
        self.result.unknown_queries += self.pending.len();
        if !self.pending.is_empty() || !self.open_is_empty() {
            self.complete = false;
        }
        self.result.incomplete = self.executor.incomplete().clone();
        // A proof stops at its first violation; a collection of every violation goes on.
        let stopped_early = self.result.violation.is_some() && !self.mode.collect_all;
        self.result.complete = self.complete && self.result.incomplete.is_empty() && !stopped_early;
        self.finish_figures();
        Ok(self.result)
    }

    /// Runs the product on `assignment`, judges its leaf and adds its branches from `bound`
    /// on to the frontier.
    fn execute(&mut self, assignment: Assignment, bound: usize) -> Result<Flow, ConcolicError> {
        if self.over_budget() {
            self.result.stopped = Some(self.budget_text());
            self.complete = false;
            return Ok(Flow::Stop);
        }
        if let Some(m) = self.options.max_pairs {
            let before = match self.shared_pairs {
                Some(c) => c.fetch_add(1, Ordering::SeqCst),
                None => self.result.path_pairs,
            };
            if before >= m {
                if let Some(c) = self.shared_pairs {
                    c.fetch_sub(1, Ordering::SeqCst);
                }
                self.result.stopped = Some(format!("limit of {m} path pairs reached"));
                self.complete = false;
                return Ok(Flow::Stop);
            }
        }
        let run = self.executor.execute(&assignment);
        let path = branches(E::path(&run), &run.case_of);
        self.result.path_pairs += 1;
        if let Some(prefix) = self.seed_prefix.take() {
            if !prefix.is_prefix_of(&path_id(&path)) {
                // The run left its subtree: its path belongs to another one.
                self.result.divergences += 1;
                self.complete = false;
                return Ok(Flow::Continue);
            }
        }
        for b in &path {
            self.covered.insert((b.case, b.span, b.way));
        }
        match run.leaf {
            ProductLeaf::Error(message) => {
                let examples = &mut self.result.error_examples;
                self.result.error_pairs += 1;
                if examples.len() < 5 && !examples.contains(&message) {
                    examples.push(message);
                }
            }
            ProductLeaf::Outputs(outputs) => {
                let g = self.goal.violation(&outputs, self.q.space.first_free_var);
                if let Flow::Stop = self.judge_goal(g, &path, &assignment, Vec::new())? {
                    return Ok(Flow::Stop);
                }
            }
            ProductLeaf::Outcomes(outcomes) => {
                let all_outputs: Option<Vec<Vec<_>>> = outcomes
                    .iter()
                    .map(|o| match o {
                        CaseOutcome::Outputs(v) => Some(v.clone()),
                        CaseOutcome::Failed(_) => None,
                    })
                    .collect();
                let ffv = self.q.space.first_free_var;
                let g = match &all_outputs {
                    Some(outputs) => Some(self.goal.violation(outputs, ffv)),
                    None => self.goal.outcome_violation(&outcomes, ffv),
                };
                match g {
                    None => {
                        let message = outcomes.iter().find_map(|o| match o {
                            CaseOutcome::Failed(f) => Some(f.message.clone()),
                            CaseOutcome::Outputs(_) => None,
                        });
                        self.result.error_pairs += 1;
                        let examples = &mut self.result.error_examples;
                        if let Some(m) = message {
                            if examples.len() < 5 && !examples.contains(&m) {
                                examples.push(m);
                            }
                        }
                    }
                    Some(g) => {
                        let kept = if self.mode.collect_all {
                            outcomes
                        } else {
                            Vec::new()
                        };
                        if let Flow::Stop = self.judge_goal(g, &path, &assignment, kept)? {
                            return Ok(Flow::Stop);
                        }
                    }
                }
            }
        }
        let id = self.runs.len();
        let ranks = self.direction.as_mut().map(|d| {
            let sites: Vec<Site> = path
                .iter()
                .map(|b| Site {
                    case: b.case,
                    span: b.span,
                    way: b.way,
                })
                .collect();
            d.ranks(&sites)
        });
        for (i, b) in path.iter().enumerate().skip(bound) {
            if b.fixed {
                continue;
            }
            let rank = ranks.as_ref().and_then(|r| r.get(i)).copied().unwrap_or(0);
            if rank > 0 {
                let r = usize::from(rank) - 1;
                if self.ranked.len() <= r {
                    self.ranked.resize_with(r + 1, Vec::new);
                }
                self.ranked[r].push(Open { run: id, i });
                continue;
            }
            let new_way = !self.covered.contains(&(b.case, b.span, b.way ^ 1));
            self.frontier.add(Open { run: id, i }, new_way);
        }
        self.runs.push(RunRecord { assignment, path });
        Ok(Flow::Continue)
    }

    /// Judges a leaf whose goal the caller gave as `g`: an unencodable goal makes the
    /// exploration incomplete, a constant false one is judged at once, the others are asked.
    fn judge_goal(
        &mut self,
        g: Result<Term, String>,
        path: &[Branch],
        assignment: &Assignment,
        outcomes: Vec<CaseOutcome>,
    ) -> Result<Flow, ConcolicError> {
        match g {
            Err(reason) => {
                self.result.unencoded_leaves += 1;
                self.result.unencoded_reason.get_or_insert(reason);
                self.complete = false;
                Ok(Flow::Continue)
            }
            Ok(g) if matches!(&*g, smt::catala::TermNode::Bool(false)) => {
                self.result.judged_pairs += 1;
                Ok(Flow::Continue)
            }
            Ok(g) => self.judge_leaf(path, assignment, g, outcomes),
        }
    }

    /// Records a violating leaf: the first one stops a proof; a collection goes on.
    fn found(&mut self, violation: Violation) -> Flow {
        if self.mode.collect_all {
            if self.result.violation.is_none() {
                self.result.violation = Some(violation.clone());
            }
            self.result.violations.push(violation);
            Flow::Continue
        } else {
            self.result.violation = Some(violation);
            Flow::Stop
        }
    }

    /// The leaf hook: asks whether the goal `g` can be violated on the leaf of `path`.
    fn judge_leaf(
        &mut self,
        path: &[Branch],
        assignment: &Assignment,
        g: Term,
        outcomes: Vec<CaseOutcome>,
    ) -> Result<Flow, ConcolicError> {
        // The leaf query sees roundings as integer variables with their definitions; the
        // branch queries are those of the ordinary exploration.
        let original: Vec<Term> = path.iter().map(|b| b.term.clone()).collect();
        let mut query: Vec<Term> = original.iter().map(|t| self.rounding.rewrite(t)).collect();
        query.push(self.rounding.rewrite(&g));
        self.rounding.take_definitions();
        let definitions = self.rounding.definitions_for(&query);
        query.extend(definitions);
        self.q.remember(&mut self.session, assignment);
        let (outcome, model_in_confirm) = self.leaf_outcome(&g, &query)?;
        match outcome {
            QueryOutcome::Unsat => self.result.judged_pairs += 1,
            QueryOutcome::Unknown => {
                self.result.unknown_leaf_queries += 1;
                self.pending.push(Pending::Leaf {
                    query,
                    id: path_id(path),
                    path: original,
                    goal: g,
                    outcomes,
                })
            }
            QueryOutcome::Sat => {
                let solver = match (&mut self.confirm, model_in_confirm) {
                    (Some(c), true) => c,
                    _ => &mut self.session,
                };
                let assignment = self.q.violation_model(solver, &query)?;
                let v = Violation {
                    assignment,
                    id: path_id(path),
                    path: original,
                    goal: g,
                    at_s: self.start.elapsed().as_secs_f64(),
                    outcomes,
                };
                return Ok(self.found(v));
            }
        }
        Ok(Flow::Continue)
    }

    /// The answer to a leaf query, and whether the confirming solver gave it. A goal without
    /// variables is decided here when the finite layer can; a violation found without Z3 is
    /// confirmed by the goal (the guesses check the terms whose variables they change, not the
    /// constant ones), else Z3 alone is asked.
    fn leaf_outcome(
        &mut self,
        g: &Term,
        query: &[Term],
    ) -> Result<(QueryOutcome, bool), ConcolicError> {
        let mut vars = Vec::new();
        g.collect_vars(&mut vars);
        if vars.is_empty()
            && matches!(
                smt::catala::finite::decide(&[g], &[]),
                Some(smt::catala::finite::Decision::Unsat)
            )
        {
            return Ok((QueryOutcome::Unsat, false));
        }
        let answer = self.session.ask(query)?;
        let outcome = answer.outcome;
        if outcome != QueryOutcome::Sat || answer.layer.is_z3() {
            return Ok((outcome, false));
        }
        let candidate = self.q.violation_model(&mut self.session, query)?;
        if self.goal.confirm(&candidate) {
            return Ok((outcome, false));
        }
        let c = match &mut self.confirm {
            Some(c) => c,
            None => self
                .confirm
                .insert(self.q.session(self.options.query_timeout, false)?),
        };
        Ok((c.check_path(query)?, true))
    }

    /// No open branch left, ranked or not.
    fn open_is_empty(&self) -> bool {
        self.frontier.is_empty() && self.ranked.iter().all(Vec::is_empty)
    }

    /// The open branch to negate next: the latest, deepest one of the highest rank, else the
    /// frontier's choice.
    fn pick_open(&mut self) -> Option<Open> {
        if let Some(stack) = self.ranked.iter_mut().rev().find(|s| !s.is_empty()) {
            return stack.pop();
        }
        let (runs, covered) = (&self.runs, &self.covered);
        let taken = |o: Open| {
            let b = &runs[o.run].path[o.i];
            covered.contains(&(b.case, b.span, b.way ^ 1))
        };
        self.frontier.pick(&taken)
    }

    /// Negates the next open branch of the frontier, or asks a query left unanswered again.
    fn negate_next(&mut self) -> Result<Negation<(Assignment, usize)>, ConcolicError> {
        if !self.open_is_empty() && self.over_budget() {
            self.result.stopped = Some(self.budget_text());
            self.complete = false;
            return Ok(Negation::Stop);
        }
        // A leaf query left unanswered may hold the violation: such queries are asked again
        // while the exploration goes on, with at most a quarter of the time spent so far (and
        // only once that share leaves twice the first limit).
        let allowance = self
            .start
            .elapsed()
            .mul_f64(LEAF_RETRY_SHARE)
            .saturating_sub(self.retry_spent);
        let first_limit = self
            .options
            .query_timeout
            .unwrap_or(Duration::from_secs(10));
        let early_leaf = if self.options.retry_timeout.is_some()
            && !self.open_is_empty()
            && allowance >= first_limit * 2
        {
            self.pending
                .iter()
                .rposition(|p| matches!(p, Pending::Leaf { .. }))
        } else {
            None
        };
        let p = match early_leaf {
            Some(ix) => self.pending.remove(ix),
            None => {
                if let Some(o) = self.pick_open() {
                    self.q
                        .remember(&mut self.session, &self.runs[o.run].assignment);
                    let query = branch_query(&self.runs, o);
                    return Ok(match self.session.check_path(&query)? {
                        QueryOutcome::Sat => {
                            Negation::Next((self.q.read_model(&self.session), o.i + 1))
                        }
                        QueryOutcome::Unsat => Negation::Closed,
                        QueryOutcome::Unknown => {
                            self.pending.push(Pending::Branch(o));
                            Negation::Closed
                        }
                    });
                }
                // Every branch negated: the next subtree, then the second pass, one
                // unanswered query at a time.
                if let Some(next) = self.next_seed() {
                    return Ok(Negation::Next(next));
                }
                let Some(p) = self.pending.pop() else {
                    return Ok(Negation::Exhausted);
                };
                p
            }
        };
        self.ask_again(p, early_leaf.map(|_| allowance))
    }

    /// The second pass over query `p`, with the longer time limit (at most `allowance` for a
    /// leaf query asked before every branch is negated).
    fn ask_again(
        &mut self,
        p: Pending,
        allowance: Option<Duration>,
    ) -> Result<Negation<(Assignment, usize)>, ConcolicError> {
        let remaining = self
            .options
            .budget
            .map(|b| b.saturating_sub(self.start.elapsed()));
        let (Some(limit), false) = (self.options.retry_timeout, self.over_budget()) else {
            self.pending.push(p);
            if self.options.retry_timeout.is_some() {
                self.result.stopped = Some(self.budget_text());
            }
            return Ok(Negation::Stop);
        };
        let limit = remaining.map_or(limit, |r| r.min(limit));
        let limit = allowance.map_or(limit, |a| limit.min(a));
        let mut long = self.q.session(Some(limit), false)?;
        self.result.retried_queries += 1;
        let query = match &p {
            Pending::Leaf { query, .. } => query.clone(),
            Pending::Branch(o) => branch_query(&self.runs, *o),
        };
        let asked_at = Instant::now();
        let outcome = long.check_path(&query)?;
        self.retry_spent += asked_at.elapsed();
        let stats = long.stats();
        self.retry_asked += stats.path_queries;
        self.retry_without_z3 += stats.fast_queries;
        match (outcome, p) {
            (QueryOutcome::Unknown, _) => {
                self.result.unknown_queries += 1;
                self.complete = false;
            }
            (QueryOutcome::Unsat, Pending::Leaf { .. }) => {
                self.result.resolved_on_retry += 1;
                self.result.judged_pairs += 1;
            }
            (QueryOutcome::Unsat, Pending::Branch(_)) => self.result.resolved_on_retry += 1,
            (QueryOutcome::Sat, Pending::Branch(o)) => {
                self.result.resolved_on_retry += 1;
                return Ok(Negation::Next((self.q.read_model(&long), o.i + 1)));
            }
            (
                QueryOutcome::Sat,
                Pending::Leaf {
                    query,
                    id,
                    path,
                    goal,
                    outcomes,
                },
            ) => {
                self.result.resolved_on_retry += 1;
                let assignment = self.q.violation_model(&mut long, &query)?;
                let v = Violation {
                    assignment,
                    id,
                    path,
                    goal,
                    at_s: self.start.elapsed().as_secs_f64(),
                    outcomes,
                };
                if let Flow::Stop = self.found(v) {
                    return Ok(Negation::Stop);
                }
            }
        }
        Ok(Negation::Closed)
    }
}

impl<E: PathExecutor<Run = ProductRun>> LoopSteps for RelationalLoop<'_, E> {
    type Inputs = (Assignment, usize);

    fn run(&mut self, (assignment, bound): Self::Inputs) -> Result<Flow, ConcolicError> {
        self.execute(assignment, bound)
    }

    fn negate(&mut self) -> Result<Negation<Self::Inputs>, ConcolicError> {
        self.negate_next()
    }
}

/// A subtree of a plan of the product's path tree: the decisions of its prefix, inputs whose
/// run follows it, and the open branches below the prefix on that run.
pub(crate) struct PlanPiece {
    pub(crate) prefix: PathId,
    pub(crate) assignment: Assignment,
    pub(crate) open: usize,
}

/// The subtrees of a plan of the product's tree and what making them cost.
#[derive(Default)]
pub(crate) struct PlanPieces {
    pub(crate) pieces: Vec<PlanPiece>,
    pub(crate) runs: usize,
    /// Runs that left the prefix they were solved for.
    pub(crate) divergences: usize,
    /// Branches whose query the solver gave up on: their subtrees are in no piece.
    pub(crate) unknown_queries: usize,
}

/// A subtree while the plan is made: its run's path, and whether it was split already.
struct Piece {
    prefix: PathId,
    assignment: Assignment,
    path: Vec<Branch>,
    follows: bool,
    leaf: bool,
}

impl Piece {
    fn open(&self) -> usize {
        if self.leaf || !self.follows {
            return 0;
        }
        let floor = self.prefix.len().min(self.path.len());
        self.path[floor..].iter().filter(|b| !b.fixed).count()
    }
}

/// The planner of a product's tree as an instance of the exploration loop, as the planner of
/// one program's tree (`crate::plan`): the executor runs the inputs of each subtree found and
/// the run becomes a piece; the searcher picks the piece with the most open branches (the
/// shallowest among equals) and negates them all, deepest first — its run becomes a subtree of
/// one path, each branch answered a subtree of its own; the loop ends at `target` pieces or
/// when none has an open branch left.
struct PairPlanSteps<'p, E: PathExecutor<Run = ProductRun>> {
    executor: &'p mut E,
    session: &'p mut CatalaSession,
    q: &'p Queries<'p>,
    target: usize,
    pieces: Vec<Piece>,
    children: std::collections::VecDeque<(PathId, Assignment)>,
    out: PlanPieces,
}

impl<E: PathExecutor<Run = ProductRun>> LoopSteps for PairPlanSteps<'_, E> {
    type Inputs = (PathId, Assignment);

    fn run(&mut self, (prefix, assignment): Self::Inputs) -> Result<Flow, ConcolicError> {
        self.out.runs += 1;
        let run = self.executor.execute(&assignment);
        let path = branches(E::path(&run), &run.case_of);
        let follows = prefix.is_prefix_of(&path_id(&path));
        if !follows {
            self.out.divergences += 1;
        }
        self.pieces.push(Piece {
            prefix,
            assignment,
            path,
            follows,
            leaf: false,
        });
        Ok(Flow::Continue)
    }

    fn negate(&mut self) -> Result<Negation<Self::Inputs>, ConcolicError> {
        if let Some(child) = self.children.pop_front() {
            return Ok(Negation::Next(child));
        }
        if self.pieces.len() >= self.target {
            return Ok(Negation::Exhausted);
        }
        let pieces = &self.pieces;
        let Some(k) = (0..pieces.len())
            .filter(|k| pieces[*k].open() > 0)
            .max_by(|a, b| {
                let (pa, pb) = (&pieces[*a], &pieces[*b]);
                pa.open()
                    .cmp(&pb.open())
                    .then(pb.prefix.len().cmp(&pa.prefix.len()))
            })
        else {
            return Ok(Negation::Exhausted);
        };
        let piece = &self.pieces[k];
        let id = path_id(&piece.path);
        self.q.remember(self.session, &piece.assignment);
        for j in (piece.prefix.len()..piece.path.len()).rev() {
            if piece.path[j].fixed {
                continue;
            }
            let mut query: Vec<Term> = piece.path[..j].iter().map(|b| b.term.clone()).collect();
            query.push(smt::catala::term::not(&piece.path[j].term));
            match self.session.check_path(&query)? {
                QueryOutcome::Sat => {
                    let a = self.q.read_model(self.session);
                    self.q.remember(self.session, &a);
                    if let Some(prefix) = id.sibling_subtree(j) {
                        self.children.push_back((prefix, a));
                    }
                }
                QueryOutcome::Unsat => {}
                QueryOutcome::Unknown => self.out.unknown_queries += 1,
            }
        }
        let piece = &mut self.pieces[k];
        piece.prefix = id;
        piece.leaf = true;
        Ok(Negation::Closed)
    }
}

/// Cuts the product's tree into about `target` subtrees, from inputs `first`.
pub(crate) fn plan_pieces<E: PathExecutor<Run = ProductRun>>(
    (executor, session, q): (&mut E, &mut CatalaSession, &Queries<'_>),
    first: Assignment,
    target: usize,
) -> Result<PlanPieces, ConcolicError> {
    let mut steps = PairPlanSteps {
        executor,
        session,
        q,
        target,
        pieces: Vec::new(),
        children: Default::default(),
        out: PlanPieces::default(),
    };
    drive(&mut steps, (PathId::default(), first))?;
    let mut out = std::mem::take(&mut steps.out);
    out.pieces = steps
        .pieces
        .into_iter()
        .map(|p| PlanPiece {
            open: p.open(),
            prefix: p.prefix,
            assignment: p.assignment,
        })
        .collect();
    Ok(out)
}
