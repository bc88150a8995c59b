//! The randomized search of Algorithm 1 (Tizpaz-Niari et al.): draw a base, draw follow-ups
//! satisfying the premise, run the system on all of them, and label the test failed when
//! the conclusion is violated by more than the tolerance δ. The most deviating base seen so
//! far is the seed that later bases perturb. From one base, follow-ups are drawn until a
//! failure or until K consecutive passes, K = ⌈−log₂B / log₂θ⌉ (Jeffreys' Bayes-factor
//! test with a uniform prior: H0 "a follow-up passes with probability ≥ θ" is then accepted
//! with Bayes factor B); then a new base is drawn, until the time budget or test cap runs
//! out. A follow-up already tried from the same base is not run again; a base whose
//! distinct follow-ups are exhausted without failure is accepted as well (unless one of
//! them failed to run: a run error never counts as a pass). Runs of the system are batched
//! and executed on `jobs` threads; the random stream is seeded, so a search with a given
//! seed and test cap is reproducible. A test cap of N completes exactly N tests (fewer only
//! when the budget runs out first); runs still going at the end of the budget are stopped.
//!
//! Memory stays flat: each test is judged as it completes, counted, and then kept only if
//! drawn into the bounded [`TestSample`] the explanations learn from (at most
//! [`SearchConfig::keep_tests`] tests of each label, a uniform sample of each), besides the
//! [`WORST_KEPT`] most deviating failures.

use crate::domain::Domain;
use crate::generate::CaseGenerator;
use crate::relation::eval::{judge, CaseEnvironment};
use crate::relation::Relation;
use crate::rng::SeededRng;
use crate::sample::TestSample;
use crate::system::{run_batch, RunFailure, RunResult, SystemUnderTest};
use crate::value::{record_fingerprint, Record, Value};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Name under which the value of `F` is stored in output records.
pub const MAIN_OUTPUT_KEY: &str = "F";

/// How many consecutive passes from one base accept H0 with Bayes factor `b` at
/// confidence `theta`: ⌈−log₂ b / log₂ θ⌉ (90 for b = 100, θ = 0.95).
pub fn consecutive_passes_needed(bayes_factor: f64, theta: f64) -> usize {
    if bayes_factor <= 1.0 || theta <= 0.0 || theta >= 1.0 {
        return 1;
    }
    (-(bayes_factor.log2()) / theta.log2()).ceil() as usize
}

/// Search parameters.
#[derive(Debug, Clone)]
pub struct SearchConfig {
    pub seed: u64,
    /// Time budget per relation.
    pub budget: Duration,
    /// Optional cap on completed tests per relation.
    pub max_tests: Option<usize>,
    /// Threads running the system.
    pub jobs: usize,
    /// Bayes factor B of the stopping test.
    pub bayes_factor: f64,
    /// Lower bound θ on the pass probability in H0.
    pub theta: f64,
    /// Default tolerance δ (a relation's own `tolerance` overrides it).
    pub tolerance: f64,
    /// Follow-ups generated and run together.
    pub batch_size: usize,
    /// Probability that a base is drawn afresh rather than perturbed from the seed.
    pub fresh_base_probability: f64,
    /// Stop a relation after this many bases accepted H0 without any failure.
    pub stop_after_accepted_bases: Option<usize>,
    /// Bases under test at the same time (their follow-ups share each batch).
    pub concurrent_bases: usize,
    /// Stop a relation once this many failures were found (enough to explain them).
    pub stop_after_failures: Option<usize>,
    /// Tests of each label kept for explanations: a uniform random sample of at most this
    /// many failed tests and of at most this many passed tests.
    pub keep_tests: usize,
    /// Where the search publishes its figures as it goes (for a live status line).
    pub live: Option<Arc<LiveSearch>>,
}

/// The figures of the relation being searched, published after every batch: tests, failures,
/// bases that accepted H0, and the longest run of consecutive passes of a base still under
/// test (H0 is accepted for a base when its run reaches
/// [`SearchOutcome::consecutive_passes_needed`]).
#[derive(Debug, Default)]
pub struct LiveSearch {
    pub tests: AtomicUsize,
    pub failed: AtomicUsize,
    pub accepted_bases: AtomicUsize,
    pub longest_run: AtomicUsize,
}

impl LiveSearch {
    /// Back to zero, for the next relation.
    pub fn reset(&self) {
        for figure in [
            &self.tests,
            &self.failed,
            &self.accepted_bases,
            &self.longest_run,
        ] {
            figure.store(0, Ordering::Relaxed);
        }
    }

