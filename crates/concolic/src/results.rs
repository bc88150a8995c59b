//! What an exploration produces: one test per path with its outcome, and the figures.

use catala_eval::runtime::Value;
use catala_eval::{AssertionFailure, RuntimeError};
use smt::catala::RoundnessLevel;
use std::collections::BTreeMap;
use std::time::Duration;

/// How a test ends.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The scope computed its outputs (in declaration order).
    Ok(Vec<(String, Value)>),
    Error(RuntimeError),
    /// An assertion of the scope failed (the first one).
    Assertion(AssertionFailure),
}

impl Outcome {
    /// `ok`, or the runtime error's kind (`conflict`, `no_value`, `division_by_zero`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Outcome::Ok(_) => "ok",
            Outcome::Error(e) => e.kind.as_str(),
            Outcome::Assertion(_) => "assertion",
        }
    }
}

/// One explored path.
#[derive(Clone, Debug)]
pub struct TestCase {
    /// Aligned with the scope's inputs (`None`: a context variable left to its definition).
    pub inputs: Vec<Option<Value>>,
    pub outcome: Outcome,
    /// The path condition, printed (with `keep_constraints`).
    pub constraints: Vec<String>,
    /// The path condition over the inputs' names, for a test ending in a runtime error (with
    /// `keep_conditions`): the tests of one problem together give its condition
    /// ([`explain::Collector`]).
    pub condition: Option<explain::PathCase>,
    /// How round the money inputs are.
    pub roundness: RoundnessLevel,
    /// The branch decisions of the path, from the root (see [`crate::path_id`]).
    pub path: crate::path_id::PathId,
    /// Time from the start of the exploration to this test.
    pub found_at: Duration,
    /// Path queries the worker that found this test asked since its previous test (the sum
    /// over the tests streamed so far is the number of queries so far, for a status line).
    pub queries: u64,
    /// The inputs fail one of the scope's assertions on its inputs (checked first with the
    /// `input-space` optimization): a run outside the input space the scope states, shown but
    /// not a problem of the program.
    pub outside_input_space: bool,
}

/// Figures of an exploration.
#[derive(Clone, Debug, Default)]
pub struct ExploreStats {
    pub tests: usize,
    /// Satisfiability queries for path conditions.
    pub solver_calls: u64,
    /// Extra queries made to round money inputs.
    pub soft_solver_calls: u64,
    /// Of the `solver_calls` of this process (not counting a resumed run's), those answered
    /// without Z3: decided by the finite candidate search, or by a model guessed near the last
    /// inputs (`guessed_queries`).
    pub queries_without_z3: u64,
    pub guessed_queries: u64,
    /// Of the path queries Z3 answered in this process, those its incremental solver could not
    /// settle within its resource limit and a fresh solver answered instead.
    pub fresh_queries: u64,
    pub time: Duration,
    pub solver_time: Duration,
    /// True when every feasible path was covered: no limit reached, no operation evaluated
    /// concretely on symbolic operands, no run leaving the prefix it was solved for.
    pub complete: bool,
    /// Runs whose path left the prefix the solver was asked for.
    pub divergences: usize,
    /// Early-conflict lemmas learnt (one per default term a failing exception crossed).
    pub early_lemmas: usize,
    /// Times the lemmas were set aside because the solver gave up on a query with them.
    pub dropped_lemmas: usize,
    /// Path queries the solver gave up on (their subtrees are not explored).
    pub unknown_queries: usize,
    /// The limit that ended the exploration before it ran out of paths, if one did.
    pub stopped_by: Option<StopReason>,
    /// Tests whose path's own outcome (in the order explored, with the optimizations) differs
    /// from the plain run's on their inputs, for a reason other inputs on the same path may
    /// not share (a lazy conflict, packed exceptions, the paper's order): their outcome is the
    /// plain run's, and other outcomes of their paths may be unexplored.
    pub relabelled: usize,
    /// Tests outside the input space (marked `outside_input_space`) whose plain run ends in a
    /// runtime error rather than the failed assertion (Catala checks assertions last).
    pub outside_with_error: usize,
    pub by_outcome: BTreeMap<String, usize>,
    /// Tests per roundness level of their money inputs.
    pub by_roundness: BTreeMap<String, usize>,
}

