//! The symbolic encoding of dates and durations checked against the interpreter. Dates and
//! durations are drawn (with 29 February, the 31st of months, month and year ends over-drawn)
//! and each date operator is run twice: concretely by `catala_eval::eval::ops`, and through the
//! symbolic companion on operands that are solver variables. With the variables bound to the
//! drawn values, the path condition the companion records and its result term must admit the
//! interpreter's result and no other (Z3 proves "sat" for the interpreter's value and "unsat"
//! for any other, and for the other way of a failing operation), and the exact evaluation the
//! guesses use must agree: every case by the exact evaluation, which with every variable bound
//! computes each term's one value, one case in four by Z3 as well (the slower check). The
//! other way round, Z3 is asked for operands giving a drawn
//! result, and the interpreter run on the model Z3 returns must compute that result.

use catala_eval::eval::{ops, Companion};
use catala_eval::runtime::{Date, Duration, Value};
use catala_ir::dcalc::{BinaryOp, CmpType, DateRounding, UnaryOp};
use catala_syntax::Span;
use concolic::symbolic::{PathState, Sym};
use smt::catala::term::{app, bool_const, int_const, not, var, Kind, Op, Term, VarId};
use smt::catala::{CatalaSession, ModelValue, QueryOutcome};
use std::collections::BTreeMap;
use std::rc::Rc;

/// A small deterministic generator (xorshift64*).
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    fn date(&mut self) -> Date {
        let year = self.range(1900, 2199);
        let month = self.range(1, 12);
        let last = Date::new(year, month, 1)
            .map(|d| d.last_day_of_month().day as i64)
            .unwrap_or(28);
        let day = match self.below(6) {
            0 => 29.min(last),
            1 => last,
            2 => 1,
            _ => self.range(1, last),
        };
        let special = match self.below(10) {
            0 => Date::new(4 * self.range(475, 549), 2, 29),
            1 => Date::new(year, 12, 31),
            2 => Date::new(year, 1, 1),
            _ => None,
        };
        special
            .or_else(|| Date::new(year, month, day))
            .unwrap_or(Date {
                year,
                month: 1,
                day: 1,
            })
    }

    fn duration(&mut self) -> Duration {
        let small = |d: &mut Draw, w: i64| if d.below(3) == 0 { 0 } else { d.range(-w, w) };
        match self.below(4) {
            0 => Duration::new(0, 0, small(self, 400)),
            1 => Duration::new(small(self, 70), 0, 0),
            2 => Duration::new(0, small(self, 30), 0),
            _ => Duration::new(small(self, 5), small(self, 14), small(self, 40)),
        }
    }
}

fn int(n: i64) -> Term {
    int_const(n.to_string())
}

fn v(i: u32) -> Term {
    var(VarId(i), Kind::Int)
}

fn eq(a: &Term, b: &Term) -> Term {
    app(Op::Eq, vec![a.clone(), b.clone()])
}

/// A symbolic date (variable 0): a day number (`how` = 0), or a date whose parts the
/// companion carries: the day after variable 0 (`how` = 1) or the day before it (`how` = 2).
fn date_operand(d: &Date, how: u64) -> (Value, Sym, Term, i64) {
    let value = Value::Date(*d);
    let shift = match how {
        0 => 0,
        1 => 1,
        _ => -1,
    };
    let Some(base) = Date::from_day_number(d.day_number() - shift) else {
        panic!("no date before {d}")
    };
    let bind = eq(&v(0), &int(base.day_number()));
    if shift == 0 {
        return (value, Sym::Scalar(v(0)), bind, 0);
    }
    let mut st = PathState::new(true);
    let one_day = Value::Duration(Duration::new(0, 0, shift));
    let plus = BinaryOp::AddDatDur(DateRounding::Abort);
    let base_value = Value::Date(base);
    let s = Sym::binary(
        &mut st,
        plus,
        (&base_value, &Sym::Scalar(v(0))),
        (&one_day, &Sym::Concrete),
        &value,
    );
    assert!(
        matches!(s, Sym::Date(_)),
        "the parts of the next or previous day are carried"
    );
    (value, s, bind, shift)
}

