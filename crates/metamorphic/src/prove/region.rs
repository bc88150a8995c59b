//! The region of a violation, readable: the path condition of the violating path pair over the
//! domain's field names (`x.loyer_principal`, `y.loyer_principal`) and in the domain's units
//! (money in units, not cents), simplified exactly. Every linear constraint is put in the form
//! `Σ c·field op constant`; constraints on one field are merged into one interval (or an
//! equality, or a choice); the others are listed once each. Non-linear constraints (rounding,
//! products of inputs) are printed as terms over the field names.

use super::encode::{number_term, Encoding, FieldEncoding};
use crate::domain::{Domain, FieldKind};
use crate::relation::{ArithOp, Expr};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use smt::catala::term::{Op, Term, TermNode, VarId};
use std::collections::BTreeMap;

type Lin = (BTreeMap<VarId, BigRational>, BigRational);

fn rational(n: &str, d: &str) -> Option<BigRational> {
    let n: BigInt = n.parse().ok()?;
    let d: BigInt = d.parse().ok()?;
    (!d.is_zero()).then(|| BigRational::new(n, d))
}

fn add(a: Lin, b: Lin, sign: i32) -> Lin {
    let (mut m, mut k) = a;
    let s = BigRational::from_integer(BigInt::from(sign));
    for (v, c) in b.0 {
        let e = m.entry(v).or_insert_with(BigRational::zero);
        *e += c * &s;
    }
    k += b.1 * s;
    m.retain(|_, c| !c.is_zero());
    (m, k)
}

fn scale(a: Lin, f: &BigRational) -> Lin {
    let m = a.0.into_iter().map(|(v, c)| (v, c * f)).collect();
    (m, a.1 * f)
}

/// The linear form of a term in the domain's units (money variables count in units).
fn linear(t: &Term, money: &dyn Fn(VarId) -> bool) -> Option<Lin> {
    linear_through(t, money, false)
}

/// [`linear`], reading `round(e)` as `e` when `through_round` (a feature is compared with the
/// program's amounts rounded to the cent).
fn linear_through(t: &Term, money: &dyn Fn(VarId) -> bool, through_round: bool) -> Option<Lin> {
    let linear = |t: &Term, money: &dyn Fn(VarId) -> bool| linear_through(t, money, through_round);
    match &**t {
        TermNode::Var(v, _) => {
            let c = if money(*v) {
                BigRational::from_integer(BigInt::from(100))
            } else {
                BigRational::one()
            };
            Some(([(*v, c)].into_iter().collect(), BigRational::zero()))
        }
        TermNode::Int(s) => Some((BTreeMap::new(), rational(s, "1")?)),
        TermNode::Real(n, d) => Some((BTreeMap::new(), rational(n, d)?)),
        TermNode::App(op, args) => match op {
            Op::ToReal => linear(args.first()?, money),
            Op::Round if through_round => linear(args.first()?, money),
            Op::Neg => Some(scale(linear(args.first()?, money)?, &-BigRational::one())),
            Op::Add => {
                let mut acc: Lin = (BTreeMap::new(), BigRational::zero());
                for a in args {
                    acc = add(acc, linear(a, money)?, 1);
                }
                Some(acc)
            }
            Op::Sub => {
                let mut acc = linear(args.first()?, money)?;
                for a in &args[1..] {
                    acc = add(acc, linear(a, money)?, -1);
                }
                Some(acc)
            }
            Op::Mul => {
                let forms: Vec<Lin> = args
                    .iter()
                    .map(|a| linear(a, money))
                    .collect::<Option<_>>()?;
                let mut result: Lin = (BTreeMap::new(), BigRational::one());
                for f in forms {
                    if f.0.is_empty() {
                        result = scale(result, &f.1);
                    } else if result.0.is_empty() {
                        let k = result.1.clone();
                        result = scale(f, &k);
                    } else {
                        return None;
                    }
                }
                Some(result)
            }
            Op::Div => {
                let a = linear(args.first()?, money)?;
                let b = linear(args.get(1)?, money)?;
                (b.0.is_empty() && !b.1.is_zero()).then(|| scale(a, &(BigRational::one() / b.1)))
            }
            _ => None,
        },
        _ => None,
    }
}

