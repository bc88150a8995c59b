//! Realistic inputs by default (fixtures in `tests/fixtures/realistic`): the dates of the tests
//! lie within the years the program speaks of, durations are not negative and in the unit the
//! rules compare with, counts are small and not negative, unless the path needs otherwise;
//! and these preferences change no path. The expected values are derived by hand from the
//! rule of `concolic::inputs::realism` and the fixture's literals, written beside each check.

use catala_eval::runtime::{Date, Value};
use catala_ir::dcalc::Program;
use concolic::inputs::realism::{DurationUnit, Realism};
use concolic::{explore, Exploration, ExploreOptions, Optimizations, Outcome};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/realistic")
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

fn run(program: &Program, scope: &str, options: ExploreOptions) -> Exploration {
    let Some(id) = program.scope_by_name(scope) else {
        panic!("no scope {scope}")
    };
    let e = match explore(program, id, &options) {
        Ok(e) => e,
        Err(err) => panic!("exploration failed: {err}"),
    };
    assert!(e.stats.complete, "incomplete: {:?}", e.incomplete);
    assert!(e.replay_mismatches.is_empty(), "{:?}", e.replay_mismatches);
    e
}

fn date(y: i64, m: i64, d: i64) -> Date {
    Date::new(y, m, d).unwrap_or_else(|| panic!("invalid date"))
}

/// The benefit's inputs: claim date, contract, children.
fn inputs(t: &concolic::TestCase) -> (Date, (i64, i64, i64), i64) {
    let (Some(Some(Value::Date(d))), Some(Some(Value::Duration(c))), Some(Some(Value::Integer(n)))) =
        (t.inputs.first(), t.inputs.get(1), t.inputs.get(2))
    else {
        panic!("unexpected inputs {:?}", t.inputs)
    };
    let n = n.to_i64().unwrap_or_else(|| panic!("children {n:?}"));
    (*d, (c.years, c.months, c.days), n)
}

/// The paths of an exploration, as their identities.
fn paths(e: &Exploration) -> BTreeSet<String> {
    e.tests.iter().map(|t| t.path.to_string()).collect()
}

#[test]
fn the_ranges_come_from_the_literals_of_the_program() {
    let program = load(&fixture("benefit.catala_en"));
    let Some(id) = program.scope_by_name("Benefit") else {
        panic!("no scope")
    };
    let r = Realism::of(&program, id, None);
    // Date literals 2023-01-01, 2024-06-01, 2025-03-01: whole years 2023 to 2025.
    assert_eq!(
        r.dates,
        Some((
            date(2023, 1, 1).day_number(),
            date(2025, 12, 31).day_number()
        ))
    );
    // January 1st of the middle year, (2023 + 2025) / 2 = 2024.
    assert_eq!(r.date_point(), Some(date(2024, 1, 1).day_number()));
    // The only duration compared is `3 year`.
    assert_eq!(r.duration_unit, DurationUnit::Years);
    // The largest integer literal is 2: the small range keeps its floor of 100.
    assert_eq!(r.max_integer, 100);
    // A range given replaces the literals' (widened to whole years).
    let given = Realism::of(&program, id, Some((date(1999, 5, 3), date(2001, 2, 1))));
    assert_eq!(
        given.dates,
        Some((
            date(1999, 1, 1).day_number(),
            date(2001, 12, 31).day_number()
        ))
    );
}