    fn publish(&self, outcome: &SearchOutcome, longest_run: usize) {
        self.tests.store(outcome.tests, Ordering::Relaxed);
        self.failed.store(outcome.failed, Ordering::Relaxed);
        self.accepted_bases
            .store(outcome.accepted_bases, Ordering::Relaxed);
        self.longest_run.store(longest_run, Ordering::Relaxed);
    }
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            seed: 0,
            budget: Duration::from_secs(60),
            max_tests: None,
            jobs: 1,
            bayes_factor: 100.0,
            theta: 0.95,
            tolerance: 0.0,
            batch_size: 64,
            concurrent_bases: 8,
            fresh_base_probability: 0.5,
            stop_after_accepted_bases: None,
            stop_after_failures: None,
            keep_tests: DEFAULT_KEPT_PER_LABEL,
            live: None,
        }
    }
}

/// Default bound on the tests of each label kept for explanations.
pub(crate) const DEFAULT_KEPT_PER_LABEL: usize = 5_000;

/// Tests attempted in a row without any completing (every one had a run error) after which
/// a relation is given up as inconclusive.
pub(crate) const GIVE_UP_AFTER_RUN_ERRORS: usize = 200;

/// One completed test: the cases (bases then follow-ups), their `F` values, the label.
#[derive(Debug, Clone)]
pub struct TestRecord {
    pub cases: Vec<Record>,
    pub outputs: Vec<Record>,
    pub failed: bool,
    pub deviation: f64,
    /// Seconds since the relation's search started.
    pub at_s: f64,
    /// Whether the base was drawn afresh (rather than perturbed from the most deviating
    /// base): such tests are an unbiased sample of the premise, fit to explain failures.
    pub fresh_base: bool,
}

/// The verdict on one relation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Passed,
    Failed,
    /// No test could be completed (premise unsatisfiable in the domain, or every run failed).
    Inconclusive,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// Everything the search learned about one relation.
#[derive(Debug, Clone)]
pub struct SearchOutcome {
    pub relation: String,
    pub verdict: Verdict,
    pub tests: usize,
    pub passed: usize,
    pub failed: usize,
    /// Runs of the system (a test runs its follow-ups; each base runs once).
    pub runs: usize,
    /// Tests whose runs failed (timeout, crash, malformed reply, reported error).
    pub run_errors: usize,
    /// A few run-error messages.
    pub run_error_examples: Vec<String>,
    /// Draws for which no premise-satisfying case was found.
    pub generation_failures: usize,
    pub first_failure_s: Option<f64>,
    pub max_deviation: f64,
    /// Bases from which K consecutive passes were seen (H0 accepted).
    pub accepted_bases: usize,
    /// Bases with fewer than K distinct follow-ups, all tried and passed.
    pub exhausted_bases: usize,
    pub consecutive_passes_needed: usize,
    pub elapsed_s: f64,
    /// Kept tests (for explanations): a uniform sample of the failed ones and one of the
    /// passed ones (see [`SearchConfig::keep_tests`]).
    pub kept: Vec<TestRecord>,
    /// Why the search stopped when it completed no test, for the verdict `Inconclusive`.
    pub stop_reason: Option<String>,
    /// The most deviating failures (largest first).
    pub worst_failures: Vec<TestRecord>,
}

impl SearchOutcome {
    /// Tests per second over the whole search.
    pub fn throughput(&self) -> f64 {
        if self.elapsed_s > 0.0 {
            self.tests as f64 / self.elapsed_s
        } else {
            0.0
        }
    }
}

/// Most deviating failures kept for the reports.
pub(crate) const WORST_KEPT: usize = 10;
/// Draws of an already-tried follow-up after which a base counts as exhausted.
const DUPLICATE_DRAWS: usize = 3;
const ERROR_EXAMPLES: usize = 5;

/// Adds `F` to an output record.
fn with_main_output(domain: &Domain, outputs: Record) -> Result<Record, String> {
    let f = domain
        .main_output_value(&outputs)
        .map_err(|e| format!("cannot compute F = {}: {e}", domain.main_output.0))?;
    let mut outputs = outputs;
    if let Value::Bool(b) = f {
        outputs.insert(
            MAIN_OUTPUT_KEY.to_string(),
            Value::Number(f64::from(u8::from(b))),
        );
    } else {
        outputs.insert(MAIN_OUTPUT_KEY.to_string(), f);
    }
    Ok(outputs)
}

