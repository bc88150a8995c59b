//! Every kind of scope input is explored symbolically, or named (fixtures in
//! `tests/fixtures/concolic_inputs`): lists of integers, of structures and of dates with every
//! length up to the bound, a duration in an enumeration's payload with its years, months and
//! days, optionals and context inputs. Each fixture has a rule only that kind of input reaches;
//! a complete exploration must reach it, with inputs that really are of that kind (a list of two
//! elements or more, a duration in months). The expected outputs are computed by hand from
//! Catala's semantics. Inputs without a symbolic model (a function, a list nested too deep)
//! make the exploration incomplete and are named; hints longer than the bound raise it; the
//! shards of a plan explore the same list shapes as the whole exploration.

use catala_eval::runtime::{Date, Value};
use catala_ir::dcalc::{Program, ScopeId};
use concolic::inputs::Bounds;
use concolic::plan::make_plan;
use concolic::shard::explore_shard;
use concolic::{explore, Control, Exploration, ExploreOptions, Outcome, PathId, TestCase};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/concolic_inputs")
        .join(name)
}

fn load(file: &str, scope: &str) -> (Program, ScopeId) {
    let path = fixture(file);
    let (sources, parsed) = catala_syntax::parse_file_with_sources(&path);
    let ast = match parsed {
        Ok(a) => a,
        Err(d) => panic!("{}: parse error {}", path.display(), d.message),
    };
    let program = match catala_ir::compile(&sources, &ast) {
        Ok(p) => p,
        Err(ds) => panic!("{}: {:?}", path.display(), ds.first().map(|d| &d.message)),
    };
    let Some(id) = program.scope_by_name(scope) else {
        panic!("no scope {scope}")
    };
    (program, id)
}

fn options(max_list_length: usize) -> ExploreOptions {
    ExploreOptions {
        check: true,
        max_list_length,
        ..ExploreOptions::default()
    }
}

fn run_with(file: &str, scope: &str, options: &ExploreOptions) -> Exploration {
    let (program, id) = load(file, scope);
    match explore(&program, id, options) {
        Ok(e) => e,
        Err(err) => panic!("exploration failed: {err}"),
    }
}

/// A complete exploration, every test replayed identically, every path identifier distinct.
fn run_complete(file: &str, scope: &str, options: &ExploreOptions) -> Exploration {
    let e = run_with(file, scope, options);
    assert!(
        e.stats.complete && e.incomplete.is_empty(),
        "exploration of {scope} incomplete: {:?} {:?}",
        e.incomplete,
        e.stats
    );
    assert!(e.replay_mismatches.is_empty(), "{:?}", e.replay_mismatches);
    let ids: BTreeSet<String> = e.tests.iter().map(|t| t.path.to_string()).collect();
    assert_eq!(
        ids.len(),
        e.tests.len(),
        "two tests share a path identifier"
    );
    e
}

fn output<'t>(t: &'t TestCase, name: &str) -> &'t Value {
    match &t.outcome {
        Outcome::Ok(outs) => match outs.iter().find(|(n, _)| n == name) {
            Some((_, v)) => v,
            None => panic!("no output {name}"),
        },
        other => panic!("test ended with {}", other.kind()),
    }
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Integer(i) | Value::Money(i) => i.to_i64().unwrap_or(i64::MIN),
        other => panic!("not an integer: {other:?}"),
    }
}

fn list(v: &Option<Value>) -> Vec<Value> {
    match v {
        Some(Value::List(items)) => items.to_vec(),
        other => panic!("not a list: {other:?}"),
    }
}

fn outputs_of(e: &Exploration, name: &str) -> BTreeSet<i64> {
    e.tests
        .iter()
        .filter(|t| matches!(t.outcome, Outcome::Ok(_)))
        .map(|t| int(output(t, name)))
        .collect()
}

