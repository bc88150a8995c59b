//! The relation language: named metamorphic relations between 2 or 4 quantified cases.
//!
//! A relations file holds any number of relations:
//!
//! ```text
//! # comment
//! relation eitc_mfs "Married filing separately cannot claim the EITC"
//!   forall x. x.sts = MFS =>
//!   forall y. x ==[L27] y and x.L27 > 0 and y.L27 = 0 =>
//!   F(x) = F(y)
//! ```
//!
//! The variables of the first `forall` are the *base* cases, those of the second the
//! *follow-up* cases. With a single `forall x, y.` the first half of the variables are the
//! bases. The body splits at its top-level `=>` into premise and conclusion. Expressions
//! cover fields (`x.AGI`), constants (numbers with `k`/`%` suffixes, `true`/`false`, enum
//! constructors), `+ - * /`, `ceil`/`floor`/`abs`/`min`/`max`, chained comparisons, the
//! equivalence `x ==[f, g] y` (equal on every field except f and g), `and`/`or`/`not`/`=>`,
//! the main output `F(x)` and named outputs `out.refund(x)`. This module holds the syntax
//! tree; [`lexer`] and [`parser`] read text, [`eval`] evaluates against records.

pub mod eval;
pub mod lexer;
pub mod parser;

use diagnostics::{SourceMap, Span};
use std::fmt;
use std::sync::Arc;

pub(crate) use parser::parse_expression_at;
pub use parser::{parse_expression, parse_relations, parse_relations_file, ParseError};

/// The empty span at the end of `span` (where its last character ends).
pub fn end_of(span: Span) -> Span {
    Span {
        start: span.end,
        ..span
    }
}

/// Binary arithmetic operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The operator that holds exactly when this one does not.
    pub fn negated(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }

    /// The operator with its operands swapped (`a < b` is `b > a`).
    pub(crate) fn flipped(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// Built-in numeric functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    Ceil,
    Floor,
    Abs,
    Min,
    Max,
}

/// An expression of the relation language.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Bool(bool),
    Number(f64),
    /// A bare name: an enumeration constructor in relations, or a field name in domain
    /// constraints and output definitions (resolved by the evaluator's environment).
    Name(String, Span),
    /// `var.field`; the span is the field name's.
    Field {
        var: String,
        field: String,
        span: Span,
    },
    /// `F(var)` (output = None) or `out.name(var)` (output = Some(name)); the span is `F`'s
    /// or the output name's.
    Output {
        output: Option<String>,
        var: String,
        span: Span,
    },
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Arith(ArithOp, Box<Expr>, Box<Expr>),
    Call(Builtin, Vec<Expr>),
    /// `a op1 b op2 c ...`: holds when every adjacent pair does.
    Compare {
        operands: Vec<Expr>,
        ops: Vec<CmpOp>,
    },
    /// `left ==[except...] right`; the span is `left`'s, `except_spans` those of the
    /// excepted field names.
    Equiv {
        left: String,
        right: String,
        except: Vec<String>,
        except_spans: Vec<Span>,
        span: Span,
    },
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Implies(Box<Expr>, Box<Expr>),
}

impl Expr {
    /// Calls `visit` on this expression and every sub-expression.
    pub fn walk(&self, visit: &mut dyn FnMut(&Expr)) {
        visit(self);
        match self {
            Expr::Neg(e) | Expr::Not(e) => e.walk(visit),
            Expr::Arith(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) | Expr::Implies(a, b) => {
                a.walk(visit);
                b.walk(visit);
            }
            Expr::Call(_, args) => args.iter().for_each(|a| a.walk(visit)),
            Expr::Compare { operands, .. } => operands.iter().for_each(|a| a.walk(visit)),
            _ => {}
        }
    }

    /// The quantified variables this expression mentions.
    pub fn variables(&self) -> Vec<String> {
        let mut vars: Vec<String> = Vec::new();
        self.walk(&mut |e| {
            let mut add = |v: &String| {
                if !vars.contains(v) {
                    vars.push(v.clone());
                }
            };
            match e {
                Expr::Field { var, .. } | Expr::Output { var, .. } => add(var),
                Expr::Equiv { left, right, .. } => {
                    add(left);
                    add(right);
                }
                _ => {}
            }
        });
        vars
    }