/// A base under test, with the follow-ups already tried from it.
struct ActiveBase {
    cases: Vec<Record>,
    fresh: bool,
    /// Outputs of the base cases, once run.
    outputs: Option<Vec<Record>>,
    consecutive: usize,
    /// Fingerprints of the follow-ups already drawn.
    tried: HashSet<u64>,
    exhausted: bool,
    /// One of its follow-ups failed to run: exhausting it proves nothing.
    errored: bool,
    done: bool,
}

impl ActiveBase {
    fn new(cases: Vec<Record>, fresh: bool) -> ActiveBase {
        ActiveBase {
            cases,
            fresh,
            outputs: None,
            consecutive: 0,
            tried: HashSet::new(),
            exhausted: false,
            errored: false,
            done: false,
        }
    }
}

/// The mutable state of one relation's search.
struct SearchState<'a> {
    relation: &'a Relation,
    domain: &'a Domain,
    vars: Vec<String>,
    tolerance: f64,
    needed: usize,
    start: Instant,
    outcome: SearchOutcome,
    seed: Option<Vec<Record>>,
    seed_deviation: f64,
    /// The tests explanations will learn from.
    sample: TestSample,
    /// Tests attempted since the last one that completed.
    errors_in_a_row: usize,
}

impl SearchState<'_> {
    fn note_error(&mut self, message: String) {
        self.outcome.run_errors += 1;
        self.errors_in_a_row += 1;
        if self.outcome.run_error_examples.len() < ERROR_EXAMPLES {
            self.outcome.run_error_examples.push(message);
        }
    }

    /// Judges one test of `base` whose follow-up runs are `runs`.
    fn record_test(&mut self, base: &mut ActiveBase, follow: Vec<Record>, runs: &[RunResult]) {
        let Some(base_outputs) = &base.outputs else {
            return;
        };
        let mut outputs = base_outputs.clone();
        let mut error = None;
        for run in runs {
            match run {
                Ok(o) => match with_main_output(self.domain, o.clone()) {
                    Ok(o) => outputs.push(o),
                    Err(e) => error = Some(e),
                },
                Err(RunFailure::NotRun) => return,
                Err(e) => error = Some(e.to_string()),
            }
        }
        let mut cases = base.cases.clone();
        cases.extend(follow);
        let judged = match error {
            Some(e) => {
                base.errored = true;
                Err(e)
            }
            None => {
                let env = CaseEnvironment {
                    vars: &self.vars,
                    inputs: &cases,
                    outputs: Some(&outputs),
                    main_output: MAIN_OUTPUT_KEY,
                };
                judge(&self.relation.conclusion, &env, false)
                    .map_err(|e| self.relation.locate(e).to_string())
            }
        };
        let judgement = match judged {
            Ok(j) => j,
            Err(message) => {
                self.note_error(message);
                return;
            }
        };
        self.errors_in_a_row = 0;
        let failed = !judgement.holds && judgement.deviation > self.tolerance;
        let at_s = self.start.elapsed().as_secs_f64();
        let outcome = &mut self.outcome;
        outcome.tests += 1;
        let record = TestRecord {
            cases,
            outputs,
            failed,
            deviation: if judgement.holds {
                0.0
            } else {
                judgement.deviation
            },
            at_s,
            fresh_base: base.fresh,
        };
        if failed {
            outcome.failed += 1;
            outcome.first_failure_s.get_or_insert(at_s);
            outcome.max_deviation = outcome.max_deviation.max(judgement.deviation);
            if judgement.deviation > self.seed_deviation {
                self.seed_deviation = judgement.deviation;
                self.seed = Some(base.cases.clone());
            }
            keep_worst(&mut outcome.worst_failures, &record);
            base.done = true;
        } else {
            outcome.passed += 1;
            if !base.done {
                base.consecutive += 1;
                if base.consecutive >= self.needed {
                    outcome.accepted_bases += 1;
                    base.done = true;
                }
            }
        }
        // The most deviating failures were kept whole above; the sample keeps inputs and F.
        self.sample.offer(record);
    }
}

