//! One module per subcommand.

pub mod audit;
pub mod concolic;
pub mod coverage_args;
pub mod diff;
pub mod falsify;
pub mod merge;
pub mod metamorphic;
pub mod mutate;
pub mod run;
pub(crate) mod shard;
pub mod test;
pub mod typecheck;
