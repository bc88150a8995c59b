//! Conditions derived by hand from small sets of path conditions, and a check, over every point
//! of a small input space, that the simplified condition holds exactly where one of the path
//! conditions holds.

use explain::numset::NumSet;
use explain::{explain, Condition, Constraint, Inputs, PlainFormat, Unit, VarInfo};
use num_bigint::BigInt;
use num_rational::BigRational;
use smt::catala::term::{app, int_const, not, real_const, var};
use smt::catala::{Kind, Op, Term, VarId};

fn int(v: u32) -> Term {
    var(VarId(v), Kind::Int)
}
fn flag(v: u32) -> Term {
    var(VarId(v), Kind::Bool)
}
fn k(n: i64) -> Term {
    int_const(n.to_string())
}
fn cmp(op: Op, a: Term, b: Term) -> Term {
    app(op, vec![a, b])
}
fn info(name: &str, unit: Unit) -> VarInfo {
    VarInfo {
        name: name.into(),
        unit,
    }
}
fn lines(c: &Condition) -> Vec<String> {
    c.lines(&PlainFormat)
}

#[test]
fn a_moved_money_threshold_reads_as_one_band() {
    let inputs = Inputs::new([(VarId(0), info("income", Unit::Money))], &[]);
    // income > $20,000 and income <= $22,000, found on two paths split at $21,000.
    let paths = vec![
        vec![
            cmp(Op::Gt, int(0), k(2_000_000)),
            cmp(Op::Le, int(0), k(2_100_000)),
        ],
        vec![
            cmp(Op::Gt, int(0), k(2_100_000)),
            cmp(Op::Le, int(0), k(2_200_000)),
        ],
    ];
    let c = explain(&paths, &inputs);
    assert_eq!(lines(&c), ["$20,000.00 < income <= $22,000.00"]);
    assert_eq!(c.paths, 2);
}

#[test]
fn a_branch_taken_both_ways_disappears() {
    let inputs = Inputs::new(
        [
            (VarId(0), info("disabled", Unit::Bool)),
            (VarId(1), info("children", Unit::Integer)),
        ],
        &[cmp(Op::Ge, int(1), k(0))],
    );
    let paths = vec![
        vec![flag(0), cmp(Op::Ge, int(1), k(3))],
        vec![not(&flag(0)), cmp(Op::Ge, int(1), k(3))],
    ];
    assert_eq!(lines(&explain(&paths, &inputs)), ["children >= 3"]);
}

#[test]
fn the_issue_example_zone_single_parent_and_children() {
    let zone = Unit::Choice(vec!["Plain".into(), "Mountain".into(), "Coast".into()]);
    let inputs = Inputs::new(
        [
            (VarId(0), info("zone", zone)),
            (VarId(1), info("single_parent", Unit::Bool)),
            (VarId(2), info("children", Unit::Integer)),
            (VarId(3), info("income", Unit::Money)),
        ],
        &[
            cmp(Op::Ge, int(0), k(0)),
            cmp(Op::Le, int(0), k(2)),
            cmp(Op::Ge, int(2), k(0)),
        ],
    );
    let base = || {
        vec![
            cmp(Op::Eq, int(0), k(1)),
            flag(1),
            cmp(Op::Ge, int(2), k(2)),
        ]
    };
    let mut low = base();
    low.push(cmp(Op::Lt, int(3), k(100_000)));
    let mut high = base();
    high.push(not(&cmp(Op::Lt, int(3), k(100_000))));
    // Children split as 2 and more than 2 on the two sides.
    high.push(cmp(Op::Gt, int(2), k(2)));
    let mut two = base();
    two.push(not(&cmp(Op::Lt, int(3), k(100_000))));
    two.push(cmp(Op::Le, int(2), k(2)));
    let c = explain(&[low, high, two], &inputs);
    assert_eq!(
        lines(&c),
        ["zone = Mountain and single_parent and children >= 2"]
    );
}