/// A rational in decimal notation when exact with at most six decimals, else `n/d`.
fn show(q: &BigRational) -> String {
    for k in 0..=6u32 {
        let scaled = q * BigRational::from_integer(BigInt::from(10).pow(k));
        if scaled.is_integer() {
            let n = scaled.to_integer();
            if k == 0 {
                return n.to_string();
            }
            let negative = n.is_negative();
            let digits = n.abs().to_string();
            let width = k as usize + 1;
            let padded = format!("{digits:0>width$}");
            let (w, f) = padded.split_at(padded.len() - k as usize);
            let f = f.trim_end_matches('0');
            let sign = if negative { "-" } else { "" };
            return if f.is_empty() {
                format!("{sign}{w}")
            } else {
                format!("{sign}{w}.{f}")
            };
        }
    }
    format!("{}/{}", q.numer(), q.denom())
}

/// What a variable is: its display name and, for choices, the names by value.
struct VarInfo {
    name: String,
    money: bool,
    integer: bool,
    choices: Option<Vec<(i64, String)>>,
}

#[derive(Default)]
struct Bounds {
    lo: Option<(BigRational, bool)>,
    hi: Option<(BigRational, bool)>,
    eq: Option<BigRational>,
    ne: Vec<BigRational>,
}

fn flip(op: Op) -> Op {
    match op {
        Op::Lt => Op::Gt,
        Op::Le => Op::Ge,
        Op::Gt => Op::Lt,
        Op::Ge => Op::Le,
        o => o,
    }
}

fn negate(op: Op) -> Option<Op> {
    Some(match op {
        Op::Lt => Op::Ge,
        Op::Le => Op::Gt,
        Op::Gt => Op::Le,
        Op::Ge => Op::Lt,
        _ => return None,
    })
}

fn symbol(op: Op) -> &'static str {
    match op {
        Op::Lt => "<",
        Op::Le => "<=",
        Op::Gt => ">",
        Op::Ge => ">=",
        Op::Eq => "=",
        _ => "?",
    }
}

/// A declared feature of one case as a linear form over the solver variables of that case
/// (in the domain's units), standing for the variable `pseudo` of the printer.
struct FeatureForm {
    pseudo: VarId,
    form: Lin,
}

struct Printer<'a> {
    info: BTreeMap<VarId, VarInfo>,
    /// The features a linear constraint over several fields is read through, when it is a
    /// multiple of one of them.
    features: Vec<FeatureForm>,
    /// Features read through the program's roundings.
    rounded: std::collections::BTreeSet<VarId>,
    bounds: BTreeMap<VarId, Bounds>,
    bools: BTreeMap<VarId, bool>,
    others: Vec<String>,
    /// Constraints printed as terms, settled once every atom is read.
    deferred: Vec<(Term, bool)>,
    /// The values each choice variable can still take.
    candidates: BTreeMap<VarId, Vec<i64>>,
    _enc: &'a Encoding,
}

