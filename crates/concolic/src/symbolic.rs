//! The symbolic companion: what rides along with every value of a concolic run. A [`Sym`]
//! mirrors the shape of its value (scalars carry a [`Term`] over the scope's inputs, structures,
//! enumerations and tuples carry their parts) and is [`Sym::Concrete`] whenever the value does
//! not depend on the inputs. [`PathState`] is the companion's session: it turns the
//! interpreter's branch events into the path condition (Fig. 4 of the paper: justifications,
//! conditionals, matches, divisions by zero, assertions, the lengths of list inputs) and notes
//! the operations that had to be evaluated concretely on symbolic operands (loss of
//! completeness). Dates and durations are in [`crate::symbolic_dates`].
//!
//! A list input has a symbolic length ([`SymList::len`]): every operation whose behaviour
//! depends on it (going through the list, comparing or concatenating lists) records it as a
//! branch, as a match does its case: `len ≠ 0, …, len ≠ k−1, len = k` (no equality when `k` is
//! the bound), so the searcher tries the other lengths. `number of` gives the length term.
//! Lists computed from it (filter, map) have lengths the path already fixes.

use crate::symbolic_dates::{self, Handled};
use catala_eval::eval::{BranchEvent, Companion, Composite, Projection};
use catala_eval::runtime::{Date, Value};
use catala_ir::dcalc::{BinaryOp, CmpType, UnaryOp};
use catala_syntax::Span;
use smt::catala::term::{self, app, bool_const, int_const, real_const, Kind, Op, Term};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

/// The symbolic part of a value.
#[derive(Clone, Debug, Default)]
pub enum Sym {
    /// The value does not depend on the inputs.
    #[default]
    Concrete,
    /// A boolean, integer, decimal, money (cents), date (day number) or duration term (a
    /// duration in days: its years and months are 0).
    Scalar(Term),
    /// Structure (or scope output) fields, in order.
    Struct(Rc<[Sym]>),
    /// An enumeration value: its case index as an integer term, and per case its payload.
    Enum {
        tag: Term,
        payloads: Rc<[Sym]>,
    },
    Tuple(Rc<[Sym]>),
    /// A list: its elements, and its length as a term when it is a symbolic input.
    List(Rc<SymList>),
    /// A duration whose years or months may be other than 0: years, months and days (see
    /// [`crate::symbolic_dates`]; durations in days are [`Sym::Scalar`]).
    Duration(Rc<[Term; 3]>),
    /// A date with its parts known as terms: day number, year, month and day (see
    /// [`crate::symbolic_dates`]; a date as a day number alone is [`Sym::Scalar`]).
    Date(Rc<[Term; 4]>),
}

impl Sym {
    pub(crate) fn is_concrete(&self) -> bool {
        matches!(self, Sym::Concrete)
    }

    /// A list of these elements whose length the path fixes.
    pub fn list(items: Vec<Sym>) -> Sym {
        Sym::List(Rc::new(SymList {
            items: items.into(),
            len: None,
        }))
    }
}

/// The companion of a list.
#[derive(Clone, Debug)]
pub struct SymList {
    /// The elements of this run's list.
    pub items: Rc<[Sym]>,
    /// For a list input: its length variable and the bound of its length (`None`: the length
    /// does not depend on the inputs beyond what the path says).
    pub len: Option<(Term, usize)>,
}

/// What a recorded constraint comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstraintOrigin {
    If,
    Justification,
    Match,
    Division,
    Assertion,
    ListCondition,
    /// Whether a context variable is given.
    ContextInput,
    /// Whether a date computation or a comparison of durations is defined.
    DateComputation,
    /// The length of a list input, where an operation depends on it.
    ListLength,
}