#[test]
fn one_case_widens_into_another() {
    let inputs = Inputs::new(
        [
            (VarId(0), info("x", Unit::Integer)),
            (VarId(1), info("y", Unit::Bool)),
        ],
        &[],
    );
    let paths = vec![
        vec![flag(1)],
        vec![cmp(Op::Lt, int(0), k(5)), not(&flag(1))],
    ];
    assert_eq!(lines(&explain(&paths, &inputs)), ["either y", "or x <= 4"]);
}

#[test]
fn dates_read_as_dates_and_the_explored_range_is_not_printed() {
    // Day numbers: 1900-01-01 is −25,567, 2199-12-31 is 83,966, 2025-07-01 is 20,270.
    let inputs = Inputs::new(
        [(VarId(0), info("claim_date", Unit::Date))],
        &[
            cmp(Op::Ge, int(0), k(-25_567)),
            cmp(Op::Le, int(0), k(83_966)),
        ],
    );
    let after = explain(&[vec![cmp(Op::Ge, int(0), k(20_270))]], &inputs);
    assert_eq!(lines(&after), ["claim_date >= 2025-07-01"]);
    let before = explain(&[vec![cmp(Op::Lt, int(0), k(20_270))]], &inputs);
    assert_eq!(lines(&before), ["claim_date < 2025-07-01"]);
    let everywhere = explain(
        &[
            vec![cmp(Op::Lt, int(0), k(20_270))],
            vec![cmp(Op::Ge, int(0), k(20_270))],
        ],
        &inputs,
    );
    assert!(everywhere.is_always());
    assert_eq!(lines(&everywhere), ["always"]);
}

#[test]
fn constraints_over_several_inputs_read_in_units() {
    let inputs = Inputs::new(
        [
            (VarId(0), info("rent", Unit::Money)),
            (VarId(1), info("income", Unit::Money)),
        ],
        &[],
    );
    // rent − income / 4 > $200, in cents: rent − income/4 − 20,000 > 0.
    let quarter = app(
        Op::Div,
        vec![app(Op::ToReal, vec![int(1)]), real_const("4", "1")],
    );
    let burden = app(Op::Sub, vec![app(Op::ToReal, vec![int(0)]), quarter]);
    let t = cmp(Op::Gt, burden, real_const("20000", "1"));
    assert_eq!(
        lines(&explain(&[vec![t.clone()]], &inputs)),
        ["rent - 0.25 * income > 200"]
    );
    // Its two sides merge away.
    assert!(explain(&[vec![t.clone()], vec![not(&t)]], &inputs).is_always());
    assert_eq!(
        lines(&explain(&[vec![not(&t)]], &inputs)),
        ["rent - 0.25 * income <= 200"]
    );
}

#[test]
fn contradictory_paths_are_left_out() {
    let inputs = Inputs::new([(VarId(0), info("x", Unit::Integer))], &[]);
    let c = explain(
        &[vec![cmp(Op::Lt, int(0), k(3)), cmp(Op::Gt, int(0), k(5))]],
        &inputs,
    );
    assert_eq!(lines(&c), ["never"]);
    let single = explain(&[vec![cmp(Op::Eq, int(0), k(4))]], &inputs);
    assert_eq!(lines(&single), ["x = 4"]);
}

