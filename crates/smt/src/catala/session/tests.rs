//! Tests of the assembled chain through its facade: which layer answers, the budget of a
//! query, Z3's answers and the refinement of its models.

use super::*;
use crate::catala::term::{app, int_const, real_const, var};
use crate::catala::{Preferences, Preferred};
use std::time::{Duration, Instant};

fn int(v: u32) -> Term {
    var(VarId(v), Kind::Int)
}

fn read(s: &CatalaSession, v: u32) -> i64 {
    match s.value(VarId(v), Kind::Int) {
        Some(ModelValue::Int(n)) => n.parse::<i64>().unwrap_or(0),
        other => panic!("{other:?}"),
    }
}

/// x³ = 2y³ + 4z³ over positives below 1,000: unsatisfiable (by descent), and Z3 4.8 spends
/// about 20 s on it before using up the incremental solver's resource limit.
pub(crate) fn cubes() -> Vec<Term> {
    let cube = |i: u32| app(Op::Mul, vec![int(i), int(i), int(i)]);
    let mut path: Vec<Term> = (0..3)
        .map(|i| app(Op::Gt, vec![int(i), int_const("0")]))
        .collect();
    path.push(app(Op::Lt, vec![int(0), int_const("1000")]));
    path.push(app(
        Op::Eq,
        vec![
            cube(0),
            app(
                Op::Add,
                vec![
                    app(Op::Mul, vec![int_const("2"), cube(1)]),
                    app(Op::Mul, vec![int_const("4"), cube(2)]),
                ],
            ),
        ],
    ));
    path
}

#[test]
fn each_answer_names_the_layer_that_gave_it() {
    let mut s = CatalaSession::from_config(ChainConfig {
        incremental: true,
        finite: Some(vec![VarId(5)]),
        guesses: Some(vec![VarId(5)]),
        ..ChainConfig::default()
    });
    // One variable against a constant: the finite layer, with its model.
    let simple = app(Op::Gt, vec![int(0), int_const("3")]);
    let a = s.ask(&[simple]).ok();
    assert_eq!(
        a.map(|a| (a.outcome, a.layer)),
        Some((QueryOutcome::Sat, Layer::Finite))
    );
    assert_eq!(
        s.value(VarId(0), Kind::Int),
        Some(ModelValue::Int("4".into()))
    );
    // x > 3 ∧ x < 2: unsatisfiable, still without Z3.
    let none = [
        app(Op::Gt, vec![int(0), int_const("3")]),
        app(Op::Lt, vec![int(0), int_const("2")]),
    ];
    let a = s.ask(&none).ok();
    assert_eq!(
        a.map(|a| (a.outcome, a.layer)),
        Some((QueryOutcome::Unsat, Layer::Finite))
    );
    // x + y = 10 (arithmetic: not the finite fragment) holds at the last inputs: a guess.
    s.remember([
        (VarId(0), ModelValue::Int("4".into())),
        (VarId(1), ModelValue::Int("6".into())),
    ]);
    let sum = app(
        Op::Eq,
        vec![app(Op::Add, vec![int(0), int(1)]), int_const("10")],
    );
    let a = s.ask(std::slice::from_ref(&sum)).ok();
    assert_eq!(
        a.map(|a| (a.outcome, a.layer)),
        Some((QueryOutcome::Sat, Layer::Guess))
    );
    assert_eq!(read(&s, 0) + read(&s, 1), 10);
    // The money variable 5 is left to Z3 by both: x · 5 = 391 with x > 1 and 5 > 1.
    let product = [
        app(Op::Gt, vec![int(0), int_const("1")]),
        app(Op::Gt, vec![int(5), int_const("1")]),
        app(
            Op::Eq,
            vec![app(Op::Mul, vec![int(0), int(5)]), int_const("391")],
        ),
    ];
    let a = s.ask(&product).ok();
    assert_eq!(
        a.map(|a| (a.outcome, a.layer)),
        Some((QueryOutcome::Sat, Layer::Z3))
    );
    assert_eq!(read(&s, 0) * read(&s, 5), 391);
    let st = s.stats();
    assert_eq!(st.path_queries, 4);
    assert_eq!((st.fast_queries, st.guessed_queries), (3, 1));
    assert_eq!(st.of(Layer::Finite).sat + st.of(Layer::Finite).unsat, 2);
    assert_eq!(st.of(Layer::Guess).answers(), 1);
    assert_eq!(st.of(Layer::Z3).sat, 1);
    assert_eq!(st.of(Layer::Z3Fresh).answers(), 0);
}

