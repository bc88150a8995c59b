//! Complete explorations of scopes computing with dates (fixtures in
//! `tests/fixtures/concolic_dates`): an age threshold with `+ 65 year` (before, on and after the
//! birthday, and the 29 February births whose birthday does not exist), the same rule with
//! `date round down`, month ends with `get_month of` and `last_day_of_month of`, the same day of
//! the next month, and a duration in days compared with months. The expected path sets are
//! derived by hand from Catala's date semantics; every test is replayed by the interpreter, and
//! its inputs are checked against the path's meaning with the runtime's own date arithmetic.

use catala_eval::runtime::{Date, DateRounding, Duration, Value};
use catala_ir::dcalc::Program;
use concolic::{explore, Exploration, ExploreOptions, Optimizations, Outcome, TestCase};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/concolic_dates")
        .join(name)
}

fn load(path: &Path) -> Program {
    let (sources, parsed) = catala_syntax::parse_file_with_sources(path);
    let ast = match parsed {
        Ok(a) => a,
        Err(d) => panic!("{}: parse error {}", path.display(), d.message),
    };
    match catala_ir::compile(&sources, &ast) {
        Ok(p) => p,
        Err(ds) => panic!("{}: {:?}", path.display(), ds.first().map(|d| &d.message)),
    }
}

fn run(file: &str, scope: &str, optimizations: Optimizations) -> Exploration {
    let program = load(&fixture(file));
    let Some(id) = program.scope_by_name(scope) else {
        panic!("no scope {scope}")
    };
    let options = ExploreOptions {
        optimizations,
        check: true,
        ..ExploreOptions::default()
    };
    let e = match explore(&program, id, &options) {
        Ok(e) => e,
        Err(err) => panic!("exploration failed: {err}"),
    };
    assert!(
        e.stats.complete,
        "exploration of {scope} incomplete: {:?} {:?}",
        e.incomplete, e.stats
    );
    assert!(
        e.replay_mismatches.is_empty(),
        "replay mismatches: {:?}",
        e.replay_mismatches
    );
    e
}

fn date_input(t: &TestCase, i: usize) -> Date {
    match t.inputs.get(i) {
        Some(Some(Value::Date(d))) => *d,
        other => panic!("input {i} is not a date: {other:?}"),
    }
}

fn output<'a>(t: &'a TestCase, name: &str) -> &'a Value {
    match &t.outcome {
        Outcome::Ok(outs) => match outs.iter().find(|(n, _)| n == name) {
            Some((_, v)) => v,
            None => panic!("no output {name}"),
        },
        other => panic!("not a result: {}", other.kind()),
    }
}

fn int_output(t: &TestCase, name: &str) -> i64 {
    match output(t, name) {
        Value::Integer(i) => i.to_string().parse().unwrap_or(i64::MIN),
        other => panic!("{name} is not an integer: {other:?}"),
    }
}

fn bool_output(t: &TestCase, name: &str) -> bool {
    match output(t, name) {
        Value::Bool(b) => *b,
        other => panic!("{name} is not a boolean: {other:?}"),
    }
}

fn plus(d: Date, years: i64, months: i64, days: i64, r: DateRounding) -> Option<Date> {
    d.add_duration(Duration::new(years, months, days), r).ok()
}

/// Each test's label, sorted.
fn labels(e: &Exploration, label: impl Fn(&TestCase) -> String) -> Vec<String> {
    let mut v: Vec<String> = e.tests.iter().map(label).collect();
    v.sort();
    v
}

fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn pension_age_has_the_birthday_the_days_around_it_and_29_february() {
    for opt in [Optimizations::ALL, Optimizations::NONE] {
        let e = run("ages.catala_en", "Pension", opt);
        // birth + 65 year exists (a birthday other than 29 February: 65 years after a leap year
        // is never one) or is the ambiguous-date error; then today before, on, after it.
        let got = labels(&e, |t| match &t.outcome {
            Outcome::Ok(_) => format!("status={}", int_output(t, "status")),
            other => other.kind().to_string(),
        });
        assert_eq!(
            got,
            sorted(&["status=0", "status=1", "status=2", "ambiguous_date"]),
            "{opt:?}"
        );
        for t in &e.tests {
            let (birth, today) = (date_input(t, 0), date_input(t, 1));
            let birthday = plus(birth, 65, 0, 0, DateRounding::Abort);
            match &t.outcome {
                Outcome::Ok(_) => {
                    let Some(b) = birthday else {
                        panic!("{birth} has a 65th birthday")
                    };
                    let expected = match today.cmp(&b) {
                        std::cmp::Ordering::Less => 0,
                        std::cmp::Ordering::Equal => 1,
                        std::cmp::Ordering::Greater => 2,
                    };
                    assert_eq!(int_output(t, "status"), expected);
                }
                _ => {
                    assert_eq!((birth.month, birth.day), (2, 29), "{birth}");
                    assert_eq!(birthday, None);
                }
            }
        }
    }
}

