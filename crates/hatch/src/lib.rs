//! `hatch`: derivative-guided symbolic execution (HATch, POPL 2025). It takes a benchmark method
//! of the HATch input language with the trace specifications of its representation type and a
//! safety property, and gives a falsifying execution (path condition, symbolic trace, model,
//! continuation effect) or none within the bounds. Sits on `sre` (specifications, derivatives)
//! and `smt` (the solver); `lexprobe falsify` is its command line.
//!
//! The flow: [`lexer`] and [`syntax`] parse the OCaml subset; [`front`] reads the predefined
//! files, the benchmark folder and the method into specifications (errors with their positions, [`input`]); [`core`] translates the method
//! and its specification into the core language and its harness; [`exec`] reduces states, with
//! the trace part given by [`naive`] (Fig. 5) or [`derivative`] (Fig. 6); [`engine`] is the
//! searcher and the public entry point, `rounds` the derivative search's rounds of growing bounds, `subsume` the entries into user functions an
//! earlier entry of the same path covers.

pub(crate) mod core;
pub mod derivative;
pub mod engine;
mod event_encoding;
pub mod exec;
pub mod front;
pub mod input;
pub mod lexer;
pub mod naive;
mod own_variables;
pub mod path_condition;
mod rounds;
mod subsume;
pub mod syntax;

pub use engine::{
    falsify, falsify_file, Bounds, HatchError, Mode, Options, Report, SearchProgress,
};
pub use sre;

impl SearchProgress {
    /// One sentence saying how far the search got when nothing was falsified.
    pub fn describe(&self) -> String {
        let limit = format!(
            "{} calls, prestates of {} events",
            self.limit.calls, self.limit.prestate_length
        );
        if self.exhausted {
            return format!(
                "bounds exhausted: every execution with at most {} calls and prestates of at most {} events explored",
                self.limit.calls, self.limit.prestate_length
            );
        }
        let done = match self.completed {
            Some(b) => format!(
                "every execution with at most {} calls and prestates of at most {} events explored",
                b.calls, b.prestate_length
            ),
            None => "no round of the search ended".to_string(),
        };
        match self.interrupted {
            Some(b) => format!(
                "time limit reached: {done}; the search was at {} calls, prestate length {} (bounds: {limit})",
                b.calls, b.prestate_length
            ),
            None => format!("{done} (bounds: {limit})"),
        }
    }
}

impl Report {
    /// The violating symbolic trace, one printed event per entry.
    pub fn trace_lines(&self) -> Vec<String> {
        let Some(v) = &self.violation else {
            return Vec::new();
        };
        v.trace
            .iter()
            .map(|e| sre::show_event(e, &|op: &str| self.arities.get(op).copied().unwrap_or(0)))
            .collect()
    }
}
