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
//! The engine knows nothing of relations: the globals and the goal are terms over the input
//! variables and the outputs of the runs (the `metamorphic` crate builds them).

use crate::inputs::{Assignment, InputVar, Shape};
use crate::int_rounding::IntRounding;
use crate::symbolic::{PathState, Sym};
use crate::ConcolicError;
use catala_eval::eval::Interpreter;
use catala_eval::runtime::Value;
use catala_ir::dcalc::{Program, ScopeId};
use smt::catala::term::{Term, VarId};
use smt::catala::{CatalaSession, QueryOutcome};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// The input variables of all cases and how each case builds its scope inputs from them.
#[derive(Clone, Debug, Default)]
pub struct RelationalSpace {
    /// The input variables; a [`VarId`] is an index here.
    pub vars: Vec<InputVar>,
    /// Per case, per scope input (in declaration order): its shape (`None`: not given).
    pub cases: Vec<Vec<Option<Shape>>>,
    /// Constraints of every query: domains, the relation's premise, definitions of auxiliary
    /// variables (whose ids are at or above `vars.len()`).
    pub globals: Vec<Term>,
    /// First variable id the goal may use for its own auxiliary variables.
    pub first_free_var: u32,
}

/// One output of one case's run: its name, value and symbolic companion.
#[derive(Clone, Debug)]
pub struct CaseOutput {
    pub name: String,
    pub value: Value,
    pub sym: Sym,
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
}

