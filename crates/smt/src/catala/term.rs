//! The term language of Catala's scalar values. Terms are immutable, shared (`Rc`) and
//! hash-consed ([`super::intern`]): the constructors below return the thread's one node for a
//! term, so that two terms are equal exactly when they are the same node, and hashing or
//! comparing a node looks at its children's addresses only. Sorts: [`Kind::Bool`]; [`Kind::Int`] for integers, money (in cents), dates (day
//! numbers) and durations (in days); [`Kind::Real`] for decimals. Constants are kept as decimal
//! strings so that unbounded numbers cross into Z3 exactly. Calendar operators (the parts of a
//! day number, the length of a month, the day number of a date) keep date terms small; their
//! meaning is [`super::calendar`]'s.

use super::intern::intern;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// The sort of a term.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Bool,
    Int,
    Real,
}

/// A free variable (an input of the scope under test).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VarId(pub u32);

/// Operators on terms. Arithmetic operators work on two operands of the same sort.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Not,
    And,
    Or,
    Xor,
    Add,
    Sub,
    Mul,
    /// Real division (both operands real).
    Div,
    Neg,
    /// Integer to real.
    ToReal,
    /// Real to integer, half away from zero: `q ≥ 0 ? ⌊q + ½⌋ : −⌊−q + ½⌋` (Section 3).
    Round,
    /// Real to integer, toward zero.
    Truncate,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    /// `if a then b else c`.
    Ite,
    /// Integer division rounding toward −∞ (the divisor is a positive constant).
    IntDiv,
    /// The remainder of [`Op::IntDiv`], from 0 to the divisor − 1.
    Mod,
    /// The year of a day number (days since 1970-01-01, proleptic Gregorian calendar).
    YearOf,
    /// The month (1–12) of a day number.
    MonthOf,
    /// The day of the month (1–31) of a day number.
    DayOf,
    /// `DaysInMonth(y, m)`: the number of days of month `m` (1–12) of year `y`.
    DaysInMonth,
    /// `DayNumber(y, m, d)`: the day number of the `d`-th day of month `m` (1–12) of year `y`,
    /// counting on past the month's end when `d` exceeds it. See [`super::calendar`].
    DayNumber,
}

/// A term node. Build terms with the constructors of this module only (they intern the node):
/// equality and hashing are shallow, the children compared and hashed by address, which is
/// structural equality for interned terms.
#[derive(Clone, Debug)]
pub enum TermNode {
    Var(VarId, Kind),
    Bool(bool),
    /// An integer constant in decimal notation (optional leading `-`).
    Int(String),
    /// A rational constant: numerator and (positive) denominator in decimal notation.
    Real(String, String),
    App(Op, Vec<Term>),
}

/// A shared term.
pub type Term = Rc<TermNode>;

impl PartialEq for TermNode {
    fn eq(&self, other: &TermNode) -> bool {
        match (self, other) {
            (TermNode::Var(a, k), TermNode::Var(b, l)) => a == b && k == l,
            (TermNode::Bool(a), TermNode::Bool(b)) => a == b,
            (TermNode::Int(a), TermNode::Int(b)) => a == b,
            (TermNode::Real(n, d), TermNode::Real(m, e)) => n == m && d == e,
            (TermNode::App(o, xs), TermNode::App(p, ys)) => {
                o == p && xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| Rc::ptr_eq(x, y))
            }
            _ => false,
        }
    }
}

impl Eq for TermNode {}

impl Hash for TermNode {
    fn hash<H: Hasher>(&self, h: &mut H) {
        match self {
            TermNode::Var(v, k) => {
                h.write_u8(0);
                v.hash(h);
                k.hash(h);
            }
            TermNode::Bool(b) => {
                h.write_u8(1);
                b.hash(h);
            }
            TermNode::Int(i) => {
                h.write_u8(2);
                i.hash(h);
            }
            TermNode::Real(n, d) => {
                h.write_u8(3);
                n.hash(h);
                d.hash(h);
            }
            TermNode::App(op, args) => {
                h.write_u8(4);
                op.hash(h);
                h.write_usize(args.len());
                for a in args {
                    h.write_usize(Rc::as_ptr(a) as usize);
                }
            }
        }
    }
}

