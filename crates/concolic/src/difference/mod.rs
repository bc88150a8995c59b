//! The difference of two versions of a scope: for which inputs some output, or the outcome,
//! differs. One concolic exploration of the product program (case 0: OLD's scope, case 1:
//! NEW's, on the same symbolic inputs, see [`interface`]) visits every pair of paths; at each
//! leaf the solver is asked whether the outcomes can differ there ([`compare`]: an output
//! with another value, an error in one version only, errors of different kinds). Every
//! differing leaf is kept, with its path condition, its difference condition and a model
//! (money pulled towards round amounts); leaves are grouped into [`Region`]s by what differs
//! at their model (which outputs, which outcomes), and each region gets an example (both
//! versions run on the model) and the range of the difference of each differing integer or
//! money output ([`range`]).
//!
//! The exploration may be directed at the code that changed ([`ChangedCode`],
//! [`directed`]): the branches leading to it are negated first; only the order changes.
//!
//! `equivalent` is said only when every path pair within the bounds ([`Bounds`]) was explored
//! and every leaf query answered; whatever was concretised, skipped or left unanswered is in
//! [`DifferenceResult::incomplete`].

mod compare;
pub mod directed;
mod gates;
mod interface;
mod parallel;
mod part;
mod plan;
mod product;
pub mod range;

pub use crate::plan::Plan;
pub use directed::{ChangedCode, SameLine};
pub use interface::InterfaceMapping;
pub use part::{assignment_from_json, assignment_json, DifferencePart, FoundLeaf};
use product::{PortableMapping, Product};
pub use range::{Bound, DifferenceRange};

use crate::condition_inputs::condition_inputs;
use crate::inputs::{Assignment, Bounds, Shape};
use crate::int_rounding::IntRounding;
use crate::path_id::PathId;
use crate::product_executor::{
    CaseFailure, CaseOutcome, ProductCase, ProductExecutor, ProductLeaf,
};
use crate::relational::{
    explore_cases, RelationalOptions, RelationalResult, RelationalSpace, Violation,
};
use crate::relational_loop::Queries;
use crate::ConcolicError;
use catala_eval::runtime::json::value_to_json;
use catala_eval::runtime::Value;
use catala_ir::dcalc::{Program, ScopeId};
use compare::{any, DifferenceGoal};
use smt::catala::term::{app, var, Kind, Op, Term, VarId};
use std::collections::BTreeMap;

/// Limits of a difference exploration.
#[derive(Clone, Debug)]
pub struct DifferenceOptions {
    /// Budget, pair limit, query time limits, branch order.
    pub exploration: RelationalOptions,
    /// The most elements a list input has.
    pub max_list_length: usize,
    /// Compute the range of each differing numeric output within each region.
    pub ranges: bool,
    /// Threads exploring the pair's path tree (1: no plan, one loop).
    pub jobs: usize,
    /// The code that changed: the branches leading to it are negated first (`None`, or
    /// nothing changed: the undirected order).
    pub changed: Option<ChangedCode>,
}

impl Default for DifferenceOptions {
    fn default() -> Self {
        DifferenceOptions {
            exploration: RelationalOptions {
                budget: None,
                ..RelationalOptions::default()
            },
            max_list_length: crate::inputs::DEFAULT_MAX_LIST_LENGTH,
            ranges: true,
            jobs: 1,
            changed: None,
        }
    }
}

/// The answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No input within the bounds makes the versions differ (the exploration is complete).
    Equivalent,
    /// Some inputs make them differ (the regions say which).
    Differs,
    /// No difference found, but the exploration is not complete.
    Unknown,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Equivalent => "equivalent",
            Verdict::Differs => "differs",
            Verdict::Unknown => "unknown",
        }
    }
}

/// How one version ended on an input.
#[derive(Clone, Debug)]
pub enum VersionOutcome {
    /// Its outputs, by name, in declaration order.
    Outputs(Vec<(String, Value)>),
    /// A runtime error or failed assertion.
    Failed(CaseFailure),
}

impl VersionOutcome {
    /// `outputs`, or the error's kind (`conflict`, `no_value`, …).
    pub fn kind(&self) -> &str {
        match self {
            VersionOutcome::Outputs(_) => "outputs",
            VersionOutcome::Failed(f) => &f.kind,
        }
    }
}

