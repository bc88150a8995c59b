//! Conditions a reader can act on. An exploration ends each path with a path condition over
//! solver variables; the paths that show one problem (or, for two versions of a program, one
//! difference) together describe exactly when it happens. This crate turns the disjunction of
//! those path conditions into a short, exactly equivalent condition over the inputs' names —
//! `zone = Mountain and single_parent and children >= 2` — by bounding each input to a set of
//! values (intervals, enumeration cases, truth values) and merging cases that differ on one
//! input (see [`simplify`] for the rewritings). Constraints over several inputs stay as
//! written, over the names and in the inputs' units.

mod case;
mod condition;
mod inputs;
mod linear;
pub mod numset;
mod render;
pub mod simplify;
mod term_text;

pub use condition::{Case, Condition, Constraint};
pub use inputs::{Inputs, Unit, VarInfo};
pub use render::{civil_from_days, dollars, Format, PlainFormat};

use case::{CaseBuilder, Work};
use smt::catala::Term;
use std::sync::Arc;

/// One path condition, read over the inputs: plain data (no solver terms), so that workers in
/// several threads can hand path conditions to one collector.
#[derive(Clone, Debug)]
pub struct PathCase {
    cases: Vec<Work>,
    inputs: Arc<Inputs>,
}

impl PathCase {
    /// The conjunction of `path`'s constraints over `inputs`.
    pub fn of(path: &[Term], inputs: &Arc<Inputs>) -> PathCase {
        PathCase {
            cases: CaseBuilder::new(inputs).cases(path),
            inputs: inputs.clone(),
        }
    }
}

/// Path conditions of one problem (or one difference) gathered as they come, kept short by
/// simplifying whenever their number doubles.
#[derive(Clone, Debug, Default)]
pub struct Collector {
    cases: Vec<Work>,
    inputs: Option<Arc<Inputs>>,
    paths: usize,
    next_simplification: usize,
}

impl Collector {
    /// Adds one path condition (all of a collector's come from one exploration's inputs).
    pub fn add(&mut self, case: PathCase) {
        self.paths += 1;
        self.cases.extend(case.cases);
        let inputs = self.inputs.get_or_insert(case.inputs);
        if self.cases.len() >= self.next_simplification.max(64) {
            self.cases = simplify::simplify(std::mem::take(&mut self.cases), inputs);
            self.next_simplification = 2 * self.cases.len();
        }
    }

    /// The number of path conditions added.
    pub fn paths(&self) -> usize {
        self.paths
    }

    /// The condition of the paths added so far.
    pub fn condition(&self) -> Condition {
        match &self.inputs {
            Some(inputs) => finish(self.cases.clone(), self.paths, inputs),
            None => Condition::default(),
        }
    }
}

fn finish(cases: Vec<Work>, paths: usize, inputs: &Inputs) -> Condition {
    let cases = simplify::simplify(cases, inputs);
    let mut out: Vec<Case> = cases
        .iter()
        .map(|w| condition::case_of(w, inputs))
        .collect();
    out.sort_by_key(|c| c.constraints.len());
    Condition { cases: out, paths }
}

/// The condition under which one of `paths` is taken: their disjunction, simplified exactly.
/// Path conditions that contradict themselves are left out.
pub fn explain(paths: &[Vec<Term>], inputs: &Inputs) -> Condition {
    let builder = CaseBuilder::new(inputs);
    let cases: Vec<Work> = paths.iter().flat_map(|p| builder.cases(p)).collect();
    finish(cases, paths.len(), inputs)
}
