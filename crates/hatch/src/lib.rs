//! `hatch`: derivative-guided symbolic execution (HATch). It takes a benchmark method of the
//! HATch input language with the trace specifications of its representation type and a safety
//! property, and gives a falsifying execution (path condition, symbolic trace, model) or none
//! within the bounds. Sits on `sre` (specifications) and `smt` (the solver).

pub mod core;
pub mod derivative;
pub mod engine;
pub mod exec;
pub mod front;
pub mod naive;
pub mod syntax;

pub use engine::{falsify, falsify_file, HatchError, Mode, Options, Report};
pub use sre;

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