impl SearchState<'_> {
    /// Draws one base (line 4 of Algorithm 1): perturbed from the most deviating base so far,
    /// or fresh; the first base drawn seeds the perturbations.
    fn draw_base(
        &mut self,
        generator: &CaseGenerator,
        rng: &mut SeededRng,
        config: &SearchConfig,
        active: &mut Vec<ActiveBase>,
    ) {
        let from_seed = self.seed.is_some() && !rng.chance(config.fresh_base_probability);
        let seed = self.seed.as_deref().filter(|_| from_seed);
        let fresh = seed.is_none();
        match generator.base_cases(seed, rng) {
            Some(cases) => {
                if self.seed.is_none() {
                    self.seed = Some(cases.clone());
                }
                active.push(ActiveBase::new(cases, fresh));
            }
            None => self.outcome.generation_failures += 1,
        }
    }

    /// Draws up to `wanted` follow-ups of `base` not tried before (line 5 of Algorithm 1).
    /// A base whose distinct follow-ups run out is marked exhausted; one with no follow-up
    /// satisfying the premise is given up.
    fn draw_follow_ups(
        &mut self,
        base: &mut ActiveBase,
        wanted: usize,
        generator: &CaseGenerator,
        rng: &mut SeededRng,
    ) -> Vec<Vec<Record>> {
        let mut drawn = Vec::new();
        'slots: for _ in 0..wanted {
            for _ in 0..DUPLICATE_DRAWS {
                match generator.follow_ups(&base.cases, rng) {
                    Some(follow) => {
                        let mut hasher = std::collections::hash_map::DefaultHasher::new();
                        for case in &follow {
                            record_fingerprint(case, &mut hasher);
                        }
                        if base.tried.insert(std::hash::Hasher::finish(&hasher)) {
                            drawn.push(follow);
                            continue 'slots;
                        }
                    }
                    None => {
                        // Even rejection found no follow-up: try another base.
                        self.outcome.generation_failures += 1;
                        break 'slots;
                    }
                }
            }
            base.exhausted = true;
            break;
        }
        if drawn.is_empty() && !base.exhausted {
            // No premise-satisfying follow-up from this base: give it up.
            base.done = true;
        }
        drawn
    }

    /// Keeps the outputs of a new base's runs (line 6 of Algorithm 1); a base whose runs
    /// failed or were not run is done.
    fn record_base_runs(&mut self, base: &mut ActiveBase, results: &[RunResult]) {
        let outputs: Result<Vec<Record>, String> = results
            .iter()
            .map(|r| {
                r.clone()
                    .map_err(|e| e.to_string())
                    .and_then(|o| with_main_output(self.domain, o))
            })
            .collect();
        if results.iter().any(|r| matches!(r, Err(RunFailure::NotRun))) {
            base.done = true;
            return;
        }
        match outputs {
            Ok(o) => base.outputs = Some(o),
            Err(message) => {
                self.note_error(message);
                base.done = true;
            }
        }
    }
}

impl SearchState<'_> {
    /// Why the search stops before its budget, if it must: no test completed, and either no
    /// draw satisfied the premise for 50 rounds or every run failed.
    fn give_up_reason(&self, idle_rounds: usize) -> Option<String> {
        if idle_rounds >= 50 && self.outcome.tests == 0 {
            return Some(format!(
                "no inputs satisfying the premise were found in the domain ({} draws failed)",
                self.outcome.generation_failures
            ));
        }
        if self.errors_in_a_row >= GIVE_UP_AFTER_RUN_ERRORS && self.outcome.tests == 0 {
            return Some(format!(
                "every run failed ({} in a row, no test completed)",
                self.errors_in_a_row
            ));
        }
        None
    }

    /// Drops the bases that are done; an exhausted base (every distinct follow-up tried, all
    /// passed unless one failed to run) is counted as such first.
    fn retire_done_bases(&mut self, active: &mut Vec<ActiveBase>) {
        for base in active.iter_mut() {
            if base.exhausted && !base.done && base.outputs.is_some() {
                if !base.errored {
                    self.outcome.exhausted_bases += 1;
                }
                base.done = true;
            }
        }
        active.retain(|b| !b.done);
    }
}

impl<'a> SearchState<'a> {
    /// The state of a search of `relation` starting at `start`, before any test.
    fn new(
        relation: &'a Relation,
        domain: &'a Domain,
        config: &SearchConfig,
        needed: usize,
        start: Instant,
    ) -> SearchState<'a> {
        SearchState {
            relation,
            domain,
            vars: relation.all_vars(),
            tolerance: relation.tolerance.unwrap_or(config.tolerance),
            needed,
            start,
            outcome: SearchOutcome::empty(&relation.name, needed),
            seed: None,
            seed_deviation: 0.0,
            sample: TestSample::new(
                config.keep_tests,
                SeededRng::for_stream(config.seed, &format!("{}#kept", relation.name)),
            ),
            errors_in_a_row: 0,
        }
    }
}

