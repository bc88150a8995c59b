//! The product executor: one run of several runs (cases) on one assignment of the input
//! variables, with one path state, so that the path condition of the product is the
//! conjunction of the cases' conditions, in run order. A case is a scope of a program with the
//! shapes that build its inputs from the shared variables; the cases of one program share its
//! interpreter, and cases of different programs (two versions of a law, for a `diff`) have one
//! interpreter each, the path state passed from one to the next. Used by relational proofs
//! (the cases of a relation: an input and its follow-up) and by any exploration of several
//! runs at once.

use crate::executor::PathExecutor;
use crate::inputs::{Assignment, Shape};
use crate::symbolic::{constant_term, PathConstraint, PathState, Sym};
use crate::ConcolicError;
use catala_eval::eval::Interpreter;
use catala_eval::runtime::Value;
use catala_ir::dcalc::{Program, ScopeId};
use smt::catala::term::{self, Term};
use std::collections::BTreeSet;

/// One output of one case's run: its name, value and symbolic companion.
#[derive(Clone, Debug)]
pub struct CaseOutput {
    pub name: String,
    pub value: Value,
    pub(crate) sym: Sym,
}

/// An output as one term.
#[derive(Clone, Debug)]
pub enum OutputTerm {
    /// Its symbolic term, or the constant of a concrete number, amount, date or boolean.
    Term(Term),
    /// A concrete value that is not a number, an amount, a date or a boolean.
    NotScalar,
    /// A symbolic structure, enumeration or list.
    Compound,
}

impl CaseOutput {
    /// The output as one term over the input variables.
    pub fn term(&self) -> OutputTerm {
        match &self.sym {
            Sym::Scalar(t) => OutputTerm::Term(t.clone()),
            Sym::Concrete => match constant_term(&self.value) {
                Some(t) => OutputTerm::Term(t),
                None => OutputTerm::NotScalar,
            },
            _ => OutputTerm::Compound,
        }
    }
}

/// One case of a product: which program (an index in the executor's programs), which scope,
/// and how each scope input (in declaration order) is built from the variables (`None`: not
/// given).
#[derive(Clone, Debug)]
pub(crate) struct ProductCase {
    pub(crate) program: usize,
    pub(crate) scope: ScopeId,
    pub(crate) shapes: Vec<Option<Shape>>,
}

/// How one case of a product run ended when an error does not stop the others.
#[derive(Clone, Debug)]
pub enum CaseOutcome {
    /// The case's outputs, in declaration order.
    Outputs(Vec<CaseOutput>),
    /// A runtime error or a failed assertion.
    Failed(CaseFailure),
}

/// A runtime error or failed assertion of one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaseFailure {
    /// The kind, as in `--format json` errors (`conflict`, `no_value`, …), or `assertion`.
    pub kind: String,
    /// Catala's message.
    pub message: String,
    /// The positions the error names (the rules in conflict, the variable without a value,
    /// the assertion), in the case's program.
    pub spans: Vec<catala_syntax::Span>,
}

/// How a product run ends.
pub(crate) enum ProductLeaf {
    /// Every case gave its outputs (one list per case, in declaration order).
    Outputs(Vec<Vec<CaseOutput>>),
    /// A case ended in a runtime error or a failed assertion (the later cases do not run).
    Error(String),
    /// Every case ran, whatever the others did (see [`ProductExecutor::run_every_case`]).
    Outcomes(Vec<CaseOutcome>),
}

/// One product run: the path condition, the case each constraint comes from, and the leaf.
pub(crate) struct ProductRun {
    pub(crate) path: Vec<PathConstraint>,
    pub(crate) case_of: Vec<usize>,
    pub(crate) leaf: ProductLeaf,
}

/// Runs the cases of a product with the symbolic companion.
pub(crate) struct ProductExecutor<'p> {
    programs: Vec<(&'p Program, Interpreter<'p, Sym>)>,
    cases: Vec<ProductCase>,
    /// The path state while no case runs (it is in the interpreter of the running case).
    state: PathState,
    /// Run every case even when an earlier one fails (for a difference, where an error is an
    /// outcome like any other).
    every_case: bool,
}