#[test]
fn a_constraint_over_a_date_and_an_enumeration_is_read_case_by_case() {
    // Which monthly minimum applies: by date range and by place of residence (SMIC-like).
    let places = Unit::Choice(vec!["Metropole".into(), "Reunion".into(), "Mayotte".into()]);
    let inputs = Inputs::new(
        [
            (VarId(0), info("today", Unit::Integer)),
            (VarId(1), info("residence", places)),
        ],
        &[cmp(Op::Ge, int(1), k(0)), cmp(Op::Le, int(1), k(2))],
    );
    let range = |lo: i64, hi: i64| {
        app(
            Op::And,
            vec![cmp(Op::Ge, int(0), k(lo)), cmp(Op::Lt, int(0), k(hi))],
        )
    };
    let not_mayotte = app(
        Op::Or,
        vec![cmp(Op::Eq, int(1), k(0)), cmp(Op::Eq, int(1), k(1))],
    );
    let mayotte = cmp(Op::Eq, int(1), k(2));
    // No rule applies: for every place, today is before 100 (no earlier rule exists).
    let no_value = vec![
        not(&app(Op::And, vec![range(100, 200), not_mayotte.clone()])),
        not(&app(Op::And, vec![range(100, 200), mayotte.clone()])),
        not(&app(
            Op::And,
            vec![cmp(Op::Ge, int(0), k(200)), not_mayotte.clone()],
        )),
        not(&app(
            Op::And,
            vec![cmp(Op::Ge, int(0), k(200)), mayotte.clone()],
        )),
    ];
    assert_eq!(lines(&explain(&[no_value], &inputs)), ["today < 100"]);
    // A conflict in Mayotte from 150 to 200: the earlier ranges' rules are ruled out.
    let conflict = vec![
        cmp(Op::Ge, int(0), k(150)),
        cmp(Op::Lt, int(0), k(200)),
        mayotte,
        not(&app(Op::And, vec![range(0, 100), not_mayotte])),
    ];
    assert_eq!(
        lines(&explain(&[conflict], &inputs)),
        ["150 <= today < 200 and residence = Mayotte"]
    );
}

// ---- exactness over a small space -------------------------------------------------------