#[test]
fn tests_have_realistic_dates_durations_and_counts() {
    let program = load(&fixture("benefit.catala_en"));
    let e = run(&program, "Benefit", ExploreOptions::default());
    assert!(!e.tests.is_empty());
    let mut before_2023 = 0;
    for t in &e.tests {
        let (d, (years, months, days), children) = inputs(t);
        // Claims before 2023-01-01 need a date outside 2023–2025: the nearest year, 2022
        // (one year outside), on its roundest day, January 1st; every other claim lies in
        // 2023–2025.
        if d < date(2023, 1, 1) {
            before_2023 += 1;
            assert_eq!(d, date(2022, 1, 1), "{:?}", t.inputs);
        } else {
            assert!(
                (2023..=2025).contains(&d.year),
                "date {d:?} outside 2023–2025: {:?}",
                t.inputs
            );
        }
        // Children are compared with 2 only: 0 ≤ children ≤ 100.
        assert!((0..=100).contains(&children), "{:?}", t.inputs);
        // Durations are never negative.
        assert!(years >= 0 && months >= 0 && days >= 0, "{:?}", t.inputs);
        match &t.outcome {
            // `contract >= 3 year` is defined only without days: a path ending normally
            // has days = 0, and in the unit compared (years) months are 0 too.
            Outcome::Ok(outputs) => {
                assert_eq!((months, days), (0, 0), "{:?}", t.inputs);
                let bonus = outputs.iter().find(|(n, _)| n == "bonus");
                if let Some((_, Value::Bool(true))) = bonus {
                    assert!(years >= 3, "{:?}", t.inputs);
                }
            }
            // The comparison fails only with days ≠ 0: at least 1 day, not −1.
            Outcome::Error(_) => assert!(days >= 1, "{:?}", t.inputs),
            Outcome::Assertion(_) => panic!("the fixture has no assertion"),
        }
    }
    assert!(before_2023 > 0, "the path before 2023 is explored");
}

#[test]
fn the_first_run_starts_in_the_middle_of_the_programs_years() {
    // Depth-first from the first run: its inputs are the preferred points, claim date
    // 2024-01-01 (the middle year's January 1st), no contract, no children.
    let program = load(&fixture("benefit.catala_en"));
    let e = run(&program, "Benefit", ExploreOptions::default());
    let (d, contract, children) = inputs(&e.tests[0]);
    assert_eq!(d, date(2024, 1, 1));
    assert_eq!((contract, children), ((0, 0, 0), 0));
}

#[test]
fn preferences_change_no_path() {
    // A given date range far from the literals (1950–1951) moves the inputs, never the
    // paths: the same path identities with every optimization and with none, where the
    // solver layers choosing values differ.
    let program = load(&fixture("benefit.catala_en"));
    for optimizations in [Optimizations::ALL, Optimizations::NONE] {
        let usual = run(
            &program,
            "Benefit",
            ExploreOptions {
                optimizations,
                ..ExploreOptions::default()
            },
        );
        let far = run(
            &program,
            "Benefit",
            ExploreOptions {
                optimizations,
                date_range: Some((date(1950, 1, 1), date(1951, 12, 31))),
                ..ExploreOptions::default()
            },
        );
        assert_eq!(paths(&usual), paths(&far));
        // With 1950–1951 preferred, the first run's claim is on 1950-01-01 (the middle
        // year's January 1st: (1950 + 1951) / 2 = 1950 in integer division).
        let (d, _, _) = inputs(&far.tests[0]);
        assert_eq!(d, date(1950, 1, 1));
    }
}

#[test]
fn typicality_counts_inputs_outside_then_distance_to_the_middle() {
    let program = load(&fixture("benefit.catala_en"));
    let Some(id) = program.scope_by_name("Benefit") else {
        panic!("no scope")
    };
    let r = Realism::of(&program, id, None);
    let duration = |y, m, d| {
        Some(Value::Duration(catala_eval::runtime::Duration::new(
            y, m, d,
        )))
    };
    let int = |n: i64| Some(Value::Integer(n.into()));
    let t = |d: Date, c, n| r.typicality(&[Some(Value::Date(d)), c, int(n)]);
    // Inside every range: nothing outside; the middle of 2023-01-01..2025-12-31 is
    // 2024-07-01 or 2024-07-02, so 2024-07-01 is nearer than 2023-01-01.
    let middle = t(date(2024, 7, 1), duration(3, 0, 0), 2);
    let early = t(date(2023, 1, 1), duration(3, 0, 0), 2);
    assert_eq!(middle.outside, 0);
    assert!(middle < early);
    // 2126, −1 day and −3 children: three inputs outside (days are not the unit compared,
    // and negative), ranked after any test with fewer.
    let odd = t(date(2126, 1, 1), duration(0, 0, -1), -3);
    assert_eq!(odd.outside, 3);
    let one_off = t(date(2023, 1, 1), duration(0, 0, 5), 2);
    assert_eq!(one_off.outside, 1);
    assert!(early < one_off && one_off < odd);
}
