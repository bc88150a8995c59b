//! Metamorphic relations proved or refuted symbolically on a Catala scope. For each relation,
//! [`encode`] declares the variables of its cases (a follow-up shares its partner's variables
//! except on the fields the premise lets differ) and turns the domain and the premise into
//! constraints; [`concolic::relational::explore_relation`] explores every path pair (tuple,
//! for four cases) of the scope run on all cases and asks at each leaf whether the conclusion
//! can fail; a model is replayed on the plain interpreter ([`replay`]) and reported with the
//! region it lies in ([`region`]). Verdicts: `refuted` (a replayed counterexample), `proved`
//! (the exploration is complete and no leaf admits a violation), `unknown` (with the reason:
//! budget, solver, an operation the symbolic side does not track, a shape that cannot be
//! encoded). [`report`] gives the JSON and text forms.

pub mod encode;
pub mod region;
pub mod replay;
pub mod report;

use crate::domain::Domain;
use crate::relation::Relation;
use crate::system::SystemUnderTest;
use crate::value::Record;
use catala_ir::dcalc::{Program, ScopeId};
pub use concolic::relational::RelationalOrder;
use concolic::relational::{explore_relation, RelationalOptions, RelationalResult};
use std::time::{Duration, Instant};

/// The symbolic verdict on one relation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProofVerdict {
    Refuted,
    Proved,
    Unknown,
}

impl ProofVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            ProofVerdict::Refuted => "refuted",
            ProofVerdict::Proved => "proved",
            ProofVerdict::Unknown => "unknown",
        }
    }
}

/// A replayed counterexample.
#[derive(Debug, Clone)]
pub struct Counterexample {
    /// The cases' inputs, in the relation's variable order.
    pub cases: Vec<Record>,
    /// Their outputs as the plain interpreter gave them (with `F`).
    pub outputs: Vec<Record>,
    /// How far the conclusion is from holding.
    pub deviation: f64,
}

/// What the symbolic check found on one relation.
#[derive(Debug, Clone)]
pub struct ProofReport {
    pub relation: String,
    pub verdict: ProofVerdict,
    /// Why the verdict is `unknown`.
    pub reason: Option<String>,
    /// What the verdict covers.
    pub note: String,
    /// The case variables, and for each follow-up the case it shares its fields with.
    pub cases: Vec<String>,
    pub sharing: Vec<String>,
    pub path_pairs: usize,
    pub judged_pairs: usize,
    pub error_pairs: usize,
    pub error_examples: Vec<String>,
    pub unknown_queries: usize,
    /// Queries asked again with the longer time limit, and how many it answered.
    pub retried_queries: usize,
    pub resolved_on_retry: usize,
    /// Leaf (violation) queries the first time limit left unanswered.
    pub unknown_leaf_queries: usize,
    pub path_queries: u64,
    /// Path queries answered without Z3 (guessed models, the finite layer).
    pub queries_without_z3: u64,
    pub first_counterexample_s: Option<f64>,
    pub elapsed_s: f64,
    pub counterexample: Option<Counterexample>,
    /// The path condition of the violating pair over the field names.
    pub region: Vec<String>,
    /// The same read through the domain's declared features, when some constraint is a
    /// multiple of one (`200 < x.burden <= 1000`).
    pub region_features: Option<Vec<String>>,
    /// For a refuted relation: the random search run beside it and its decision tree.
    pub random_search: Option<SearchBeside>,
}

/// The random search's view of a refuted relation, shown beside the symbolic region.
#[derive(Debug, Clone)]
pub struct SearchBeside {
    pub budget_s: f64,
    pub elapsed_s: f64,
    pub tests: usize,
    pub failed: usize,
    pub first_failure_s: Option<f64>,
    /// The explanation as text (a lexicographic tree, or why there is none).
    pub explanation: String,
    /// The conditions of the tree's paths to failing leaves (empty without a tree).
    pub failure_paths: Vec<Vec<String>>,
    pub accuracy: Option<f64>,
}

