//! Exit codes shared by the subcommands.

pub(crate) const SUCCESS: i32 = 0;
/// A Catala error (parse, typing, runtime), as the Catala compiler exits.
pub const CATALA_ERROR: i32 = 123;
/// Bad command-line usage or an unreadable auxiliary file.
pub const USAGE: i32 = 2;
/// `lexprobe metamorphic`: at least one relation failed.
pub(crate) const RELATION_FAILED: i32 = 1;
/// `lexprobe metamorphic`: no relation failed, but at least one is inconclusive.
pub(crate) const INCONCLUSIVE: i32 = 3;
/// `lexprobe concolic`: a problem (a runtime error: conflict, empty default, …) was found on
/// some path.
pub(crate) const PROBLEMS_FOUND: i32 = 1;
/// `lexprobe diff`: the two versions differ on some input (0: equivalent; 3: unknown, as
/// [`INCONCLUSIVE`]).
pub(crate) const DIFFERS: i32 = 1;
/// `lexprobe falsify`: the property was falsified (a violating trace was found).
pub(crate) const FALSIFIED: i32 = 1;