/// What differs in a region.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// This output (OLD's name, NEW's name) has another value.
    Output { old: String, new: String },
    /// The outcome kinds differ (`outputs`, `conflict`, `no_value`, …).
    Outcome { old: String, new: String },
}

/// An example of a region: the inputs (of each version, by name) and both outcomes.
#[derive(Clone, Debug)]
pub struct Example {
    /// OLD's inputs (`None`: a context input not given).
    pub old_inputs: Vec<(String, Option<Value>)>,
    /// NEW's inputs.
    pub new_inputs: Vec<(String, Option<Value>)>,
    pub old: VersionOutcome,
    pub new: VersionOutcome,
}

/// The range of NEW − OLD of one output in a region.
#[derive(Clone, Debug)]
pub struct OutputRange {
    /// OLD's name of the output.
    pub output: String,
    /// Money (in cents) rather than an integer.
    pub money: bool,
    pub range: DifferenceRange,
}

/// The differing leaves that have the same change.
#[derive(Clone, Debug)]
pub struct Region {
    /// What differs, sorted.
    pub changes: Vec<Change>,
    /// Per leaf: its path condition and difference condition (one conjunction).
    pub paths: Vec<Vec<Term>>,
    pub example: Example,
    /// The range of the difference of each differing integer or money output, when computed.
    pub ranges: Vec<OutputRange>,
}

/// What a difference exploration found.
#[derive(Clone, Debug)]
pub struct DifferenceResult {
    pub verdict: Verdict,
    pub regions: Vec<Region>,
    /// Every path pair within the bounds was explored and every leaf query answered.
    pub complete: bool,
    /// Why not complete: concretised operations, inputs without a symbolic model, unanswered
    /// queries, unencoded leaves, a stop.
    pub incomplete: Vec<String>,
    /// What the comparison leaves aside or assumes (inputs or outputs in one version only,
    /// defaults).
    pub notes: Vec<String>,
    /// The names and units of the input variables, for conditions over them.
    pub inputs: explain::Inputs,
    /// The bounds the exploration is complete within.
    pub bounds: Bounds,
    /// The exploration's figures (its `violations` moved into the regions).
    pub stats: RelationalResult,
}

/// Errors of a difference: the interfaces cannot be matched, or the exploration failed.
#[derive(Debug, thiserror::Error)]
pub enum DifferenceError {
    #[error("{0}")]
    Interface(String),
    #[error(transparent)]
    Concolic(#[from] ConcolicError),
}

/// Explores `old_scope` of `old` and `new_scope` of `new` on the same inputs and reports
/// every region where they differ. With `options.jobs` above 1, a plan cuts the pair's path
/// tree into subtrees that as many threads explore ([`parallel`]); the result is the same,
/// up to the models (the examples) the solver picks.
pub fn explore_difference(
    (old, old_scope): (&Program, ScopeId),
    (new, new_scope): (&Program, ScopeId),
    mapping: &InterfaceMapping,
    options: &DifferenceOptions,
) -> Result<DifferenceResult, DifferenceError> {
    if options.jobs > 1 {
        let start = std::time::Instant::now();
        let (old, new) = ((old, old_scope), (new, new_scope));
        let subtrees = options.jobs.saturating_mul(SUBTREES_PER_JOB);
        let plan = plan_difference(old, new, mapping, options, options.jobs, subtrees)?;
        let part = explore_plan(old, new, mapping, options, &plan, None, start)?;
        return difference_of_part(old, new, mapping, options, part);
    }
    let product = product_of((old, old_scope), (new, new_scope), mapping, options)?;
    let mut goal = product.goal(old, new);
    let programs = [old, new];
    let Some(direction) = direction((old, new), options) else {
        let stats = explore_cases(
            &programs,
            product.cases.clone(),
            &product.space,
            &mut goal,
            &options.exploration,
            product::MODE,
        )?;
        return conclude(&product, (old, new), stats, options);
    };
    let start = std::time::Instant::now();
    let mut parts = product.parts(&programs, &options.exploration)?;
    let first = parts.first_assignment()?;
    let mut lp = parts.into_loop(&mut goal, start, product::MODE);
    lp.direction = Some(direction);
    let stats = match first {
        Ok(first) => lp.run(first)?,
        Err((complete, unknown, why)) => {
            lp.result.complete = complete;
            lp.result.unknown_queries += unknown;
            lp.result.stopped = Some(why.to_string());
            lp.finish_figures();
            lp.result
        }
    };
    conclude(&product, (old, new), stats, options)
}

/// The direction of the exploration at the code that changed, when some did.
pub(crate) fn direction<'a>(
    (old, new): (&Program, &Program),
    options: &DifferenceOptions,
) -> Option<Box<dyn crate::relational_loop::Direction + 'a>> {
    let changed = options.changed.as_ref().filter(|c| !c.is_empty())?;
    Some(Box::new(directed::ChangeDirection::new(old, new, changed)))
}