/// Runs the random search on `relation` for `config.tree_budget` and explains its failures.
fn search_beside(
    relation: &Relation,
    domain: &Domain,
    system: &dyn SystemUnderTest,
    config: &ProveConfig,
) -> SearchBeside {
    let search = crate::search::SearchConfig {
        seed: config.seed,
        budget: config.tree_budget,
        max_tests: config.tree_max_tests,
        tolerance: config.tolerance,
        ..crate::search::SearchConfig::default()
    };
    let outcome = crate::search::search_relation(relation, domain, system, &search);
    let options = crate::tree::TreeOptions {
        max_depth: config.tree_depth,
        ..crate::tree::TreeOptions::default()
    };
    let explanation = crate::check::explain(relation, domain, &outcome, &options);
    let (failure_paths, accuracy) = match &explanation {
        crate::check::Explanation::Trees {
            lexicographic,
            lexicographic_accuracy,
            ..
        } => (lexicographic.failure_paths(), Some(*lexicographic_accuracy)),
        _ => (Vec::new(), None),
    };
    SearchBeside {
        budget_s: config.tree_budget.as_secs_f64(),
        elapsed_s: outcome.elapsed_s,
        tests: outcome.tests,
        failed: outcome.failed,
        first_failure_s: outcome.first_failure_s,
        explanation: explanation.to_text(&outcome),
        failure_paths,
        accuracy,
    }
}

/// Limits of the symbolic check.
#[derive(Debug, Clone)]
pub struct ProveConfig {
    /// Budget per relation.
    pub budget: Duration,
    pub query_timeout: Duration,
    /// Time limit of the second pass over the queries that ran into `query_timeout`
    /// (`None`: no second pass).
    pub retry_timeout: Option<Duration>,
    pub max_pairs: Option<usize>,
    /// Which branch the exploration negates next.
    pub order: RelationalOrder,
    /// Models guessed near the last inputs before asking Z3.
    pub guesses: bool,
    /// Budget of the random search run beside a refuted relation for its decision tree
    /// (zero: none).
    pub tree_budget: Duration,
    /// At most this many tests in that search.
    pub tree_max_tests: Option<usize>,
    /// Depth limit of that tree, and the search's seed.
    pub tree_depth: usize,
    pub seed: u64,
    /// Default tolerance δ (a relation may set its own).
    pub tolerance: f64,
    /// Relations proved at once, each in its own thread (the program is loaded once).
    pub jobs: usize,
}

impl Default for ProveConfig {
    fn default() -> Self {
        ProveConfig {
            budget: Duration::from_secs(60),
            query_timeout: Duration::from_secs(10),
            retry_timeout: Some(Duration::from_secs(60)),
            max_pairs: None,
            order: RelationalOrder::default(),
            guesses: true,
            tree_budget: Duration::from_secs(10),
            tree_max_tests: None,
            tree_depth: 4,
            seed: 0,
            tolerance: 0.0,
            jobs: 1,
        }
    }
}

fn unknown(relation: &Relation, reason: String, elapsed: f64) -> ProofReport {
    ProofReport {
        relation: relation.name.clone(),
        verdict: ProofVerdict::Unknown,
        reason: Some(reason),
        note: String::new(),
        cases: relation.all_vars(),
        sharing: Vec::new(),
        path_pairs: 0,
        judged_pairs: 0,
        error_pairs: 0,
        error_examples: Vec::new(),
        unknown_queries: 0,
        retried_queries: 0,
        resolved_on_retry: 0,
        unknown_leaf_queries: 0,
        path_queries: 0,
        queries_without_z3: 0,
        first_counterexample_s: None,
        elapsed_s: elapsed,
        counterexample: None,
        region: Vec::new(),
        region_features: None,
        random_search: None,
    }
}

/// Why a finished exploration does not prove the relation (`None`: it does).
fn incompleteness(r: &RelationalResult) -> Option<String> {
    let mut reasons = Vec::new();
    if let Some(s) = &r.stopped {
        if !r.complete {
            reasons.push(s.clone());
        }
    }
    if !r.incomplete.is_empty() {
        let ops: Vec<&str> = r.incomplete.iter().map(String::as_str).collect();
        reasons.push(format!(
            "operations evaluated concretely on symbolic values (paths may be missing): {}",
            ops.join(", ")
        ));
    }
    if r.unknown_queries > 0 {
        reasons.push(format!(
            "{} solver queries answered unknown (time limit or non-linear arithmetic; {} \
             asked again with the longer limit, {} answered then)",
            r.unknown_queries, r.retried_queries, r.resolved_on_retry
        ));
    }
    if r.unencoded_leaves > 0 {
        reasons.push(format!(
            "{} path pairs whose conclusion cannot be encoded: {}",
            r.unencoded_leaves,
            r.unencoded_reason.clone().unwrap_or_default()
        ));
    }
    (!reasons.is_empty() || !r.complete).then(|| {
        if reasons.is_empty() {
            "the exploration did not finish".to_string()
        } else {
            reasons.join("; ")
        }
    })
}