impl TermNode {
    /// The sort of the term.
    pub fn kind(&self) -> Kind {
        match self {
            TermNode::Var(_, k) => *k,
            TermNode::Bool(_) => Kind::Bool,
            TermNode::Int(_) => Kind::Int,
            TermNode::Real(..) => Kind::Real,
            TermNode::App(op, args) => match op {
                Op::Not
                | Op::And
                | Op::Or
                | Op::Xor
                | Op::Lt
                | Op::Le
                | Op::Gt
                | Op::Ge
                | Op::Eq => Kind::Bool,
                Op::ToReal | Op::Div => Kind::Real,
                Op::Round
                | Op::Truncate
                | Op::IntDiv
                | Op::Mod
                | Op::YearOf
                | Op::MonthOf
                | Op::DayOf
                | Op::DaysInMonth
                | Op::DayNumber => Kind::Int,
                Op::Ite => args.get(1).map_or(Kind::Bool, |a| a.kind()),
                Op::Add | Op::Sub | Op::Mul | Op::Neg => {
                    args.first().map_or(Kind::Int, |a| a.kind())
                }
            },
        }
    }

    /// True when the term mentions no variable.
    pub fn is_ground(&self) -> bool {
        match self {
            TermNode::Var(..) => false,
            TermNode::App(_, args) => args.iter().all(|a| a.is_ground()),
            _ => true,
        }
    }

    /// Adds the variables of the term to `out` (sorted, without duplicates).
    pub fn collect_vars(&self, out: &mut Vec<VarId>) {
        match self {
            TermNode::Var(v, _) => {
                if let Err(i) = out.binary_search(v) {
                    out.insert(i, *v);
                }
            }
            TermNode::App(_, args) => args.iter().for_each(|a| a.collect_vars(out)),
            _ => {}
        }
    }
}

/// Constructors.
pub fn var(id: VarId, kind: Kind) -> Term {
    intern(TermNode::Var(id, kind))
}

pub fn bool_const(b: bool) -> Term {
    intern(TermNode::Bool(b))
}

pub fn int_const(text: impl Into<String>) -> Term {
    intern(TermNode::Int(text.into()))
}

pub fn real_const(num: impl Into<String>, den: impl Into<String>) -> Term {
    intern(TermNode::Real(num.into(), den.into()))
}

pub fn app(op: Op, args: Vec<Term>) -> Term {
    intern(TermNode::App(op, args))
}

/// `¬t`, folding double negations and constants.
pub fn not(t: &Term) -> Term {
    match &**t {
        TermNode::Bool(b) => bool_const(!b),
        TermNode::App(Op::Not, args) if args.len() == 1 => args[0].clone(),
        _ => app(Op::Not, vec![t.clone()]),
    }
}

impl fmt::Display for TermNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TermNode::Var(v, _) => write!(f, "v{}", v.0),
            TermNode::Bool(b) => write!(f, "{b}"),
            TermNode::Int(i) => write!(f, "{i}"),
            TermNode::Real(n, d) => write!(f, "{n}/{d}"),
            TermNode::App(op, args) => {
                let name = match op {
                    Op::Not => "not",
                    Op::And => "and",
                    Op::Or => "or",
                    Op::Xor => "xor",
                    Op::Add => "+",
                    Op::Sub => "-",
                    Op::Mul => "*",
                    Op::Div => "/",
                    Op::Neg => "-",
                    Op::ToReal => "to_real",
                    Op::Round => "round",
                    Op::Truncate => "truncate",
                    Op::Lt => "<",
                    Op::Le => "<=",
                    Op::Gt => ">",
                    Op::Ge => ">=",
                    Op::Eq => "=",
                    Op::Ite => "ite",
                    Op::IntDiv => "div",
                    Op::Mod => "mod",
                    Op::YearOf => "year_of",
                    Op::MonthOf => "month_of",
                    Op::DayOf => "day_of",
                    Op::DaysInMonth => "days_in_month",
                    Op::DayNumber => "day_number",
                };
                write!(f, "({name}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                write!(f, ")")
            }
        }
    }
}
