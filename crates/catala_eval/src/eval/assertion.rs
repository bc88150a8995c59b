//! The message of a failed assertion, as Catala builds it: the asserted expression is evaluated
//! below its boolean structure only (comparisons and connectives stay, operands become values;
//! in a conjunction the true conjuncts are skipped), then negated by pushing the negation down
//! (`not (a and b)` becomes `not a or not b`), and printed with negated comparison symbols:
//! `assertion w < 6` with `w = 6` fails as `6 ≮ 6`.

use super::companion::{BranchEvent, Companion};
use super::error::AssertionFailure;
use super::interpreter::{EvalResult, Frame, Interpreter};
use crate::runtime::{Value, ValuePrinter};
use catala_ir::dcalc::{BinaryOp, Expr, ExprKind, UnaryOp};
use catala_syntax::ast::LawHeading;
use catala_syntax::Span;
use std::sync::Arc;

/// A partially evaluated boolean expression.
enum Shown {
    Value(Value),
    Binary(BinaryOp, Box<Shown>, Box<Shown>),
    Not(Box<Shown>),
}

fn keeps_structure(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::Eq
            | BinaryOp::Lt(_)
            | BinaryOp::Le(_)
            | BinaryOp::Gt(_)
            | BinaryOp::Ge(_)
    )
}

fn negate(s: Shown) -> Shown {
    match s {
        Shown::Value(Value::Bool(b)) => Shown::Value(Value::Bool(!b)),
        Shown::Binary(BinaryOp::And, a, b) => {
            Shown::Binary(BinaryOp::Or, Box::new(negate(*a)), Box::new(negate(*b)))
        }
        Shown::Binary(BinaryOp::Or, a, b) => {
            Shown::Binary(BinaryOp::And, Box::new(negate(*a)), Box::new(negate(*b)))
        }
        other => Shown::Not(Box::new(other)),
    }
}

fn symbol(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::And => "&&",
        BinaryOp::Or => "||",
        BinaryOp::Xor => "xor",
        BinaryOp::Eq => "=",
        BinaryOp::Lt(_) => "<",
        BinaryOp::Le(_) => "≤",
        BinaryOp::Gt(_) => ">",
        BinaryOp::Ge(_) => "≥",
        _ => "?",
    }
}

fn negated_symbol(op: BinaryOp) -> Option<&'static str> {
    match op {
        BinaryOp::Xor => Some("="),
        BinaryOp::Eq => Some("≠"),
        BinaryOp::Lt(_) => Some("≮"),
        BinaryOp::Le(_) => Some("≰"),
        BinaryOp::Gt(_) => Some("≯"),
        BinaryOp::Ge(_) => Some("≱"),
        _ => None,
    }
}

/// The precedence class of a shown node, as Catala's printer ranks expressions to decide on
/// parentheses: values are self-delimited, a negation is an application, the connectives and
/// comparisons are operators.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Contained,
    App,
    And,
    Or,
    Xor,
    Comp,
}

fn class(s: &Shown) -> Class {
    match s {
        Shown::Value(_) => Class::Contained,
        Shown::Not(_) => Class::App,
        Shown::Binary(BinaryOp::And, ..) => Class::And,
        Shown::Binary(BinaryOp::Or, ..) => Class::Or,
        Shown::Binary(BinaryOp::Xor, ..) => Class::Xor,
        Shown::Binary(..) => Class::Comp,
    }
}

/// Whether `child`, printed as the left (`rhs` false) or right operand of a node of class
/// `context`, is put in parentheses. Catala's rules: a value never; under a negation, an
/// operator always and a negation on the left only; under a connective, a negation on the
/// left only, `xor` always, the other of `&&`/`||` always, anything else never; under a
/// comparison, a negation never and any operator always.
fn needs_parens(context: Class, child: &Shown, rhs: bool) -> bool {
    use Class::*;
    match (context, class(child)) {
        (_, Contained) => false,
        (App, App) => !rhs,
        (App, _) => true,
        (Comp, App) => false,
        (_, App) => !rhs,
        (_, Xor) => true,
        (And, And) | (Or, Or) => false,
        (And, Or) | (Or, And) => true,
        (And | Or | Xor, _) => false,
        (Comp, _) => true,
        (Contained, _) => false,
    }
}

