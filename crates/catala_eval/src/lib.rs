//! `catala_eval` is the third stage of lexprobe's Catala pipeline: it takes the default-calculus
//! program of `catala_ir::dcalc` and runs its scopes. [`runtime`] holds Catala's values with
//! their exact arithmetic (unbounded integers, rational decimals, money in cents, calendar
//! dates), their printed forms per language and their JSON formats; the interpreter evaluates
//! the default terms of a scope (exceptions, conflicts, empty defaults) and reports runtime
//! errors with their positions.
//!
//! Entry points: [`run_scope`] (values aligned with the scope's inputs), [`run_scope_json`]
//! (Catala's JSON inputs), [`run_test_scopes`], and [`Interpreter`] to prepare a program once
//! and run it many times ([`run_with`]) or to run it with a non-trivial [`Companion`] (the
//! concolic engine). Results print with
//! [`ValuePrinter::result_lines`](runtime::print::ValuePrinter::result_lines) and
//! [`outputs_to_json`].

pub mod eval;
pub mod externals;
pub mod loader;
pub mod runtime;

pub use eval::{
    inputs_from_json, outputs_to_json, run_scope, run_scope_json, run_test_scopes, run_with,
    AssertionFailure, Companion, Interpreter, RunError, RuntimeError, RuntimeErrorKind,
    ScopeResult,
};
pub use runtime::{Value, ValuePrinter};