/// One element of the path condition: the condition as it held on this run.
#[derive(Clone, Debug)]
pub struct PathConstraint {
    pub term: Term,
    /// Fixed constraints (assertions that held) are never negated.
    pub fixed: bool,
    pub origin: ConstraintOrigin,
    pub span: Span,
    /// Which way the run went at `span`: 1 for a condition that held, 0 for one that did not;
    /// for the `i`-th case of a match, `2i + 1` (it is this case) or `2i` (it is not). The
    /// other way is `way ^ 1`.
    pub way: u32,
    /// The other branch points where the run met this same condition again (each with the
    /// way it went there), in the order met: repeats are left out of the path (Section 4.4),
    /// so this constraint stands for them, and negating it changes the way taken there too.
    pub repeated_at: Vec<(Span, u32)>,
}

/// The companion's session: the path condition of the current run.
#[derive(Debug, Default)]
pub struct PathState {
    pub constraints: Vec<PathConstraint>,
    /// The terms of `constraints`, with their positions there.
    seen: smt::fast_hash::FastMap<Term, usize>,
    /// Drop constraints without variables and repetitions of earlier ones (Section 4.4).
    pub remove_trivial: bool,
    /// Evaluate the exceptions of default terms lazily (Fig. 9 of the paper): stop at the
    /// second non-empty exception, so the constraints of the later ones never enter the path.
    pub lazy_exceptions: bool,
    /// Set at the first failing assertion: the run is outside the input space.
    pub assertion_failed: bool,
    /// Set when an input assertion (checked before the scope's body) failed: the run's inputs
    /// are outside the input space the explored scope states.
    pub outside_input_space: bool,
    /// Set when one of the explored scope's own input assertions failed: the run's inputs
    /// (a starting input) are outside the space every query is within.
    pub started_outside: bool,
    /// The spans of the input assertions checked before the body in this run: met again at
    /// their place, they are not recorded twice.
    input_assertions: Vec<Span>,
    /// Their conditions, in the order checked (the same terms on every run: they read only
    /// the inputs, without branching on them).
    pub input_assertion_terms: Vec<Term>,
    /// Operations evaluated concretely although an operand was symbolic.
    pub incomplete: BTreeSet<String>,
    /// For each context variable of the explored scope: the span of its declaration (that of
    /// the default term reading its argument), the boolean "the argument is given", and
    /// whether it is given in the current run. Reading it is a branch.
    pub context_defaults: HashMap<Span, (Term, bool)>,
    context_seen: HashSet<Span>,
    /// Track failing exceptions for the early-conflict rule (Fig. 10 of the paper).
    pub early_conflicts: bool,
    /// Constraints left out of the path because an equal one came earlier, with the path
    /// length when they were met: the condition of a later part of the run includes them.
    pub repeats: Vec<(usize, Term)>,
    /// For each default term an error crossed, innermost first: the path length before its
    /// exceptions and before the failing one (see [`Companion::exception_failed`]).
    pub failed_exceptions: Vec<(usize, usize)>,
}

impl PathState {
    pub fn new(remove_trivial: bool) -> PathState {
        PathState {
            remove_trivial,
            ..PathState::default()
        }
    }

    /// Clears the path for a new run (keeps the settings and the completeness notes).
    pub fn reset(&mut self) {
        self.constraints.clear();
        self.seen.clear();
        self.context_seen.clear();
        self.assertion_failed = false;
        self.outside_input_space = false;
        self.started_outside = false;
        self.input_assertions.clear();
        self.input_assertion_terms.clear();
        self.repeats.clear();
        self.failed_exceptions.clear();
    }

    /// The condition under which the part of the run after path position `from` behaves as it
    /// did: the constraints recorded from there, and the repeats met from there.
    pub(crate) fn condition_from(&self, from: usize) -> Vec<Term> {
        let mut out: Vec<Term> = self
            .constraints
            .iter()
            .skip(from)
            .map(|c| c.term.clone())
            .collect();
        out.extend(
            self.repeats
                .iter()
                .filter(|(at, _)| *at >= from)
                .map(|(_, t)| t.clone()),
        );
        out
    }

