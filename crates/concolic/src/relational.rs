//! Relational concolic exploration: one exploration over several runs of the same scope (the
//! cases of a metamorphic relation, e.g. an input `x` and its follow-up `y`). The caller
//! declares the input variables once for all cases ([`RelationalSpace`]): a field the cases
//! share is one variable used by the shapes of both, a field they may differ on is one
//! variable per case. Every run of the product program evaluates the scope once per case with
//! the symbolic companion, on one path state, so the path condition is the conjunction of the
//! cases' conditions. Negating its constraints one by one, as the ordinary exploration does,
//! visits every feasible path pair (path tuple for more cases); at each leaf the caller's
//! [`Goal`] turns the cases' symbolic outputs into a violation condition (a negated
//! conclusion), and the solver is asked for globals ∧ path condition ∧ violation. A model is a
//! candidate counterexample; no model on any leaf of a complete exploration means that no
//! input of the globals violates the goal. What makes the answer partial is reported, never
//! hidden: operations the companion evaluated concretely on symbolic operands, solver answers
//! of "unknown", the budget.
//!
//! Queries go through the layers of the ordinary exploration (exact answers for the simplest
//! conditions, a model guessed near the inputs of the run the query starts from, then Z3); a
//! violation found without Z3 is confirmed by the goal ([`Goal::confirm`]) before it is
//! believed. The open branches are negated in the order of [`RelationalOrder`]: by default a
//! branch whose other way no run of its case has taken yet goes first, which brings a
//! follow-up to the other side of a threshold its partner stays on early. Queries that reach
//! the solver's time limit are asked again with a longer one (`retry_timeout`): leaf queries
//! while the exploration goes on, within a share of the time, the others once every branch is
//! negated; a branch answered then is explored like the others.
//!
//! The engine knows nothing of relations: the globals and the goal are terms over the input
//! variables and the outputs of the runs (the `metamorphic` crate builds them).

use crate::inputs::Shape;
pub use crate::inputs::{Assignment, InputVar};
use crate::int_rounding::IntRounding;
use crate::product_executor::{ProductCase, ProductExecutor, ProductLeaf, ProductRun};
use crate::ConcolicError;
use catala_ir::dcalc::{Program, ScopeId};
use catala_syntax::Span;
use smt::catala::term::{Term, VarId};
use smt::catala::{CatalaSession, QueryOutcome};
use std::collections::{BTreeSet, HashSet};
use std::time::{Duration, Instant};

/// The input variables of all cases and how each case builds its scope inputs from them.
#[derive(Clone, Debug, Default)]
pub struct RelationalSpace {
    /// The input variables; a [`VarId`] is an index here.
    pub vars: Vec<InputVar>,
    /// Per case, per scope input (in declaration order): how it is built from the variables
    /// (`None`: not given).
    pub cases: Vec<Vec<Option<CaseInput>>>,
    /// Constraints of every query: domains, the relation's premise, definitions of auxiliary
    /// variables (whose ids are at or above `vars.len()`).
    pub globals: Vec<Term>,
    /// First variable id the goal may use for its own auxiliary variables.
    pub first_free_var: u32,
}

pub use crate::product_executor::{CaseOutput, OutputTerm};

/// How one scope input of a case is built from the input variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CaseInput {
    Bool(VarId),
    Integer(VarId),
    Decimal(VarId),
    Money(VarId),
    /// A date, as its day number.
    Date(VarId),
    /// A case of enumeration `enum_id` (of `cases` cases, without payloads): the variable
    /// `tag` is its number.
    Enum {
        enum_id: u32,
        tag: VarId,
        cases: usize,
    },
}