/// The subtrees a plan for `--jobs` has per thread: enough for a thread that took a long one
/// to leave the others to the rest.
pub const SUBTREES_PER_JOB: usize = 32;

/// A plan cutting the pair's path tree into about `subtrees` disjoint subtrees for `shards`
/// shards ([`plan`]).
pub fn plan_difference(
    (old, old_scope): (&Program, ScopeId),
    (new, new_scope): (&Program, ScopeId),
    mapping: &InterfaceMapping,
    options: &DifferenceOptions,
    shards: usize,
    subtrees: usize,
) -> Result<Plan, DifferenceError> {
    let product = product_of((old, old_scope), (new, new_scope), mapping, options)?;
    Ok(plan::make_plan(
        &product,
        &[old, new],
        &options.exploration,
        shards,
        subtrees,
    )?)
}

/// Explores the subtrees of `plan` (those of shard `shard` when given) with `options.jobs`
/// threads. The plan's lost subtrees (queries the solver gave up on while making it) count
/// against the whole exploration, or against shard 0.
pub fn explore_plan(
    old: (&Program, ScopeId),
    new: (&Program, ScopeId),
    mapping: &InterfaceMapping,
    options: &DifferenceOptions,
    plan: &Plan,
    shard: Option<usize>,
    start: std::time::Instant,
) -> Result<DifferencePart, DifferenceError> {
    let seeds = plan_seeds(plan, shard);
    let mut part = explore_with_jobs(old, new, mapping, options, seeds, false, start)?;
    if plan.unknown_queries > 0 && shard.unwrap_or(0) == 0 {
        part.complete = false;
        part.unknown_queries += plan.unknown_queries;
    }
    Ok(part)
}

/// The subtrees (prefix, inputs) of `plan` (those of shard `shard` when given), the heaviest
/// first.
pub fn plan_seeds(plan: &Plan, shard: Option<usize>) -> Vec<(PathId, Assignment)> {
    plan::seeds(plan, shard)
}

/// Explores the subtrees `seeds` with `options.jobs` threads, giving back those a limit left
/// or cut short ([`DifferencePart::left`], what was found in them not counted): what a
/// checkpoint saves, and a resumption explores.
pub fn explore_subtrees(
    old: (&Program, ScopeId),
    new: (&Program, ScopeId),
    mapping: &InterfaceMapping,
    options: &DifferenceOptions,
    seeds: Vec<(PathId, Assignment)>,
    start: std::time::Instant,
) -> Result<DifferencePart, DifferenceError> {
    explore_with_jobs(old, new, mapping, options, seeds, true, start)
}

/// The product of the pair's programs and interface, as every entry point builds it.
fn product_of(
    old: (&Program, ScopeId),
    new: (&Program, ScopeId),
    mapping: &InterfaceMapping,
    options: &DifferenceOptions,
) -> Result<Product, DifferenceError> {
    Product::new(old, new, mapping, options.max_list_length)
}

/// Explores `seeds` with `options.jobs` threads; `restartable`: whether the subtrees a limit
/// leaves are given back (for a checkpoint) rather than counted as unexplored.
fn explore_with_jobs(
    old: (&Program, ScopeId),
    new: (&Program, ScopeId),
    mapping: &InterfaceMapping,
    options: &DifferenceOptions,
    seeds: Vec<(PathId, Assignment)>,
    restartable: bool,
    start: std::time::Instant,
) -> Result<DifferencePart, DifferenceError> {
    let portable = PortableMapping::of(mapping, new.0);
    let jobs = (options.jobs, restartable);
    parallel::explore_seeds(old, new, &portable, options, seeds, jobs, start)
}