    pub(crate) fn record(
        &mut self,
        t: Term,
        fixed: bool,
        origin: ConstraintOrigin,
        span: Span,
        way: u32,
    ) {
        if self.assertion_failed {
            return;
        }
        if self.remove_trivial {
            if t.is_ground() {
                return;
            }
            if let Some(&k) = self.seen.get(&t) {
                if let Some(first) = self.constraints.get_mut(k) {
                    if first.span != span && !first.repeated_at.contains(&(span, way)) {
                        first.repeated_at.push((span, way));
                    }
                }
                if self.early_conflicts {
                    self.repeats.push((self.constraints.len(), t));
                }
                return;
            }
            self.seen.insert(t.clone(), self.constraints.len());
        }
        self.constraints.push(PathConstraint {
            term: t,
            fixed,
            origin,
            span,
            way,
            repeated_at: Vec::new(),
        });
    }

    fn record_condition(&mut self, cond: &Sym, taken: bool, origin: ConstraintOrigin, span: Span) {
        let t = match cond {
            Sym::Scalar(t) => t.clone(),
            _ => bool_const(taken),
        };
        let t = if taken { t } else { term::not(&t) };
        self.record(t, false, origin, span, u32::from(taken));
    }

    /// Records that the list of length term `len` (at most `max`) has `length` elements: a
    /// chain of binary choices, as for a match (`way` `2i` for `len ≠ i`, `2k + 1` for
    /// `len = k`).
    fn record_length(&mut self, len: &Term, max: usize, length: usize, span: Span) {
        let is = |i: usize| app(Op::Eq, vec![len.clone(), int_const(i.to_string())]);
        for i in 0..length {
            let way = 2 * i as u32;
            self.record(
                term::not(&is(i)),
                false,
                ConstraintOrigin::ListLength,
                span,
                way,
            );
        }
        if length < max {
            let way = 2 * length as u32 + 1;
            self.record(is(length), false, ConstraintOrigin::ListLength, span, way);
        }
    }

    /// Records the length of every list input inside `(v, s)` (lists, their elements, the
    /// fields of structures and tuples, the payload of an enumeration's case).
    fn record_lengths(&mut self, v: &Value, s: &Sym, span: Span) {
        match (v, s) {
            (Value::List(items), Sym::List(l)) => {
                if let Some((len, max)) = &l.len {
                    self.record_length(len, *max, items.len(), span);
                }
                for (x, sx) in items.iter().zip(l.items.iter()) {
                    self.record_lengths(x, sx, span);
                }
            }
            (Value::Struct(x), Sym::Struct(p)) => {
                for (x, sx) in x.fields.iter().zip(p.iter()) {
                    self.record_lengths(x, sx, span);
                }
            }
            (Value::Tuple(x), Sym::Tuple(p)) => {
                for (x, sx) in x.iter().zip(p.iter()) {
                    self.record_lengths(x, sx, span);
                }
            }
            (Value::Enum(e), Sym::Enum { payloads, .. }) => {
                if let Some(p) = payloads.get(e.case as usize) {
                    self.record_lengths(&e.payload, p, span);
                }
            }
            _ => {}
        }
    }

    pub(crate) fn lost(&mut self, what: &str) {
        if !self.incomplete.contains(what) {
            self.incomplete.insert(what.to_string());
        }
    }
}

/// The condition under which a binary operator on dates or durations succeeds on these
/// operands (`None` when it cannot fail on values alone, or the operands are not dates or
/// durations): what the companion records as a branch when the operator is evaluated.
pub fn date_success_condition(
    op: BinaryOp,
    lhs: (&Value, &Sym),
    rhs: (&Value, &Sym),
) -> Option<Term> {
    symbolic_dates::success_condition(op, lhs, rhs)
}

/// Day number (days since 1970-01-01) of a date: the runtime's own conversion.
pub fn day_number(d: &Date) -> i64 {
    d.day_number()
}

/// The date of a day number (inverse of [`day_number`]).
pub(crate) fn date_of_day_number(z: i64) -> Option<Date> {
    Date::from_day_number(z)
}

/// The constant term of a scalar value (`None` for values with no scalar encoding).
pub(crate) fn constant_term(v: &Value) -> Option<Term> {
    Some(match v {
        Value::Bool(b) => bool_const(*b),
        Value::Integer(i) | Value::Money(i) => int_const(i.to_string()),
        Value::Decimal(d) => {
            let (n, den) = d.numer_denom();
            real_const(n.to_string(), den.to_string())
        }
        Value::Date(d) => int_const(day_number(d).to_string()),
        Value::Duration(d) if d.years == 0 && d.months == 0 => int_const(d.days.to_string()),
        _ => return None,
    })
}

