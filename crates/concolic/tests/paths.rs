//! Exact path sets of small scopes (each branching construct), the default term of Fig. 5 and
//! the running example of the CUTECat paper. Expected paths are derived by hand from Catala's
//! semantics: one test per feasible path, with the outcome that path must have.

use catala_eval::runtime::json::value_to_json;
use catala_ir::dcalc::Program;
use concolic::{explore, EvaluationOrder, Exploration, ExploreOptions, Optimizations, Outcome};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
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

fn run(path: &Path, scope: &str, optimizations: Optimizations) -> (Program, Exploration) {
    run_in(path, scope, optimizations, EvaluationOrder::Catala)
}

/// [`run`], where a lazy conflict may name fewer rules than the plain run (each such test is
/// counted as relabelled and makes the exploration incomplete).
fn run_lenient(path: &Path, scope: &str, optimizations: Optimizations) -> (Program, Exploration) {
    let program = load(path);
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
    complete_but_relabelled(&e);
    (program, e)
}

/// [`run`] with the definitions in `order`.
fn run_in(
    path: &Path,
    scope: &str,
    optimizations: Optimizations,
    order: EvaluationOrder,
) -> (Program, Exploration) {
    let program = load(path);
    let Some(id) = program.scope_by_name(scope) else {
        panic!("no scope {scope}")
    };
    let options = ExploreOptions {
        optimizations,
        order,
        check: true,
        ..ExploreOptions::default()
    };
    let e = match explore(&program, id, &options) {
        Ok(e) => e,
        Err(err) => panic!("exploration failed: {err}"),
    };
    if order == EvaluationOrder::Catala {
        assert!(e.stats.complete, "exploration of {scope} incomplete");
        assert!(
            e.replay_mismatches.is_empty(),
            "replay mismatches: {:?}",
            e.replay_mismatches
        );
    } else {
        complete_but_relabelled(&e);
    }
    (program, e)
}

/// Every path explored, but some tests' paths (in the paper's order, or with lazy conflicts
/// and packed exceptions) end otherwise than the plain run on their inputs: each such test is
/// counted, and each replay mismatch is one of them.
fn complete_but_relabelled(e: &Exploration) {
    assert_eq!(e.stats.stopped_by, None);
    assert_eq!((e.stats.unknown_queries, e.stats.divergences), (0, 0));
    assert!(
        e.incomplete.iter().all(|i| i.contains("ended differently")),
        "{:?}",
        e.incomplete
    );
    assert_eq!(e.incomplete.is_empty(), e.stats.relabelled == 0);
    assert!(e.replay_mismatches.len() <= e.stats.relabelled);
}

/// Each test as `outcome` or `ok:OUTPUTS-JSON`, sorted.
fn outcomes(program: &Program, e: &Exploration) -> Vec<String> {
    let mut v: Vec<String> = e
        .tests
        .iter()
        .map(|t| match &t.outcome {
            Outcome::Ok(outs) => {
                let parts: Vec<String> = outs
                    .iter()
                    .map(|(n, v)| format!("{n}={}", value_to_json(program, v)))
                    .collect();
                format!("ok:{}", parts.join(","))
            }
            other => other.kind().to_string(),
        })
        .collect();
    v.sort();
    v
}

fn inputs_json(program: &Program, t: &concolic::TestCase) -> Vec<String> {
    t.inputs
        .iter()
        .flatten()
        .map(|v| value_to_json(program, v).to_string())
        .collect()
}

fn fixture(name: &str) -> PathBuf {
    workspace().join("tests/fixtures/concolic").join(name)
}

fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn fig5_default_term_has_five_paths() {
    // ⟨⟨b :- 1⟩, ⟨x = 0 :- 2⟩ | x > 0 :- 3⟩: 1, conflict, 3, no applicable rule, 2 (Fig. 5).
    for opt in [Optimizations::ALL, Optimizations::NONE] {
        let (p, e) = run(&fixture("fig5_default.catala_en"), "Fig5", opt);
        assert_eq!(
            outcomes(&p, &e),
            sorted(&[
                "ok:y=\"1\"",
                "conflict",
                "ok:y=\"3\"",
                "no_value",
                "ok:y=\"2\""
            ])
        );
    }
}