impl ExploreStats {
    /// Records that the loop stops at `reason` (the first reason given is kept).
    pub(crate) fn stop_at(&mut self, reason: StopReason) {
        self.stopped_by.get_or_insert(reason);
    }

    /// The figures a checkpoint `c` continues from: its tests by outcome and roundness.
    pub(crate) fn resumed(c: &crate::checkpoint::Checkpoint) -> ExploreStats {
        ExploreStats {
            tests: c.tests,
            by_outcome: c.by_outcome.clone(),
            by_roundness: c.by_roundness.clone(),
            ..ExploreStats::default()
        }
    }
}

/// What ended an exploration before it ran out of paths.
#[derive(Clone, Debug, PartialEq)]
pub enum StopReason {
    /// The time limit (`--timeout`).
    Time(Duration),
    /// The test limit (`--max-tests`), counted in this process.
    Tests(usize),
    /// The cancel flag was raised (Ctrl-C).
    Interrupted,
    /// The caller asked to stop after a test.
    Caller,
}

impl ExploreStats {
    /// What keeps the exploration from being complete, one sentence each, with what is left
    /// unexplored: the limit that stopped it, the queries the solver gave up on, the runs that
    /// left their path, the tests whose path does not decide their outcome. Empty when
    /// nothing of this happened.
    pub fn gaps(&self) -> Vec<String> {
        let mut out = Vec::new();
        let after =
            |what: String| format!("{what}: the paths after test {} are unexplored", self.tests);
        match &self.stopped_by {
            Some(StopReason::Time(t)) => {
                out.push(after(format!("time limit (--timeout {})", t.as_secs_f64())))
            }
            Some(StopReason::Tests(n)) => out.push(after(format!("test limit (--max-tests {n})"))),
            Some(StopReason::Interrupted) => out.push(after("interrupted (Ctrl-C)".into())),
            Some(StopReason::Caller) => out.push(after("stopped by the caller".into())),
            None => {}
        }
        match self.unknown_queries {
            0 => {}
            1 => out.push("1 solver query unknown: its subtree is unexplored".into()),
            n => out.push(format!(
                "{n} solver queries unknown: their subtrees are unexplored"
            )),
        }
        match self.divergences {
            0 => {}
            1 => out.push(
                "1 run left the path it was solved for: the paths beside it may be unexplored"
                    .into(),
            ),
            n => out.push(format!(
                "{n} runs left the path they were solved for: the paths beside them may be unexplored"
            )),
        }
        match self.relabelled {
            0 => {}
            n => out.push(format!(
                "{n} test{} ended differently in the plain run than on {} explored path (lazy conflicts, packed exceptions or --order paper): {} outcome is the plain run's, other inputs of {} path may end in ways not explored (--optim all,-lazy,-reorder explores them)",
                if n == 1 { "" } else { "s" },
                if n == 1 { "its" } else { "their" },
                if n == 1 { "its" } else { "their" },
                if n == 1 { "its" } else { "their" },
            )),
        }
        out
    }
}

/// Whether an entry of `incomplete` tells what stopped one process (a limit, Ctrl-C), which a
/// resumption or another shard may make up for, rather than a gap in what was explored.
pub fn is_stop_entry(entry: &str) -> bool {
    [
        "time limit (",
        "test limit (",
        "interrupted (",
        "stopped by the caller",
    ]
    .iter()
    .any(|p| entry.starts_with(p))
}

/// The result of an exploration.
#[derive(Clone, Debug)]
pub struct Exploration {
    pub tests: Vec<TestCase>,
    pub stats: ExploreStats,
    /// Why the exploration is not complete, one entry each: operations evaluated concretely on
    /// symbolic operands (completeness is lost there), then [`ExploreStats::gaps`].
    pub incomplete: Vec<String>,
    /// Tests the plain interpreter replayed with a different outcome (index, explanation).
    pub replay_mismatches: Vec<(usize, String)>,
}

/// What a streaming caller wants after seeing a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    Continue,
    /// End the exploration now (it is then reported as not complete).
    Stop,
}