fn scalar(v: &Value, s: &Sym) -> Option<Term> {
    match s {
        Sym::Scalar(t) => Some(t.clone()),
        Sym::Date(parts) => Some(parts[0].clone()),
        Sym::Concrete => constant_term(v),
        _ => None,
    }
}

fn to_real(t: Term) -> Term {
    if t.kind() == Kind::Real {
        t
    } else {
        app(Op::ToReal, vec![t])
    }
}

fn hundred_real() -> Term {
    real_const("100", "1")
}

/// Symbolic equality of two values (structures, enumerations and tuples part by part).
fn equality(lv: &Value, ls: &Sym, rv: &Value, rs: &Sym) -> Option<Term> {
    if ls.is_concrete() && rs.is_concrete() {
        return Some(bool_const(lv.equals(rv).unwrap_or(false)));
    }
    match (lv, rv) {
        (Value::Struct(a), Value::Struct(b)) => {
            let parts = |s: &Sym, n: usize| match s {
                Sym::Struct(p) => p.to_vec(),
                _ => vec![Sym::Concrete; n],
            };
            let (pa, pb) = (parts(ls, a.fields.len()), parts(rs, b.fields.len()));
            let mut conj = Vec::new();
            for (i, (x, y)) in a.fields.iter().zip(b.fields.iter()).enumerate() {
                let sx = pa.get(i).cloned().unwrap_or_default();
                let sy = pb.get(i).cloned().unwrap_or_default();
                conj.push(equality(x, &sx, y, &sy)?);
            }
            Some(app(Op::And, conj))
        }
        (Value::Enum(a), Value::Enum(b)) => {
            let tag = |s: &Sym, case: u32| match s {
                Sym::Enum { tag, .. } => tag.clone(),
                _ => int_const(case.to_string()),
            };
            let payload = |s: &Sym, case: u32| match s {
                Sym::Enum { payloads, .. } => {
                    payloads.get(case as usize).cloned().unwrap_or_default()
                }
                _ => Sym::Concrete,
            };
            let same_tag = app(Op::Eq, vec![tag(ls, a.case), tag(rs, b.case)]);
            if a.case != b.case {
                return Some(same_tag);
            }
            let pay = equality(
                &a.payload,
                &payload(ls, a.case),
                &b.payload,
                &payload(rs, b.case),
            )?;
            if *pay == smt::catala::TermNode::Bool(true) {
                return Some(same_tag);
            }
            Some(app(Op::And, vec![same_tag, pay]))
        }
        // The lengths of list inputs are on the path (recorded by `checked_operation`).
        (Value::List(a), Value::List(b)) | (Value::Tuple(a), Value::Tuple(b)) => {
            if a.len() != b.len() {
                return Some(bool_const(false));
            }
            let parts = |s: &Sym| match s {
                Sym::List(l) => l.items.to_vec(),
                Sym::Tuple(p) => p.to_vec(),
                _ => vec![Sym::Concrete; a.len()],
            };
            let (pa, pb) = (parts(ls), parts(rs));
            let mut conj = vec![bool_const(true)];
            for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                let sx = pa.get(i).cloned().unwrap_or_default();
                let sy = pb.get(i).cloned().unwrap_or_default();
                conj.push(equality(x, &sx, y, &sy)?);
            }
            Some(app(Op::And, conj))
        }
        (Value::Duration(_), Value::Duration(_)) => {
            symbolic_dates::defined_equality((lv, ls), (rv, rs))
        }
        _ => Some(app(Op::Eq, vec![scalar(lv, ls)?, scalar(rv, rs)?])),
    }
}

impl Companion for Sym {
    type Session = PathState;

    fn constant(_: &mut PathState, _: &Value) -> Sym {
        Sym::Concrete
    }