#[test]
fn a_list_of_integers_is_explored_at_every_length_up_to_the_bound() {
    let e = run_complete("list_of_integers.catala_en", "Bonus", &options(3));
    // bonus: 0 with fewer than 2 amounts, 1 with a sum ≤ 100, 7 with a sum > 100.
    assert_eq!(outputs_of(&e, "bonus"), BTreeSet::from([0, 1, 7]));
    let lengths: BTreeSet<usize> = e.tests.iter().map(|t| list(&t.inputs[0]).len()).collect();
    assert_eq!(lengths, BTreeSet::from([0, 1, 2, 3]));
    for t in &e.tests {
        let amounts: Vec<i64> = list(&t.inputs[0]).iter().map(int).collect();
        let sum: i64 = amounts.iter().sum();
        let expected = match (amounts.len() >= 2, sum > 100) {
            (false, _) => 0,
            (true, false) => 1,
            (true, true) => 7,
        };
        assert_eq!(int(output(t, "bonus")), expected, "{amounts:?}");
    }
    // Within a bound of 1, the bonus of two amounts is out of reach, and the exploration of
    // lists of at most one element is complete.
    let e = run_complete("list_of_integers.catala_en", "Bonus", &options(1));
    assert_eq!(outputs_of(&e, "bonus"), BTreeSet::from([0]));
    assert!(e.tests.iter().all(|t| list(&t.inputs[0]).len() <= 1));
    assert_eq!(e.tests.len(), 2, "the empty list and one element");
}

#[test]
fn a_list_of_structures_reaches_the_allowance_of_a_disabled_minor() {
    let e = run_complete("list_of_structures.catala_en", "Allowance", &options(3));
    // $500.00 (50 000 cents) only when a child is disabled and under 18.
    assert_eq!(outputs_of(&e, "allowance"), BTreeSet::from([0, 50_000]));
    for t in &e.tests {
        let children = list(&t.inputs[0]);
        let due = children.iter().any(|c| match c {
            Value::Struct(s) => matches!(s.fields[1], Value::Bool(true)) && int(&s.fields[0]) < 18,
            other => panic!("not a child: {other:?}"),
        });
        let expected = if due { 50_000 } else { 0 };
        assert_eq!(int(output(t, "allowance")), expected, "{children:?}");
    }
    let longest = e.tests.iter().map(|t| list(&t.inputs[0]).len()).max();
    assert_eq!(longest, Some(3));
}