/// A symbolic duration: variables 1, 2, 3 for its years, months and days (only the days for a
/// duration in days, the interpreter's inputs), or a constant.
fn duration_operand(d: &Duration, base: u32, how: u64) -> (Value, Sym, Vec<Term>) {
    let value = Value::Duration(*d);
    match how {
        0 => (value, Sym::Concrete, Vec::new()),
        1 if d.years == 0 && d.months == 0 => (
            value,
            Sym::Scalar(v(base + 2)),
            vec![eq(&v(base + 2), &int(d.days))],
        ),
        _ => (
            value,
            Sym::Duration(Rc::new([v(base), v(base + 1), v(base + 2)])),
            vec![
                eq(&v(base), &int(d.years)),
                eq(&v(base + 1), &int(d.months)),
                eq(&v(base + 2), &int(d.days)),
            ],
        ),
    }
}

/// What the result term of a value must equal.
fn result_equalities(value: &Value, sym: &Sym) -> Vec<(Term, Term)> {
    match (value, sym) {
        (_, Sym::Concrete) => Vec::new(),
        (Value::Bool(b), Sym::Scalar(t)) => vec![(t.clone(), bool_const(*b))],
        (Value::Integer(i), Sym::Scalar(t)) => vec![(t.clone(), int_const(i.to_string()))],
        (Value::Date(d), Sym::Scalar(t)) => vec![(t.clone(), int(d.day_number()))],
        (Value::Date(d), Sym::Date(p)) => vec![
            (p[0].clone(), int(d.day_number())),
            (p[1].clone(), int(d.year)),
            (p[2].clone(), int(i64::from(d.month))),
            (p[3].clone(), int(i64::from(d.day))),
        ],
        (Value::Duration(d), Sym::Scalar(t)) => {
            assert_eq!((d.years, d.months), (0, 0), "a scalar duration is in days");
            vec![(t.clone(), int(d.days))]
        }
        (Value::Duration(d), Sym::Duration(p)) => vec![
            (p[0].clone(), int(d.years)),
            (p[1].clone(), int(d.months)),
            (p[2].clone(), int(d.days)),
        ],
        other => panic!("unexpected result {other:?}"),
    }
}

/// Z3 without a time limit: an answer never depends on the machine's speed or load.
fn z3_only() -> CatalaSession {
    CatalaSession::new(None, false)
}

fn check(session: &mut CatalaSession, terms: &[Term]) -> QueryOutcome {
    match session.check_path(terms) {
        Ok(o) => o,
        Err(e) => panic!("encoding error {e}"),
    }
}

/// One drawn operation: its operands (value, companion), the bindings of their variables.
struct Case {
    binary: Option<BinaryOp>,
    unary: Option<UnaryOp>,
    operands: Vec<(Value, Sym)>,
    bindings: Vec<Term>,
    /// The date operand is variable 0 plus this many days.
    date_shift: i64,
}

fn draw_case(g: &mut Draw) -> Case {
    let roundings = [DateRounding::Abort, DateRounding::Up, DateRounding::Down];
    let how = g.below(3);
    let (dv, ds, dbind, date_shift) = date_operand(&g.date(), how);
    let kind = g.below(10);
    if kind < 3 {
        let op = [
            UnaryOp::GetDay,
            UnaryOp::GetMonth,
            UnaryOp::GetYear,
            UnaryOp::FirstDayOfMonth,
            UnaryOp::LastDayOfMonth,
        ][g.below(5) as usize];
        return Case {
            binary: None,
            unary: Some(op),
            operands: vec![(dv, ds)],
            bindings: vec![dbind],
            date_shift,
        };
    }
    if kind < 7 {
        let r = roundings[g.below(3) as usize];
        let op = if g.below(2) == 0 {
            BinaryOp::AddDatDur(r)
        } else {
            BinaryOp::SubDatDur(r)
        };
        let (uv, us, ubind) = duration_operand(&g.duration(), 1, 1 + g.below(2));
        let mut bindings = vec![dbind];
        bindings.extend(ubind);
        return Case {
            binary: Some(op),
            unary: None,
            operands: vec![(dv, ds), (uv, us)],
            bindings,
            date_shift,
        };
    }
    if kind == 7 {
        let other = g.date();
        let bind = eq(&v(4), &int(other.day_number()));
        return Case {
            binary: Some(BinaryOp::SubDatDat),
            unary: None,
            operands: vec![(dv, ds), (Value::Date(other), Sym::Scalar(v(4)))],
            bindings: vec![dbind, bind],
            date_shift,
        };
    }
    let op = [
        BinaryOp::Lt(CmpType::Duration),
        BinaryOp::Le(CmpType::Duration),
        BinaryOp::Gt(CmpType::Duration),
        BinaryOp::Ge(CmpType::Duration),
        BinaryOp::Eq,
        BinaryOp::Neq,
        BinaryOp::AddDurDur,
        BinaryOp::SubDurDur,
    ][g.below(8) as usize];
    let a = g.duration();
    // Equal durations now and then, written alike or not.
    let b = match g.below(4) {
        0 => a,
        1 => Duration::new(0, a.years * 12 + a.months, a.days),
        _ => g.duration(),
    };
    let (av, as_, abind) = duration_operand(&a, 1, 1 + g.below(2));
    let (bv, bs, bbind) = duration_operand(&b, 5, g.below(3));
    let mut bindings = abind;
    bindings.extend(bbind);
    Case {
        binary: Some(op),
        unary: None,
        operands: vec![(av, as_), (bv, bs)],
        bindings,
        date_shift: 0,
    }
}