    fn unary(st: &mut PathState, op: UnaryOp, (v, s): (&Value, &Sym), _result: &Value) -> Sym {
        if s.is_concrete() {
            return Sym::Concrete;
        }
        if let (UnaryOp::Length, Sym::List(l)) = (op, s) {
            // A list's length is its length term, or fixed by the path.
            return match &l.len {
                Some((len, _)) => Sym::Scalar(len.clone()),
                None => Sym::Concrete,
            };
        }
        if let Some(r) = symbolic_dates::unary(op, v, s) {
            return r;
        }
        let Some(t) = scalar(v, s) else {
            st.lost(&format!("{op:?}"));
            return Sym::Concrete;
        };
        let div100 = |t: Term| app(Op::Div, vec![to_real(t), hundred_real()]);
        let r = match op {
            UnaryOp::Not => term::not(&t),
            UnaryOp::MinusInt | UnaryOp::MinusDec | UnaryOp::MinusMon | UnaryOp::MinusDur => {
                app(Op::Neg, vec![t])
            }
            UnaryOp::ToDecInt => to_real(t),
            UnaryOp::ToDecMon => div100(t),
            UnaryOp::ToIntDec => app(Op::Truncate, vec![t]),
            UnaryOp::ToIntMon => app(Op::Round, vec![div100(t)]),
            UnaryOp::ToMonDec => app(Op::Round, vec![app(Op::Mul, vec![t, hundred_real()])]),
            UnaryOp::ToMonInt => app(Op::Mul, vec![t, int_const("100")]),
            UnaryOp::RoundMon => app(
                Op::Mul,
                vec![app(Op::Round, vec![div100(t)]), int_const("100")],
            ),
            UnaryOp::RoundDec => to_real(app(Op::Round, vec![t])),
            _ => {
                st.lost(&format!("{op:?}"));
                return Sym::Concrete;
            }
        };
        Sym::Scalar(r)
    }

    fn binary(
        st: &mut PathState,
        op: BinaryOp,
        (lv, ls): (&Value, &Sym),
        (rv, rs): (&Value, &Sym),
        _result: &Value,
    ) -> Sym {
        if ls.is_concrete() && rs.is_concrete() {
            return Sym::Concrete;
        }
        match symbolic_dates::binary(op, (lv, ls), (rv, rs)) {
            Some(Handled::Result(r)) => return r,
            Some(Handled::Lost) => {
                st.lost(&format!("{op:?}"));
                return Sym::Concrete;
            }
            None => {}
        }
        if matches!(op, BinaryOp::Eq | BinaryOp::Neq) {
            return match equality(lv, ls, rv, rs) {
                Some(t) if op == BinaryOp::Eq => Sym::Scalar(t),
                Some(t) => Sym::Scalar(term::not(&t)),
                None => {
                    st.lost("equality");
                    Sym::Concrete
                }
            };
        }
        if op == BinaryOp::Concat {
            // The operands' lengths are on the path (recorded by `checked_operation`).
            let parts = |v: &Value, s: &Sym| match (v, s) {
                (_, Sym::List(l)) => l.items.to_vec(),
                (Value::List(items), _) => vec![Sym::Concrete; items.len()],
                _ => Vec::new(),
            };
            let mut all = parts(lv, ls);
            all.extend(parts(rv, rs));
            return Sym::list(all);
        }
        // A constant operand of `and`/`or` decides or disappears (trivial constraints).
        if matches!(op, BinaryOp::And | BinaryOp::Or) {
            let absorbing = op == BinaryOp::Or;
            for (cv, cs, other) in [(lv, ls, rs), (rv, rs, ls)] {
                if let (Sym::Concrete, Value::Bool(b)) = (cs, cv) {
                    return if *b == absorbing {
                        Sym::Concrete
                    } else {
                        other.clone()
                    };
                }
            }
        }
        let (Some(a), Some(b)) = (scalar(lv, ls), scalar(rv, rs)) else {
            st.lost(&format!("{op:?}"));
            return Sym::Concrete;
        };
        let r = match op {
            BinaryOp::And => app(Op::And, vec![a, b]),
            BinaryOp::Or => app(Op::Or, vec![a, b]),
            BinaryOp::Xor => app(Op::Xor, vec![a, b]),
            BinaryOp::AddIntInt
            | BinaryOp::AddDecDec
            | BinaryOp::AddMonMon
            | BinaryOp::AddDurDur
            | BinaryOp::AddDatDur(_) => app(Op::Add, vec![a, b]),
            BinaryOp::SubIntInt
            | BinaryOp::SubDecDec
            | BinaryOp::SubMonMon
            | BinaryOp::SubDurDur
            | BinaryOp::SubDatDat
            | BinaryOp::SubDatDur(_) => app(Op::Sub, vec![a, b]),
            BinaryOp::MultIntInt
            | BinaryOp::MultDecDec
            | BinaryOp::MultMonInt
            | BinaryOp::MultDurInt => app(Op::Mul, vec![a, b]),
            BinaryOp::MultMonDec => app(Op::Round, vec![app(Op::Mul, vec![to_real(a), b])]),
            BinaryOp::DivIntInt | BinaryOp::DivMonMon | BinaryOp::DivDurDur => {
                app(Op::Div, vec![to_real(a), to_real(b)])
            }
            BinaryOp::DivDecDec => app(Op::Div, vec![a, b]),
            BinaryOp::DivMonInt | BinaryOp::DivMonDec => {
                app(Op::Round, vec![app(Op::Div, vec![to_real(a), to_real(b)])])
            }
            BinaryOp::Lt(c) => cmp(Op::Lt, c, a, b),
            BinaryOp::Le(c) => cmp(Op::Le, c, a, b),
            BinaryOp::Gt(c) => cmp(Op::Gt, c, a, b),
            BinaryOp::Ge(c) => cmp(Op::Ge, c, a, b),
            BinaryOp::Eq | BinaryOp::Neq | BinaryOp::Concat => {
                st.lost(&format!("{op:?}"));
                return Sym::Concrete;
            }
        };
        Sym::Scalar(r)
    }

