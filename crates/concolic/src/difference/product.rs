//! The product program of a difference, as each thread of an exploration builds it for
//! itself: the interface of the two versions ([`super::interface`]), the input variables
//! both read and the two cases (OLD's scope, NEW's) of the product executor. Terms and values
//! are not shared between threads, so the mapping given by the caller travels as JSON
//! ([`PortableMapping`]) and each thread reads it back. A differing leaf found elsewhere (by
//! another thread, or another process: a shard) comes back as its model alone
//! ([`super::part::FoundLeaf`]); [`Product::rebuild`] runs the pair on it again, which follows
//! the same path (the programs are deterministic) and gives the same path and difference
//! conditions.

use super::compare::DifferenceGoal;
use super::interface::{self, Interface, InterfaceMapping};
use super::part::FoundLeaf;
use super::DifferenceError;
use crate::executor::PathExecutor;
use crate::path_id::PathId;
use crate::product_executor::{CaseOutcome, ProductCase, ProductExecutor, ProductLeaf};
use crate::relational::{
    product_parts, Goal, LeafMode, ProductParts, RelationalOptions, RelationalSpace, Violation,
};
use crate::ConcolicError;
use catala_eval::runtime::json::{value_from_json, value_to_json};
use catala_ir::dcalc::{Program, ScopeId};
use serde_json::Value as Json;
use smt::catala::term::Term;
use std::collections::BTreeMap;

/// What the leaves of a difference do: collect every differing leaf, run both versions
/// whatever the first does.
pub(crate) const MODE: LeafMode = LeafMode {
    collect_all: true,
    every_case: true,
};

/// The interface of the versions, the input variables and the two cases.
pub(crate) struct Product {
    pub(crate) iface: Interface,
    pub(crate) space: RelationalSpace,
    pub(crate) cases: Vec<ProductCase>,
}

impl Product {
    /// The product of `old_scope` of `old` and `new_scope` of `new`, or what cannot be
    /// matched.
    pub(crate) fn new(
        (old, old_scope): (&Program, ScopeId),
        (new, new_scope): (&Program, ScopeId),
        mapping: &InterfaceMapping,
        max_list_length: usize,
    ) -> Result<Product, DifferenceError> {
        let iface =
            interface::interface((old, old_scope), (new, new_scope), mapping, max_list_length)
                .map_err(DifferenceError::Interface)?;
        let first_free_var = iface.space.vars.len() as u32;
        let space = RelationalSpace {
            vars: iface.space.vars.clone(),
            cases: vec![Vec::new(), Vec::new()],
            globals: iface.space.domains.clone(),
            first_free_var,
        };
        let cases = vec![
            ProductCase {
                program: 0,
                scope: old_scope,
                shapes: iface.old_shapes.clone(),
            },
            ProductCase {
                program: 1,
                scope: new_scope,
                shapes: iface.new_shapes.clone(),
            },
        ];
        Ok(Product {
            iface,
            space,
            cases,
        })
    }

    /// The difference goal over the two versions.
    pub(crate) fn goal<'p>(&self, old: &'p Program, new: &'p Program) -> DifferenceGoal<'p> {
        DifferenceGoal {
            old,
            new,
            outputs: self.iface.outputs.clone(),
        }
    }

    /// The executor, the solver chain and what the queries share, for one loop.
    pub(crate) fn parts<'a>(
        &'a self,
        programs: &[&'a Program],
        options: &'a RelationalOptions,
    ) -> Result<ProductParts<'a>, ConcolicError> {
        product_parts(programs, self.cases.clone(), &self.space, options, MODE)
    }

    /// The differing leaves of `found` with their conditions, in the order of their path
    /// identifiers, each once; and how many could not be rebuilt (their run left the path
    /// they were found on, or the pair no longer differs there).
    pub(crate) fn rebuild(
        &self,
        programs: &[&Program],
        goal: &mut DifferenceGoal<'_>,
        found: &[FoundLeaf],
    ) -> Result<(Vec<Violation>, usize), ConcolicError> {
        let mut executor = ProductExecutor::new(programs, self.cases.clone(), true)?;
        executor = executor.run_every_case();
        let mut sorted: Vec<&FoundLeaf> = found.iter().collect();
        sorted.sort_by(|a, b| a.id.cmp(&b.id));
        sorted.dedup_by(|a, b| a.id == b.id);
        let ffv = self.space.first_free_var;
        let mut out = Vec::with_capacity(sorted.len());
        let mut lost = 0;
        for f in sorted {
            let run = executor.execute(&f.assignment);
            let path = ProductExecutor::path(&run);
            if PathId::of(path) != f.id {
                lost += 1;
                continue;
            }
            let terms: Vec<Term> = path.iter().map(|c| c.term.clone()).collect();
            let (g, outcomes) = match run.leaf {
                ProductLeaf::Outcomes(outcomes) => {
                    let outputs: Option<Vec<Vec<_>>> = outcomes
                        .iter()
                        .map(|o| match o {
                            CaseOutcome::Outputs(v) => Some(v.clone()),
                            CaseOutcome::Failed(_) => None,
                        })
                        .collect();
                    let g = match &outputs {
                        Some(outputs) => Some(goal.violation(outputs, ffv)),
                        None => goal.outcome_violation(&outcomes, ffv),
                    };
                    (g, outcomes)
                }
                ProductLeaf::Outputs(outputs) => (Some(goal.violation(&outputs, ffv)), Vec::new()),
                ProductLeaf::Error(_) => (None, Vec::new()),
            };
            match g {
                Some(Ok(goal)) => out.push(Violation {
                    assignment: f.assignment.clone(),
                    id: f.id.clone(),
                    path: terms,
                    goal,
                    at_s: f.at_s,
                    outcomes,
                }),
                _ => lost += 1,
            }
        }
        Ok((out, lost))
    }
}

/// An [`InterfaceMapping`] that can go to another thread: the defaults as JSON.
#[derive(Clone, Debug, Default)]
pub(crate) struct PortableMapping {
    renames: BTreeMap<String, String>,
    defaults: BTreeMap<String, Json>,
}

impl PortableMapping {
    /// `mapping`, whose defaults are values of `new`.
    pub(crate) fn of(mapping: &InterfaceMapping, new: &Program) -> PortableMapping {
        PortableMapping {
            renames: mapping.renames.clone(),
            defaults: mapping
                .defaults
                .iter()
                .map(|(k, v)| (k.clone(), value_to_json(new, v)))
                .collect(),
        }
    }

    /// The mapping again, its defaults read as values of the inputs of `new_scope` of `new`.
    pub(crate) fn resolve(
        &self,
        new: &Program,
        new_scope: ScopeId,
    ) -> Result<InterfaceMapping, String> {
        let inputs = &new.scope(new_scope).inputs;
        let mut defaults = BTreeMap::new();
        for (name, j) in &self.defaults {
            let input = inputs
                .iter()
                .find(|i| &i.name == name)
                .ok_or_else(|| format!("no input `{name}` in NEW"))?;
            let v = value_from_json(new, &input.ty, j, name).map_err(|e| e.to_string())?;
            defaults.insert(name.clone(), v);
        }
        Ok(InterfaceMapping {
            renames: self.renames.clone(),
            defaults,
        })
    }
}
