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
use std::sync::{Arc, Mutex};

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
    /// Linear forms over several inputs of one unit that constraints compare with constants
    /// (`12 * years of d + months of d >= 4`), each read as one more input so that its
    /// comparisons merge into ranges as an input's do.
    forms: Arc<Mutex<Forms>>,
}

/// The linear forms met so far: normalized coefficients → the variable standing for the form.
#[derive(Debug, Default)]
struct Forms {
    ids: BTreeMap<Vec<(VarId, BigRational)>, VarId>,
    infos: BTreeMap<VarId, VarInfo>,
}

/// Variables standing for linear forms are numbered from here on (far above any input's).
const FIRST_FORM: u32 = 1 << 30;

/// What the coefficients of a linear form are divided by to read well: the first one when
/// the others then read as decimals (`rent - 0.25 * income`), else, for integer coefficients,
/// their greatest common divisor (`12 * years + months`), with the sign of the first.
pub(crate) fn divisor(coefficients: &[BigRational]) -> Option<BigRational> {
    let first = coefficients.first()?.clone();
    let decimal = coefficients
        .iter()
        .all(|c| !crate::term_text::exact(&(c / &first)).contains('/'));
    if decimal || !coefficients.iter().all(|c| c.is_integer()) {
        return Some(first);
    }
    let g = coefficients
        .iter()
        .fold(BigInt::zero(), |g, c| gcd(g, c.to_integer().abs()));
    let g = BigRational::from_integer(g);
    Some(if first.is_negative() { -g } else { g })
}

fn gcd(a: BigInt, b: BigInt) -> BigInt {
    if b.is_zero() {
        a
    } else {
        let r = &a % &b;
        gcd(b, r)
    }
}

impl Inputs {
    /// The variables with their names and units, and the domain constraints of the exploration
    /// (bounds on single variables are kept as domains; other constraints are ignored).
    pub fn new(vars: impl IntoIterator<Item = (VarId, VarInfo)>, domains: &[Term]) -> Inputs {
        let mut inputs = Inputs {
            vars: vars.into_iter().collect(),
            domains: BTreeMap::new(),
            forms: Arc::default(),
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
        if v.0 >= FIRST_FORM {
            if let Some(info) = self.forms().infos.get(&v) {
                return info.clone();
            }
        }
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
        if l.coefficients.len() > 1 {
            return self.form_bound(&l, cmp);
        }
        let (v, c) = l.coefficients.iter().next()?;
        // c·v + k cmp 0  ⇔  v cmp' −k/c
        let value = -l.constant.clone() / c;
        let cmp = if c.is_negative() { flip(cmp) } else { cmp };
        let integral = self.info(*v).unit.integral();
        Some((*v, NumSet::compare(integral, cmp, value)))
    }
}

impl Inputs {
    fn forms(&self) -> std::sync::MutexGuard<'_, Forms> {
        self.forms.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `Σ cᵢ·xᵢ + k cmp 0` over several inputs as a bound on the variable standing for the
    /// form `Σ (cᵢ/d)·xᵢ` (`d` from [`divisor`]): when the inputs share a whole-numbered unit
    /// (dates only in differences, read as days) and the form's coefficients are whole.
    fn form_bound(&self, l: &Linear, cmp: Cmp) -> Option<(VarId, NumSet)> {
        let units: Vec<Unit> = l.coefficients.keys().map(|v| self.info(*v).unit).collect();
        let first = units.first()?.clone();
        if units.iter().any(|u| *u != first) {
            return None;
        }
        let coefficients: Vec<BigRational> = l.coefficients.values().cloned().collect();
        let unit = match first {
            Unit::Integer | Unit::Count | Unit::Money | Unit::Decimal => first,
            Unit::Date if coefficients.iter().sum::<BigRational>().is_zero() => Unit::Count,
            _ => return None,
        };
        let d = divisor(&coefficients)?;
        let normalized: Vec<(VarId, BigRational)> =
            l.coefficients.iter().map(|(v, c)| (*v, c / &d)).collect();
        // Only forms whose values are whole numbers of the unit: a range of such a form reads
        // like an input's (`> $200.00` is `>= $200.01`); others stay constraints as written.
        if !unit.integral() || !normalized.iter().all(|(_, c)| c.is_integer()) {
            return None;
        }
        let id = {
            let mut forms = self.forms();
            let next = VarId(FIRST_FORM + forms.ids.len() as u32);
            match forms.ids.get(&normalized) {
                Some(id) => *id,
                None => {
                    let named: Vec<(String, BigRational)> = normalized
                        .iter()
                        .map(|(v, c)| (self.info(*v).name, c.clone()))
                        .collect();
                    let name = crate::term_text::sum_text(&named);
                    forms.ids.insert(normalized, next);
                    forms.infos.insert(next, VarInfo { name, unit });
                    next
                }
            }
        };
        // Σ cᵢ·xᵢ + k cmp 0  ⇔  form cmp' −k/d
        let value = -l.constant.clone() / &d;
        let cmp = if d.is_negative() { flip(cmp) } else { cmp };
        Some((id, NumSet::compare(true, cmp, value)))
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