    fn compose(st: &mut PathState, kind: Composite, parts: Vec<Sym>, _result: &Value) -> Sym {
        if parts.iter().all(Sym::is_concrete) {
            return Sym::Concrete;
        }
        match kind {
            Composite::Struct { .. } | Composite::ScopeOutput { .. } => Sym::Struct(parts.into()),
            Composite::Tuple => Sym::Tuple(parts.into()),
            Composite::Enum { case, .. } => {
                let mut payloads = vec![Sym::Concrete; case as usize + 1];
                if let (Some(slot), Some(p)) = (payloads.get_mut(case as usize), parts.first()) {
                    *slot = p.clone();
                }
                Sym::Enum {
                    tag: int_const(case.to_string()),
                    payloads: payloads.into(),
                }
            }
            Composite::List => {
                let _ = st;
                Sym::list(parts)
            }
        }
    }

    fn project(st: &mut PathState, kind: Projection, (_, from): (&Value, &Sym), _r: &Value) -> Sym {
        match (kind, from) {
            (_, Sym::Concrete) => Sym::Concrete,
            (Projection::ListLength, Sym::List(l)) => match &l.len {
                Some((len, _)) => Sym::Scalar(len.clone()),
                None => Sym::Concrete,
            },
            (Projection::ListLength, _) => Sym::Concrete,
            (Projection::StructField(i), Sym::Struct(p))
            | (Projection::TupleElement(i), Sym::Tuple(p)) => {
                p.get(i as usize).cloned().unwrap_or_default()
            }
            (Projection::ListElement(i), Sym::List(l)) => {
                l.items.get(i as usize).cloned().unwrap_or_default()
            }
            (Projection::EnumPayload(c), Sym::Enum { payloads, .. }) => {
                payloads.get(c as usize).cloned().unwrap_or_default()
            }
            (Projection::IsCase(c), Sym::Enum { tag, .. }) => {
                Sym::Scalar(app(Op::Eq, vec![tag.clone(), int_const(c.to_string())]))
            }
            (k, _) => {
                st.lost(&format!("{k:?}"));
                Sym::Concrete
            }
        }
    }