/// Runs the operation concretely and symbolically: the interpreter's result (or `None` for an
/// error), the recorded path condition and the result's companion.
fn run(case: &Case) -> (Option<Value>, Vec<Term>, Sym) {
    let mut st = PathState::new(true);
    let span = Span::default();
    let (result, sym) = match (case.unary, case.binary) {
        (Some(op), _) => {
            let (x, xs) = &case.operands[0];
            match ops::apply_unary(op, x) {
                Ok(r) => {
                    let s = Sym::unary(&mut st, op, (x, xs), &r);
                    (Some(r), s)
                }
                Err(_) => (None, Sym::Concrete),
            }
        }
        (None, Some(op)) => {
            let ((x, xs), (y, ys)) = (&case.operands[0], &case.operands[1]);
            let r = ops::apply_binary(op, x, y);
            Sym::checked_operation(&mut st, op, span, (x, xs), (y, ys), r.is_ok());
            match r {
                Ok(r) => {
                    let s = Sym::binary(&mut st, op, (x, xs), (y, ys), &r);
                    (Some(r), s)
                }
                Err(_) => (None, Sym::Concrete),
            }
        }
        _ => unreachable!(),
    };
    assert!(st.incomplete.is_empty(), "lost: {:?}", st.incomplete);
    let path = st.constraints.iter().map(|c| c.term.clone()).collect();
    (result, path, sym)
}

/// The encoding's condition for the operation to succeed (`true` when it cannot fail).
fn success(case: &Case) -> Term {
    match (case.binary, case.operands.as_slice()) {
        (Some(op), [(x, xs), (y, ys)]) => {
            concolic::symbolic::date_success_condition(op, (x, xs), (y, ys))
                .unwrap_or_else(|| bool_const(true))
        }
        _ => bool_const(true),
    }
}

