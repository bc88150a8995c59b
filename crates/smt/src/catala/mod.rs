//! Catala values in Z3, for the concolic engine. [`term`] is a small, solver-independent term
//! language over the sorts Catala's scalar values map to (booleans; integers, money in cents and
//! dates as day numbers on Z3 integers; decimals on Z3 reals) with Catala's rounding operators;
//! dates have calendar operators ([`calendar`]) so that the parts of a date, month arithmetic
//! and month ends stay exact.
//!
//! Queries go through a chain of layers, in the manner of KLEE's solver chain, each a type
//! implementing the crate's `SolverLayer` trait over a path query (`query`: the query, its
//! [`Budget`], and the [`Answer`], which names the [`Layer`] that gave it): exact answers
//! without Z3 ([`finite`]), models guessed near the last inputs ([`guess`]), refutations by
//! the bounds of each subterm (`intervals`), the Z3 solver
//! holding the path condition on a push/pop stack (`z3_incremental`), a fresh Z3 solver with a
//! case split on a count with few values left (`z3_fresh`, `case_split`), inside a wrapper
//! writing the queries Z3 gives up on as SMT-LIB files (`dump`). The Z3 layers share one
//! encoder (`encoder`: the term cache, the calendar definitions of `z3_calendar`, and the
//! decimals that are fractions of integers put over integers, `integer_form`) through
//! `z3_base`. After a satisfiable answer from Z3, the model refiner (`refine`) pulls money and
//! dates towards round values; every layer prefers the realistic values of [`prefer`] (dates
//! within the years a program speaks of, counts small and not negative). `chain` assembles the layers from a [`ChainConfig`];
//! [`CatalaSession`] (`session`) is the facade the explorations use, and [`SessionStats`] its
//! figures, per layer ([`LayerStats`]).

pub mod calendar;
mod case_split;
mod chain;
mod dump;
mod encoder;
pub mod finite;
pub mod guess;
mod integer_form;
mod intern;
mod intervals;
mod model;
mod pinned;
pub mod prefer;
mod query;
mod rational;
mod refine;
mod session;
mod spans;
mod stats;
pub mod term;
mod unsat_slices;
mod z3_base;
mod z3_calendar;
mod z3_fresh;
mod z3_incremental;

pub use chain::ChainConfig;
pub use prefer::{Preferences, Preferred, PreferredUnit};
pub use query::{Answer, Budget, EncodeError, Layer, ModelValue, QueryOutcome, RoundnessLevel};
pub use session::CatalaSession;
pub use stats::{LayerStats, SessionStats};
pub use term::{Kind, Op, Term, TermNode, VarId};