#[test]
fn without_the_first_layers_z3_answers_everything() {
    let mut s = CatalaSession::new(None, true);
    let simple = app(Op::Gt, vec![int(0), int_const("3")]);
    let a = s.ask(&[simple]).ok();
    assert_eq!(a.map(|a| a.layer), Some(Layer::Z3));
    assert_eq!(s.stats().fast_queries, 0);
}

#[test]
fn the_query_timeout_bounds_the_whole_query() {
    // With a 0.5 s budget, the incremental check runs until the watchdog ends it at the
    // budget's end; the fresh solver (which, with a per-check limit, would have had another
    // 0.5 s) is not asked.
    let mut s = CatalaSession::new(Some(500), true);
    let start = Instant::now();
    let a = s.ask(&cubes()).ok();
    assert_eq!(
        a.map(|a| (a.outcome, a.layer)),
        Some((QueryOutcome::Unknown, Layer::Z3))
    );
    assert_eq!(s.stats().fresh_queries, 0);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    // The session goes on: the next query is answered.
    let easy = vec![app(Op::Gt, vec![int(0), int_const("3")])];
    assert_eq!(s.check_path(&easy).ok(), Some(QueryOutcome::Sat));
}

#[test]
fn a_runaway_incremental_check_is_cut_by_time_and_goes_to_the_fresh_solver() {
    // Z3 takes about 20 s on `cubes` before its resource limit ends the incremental check.
    // With a budget of twice the cap, the check is interrupted at the cap and the fresh
    // solver gets the rest of the budget; without the cap, the check would have run to the
    // budget's end and the fresh solver would never have seen the query (as in the test
    // above). On a machine fast enough to reach the resource limit first, the query goes to
    // the fresh solver all the same.
    let cap = crate::catala::z3_incremental::INCREMENTAL_TIME_CAP;
    let budget = u32::try_from(2 * cap.as_millis()).unwrap_or(u32::MAX);
    let mut s = CatalaSession::new(Some(budget), true);
    let start = Instant::now();
    let a = s.ask(&cubes()).ok();
    assert_eq!(a.map(|a| a.layer), Some(Layer::Z3Fresh));
    assert_eq!(s.stats().fresh_queries, 1);
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_spent_budget_or_a_raised_stop_flag_asks_z3_nothing() {
    let mut s = CatalaSession::new(Some(60_000), true);
    let easy = vec![app(Op::Gt, vec![int(0), int_const("3")])];
    let spent = Budget::until(Instant::now());
    let a = s.ask_within(&easy, spent).ok();
    assert_eq!(a.map(|a| a.outcome), Some(QueryOutcome::Unknown));
    assert_eq!(s.z3.borrow().solver_time, Duration::ZERO);
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let mut s = CatalaSession::new(Some(60_000), true);
    s.stop_at(crate::Stop {
        deadline: None,
        flag: Some(flag),
    });
    assert_eq!(s.check_path(&easy).ok(), Some(QueryOutcome::Unknown));
    assert!(s.stopped());
    assert_eq!(s.stats().fresh_queries, 0);
}

#[test]
fn rounding_is_half_away_from_zero() {
    // round(x) = -3 with x = -5/2 exactly: only possible if -2.5 rounds to -3.
    let mut s = CatalaSession::new(None, true);
    let x = var(VarId(0), Kind::Real);
    let is_half = app(Op::Eq, vec![x.clone(), real_const("-5", "2")]);
    let rounds_to = |k: &str| app(Op::Eq, vec![app(Op::Round, vec![x.clone()]), int_const(k)]);
    assert_eq!(
        s.check_path(&[is_half.clone(), rounds_to("-3")]).ok(),
        Some(QueryOutcome::Sat)
    );
    assert_eq!(
        s.check_path(&[is_half.clone(), rounds_to("-2")]).ok(),
        Some(QueryOutcome::Unsat)
    );
    let is_pos = app(Op::Eq, vec![x.clone(), real_const("5", "2")]);
    assert_eq!(
        s.check_path(&[is_pos, rounds_to("3")]).ok(),
        Some(QueryOutcome::Sat)
    );
}

#[test]
fn a_new_solver_answers_a_nonlinear_query_within_its_resource_limit() {
    // A Pythagorean triple with 100 < x and z < 200 (e.g. 119² + 120² = 169²): within the
    // incremental solver's resource limit only when Z3 tries nlsat from its first final
    // check (`arith.nl.delay` 0); with the default delay of 500 the first check gives up
    // and the query goes to a fresh solver.
    let mut s = CatalaSession::new(Some(60_000), true);
    let square = |i: u32| app(Op::Mul, vec![int(i), int(i)]);
    let path = vec![
        app(Op::Gt, vec![int(1), int_const("0")]),
        app(Op::Gt, vec![int(0), int_const("100")]),
        app(Op::Lt, vec![int(2), int_const("200")]),
        app(
            Op::Eq,
            vec![app(Op::Add, vec![square(0), square(1)]), square(2)],
        ),
    ];
    let a = s.ask(&path).ok();
    assert_eq!(
        a.map(|a| (a.outcome, a.layer)),
        Some((QueryOutcome::Sat, Layer::Z3))
    );
    assert_eq!(s.stats().fresh_queries, 0);
    let (x, y, z) = (read(&s, 0), read(&s, 1), read(&s, 2));
    assert!(
        x * x + y * y == z * z && x > 100 && y > 0 && z < 200,
        "{x} {y} {z}"
    );
}

#[test]
fn the_resource_limit_applies_to_each_check_alone() {
    // Many small queries whose resource counts add up far beyond the limit: each is
    // answered by the incremental solver itself.
    let mut s = CatalaSession::new(None, true);
    let bounds = app(Op::Gt, vec![int(0), int_const("1")]);
    for n in 0..1500 {
        let product = app(
            Op::Eq,
            vec![
                app(Op::Mul, vec![int(0), int(1)]),
                int_const((2 * n + 4).to_string()),
            ],
        );
        assert_eq!(
            s.check_path(&[bounds.clone(), product]).ok(),
            Some(QueryOutcome::Sat)
        );
    }
    let Some(solver) = s.z3_layers().first.current() else {
        panic!("no solver")
    };
    let used = match solver.get_statistics().value("rlimit count") {
        Some(z3::StatisticsValue::UInt(u)) => u64::from(u),
        other => panic!("{other:?}"),
    };
    assert!(
        used > u64::from(crate::catala::z3_incremental::INCREMENTAL_RLIMIT),
        "{used}"
    );
    assert_eq!(s.stats().fresh_queries, 0);
}

#[test]
fn without_incrementality_each_query_is_asserted_anew_and_final() {
    let mut s = CatalaSession::new(None, false);
    let gt = app(Op::Gt, vec![int(0), int_const("3")]);
    let lt = app(Op::Lt, vec![int(0), int_const("3")]);
    assert_eq!(
        s.check_path(std::slice::from_ref(&gt)).ok(),
        Some(QueryOutcome::Sat)
    );
    assert!(read(&s, 0) > 3);
    assert_eq!(
        s.check_path(std::slice::from_ref(&lt)).ok(),
        Some(QueryOutcome::Sat)
    );
    assert!(read(&s, 0) < 3);
    assert_eq!(s.check_path(&[gt, lt]).ok(), Some(QueryOutcome::Unsat));
    assert!(s.z3_layers().then.is_none());
}

#[test]
fn rounded_money_is_checked_exactly_before_asking_z3() {
    let c = int(0);
    let y = int(1);
    // c > 12,345 alone: $200 (20,000 cents) or more keeps the path; no soft query.
    let mut s = CatalaSession::new(None, true);
    let gt = app(Op::Gt, vec![c.clone(), int_const("12345")]);
    assert_eq!(s.check_path(&[gt]).ok(), Some(QueryOutcome::Sat));
    if read(&s, 0) % 10_000 != 0 {
        assert_eq!(
            s.round_money(&[VarId(0)]).ok(),
            Some(RoundnessLevel::Hundreds)
        );
        assert_eq!(s.stats().soft_queries, 0);
    }
    let v = read(&s, 0);
    assert!(v > 12_345 && v % 10_000 == 0, "{v}");
    // c = y + 1 with y > 5 and y < 100,000: rounding c needs another y, which only Z3 finds.
    let mut s = CatalaSession::new(None, true);
    let path = [
        app(
            Op::Eq,
            vec![c.clone(), app(Op::Add, vec![y.clone(), int_const("1")])],
        ),
        app(Op::Gt, vec![y.clone(), int_const("5")]),
        app(Op::Lt, vec![y.clone(), int_const("100000")]),
    ];
    assert_eq!(s.check_path(&path).ok(), Some(QueryOutcome::Sat));
    let (c0, y0) = (read(&s, 0), read(&s, 1));
    assert_eq!(c0, y0 + 1);
    if c0 % 10_000 != 0 {
        assert_eq!(
            s.round_money(&[VarId(0)]).ok(),
            Some(RoundnessLevel::Hundreds)
        );
        assert!(s.stats().soft_queries >= 1);
    }
    let (c1, y1) = (read(&s, 0), read(&s, 1));
    assert!(
        c1 % 10_000 == 0 && c1 == y1 + 1 && y1 > 5 && y1 < 100_000,
        "{c1} {y1}"
    );
}

#[test]
fn z3_is_asked_for_round_amounts_at_the_hundreds_only() {
    // x = 12,340 + k cents with 0 ≤ k ≤ 1,000 (k not money): no multiple of $100 is
    // reachable, $130 is (k = 660), but only by moving k, which the exact check of a
    // candidate does not do; below the hundreds Z3 is not asked, so the two queries of the
    // hundreds are the only rounding queries.
    let mut s = CatalaSession::new(None, true);
    let path = vec![
        app(Op::Ge, vec![int(1), int_const("0")]),
        app(Op::Le, vec![int(1), int_const("1000")]),
        app(
            Op::Eq,
            vec![int(0), app(Op::Add, vec![int_const("12340"), int(1)])],
        ),
    ];
    assert_eq!(s.check_path(&path).ok(), Some(QueryOutcome::Sat));
    let level = s.round_money(&[VarId(0)]).ok();
    assert_ne!(level, Some(RoundnessLevel::Hundreds));
    assert!(s.stats().soft_queries <= 2, "{:?}", s.stats());
}

#[test]
fn money_is_pulled_to_round_amounts() {
    // cents > 1_000_000 (i.e. more than $10,000): the refined model is a multiple of $100.
    let mut s = CatalaSession::new(None, true);
    let gt = app(Op::Gt, vec![int(3), int_const("1000000")]);
    assert_eq!(s.check_path(&[gt]).ok(), Some(QueryOutcome::Sat));
    let level = s.round_money(&[VarId(3)]).ok();
    assert_eq!(level, Some(RoundnessLevel::Hundreds));
    let v = read(&s, 3);
    assert!(v > 1_000_000 && v % 10_000 == 0, "{v}");
}

#[test]
fn dates_of_a_z3_model_are_pulled_to_round_dates() {
    // d > 19,480 (2023-05-02) and m · 3 = d − 19,000 for some m: Z3's day is rarely a first of
    // the month; the refiner moves it to January 1st of a later year or a first of a month.
    let mut s = CatalaSession::from_config(ChainConfig {
        incremental: true,
        round_dates: vec![VarId(0)],
        ..ChainConfig::default()
    });
    let path = [
        app(Op::Gt, vec![int(0), int_const("19480")]),
        app(Op::Lt, vec![int(0), int_const("30000")]),
        app(
            Op::Eq,
            vec![
                app(Op::Mul, vec![int(1), int_const("3")]),
                app(Op::Sub, vec![int(0), int_const("19000")]),
            ],
        ),
    ];
    assert_eq!(s.check_path(&path).ok(), Some(QueryOutcome::Sat));
    assert_eq!(s.round_money(&[]).ok(), Some(RoundnessLevel::Hundreds));
    let (d, m) = (read(&s, 0), read(&s, 1));
    assert!(d > 19_480 && d < 30_000 && 3 * m == d - 19_000, "{d} {m}");
    use crate::catala::calendar::{roundness, DateRoundness};
    assert!(roundness(i128::from(d)) <= DateRoundness::MonthStart, "{d}");
}

#[test]
fn rounding_pinned_amounts_asks_z3_nothing() {
    // c · 3 = 37,035 pins c to 12,345 cents: neither $200 nor $100 keeps the path, whatever
    // any other variable is, so both candidates of the hundreds are refuted without Z3, and
    // the tens and units are only checked exactly. Before the refutation, Z3 was asked twice.
    let mut s = CatalaSession::new(None, true);
    let path = [app(
        Op::Eq,
        vec![
            app(Op::Mul, vec![int(0), int_const("3")]),
            int_const("37035"),
        ],
    )];
    assert_eq!(s.check_path(&path).ok(), Some(QueryOutcome::Sat));
    assert_eq!(read(&s, 0), 12_345);
    assert_eq!(s.round_money(&[VarId(0)]).ok(), Some(RoundnessLevel::Cents));
    assert_eq!((s.stats().soft_queries, s.stats().soft_refuted), (0, 2));
    assert_eq!(read(&s, 0), 12_345);
}

#[test]
fn a_guess_keeps_the_last_amounts_when_round_ones_cannot_do() {
    // Amounts 123.45 and 67.89 (cents) whose product earlier branches pinned, outside their
    // preferred ranges, and a boolean branch negated: round amounts (free to move, since the
    // last ones are not round) can never give the product 83,810,205 = 12,345 × 6,789, and
    // the search among them runs out of steps; the last amounts with the boolean flipped are
    // a model, found without Z3.
    let money = vec![VarId(1), VarId(2)];
    let mut preferences = Preferences::default();
    for v in &money {
        preferences.set(*v, Preferred::count(1_000_000, Some(2_000_000)));
    }
    let mut s = CatalaSession::from_config(ChainConfig {
        incremental: true,
        guesses: Some(money),
        preferences,
        ..ChainConfig::default()
    });
    s.remember([
        (VarId(1), ModelValue::Int("12345".into())),
        (VarId(2), ModelValue::Int("6789".into())),
        (VarId(3), ModelValue::Bool(false)),
    ]);
    let flag = var(VarId(3), Kind::Bool);
    let query = [
        app(
            Op::Eq,
            vec![app(Op::Mul, vec![int(1), int(2)]), int_const("83810205")],
        ),
        flag,
    ];
    let a = s.ask(&query).ok();
    assert_eq!(
        a.map(|a| (a.outcome, a.layer)),
        Some((QueryOutcome::Sat, Layer::Guess))
    );
    assert_eq!((read(&s, 1), read(&s, 2)), (12_345, 6_789));
}
