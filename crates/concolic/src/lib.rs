//! `concolic`: concolic execution of Catala scopes (CUTECat's method). The scope is run by the
//! ordinary interpreter of `catala_eval` with a symbolic companion ([`symbolic`]) that records
//! the path condition at every branch point (default justifications, conditionals, matches,
//! divisions by zero, assertions); the [`executor`] makes one such run, a [`searcher`] picks
//! the constraint to negate next (depth-first by default), and the solver chain of
//! `smt::catala` gives inputs reaching each new path; [`explore`] repeats this until every
//! feasible path has one concrete test. [`emit`] writes the tests as Catala test scopes. With the `lazy`
//! optimization the companion asks the interpreter to stop a default term's exceptions at the
//! second non-empty one (Fig. 9 of the paper); `reorder` packs exceptions by free variables
//! first ([`reorder::pack_exceptions`]).
//!
//! Every test carries its [`path_id::PathId`], the branch decisions of its path, the same
//! whoever found it. Beyond one process, a [`plan`] cuts the path tree into disjoint subtrees
//! and each [`shard`] explores its own, with checkpoints, for a merge afterwards.
//!
//! Entry point: [`explore::explore`].

pub mod audit;
pub mod checkpoint;
pub(crate) mod condition_inputs;
pub(crate) mod coverage_guided;
pub(crate) mod cpu_clock;
pub mod difference;
pub mod emit;
pub(crate) mod executor;
mod exploration_loop;
pub mod explore;
pub mod fold;
mod frontier;
pub mod inputs;
mod int_rounding;
pub mod mutation;
pub mod mutation_directed;
pub(crate) mod mutation_goal;
pub mod mutation_site;
pub(crate) mod mutation_starts;
mod observers;
pub mod options;
pub mod parallel;
pub(crate) mod path_id;
pub mod plan;
mod product_executor;
pub mod relational;
mod relational_loop;
pub mod reorder;
mod replay;
pub mod results;
pub(crate) mod searcher;
pub mod shard;
mod shard_threads;
pub mod suite;
pub mod symbolic;
mod symbolic_dates;
mod work_pool;
mod worker;

pub use explore::{
    explore, explore_checkpointed, Control, EvaluationOrder, Exploration, ExploreOptions,
    ExploreStats, Optimizations, Outcome, StopReason, Strategy, TestCase,
};
pub use path_id::PathId;

/// Errors of an exploration.
#[derive(Debug, thiserror::Error)]
pub enum ConcolicError {
    #[error("the program's top-level definitions fail: {}", .0.message)]
    Runtime(Box<catala_eval::RuntimeError>),
    #[error(transparent)]
    Encode(#[from] smt::catala::EncodeError),
    #[error("unknown optimization `{0}` (expected none, all, or a comma list of {names}; `-NAME` turns one off)", names = options::optimization_names())]
    UnknownOptimization(String),
    #[error("invalid hints: {0}")]
    Hints(String),
    #[error("parallel exploration: {0}")]
    Worker(String),
    #[error("cannot resume: {0}")]
    Resume(String),
}