#[test]
fn rounding_down_moves_29_february_birthdays_to_the_28th() {
    for opt in [Optimizations::ALL, Optimizations::NONE] {
        let e = run("ages.catala_en", "PensionRoundDown", opt);
        // Eligible or not, birthday moved (29 February births) or not: four paths, no error.
        let got = labels(&e, |t| {
            format!(
                "eligible={} moved={}",
                bool_output(t, "eligible"),
                bool_output(t, "birthday_moved")
            )
        });
        assert_eq!(
            got,
            sorted(&[
                "eligible=false moved=false",
                "eligible=false moved=true",
                "eligible=true moved=false",
                "eligible=true moved=true",
            ]),
            "{opt:?}"
        );
        for t in &e.tests {
            let (birth, today) = (date_input(t, 0), date_input(t, 1));
            let moved = bool_output(t, "birthday_moved");
            assert_eq!(moved, (birth.month, birth.day) == (2, 29), "{birth}");
            let start = plus(birth, 65, 0, 0, DateRounding::Down)
                .and_then(|b| plus(b, 0, 0, 1, DateRounding::Down));
            if moved {
                // 29 February + 65 years, rounded down: 28 February; the pension starts on
                // 1 March.
                assert_eq!(start.map(|s| (s.month, s.day)), Some((3, 1)));
            }
            assert_eq!(
                bool_output(t, "eligible"),
                start.is_some_and(|s| today >= s)
            );
        }
    }
}

#[test]
fn month_ends_and_december_applications() {
    for opt in [Optimizations::ALL, Optimizations::NONE] {
        let e = run("months.catala_en", "MonthEnd", opt);
        // Last day of its month or not × in December or not.
        let got = labels(&e, |t| format!("kind={}", int_output(t, "kind")));
        assert_eq!(
            got,
            sorted(&["kind=0", "kind=1", "kind=2", "kind=3"]),
            "{opt:?}"
        );
        for t in &e.tests {
            let a = date_input(t, 0);
            let last = a.last_day_of_month();
            let kind = 2 * i64::from(a == last) + i64::from(a.month == 12);
            assert_eq!(int_output(t, "kind"), kind, "{a}");
            let start = plus(last, 0, 0, 1, DateRounding::Abort);
            assert!(matches!(output(t, "payment_start"), Value::Date(d) if Some(*d) == start));
        }
    }
}

#[test]
fn the_same_day_of_the_next_month_may_not_exist() {
    for opt in [Optimizations::ALL, Optimizations::NONE] {
        let e = run("months.catala_en", "FollowingMonth", opt);
        let got = labels(&e, |t| t.outcome.kind().to_string());
        assert_eq!(got, sorted(&["ok", "ambiguous_date"]), "{opt:?}");
        for t in &e.tests {
            let a = date_input(t, 0);
            let next = plus(a, 0, 1, 0, DateRounding::Abort);
            assert_eq!(next.is_some(), t.outcome.kind() == "ok", "{a}");
        }
    }
}

#[test]
fn days_compared_with_months_fail_unless_one_side_is_zero() {
    for opt in [Optimizations::ALL, Optimizations::NONE] {
        let e = run("durations.catala_en", "Waiting", opt);
        // Defined when the days are 0 (months compared) or the months are 0 (days compared):
        // both results are reachable, and the error when neither is 0.
        let got = labels(&e, |t| match &t.outcome {
            Outcome::Ok(_) => format!("enough={}", int_output(t, "enough")),
            other => other.kind().to_string(),
        });
        assert_eq!(
            got,
            sorted(&["enough=0", "enough=1", "duration_units"]),
            "{opt:?}"
        );
    }
}

/// The date inputs of every test of the fixtures' scopes: how many, how many on the first day
/// of a month, how many on January 1st.
fn date_shares(optimizations: Optimizations) -> (usize, usize, usize) {
    let scopes = [
        ("ages.catala_en", "Pension"),
        ("ages.catala_en", "PensionRoundDown"),
        ("months.catala_en", "MonthEnd"),
        ("months.catala_en", "FollowingMonth"),
    ];
    let (mut all, mut month_start, mut year_start) = (0, 0, 0);
    for (file, scope) in scopes {
        let e = run(file, scope, optimizations);
        for t in &e.tests {
            for d in t.inputs.iter().flatten() {
                if let Value::Date(d) = d {
                    all += 1;
                    month_start += usize::from(d.day == 1);
                    year_start += usize::from(d.day == 1 && d.month == 1);
                }
            }
        }
    }
    (all, month_start, year_start)
}

#[test]
fn dates_are_human_friendly_when_they_can_be() {
    // Soft constraints on: the solver layers prefer January 1st, then the first of a month.
    let (all, month_start, year_start) = date_shares(Optimizations::ALL);
    eprintln!(
        "round dates with soft constraints: {month_start} of {all} on the 1st of a month, \
         {year_start} on January 1st"
    );
    // Off: the same paths with whatever dates the layers find first.
    let mut off = Optimizations::ALL;
    off.soft_constraints = false;
    let (all_off, month_off, year_off) = date_shares(off);
    eprintln!(
        "without soft constraints: {month_off} of {all_off} on the 1st of a month, \
         {year_off} on January 1st"
    );
    // 14 paths, 22 dates, of which 6 cannot be a 1st: the three 29 February births, the two
    // last days of months and the day that does not exist in the next month.
    assert_eq!(all, all_off);
    assert!(month_start > month_off, "{month_start} vs {month_off}");
    assert_eq!(all, 22);
    assert_eq!(month_start, 16, "{month_start} of {all}");
}
