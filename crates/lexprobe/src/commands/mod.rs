//! One module per subcommand.

pub mod falsify;
pub mod metamorphic;
pub mod run;
pub mod test;
pub mod typecheck;