/// The conclusion's violation condition, with violations found without Z3 confirmed by
/// replaying them on the plain interpreter.
struct ReplayingGoal<'a> {
    conclusion: encode::ConclusionGoal<'a>,
    system: &'a dyn SystemUnderTest,
    relation: &'a Relation,
}

impl concolic::relational::Goal for ReplayingGoal<'_> {
    fn violation(
        &mut self,
        outputs: &[Vec<concolic::relational::CaseOutput>],
        first_free_var: u32,
    ) -> Result<smt::catala::Term, String> {
        self.conclusion.violation(outputs, first_free_var)
    }

    fn confirm(&mut self, assignment: &concolic::relational::Assignment) -> bool {
        let c = &self.conclusion;
        let cases = replay::records_of(c.encoding, c.domain, assignment);
        replay::replay(self.system, self.relation, c.domain, &cases, c.tolerance)
            .is_ok_and(|r| r.failed)
    }
}

/// Proves or refutes `relation` on `scope` of `program`; `system` (the same scope) replays
/// counterexamples.
pub fn prove_relation(
    program: &Program,
    scope: ScopeId,
    domain: &Domain,
    relation: &Relation,
    system: &dyn SystemUnderTest,
    config: &ProveConfig,
) -> ProofReport {
    let start = Instant::now();
    let enc = match encode::encode(program, scope, domain, relation) {
        Ok(e) => e,
        Err(e) => {
            return unknown(
                relation,
                format!("this relation cannot be encoded: {e}"),
                start.elapsed().as_secs_f64(),
            )
        }
    };
    let sharing: Vec<String> = enc
        .shares
        .iter()
        .enumerate()
        .filter_map(|(c, s)| {
            s.as_ref().map(|(p, differ)| {
                format!(
                    "{} = {} except on [{}]",
                    enc.cases[c],
                    enc.cases[*p],
                    differ.join(", ")
                )
            })
        })
        .collect();
    let tolerance = relation.tolerance.unwrap_or(config.tolerance);
    let mut goal = ReplayingGoal {
        conclusion: encode::ConclusionGoal {
            encoding: &enc,
            domain,
            conclusion: &relation.conclusion,
            tolerance,
        },
        system,
        relation,
    };
    let options = RelationalOptions {
        budget: Some(config.budget.saturating_sub(start.elapsed())),
        max_pairs: config.max_pairs,
        query_timeout: Some(config.query_timeout.min(config.budget)),
        retry_timeout: config.retry_timeout,
        order: config.order,
        guesses: config.guesses,
    };
    let offset = start.elapsed().as_secs_f64();
    let result = match explore_relation(program, scope, &enc.space, &mut goal, &options) {
        Ok(r) => r,
        Err(e) => {
            return unknown(
                relation,
                format!("exploration failed: {e}"),
                start.elapsed().as_secs_f64(),
            )
        }
    };
    let mut report = ProofReport {
        relation: relation.name.clone(),
        verdict: ProofVerdict::Unknown,
        reason: None,
        note: String::new(),
        cases: enc.cases.clone(),
        sharing,
        path_pairs: result.path_pairs,
        judged_pairs: result.judged_pairs,
        error_pairs: result.error_pairs,
        error_examples: result.error_examples.clone(),
        unknown_queries: result.unknown_queries,
        retried_queries: result.retried_queries,
        resolved_on_retry: result.resolved_on_retry,
        unknown_leaf_queries: result.unknown_leaf_queries,
        path_queries: result.path_queries,
        queries_without_z3: result.queries_without_z3,
        first_counterexample_s: None,
        elapsed_s: 0.0,
        counterexample: None,
        region: Vec::new(),
        region_features: None,
        random_search: None,
    };
    if let Some(v) = &result.violation {
        let cases = replay::records_of(&enc, domain, &v.assignment);
        match replay::replay(system, relation, domain, &cases, tolerance) {
            Ok(r) if r.failed => {
                report.verdict = ProofVerdict::Refuted;
                report.first_counterexample_s = Some(offset + v.at_s);
                report.region = region::describe(&enc, domain, &v.path);
                report.region_features = region::describe_with_features(&enc, domain, &v.path);
                report.note = format!(
                    "the path pair of this counterexample: every input satisfying the domain, \
                     the premise and the path condition below takes the same branches in every \
                     case; the relation fails on those where the outputs' violation condition \
                     also holds ({} path pairs explored before)",
                    result.path_pairs
                );
                report.counterexample = Some(Counterexample {
                    cases,
                    outputs: r.outputs,
                    deviation: r.judgement.deviation,
                });
            }
            Ok(_) => {
                report.reason = Some(
                    "the solver's model does not violate the relation when replayed by the \
                     interpreter (an encoding mismatch)"
                        .to_string(),
                );
            }
            Err(e) => report.reason = Some(format!("the replay of the solver's model failed: {e}")),
        }
    } else {
        match incompleteness(&result) {
            Some(reason) => report.reason = Some(reason),
            None => {
                report.verdict = ProofVerdict::Proved;
                let shape = if report.sharing.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", report.sharing.join("; "))
                };
                report.note = format!(
                    "holds on every path pair: for all {}{shape} in the domain as declared \
                     (field ranges, steps, choices and constraints) satisfying the premise, the \
                     conclusion holds (tolerance {tolerance}); {} path pairs explored, {} of them \
                     end in a runtime error on some case and are not judged, as in the random \
                     search",
                    enc.cases.join(", "),
                    result.path_pairs,
                    result.error_pairs
                );
            }
        }
    }
    report.elapsed_s = start.elapsed().as_secs_f64();
    if report.verdict == ProofVerdict::Refuted && !config.tree_budget.is_zero() {
        report.random_search = Some(search_beside(relation, domain, system, config));
    }
    report
}