impl Printer<'_> {
    fn money(&self, v: VarId) -> bool {
        self.info.get(&v).is_some_and(|i| i.money)
    }

    fn name(&self, v: VarId) -> String {
        self.info
            .get(&v)
            .map_or_else(|| format!("v{}", v.0), |i| i.name.clone())
    }

    /// A term over field names (for non-linear constraints).
    fn raw(&self, t: &Term) -> String {
        if let TermNode::App(Op::Eq, args) = &**t {
            if let [a, b] = args.as_slice() {
                if let (TermNode::Var(v, _), TermNode::Int(n)) = (&**a, &**b) {
                    let label = self
                        .info
                        .get(v)
                        .and_then(|i| i.choices.as_ref())
                        .and_then(|c| {
                            let n: i64 = n.parse().ok()?;
                            c.iter().find(|(k, _)| *k == n).map(|(_, s)| s.clone())
                        });
                    if let Some(label) = label {
                        return format!("{} = {label}", self.name(*v));
                    }
                }
            }
        }
        match &**t {
            TermNode::Var(v, _) => {
                if self.money(*v) {
                    format!("{}_cents", self.name(*v))
                } else {
                    self.name(*v)
                }
            }
            TermNode::App(op, args) => {
                let parts: Vec<String> = args.iter().map(|a| self.raw(a)).collect();
                let name = match op {
                    Op::Add => return format!("({})", parts.join(" + ")),
                    Op::Sub => return format!("({})", parts.join(" - ")),
                    Op::Mul => return format!("({})", parts.join(" * ")),
                    Op::Div => return format!("({})", parts.join(" / ")),
                    Op::ToReal => return parts.join(""),
                    Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq => {
                        return parts.join(&format!(" {} ", symbol(*op)))
                    }
                    Op::And => return parts.join(" and "),
                    Op::Or => return format!("({})", parts.join(" or ")),
                    Op::Not => "not",
                    Op::Neg => "-",
                    Op::Round => "round",
                    Op::Truncate => "truncate",
                    Op::Ite => "if",
                    Op::Xor => "xor",
                    Op::IntDiv => "div",
                    Op::Mod => "mod",
                    Op::YearOf => "year_of",
                    Op::MonthOf => "month_of",
                    Op::DayOf => "day_of",
                    Op::DaysInMonth => "days_in_month",
                    Op::DayNumber => "date",
                };
                format!("{name}({})", parts.join(", "))
            }
            other => format!("{other}"),
        }
    }

    fn atom(&mut self, t: &Term, positive: bool) {
        match &**t {
            TermNode::Bool(_) => {}
            TermNode::App(Op::Not, args) if args.len() == 1 => self.atom(&args[0], !positive),
            TermNode::App(Op::And, args) if positive => {
                for a in args {
                    self.atom(a, true);
                }
            }
            TermNode::Var(v, _) => {
                self.bools.insert(*v, positive);
            }
            TermNode::App(op @ (Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq), args)
                if args.len() == 2 =>
            {
                let money = |v: VarId| self.money(v);
                let form = linear(&args[0], &money)
                    .zip(linear(&args[1], &money))
                    .map(|(a, b)| add(a, b, -1));
                let op = if positive { Some(*op) } else { negate(*op) };
                let rounded = || {
                    let money = |v: VarId| self.money(v);
                    let form = linear_through(&args[0], &money, true)
                        .zip(linear_through(&args[1], &money, true))
                        .map(|(a, b)| add(a, b, -1))?;
                    self.through_feature(&form)
                };
                let feature = if form.is_none() && !self.features.is_empty() {
                    rounded()
                } else {
                    None
                };
                if let (Some(f), Some(op)) = (feature, op) {
                    if let Some(v) = f.0.keys().next() {
                        self.rounded.insert(*v);
                    }
                    return self.linear_atom(f, op);
                }
                match (form, op) {
                    (Some(form), Some(op)) => self.linear_atom(form, op),
                    (Some(form), None) => self.not_equal(form),
                    _ => self.deferred.push((t.clone(), positive)),
                }
            }
            _ => self.deferred.push((t.clone(), positive)),
        }
    }

    /// The values a choice variable can still take given its bounds.
    fn choice_candidates(&self) -> BTreeMap<VarId, Vec<i64>> {
        let mut out = BTreeMap::new();
        for (v, info) in &self.info {
            let Some(choices) = &info.choices else {
                continue;
            };
            let b = self.bounds.get(v);
            let allowed: Vec<i64> = choices
                .iter()
                .map(|(k, _)| *k)
                .filter(|k| {
                    let q = BigRational::from_integer(BigInt::from(*k));
                    b.is_none_or(|b| {
                        b.eq.as_ref().is_none_or(|e| *e == q)
                            && !b.ne.contains(&q)
                            && b.lo.as_ref().is_none_or(|(l, s)| q > *l || (!s && q == *l))
                            && b.hi.as_ref().is_none_or(|(h, s)| q < *h || (!s && q == *h))
                    })
                })
                .collect();
            out.insert(*v, allowed);
        }
        out
    }

    /// The truth of `t` for every value the choice variables can still take and the
    /// booleans the path fixes (`None`: it depends on something else).
    fn truth(&self, t: &Term, candidates: &BTreeMap<VarId, Vec<i64>>) -> Option<bool> {
        match &**t {
            TermNode::Bool(b) => Some(*b),
            TermNode::Var(v, _) => self.bools.get(v).copied(),
            TermNode::App(Op::Not, args) if args.len() == 1 => {
                self.truth(&args[0], candidates).map(|b| !b)
            }
            TermNode::App(op @ (Op::And | Op::Or), args) => {
                let absorbing = *op == Op::Or;
                let mut all = true;
                for a in args {
                    match self.truth(a, candidates) {
                        Some(b) if b == absorbing => return Some(absorbing),
                        Some(_) => {}
                        None => all = false,
                    }
                }
                all.then_some(!absorbing)
            }
            TermNode::App(op @ (Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq), args)
                if args.len() == 2 =>
            {
                let money = |v: VarId| self.money(v);
                let (m, k) = add(linear(&args[0], &money)?, linear(&args[1], &money)?, -1);
                let holds = |x: &BigRational| match op {
                    Op::Lt => x.is_negative(),
                    Op::Le => !x.is_positive(),
                    Op::Gt => x.is_positive(),
                    Op::Ge => !x.is_negative(),
                    _ => x.is_zero(),
                };
                if m.is_empty() {
                    return Some(holds(&k));
                }
                if m.len() != 1 {
                    return None;
                }
                let (v, c) = m.iter().next()?;
                let values = candidates.get(v)?;
                let mut seen = values
                    .iter()
                    .map(|n| holds(&(c * BigRational::from_integer(BigInt::from(*n)) + &k)));
                let first = seen.next()?;
                seen.all(|b| b == first).then_some(first)
            }
            _ => None,
        }
    }

    /// `t` with its parts decided by the choices and booleans the path fixes replaced by their
    /// value, conjunctions and disjunctions simplified.
    fn residual(&self, t: &Term, candidates: &BTreeMap<VarId, Vec<i64>>) -> Term {
        if let Some(b) = self.truth(t, candidates) {
            return smt::catala::term::bool_const(b);
        }
        match &**t {
            TermNode::App(Op::Not, args) if args.len() == 1 => {
                let inner = self.residual(&args[0], candidates);
                match &*inner {
                    TermNode::Bool(b) => smt::catala::term::bool_const(!b),
                    _ => smt::catala::term::not(&inner),
                }
            }
            TermNode::App(op @ (Op::And | Op::Or), args) => {
                let neutral = *op == Op::And;
                let mut kept = Vec::new();
                for a in args {
                    let r = self.residual(a, candidates);
                    match &*r {
                        TermNode::Bool(b) if *b == neutral => {}
                        TermNode::Bool(_) => return r,
                        _ => kept.push(r),
                    }
                }
                match kept.len() {
                    0 => smt::catala::term::bool_const(neutral),
                    1 => kept.remove(0),
                    _ => smt::catala::term::app(*op, kept),
                }
            }
            _ => t.clone(),
        }
    }

    /// The constraints left over: dropped when the choices and booleans the path fixes imply
    /// them; one that only narrows a choice variable narrows its candidates instead.
    fn settle(&mut self) {
        let mut candidates = self.choice_candidates();
        let deferred = std::mem::take(&mut self.deferred);
        let mut left: Vec<(Term, bool)> = deferred;
        for _ in 0..3 {
            let mut next = Vec::new();
            for (t, positive) in left {
                match self.truth(&t, &candidates) {
                    Some(b) if b == positive => continue,
                    Some(_) => {
                        next.push((t, positive));
                        continue;
                    }
                    None => {}
                }
                let mut vars = Vec::new();
                t.collect_vars(&mut vars);
                let only_choice = match vars.as_slice() {
                    [v] => candidates.contains_key(v).then_some(*v),
                    _ => None,
                };
                if let Some(v) = only_choice {
                    let narrowed: Vec<i64> = candidates[&v]
                        .iter()
                        .copied()
                        .filter(|n| {
                            let mut one = candidates.clone();
                            one.insert(v, vec![*n]);
                            self.truth(&t, &one) == Some(positive)
                        })
                        .collect();
                    candidates.insert(v, narrowed);
                    continue;
                }
                // What is left of it once the decided parts are replaced by their value: a
                // plain boolean becomes one of the booleans the path fixes.
                let r = self.residual(&t, &candidates);
                let mut rest = Vec::new();
                match &*r {
                    TermNode::Bool(b) if *b == positive => {}
                    TermNode::Var(v, _) => {
                        self.bools.insert(*v, positive);
                    }
                    TermNode::App(Op::Not, args)
                        if args.len() == 1 && matches!(&*args[0], TermNode::Var(..)) =>
                    {
                        if let TermNode::Var(v, _) = &*args[0] {
                            self.bools.insert(*v, !positive);
                        }
                    }
                    _ => rest.push((r, positive)),
                }
                next.extend(rest);
            }
            left = next;
        }
        for (t, positive) in left {
            let text = self.raw(&t);
            self.push_other(if positive {
                text
            } else {
                format!("not ({text})")
            });
        }
        self.candidates = candidates;
    }

    fn push_other(&mut self, text: String) {
        let text = if text.chars().count() > 400 {
            format!("{}…", text.chars().take(400).collect::<String>())
        } else {
            text
        };
        if !self.others.contains(&text) {
            self.others.push(text);
        }
    }

    fn not_equal(&mut self, (m, k): Lin) {
        if m.len() == 1 {
            if let Some((v, c)) = m.iter().next() {
                let value = -k / c;
                self.bounds.entry(*v).or_default().ne.push(value);
                return;
            }
        }
        let text = self.sum((m, k), Op::Eq);
        self.push_other(format!("not ({text})"));
    }

    /// `Σ c·v + k = λ·(F − f_k) + k` when `Σ c·v` is `λ` times the variable part of feature
    /// `F`: the constraint on `F` alone.
    fn through_feature(&self, (m, k): &Lin) -> Option<Lin> {
        if m.len() < 2 {
            return None;
        }
        self.features.iter().find_map(|f| {
            let (fm, fk) = &f.form;
            if fm.len() != m.len() || !fm.keys().eq(m.keys()) {
                return None;
            }
            let (v0, c0) = m.iter().next()?;
            let lambda = c0 / fm.get(v0)?;
            if m.iter()
                .any(|(v, c)| fm.get(v).is_none_or(|d| &(d * &lambda) != c))
            {
                return None;
            }
            let constant = k - &lambda * fk;
            Some(([(f.pseudo, lambda)].into_iter().collect(), constant))
        })
    }

    /// `Σ c·v + k op 0`.
    fn linear_atom(&mut self, (m, k): Lin, op: Op) {
        if m.is_empty() {
            return;
        }
        if let Some(form) = self.through_feature(&(m.clone(), k.clone())) {
            return self.linear_atom(form, op);
        }
        if m.len() == 1 {
            if let Some((v, c)) = m.into_iter().next() {
                let value = -k / &c;
                let op = if c.is_negative() { flip(op) } else { op };
                let b = self.bounds.entry(v).or_default();
                match op {
                    Op::Eq => b.eq = Some(value),
                    Op::Gt | Op::Ge => {
                        let strict = op == Op::Gt;
                        let tighter = b
                            .lo
                            .as_ref()
                            .is_none_or(|(lo, s)| value > *lo || (value == *lo && strict && !s));
                        if tighter {
                            b.lo = Some((value, strict));
                        }
                    }
                    _ => {
                        let strict = op == Op::Lt;
                        let tighter = b
                            .hi
                            .as_ref()
                            .is_none_or(|(hi, s)| value < *hi || (value == *hi && strict && !s));
                        if tighter {
                            b.hi = Some((value, strict));
                        }
                    }
                }
            }
            return;
        }
        let text = self.sum((m, k), op);
        self.push_other(text);
    }

    /// `Σ c·v op −k`, the first coefficient made ±1.
    fn sum(&self, (m, k): Lin, op: Op) -> String {
        let lead = m
            .values()
            .next()
            .map(|c| c.abs())
            .unwrap_or_else(BigRational::one);
        let mut text = String::new();
        for (i, (v, c)) in m.iter().enumerate() {
            let c = c / &lead;
            let negative = c.is_negative();
            let magnitude = c.abs();
            let sign = match (i, negative) {
                (0, true) => "-",
                (0, false) => "",
                (_, true) => " - ",
                (_, false) => " + ",
            };
            let coef = if magnitude.is_one() {
                String::new()
            } else {
                format!("{} * ", show(&magnitude))
            };
            text.push_str(&format!("{sign}{coef}{}", self.name(*v)));
        }
        format!("{text} {} {}", symbol(op), show(&(-k / lead)))
    }

    fn lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (v, b) in &self.bounds {
            let info = self.info.get(v);
            let name = self.name(*v);
            if info.is_some_and(|i| i.choices.is_some()) {
                continue;
            }
            let integer = info.is_some_and(|i| i.integer);
            if let Some(eq) = &b.eq {
                out.push(format!("{name} = {}", show(eq)));
                continue;
            }
            // Integers: strict bounds become inclusive ones.
            let lo = b.lo.as_ref().map(|(q, s)| {
                if integer && *s {
                    (BigRational::from_integer(q.floor().to_integer() + 1), false)
                } else if integer {
                    (q.ceil(), false)
                } else {
                    (q.clone(), *s)
                }
            });
            let hi = b.hi.as_ref().map(|(q, s)| {
                if integer && *s {
                    (BigRational::from_integer(q.ceil().to_integer() - 1), false)
                } else if integer {
                    (q.floor(), false)
                } else {
                    (q.clone(), *s)
                }
            });
            let mut text = match (&lo, &hi) {
                (Some((l, ls)), Some((h, hs))) if l == h && !ls && !hs => {
                    format!("{name} = {}", show(l))
                }
                (Some((l, ls)), Some((h, hs))) => format!(
                    "{} {} {name} {} {}",
                    show(l),
                    if *ls { "<" } else { "<=" },
                    if *hs { "<" } else { "<=" },
                    show(h)
                ),
                (Some((l, ls)), None) => {
                    format!("{name} {} {}", if *ls { ">" } else { ">=" }, show(l))
                }
                (None, Some((h, hs))) => {
                    format!("{name} {} {}", if *hs { "<" } else { "<=" }, show(h))
                }
                (None, None) => String::new(),
            };
            for q in &b.ne {
                if !text.is_empty() {
                    text.push_str(", ");
                }
                text.push_str(&format!("{name} != {}", show(q)));
            }
            if self.rounded.contains(v) && !text.is_empty() {
                text.push_str(" (amounts as the program rounds them to the cent)");
            }
            if !text.is_empty() {
                out.push(text);
            }
        }
        for (v, allowed) in &self.candidates {
            let Some(choices) = self.info.get(v).and_then(|i| i.choices.as_ref()) else {
                continue;
            };
            if allowed.len() == choices.len() {
                continue;
            }
            let names: Vec<String> = allowed
                .iter()
                .map(|n| {
                    choices
                        .iter()
                        .find(|(k, _)| k == n)
                        .map_or_else(|| n.to_string(), |(_, s)| s.clone())
                })
                .collect();
            let name = self.name(*v);
            out.push(match names.as_slice() {
                [one] => format!("{name} = {one}"),
                _ => format!("{name} in {{{}}}", names.join(", ")),
            });
        }
        for (v, b) in &self.bools {
            let name = self.name(*v);
            out.push(if *b { name } else { format!("not {name}") });
        }
        out.extend(self.others.iter().cloned());
        out
    }
}