impl CaseInput {
    /// The shape the executor builds the input from.
    fn shape(&self) -> Shape {
        match self {
            CaseInput::Bool(v) => Shape::Bool(*v),
            CaseInput::Integer(v) => Shape::Integer(*v),
            CaseInput::Decimal(v) => Shape::Decimal(*v),
            CaseInput::Money(v) => Shape::Money(*v),
            CaseInput::Date(v) => Shape::Date(*v),
            CaseInput::Enum {
                enum_id,
                tag,
                cases,
            } => Shape::Enum {
                enum_id: *enum_id,
                tag: *tag,
                payloads: vec![None; *cases],
            },
        }
    }
}

/// Builds the violation condition of a leaf from the outputs of its cases.
pub trait Goal {
    /// The condition under which the cases' outputs violate the property (a term over the
    /// input variables, auxiliary variables from `first_free_var` on); `Err` when an output
    /// cannot be encoded (the leaf is then unknown, with this reason).
    fn violation(
        &mut self,
        outputs: &[Vec<CaseOutput>],
        first_free_var: u32,
    ) -> Result<Term, String>;

    /// Whether a model of a leaf query found without Z3 (a guessed model) really violates
    /// the property, e.g. by running the program on it; when not, Z3 is asked the query.
    fn confirm(&mut self, _assignment: &Assignment) -> bool {
        true
    }
}

/// Limits of a relational exploration.
#[derive(Clone, Debug)]
pub struct RelationalOptions {
    /// Wall-clock budget of the whole exploration.
    pub budget: Option<Duration>,
    /// At most this many path tuples.
    pub max_pairs: Option<usize>,
    /// Time limit of one solver query.
    pub query_timeout: Option<Duration>,
    /// Time limit of the second pass over the queries that ran into `query_timeout` (`None`:
    /// no second pass).
    pub retry_timeout: Option<Duration>,
    /// Which branch is negated next.
    pub order: RelationalOrder,
    /// Models guessed near the inputs of the run a query starts from before asking Z3 (the
    /// ordinary exploration's guess layer).
    pub guesses: bool,
}

/// The order in which the exploration negates the branches of the path tuples it ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RelationalOrder {
    /// The deepest open branch of the latest run first.
    DepthFirst,
    /// A branch whose other way no run of the same case has taken yet first (the deepest,
    /// latest such branch), then depth first: the cases reach each other's untaken branches,
    /// e.g. a follow-up above a ceiling its partner stays under, early. With one case, depth
    /// first.
    #[default]
    NewBranchesFirst,
}

impl Default for RelationalOptions {
    fn default() -> Self {
        RelationalOptions {
            budget: Some(Duration::from_secs(60)),
            max_pairs: None,
            query_timeout: Some(Duration::from_secs(10)),
            retry_timeout: Some(Duration::from_secs(60)),
            order: RelationalOrder::default(),
            guesses: true,
        }
    }
}

/// A leaf whose violation condition is satisfiable.
#[derive(Clone, Debug)]
pub struct Violation {
    /// The model's values of the input variables (money pulled towards round amounts).
    pub assignment: Assignment,
    /// The path condition of the violating tuple (all cases, in run order).
    pub path: Vec<Term>,
    /// The violation condition at that leaf.
    pub goal: Term,
    /// Seconds from the start of the exploration.
    pub at_s: f64,
}

/// What a relational exploration found.
#[derive(Clone, Debug, Default)]
pub struct RelationalResult {
    /// The first violating leaf, when one was found (the exploration stops there).
    pub violation: Option<Violation>,
    /// Every feasible path tuple was run and every query answered.
    pub complete: bool,
    /// Path tuples run.
    pub path_pairs: usize,
    /// Tuples whose cases all gave outputs and whose violation query was unsatisfiable.
    pub judged_pairs: usize,
    /// Tuples where a case ended in a runtime error or a failed assertion (no outputs to
    /// judge; as in the random search, such inputs are not counted against the relation).
    pub error_pairs: usize,
    /// One message per distinct runtime error met.
    pub error_examples: Vec<String>,
    /// Solver queries answered "unknown" (timeout or non-linear arithmetic), after the
    /// second pass.
    pub unknown_queries: usize,
    /// Queries asked again in the second pass with the longer time limit, and how many of
    /// them it answered.
    pub retried_queries: usize,
    pub resolved_on_retry: usize,
    /// Leaf (violation) queries the first time limit left unanswered.
    pub unknown_leaf_queries: usize,
    /// Path queries answered by a guessed model or the finite layer, without Z3.
    pub queries_without_z3: u64,
    /// Leaves whose goal could not be encoded, with the first reason.
    pub unencoded_leaves: usize,
    pub unencoded_reason: Option<String>,
    /// Operations evaluated concretely on symbolic operands (paths may be missing).
    pub incomplete: BTreeSet<String>,
    /// Why the exploration stopped before the end (budget, pair limit).
    pub stopped: Option<String>,
    pub path_queries: u64,
    pub elapsed_s: f64,
}

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

