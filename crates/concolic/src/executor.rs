//! The executor: one run of the scope on concrete inputs by the interpreter of `catala_eval`
//! with the symbolic companion riding along ([`crate::symbolic`]). It takes an assignment of
//! the input variables and gives a `Run`: the inputs as values, the path condition (one
//! [`PathConstraint`] per branch decided on the way), the outcome (outputs, a failed assertion
//! or an error) and, with early conflicts on, the lemmas learnt from exceptions that failed
//! (Fig. 10 of the paper). The searcher and the solver chain never see the interpreter.
//!
//! [`PathExecutor`] is what every executor gives the exploration loops: a run on one
//! assignment, its path condition, and the concrete-only operations met so far. [`Executor`]
//! runs one scope; `crate::product_executor::ProductExecutor` runs several (the cases of a
//! relation, or two versions of a program) on one path state.

use crate::inputs::{Assignment, InputSpace, Shape};
use crate::options::Optimizations;
use crate::results::Outcome;
use crate::symbolic::{PathConstraint, PathState, Sym};
use crate::ConcolicError;
use catala_eval::eval::Interpreter;
use catala_eval::runtime::Value;
use catala_ir::dcalc::{InputKind, Program, ScopeId, Ty};
use smt::catala::term::{self, Term};
use std::collections::BTreeSet;

/// What one run gives.
pub(crate) struct Run {
    /// The inputs, as the scope received them.
    pub(crate) inputs: Vec<Option<Value>>,
    /// The path condition, in the order the branches were decided.
    pub(crate) path: Vec<PathConstraint>,
    pub(crate) outcome: Outcome,
    /// Early-conflict lemmas (p, ¬χ'): they hold for queries negating a node at position p or
    /// later (Fig. 10).
    pub(crate) lemmas: Vec<(usize, Term)>,
    /// The inputs fail an input assertion of the scope: outside the input space it states.
    pub(crate) outside_input_space: bool,
    /// Among them, one of the explored scope's own (the space every query is within).
    pub(crate) started_outside: bool,
}

/// An executor: runs the program, or the programs of a product, on one assignment of the
/// input variables. The path of a run goes to the searcher and the solver chain; the rest of
/// the run (outputs, outcome, lemmas) to the leaf hook.
pub(crate) trait PathExecutor {
    /// What one run gives.
    type Run;
    /// Runs on `assignment`.
    fn execute(&mut self, assignment: &Assignment) -> Self::Run;
    /// The path condition of `run`, in the order the branches were decided.
    fn path(run: &Self::Run) -> &[PathConstraint];
    /// Operations the runs so far evaluated concretely only (paths may be missing).
    fn incomplete(&self) -> &BTreeSet<String>;
}

impl PathExecutor for Executor<'_> {
    type Run = Run;

    fn execute(&mut self, assignment: &Assignment) -> Run {
        self.run(assignment)
    }

    fn path(run: &Run) -> &[PathConstraint] {
        &run.path
    }

    fn incomplete(&self) -> &BTreeSet<String> {
        &self.interp.session.incomplete
    }
}

/// Runs one scope of a (transformed) program with the symbolic companion.
pub(crate) struct Executor<'p> {
    program: &'p Program,
    scope: ScopeId,
    /// How each input of the scope is built from the input variables.
    pub(crate) shapes: Vec<Option<Shape>>,
    interp: Interpreter<'p, Sym>,
    early_conflicts: bool,
    /// The conditions of the scope's input assertions, when checked first: constraints of
    /// every query (the input space the scope states), given to the solver as globals.
    pub(crate) input_space: Vec<Term>,
}

