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
pub(crate) use crate::product_executor::ProductCase;
use crate::product_executor::ProductExecutor;
use crate::relational_loop::{Queries, RelationalLoop};
use crate::ConcolicError;
use catala_ir::dcalc::{Program, ScopeId};
use smt::catala::term::{Term, VarId};
use smt::catala::QueryOutcome;
use std::collections::BTreeSet;
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

pub use crate::product_executor::{CaseFailure, CaseOutcome, CaseOutput, OutputTerm};

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

    /// The condition under which the outcomes of a leaf where some case failed (a runtime
    /// error or failed assertion) count as a violation, for explorations that run every case
    /// whatever the others do ([`LeafMode::every_case`]). `None` (the default): such a leaf
    /// is not judged, as when the first error stops the product run.
    fn outcome_violation(
        &mut self,
        _outcomes: &[CaseOutcome],
        _first_free_var: u32,
    ) -> Option<Result<Term, String>> {
        None
    }
}

/// What the loop does at the leaves: stop at the first violation (a proof of a relation) or
/// collect them all (the regions of a difference); stop each product run at the first
/// failing case, or run every case (an error is then an outcome the goal judges).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeafMode {
    /// Go on after a violating leaf and keep every one in [`RelationalResult::violations`].
    pub collect_all: bool,
    /// Run every case of each product run; leaves with a failed case are judged by
    /// [`Goal::outcome_violation`].
    pub every_case: bool,
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
    /// The identifier of the violating tuple's path (the decisions of its constraints).
    pub id: crate::path_id::PathId,
    /// The path condition of the violating tuple (all cases, in run order).
    pub path: Vec<Term>,
    /// The violation condition at that leaf.
    pub goal: Term,
    /// Seconds from the start of the exploration.
    pub at_s: f64,
    /// The cases' outcomes at that leaf, with their symbolic outputs (kept when the loop
    /// collects every violation, empty otherwise).
    pub outcomes: Vec<CaseOutcome>,
}

/// What a relational exploration found.
#[derive(Clone, Debug, Default)]
pub struct RelationalResult {
    /// The first violating leaf, when one was found (the exploration stops there unless it
    /// collects every violation).
    pub violation: Option<Violation>,
    /// Every violating leaf, in the order found, when the loop collects them all
    /// ([`LeafMode::collect_all`]); `violation` is then the first of them.
    pub violations: Vec<Violation>,
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
    /// Runs of a subtree's inputs that left its prefix (the subtree is then not explored).
    pub divergences: usize,
    /// Subtrees (prefix, inputs) of a restartable exploration that a limit cut short: what
    /// was found in them is not counted, they are to be explored again.
    pub unfinished: Vec<(crate::path_id::PathId, Assignment)>,
    pub path_queries: u64,
    pub elapsed_s: f64,
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
    let scopes = vec![(0, scope); space.cases.len()];
    explore_programs(&[program], &scopes, space, goal, options)
}

/// [`explore_relation`] over cases of several programs (two versions of a law, for a
/// difference): case `k` runs the scope `case_scopes[k].1` of `programs[case_scopes[k].0]`
/// on the inputs `space.cases[k]` builds, and `goal` says at each leaf what differs, e.g.
/// an output or the outcome of the two versions.
pub fn explore_programs(
    programs: &[&Program],
    case_scopes: &[(usize, ScopeId)],
    space: &RelationalSpace,
    goal: &mut dyn Goal,
    options: &RelationalOptions,
) -> Result<RelationalResult, ConcolicError> {
    if case_scopes.len() != space.cases.len()
        || case_scopes.iter().any(|(p, _)| *p >= programs.len())
    {
        return Err(ConcolicError::Worker(
            "each case needs one program and scope".into(),
        ));
    }
    let cases = space
        .cases
        .iter()
        .zip(case_scopes)
        .map(|(inputs, &(program, scope))| ProductCase {
            program,
            scope,
            shapes: inputs
                .iter()
                .map(|i| i.as_ref().map(CaseInput::shape))
                .collect(),
        })
        .collect();
    explore_cases(programs, cases, space, goal, options, LeafMode::default())
}

/// The exploration of the product of `cases` (each with the shapes of its inputs) over the
/// variables and globals of `space` (whose `cases` only count them), with `mode` at the
/// leaves.
pub(crate) fn explore_cases(
    programs: &[&Program],
    cases: Vec<ProductCase>,
    space: &RelationalSpace,
    goal: &mut dyn Goal,
    options: &RelationalOptions,
    mode: LeafMode,
) -> Result<RelationalResult, ConcolicError> {
    let start = Instant::now();
    let mut parts = product_parts(programs, cases, space, options, mode)?;
    // The first assignment: any model of the globals.
    let first = parts.first_assignment()?;
    let mut lp = parts.into_loop(goal, start, mode);
    match first {
        Ok(first) => lp.run(first),
        Err((complete, unknown, why)) => {
            lp.result.complete = complete;
            lp.result.unknown_queries += unknown;
            lp.result.stopped = Some(why.to_string());
            lp.finish_figures();
            Ok(lp.result)
        }
    }
}

/// The parts of a product exploration: the executor, the roundings, what the queries share
/// and the solver chain.
pub(crate) struct ProductParts<'a> {
    pub(crate) executor: ProductExecutor<'a>,
    pub(crate) rounding: IntRounding,
    pub(crate) q: Queries<'a>,
    pub(crate) session: smt::catala::CatalaSession,
    pub(crate) options: &'a RelationalOptions,
}