/// Loads `catala:FILE#Scope` (the part after `catala:`) and checks each relation, handing
/// each report to `each` in the order of `relations`; with `config.jobs` above 1, that many
/// relations are checked at once, on the one program loaded.
pub fn prove_catala(
    target: &str,
    domain: &Domain,
    relations: &[Relation],
    config: &ProveConfig,
    each: &mut dyn FnMut(ProofReport),
) -> Result<(), String> {
    let (file, scope_name) = target
        .split_once('#')
        .ok_or_else(|| format!("expected catala:FILE#Scope, found `{target}`"))?;
    let system = crate::catala::CatalaScope::from_target(target, 1).map_err(|e| e.to_string())?;
    let loaded = catala_eval::loader::load_program(std::path::Path::new(file), &[])
        .map_err(|_| format!("cannot load {file}"))?;
    let program = loaded.program;
    let scope = program
        .scope_by_name(scope_name)
        .ok_or_else(|| format!("{file} has no scope named `{scope_name}`"))?;
    let jobs = config.jobs.clamp(1, relations.len().max(1));
    if jobs == 1 {
        for relation in relations {
            each(prove_relation(
                &program, scope, domain, relation, &system, config,
            ));
        }
        return Ok(());
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (done, reports) = std::sync::mpsc::channel::<(usize, ProofReport)>();
    std::thread::scope(|threads| {
        for _ in 0..jobs {
            let done = done.clone();
            let (next, program, system) = (&next, &program, &system);
            threads.spawn(move || loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(relation) = relations.get(k) else {
                    break;
                };
                let report = prove_relation(program, scope, domain, relation, system, config);
                if done.send((k, report)).is_err() {
                    break;
                }
            });
        }
        drop(done);
        // Handed out in the order of the relations, each as soon as those before it are.
        let mut waiting = std::collections::BTreeMap::new();
        let mut due = 0;
        for (k, report) in reports {
            waiting.insert(k, report);
            while let Some(r) = waiting.remove(&due) {
                each(r);
                due += 1;
            }
        }
    });
    Ok(())
}
