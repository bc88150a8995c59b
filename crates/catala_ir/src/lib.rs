//! `catala_ir` is the second stage of lexprobe's Catala front end: it takes the surface AST of
//! `catala_syntax`, resolves names, type-checks, and lowers the program to the default calculus of
//! [`dcalc`], the representation every engine (the interpreter of `catala_eval`, the concolic
//! engine) consumes. Errors are `catala_syntax::Diagnostic`s of kind `NameResolution` or `Typing`.
//!
//! The passes, in order: `env` (declarations and types), `expr` with `records`, `patterns`,
//! `lists`, `literals` and `ops` (expressions: names, types, operator overloads), `rules`
//! (exception trees), `scopes` (default terms of scope variables, sub-scope calls, evaluation
//! order via `order`, closures via `frame`) and `program` (top-level definitions, scope cycles,
//! the entry point [`compile`]).

mod context;
pub mod dcalc;
mod diag;
mod env;
mod expr;
mod frame;
mod lists;
mod literals;
mod ops;
mod order;
mod patterns;
mod program;
mod records;
mod rules;
mod scopes;

pub use program::compile;
