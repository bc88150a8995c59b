//! `smt`: the one place in lexprobe that talks to Z3. It takes first-order [`Term`]s (booleans,
//! integers, uninterpreted sorts and functions, quantified axioms) built by the engines and gives
//! satisfiability answers, validity checks, models and simplified formulas. The derivative-guided
//! engine (`hatch`, through `sre`) uses it today; the concolic engine will use the same layer.

mod context;
pub mod layer;
pub mod solver;
pub mod term;

pub use layer::{Chain, GenerationalMap, QueryCache, SolverLayer, Verdict};
pub use solver::{Model, SatOutcome, SmtError, Solver, SolverStats, Z3Layer};
pub use term::{ArithOp, CmpOp, Sort, Term};
pub mod catala;