impl<'p> Executor<'p> {
    /// An executor of `scope`, with the input variables of its inputs declared in `space`.
    pub(crate) fn new(
        program: &'p Program,
        scope: ScopeId,
        opt: Optimizations,
        space: &mut InputSpace,
    ) -> Result<Executor<'p>, ConcolicError> {
        let decl = program.scope(scope);
        let mut shapes: Vec<Option<Shape>> = Vec::with_capacity(decl.inputs.len());
        for input in &decl.inputs {
            // A context variable is given or not: two branches where its definition is read.
            shapes.push(match input.kind {
                InputKind::Input => Some(space.shape_of(program, &input.ty, &input.name, 0)),
                // A caller's function has no symbolic model: the scope's own definition only.
                InputKind::Context if matches!(input.ty, Ty::Arrow(..)) => {
                    let note = format!("{}: function, left to its definition", input.name);
                    space.fixed.push(note);
                    None
                }
                InputKind::Context => Some(space.optional_shape(program, &input.ty, &input.name)),
                _ => None,
            });
        }
        let mut state = PathState::new(opt.trivial_constraints);
        // Inputs without a symbolic model keep one value: their other values are not explored.
        state.incomplete.extend(space.fixed.iter().cloned());
        state.lazy_exceptions = opt.lazy_defaults;
        state.early_conflicts = opt.early_conflicts;
        for (input, shape) in decl.inputs.iter().zip(&shapes) {
            if let Some(Shape::Optional { given, .. }) = shape {
                state.context_defaults.insert(
                    input.span,
                    (term::var(*given, smt::catala::Kind::Bool), false),
                );
            }
        }
        let mut interp = Interpreter::<Sym>::new(program, state)
            .map_err(|e| ConcolicError::Runtime(Box::new(e)))?;
        interp.check_input_assertions_first(opt.input_space);
        let mut input_space = Vec::new();
        if opt.input_space {
            // Their conditions do not depend on the inputs' values: any assignment gives them.
            let none: Assignment = vec![None; space.vars.len()];
            let args = shapes
                .iter()
                .map(|s| s.as_ref().and_then(|s| s.build_arg(&none)))
                .collect();
            interp.report_input_assertions_on(scope, args);
            input_space = std::mem::take(&mut interp.session.input_assertion_terms)
                .into_iter()
                .filter(|t| !t.is_ground())
                .collect();
            interp.session.reset();
        }
        Ok(Executor {
            program,
            scope,
            shapes,
            interp,
            early_conflicts: opt.early_conflicts,
            input_space,
        })
    }

    /// Runs the scope on `assignment`.
    pub(crate) fn run(&mut self, assignment: &Assignment) -> Run {
        let decl = self.program.scope(self.scope);
        let interp = &mut self.interp;
        interp.session.reset();
        for (input, shape) in decl.inputs.iter().zip(&self.shapes) {
            if let Some(Shape::Optional { given, .. }) = shape {
                let is_given = matches!(
                    assignment.get(given.0 as usize),
                    Some(Some(smt::catala::ModelValue::Bool(true)))
                );
                if let Some(entry) = interp.session.context_defaults.get_mut(&input.span) {
                    entry.1 = is_given;
                }
            }
        }
        let args: Vec<Option<(Value, Sym)>> = self
            .shapes
            .iter()
            .map(|s| s.as_ref().and_then(|s| s.build_arg(assignment)))
            .collect();
        let inputs: Vec<Option<Value>> = args
            .iter()
            .map(|a| a.as_ref().map(|(v, _)| v.clone()))
            .collect();
        let result = interp.run(self.scope, args);
        let mut lemmas = Vec::new();
        if self.early_conflicts && result.is_err() {
            for &(start, failing) in &interp.session.failed_exceptions {
                if start < failing {
                    let condition = interp.session.condition_from(failing);
                    let failed = match condition.len() {
                        0 => term::bool_const(true),
                        1 => condition[0].clone(),
                        _ => term::app(term::Op::And, condition),
                    };
                    lemmas.push((start, term::not(&failed)));
                }
            }
        }
        let path = std::mem::take(&mut interp.session.constraints);
        let outside_input_space = interp.session.outside_input_space;
        let started_outside = interp.session.started_outside;
        let outcome = match result {
            Ok((_, failures)) if !failures.is_empty() => Outcome::Assertion(failures[0].clone()),
            Ok(((Value::Struct(s), _), _)) => Outcome::Ok(
                decl.outputs
                    .iter()
                    .map(|o| o.name.clone())
                    .zip(s.fields.iter().cloned())
                    .collect(),
            ),
            Ok(_) => Outcome::Ok(Vec::new()),
            // A failed assertion ends the path, whatever fails after it.
            Err(e) => match interp.take_failures().into_iter().next() {
                Some(a) => Outcome::Assertion(a),
                None => Outcome::Error(e),
            },
        };
        Run {
            inputs,
            path,
            outcome,
            lemmas,
            outside_input_space,
            started_outside,
        }
    }
}
