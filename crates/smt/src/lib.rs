//! `smt`: the one place in lexprobe that talks to Z3, and the solver substrate of both engines.
//! Queries go through a chain of solver layers (`layer`: the `SolverLayer` trait, `Chain`)
//! whose last layers are Z3's, on the thread's Z3 context (one per thread, freed with its last
//! solver). The derivative-guided engine (`hatch`, through `sre`) hands it first-order
//! [`Term`]s (booleans, integers, uninterpreted sorts and functions, quantified axioms) through
//! [`Solver`] (a bounded cache, then Z3) and gets satisfiability answers and models; the
//! concolic engine hands it Catala terms through [`catala::CatalaSession`] (the chain of
//! [`catala`]: exact answers, guesses, then Z3). The two term languages stay apart: the first needs uninterpreted sorts
//! and quantifiers, the second exact rationals with Catala's rounding.

mod context;
pub mod fast_hash;
mod layer;
mod solver;
mod term;
mod watchdog;

pub use layer::GenerationalMap;
pub use solver::{Model, SatOutcome, SmtError, Solver, SolverStats};
pub use term::{ArithOp, CmpOp, Shared, Sort, Term};
pub use watchdog::Stop;
pub mod catala;