#[test]
fn a_duration_in_a_payload_is_explored_in_years_months_and_days() {
    let e = run_complete("duration_in_payload.catala_en", "Notice", &options(3));
    // Permanent: 2; a term of more than 6 months: 1; of at most 6 months: 0; a term with days
    // compared with `6 month`: Catala's error on durations of mixed units.
    let kinds: BTreeSet<String> = e
        .tests
        .iter()
        .map(|t| match &t.outcome {
            Outcome::Ok(_) => format!("notice={}", int(output(t, "notice"))),
            other => other.kind().to_string(),
        })
        .collect();
    let expected: BTreeSet<String> = ["notice=2", "notice=1", "notice=0", "duration_units"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(kinds, expected);
    for t in &e.tests {
        let term = match &t.inputs[0] {
            Some(Value::Enum(c)) if c.case == 1 => match &c.payload {
                Value::Duration(d) => *d,
                other => panic!("not a duration: {other:?}"),
            },
            _ => continue,
        };
        let months = 12 * term.years + term.months;
        match &t.outcome {
            Outcome::Ok(_) if int(output(t, "notice")) == 1 => {
                assert_eq!(term.days, 0, "{term:?}");
                assert!(months > 6, "{term:?}");
                assert!(term.months > 0 || term.years > 0, "{term:?}");
            }
            Outcome::Ok(_) => assert!(term.days == 0 && months <= 6, "{term:?}"),
            _ => assert_ne!(term.days, 0, "{term:?}"),
        }
    }
}

#[test]
fn dates_in_a_list_reach_the_reform() {
    let e = run_complete("dates_in_list.catala_en", "Reform", &options(3));
    let Some(reform) = Date::new(2030, 1, 1) else {
        panic!("2030-01-01")
    };
    let mut reached = false;
    for t in &e.tests {
        let late = list(&t.inputs[0]).iter().any(|d| match d {
            Value::Date(d) => d.day_number() >= reform.day_number(),
            other => panic!("not a date: {other:?}"),
        });
        assert!(matches!(output(t, "reformed"), Value::Bool(b) if *b == late));
        reached |= late;
    }
    assert!(reached, "no filing after the reform");
}

#[test]
fn optionals_and_context_inputs_reach_their_rules() {
    let e = run_complete("optional.catala_en", "Refund", &options(3));
    let (mut refunded, mut capped) = (false, false);
    for t in &e.tests {
        let overpaid = match &t.inputs[0] {
            Some(Value::Enum(o)) if o.case == 1 => Some(int(&o.payload)),
            Some(Value::Enum(_)) => None,
            other => panic!("not an optional: {other:?}"),
        };
        // Beyond $1,000.00 (100 000 cents), the excess is refunded.
        let expected = overpaid.map_or(0, |m| (m - 100_000).max(0));
        assert_eq!(int(output(t, "refund")), expected, "{overpaid:?}");
        refunded |= expected > 0;
        // The ceiling is 50 unless given: only a given ceiling above 60 caps.
        let ceiling = t.inputs[1].as_ref().map_or(50, int);
        assert!(matches!(output(t, "capped"), Value::Bool(b) if *b == (ceiling > 60)));
        capped |= ceiling > 60;
    }
    assert!(refunded && capped, "refund {refunded}, capped {capped}");
}

#[test]
fn inputs_without_a_model_are_named_and_the_exploration_is_not_complete() {
    let e = run_with("fixed.catala_en", "WithFunction", &options(3));
    assert!(!e.stats.complete);
    assert_eq!(e.incomplete, vec!["rate: function, fixed".to_string()]);
    let e = run_with("fixed.catala_en", "DeepList", &options(2));
    assert!(!e.stats.complete);
    assert_eq!(
        e.incomplete,
        vec!["deep[*][*][*]: list nested in more than 3 lists, fixed to []".to_string()]
    );
    // The outer levels are explored: `count` is 2 only for two elements or more.
    assert_eq!(outputs_of(&e, "count"), BTreeSet::from([0, 2]));
    for t in &e.tests {
        let n = list(&t.inputs[0]).len();
        assert_eq!(int(output(t, "count")), if n >= 2 { 2 } else { 0 });
    }
}

#[test]
fn a_hint_longer_than_the_bound_raises_the_bound_of_its_list() {
    let hints = serde_json::json!({ "amounts": [50, 60] });
    let opts = ExploreOptions {
        hints: Some(hints.clone()),
        ..options(1)
    };
    let e = run_complete("list_of_integers.catala_en", "Bonus", &opts);
    // The hint itself is the first test: 50 + 60 > 100.
    assert_eq!(
        list(&e.tests[0].inputs[0])
            .iter()
            .map(int)
            .collect::<Vec<_>>(),
        vec![50, 60]
    );
    assert_eq!(int(output(&e.tests[0], "bonus")), 7);
    assert_eq!(outputs_of(&e, "bonus"), BTreeSet::from([0, 1, 7]));
    assert!(e.tests.iter().all(|t| list(&t.inputs[0]).len() <= 2));
    let (program, id) = load("list_of_integers.catala_en", "Bonus");
    let bounds = Bounds::of(&program, id, 1, Some(&hints));
    assert_eq!(bounds.max_list_length, 1);
    assert_eq!(
        bounds.raised.into_iter().collect::<Vec<_>>(),
        vec![("amounts".to_string(), 2)]
    );
}

#[test]
fn the_shards_of_a_plan_explore_the_same_lists() {
    let (program, id) = load("list_of_structures.catala_en", "Allowance");
    let opts = options(2);
    let whole = match explore(&program, id, &opts) {
        Ok(e) => e,
        Err(err) => panic!("exploration failed: {err}"),
    };
    let whole_ids: BTreeSet<String> = whole.tests.iter().map(|t| t.path.to_string()).collect();
    let plan = match make_plan(&program, id, &opts, 2, 4) {
        Ok(p) => p,
        Err(e) => panic!("plan: {e}"),
    };
    let mut sharded = BTreeSet::new();
    for i in 0..2 {
        let mine: Vec<(PathId, Vec<_>)> = plan
            .shard(i)
            .into_iter()
            .map(|s| (s.prefix.clone(), s.assignment.clone()))
            .collect();
        let done = explore_shard(
            &program,
            id,
            &opts,
            &mine,
            &mut |_, t| {
                sharded.insert(t.path.to_string());
                Control::Continue
            },
            &mut |_| {},
        );
        match done {
            Ok(d) => assert!(d.exploration.stats.complete, "shard {i}"),
            Err(e) => panic!("shard {i}: {e}"),
        }
    }
    assert_eq!(sharded, whole_ids);
    // A plan made for another bound does not fit a shard of this one.
    let other = options(3);
    let mine: Vec<(PathId, Vec<_>)> = plan
        .shard(0)
        .into_iter()
        .map(|s| (s.prefix.clone(), s.assignment.clone()))
        .collect();
    let refused = explore_shard(
        &program,
        id,
        &other,
        &mine,
        &mut |_, _| Control::Continue,
        &mut |_| {},
    );
    assert!(refused.is_err());
}