#[test]
fn conditional_has_two_paths() {
    let (p, e) = run(
        &fixture("branching.catala_en"),
        "IfScope",
        Optimizations::ALL,
    );
    assert_eq!(outcomes(&p, &e), sorted(&["ok:y=\"1\"", "ok:y=\"2\""]));
}

#[test]
fn match_explores_every_case_and_payload_branch() {
    // Point, Segment n > 0, Segment n ≤ 0, Plane.
    let (p, e) = run(
        &fixture("branching.catala_en"),
        "MatchScope",
        Optimizations::ALL,
    );
    let mut got = outcomes(&p, &e);
    got.dedup();
    assert_eq!(e.tests.len(), 4);
    assert!(got.contains(&"ok:y=\"7\"".to_string()), "{got:?}");
    assert!(got.contains(&"ok:y=\"0\"".to_string()), "{got:?}");
    let segments = e
        .tests
        .iter()
        .filter(|t| inputs_json(&p, t).iter().any(|i| i.contains("Segment")))
        .count();
    assert_eq!(segments, 2);
}

#[test]
fn division_branches_on_zero() {
    let (p, e) = run(
        &fixture("branching.catala_en"),
        "DivScope",
        Optimizations::ALL,
    );
    let got = outcomes(&p, &e);
    assert_eq!(got.len(), 2);
    assert!(got.contains(&"division_by_zero".to_string()));
    assert!(got.iter().any(|o| o.starts_with("ok:")));
}

#[test]
fn money_rounding_is_half_away_from_zero() {
    // Only $0.01 (resp. -$0.01) halves to one cent (resp. minus one cent) after rounding.
    let (p, e) = run(
        &fixture("branching.catala_en"),
        "RoundScope",
        Optimizations::ALL,
    );
    assert_eq!(
        outcomes(&p, &e),
        sorted(&["ok:y=\"1\"", "ok:y=\"-1\"", "ok:y=\"0\""])
    );
    for t in &e.tests {
        let Outcome::Ok(outs) = &t.outcome else {
            panic!("unexpected error")
        };
        let y = value_to_json(&p, &outs[0].1).to_string();
        let m = inputs_json(&p, t).join("");
        match y.as_str() {
            "\"1\"" => assert_eq!(m, "\"0.01\""),
            "\"-1\"" => assert_eq!(m, "\"-0.01\""),
            _ => {}
        }
    }
}

#[test]
fn labels_order_exceptions() {
    let (p, e) = run(
        &fixture("branching.catala_en"),
        "LabelScope",
        Optimizations::ALL,
    );
    assert_eq!(
        outcomes(&p, &e),
        sorted(&["ok:y=\"0\"", "ok:y=\"1\"", "ok:y=\"2\""])
    );
}

#[test]
fn failing_assertion_is_an_outcome() {
    // Without the input space: the assertion on the input is a branch where Catala checks it.
    let (p, e) = run(
        &fixture("branching.catala_en"),
        "AssertScope",
        Optimizations {
            input_space: false,
            ..Optimizations::ALL
        },
    );
    assert_eq!(
        outcomes(&p, &e),
        sorted(&["assertion", "ok:y=\"0\"", "ok:y=\"1\""])
    );
}

fn corpus() -> Option<PathBuf> {
    let c = workspace().join("../shared/corpus/cutecat-benchmarks");
    if c.is_dir() {
        Some(c)
    } else {
        eprintln!("corpus not found at {}: skipped", c.display());
        None
    }
}