/// Why no first assignment: complete (the domain is empty), unknown queries, the reason.
pub(crate) type NoFirst = (bool, usize, &'static str);

impl<'a> ProductParts<'a> {
    /// Any model of the globals, or why there is none.
    pub(crate) fn first_assignment(
        &mut self,
    ) -> Result<Result<Assignment, NoFirst>, ConcolicError> {
        Ok(match self.session.check_path(&[])? {
            QueryOutcome::Sat => Ok(self.q.read_model(&self.session)),
            QueryOutcome::Unsat => Err((true, 0, "no input of the domain satisfies the premise")),
            QueryOutcome::Unknown => Err((false, 1, "the solver could not satisfy the premise")),
        })
    }

    /// The loop over these parts, with `goal` at the leaves.
    pub(crate) fn into_loop<'g>(
        self,
        goal: &'g mut dyn Goal,
        start: Instant,
        mode: LeafMode,
    ) -> RelationalLoop<'g, ProductExecutor<'g>>
    where
        'a: 'g,
    {
        let mut lp = RelationalLoop::new(
            goal,
            self.options,
            start,
            (self.executor, self.rounding, self.q),
            self.session,
        );
        lp.mode = mode;
        lp
    }
}

/// The parts of an exploration of the product of `cases` over `space`.
pub(crate) fn product_parts<'a>(
    programs: &[&'a Program],
    cases: Vec<ProductCase>,
    space: &'a RelationalSpace,
    options: &'a RelationalOptions,
    mode: LeafMode,
) -> Result<ProductParts<'a>, ConcolicError> {
    let mut length_domains = Vec::new();
    for case in &cases {
        // List inputs have the bounds of their shapes, as in the ordinary exploration.
        for shape in case.shapes.iter().flatten() {
            shape.length_domains(&mut length_domains);
        }
    }
    let mut executor = ProductExecutor::new(programs, cases, true)?;
    if mode.every_case {
        executor = executor.run_every_case();
    }
    let money: Vec<VarId> = (0..space.vars.len())
        .filter(|i| space.vars[*i].is_money)
        .map(|i| VarId(i as u32))
        .collect();
    let mut rounding = IntRounding::new(space.first_free_var.saturating_add(100_000));
    let mut globals: Vec<Term> = space.globals.iter().map(|g| rounding.rewrite(g)).collect();
    globals.extend(rounding.take_definitions());
    globals.extend(length_domains);
    let q = Queries {
        space,
        money,
        globals,
        options,
    };
    let session = q.session(options.query_timeout, options.guesses)?;
    Ok(ProductParts {
        executor,
        rounding,
        q,
        session,
        options,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::product_executor::tests::version;
    use smt::catala::term::{self, Op};
    use smt::catala::Kind;

    /// The two versions' taxes differ.
    struct Differ;

    impl Goal for Differ {
        fn violation(&mut self, outputs: &[Vec<CaseOutput>], _: u32) -> Result<Term, String> {
            let tax =
                |case: usize| match outputs.get(case).and_then(|o| o.first()).map(|o| o.term()) {
                    Some(OutputTerm::Term(t)) => Ok(t),
                    _ => Err("no tax".to_string()),
                };
            let same = term::app(Op::Eq, vec![tax(0)?, tax(1)?]);
            Ok(term::not(&same))
        }
    }

    /// Both versions on one shared income, 0 to 5,000.
    fn shared_income() -> RelationalSpace {
        let x = term::var(VarId(0), Kind::Int);
        RelationalSpace {
            vars: vec![InputVar {
                kind: Kind::Int,
                path: "income".into(),
                is_money: false,
            }],
            cases: vec![vec![Some(CaseInput::Integer(VarId(0)))]; 2],
            globals: vec![
                term::app(Op::Ge, vec![x.clone(), term::int_const("0")]),
                term::app(Op::Le, vec![x, term::int_const("5000")]),
            ],
            first_free_var: 1,
        }
    }

    #[test]
    fn two_versions_differ_exactly_between_their_thresholds() {
        let (Some(old), Some(new)) = (version(1000), version(2000)) else {
            panic!("the two versions do not compile")
        };
        let Some(scope) = old.scope_by_name("Pay") else {
            panic!("no scope Pay")
        };
        let options = RelationalOptions::default();
        let found = explore_programs(
            &[&old, &new],
            &[(0, scope), (1, scope)],
            &shared_income(),
            &mut Differ,
            &options,
        );
        let found = match found {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        // The taxes differ for an income above 1,000 and at most 2,000.
        let Some(v) = found.violation else {
            panic!("no difference found: {found:?}")
        };
        let income = match v.assignment.first() {
            Some(Some(smt::catala::ModelValue::Int(i))) => i.parse::<i64>().unwrap_or(-1),
            other => panic!("{other:?}"),
        };
        assert!((1001..=2000).contains(&income), "{income}");
        // The same version twice never differs: every path pair judged, complete.
        let same = explore_programs(
            &[&old, &old],
            &[(0, scope), (1, scope)],
            &shared_income(),
            &mut Differ,
            &options,
        );
        let same = match same {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        assert!(same.violation.is_none());
        assert!(same.complete, "{same:?}");
        assert_eq!(same.judged_pairs, same.path_pairs);
    }
}
