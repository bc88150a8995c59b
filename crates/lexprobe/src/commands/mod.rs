//! One module per subcommand.

pub mod concolic;
pub mod falsify;
pub mod metamorphic;
pub mod mutate;
pub mod run;
pub mod test;
pub mod typecheck;
