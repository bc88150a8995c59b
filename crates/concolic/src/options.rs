//! Settings of an exploration: the optimizations of Section 4 of the paper, each switchable,
//! and the limits, hints and outputs asked for.

use crate::checkpoint::Checkpoint;
use crate::ConcolicError;
use std::time::Duration;

/// The optimizations of Section 4, each switchable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Optimizations {
    /// Drop constraints without variables and repeated constraints.
    pub trivial_constraints: bool,
    /// Push/pop the path condition instead of re-asserting it.
    pub incremental: bool,
    /// Refine models towards round money amounts.
    pub soft_constraints: bool,
    /// Fold the cases of a `match` that share their arm into one branch.
    pub case_folding: bool,
    /// Stop evaluating a default term's exceptions at the second non-empty one (Fig. 9).
    pub lazy_defaults: bool,
    /// Group the exceptions of default terms by free variables (exception packing).
    pub exception_packing: bool,
    /// Early conflicts (Fig. 10): when an exception of a default term fails, the constraints
    /// of the earlier exceptions did not cause the failure, so the other outcomes of those
    /// exceptions are explored only among inputs that avoid the failing exception's path.
    pub early_conflicts: bool,
    /// Answer queries over dates, enumeration cases and booleans compared with constants
    /// without Z3 (`smt::catala::finite`); the money variables always go to Z3, which rounds
    /// them.
    pub fast_queries: bool,
    /// Before asking Z3, look for a model near the last inputs, changing only the variables
    /// of the violated constraints (`smt::catala::guess`; money at multiples of $100). Only
    /// satisfiable queries are answered this way, always with a checked model.
    pub guesses: bool,
}

impl Optimizations {
    pub const ALL: Optimizations = Optimizations {
        trivial_constraints: true,
        incremental: true,
        soft_constraints: true,
        case_folding: true,
        lazy_defaults: true,
        exception_packing: true,
        early_conflicts: true,
        fast_queries: true,
        guesses: true,
    };
    pub const NONE: Optimizations = Optimizations {
        trivial_constraints: false,
        incremental: false,
        soft_constraints: false,
        case_folding: false,
        lazy_defaults: false,
        exception_packing: false,
        early_conflicts: false,
        fast_queries: false,
        guesses: false,
    };

    /// Parses `none`, `all` or a comma list of `trivial`, `incremental`, `soft`, `folding`,
    /// `lazy`, `reorder` (exception packing), `early` (early conflicts), `fast` (simple queries without Z3), `guess` (models
    /// guessed near the last inputs); `all,-NAME` turns one off.
    pub fn parse(text: &str) -> Result<Optimizations, ConcolicError> {
        match text.trim() {
            "all" => return Ok(Optimizations::ALL),
            "none" => return Ok(Optimizations::NONE),
            _ => {}
        }
        let mut o = Optimizations::NONE;
        for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, on) = match name.strip_prefix('-') {
                Some(rest) => (rest, false),
                None => (name, true),
            };
            match name {
                "all" => {
                    o = if on {
                        Optimizations::ALL
                    } else {
                        Optimizations::NONE
                    }
                }
                "none" => o = Optimizations::NONE,
                "trivial" => o.trivial_constraints = on,
                "incremental" => o.incremental = on,
                "soft" => o.soft_constraints = on,
                "folding" => o.case_folding = on,
                "lazy" => o.lazy_defaults = on,
                "reorder" => o.exception_packing = on,
                "early" => o.early_conflicts = on,
                "fast" => o.fast_queries = on,
                "guess" => o.guesses = on,
                other => return Err(ConcolicError::UnknownOptimization(other.to_string())),
            }
        }
        Ok(o)
    }
}

/// The order in which an exploration visits the paths. Both visit the same set of paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Depth-first, negating the last open constraint (Section 3 of the paper).
    #[default]
    DepthFirst,
    /// Depth-first, except that the deepest open constraint whose negation leads to a branch
    /// no run has taken yet (a condition's other outcome, another case of a match) goes
    /// first; the open constraints below it are set aside as subtrees and explored later.
    /// Problems sitting behind an untried branch are found sooner. Not with checkpoints.
    NewBranchesFirst,
}

/// Settings of an exploration.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    pub optimizations: Optimizations,
    pub strategy: Strategy,
    pub max_tests: Option<usize>,
    pub timeout: Option<Duration>,
    /// Initial inputs (a JSON object keyed by input name, possibly partial).
    pub hints: Option<serde_json::Value>,
    /// Replay every test on the plain interpreter.
    pub check: bool,
    /// Keep each test's path condition (printed terms).
    pub keep_constraints: bool,
    /// Keep the tests in [`Exploration::tests`]; a streaming caller that consumes each test as
    /// it is found turns this off so memory stays flat on explorations of any length.
    pub keep_tests: bool,
    /// Continue a sequential exploration from this checkpoint.
    pub resume: Option<Checkpoint>,
    /// Hand a checkpoint to the caller this often (and when a limit stops the exploration).
    pub checkpoint_every: Option<Duration>,
    /// The solver gives up on a query after this long (counted in `unknown_queries`).
    pub query_timeout: Option<Duration>,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            optimizations: Optimizations::ALL,
            strategy: Strategy::DepthFirst,
            max_tests: None,
            timeout: None,
            hints: None,
            check: true,
            keep_constraints: false,
            keep_tests: true,
            resume: None,
            checkpoint_every: None,
            query_timeout: Some(Duration::from_secs(60)),
        }
    }
}
