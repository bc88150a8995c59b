//! The assertions of a scope that restrict its inputs: those reading only the scope's `input`
//! variables through operators that cannot fail (comparisons, connectives, sums, products,
//! rounding, field and case tests; no division, no date arithmetic, no duration comparison,
//! no call). Catala evaluates every assertion after all the scope's variables, so a run on
//! inputs outside such an assertion computes the whole scope before it fails. An explorer
//! that only cares about the inputs the assertions admit (the input space a test scope states,
//! as the CUTECat paper uses assertions) can ask the interpreter to check these first
//! ([`Interpreter::check_input_assertions_first`]): they are evaluated once more before the
//! scope's body, reporting [`BranchEvent::InputAssertion`] to the companion and nothing else
//! (no failure is recorded there, the run goes on unchanged and the assertion is checked again
//! at its place). Being error-free and reading only the inputs, the early check has the value
//! the assertion has at its place on every run.
//!
//! [`Interpreter::check_input_assertions_first`]: super::Interpreter::check_input_assertions_first
//! [`BranchEvent::InputAssertion`]: super::BranchEvent::InputAssertion

use catala_ir::dcalc::{
    BinaryOp, CmpType, Expr, ExprKind, InputKind, Literal, Program, Scope, Slot, Stmt, Ty, UnaryOp,
};
use catala_syntax::Span;

/// The statements of a scope's body an early check of its input assertions needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InputAssertions {
    /// The body's definitions of `input` variables (the caller's value, unchanged), by index
    /// in [`Scope::body`].
    pub defines: Vec<usize>,
    /// The body's assertions reading only those variables, by index in [`Scope::body`].
    pub assertions: Vec<usize>,
}

impl InputAssertions {
    /// Finds the input definitions and input assertions of `scope` (a scope of `program`).
    pub fn of(program: &Program, scope: &Scope) -> InputAssertions {
        let mut defines = Vec::new();
        let mut inputs = Inputs {
            program,
            slots: Vec::new(),
        };
        for (i, stmt) in scope.body.iter().enumerate() {
            if let Stmt::Define { slot, expr, .. } = stmt {
                if let Some(ty) = input_read(scope, expr) {
                    defines.push(i);
                    inputs.slots.push((*slot, ty));
                }
            }
        }
        let assertions = scope
            .body
            .iter()
            .enumerate()
            .filter(|(_, s)| matches!(s, Stmt::Assert { expr, .. } if inputs.reads_only(expr)))
            .map(|(i, _)| i)
            .collect();
        InputAssertions {
            defines,
            assertions,
        }
    }

    /// The spans of the input assertions of `scope`, in body order.
    pub fn spans(&self, scope: &Scope) -> Vec<Span> {
        self.assertions
            .iter()
            .filter_map(|&i| match scope.body.get(i) {
                Some(Stmt::Assert { span, .. }) => Some(*span),
                _ => None,
            })
            .collect()
    }
}

/// The type of the `input` variable whose caller's value `expr` gives as it is.
fn input_read<'s>(scope: &'s Scope, expr: &Expr) -> Option<&'s Ty> {
    let ExprKind::ErrorOnEmpty { expr: inner, .. } = &expr.kind else {
        return None;
    };
    let ExprKind::ScopeArg(i) = inner.kind else {
        return None;
    };
    scope
        .inputs
        .get(i as usize)
        .filter(|input| input.kind == InputKind::Input)
        .map(|input| &input.ty)
}

/// The input variables' slots of a scope, with their types.
struct Inputs<'a> {
    program: &'a Program,
    slots: Vec<(Slot, &'a Ty)>,
}

impl Inputs<'_> {
    fn slot_type(&self, s: Slot) -> Option<&Ty> {
        self.slots.iter().find(|(t, _)| *t == s).map(|(_, ty)| *ty)
    }

    /// `e` reads no slot but the inputs' and cannot raise an error.
    fn reads_only(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Literal(_) => true,
            ExprKind::Local(s) => self.slot_type(*s).is_some(),
            ExprKind::EnumInject { payload: None, .. } => true,
            ExprKind::Unary { op, arg } => total_unary(*op) && self.reads_only(arg),
            ExprKind::Binary {
                op: BinaryOp::Eq | BinaryOp::Neq,
                lhs,
                rhs,
                ..
            } => self.comparable(lhs) && self.comparable(rhs),
            ExprKind::Binary { op, lhs, rhs, .. } => {
                total_binary(*op) && self.reads_only(lhs) && self.reads_only(rhs)
            }
            ExprKind::StructField { expr, .. }
            | ExprKind::IsCase { expr, .. }
            | ExprKind::TupleGet { expr, .. } => self.reads_only(expr),
            ExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.reads_only(cond)
                    && self.reads_only(then_branch)
                    && self.reads_only(else_branch)
            }
            _ => false,
        }
    }

    /// `e` is an operand of `=` that never makes it fail: a literal other than a duration, a
    /// case without content, or an input whose type holds no duration (equal durations
    /// mixing months and days are an error).
    fn comparable(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Literal(l) => !matches!(l, Literal::Duration { .. }),
            ExprKind::EnumInject { payload: None, .. } => true,
            ExprKind::Local(s) => self.slot_type(*s).is_some_and(|ty| self.flat(ty, true)),
            _ => false,
        }
    }

    /// `ty` is a scalar other than a duration, or (when `enums`) an enumeration whose cases
    /// carry such scalars or nothing.
    fn flat(&self, ty: &Ty, enums: bool) -> bool {
        match ty {
            Ty::Bool | Ty::Integer | Ty::Decimal | Ty::Money | Ty::Date => true,
            Ty::Enum(id) if enums => self.program.enums.get(id.0 as usize).is_some_and(|d| {
                d.cases
                    .iter()
                    .all(|c| c.payload.as_ref().is_none_or(|p| self.flat(p, false)))
            }),
            _ => false,
        }
    }
}

/// Unary operators defined on every value of their operand type (the length of a list is left
/// out: it is a branch of its own for an explorer).
fn total_unary(op: UnaryOp) -> bool {
    !matches!(op, UnaryOp::Length)
}

/// Binary operators that never raise an error: no division, no date arithmetic (an ambiguous
/// date), no comparison of durations (months against days), no list concatenation.
fn total_binary(op: BinaryOp) -> bool {
    use BinaryOp as B;
    match op {
        B::And | B::Or | B::Xor => true,
        B::AddIntInt | B::AddDecDec | B::AddMonMon | B::AddDurDur => true,
        B::SubIntInt | B::SubDecDec | B::SubMonMon | B::SubDurDur | B::SubDatDat => true,
        B::MultIntInt | B::MultDecDec | B::MultMonInt | B::MultMonDec | B::MultDurInt => true,
        B::Lt(c) | B::Le(c) | B::Gt(c) | B::Ge(c) => matches!(
            c,
            CmpType::Integer | CmpType::Decimal | CmpType::Money | CmpType::Date
        ),
        _ => false,
    }
}