/// The longest run of consecutive passes of a base still under test.
fn longest_run(active: &[ActiveBase]) -> usize {
    active
        .iter()
        .filter(|b| !b.done)
        .map(|b| b.consecutive)
        .max()
        .unwrap_or(0)
}

/// The inputs of one batch (line 6 of Algorithm 1): the cases of the bases not run yet, then
/// every planned follow-up; with where each such base's cases start, and where the
/// follow-ups start.
fn batch_inputs(
    active: &[ActiveBase],
    planned: &[(usize, Vec<Record>)],
) -> (Vec<Record>, Vec<(usize, usize)>, usize) {
    let mut inputs: Vec<Record> = Vec::new();
    let mut base_slots: Vec<(usize, usize)> = Vec::new();
    for (index, base) in active.iter().enumerate() {
        if base.outputs.is_none() && !base.done {
            base_slots.push((index, inputs.len()));
            inputs.extend(base.cases.iter().cloned());
        }
    }
    let follow_start = inputs.len();
    for (_, follow) in planned {
        inputs.extend(follow.iter().cloned());
    }
    (inputs, base_slots, follow_start)
}

impl SearchOutcome {
    /// The outcome of a search of relation `name` before any test.
    fn empty(name: &str, needed: usize) -> SearchOutcome {
        SearchOutcome {
            relation: name.to_string(),
            verdict: Verdict::Inconclusive,
            tests: 0,
            passed: 0,
            failed: 0,
            runs: 0,
            run_errors: 0,
            run_error_examples: Vec::new(),
            generation_failures: 0,
            first_failure_s: None,
            max_deviation: 0.0,
            accepted_bases: 0,
            exhausted_bases: 0,
            consecutive_passes_needed: needed,
            elapsed_s: 0.0,
            kept: Vec::new(),
            stop_reason: None,
            worst_failures: Vec::new(),
        }
    }
}

/// Runs Algorithm 1 on one relation. Several bases are under test at once (each with its
/// own run of consecutive passes) so that every batch handed to the system is large
/// enough to keep `jobs` workers busy.
pub fn search_relation(
    relation: &Relation,
    domain: &Domain,
    system: &dyn SystemUnderTest,
    config: &SearchConfig,
) -> SearchOutcome {
    let start = Instant::now();
    let generator = CaseGenerator::new(relation, domain);
    let mut rng = SeededRng::for_stream(config.seed, &relation.name);
    let needed = consecutive_passes_needed(config.bayes_factor, config.theta);
    let base_count = relation.base_vars.len();
    let per_test = relation.follow_vars.len();
    let pool_size = config.concurrent_bases.max(1);
    let per_base = (config.batch_size / pool_size).max(1);
    let mut state = SearchState::new(relation, domain, config, needed, start);
    let deadline = start + config.budget;
    let out_of_budget = |outcome: &SearchOutcome| {
        Instant::now() >= deadline
            || config.max_tests.is_some_and(|m| outcome.tests >= m)
            || config
                .stop_after_accepted_bases
                .is_some_and(|n| outcome.failed == 0 && outcome.accepted_bases >= n)
            || config
                .stop_after_failures
                .is_some_and(|n| outcome.failed >= n)
    };
    let mut active: Vec<ActiveBase> = Vec::new();
    let mut idle_rounds = 0usize;
    while !out_of_budget(&state.outcome) {
        if let Some(live) = &config.live {
            live.publish(&state.outcome, longest_run(&active));
        }
        if let Some(reason) = state.give_up_reason(idle_rounds) {
            state.outcome.stop_reason = Some(reason);
            break;
        }
        // Tests still to complete under the test cap: never plan more.
        let remaining = config
            .max_tests
            .map_or(usize::MAX, |m| m.saturating_sub(state.outcome.tests));
        let pool_limit = pool_size.min(remaining);
        // Line 4 of Algorithm 1: bases perturbed from the most deviating one (or fresh).
        for _ in 0..2 * pool_size {
            if active.len() >= pool_limit {
                break;
            }
            state.draw_base(&generator, &mut rng, config, &mut active);
        }
        if active.is_empty() {
            idle_rounds += 1;
            continue;
        }
        // Line 5: follow-ups not yet tried from each base.
        let mut planned: Vec<(usize, Vec<Record>)> = Vec::new();
        for (index, base) in active.iter_mut().enumerate() {
            let left = remaining.saturating_sub(planned.len());
            if left == 0 {
                break;
            }
            let wanted = needed
                .saturating_sub(base.consecutive)
                .clamp(1, per_base)
                .min(left);
            for follow in state.draw_follow_ups(base, wanted, &generator, &mut rng) {
                planned.push((index, follow));
            }
        }
        // Line 6: one parallel batch with the new bases and every follow-up.
        let (inputs, base_slots, follow_start) = batch_inputs(&active, &planned);
        let results = run_batch(system, &inputs, config.jobs, Some(deadline));
        state.outcome.runs += inputs.len();
        for (index, at) in base_slots {
            state.record_base_runs(&mut active[index], &results[at..at + base_count]);
        }
        // Lines 7-17: label each test, track the most deviating base, count passes.
        let had_tests = !planned.is_empty();
        state.outcome.runs -= results
            .iter()
            .filter(|r| matches!(r, Err(RunFailure::NotRun)))
            .count();
        for (t, (index, follow)) in planned.into_iter().enumerate() {
            let at = follow_start + t * per_test;
            state.record_test(&mut active[index], follow, &results[at..at + per_test]);
        }
        state.retire_done_bases(&mut active);
        if had_tests {
            idle_rounds = 0;
        } else {
            idle_rounds += 1;
        }
    }
    let mut outcome = state.outcome;
    outcome.kept = state.sample.into_tests();
    finish(outcome, start)
}