/// The result of the leaves and figures of `part` (all the parts of an exploration, added):
/// the differing leaves rebuilt on the pair, then grouped into regions as a single
/// exploration groups them.
pub fn difference_of_part(
    (old, old_scope): (&Program, ScopeId),
    (new, new_scope): (&Program, ScopeId),
    mapping: &InterfaceMapping,
    options: &DifferenceOptions,
    part: DifferencePart,
) -> Result<DifferenceResult, DifferenceError> {
    let product = product_of((old, old_scope), (new, new_scope), mapping, options)?;
    let mut goal = product.goal(old, new);
    let (mut stats, found) = part.into_result();
    let (violations, lost) = product.rebuild(&[old, new], &mut goal, &found)?;
    if lost > 0 {
        stats.complete = false;
        stats.unencoded_leaves += lost;
        stats
            .unencoded_reason
            .get_or_insert_with(|| "a differing pair could not be run again".into());
    }
    stats.violations = violations;
    conclude(&product, (old, new), stats, options)
}

/// The regions of the differing leaves of `stats`, and what makes the answer partial.
fn conclude(
    product: &Product,
    (old, new): (&Program, &Program),
    mut stats: RelationalResult,
    options: &DifferenceOptions,
) -> Result<DifferenceResult, DifferenceError> {
    let (iface, space, cases) = (&product.iface, &product.space, &product.cases);
    let (old_scope, programs) = (cases[0].scope, [old, new]);
    let goal = product.goal(old, new);
    let mut violations = std::mem::take(&mut stats.violations);
    // Regions, their paths and examples in the order of the path identifiers, whatever the
    // order the leaves were found in.
    violations.sort_by(|a, b| a.id.cmp(&b.id));
    stats.violation = None;
    let mut incomplete: Vec<String> = stats.incomplete.iter().cloned().collect();
    incomplete.extend(iface.space.fixed.iter().cloned());
    if let Some(why) = &stats.stopped {
        incomplete.push(format!("stopped: {why}"));
    }
    if stats.divergences > 0 {
        incomplete.push(format!(
            "{} subtrees not explored: the run of their inputs left them",
            stats.divergences
        ));
    }
    let complete = stats.complete && iface.space.fixed.is_empty();
    // Regions: the leaves grouped by what differs at their model.
    let mut rerun = ProductExecutor::new(&programs, cases.clone(), true)?.run_every_case();
    let mut groups: BTreeMap<Vec<Change>, (Vec<Violation>, Example)> = BTreeMap::new();
    for v in violations {
        let (changes, example) = example_of(&mut rerun, iface, (old, new), cases, &v);
        let entry = groups
            .entry(changes)
            .or_insert_with(|| (Vec::new(), example));
        entry.0.push(v);
    }
    let mut regions = Vec::with_capacity(groups.len());
    let mut ranges_of = RangeFinder::new(space, &options.exploration)?;
    let old_outputs: Vec<String> = old
        .scope(old_scope)
        .outputs
        .iter()
        .map(|o| o.name.clone())
        .collect();
    for (changes, (leaves, example)) in groups {
        let ranges = if options.ranges {
            ranges_of.ranges(&goal, &changes, &leaves, &old_outputs)?
        } else {
            Vec::new()
        };
        let mut paths = Vec::with_capacity(leaves.len());
        for v in &leaves {
            let mut p = v.path.clone();
            // The difference condition joins the path condition unless the path implies it
            // (a constant change, or one that holds wherever the path goes): the region's
            // condition then reads over the inputs alone.
            if !ranges_of.implied(&v.path, &v.goal)? {
                p.push(v.goal.clone());
            }
            paths.push(p);
        }
        regions.push(Region {
            changes,
            paths,
            example,
            ranges,
        });
    }
    let mut notes = iface.notes.clone();
    if ranges_of.skipped > 0 {
        notes.push(format!(
            "{} difference ranges not searched: time budget spent",
            ranges_of.skipped
        ));
    }
    let verdict = if !regions.is_empty() {
        Verdict::Differs
    } else if complete {
        Verdict::Equivalent
    } else {
        Verdict::Unknown
    };
    let shapes: Vec<Shape> = iface.old_shapes.iter().flatten().cloned().collect();
    let inputs = condition_inputs(old, &iface.space, &shapes);
    Ok(DifferenceResult {
        verdict,
        regions,
        complete,
        incomplete,
        notes,
        inputs,
        bounds: Bounds {
            max_list_length: options.max_list_length,
            raised: BTreeMap::new(),
            preferred_dates: None,
            input_assertions: Vec::new(),
        },
        stats,
    })
}