fn render(s: &Shown, printer: &ValuePrinter<'_>) -> String {
    let operand = |context: &Shown, child: &Shown, rhs: bool| {
        if needs_parens(class(context), child, rhs) {
            format!("({})", render(child, printer))
        } else {
            render(child, printer)
        }
    };
    match s {
        Shown::Value(v) => printer.flat(v),
        Shown::Binary(op, a, b) => format!(
            "{} {} {}",
            operand(s, a, false),
            symbol(*op),
            operand(s, b, true)
        ),
        Shown::Not(inner) => match &**inner {
            Shown::Not(x) => render(x, printer),
            Shown::Binary(op, a, b) if negated_symbol(*op).is_some() => format!(
                "{} {} {}",
                operand(s, a, false),
                negated_symbol(*op).unwrap_or("?"),
                operand(s, b, false)
            ),
            other => format!("not {}", operand(s, other, true)),
        },
    }
}

impl<C: Companion> Interpreter<'_, C> {
    fn partially_evaluate(&mut self, e: &Expr, fr: &Frame<C>, neg: bool) -> EvalResult<Shown> {
        match &e.kind {
            ExprKind::Binary { op, lhs, rhs, .. } => match op {
                BinaryOp::And if !neg => {
                    let (l, _) = self.eval(lhs, fr)?;
                    if matches!(l, Value::Bool(true)) {
                        self.partially_evaluate(rhs, fr, neg)
                    } else {
                        self.partially_evaluate(lhs, fr, neg)
                    }
                }
                BinaryOp::Or if neg => {
                    let (l, _) = self.eval(lhs, fr)?;
                    if matches!(l, Value::Bool(false)) {
                        self.partially_evaluate(rhs, fr, neg)
                    } else {
                        self.partially_evaluate(lhs, fr, neg)
                    }
                }
                BinaryOp::Neq => {
                    // Catala writes `a != b` as `not (a = b)`.
                    let a = self.partially_evaluate(lhs, fr, !neg)?;
                    let b = self.partially_evaluate(rhs, fr, !neg)?;
                    Ok(Shown::Not(Box::new(Shown::Binary(
                        BinaryOp::Eq,
                        Box::new(a),
                        Box::new(b),
                    ))))
                }
                op if keeps_structure(*op) => {
                    let a = self.partially_evaluate(lhs, fr, neg)?;
                    let b = self.partially_evaluate(rhs, fr, neg)?;
                    Ok(Shown::Binary(*op, Box::new(a), Box::new(b)))
                }
                _ => Ok(Shown::Value(self.eval(e, fr)?.0)),
            },
            ExprKind::Unary {
                op: UnaryOp::Not,
                arg,
            } => Ok(Shown::Not(Box::new(
                self.partially_evaluate(arg, fr, !neg)?,
            ))),
            _ => Ok(Shown::Value(self.eval(e, fr)?.0)),
        }
    }

    /// Checks the assertion `expr` at `span` (a scope assertion or an inline `assertion … in`):
    /// reports the decision to the companion and records a failure, the run going on.
    pub(crate) fn check_assertion(
        &mut self,
        expr: &Expr,
        span: Span,
        note: Option<&str>,
        headings: Option<&Arc<[LawHeading]>>,
        fr: &Frame<C>,
    ) -> EvalResult<()> {
        let (holds, c) = self.eval_bool(expr, fr)?;
        C::branch(
            &mut self.session,
            BranchEvent::Assertion {
                span,
                condition: &c,
                holds,
            },
        );
        if !holds {
            let message = self.assertion_message(expr, fr, note)?;
            self.failures.push(AssertionFailure {
                message,
                span,
                headings: headings.cloned().unwrap_or_else(|| Arc::from(Vec::new())),
            });
        }
        Ok(())
    }

    /// Catala's message for the failed assertion `expr` (evaluated in `fr`).
    pub(crate) fn assertion_message(
        &mut self,
        expr: &Expr,
        fr: &Frame<C>,
        note: Option<&str>,
    ) -> EvalResult<String> {
        let shown = negate(self.partially_evaluate(expr, fr, false)?);
        let head = match note {
            Some(n) => format!("Assertion failed: {n}"),
            None => "Assertion failed".to_string(),
        };
        if matches!(shown, Shown::Value(Value::Bool(false))) {
            return Ok(format!("{head}."));
        }
        let program = self.program;
        let language = self.current_language();
        let printer = ValuePrinter {
            language,
            names: program,
        };
        Ok(format!("{head}: {}", render(&shown, &printer)))
    }
}