    fn checked_operation(
        st: &mut PathState,
        op: BinaryOp,
        span: Span,
        lhs: (&Value, &Sym),
        rhs: (&Value, &Sym),
        succeeded: bool,
    ) {
        // Comparing or concatenating lists depends on their lengths.
        if matches!(op, BinaryOp::Eq | BinaryOp::Neq | BinaryOp::Concat) {
            st.record_lengths(lhs.0, lhs.1, span);
            st.record_lengths(rhs.0, rhs.1, span);
        }
        symbolic_dates::checked_operation(st, op, span, lhs, rhs, succeeded);
    }

    fn lazy_exceptions(st: &PathState) -> bool {
        st.lazy_exceptions
    }

    fn mark(st: &PathState) -> usize {
        st.constraints.len()
    }

    fn exception_failed(st: &mut PathState, exceptions_start: usize, exception_start: usize) {
        if st.early_conflicts && !st.assertion_failed {
            st.failed_exceptions
                .push((exceptions_start, exception_start));
        }
    }

    fn opaque_call(st: &mut PathState, args: &[&Sym]) {
        if args.iter().any(|a| !a.is_concrete()) {
            st.lost("external function or sort on symbolic values");
        }
    }

    fn branch(st: &mut PathState, event: BranchEvent<'_, Sym>) {
        match event {
            BranchEvent::If {
                span,
                condition,
                taken,
            } => st.record_condition(condition, taken, ConstraintOrigin::If, span),
            // A zero-width span marks the IR's own "is this context input given?" wrapper
            // (`catala_ir::context`), not a default term of the program: its decision is the
            // `ContextInput` constraint, and Catala's default calculus has no such term.
            BranchEvent::Justification { span, .. } if span.start == span.end => {}
            BranchEvent::Justification {
                span,
                condition,
                taken,
            } => st.record_condition(condition, taken, ConstraintOrigin::Justification, span),
            BranchEvent::ListCondition {
                span,
                condition,
                taken,
            } => st.record_condition(condition, taken, ConstraintOrigin::ListCondition, span),
            BranchEvent::ListLength { span, list, length } => {
                if let Sym::List(l) = list {
                    if let Some((len, max)) = &l.len {
                        st.record_length(len, *max, length, span);
                    }
                }
            }
            BranchEvent::Exceptions { span, non_empty } => {
                let _ = non_empty;
                if let Some((given, is_given)) = st.context_defaults.get(&span).cloned() {
                    // The first default term of the variable's declaration marks where its
                    // argument is read; whether it is given is known from the run's inputs.
                    let t = if is_given { given } else { term::not(&given) };
                    if st.context_seen.insert(span) {
                        let way = u32::from(is_given);
                        st.record(t, false, ConstraintOrigin::ContextInput, span, way);
                    } else if st.early_conflicts {
                        st.repeats.push((st.constraints.len(), t));
                    }
                }
            }
            BranchEvent::Match {
                span,
                scrutinee,
                case,
            } => {
                // A match is a chain of binary choices: not case 0, ..., not case k-1, case k
                // (the last case needs no equality: the domain of the case variable implies it).
                let Sym::Enum { tag, payloads } = scrutinee else {
                    st.record(bool_const(true), false, ConstraintOrigin::Match, span, 1);
                    return;
                };
                let is = |i: u32| app(Op::Eq, vec![tag.clone(), int_const(i.to_string())]);
                for i in 0..case {
                    let way = 2 * i;
                    st.record(term::not(&is(i)), false, ConstraintOrigin::Match, span, way);
                }
                if (case as usize) + 1 < payloads.len() {
                    let way = 2 * case + 1;
                    st.record(is(case), false, ConstraintOrigin::Match, span, way);
                }
            }
            BranchEvent::DivisionByZero {
                span,
                divisor,
                is_zero,
            } => {
                let t = match divisor {
                    Sym::Scalar(d) => {
                        let zero = if d.kind() == Kind::Real {
                            real_const("0", "1")
                        } else {
                            int_const("0")
                        };
                        app(Op::Eq, vec![d.clone(), zero])
                    }
                    _ => bool_const(is_zero),
                };
                let t = if is_zero { t } else { term::not(&t) };
                let way = u32::from(is_zero);
                st.record(t, false, ConstraintOrigin::Division, span, way);
            }
            BranchEvent::InputAssertion {
                span,
                condition,
                holds,
                explored_scope,
            } => {
                let t = match condition {
                    Sym::Scalar(t) => t.clone(),
                    _ => bool_const(holds),
                };
                st.input_assertions.push(span);
                // The explored scope's are among the explorer's global constraints (the input
                // space, in every query): not branches; only a starting input can fail one,
                // and the explorer then starts again from a model of the space. A called
                // scope's one depends on the path that computed its arguments: a branch,
                // whose failing side ends the path.
                if explored_scope {
                    st.input_assertion_terms.push(t.clone());
                    if !holds {
                        st.started_outside = true;
                    }
                } else if holds {
                    st.record(t.clone(), false, ConstraintOrigin::Assertion, span, 1);
                }
                if !holds {
                    st.record(term::not(&t), false, ConstraintOrigin::Assertion, span, 0);
                    st.assertion_failed = true;
                    st.outside_input_space = true;
                }
            }
            BranchEvent::Assertion { span, .. } if st.input_assertions.contains(&span) => {}
            BranchEvent::Assertion {
                span,
                condition,
                holds,
            } => {
                let t = match condition {
                    Sym::Scalar(t) => t.clone(),
                    _ => bool_const(holds),
                };
                // A failing assertion ends the run (an error outcome, as in Catala).
                st.record(
                    if holds { t } else { term::not(&t) },
                    false,
                    ConstraintOrigin::Assertion,
                    span,
                    u32::from(holds),
                );
                if !holds {
                    st.assertion_failed = true;
                }
            }
        }
    }
}