/// Runs both versions on the leaf's model: the example, and what differs there.
fn example_of(
    rerun: &mut ProductExecutor<'_>,
    iface: &interface::Interface,
    (old, new): (&Program, &Program),
    cases: &[ProductCase],
    v: &Violation,
) -> (Vec<Change>, Example) {
    let run = rerun.run(&v.assignment);
    let outcomes = match run.leaf {
        ProductLeaf::Outcomes(o) => o,
        _ => Vec::new(),
    };
    let outcome = |k: usize| match outcomes.get(k) {
        Some(CaseOutcome::Outputs(o)) => VersionOutcome::Outputs(
            o.iter()
                .map(|x| (x.name.clone(), x.value.clone()))
                .collect(),
        ),
        Some(CaseOutcome::Failed(f)) => VersionOutcome::Failed(f.clone()),
        None => VersionOutcome::Failed(CaseFailure {
            kind: "internal".into(),
            message: "the version did not run".into(),
            spans: Vec::new(),
        }),
    };
    let (o, n) = (outcome(0), outcome(1));
    let mut changes = Vec::new();
    if let (VersionOutcome::Outputs(a), VersionOutcome::Outputs(b)) = (&o, &n) {
        for &(k, j) in &iface.outputs {
            if let (Some((na, va)), Some((nb, vb))) = (a.get(k), b.get(j)) {
                if value_to_json(old, va) != value_to_json(new, vb) {
                    changes.push(Change::Output {
                        old: na.clone(),
                        new: nb.clone(),
                    });
                }
            }
        }
    }
    if o.kind() != n.kind() || changes.is_empty() {
        changes.push(Change::Outcome {
            old: o.kind().to_string(),
            new: n.kind().to_string(),
        });
    }
    changes.sort();
    let inputs = |program: &Program, case: &ProductCase| {
        let decl = program.scope(case.scope);
        decl.inputs
            .iter()
            .zip(&case.shapes)
            .filter_map(|(i, s)| {
                let s = s.as_ref()?;
                Some((i.name.clone(), s.build_arg(&v.assignment).map(|(x, _)| x)))
            })
            .collect()
    };
    let example = Example {
        old_inputs: inputs(old, &cases[0]),
        new_inputs: inputs(new, &cases[1]),
        old: o,
        new: n,
    };
    (changes, example)
}

/// Asks the ranges of the differences of a region's outputs.
struct RangeFinder<'a> {
    q: Queries<'a>,
    rounding: IntRounding,
    session: Option<smt::catala::CatalaSession>,
    /// The variable standing for the difference.
    d: VarId,
    /// When a budget was given: the time after which no more ranges are searched and no more
    /// implications checked (a quarter of the budget after the exploration, at least 10 s).
    deadline: Option<std::time::Instant>,
    /// Ranges left out for the deadline.
    skipped: usize,
}