    /// Whether the expression reads any output of the system.
    pub(crate) fn mentions_outputs(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| found |= matches!(e, Expr::Output { .. }));
        found
    }
}

fn fmt_number(f: &mut fmt::Formatter<'_>, n: f64) -> fmt::Result {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        write!(f, "{n:.0}")
    } else {
        write!(f, "{n}")
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Bool(b) => write!(f, "{b}"),
            Expr::Number(n) => fmt_number(f, *n),
            Expr::Name(n, _) => write!(f, "{n}"),
            Expr::Field { var, field, .. } => write!(f, "{var}.{field}"),
            Expr::Output {
                output: None, var, ..
            } => write!(f, "F({var})"),
            Expr::Output {
                output: Some(o),
                var,
                ..
            } => write!(f, "out.{o}({var})"),
            Expr::Neg(e) => write!(f, "-({e})"),
            Expr::Not(e) => write!(f, "not ({e})"),
            Expr::Arith(op, a, b) => {
                let sym = match op {
                    ArithOp::Add => "+",
                    ArithOp::Sub => "-",
                    ArithOp::Mul => "*",
                    ArithOp::Div => "/",
                };
                write!(f, "({a} {sym} {b})")
            }
            Expr::Call(b, args) => {
                let name = match b {
                    Builtin::Ceil => "ceil",
                    Builtin::Floor => "floor",
                    Builtin::Abs => "abs",
                    Builtin::Min => "min",
                    Builtin::Max => "max",
                };
                write!(f, "{name}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")
            }
            Expr::Compare { operands, ops } => {
                for (i, o) in operands.iter().enumerate() {
                    if i > 0 {
                        write!(f, " {} ", ops[i - 1].symbol())?;
                    }
                    write!(f, "{o}")?;
                }
                Ok(())
            }
            Expr::Equiv {
                left,
                right,
                except,
                ..
            } => write!(f, "{left} ==[{}] {right}", except.join(", ")),
            Expr::And(a, b) => write!(f, "({a} and {b})"),
            Expr::Or(a, b) => write!(f, "({a} or {b})"),
            Expr::Implies(a, b) => write!(f, "({a} => {b})"),
        }
    }
}

/// One named metamorphic relation.
#[derive(Debug, Clone)]
pub struct Relation {
    pub name: String,
    pub description: Option<String>,
    /// Tolerance δ: a violated conclusion counts as a failure only when it deviates by more.
    pub tolerance: Option<f64>,
    /// Variables of the first quantifier (the base cases).
    pub base_vars: Vec<String>,
    /// Variables of the second quantifier (the follow-up cases).
    pub follow_vars: Vec<String>,
    /// The condition on the base cases (`true` when the relation has one quantifier).
    pub base_premise: Expr,
    /// The condition relating follow-ups to bases.
    pub follow_premise: Expr,
    /// The output relation that must hold.
    pub conclusion: Expr,
    /// The `relation` keyword that opens it.
    pub span: Span,
    /// The relations file it was read from (shared by all its relations), to show errors
    /// at its spans.
    pub sources: Arc<SourceMap>,
}

impl Relation {
    /// All variables, bases first.
    pub fn all_vars(&self) -> Vec<String> {
        self.base_vars
            .iter()
            .chain(self.follow_vars.iter())
            .cloned()
            .collect()
    }

    /// An error at a span of this relation's file, with the file to show it.
    pub(crate) fn locate<E>(&self, error: E) -> crate::Located<E> {
        crate::Located::new(error, self.sources.clone())
    }

    /// The whole premise: base premise and follow-up premise.
    pub fn premise(&self) -> Expr {
        Expr::And(
            Box::new(self.base_premise.clone()),
            Box::new(self.follow_premise.clone()),
        )
    }
}