/// The linear form, over the variables of case `case`, of a feature's expression (`None`
/// when it is not linear, or reads a field that is not a number).
fn feature_form(
    expr: &Expr,
    enc: &Encoding,
    case: usize,
    done: &BTreeMap<String, Lin>,
) -> Option<Lin> {
    let no_money = |_: VarId| false;
    match expr {
        Expr::Number(n) => linear(&number_term(*n).ok()?, &no_money),
        Expr::Name(name, _) => {
            if let Some(form) = done.get(name) {
                return Some(form.clone());
            }
            let j = enc.fields.iter().position(|f| &f.name == name)?;
            matches!(
                enc.fields[j].encoding,
                FieldEncoding::Money | FieldEncoding::Integer | FieldEncoding::Decimal
            )
            .then(|| {
                (
                    [(enc.vars[case][j], BigRational::one())]
                        .into_iter()
                        .collect(),
                    BigRational::zero(),
                )
            })
        }
        Expr::Neg(a) => Some(scale(
            feature_form(a, enc, case, done)?,
            &-BigRational::one(),
        )),
        Expr::Arith(op, a, b) => {
            let a = feature_form(a, enc, case, done)?;
            let b = feature_form(b, enc, case, done)?;
            match op {
                ArithOp::Add => Some(add(a, b, 1)),
                ArithOp::Sub => Some(add(a, b, -1)),
                ArithOp::Mul if a.0.is_empty() => Some(scale(b, &a.1)),
                ArithOp::Mul if b.0.is_empty() => Some(scale(a, &b.1)),
                ArithOp::Div if b.0.is_empty() && !b.1.is_zero() => {
                    Some(scale(a, &(BigRational::one() / b.1)))
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The path condition `path` over field names, simplified.
pub fn describe(enc: &Encoding, domain: &Domain, path: &[Term]) -> Vec<String> {
    describe_as(enc, domain, path, false)
}

/// The path condition `path` read through the domain's declared features: a linear
/// constraint over several fields of one case that is a multiple of a linear feature of that
/// case becomes a bound on the feature (`200 < x.burden <= 1000`); `None` when no constraint
/// is.
pub fn describe_with_features(
    enc: &Encoding,
    domain: &Domain,
    path: &[Term],
) -> Option<Vec<String>> {
    let plain = describe_as(enc, domain, path, false);
    let with = describe_as(enc, domain, path, true);
    (with != plain).then_some(with)
}

fn describe_as(enc: &Encoding, domain: &Domain, path: &[Term], features: bool) -> Vec<String> {
    let mut info = BTreeMap::new();
    for (c, row) in enc.vars.iter().enumerate() {
        for (f, v) in enc.fields.iter().zip(row) {
            if info.contains_key(v) {
                continue;
            }
            let choice_names = match domain.field(&f.name).map(|s| &s.kind) {
                Some(FieldKind::Enum { choices }) => choices.clone(),
                _ => Vec::new(),
            };
            let choices = match &f.encoding {
                FieldEncoding::Enum { case_of, .. } => Some(
                    case_of
                        .iter()
                        .zip(&choice_names)
                        .map(|(k, s)| (i64::from(*k), s.clone()))
                        .collect(),
                ),
                FieldEncoding::Date { days } => Some(
                    days.iter()
                        .copied()
                        .zip(choice_names.iter().cloned())
                        .collect(),
                ),
                _ => None,
            };
            info.insert(
                *v,
                VarInfo {
                    name: format!("{}.{}", enc.cases[c], f.name),
                    money: matches!(f.encoding, FieldEncoding::Money),
                    integer: matches!(f.encoding, FieldEncoding::Integer),
                    choices,
                },
            );
        }
    }
    let mut forms = Vec::new();
    if features {
        let mut next = u32::MAX / 2;
        for c in 0..enc.cases.len() {
            let mut done: BTreeMap<String, Lin> = BTreeMap::new();
            for f in &domain.features {
                let Some(form) = feature_form(&f.expr, enc, c, &done) else {
                    continue;
                };
                done.insert(f.name.clone(), form.clone());
                // Features of a case that shares every variable with an earlier one are the
                // same: the earlier name is kept.
                if form.0.len() < 2 || forms.iter().any(|g: &FeatureForm| g.form == form) {
                    continue;
                }
                let pseudo = VarId(next);
                next += 1;
                info.insert(
                    pseudo,
                    VarInfo {
                        name: format!("{}.{}", enc.cases[c], f.name),
                        money: false,
                        integer: false,
                        choices: None,
                    },
                );
                forms.push(FeatureForm { pseudo, form });
            }
        }
    }
    let mut printer = Printer {
        info,
        features: forms,
        rounded: Default::default(),
        bounds: BTreeMap::new(),
        bools: BTreeMap::new(),
        others: Vec::new(),
        deferred: Vec::new(),
        candidates: BTreeMap::new(),
        _enc: enc,
    };
    for t in path {
        printer.atom(t, true);
    }
    printer.settle();
    printer.lines()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rationals_print_exactly() {
        let q = |n: i64, d: i64| BigRational::new(BigInt::from(n), BigInt::from(d));
        assert_eq!(show(&q(112_200, 100)), "1122");
        assert_eq!(show(&q(-3, 4)), "-0.75");
        assert_eq!(show(&q(1, 3)), "1/3");
        assert_eq!(show(&q(5, 100)), "0.05");
    }
}