impl Default for RelationalOptions {
    fn default() -> Self {
        RelationalOptions {
            budget: Some(Duration::from_secs(60)),
            max_pairs: None,
            query_timeout: Some(Duration::from_secs(10)),
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
    /// Solver queries answered "unknown" (timeout or non-linear arithmetic).
    pub unknown_queries: usize,
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

/// The outcome of one product run.
enum Leaf {
    Outputs(Vec<Vec<CaseOutput>>),
    Error(String),
}

/// Runs the product program on one assignment: every case in turn, one path state.
fn run_cases(
    interp: &mut Interpreter<'_, Sym>,
    program: &Program,
    scope: ScopeId,
    space: &RelationalSpace,
    assignment: &Assignment,
) -> (Vec<Term>, Leaf) {
    let decl = program.scope(scope);
    interp.session.reset();
    let mut outputs = Vec::with_capacity(space.cases.len());
    let mut leaf = None;
    for shapes in &space.cases {
        let args: Vec<Option<(Value, Sym)>> = shapes
            .iter()
            .map(|s| s.as_ref().and_then(|s| s.build_arg(assignment)))
            .collect();
        let result = interp.run(scope, args);
        match result {
            Ok((_, failures)) if !failures.is_empty() => {
                leaf = Some(Leaf::Error(failures[0].message.clone()));
            }
            Ok(((Value::Struct(s), sym), _)) => {
                let parts: Vec<Sym> = match &sym {
                    Sym::Struct(p) => p.to_vec(),
                    _ => vec![Sym::Concrete; s.fields.len()],
                };
                outputs.push(
                    decl.outputs
                        .iter()
                        .zip(s.fields.iter())
                        .zip(parts)
                        .map(|((o, v), sym)| CaseOutput {
                            name: o.name.clone(),
                            value: v.clone(),
                            sym,
                        })
                        .collect(),
                );
            }
            Ok(_) => outputs.push(Vec::new()),
            Err(e) => {
                let message = match interp.take_failures().into_iter().next() {
                    Some(a) => a.message,
                    None => e.message.clone(),
                };
                leaf = Some(Leaf::Error(message));
            }
        }
        if leaf.is_some() || interp.session.assertion_failed {
            break;
        }
    }
    let path = interp
        .session
        .constraints
        .iter()
        .map(|c| c.term.clone())
        .collect();
    (path, leaf.unwrap_or(Leaf::Outputs(outputs)))
}

/// Explores every path tuple of the cases of `space` under its globals and asks, at each
/// leaf, whether `goal` can be violated there. Stops at the first violation.
pub fn explore_relation(
    program: &Program,
    scope: ScopeId,
    space: &RelationalSpace,
    goal: &mut dyn Goal,
    options: &RelationalOptions,
) -> Result<RelationalResult, ConcolicError> {
    let start = Instant::now();
    let mut result = RelationalResult::default();
    let mut interp = Interpreter::<Sym>::new(program, PathState::new(true))
        .map_err(|e| ConcolicError::Runtime(Box::new(e)))?;
    let timeout_ms = options
        .query_timeout
        .map(|t| u32::try_from(t.as_millis()).unwrap_or(u32::MAX).max(1));
    let mut session = CatalaSession::new(timeout_ms, true);
    let money: Vec<VarId> = (0..space.vars.len())
        .filter(|i| space.vars[*i].is_money)
        .map(|i| VarId(i as u32))
        .collect();
    session.enable_fast_path(money.clone());
    let mut rounding = IntRounding::new(space.first_free_var.saturating_add(100_000));
    for g in &space.globals {
        let g = rounding.rewrite(g);
        session.add_global(&g)?;
    }
    for d in rounding.take_definitions() {
        session.add_global(&d)?;
    }
    let read_model = |session: &CatalaSession| -> Assignment {
        space
            .vars
            .iter()
            .enumerate()
            .map(|(i, v)| session.value(VarId(i as u32), v.kind))
            .collect()
    };
    // The first assignment: any model of the globals.
    let first = match session.check_path(&[])? {
        QueryOutcome::Sat => read_model(&session),
        QueryOutcome::Unsat => {
            result.complete = true;
            result.stopped = Some("no input of the domain satisfies the premise".to_string());
            result.path_queries = session.stats().path_queries;
            result.elapsed_s = start.elapsed().as_secs_f64();
            return Ok(result);
        }
        QueryOutcome::Unknown => {
            result.unknown_queries += 1;
            result.stopped = Some("the solver could not satisfy the premise".to_string());
            result.path_queries = session.stats().path_queries;
            result.elapsed_s = start.elapsed().as_secs_f64();
            return Ok(result);
        }
    };
    // Depth first: (assignment, first constraint it may negate).
    let mut stack: Vec<(Assignment, usize)> = vec![(first, 0)];
    let mut complete = true;
    while let Some((assignment, bound)) = stack.pop() {
        if options.budget.is_some_and(|b| start.elapsed() >= b) {
            result.stopped = Some(format!(
                "time budget of {:.1} s spent",
                options.budget.map_or(0.0, |b| b.as_secs_f64())
            ));
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
        let (path, leaf) = run_cases(&mut interp, program, scope, space, &assignment);
        result.path_pairs += 1;
        // The leaf query sees roundings as integer variables with their definitions; the
        // branch queries are those of the ordinary exploration.
        let original = path;
        let path = &original;
        match leaf {
            Leaf::Error(message) => {
                result.error_pairs += 1;
                if result.error_examples.len() < 5 && !result.error_examples.contains(&message) {
                    result.error_examples.push(message);
                }
            }
            Leaf::Outputs(outputs) => match goal.violation(&outputs, space.first_free_var) {
                Err(reason) => {
                    result.unencoded_leaves += 1;
                    result.unencoded_reason.get_or_insert(reason);
                    complete = false;
                }
                Ok(g) if matches!(&*g, smt::catala::TermNode::Bool(false)) => {
                    result.judged_pairs += 1;
                }
                Ok(g) => {
                    let mut query: Vec<Term> =
                        original.iter().map(|t| rounding.rewrite(t)).collect();
                    query.push(rounding.rewrite(&g));
                    rounding.take_definitions();
                    let definitions = rounding.definitions_for(&query);
                    query.extend(definitions);
                    match session.check_path(&query)? {
                        QueryOutcome::Unsat => result.judged_pairs += 1,
                        QueryOutcome::Unknown => {
                            result.unknown_queries += 1;
                            complete = false;
                        }
                        QueryOutcome::Sat => {
                            let mut used = Vec::new();
                            for t in &query {
                                t.collect_vars(&mut used);
                            }
                            let constrained: Vec<VarId> = money
                                .iter()
                                .copied()
                                .filter(|v| used.binary_search(v).is_ok())
                                .collect();
                            session.round_money(&constrained)?;
                            let assignment = read_model(&session);
                            result.violation = Some(Violation {
                                assignment,
                                path: original.clone(),
                                goal: g,
                                at_s: start.elapsed().as_secs_f64(),
                            });
                            complete = false;
                            break;
                        }
                    }
                }
            },
        }
        // Negate each constraint from `bound` on: the deepest first on the stack's top.
        for i in bound..path.len() {
            if options.budget.is_some_and(|b| start.elapsed() >= b) {
                // The branches left unnegated are unexplored: the loop above reports it.
                stack.push((assignment.clone(), i));
                break;
            }
            let mut query: Vec<Term> = path[..i].to_vec();
            query.push(smt::catala::term::not(&path[i]));
            match session.check_path(&query)? {
                QueryOutcome::Sat => stack.push((read_model(&session), i + 1)),
                QueryOutcome::Unsat => {}
                QueryOutcome::Unknown => {
                    result.unknown_queries += 1;
                    complete = false;
                }
            }
        }
    }
    result.incomplete = interp.session.incomplete.clone();
    result.complete = complete && result.incomplete.is_empty() && result.violation.is_none();
    result.path_queries = session.stats().path_queries;
    result.elapsed_s = start.elapsed().as_secs_f64();
    Ok(result)
}