impl<'a> RangeFinder<'a> {
    fn new(
        space: &'a RelationalSpace,
        options: &'a RelationalOptions,
    ) -> Result<RangeFinder<'a>, ConcolicError> {
        let money = (0..space.vars.len())
            .filter(|i| space.vars[*i].is_money)
            .map(|i| VarId(i as u32))
            .collect();
        let mut rounding = IntRounding::new(space.first_free_var.saturating_add(200_000));
        let mut globals: Vec<Term> = space.globals.iter().map(|g| rounding.rewrite(g)).collect();
        globals.extend(rounding.take_definitions());
        Ok(RangeFinder {
            q: Queries {
                space,
                money,
                globals,
                options,
            },
            rounding,
            session: None,
            d: VarId(space.first_free_var),
            deadline: options.budget.map(|b| {
                std::time::Instant::now() + (b / 4).max(std::time::Duration::from_secs(10))
            }),
            skipped: 0,
        })
    }

    fn session(&mut self) -> Result<&mut smt::catala::CatalaSession, ConcolicError> {
        if self.session.is_none() {
            self.session = Some(self.q.session(self.q.options.query_timeout, false)?);
        }
        self.session
            .as_mut()
            .ok_or_else(|| ConcolicError::Worker("no solver session".into()))
    }

    /// Whether the path condition `path` implies the difference condition `goal` (no input on
    /// the path makes the versions agree).
    fn implied(&mut self, path: &[Term], goal: &Term) -> Result<bool, ConcolicError> {
        if matches!(&**goal, smt::catala::TermNode::Bool(true)) {
            return Ok(true);
        }
        if self.past_deadline() {
            return Ok(false);
        }
        let mut query: Vec<Term> = path.iter().map(|t| self.rounding.rewrite(t)).collect();
        query.push(smt::catala::term::not(&self.rounding.rewrite(goal)));
        self.rounding.take_definitions();
        let definitions = self.rounding.definitions_for(&query);
        query.extend(definitions);
        let outcome = self.session()?.check_path(&query)?;
        Ok(outcome == smt::catala::QueryOutcome::Unsat)
    }

    fn past_deadline(&self) -> bool {
        self.deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
    }

    /// The ranges of the integer and money outputs among `changes` over `leaves`.
    fn ranges(
        &mut self,
        goal: &DifferenceGoal<'_>,
        changes: &[Change],
        leaves: &[Violation],
        old_outputs: &[String],
    ) -> Result<Vec<OutputRange>, ConcolicError> {
        let mut out = Vec::new();
        for change in changes {
            let Change::Output { old: name, .. } = change else {
                continue;
            };
            if self.past_deadline() {
                self.skipped += 1;
                continue;
            }
            let Some(&(k, j)) = goal
                .outputs
                .iter()
                .find(|(k, _)| old_outputs.get(*k) == Some(name))
            else {
                continue;
            };
            // Per leaf: its path, its difference, and d = new − old.
            let mut disjuncts = Vec::new();
            let mut money = false;
            let mut numeric = true;
            for v in leaves {
                let (Some(CaseOutcome::Outputs(a)), Some(CaseOutcome::Outputs(b))) =
                    (v.outcomes.first(), v.outcomes.get(1))
                else {
                    numeric = false;
                    break;
                };
                let (Some(x), Some(y)) = (a.get(k), b.get(j)) else {
                    numeric = false;
                    break;
                };
                money = matches!(x.value, Value::Money(_));
                let integral = matches!(x.value, Value::Money(_) | Value::Integer(_))
                    && matches!(y.value, Value::Money(_) | Value::Integer(_));
                let (
                    crate::relational::OutputTerm::Term(tx),
                    crate::relational::OutputTerm::Term(ty),
                ) = (x.term(), y.term())
                else {
                    numeric = false;
                    break;
                };
                if !integral || tx.kind() != Kind::Int || ty.kind() != Kind::Int {
                    numeric = false;
                    break;
                }
                let mut conj: Vec<Term> = v.path.iter().map(|t| self.rounding.rewrite(t)).collect();
                conj.push(self.rounding.rewrite(&v.goal));
                let diff = app(Op::Sub, vec![ty, tx]);
                conj.push(app(
                    Op::Eq,
                    vec![var(self.d, Kind::Int), self.rounding.rewrite(&diff)],
                ));
                disjuncts.push(app(Op::And, conj));
            }
            if !numeric || disjuncts.is_empty() {
                continue;
            }
            self.rounding.take_definitions();
            let region = any(disjuncts);
            let mut with_definitions = vec![region.clone()];
            with_definitions.extend(self.rounding.definitions_for(&[region]));
            let region = app(Op::And, with_definitions);
            let (d, deadline) = (self.d, self.deadline);
            if let Some(range) = range::range_of(self.session()?, &region, d, deadline)? {
                out.push(OutputRange {
                    output: name.clone(),
                    money,
                    range,
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