/// The branches of a product run.
fn branches(run: &ProductRun) -> Vec<Branch> {
    run.path
        .iter()
        .zip(&run.case_of)
        .map(|(c, case)| Branch {
            term: c.term.clone(),
            fixed: c.fixed,
            case: *case,
            span: c.span,
            way: c.way,
        })
        .collect()
}

/// A product run whose branches are negated later.
struct RunRecord {
    assignment: Assignment,
    path: Vec<Branch>,
}

/// A branch to negate: constraint `i` of run `run`, keeping the constraints before it.
#[derive(Clone, Copy, Debug)]
struct Open {
    run: usize,
    i: usize,
}

/// The share of the time spent so far that second-pass queries on leaves may take before
/// every branch is negated.
const LEAF_RETRY_SHARE: f64 = 0.25;

/// A query the first time limit left unanswered, for the second pass.
enum Pending {
    Leaf {
        query: Vec<Term>,
        path: Vec<Term>,
        goal: Term,
    },
    Branch(Open),
}

/// The open branches in the order of [`RelationalOrder`]: `fresh` holds branches whose
/// other way was not taken by any run of their case when they were met, `seen` the others
/// (each in the order met: the deepest branch of the latest run on top).
#[derive(Default)]
struct Frontier {
    fresh: Vec<Open>,
    seen: Vec<Open>,
}

impl Frontier {
    fn is_empty(&self) -> bool {
        self.fresh.is_empty() && self.seen.is_empty()
    }

    fn pick(&mut self, runs: &[RunRecord], covered: &HashSet<(usize, Span, u32)>) -> Option<Open> {
        let mut stale = Vec::new();
        let mut found = None;
        while let Some(o) = self.fresh.pop() {
            let b = &runs[o.run].path[o.i];
            if covered.contains(&(b.case, b.span, b.way ^ 1)) {
                stale.push(o);
            } else {
                found = Some(o);
                break;
            }
        }
        // Branches whose other way was taken meanwhile join the depth-first stack, the
        // deepest on top.
        self.seen.extend(stale.into_iter().rev());
        found.or_else(|| self.seen.pop())
    }
}

/// Everything the leaf and branch queries share.
struct Queries<'a> {
    space: &'a RelationalSpace,
    money: Vec<VarId>,
    /// The globals with roundings as integer variables, and their definitions.
    globals: Vec<Term>,
    options: &'a RelationalOptions,
}