fn hints(bindings: &[Term]) -> BTreeMap<VarId, ModelValue> {
    bindings
        .iter()
        .filter_map(|b| match &**b {
            smt::catala::TermNode::App(Op::Eq, args) => match (&*args[0], &*args[1]) {
                (smt::catala::TermNode::Var(v, _), smt::catala::TermNode::Int(n)) => {
                    Some((*v, ModelValue::Int(n.clone())))
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Cases drawn; every case is checked by the exact evaluation, one in [`Z3_EVERY`] by Z3 too.
const CASES: usize = 1000;
const Z3_EVERY: usize = 4;

#[test]
fn encoded_operations_admit_exactly_the_interpreters_results() {
    let mut g = Draw(0x9E37_79B9_7F4A_7C15);
    let mut session = z3_only();
    let (mut errors, mut results) = (0, 0);
    for n in 0..CASES {
        let case = draw_case(&mut g);
        let (result, path, sym) = run(&case);
        let what = format!(
            "case {n}: {:?}{:?} on {:?}",
            case.unary, case.binary, case.operands
        );
        let by_z3 = n % Z3_EVERY == 0;
        // With every variable bound, the exact evaluation of the guesses computes each term's
        // one value: the conjunction holds exactly when each term has the value required.
        let exact = |terms: &[Term]| {
            let refs: Vec<&Term> = terms.iter().collect();
            smt::catala::guess::guess(&refs, &hints(&case.bindings), &[]).is_some()
        };
        let with = |extra: &[Term]| {
            let mut t = case.bindings.clone();
            t.extend(extra.iter().cloned());
            t
        };
        let ok = success(&case);
        match result {
            None => {
                errors += 1;
                // The encoding's success condition is false on these operands; the failing way
                // was recorded unless the failure does not depend on the variables.
                assert!(
                    exact(&with(&[not(&ok)])),
                    "{what}: exact evaluation disagrees"
                );
                if by_z3 {
                    let q = with(std::slice::from_ref(&ok));
                    assert_eq!(check(&mut session, &q), QueryOutcome::Unsat, "{what}");
                }
                if ok.is_ground() {
                    assert!(path.is_empty(), "{what}: {path:?}");
                } else {
                    assert_eq!(path.len(), 1, "{what}: {path:?}");
                    assert!(exact(&with(&path)), "{what}: exact evaluation disagrees");
                    if by_z3 {
                        let q = with(&path);
                        assert_eq!(check(&mut session, &q), QueryOutcome::Sat, "{what}");
                    }
                }
            }
            Some(value) => {
                results += 1;
                let eqs = result_equalities(&value, &sym);
                let mut holds = with(&path);
                holds.push(ok.clone());
                for (t, expected) in &eqs {
                    holds.push(eq(t, expected));
                }
                // The interpreter's result is admitted, by the exact evaluation and by Z3.
                assert!(exact(&holds), "{what}: exact evaluation disagrees");
                if !by_z3 {
                    continue;
                }
                assert_eq!(check(&mut session, &holds), QueryOutcome::Sat, "{what}");
                // No other result is, and the operation cannot fail on these operands.
                for (t, expected) in &eqs {
                    let mut other = with(&path);
                    other.push(not(&eq(t, expected)));
                    assert_eq!(check(&mut session, &other), QueryOutcome::Unsat, "{what}");
                }
                for c in path.iter().chain([&ok]) {
                    let other = with(&[not(c)]);
                    assert_eq!(check(&mut session, &other), QueryOutcome::Unsat, "{what}");
                }
            }
        }
    }
    // Both outcomes are well represented.
    assert!(
        errors > CASES / 50 && results > CASES / 2,
        "{errors} {results}"
    );
}

#[test]
fn models_of_encoded_results_are_computed_by_the_interpreter() {
    // Z3 chooses the operands (date in 1900–2199, durations bounded) giving the drawn result of
    // `date + duration`; the interpreter, run on that model, must compute that result.
    let mut g = Draw(0xD1B5_4A32_D192_ED03);
    let mut session = z3_only();
    let mut checked = 0;
    for n in 0..100 {
        let case = loop {
            let c = draw_case(&mut g);
            if matches!(
                c.binary,
                Some(BinaryOp::AddDatDur(_) | BinaryOp::SubDatDur(_))
            ) {
                break c;
            }
        };
        let (result, path, sym) = run(&case);
        let Some(value) = result else { continue };
        let Some(op) = case.binary else { continue };
        let mut query: Vec<Term> = vec![
            app(Op::Ge, vec![v(0), int(-25_567)]),
            app(Op::Le, vec![v(0), int(84_005)]),
        ];
        // Durations of at most 80 years, 100 months and 1000 days: the dates stay within the
        // years Z3 reads from tables (1700–2500).
        for (i, bound) in [(1, 80), (2, 100), (3, 1000)] {
            query.push(app(Op::Ge, vec![v(i), int(-bound)]));
            query.push(app(Op::Le, vec![v(i), int(bound)]));
        }
        query.extend(path);
        for (t, expected) in result_equalities(&value, &sym) {
            query.push(eq(&t, &expected));
        }
        assert_eq!(
            check(&mut session, &query),
            QueryOutcome::Sat,
            "case {n}: {:?} {:?}",
            case.operands,
            case.binary
        );
        let num = |i: u32| match session.value(VarId(i), Kind::Int) {
            Some(ModelValue::Int(s)) => s.parse::<i64>().unwrap_or(0),
            _ => 0,
        };
        let Some(date) = Date::from_day_number(num(0) + case.date_shift) else {
            panic!("case {n}: model date out of range")
        };
        let duration = match &case.operands[1].1 {
            Sym::Concrete => match case.operands[1].0 {
                Value::Duration(d) => d,
                _ => unreachable!(),
            },
            Sym::Scalar(_) => Duration::new(0, 0, num(3)),
            _ => Duration::new(num(1), num(2), num(3)),
        };
        let got = ops::apply_binary(op, &Value::Date(date), &Value::Duration(duration));
        match (got, &value) {
            (Ok(Value::Date(a)), Value::Date(b)) => {
                assert_eq!(a, *b, "case {n}: {date} {duration:?} {op:?}")
            }
            other => panic!("case {n}: {date} {duration:?} {op:?}: {other:?}"),
        }
        checked += 1;
    }
    assert!(checked > 50, "{checked}");
}