#[test]
fn running_example_finds_the_large_low_income_conflict() {
    let Some(c) = corpus() else { return };
    let path = c.join("running_example/running_example.catala_en");
    let (p, e) = run(&path, "IncomeTaxComputation", Optimizations::ALL);
    assert_eq!(e.tests.len(), 4);
    let conflicts: Vec<_> = e
        .tests
        .iter()
        .filter(|t| matches!(&t.outcome, Outcome::Error(err) if err.kind.as_str() == "conflict"))
        .collect();
    assert_eq!(conflicts.len(), 1);
    // Low income (at most $10,000) and at least 3 children.
    let inputs = inputs_json(&p, conflicts[0]).join("");
    let v: serde_json::Value = serde_json::from_str(&inputs).unwrap_or_default();
    let income: f64 = v["income"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(-1.0);
    let children: i64 = v["nb_children"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or(-1);
    assert!(income <= 10_000.0 && children >= 3, "{inputs}");
    // Both conflicting definitions are reported.
    if let Outcome::Error(err) = &conflicts[0].outcome {
        assert_eq!(err.labels.len(), 2);
    }
    // Soft constraints: every income is a multiple of $100 (e.g. $10,100, not $10,000.01).
    for t in &e.tests {
        let j = inputs_json(&p, t).join("");
        let v: serde_json::Value = serde_json::from_str(&j).unwrap_or_default();
        let income: f64 = v["income"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0.5);
        assert_eq!(income % 100.0, 0.0, "{j}");
    }
}

#[test]
fn running_fixed_has_no_conflict() {
    let Some(c) = corpus() else { return };
    let path = c.join("running_example/running_fixed.catala_en");
    let (_, e) = run(&path, "IncomeTaxComputation", Optimizations::ALL);
    assert!(!e.tests.is_empty());
    assert!(e.tests.iter().all(|t| t.outcome.kind() != "conflict"));
}

#[test]
fn emitted_test_scopes_replay_and_pass() {
    // Every path that computes outputs becomes a #[test] scope that passes when replayed.
    for scope in ["RoundScope", "MatchScope", "LabelScope"] {
        let src = fixture("branching.catala_en");
        let (p, e) = run(&src, scope, Optimizations::ALL);
        let dir =
            std::env::temp_dir().join(format!("concolic-emit-{}-{scope}", std::process::id()));
        let Some(id) = p.scope_by_name(scope) else {
            panic!("no scope {scope}")
        };
        let file = match concolic::emit::write_test_file(&p, id, &e, &src, &dir) {
            Ok(f) => f,
            Err(err) => panic!("cannot write tests: {err}"),
        };
        let tests = load(&file);
        let results = catala_eval::run_test_scopes(&tests);
        let ok = e.tests.iter().filter(|t| t.outcome.kind() == "ok").count();
        assert_eq!(results.len(), ok, "{scope}");
        for (id, r) in &results {
            let passed = r.as_ref().is_ok_and(|r| r.passed());
            assert!(passed, "{} failed", tests.scope(*id).name);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn duplicated_exceptions_are_detected_as_conflicts() {
    // Duplicating an exception makes two rules apply at once whenever it applies: a conflict
    // the original program does not have.
    let src = fixture("branching.catala_en");
    let program = load(&src);
    let Some(id) = program.scope_by_name("LabelScope") else {
        panic!("no scope LabelScope")
    };
    let options = concolic::mutation::MutationOptions {
        seed: 7,
        count: 1000,
        explore: ExploreOptions::default(),
        witnesses: None,
    };
    let run = match concolic::mutation::run_mutants(&program, id, &options) {
        Ok(r) => r,
        Err(err) => panic!("mutation run failed: {err}"),
    };
    let duplicates: Vec<_> = run
        .reports
        .iter()
        .filter(|r| r.mutation.kind == concolic::mutation::MutationKind::DuplicateException)
        .collect();
    assert!(!duplicates.is_empty());
    for r in duplicates {
        assert!(r.detected, "{:?} not detected", r.mutation);
        assert!(r.time_to_detection.is_some());
        // The exploration stops at the first detection: not all 4 paths are needed.
        assert!(r.tests <= 4);
    }
}

/// `LabelScope` of branching.catala_en and a campaign over all its mutants, confirmed on the
/// three inputs of the original's complete exploration (b; a and not b; neither).
fn label_scope_campaign() -> (
    PathBuf,
    Program,
    catala_ir::dcalc::ScopeId,
    concolic::mutation::MutationOptions,
) {
    let src = fixture("branching.catala_en");
    let program = load(&src);
    let Some(id) = program.scope_by_name("LabelScope") else {
        panic!("no scope LabelScope")
    };
    let original = match explore(&program, id, &ExploreOptions::default()) {
        Ok(e) => e,
        Err(err) => panic!("exploration failed: {err}"),
    };
    assert_eq!(original.tests.len(), 3);
    let options = concolic::mutation::MutationOptions {
        seed: 3,
        count: concolic::mutation::candidate_mutations(&program, id).len(),
        explore: ExploreOptions::default(),
        witnesses: Some(original.tests.iter().map(|t| t.inputs.clone()).collect()),
    };
    (src, program, id, options)
}

#[test]
fn witnesses_keep_only_mutants_with_a_reachable_issue() {
    // A duplicated exception fails on the witness where it applies, so every duplication is
    // kept; removing the rule `b` or `a` leaves the base rule `y = 0` to cover their cases,
    // so such mutants are set aside.
    let (_, program, id, options) = label_scope_campaign();
    let all = concolic::mutation::candidate_mutations(&program, id);
    let duplications = all
        .iter()
        .filter(|m| m.kind == concolic::mutation::MutationKind::DuplicateException)
        .count();
    assert!(duplications > 0);
    let run = match concolic::mutation::run_mutants(&program, id, &options) {
        Ok(r) => r,
        Err(err) => panic!("mutation run failed: {err}"),
    };
    assert_eq!(run.drawn, all.len());
    assert!(run.unconfirmed > 0);
    assert_eq!(run.reports.len() + run.unconfirmed, all.len());
    let kept_duplications = run
        .reports
        .iter()
        .filter(|r| r.mutation.kind == concolic::mutation::MutationKind::DuplicateException)
        .count();
    assert_eq!(kept_duplications, duplications);
    for r in &run.reports {
        assert!(r.detected, "{:?} confirmed but not detected", r.mutation);
    }
}

#[test]
fn both_orders_side_by_side_detect_every_confirmed_mutant() {
    // The same campaign, each mutant explored depth-first and new-branches-first in two
    // threads: the same mutants kept, all detected.
    let (src, program, id, options) = label_scope_campaign();
    let one = match concolic::mutation::run_mutants(&program, id, &options) {
        Ok(r) => r,
        Err(err) => panic!("mutation run failed: {err}"),
    };
    let setup = || Ok(load(&src));
    let both = match concolic::mutation::run_mutants_both_orders(&program, id, &options, &setup) {
        Ok(r) => r,
        Err(err) => panic!("mutation run failed: {err}"),
    };
    let kept = |r: &concolic::mutation::MutationRun| -> Vec<_> {
        r.reports.iter().map(|m| m.mutation).collect()
    };
    assert!(!both.reports.is_empty());
    assert_eq!(kept(&both), kept(&one));
    for r in &both.reports {
        assert!(r.detected, "{:?} not detected", r.mutation);
    }
}

#[test]
fn hints_give_the_first_inputs() {
    let src = fixture("branching.catala_en");
    let program = load(&src);
    let Some(id) = program.scope_by_name("IfScope") else {
        panic!("no scope IfScope")
    };
    let options = ExploreOptions {
        hints: Some(serde_json::json!({"x": 42})),
        ..ExploreOptions::default()
    };
    let e = match explore(&program, id, &options) {
        Ok(e) => e,
        Err(err) => panic!("{err}"),
    };
    assert_eq!(
        inputs_json(&program, &e.tests[0]),
        vec!["\"42\"".to_string()]
    );
    assert_eq!(e.tests.len(), 2);
    let bad = ExploreOptions {
        hints: Some(serde_json::json!({"nope": 1})),
        ..ExploreOptions::default()
    };
    assert!(explore(&program, id, &bad).is_err());
}

#[test]
fn context_variables_are_given_or_defined() {
    // Given (c = 0 by default, y = 1); not given with flag (c = 5, y = 6); not given without
    // flag: no applicable rule for c.
    let (p, e) = run(
        &fixture("branching.catala_en"),
        "ContextScope",
        Optimizations::ALL,
    );
    assert_eq!(
        outcomes(&p, &e),
        sorted(&["no_value", "ok:y=\"1\"", "ok:y=\"6\""])
    );
}

#[test]
fn case_folding_merges_cases_with_the_same_arm() {
    // Point and Plane share their arm: one path for both with folding, one each without.
    let src = fixture("branching.catala_en");
    let (p, folded) = run(&src, "FoldScope", Optimizations::ALL);
    let (_, plain) = run(&src, "FoldScope", Optimizations::NONE);
    let mut got = outcomes(&p, &folded);
    got.dedup();
    assert_eq!(got, sorted(&["ok:y=\"1\"", "ok:y=\"2\""]));
    assert_eq!(folded.tests.len(), 2);
    assert_eq!(plain.tests.len(), 3);
}

#[test]
fn variables_are_computed_in_breadth_first_dependency_order() {
    // The paper's order: b (reading only x) before t, which branches on y: when b has no
    // rule, the run stops before that branch. Three paths.
    let (p, e) = run_in(
        &fixture("branching.catala_en"),
        "OrderScope",
        Optimizations::ALL,
        EvaluationOrder::Paper,
    );
    assert_eq!(
        outcomes(&p, &e),
        sorted(&["no_value", "ok:a=\"2\",b=\"3\"", "ok:a=\"3\",b=\"3\""])
    );
    // Catala's order: among the ready definitions the first declared, t (then a) before b:
    // t branches on y before b fails. Four paths, two of them without a rule for b.
    let (p, e) = run(
        &fixture("branching.catala_en"),
        "OrderScope",
        Optimizations::ALL,
    );
    assert_eq!(
        outcomes(&p, &e),
        sorted(&[
            "no_value",
            "no_value",
            "ok:a=\"2\",b=\"3\"",
            "ok:a=\"3\",b=\"3\""
        ])
    );
}

/// Test counts of CUTECat (the paper's implementation, all optimizations) on the Section 132,
/// SMIC and family-quotient benchmarks (issue 3, item 7c; the paper's Table 4), explored in
/// the paper's order.
#[test]
fn paper_benchmarks_have_cutecats_test_counts() {
    let Some(c) = corpus() else { return };
    // Tests and solver calls of CUTECat with every optimization (issue figures from the
    // paper's tool run on these files): the same tests, no more calls.
    for (file, scope, count, calls) in [
        (
            "us_tax_code/section_132.catala_en",
            "QualifiedEmployeeDiscount",
            10,
            24,
        ),
        ("smic/smic.catala_fr", "Smic", 17, 138),
        ("impot_revenu/nombre_de_parts.catala_fr", "Test", 381, 4_142),
    ] {
        // The paper's tool explores the paths of runs that fail an assertion too.
        let paper = Optimizations {
            input_space: false,
            ..Optimizations::ALL
        };
        let (_, e) = run_in(&c.join(file), scope, paper, EvaluationOrder::Paper);
        assert_eq!(e.tests.len(), count, "{file}");
        assert!(
            e.stats.solver_calls <= calls,
            "{file}: {}",
            e.stats.solver_calls
        );
    }
    // Without optimizations CUTECat makes 41 calls on Section 132. The IR's own wrapper
    // deciding whether a context input is given must not add a (ground) constraint of its own:
    // with it, every path through `aggregate_cost` had one more, and the run 42 calls.
    let (_, e) = run_in(
        &c.join("us_tax_code/section_132.catala_en"),
        "QualifiedEmployeeDiscount",
        Optimizations::NONE,
        EvaluationOrder::Paper,
    );
    assert_eq!(e.tests.len(), 10);
    assert!(e.stats.solver_calls <= 41, "{}", e.stats.solver_calls);
}

#[test]
fn lazy_defaults_stop_at_the_second_applicable_exception() {
    // Exceptions b1 :- 1, b2 :- 2, x > 0 :- 3 over the base 0. Eager evaluation (Fig. 2):
    // the 8 combinations of b1, b2, x > 0, four of them conflicts. Lazy evaluation (Fig. 9):
    // b1 and b2 together are a conflict whatever x is, one path instead of two.
    let src = fixture("lazy_conflict.catala_en");
    let ok = ["ok:y=\"0\"", "ok:y=\"1\"", "ok:y=\"2\"", "ok:y=\"3\""];
    let eager = Optimizations {
        lazy_defaults: false,
        ..Optimizations::ALL
    };
    let (p, e) = run(&src, "LazyConflict", eager);
    let mut expected = ok.to_vec();
    expected.extend(["conflict"; 4]);
    assert_eq!(outcomes(&p, &e), sorted(&expected));
    let (p, e) = run(&src, "LazyConflict", Optimizations::ALL);
    let mut expected = ok.to_vec();
    expected.extend(["conflict"; 3]);
    assert_eq!(outcomes(&p, &e), sorted(&expected));
    // The conflict of b1 and b2 names exactly these two rules.
    for t in &e.tests {
        if let Outcome::Error(err) = &t.outcome {
            assert_eq!(err.labels.len(), 2, "{}", err.message);
        }
    }
    let lazy_only = Optimizations::parse("lazy").map(|o| o.lazy_defaults);
    assert!(matches!(lazy_only, Ok(true)));
}

#[test]
fn packing_puts_exceptions_with_the_same_variables_together() {
    // Exceptions b :- 1, x > 0 :- 2, b :- 3 over the base 0, evaluated lazily. In source
    // order, b holding gives two conflicts (x > 0 is evaluated between the two b exceptions);
    // packed as b :- 1, b :- 3, x > 0 :- 2, one conflict. Either way 2 and 0 when b fails.
    let src = fixture("packing.catala_en");
    let unpacked = Optimizations {
        exception_packing: false,
        ..Optimizations::ALL
    };
    let (p, e) = run_lenient(&src, "Packing", unpacked);
    assert_eq!(
        outcomes(&p, &e),
        sorted(&["conflict", "conflict", "ok:y=\"0\"", "ok:y=\"2\""])
    );
    let (p, e) = run_lenient(&src, "Packing", Optimizations::ALL);
    assert_eq!(
        outcomes(&p, &e),
        sorted(&["conflict", "ok:y=\"0\"", "ok:y=\"2\""])
    );
    let packing_only = Optimizations::parse("reorder").map(|o| o.exception_packing);
    assert!(matches!(packing_only, Ok(true)));
}

#[test]
fn early_conflicts_skip_the_other_outcomes_of_earlier_exceptions() {
    // Base 0 with exceptions `a > 0 :- 10` and the group `reduced` (`c :- 1`), whose own two
    // exceptions `b :- 2`, `b :- 3` conflict when b holds. Without the early-conflict rule:
    // 0, 1, conflict (b), 10, conflict (10 and 1), conflict (a > 0 and b) — six paths. With
    // it (Fig. 10), the conflict inside `reduced` found for a ≤ 0 does not depend on a, so
    // a > 0 is explored only where b does not hold: the sixth path is not needed.
    let src = fixture("early_conflict.catala_en");
    let ok = ["ok:y=\"0\"", "ok:y=\"1\"", "ok:y=\"10\""];
    let without = Optimizations {
        early_conflicts: false,
        ..Optimizations::ALL
    };
    let (p, e) = run(&src, "EarlyConflict", without);
    let mut expected = ok.to_vec();
    expected.extend(["conflict"; 3]);
    assert_eq!(outcomes(&p, &e), sorted(&expected));
    assert_eq!(e.stats.early_lemmas, 0);
    let (p, e) = run(&src, "EarlyConflict", Optimizations::ALL);
    let mut expected = ok.to_vec();
    expected.extend(["conflict"; 2]);
    assert_eq!(outcomes(&p, &e), sorted(&expected));
    assert_eq!(e.stats.early_lemmas, 1);
    // Still every distinct conflict: the one inside `reduced` and the one of 10 against 1.
    let mut conflict_rules: Vec<usize> = e
        .tests
        .iter()
        .filter_map(|t| match &t.outcome {
            Outcome::Error(err) => Some(err.labels.len()),
            _ => None,
        })
        .collect();
    conflict_rules.sort();
    assert_eq!(conflict_rules, vec![2, 2]);
    assert!(matches!(
        Optimizations::parse("all,-early").map(|o| (o.early_conflicts, o.lazy_defaults)),
        Ok((false, true))
    ));
}

#[test]
fn queries_of_the_tests_add_up_to_the_path_queries() {
    // One worker: the queries each test reports (asked since the previous test) sum to the
    // exploration's path queries but those asked after the last test (negations found
    // unsatisfiable at the end).
    let (_, e) = run(
        &fixture("fig5_default.catala_en"),
        "Fig5",
        Optimizations::NONE,
    );
    let summed: u64 = e.tests.iter().map(|t| t.queries).sum();
    assert!(summed > 0);
    assert!(
        summed <= e.stats.solver_calls,
        "{summed} > {}",
        e.stats.solver_calls
    );
    // The first test needs no query (it runs on the initial inputs).
    assert_eq!(e.tests[0].queries, 0);
}