impl Queries<'_> {
    fn session(
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

    fn read_model(&self, session: &CatalaSession) -> Assignment {
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

    fn remember(&self, session: &mut CatalaSession, assignment: &Assignment) {
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

/// Explores every path tuple of the cases of `space` under its globals and asks, at each
/// leaf, whether `goal` can be violated there. Stops at the first violation. Queries the
/// first time limit leaves unanswered are asked again, once the open branches are all
/// negated, with `retry_timeout`; a branch answered then is explored like the others.
pub fn explore_relation(
    program: &Program,
    scope: ScopeId,
    space: &RelationalSpace,
    goal: &mut dyn Goal,
    options: &RelationalOptions,
) -> Result<RelationalResult, ConcolicError> {
    let start = Instant::now();
    let mut result = RelationalResult::default();
    let shapes: Vec<Vec<Option<Shape>>> = space
        .cases
        .iter()
        .map(|inputs| {
            inputs
                .iter()
                .map(|i| i.as_ref().map(CaseInput::shape))
                .collect()
        })
        .collect();
    let cases = shapes
        .iter()
        .cloned()
        .map(|shapes| ProductCase {
            program: 0,
            scope,
            shapes,
        })
        .collect();
    let mut executor = ProductExecutor::new(&[program], cases, true)?;
    let money: Vec<VarId> = (0..space.vars.len())
        .filter(|i| space.vars[*i].is_money)
        .map(|i| VarId(i as u32))
        .collect();
    let mut rounding = IntRounding::new(space.first_free_var.saturating_add(100_000));
    let mut globals: Vec<Term> = space.globals.iter().map(|g| rounding.rewrite(g)).collect();
    globals.extend(rounding.take_definitions());
    // List inputs have the bounds of their shapes, as in the ordinary exploration.
    for shape in shapes.iter().flatten().flatten() {
        shape.length_domains(&mut globals);
    }
    let q = Queries {
        space,
        money,
        globals,
        options,
    };
    let mut session = q.session(options.query_timeout, options.guesses)?;
    // Z3 (and the finite layer) alone, for violations found without Z3 that do not hold.
    let mut confirm: Option<CatalaSession> = None;
    let mut retry_asked = 0u64;
    let mut retry_spent = Duration::ZERO;
    let mut retry_without_z3 = 0u64;
    let finish = |result: &mut RelationalResult, session: &CatalaSession, extra: (u64, u64)| {
        let stats = session.stats();
        result.path_queries = stats.path_queries + extra.0;
        result.queries_without_z3 = stats.fast_queries + extra.1;
        result.elapsed_s = start.elapsed().as_secs_f64();
    };
    // The first assignment: any model of the globals.
    let first = match session.check_path(&[])? {
        QueryOutcome::Sat => q.read_model(&session),
        QueryOutcome::Unsat => {
            result.complete = true;
            result.stopped = Some("no input of the domain satisfies the premise".to_string());
            finish(&mut result, &session, (0, 0));
            return Ok(result);
        }
        QueryOutcome::Unknown => {
            result.unknown_queries += 1;
            result.stopped = Some("the solver could not satisfy the premise".to_string());
            finish(&mut result, &session, (0, 0));
            return Ok(result);
        }
    };
    // One case has no partner to bring to the other side of a branch: depth first, which
    // keeps the solver's stack of common prefixes (about 2.5 times as many pairs per second
    // on the housing benefits).
    let new_first = options.order == RelationalOrder::NewBranchesFirst && space.cases.len() > 1;
    let mut runs: Vec<RunRecord> = Vec::new();
    let mut frontier = Frontier::default();
    let mut covered: HashSet<(usize, Span, u32)> = HashSet::new();
    let mut pending: Vec<Pending> = Vec::new();
    let mut complete = true;
    // The next assignment to run and the first constraint of its path it may negate.
    let mut next: Option<(Assignment, usize)> = Some((first, 0));
    let over_budget = |start: &Instant| options.budget.is_some_and(|b| start.elapsed() >= b);
    let budget_text = || {
        format!(
            "time budget of {:.1} s spent",
            options.budget.map_or(0.0, |b| b.as_secs_f64())
        )
    };
    loop {
        if let Some((assignment, bound)) = next.take() {
            if over_budget(&start) {
                result.stopped = Some(budget_text());
                complete = false;
                break;
            }
            if options.max_pairs.is_some_and(|m| result.path_pairs >= m) {
                result.stopped = Some(format!(
                    "limit of {} path pairs reached",
                    options.max_pairs.unwrap_or(0)
                ));
                complete = false;
                break;
            }
            let run = executor.run(&assignment);
            let path = branches(&run);
            result.path_pairs += 1;
            for b in &path {
                covered.insert((b.case, b.span, b.way));
            }
            match run.leaf {
                ProductLeaf::Error(message) => {
                    result.error_pairs += 1;
                    if result.error_examples.len() < 5 && !result.error_examples.contains(&message)
                    {
                        result.error_examples.push(message);
                    }
                }
                ProductLeaf::Outputs(outputs) => {
                    match goal.violation(&outputs, space.first_free_var) {
                        Err(reason) => {
                            result.unencoded_leaves += 1;
                            result.unencoded_reason.get_or_insert(reason);
                            complete = false;
                        }
                        Ok(g) if matches!(&*g, smt::catala::TermNode::Bool(false)) => {
                            result.judged_pairs += 1;
                        }
                        Ok(g) => {
                            // The leaf query sees roundings as integer variables with their
                            // definitions; the branch queries are those of the ordinary
                            // exploration.
                            let original: Vec<Term> = path.iter().map(|b| b.term.clone()).collect();
                            let mut query: Vec<Term> =
                                original.iter().map(|t| rounding.rewrite(t)).collect();
                            query.push(rounding.rewrite(&g));
                            rounding.take_definitions();
                            let definitions = rounding.definitions_for(&query);
                            query.extend(definitions);
                            q.remember(&mut session, &assignment);
                            // A goal without variables is decided here when the finite layer
                            // can; a violation found without Z3 is confirmed by the goal (the
                            // guesses check the terms whose variables they change, not the
                            // constant ones), else Z3 alone is asked.
                            let mut vars = Vec::new();
                            g.collect_vars(&mut vars);
                            let truth = if vars.is_empty() {
                                match smt::catala::finite::decide(&[&g], &[]) {
                                    Some(smt::catala::finite::Decision::Unsat) => Some(false),
                                    Some(smt::catala::finite::Decision::Sat(_)) => Some(true),
                                    None => None,
                                }
                            } else {
                                None
                            };
                            let mut model_in_confirm = false;
                            let outcome = if truth == Some(false) {
                                QueryOutcome::Unsat
                            } else {
                                let z3_before =
                                    session.stats().path_queries - session.stats().fast_queries;
                                let outcome = session.check_path(&query)?;
                                let by_z3 = session.stats().path_queries
                                    - session.stats().fast_queries
                                    > z3_before;
                                if outcome == QueryOutcome::Sat && !by_z3 {
                                    let candidate = q.violation_model(&mut session, &query)?;
                                    if goal.confirm(&candidate) {
                                        outcome
                                    } else {
                                        let c = match &mut confirm {
                                            Some(c) => c,
                                            None => confirm
                                                .insert(q.session(options.query_timeout, false)?),
                                        };
                                        model_in_confirm = true;
                                        c.check_path(&query)?
                                    }
                                } else {
                                    outcome
                                }
                            };
                            match outcome {
                                QueryOutcome::Unsat => result.judged_pairs += 1,
                                QueryOutcome::Unknown => {
                                    result.unknown_leaf_queries += 1;
                                    pending.push(Pending::Leaf {
                                        query,
                                        path: original,
                                        goal: g,
                                    })
                                }
                                QueryOutcome::Sat => {
                                    let solver = match (&mut confirm, model_in_confirm) {
                                        (Some(c), true) => c,
                                        _ => &mut session,
                                    };
                                    let assignment = q.violation_model(solver, &query)?;
                                    result.violation = Some(Violation {
                                        assignment,
                                        path: original,
                                        goal: g,
                                        at_s: start.elapsed().as_secs_f64(),
                                    });
                                    break;
                                }
                            }
                        }
                    }
                }
            }
            let id = runs.len();
            for (i, b) in path.iter().enumerate().skip(bound) {
                if b.fixed {
                    continue;
                }
                let o = Open { run: id, i };
                if new_first && !covered.contains(&(b.case, b.span, b.way ^ 1)) {
                    frontier.fresh.push(o);
                } else {
                    frontier.seen.push(o);
                }
            }
            runs.push(RunRecord { assignment, path });
            continue;
        }
        if !frontier.is_empty() && over_budget(&start) {
            result.stopped = Some(budget_text());
            complete = false;
            break;
        }
        // A leaf query left unanswered may hold the violation: such queries are asked again
        // while the exploration goes on, with at most a quarter of the time spent so far (and
        // only once that share leaves twice the first limit).
        let allowance = start
            .elapsed()
            .mul_f64(LEAF_RETRY_SHARE)
            .saturating_sub(retry_spent);
        let first_limit = options.query_timeout.unwrap_or(Duration::from_secs(10));
        let early_leaf = if options.retry_timeout.is_some()
            && !frontier.is_empty()
            && allowance >= first_limit * 2
        {
            pending
                .iter()
                .rposition(|p| matches!(p, Pending::Leaf { .. }))
        } else {
            None
        };
        let p = match early_leaf {
            Some(ix) => pending.remove(ix),
            None => {
                if let Some(o) = frontier.pick(&runs, &covered) {
                    q.remember(&mut session, &runs[o.run].assignment);
                    let query = branch_query(&runs, o);
                    match session.check_path(&query)? {
                        QueryOutcome::Sat => next = Some((q.read_model(&session), o.i + 1)),
                        QueryOutcome::Unsat => {}
                        QueryOutcome::Unknown => pending.push(Pending::Branch(o)),
                    }
                    continue;
                }
                // Every branch negated: the second pass, one unanswered query at a time.
                let Some(p) = pending.pop() else { break };
                p
            }
        };
        let remaining = options.budget.map(|b| b.saturating_sub(start.elapsed()));
        let (Some(limit), false) = (options.retry_timeout, over_budget(&start)) else {
            pending.push(p);
            if options.retry_timeout.is_some() {
                result.stopped = Some(budget_text());
            }
            break;
        };
        let limit = remaining.map_or(limit, |r| r.min(limit));
        // Before every branch is negated, a leaf query gets what is left of its share.
        let limit = if early_leaf.is_some() {
            limit.min(allowance)
        } else {
            limit
        };
        let mut long = q.session(Some(limit), false)?;
        result.retried_queries += 1;
        let query = match &p {
            Pending::Leaf { query, .. } => query.clone(),
            Pending::Branch(o) => branch_query(&runs, *o),
        };
        let asked_at = Instant::now();
        let outcome = long.check_path(&query)?;
        retry_spent += asked_at.elapsed();
        let stats = long.stats();
        retry_asked += stats.path_queries;
        retry_without_z3 += stats.fast_queries;
        match (outcome, p) {
            (QueryOutcome::Unknown, _) => {
                result.unknown_queries += 1;
                complete = false;
            }
            (QueryOutcome::Unsat, Pending::Leaf { .. }) => {
                result.resolved_on_retry += 1;
                result.judged_pairs += 1;
            }
            (QueryOutcome::Unsat, Pending::Branch(_)) => result.resolved_on_retry += 1,
            (QueryOutcome::Sat, Pending::Branch(o)) => {
                result.resolved_on_retry += 1;
                next = Some((q.read_model(&long), o.i + 1));
            }
            (QueryOutcome::Sat, Pending::Leaf { query, path, goal }) => {
                result.resolved_on_retry += 1;
                let assignment = q.violation_model(&mut long, &query)?;
                result.violation = Some(Violation {
                    assignment,
                    path,
                    goal,
                    at_s: start.elapsed().as_secs_f64(),
                });
                break;
            }
        }
    }
    // Queries never answered, including those the second pass did not reach.
    result.unknown_queries += pending.len();
    if !pending.is_empty() || !frontier.is_empty() {
        complete = false;
    }
    result.incomplete = executor.incomplete().clone();
    result.complete = complete && result.incomplete.is_empty() && result.violation.is_none();
    finish(&mut result, &session, (retry_asked, retry_without_z3));
    Ok(result)
}
