//! What a condition is written over: the names and units of the solver variables standing for
//! a scope's inputs, and the domain each one ranges over in the exploration (the date range,
//! list lengths, enumeration cases), which a condition leaves unsaid.

use crate::linear::Linear;
use crate::numset::{Cmp, NumSet};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, Zero};
use smt::catala::{Op, Term, TermNode, VarId};
use std::collections::BTreeMap;

/// How the values of an input variable read.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    Bool,
    Integer,
    Decimal,
    /// Money in cents.
    Money,
    /// A date as a day number (days since 1970-01-01).
    Date,
    /// A number of days (a duration's day part), or of months or years when the name says so.
    Count,
    /// An enumeration's case number, with the case names.
    Choice(Vec<String>),
}

impl Unit {
    /// True when the variable takes integer values only.
    pub fn integral(&self) -> bool {
        !matches!(self, Unit::Decimal)
    }
}

/// The name under which a variable is shown, e.g. `household.income`, and its unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarInfo {
    pub name: String,
    pub unit: Unit,
}

/// The input variables of an exploration.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    pub(crate) vars: BTreeMap<VarId, VarInfo>,
    pub(crate) domains: BTreeMap<VarId, NumSet>,
}

impl Inputs {
    /// The variables with their names and units, and the domain constraints of the exploration
    /// (bounds on single variables are kept as domains; other constraints are ignored).
    pub fn new(vars: impl IntoIterator<Item = (VarId, VarInfo)>, domains: &[Term]) -> Inputs {
        let mut inputs = Inputs {
            vars: vars.into_iter().collect(),
            domains: BTreeMap::new(),
        };
        for d in domains {
            inputs.add_domain(d);
        }
        inputs
    }

    fn add_domain(&mut self, t: &Term) {
        if let TermNode::App(Op::And, parts) = &**t {
            for p in parts {
                self.add_domain(p);
            }
            return;
        }
        if let Some((v, set)) = self.bound_of(t, true) {
            let dom = self.domain(v).intersect(&set);
            self.domains.insert(v, dom);
        }
    }

    /// The variable's name and unit (a made-up name for a variable the caller did not name).
    pub fn info(&self, v: VarId) -> VarInfo {
        self.vars.get(&v).cloned().unwrap_or_else(|| VarInfo {
            name: format!("v{}", v.0),
            unit: Unit::Integer,
        })
    }

    /// The numbers a numeric variable ranges over.
    pub(crate) fn domain(&self, v: VarId) -> NumSet {
        if let Some(d) = self.domains.get(&v) {
            return d.clone();
        }
        let unit = self.info(v).unit;
        match unit {
            Unit::Choice(names) => {
                NumSet::compare(true, Cmp::Ge, BigRational::zero()).intersect(&NumSet::compare(
                    true,
                    Cmp::Lt,
                    BigRational::from_integer(BigInt::from(names.len())),
                ))
            }
            u => NumSet::full(u.integral()),
        }
    }

    /// `t` (or its negation) as a bound on one variable: `(x, {x | t})`.
    pub(crate) fn bound_of(&self, t: &Term, positive: bool) -> Option<(VarId, NumSet)> {
        let TermNode::App(op, args) = &**t else {
            return None;
        };
        let [a, b] = args.as_slice() else {
            return None;
        };
        let cmp = match op {
            Op::Lt => Cmp::Lt,
            Op::Le => Cmp::Le,
            Op::Gt => Cmp::Gt,
            Op::Ge => Cmp::Ge,
            Op::Eq if a.kind() != smt::catala::Kind::Bool => Cmp::Eq,
            _ => return None,
        };
        let cmp = if positive { cmp } else { negate(cmp) };
        let l = Linear::of(a)?.minus(Linear::of(b)?);
        let mut it = l.coefficients.iter();
        let (v, c) = it.next()?;
        if it.next().is_some() {
            return None;
        }
        // c·v + k cmp 0  ⇔  v cmp' −k/c
        let value = -l.constant.clone() / c;
        let cmp = if c.is_negative() { flip(cmp) } else { cmp };
        let integral = self.info(*v).unit.integral();
        Some((*v, NumSet::compare(integral, cmp, value)))
    }
}

/// `¬(a cmp b)` as a comparison.
pub(crate) fn negate(c: Cmp) -> Cmp {
    match c {
        Cmp::Lt => Cmp::Ge,
        Cmp::Le => Cmp::Gt,
        Cmp::Gt => Cmp::Le,
        Cmp::Ge => Cmp::Lt,
        Cmp::Eq => Cmp::Ne,
        Cmp::Ne => Cmp::Eq,
    }
}

/// `a cmp b` ⇔ `b (flip cmp) a`.
pub(crate) fn flip(c: Cmp) -> Cmp {
    match c {
        Cmp::Lt => Cmp::Gt,
        Cmp::Le => Cmp::Ge,
        Cmp::Gt => Cmp::Lt,
        Cmp::Ge => Cmp::Le,
        other => other,
    }
}
