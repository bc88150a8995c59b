//! Catala values in Z3, for the concolic engine. [`term`] is a small, solver-independent term
//! language over the sorts Catala's scalar values map to (booleans; integers, money in cents and
//! dates as day numbers on Z3 integers; decimals on Z3 reals) with Catala's rounding operators.
//! [`session`] is the solver chain of an exploration (layers of [`crate::layer`]): exact
//! answers without Z3 ([`finite`]), models guessed near the last inputs ([`guess`]), then
//! [`z3_session`], which encodes the terms into the thread's Z3 context, keeps the path
//! condition as an incremental push/pop stack, answers satisfiability queries, extracts models,
//! and refines models of money variables towards round amounts with soft constraints tried one
//! by one; a query Z3 gives up on is split on a count with few values left ([`case_split`]). Dates have calendar operators ([`calendar`]) so that the parts of a date, month
//! arithmetic and month ends stay exact.

pub mod calendar;
pub mod case_split;
pub mod finite;
pub mod guess;
pub mod session;
pub mod term;
mod z3_calendar;
pub mod z3_session;

pub use session::{
    CatalaSession, ModelSource, ModelValue, PathQuery, QueryOutcome, RoundnessLevel, SessionStats,
};
pub use term::{Kind, Op, Term, TermNode, VarId};