impl<'p> ProductExecutor<'p> {
    /// An executor of `cases` over `programs`, with one path state (`trivial_constraints`:
    /// drop constant and repeated constraints).
    pub(crate) fn new(
        programs: &[&'p Program],
        cases: Vec<ProductCase>,
        trivial_constraints: bool,
    ) -> Result<ProductExecutor<'p>, ConcolicError> {
        let mut programs = programs
            .iter()
            .map(|p| {
                Interpreter::<Sym>::new(p, PathState::new(trivial_constraints))
                    .map(|i| (*p, i))
                    .map_err(|e| ConcolicError::Runtime(Box::new(e)))
            })
            .collect::<Result<Vec<_>, _>>()?;
        // The first interpreter's state is the product's; the notes of the others join it.
        let mut state = PathState::new(trivial_constraints);
        for (k, (_, interp)) in programs.iter_mut().enumerate() {
            let own = std::mem::take(&mut interp.session);
            if k == 0 {
                state = own;
            } else {
                state.incomplete.extend(own.incomplete);
            }
        }
        Ok(ProductExecutor {
            programs,
            cases,
            state,
            every_case: false,
        })
    }

    /// Runs every case of each product run even when an earlier case fails: the leaf is then
    /// [`ProductLeaf::Outcomes`], one outcome per case.
    pub(crate) fn run_every_case(mut self) -> Self {
        self.every_case = true;
        self
    }

    /// Runs every case in turn on `assignment`, until one fails.
    pub(crate) fn run(&mut self, assignment: &Assignment) -> ProductRun {
        self.state.reset();
        let mut outputs = Vec::with_capacity(self.cases.len());
        let mut outcomes = Vec::with_capacity(self.cases.len());
        let mut leaf = None;
        // Where each case's constraints start in the shared path condition.
        let mut starts = Vec::with_capacity(self.cases.len());
        for case in &self.cases {
            let Some((program, interp)) = self.programs.get_mut(case.program) else {
                leaf = Some(ProductLeaf::Error("no such program".into()));
                break;
            };
            std::mem::swap(&mut interp.session, &mut self.state);
            starts.push(interp.session.constraints.len());
            set_context_inputs(&mut interp.session, program, case, assignment);
            let (result, failed) = run_case(interp, program, case, assignment);
            let stop = interp.session.assertion_failed;
            // The next case records its own branches, whatever this one did.
            interp.session.assertion_failed = false;
            std::mem::swap(&mut interp.session, &mut self.state);
            if self.every_case {
                outcomes.push(match result {
                    Ok(o) => CaseOutcome::Outputs(o),
                    Err(f) => CaseOutcome::Failed(f),
                });
                continue;
            }
            match result {
                Ok(o) => outputs.push(o),
                Err(f) => leaf = Some(ProductLeaf::Error(f.message)),
            }
            if leaf.is_some() || failed || stop {
                break;
            }
        }
        if self.every_case && leaf.is_none() {
            leaf = Some(ProductLeaf::Outcomes(outcomes));
        }
        let case_of = (0..self.state.constraints.len())
            .map(|i| starts.iter().rposition(|s| *s <= i).unwrap_or(0))
            .collect();
        ProductRun {
            path: std::mem::take(&mut self.state.constraints),
            case_of,
            leaf: leaf.unwrap_or(ProductLeaf::Outputs(outputs)),
        }
    }
}

impl PathExecutor for ProductExecutor<'_> {
    type Run = ProductRun;

    fn execute(&mut self, assignment: &Assignment) -> ProductRun {
        self.run(assignment)
    }

    fn path(run: &ProductRun) -> &[PathConstraint] {
        &run.path
    }

    fn incomplete(&self) -> &BTreeSet<String> {
        &self.state.incomplete
    }
}

/// Tells the path state which context inputs of `case` are given under `assignment`: reading
/// one is a branch on its "given" variable (the declarations' spans are those of the case's
/// program, so the entries of the previous case are dropped).
fn set_context_inputs(
    state: &mut PathState,
    program: &Program,
    case: &ProductCase,
    assignment: &Assignment,
) {
    state.context_defaults.clear();
    let decl = program.scope(case.scope);
    for (input, shape) in decl.inputs.iter().zip(&case.shapes) {
        if let Some(Shape::Optional { given, .. }) = shape {
            let is_given = matches!(
                assignment.get(given.0 as usize),
                Some(Some(smt::catala::ModelValue::Bool(true)))
            );
            state.context_defaults.insert(
                input.span,
                (term::var(*given, smt::catala::Kind::Bool), is_given),
            );
        }
    }
}

/// A failed assertion as a case failure.
fn assertion_failure(a: &catala_eval::AssertionFailure) -> CaseFailure {
    CaseFailure {
        kind: "assertion".into(),
        message: a.message.clone(),
        spans: vec![a.span],
    }
}