fn cmp(op: Op, _c: CmpType, a: Term, b: Term) -> Term {
    if a.kind() == Kind::Real || b.kind() == Kind::Real {
        app(op, vec![to_real(a), to_real(b)])
    } else {
        app(op, vec![a, b])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_condition_is_noted_at_its_first_constraint() {
        use smt::catala::{Kind, VarId};
        let at = |i: usize| Span::new(catala_syntax::FileId(0), i, i + 1);
        let x = term::var(VarId(0), Kind::Int);
        let zero = app(Op::Eq, vec![x.clone(), int_const("0")]);
        let one = app(Op::Eq, vec![x, int_const("1")]);
        let mut st = PathState::new(true);
        let origin = ConstraintOrigin::If;
        st.record(term::not(&zero), false, origin, at(1), 0);
        st.record(one.clone(), false, origin, at(2), 1);
        // `x = 0` does not hold again at 3 (way 0), and at 4 read as `x ≠ 0` holding (way 1);
        // met again at 3: noted once.
        st.record(term::not(&zero), false, origin, at(3), 0);
        st.record(term::not(&zero), false, origin, at(4), 1);
        st.record(term::not(&zero), false, origin, at(3), 0);
        // Met again at its own place (a loop): nothing to note.
        st.record(one, false, origin, at(2), 1);
        assert_eq!(st.constraints.len(), 2);
        assert_eq!(st.constraints[0].repeated_at, vec![(at(3), 0), (at(4), 1)]);
        assert!(st.constraints[1].repeated_at.is_empty());
        st.reset();
        st.record(term::not(&zero), false, origin, at(3), 0);
        assert!(st.constraints[0].repeated_at.is_empty());
    }

    #[test]
    fn day_numbers_round_trip() {
        let epoch = Date::new(1970, 1, 1);
        assert_eq!(epoch.map(|d| day_number(&d)), Some(0));
        let d = Date::new(2024, 2, 29);
        // 2024-02-29 is day 19782 since the epoch.
        assert_eq!(d.map(|d| day_number(&d)), Some(19_782));
        assert_eq!(date_of_day_number(19_782), d);
    }
}