/// x, y in 0..=9, b a flag, z one of three cases.
fn small_inputs() -> Inputs {
    Inputs::new(
        [
            (VarId(0), info("x", Unit::Integer)),
            (VarId(1), info("y", Unit::Integer)),
            (VarId(2), info("b", Unit::Bool)),
            (
                VarId(3),
                info("z", Unit::Choice(vec!["A".into(), "B".into(), "C".into()])),
            ),
        ],
        &[
            cmp(Op::Ge, int(0), k(0)),
            cmp(Op::Le, int(0), k(9)),
            cmp(Op::Ge, int(1), k(0)),
            cmp(Op::Le, int(1), k(9)),
        ],
    )
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

fn random_literal(r: &mut Lcg) -> Term {
    if r.next(4) == 0 {
        // A constraint over two inputs: a conjunction or disjunction of two simple ones.
        let op = if r.next(2) == 0 { Op::And } else { Op::Or };
        let lit = app(op, vec![simple_literal(r), simple_literal(r)]);
        return if r.next(2) == 0 { not(&lit) } else { lit };
    }
    simple_literal(r)
}

fn simple_literal(r: &mut Lcg) -> Term {
    let lit = match r.next(4) {
        0 | 1 => {
            let v = int(r.next(2) as u32);
            let c = k(r.next(10) as i64);
            let op = [Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq][r.next(5) as usize];
            cmp(op, v, c)
        }
        2 => flag(2),
        _ => cmp(Op::Eq, int(3), k(r.next(3) as i64)),
    };
    if r.next(2) == 0 {
        not(&lit)
    } else {
        lit
    }
}

fn eval_term(t: &Term, p: &[i64; 4]) -> i64 {
    use smt::catala::TermNode;
    match &**t {
        TermNode::Var(v, _) => p[v.0 as usize],
        TermNode::Int(s) => s.parse().unwrap_or(0),
        TermNode::Bool(b) => *b as i64,
        TermNode::App(op, a) => {
            let x = eval_term(&a[0], p);
            let y = a.get(1).map(|b| eval_term(b, p)).unwrap_or(0);
            match op {
                Op::Not => 1 - x,
                Op::And => a.iter().all(|b| eval_term(b, p) == 1) as i64,
                Op::Or => a.iter().any(|b| eval_term(b, p) == 1) as i64,
                Op::Lt => (x < y) as i64,
                Op::Le => (x <= y) as i64,
                Op::Gt => (x > y) as i64,
                Op::Ge => (x >= y) as i64,
                Op::Eq => (x == y) as i64,
                _ => unreachable!("not generated"),
            }
        }
        TermNode::Real(..) => unreachable!("not generated"),
    }
}

fn in_set(set: &NumSet, v: i64) -> bool {
    let q = BigRational::from_integer(BigInt::from(v));
    set.parts.iter().any(|i| {
        i.lo.as_ref().is_none_or(|b| {
            if b.inclusive {
                q >= b.value
            } else {
                q > b.value
            }
        }) && i.hi.as_ref().is_none_or(|b| {
            if b.inclusive {
                q <= b.value
            } else {
                q < b.value
            }
        })
    })
}

fn holds(c: &Condition, p: &[i64; 4]) -> bool {
    let names = ["A", "B", "C"];
    c.cases.iter().any(|case| {
        case.constraints.iter().all(|k| match k {
            Constraint::Flag { value, .. } => (p[2] == 1) == *value,
            Constraint::Choice { cases, .. } => cases.iter().any(|n| n == names[p[3] as usize]),
            Constraint::Range { input, set, .. } => {
                in_set(set, if input == "x" { p[0] } else { p[1] })
            }
            Constraint::Other { text } => unreachable!("no multi-input literal: {text}"),
        })
    })
}

#[test]
fn simplified_conditions_hold_exactly_where_a_path_condition_holds() {
    let inputs = small_inputs();
    let mut r = Lcg(7);
    let mut shrunk = 0;
    for _ in 0..300 {
        let paths: Vec<Vec<Term>> = (0..1 + r.next(12))
            .map(|_| (0..1 + r.next(4)).map(|_| random_literal(&mut r)).collect())
            .collect();
        let c = explain(&paths, &inputs);
        let mut points = 0;
        for x in 0..10 {
            for y in 0..10 {
                for b in 0..2 {
                    for z in 0..3 {
                        let p = [x, y, b, z];
                        let original = paths
                            .iter()
                            .any(|path| path.iter().all(|t| eval_term(t, &p) == 1));
                        assert_eq!(original, holds(&c, &p), "{paths:?} at {p:?}: {c:?}");
                        points += 1;
                    }
                }
            }
        }
        assert_eq!(points, 600);
        if c.cases.len() < paths.len() {
            shrunk += 1;
        }
    }
    // The rewriting does something: most random disjunctions get fewer cases.
    assert!(shrunk > 150, "{shrunk}");
}

#[test]
fn a_collector_fed_path_by_path_gives_the_same_condition() {
    fn send<T: Send + Sync>(_: &T) {}
    let inputs = std::sync::Arc::new(small_inputs());
    let mut r = Lcg(11);
    let paths: Vec<Vec<Term>> = (0..500)
        .map(|_| (0..1 + r.next(4)).map(|_| random_literal(&mut r)).collect())
        .collect();
    let mut collector = explain::Collector::default();
    send(&collector);
    for p in &paths {
        let case = explain::PathCase::of(p, &inputs);
        send(&case);
        collector.add(case);
    }
    let gathered = collector.condition();
    assert_eq!(gathered.paths, 500);
    for x in 0..10 {
        for y in 0..10 {
            for b in 0..2 {
                for z in 0..3 {
                    let p = [x, y, b, z];
                    let original = paths
                        .iter()
                        .any(|path| path.iter().all(|t| eval_term(t, &p) == 1));
                    assert_eq!(original, holds(&gathered, &p), "at {p:?}");
                }
            }
        }
    }
    // 500 random conjunctions over this space cover all of it.
    assert!(gathered.is_always(), "{:?}", gathered.lines(&PlainFormat));
}

/// A duration compared with months is encoded as a conditional on its day part: `if days = 0
/// then 12 * years + months >= 1 else …` (a duration with days is compared day-wise). On a
/// path where the days are 0, the condition keeps the first branch only, with integer
/// coefficients kept whole (not `years + 1/12 * months >= 1/12`); over whole numbers
/// `>= 1` is `> 0`, the rounder bound.
#[test]
fn a_conditional_decided_by_the_case_keeps_its_branch() {
    let inputs = Inputs::new(
        [
            (VarId(0), info("years of length", Unit::Count)),
            (VarId(1), info("months of length", Unit::Count)),
            (VarId(2), info("days of length", Unit::Count)),
        ],
        &[],
    );
    let months = app(Op::Add, vec![app(Op::Mul, vec![k(12), int(0)]), int(1)]);
    let at_least_a_month = app(
        Op::Ite,
        vec![
            cmp(Op::Eq, int(2), k(0)),
            cmp(Op::Ge, months, k(1)),
            cmp(Op::Ge, int(2), k(30)),
        ],
    );
    let c = explain(
        &[vec![cmp(Op::Eq, int(2), k(0)), at_least_a_month]],
        &inputs,
    );
    assert_eq!(
        lines(&c),
        ["days of length = 0 and 12 * years of length + months of length > 0"]
    );
}

/// Comparisons of one linear form with constants merge into a range as an input's do: a
/// contract length (in months: `12 * years + months`) outside [1, 4), [4, 8), [8, 12) and
/// [12, ∞) is below one month: `12 * years + months < 1`, i.e. `<= 0` over whole numbers.
#[test]
fn comparisons_of_one_linear_form_merge_into_a_range() {
    let inputs = Inputs::new(
        [
            (VarId(0), info("years of length", Unit::Count)),
            (VarId(1), info("months of length", Unit::Count)),
        ],
        &[],
    );
    let length = || app(Op::Add, vec![app(Op::Mul, vec![k(12), int(0)]), int(1)]);
    let band = |lo: i64, hi: i64| {
        app(
            Op::And,
            vec![cmp(Op::Ge, length(), k(lo)), cmp(Op::Lt, length(), k(hi))],
        )
    };
    let path = vec![
        not(&band(1, 4)),
        not(&band(4, 8)),
        not(&band(8, 12)),
        not(&cmp(Op::Ge, length(), k(12))),
    ];
    let c = explain(&[path], &inputs);
    assert_eq!(lines(&c), ["12 * years of length + months of length <= 0"]);
    // Two paths on either side of 4 months merge into one band: [1, 8), written with the
    // rounder bounds over whole numbers, `0 < … <= 7`.
    let c = explain(&[vec![band(1, 4)], vec![band(4, 8)]], &inputs);
    assert_eq!(
        lines(&c),
        ["0 < 12 * years of length + months of length <= 7"]
    );
}

/// An enumeration's case inside a constraint over several inputs reads by its name.
#[test]
fn an_enumeration_case_inside_a_constraint_reads_by_name() {
    let inputs = Inputs::new(
        [
            (
                VarId(0),
                info(
                    "working_time",
                    Unit::Choice(vec!["FullTime".into(), "PartTime".into()]),
                ),
            ),
            (VarId(1), info("months", Unit::Integer)),
            (VarId(2), info("weeks", Unit::Integer)),
        ],
        &[],
    );
    // not (months < 2 and working_time = PartTime) or weeks > months: over three inputs.
    let t = app(
        Op::Or,
        vec![
            app(
                Op::And,
                vec![cmp(Op::Lt, int(1), k(2)), cmp(Op::Eq, int(0), k(1))],
            ),
            cmp(Op::Gt, int(2), int(1)),
        ],
    );
    let text = lines(&explain(&[vec![t]], &inputs)).join(" | ");
    assert!(text.contains("working_time = PartTime"), "{text}");
    assert!(!text.contains("working_time = 1"), "{text}");
}

/// A date inside a constraint over several inputs reads as a date, not as its day number
/// (19,875 days after 1970-01-01 is 2024-06-01).
#[test]
fn a_date_inside_a_constraint_reads_as_a_date() {
    let inputs = Inputs::new(
        [
            (VarId(0), info("claim_date", Unit::Date)),
            (VarId(1), info("children", Unit::Integer)),
        ],
        &[],
    );
    let t = not(&app(
        Op::And,
        vec![cmp(Op::Ge, int(0), k(19_875)), cmp(Op::Ge, int(1), k(2))],
    ));
    let text = lines(&explain(&[vec![t]], &inputs)).join(" | ");
    assert!(text.contains("claim_date >= |2024-06-01|"), "{text}");
    assert!(!text.contains("19875"), "{text}");
}