/// Runs one case: its outputs, or its error or failed assertion (and whether it failed).
fn run_case(
    interp: &mut Interpreter<'_, Sym>,
    program: &Program,
    case: &ProductCase,
    assignment: &Assignment,
) -> (Result<Vec<CaseOutput>, CaseFailure>, bool) {
    let decl = program.scope(case.scope);
    let args: Vec<Option<(Value, Sym)>> = case
        .shapes
        .iter()
        .map(|s| s.as_ref().and_then(|s| s.build_arg(assignment)))
        .collect();
    match interp.run(case.scope, args) {
        Ok((_, failures)) if !failures.is_empty() => (Err(assertion_failure(&failures[0])), true),
        Ok(((Value::Struct(s), sym), _)) => {
            let parts: Vec<Sym> = match &sym {
                Sym::Struct(p) => p.to_vec(),
                _ => vec![Sym::Concrete; s.fields.len()],
            };
            let outputs = decl
                .outputs
                .iter()
                .zip(s.fields.iter())
                .zip(parts)
                .map(|((o, v), sym)| CaseOutput {
                    name: o.name.clone(),
                    value: v.clone(),
                    sym,
                })
                .collect();
            (Ok(outputs), false)
        }
        Ok(_) => (Ok(Vec::new()), false),
        Err(e) => {
            let failure = match interp.take_failures().into_iter().next() {
                Some(a) => assertion_failure(&a),
                None => CaseFailure {
                    kind: e.kind.as_str().into(),
                    message: e.message.clone(),
                    spans: e.labels.iter().map(|l| l.span).collect(),
                },
            };
            (Err(failure), true)
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use smt::catala::{ModelValue, VarId};

    /// A scope `Pay` taxing 100 above `threshold` of income (the relational tests use it too).
    pub(crate) fn version(threshold: u32) -> Option<Program> {
        let text = format!(
            "```catala\ndeclaration scope Pay:\n  input income content integer\n  output tax content integer\n\nscope Pay:\n  definition tax equals\n    if income > {threshold} then 100 else 0\n```\n"
        );
        let (sources, ast) =
            catala_syntax::parse_str("pay.catala_en", &text, catala_syntax::ast::Language::En)
                .ok()?;
        catala_ir::compile(&sources, &ast).ok()
    }

    fn case(program: usize, scope: ScopeId) -> ProductCase {
        ProductCase {
            program,
            scope,
            shapes: vec![Some(Shape::Integer(VarId(0)))],
        }
    }

    fn taxes(run: &ProductRun) -> Vec<String> {
        match &run.leaf {
            ProductLeaf::Outputs(cases) => cases
                .iter()
                .flat_map(|c| c.iter().map(|o| format!("{}={:?}", o.name, o.value)))
                .collect(),
            ProductLeaf::Error(e) => vec![e.clone()],
            ProductLeaf::Outcomes(_) => vec!["outcomes".into()],
        }
    }

    #[test]
    fn a_product_of_two_versions_runs_both_on_one_path() {
        let (Some(old), Some(new)) = (version(1000), version(2000)) else {
            panic!("the two versions do not compile")
        };
        let Some(scope) = old.scope_by_name("Pay") else {
            panic!("no scope Pay")
        };
        let mut product =
            match ProductExecutor::new(&[&old, &new], vec![case(0, scope), case(1, scope)], true) {
                Ok(p) => p,
                Err(e) => panic!("{e}"),
            };
        // An income of 1,500: above the old threshold, below the new one.
        let run = product.execute(&vec![Some(ModelValue::Int("1500".into()))]);
        assert_eq!(run.case_of, [0, 1]);
        let path: Vec<String> = run.path.iter().map(|c| c.term.to_string()).collect();
        assert_eq!(path.len(), 2, "{path:?}");
        assert!(
            path[0].contains("1000") && path[1].contains("2000"),
            "{path:?}"
        );
        // The old version taxes it, the new one does not.
        let t = taxes(&run);
        assert_eq!(t.len(), 2, "{t:?}");
        assert_ne!(t[0], t[1]);
        // The same version twice on the same income: the second run's condition repeats the
        // first's and is left out of the one path state.
        let mut twice =
            match ProductExecutor::new(&[&old], vec![case(0, scope), case(0, scope)], true) {
                Ok(p) => p,
                Err(e) => panic!("{e}"),
            };
        let run = twice.execute(&vec![Some(ModelValue::Int("1500".into()))]);
        assert_eq!(run.path.len(), 1);
        assert_eq!(run.case_of, [0]);
        let t = taxes(&run);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0], t[1]);
    }
}