fn keep_worst(worst: &mut Vec<TestRecord>, record: &TestRecord) {
    if worst.len() < WORST_KEPT || record.deviation > worst[worst.len() - 1].deviation {
        worst.push(record.clone());
        worst.sort_by(|a, b| b.deviation.total_cmp(&a.deviation));
        worst.truncate(WORST_KEPT);
    }
}

fn finish(mut outcome: SearchOutcome, start: Instant) -> SearchOutcome {
    outcome.elapsed_s = start.elapsed().as_secs_f64();
    outcome.verdict = if outcome.failed > 0 {
        Verdict::Failed
    } else if outcome.tests > 0 {
        Verdict::Passed
    } else {
        Verdict::Inconclusive
    };
    if outcome.verdict == Verdict::Inconclusive && outcome.stop_reason.is_none() {
        outcome.stop_reason = Some(if outcome.run_errors > 0 {
            format!(
                "the time budget ran out before any test completed ({} runs failed)",
                outcome.run_errors
            )
        } else if outcome.generation_failures > 0 && outcome.runs == 0 {
            format!(
                "no inputs satisfying the premise were found in the domain ({} draws failed)",
                outcome.generation_failures
            )
        } else {
            "the time budget ran out before any test completed".to_string()
        });
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relation::parse_relations;
    use crate::system::{FunctionSystem, RunFailure};

    #[test]
    fn bayes_factor_bound_matches_the_paper() {
        // The paper: B = 100, θ = 0.95 requires K ≥ 90.
        assert_eq!(consecutive_passes_needed(100.0, 0.95), 90);
        // ⌈log₂ 10 / −log₂ 0.9⌉ = ⌈3.3219 / 0.1520⌉ = 22.
        assert_eq!(consecutive_passes_needed(10.0, 0.9), 22);
        // θ^K ≤ 1/B must hold at K and fail at K − 1.
        for (b, theta) in [(100.0, 0.95), (1000.0, 0.99), (3.0, 0.5)] {
            let k = consecutive_passes_needed(b, theta) as i32;
            assert!(f64::powi(theta, k) <= 1.0 / b);
            assert!(f64::powi(theta, k - 1) > 1.0 / b);
        }
    }

    const DOMAIN: &str = r#"
output = "tax"
[fields.income]
type = "money"
min = 0
max = 1000
step = 1
[fields.senior]
type = "boolean"
"#;

    fn taxer(bug: bool) -> impl Fn(&Record) -> RunResult + Send + Sync {
        move |input: &Record| {
            let income = input["income"].as_f64().unwrap_or(0.0);
            let senior = input["senior"] == Value::Bool(true);
            if income == 13.0 {
                return Err(RunFailure::Reported {
                    message: "unlucky".into(),
                });
            }
            let mut tax = income * 0.1;
            if senior {
                // The planted bug charges seniors above 800 instead of relieving them.
                tax += if bug && income > 800.0 { 5.0 } else { -5.0 };
            }
            let mut out = Record::new();
            out.insert("tax".into(), Value::Number(tax));
            Ok(out)
        }
    }

    const RELATION: &str =
        "relation senior forall x, y. x ==[senior] y and x.senior and not y.senior => F(x) <= F(y)";

    #[test]
    fn finds_planted_failure_and_passes_correct_system() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let relation = &parse_relations(RELATION).unwrap()[0];
        let config = SearchConfig {
            seed: 5,
            max_tests: Some(3000),
            budget: Duration::from_secs(3600),
            jobs: 2,
            ..SearchConfig::default()
        };
        let correct = FunctionSystem {
            name: "correct".into(),
            function: taxer(false),
        };
        let good = search_relation(relation, &domain, &correct, &config);
        assert_eq!(good.verdict, Verdict::Passed);
        assert_eq!(good.failed, 0);
        // The follow-up is determined by the base: each base is exhausted by one test.
        assert!(good.exhausted_bases >= 1);
        assert_eq!(good.accepted_bases, 0);
        // With many possible follow-ups, bases are accepted after K consecutive passes.
        let monotone = &parse_relations(
            "relation m forall x, y. x ==[income] y and x.income >= y.income => F(x) >= F(y)",
        )
        .unwrap()[0];
        let accepted = search_relation(monotone, &domain, &correct, &config);
        assert_eq!(accepted.verdict, Verdict::Passed);
        assert!(accepted.accepted_bases >= 1);
        assert!(accepted.tests >= accepted.accepted_bases * 90);
        assert!(good.tests >= 3000);
        let buggy = FunctionSystem {
            name: "buggy".into(),
            function: taxer(true),
        };
        let bad = search_relation(relation, &domain, &buggy, &config);
        assert_eq!(bad.verdict, Verdict::Failed);
        // Failing tests are exactly those with income above 800; F differs by 5.
        assert!((bad.max_deviation - 5.0).abs() < 1e-9);
        for t in &bad.kept {
            let income = t.cases[0]["income"].as_f64().unwrap();
            assert_eq!(t.failed, income > 800.0, "{:?}", t.cases[0]);
        }
    }

    #[test]
    fn live_figures_follow_the_search() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let monotone = &parse_relations(
            "relation m forall x, y. x ==[income] y and x.income >= y.income => F(x) >= F(y)",
        )
        .unwrap()[0];
        let live = Arc::new(LiveSearch::default());
        let config = SearchConfig {
            seed: 5,
            max_tests: Some(3000),
            budget: Duration::from_secs(3600),
            live: Some(Arc::clone(&live)),
            ..SearchConfig::default()
        };
        let correct = FunctionSystem {
            name: "correct".into(),
            function: taxer(false),
        };
        let outcome = search_relation(monotone, &domain, &correct, &config);
        // Published before each batch: behind the outcome by at most the last batch.
        let tests = live.tests.load(Ordering::Relaxed);
        assert!(
            tests > 0 && tests <= outcome.tests,
            "{tests} of {}",
            outcome.tests
        );
        assert!(outcome.tests - tests <= config.batch_size);
        let accepted = live.accepted_bases.load(Ordering::Relaxed);
        assert!(accepted <= outcome.accepted_bases && accepted >= 1);
        assert!(live.longest_run.load(Ordering::Relaxed) < outcome.consecutive_passes_needed);
        assert_eq!(live.failed.load(Ordering::Relaxed), 0);
        live.reset();
        assert_eq!(live.tests.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn kept_tests_hold_failures_and_a_sample_of_passes() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let relation = &parse_relations(RELATION).unwrap()[0];
        let config = SearchConfig {
            seed: 2,
            max_tests: Some(2000),
            keep_tests: 50,
            ..SearchConfig::default()
        };
        let system = FunctionSystem {
            name: "buggy".into(),
            function: taxer(true),
        };
        let outcome = search_relation(relation, &domain, &system, &config);
        assert!(outcome.failed > 50 && outcome.passed > 50);
        let kept_failed = outcome.kept.iter().filter(|t| t.failed).count();
        assert_eq!(kept_failed, 50);
        assert_eq!(outcome.kept.len(), 100);
        // The passed sample is not just the first 50 passed tests: the same search keeping
        // everything shows later passes among the sampled ones.
        let everything = search_relation(
            relation,
            &domain,
            &system,
            &SearchConfig {
                keep_tests: 100_000,
                ..config.clone()
            },
        );
        assert_eq!(everything.tests, outcome.tests);
        let passes = |o: &SearchOutcome| -> Vec<Record> {
            o.kept
                .iter()
                .filter(|t| !t.failed)
                .map(|t| t.cases[0].clone())
                .collect()
        };
        let all_passes = passes(&everything);
        let sampled = passes(&outcome);
        assert!(sampled.iter().all(|c| all_passes.contains(c)));
        assert!(sampled.iter().any(|c| !all_passes[..50].contains(c)));
    }

    #[test]
    fn follow_ups_that_failed_to_run_never_count_as_passes() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        // The follow-up is determined by the base (senior flipped), so every base is
        // exhausted by one test; every non-senior run fails.
        let relation = &parse_relations(RELATION).unwrap()[0];
        let system = FunctionSystem {
            name: "fails on non-seniors".into(),
            function: |input: &Record| {
                if input["senior"] == Value::Bool(false) {
                    return Err(RunFailure::Crashed {
                        detail: "exit status: 1".into(),
                    });
                }
                let mut out = Record::new();
                out.insert("tax".into(), Value::Number(1.0));
                Ok(out)
            },
        };
        let config = SearchConfig {
            seed: 4,
            max_tests: Some(50),
            budget: Duration::from_secs(5),
            ..SearchConfig::default()
        };
        let outcome = search_relation(relation, &domain, &system, &config);
        assert_eq!(outcome.tests, 0);
        assert_eq!(outcome.passed, 0);
        assert_eq!(outcome.exhausted_bases, 0);
        assert_eq!(outcome.accepted_bases, 0);
        assert!(outcome.run_errors >= GIVE_UP_AFTER_RUN_ERRORS);
        assert_eq!(outcome.verdict, Verdict::Inconclusive);
        let reason = outcome.stop_reason.unwrap();
        assert!(reason.starts_with("every run failed"), "{reason}");
    }

    #[test]
    fn test_caps_are_exact_and_bases_are_not_run_beyond_them() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let relation = &parse_relations(
            "relation m forall x, y. x ==[income] y and x.income >= y.income => F(x) >= F(y)",
        )
        .unwrap()[0];
        let system = FunctionSystem {
            name: "correct".into(),
            function: taxer(false),
        };
        for cap in [1, 2, 9, 90, 1000] {
            let config = SearchConfig {
                seed: 8,
                max_tests: Some(cap),
                jobs: 2,
                ..SearchConfig::default()
            };
            let outcome = search_relation(relation, &domain, &system, &config);
            assert_eq!(outcome.tests, cap);
        }
        // One test: one base and one follow-up, nothing more (income 13 is an error: the
        // seed below draws other incomes).
        let config = SearchConfig {
            seed: 8,
            max_tests: Some(1),
            ..SearchConfig::default()
        };
        let outcome = search_relation(relation, &domain, &system, &config);
        assert_eq!(outcome.runs, 2);
    }

    #[test]
    fn sample_is_bounded_per_label_and_uniform() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let relation = &parse_relations(RELATION).unwrap()[0];
        let system = FunctionSystem {
            name: "buggy".into(),
            function: taxer(true),
        };
        let config = SearchConfig {
            seed: 6,
            max_tests: Some(4000),
            keep_tests: 30,
            ..SearchConfig::default()
        };
        let outcome = search_relation(relation, &domain, &system, &config);
        let kept_failed = outcome.kept.iter().filter(|t| t.failed).count();
        assert!(outcome.failed > 300, "{}", outcome.failed);
        assert_eq!(kept_failed, 30);
        assert_eq!(outcome.kept.len(), 60);
        // Not the first 30 failures: some kept failure comes after the 30th.
        let thirtieth = {
            let mut times: Vec<f64> = Vec::new();
            let everything = search_relation(
                relation,
                &domain,
                &system,
                &SearchConfig {
                    keep_tests: 100_000,
                    ..config.clone()
                },
            );
            for t in everything.kept.iter().filter(|t| t.failed) {
                times.push(t.at_s);
            }
            times[29]
        };
        assert!(outcome.kept.iter().any(|t| t.failed && t.at_s > thirtieth));
    }

    #[test]
    fn same_seed_same_tests() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let relation = &parse_relations(RELATION).unwrap()[0];
        let config = SearchConfig {
            seed: 11,
            max_tests: Some(500),
            jobs: 2,
            ..SearchConfig::default()
        };
        let system = FunctionSystem {
            name: "buggy".into(),
            function: taxer(true),
        };
        let a = search_relation(relation, &domain, &system, &config);
        let b = search_relation(relation, &domain, &system, &config);
        assert_eq!(a.tests, b.tests);
        assert_eq!(a.failed, b.failed);
        let firsts = |o: &SearchOutcome| -> Vec<Record> {
            o.kept.iter().take(50).map(|t| t.cases[1].clone()).collect()
        };
        assert_eq!(firsts(&a), firsts(&b));
    }
}
