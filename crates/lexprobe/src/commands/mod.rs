//! One module per subcommand.

pub mod falsify;
pub mod metamorphic;
