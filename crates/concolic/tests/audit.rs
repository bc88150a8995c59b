//! The completeness audit on the fixtures: every complete exploration of a fixture scope holds
//! the path of every seeded random input within its input space; a path left out of an
//! exploration is found by the audit; an exploration cut short is seen to miss paths.

use catala_ir::dcalc::{Program, ScopeId};
use concolic::audit::{audit, AuditOptions, AuditReport};
use concolic::{explore, Exploration, ExploreOptions};
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

fn explored_inputs(e: &Exploration) -> Vec<Vec<Option<catala_eval::Value>>> {
    e.tests.iter().map(|t| t.inputs.clone()).collect()
}

fn explore_and_audit(
    program: &Program,
    scope: ScopeId,
    options: &ExploreOptions,
    runs: usize,
) -> (Exploration, AuditReport) {
    let e = match explore(program, scope, options) {
        Ok(e) => e,
        Err(err) => panic!("exploration failed: {err}"),
    };
    let settings = AuditOptions {
        runs,
        seed: 20,
        ..AuditOptions::default()
    };
    match audit(program, scope, options, &explored_inputs(&e), &settings) {
        Ok(r) => (e, r),
        Err(err) => panic!("audit failed: {err}"),
    }
}

/// Every scope with inputs of the concolic fixtures.
fn fixture_scopes() -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    for dir in ["concolic", "concolic_dates", "concolic_inputs"] {
        let Ok(entries) = std::fs::read_dir(workspace().join("tests/fixtures").join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.filter_map(|e| Some(e.ok()?.path())).collect();
        files.sort();
        for f in files {
            let program = load(&f);
            for s in &program.scopes {
                if s.module.is_none() && !s.inputs.is_empty() {
                    out.push((f.clone(), s.name.clone()));
                }
            }
        }
    }
    out
}

#[test]
fn complete_explorations_of_the_fixtures_hold_every_random_path() {
    let scopes = fixture_scopes();
    assert!(scopes.len() >= 15, "fixture scopes found: {}", scopes.len());
    let mut audited = 0;
    for (file, name) in scopes {
        let program = load(&file);
        let Some(scope) = program.scope_by_name(&name) else {
            panic!("no scope {name}")
        };
        let options = ExploreOptions {
            check: false,
            max_tests: Some(5_000),
            ..ExploreOptions::default()
        };
        let (e, r) = explore_and_audit(&program, scope, &options, 400);
        if !e.stats.complete {
            continue;
        }
        audited += 1;
        assert!(r.in_space > 0, "{name}: no random input within the space");
        assert_eq!(
            r.missing_traces,
            0,
            "{}:{name}: complete, yet random inputs took {} paths it did not find: {:?}",
            file.display(),
            r.missing_traces,
            r.examples
        );
        assert!(
            r.random_traces <= r.explored_traces + r.merged_traces,
            "{name}: {r:?}"
        );
    }
    assert!(audited >= 12, "complete explorations audited: {audited}");
}

/// The discount fixture has two paths within its input space (a taxable excess or none); with
/// one of its tests left out, random prices on that path take a path the exploration "missed".
#[test]
fn a_path_left_out_of_an_exploration_is_found() {
    let program = load(&workspace().join("tests/fixtures/concolic/discount.catala_en"));
    let Some(scope) = program.scope_by_name("Discount") else {
        panic!("no scope Discount")
    };
    let options = ExploreOptions {
        check: false,
        ..ExploreOptions::default()
    };
    let e = match explore(&program, scope, &options) {
        Ok(e) => e,
        Err(err) => panic!("exploration failed: {err}"),
    };
    assert!(e.stats.complete);
    let settings = AuditOptions {
        runs: 1_000,
        seed: 3,
        ..AuditOptions::default()
    };
    let all = explored_inputs(&e);
    let full = match audit(&program, scope, &options, &all, &settings) {
        Ok(r) => r,
        Err(err) => panic!("audit failed: {err}"),
    };
    assert_eq!(full.missing_traces, 0);
    // Without each test in turn: the paths random inputs reach and that only this test had
    // are now missing. Every path reached at random is some test's, so leaving out the tests
    // one at a time must, for some test, make paths go missing.
    let mut found_missing = false;
    for skip in 0..all.len() {
        let fewer: Vec<_> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != skip)
            .map(|(_, t)| t.clone())
            .collect();
        let r = match audit(&program, scope, &options, &fewer, &settings) {
            Ok(r) => r,
            Err(err) => panic!("audit failed: {err}"),
        };
        assert!(r.missing_traces <= 1, "one test left out: {r:?}");
        if r.missing_traces == 1 {
            found_missing = true;
            assert!(r.missing_runs > 0 && !r.examples.is_empty());
        }
    }
    assert!(
        found_missing,
        "leaving out a test never made a path go missing"
    );
}

/// An exploration stopped after one test is not complete, and random inputs show paths it
/// did not reach (for the scopes whose other paths random inputs reach at all).
#[test]
fn an_exploration_cut_short_misses_paths() {
    let program = load(&workspace().join("tests/fixtures/concolic/branching.catala_en"));
    let mut checked = 0;
    for s in &program.scopes {
        let Some(scope) = program.scope_by_name(&s.name) else {
            continue;
        };
        let whole = ExploreOptions {
            check: false,
            ..ExploreOptions::default()
        };
        let (e, _) = explore_and_audit(&program, scope, &whole, 300);
        if e.stats.tests < 3 {
            continue;
        }
        let cut = ExploreOptions {
            max_tests: Some(1),
            ..whole
        };
        let (e, r) = explore_and_audit(&program, scope, &cut, 300);
        assert!(!e.stats.complete);
        if r.missing_traces >= 1 {
            checked += 1;
        }
    }
    assert!(
        checked >= 3,
        "scopes cut short where random inputs found missing paths: {checked}"
    );
}

/// The early-conflict rule leaves out the paths of the earlier exceptions once a later one
/// fails: in the fixture, `a > 0` with `b` ends in the conflict of the `reduced` group just as
/// `a <= 0` with `b` does. The audit counts that path as merged, not missing; with the rule
/// off, the exploration has it.
#[test]
fn paths_left_out_by_early_conflicts_are_counted_apart() {
    let program = load(&workspace().join("tests/fixtures/concolic/early_conflict.catala_en"));
    let Some(scope) = program.scope_by_name("EarlyConflict") else {
        panic!("no scope EarlyConflict")
    };
    let with_rule = ExploreOptions {
        check: false,
        ..ExploreOptions::default()
    };
    let (e, r) = explore_and_audit(&program, scope, &with_rule, 400);
    assert!(e.stats.complete);
    assert_eq!((r.missing_traces, r.merged_traces), (0, 1), "{r:?}");
    let mut optimizations = concolic::Optimizations::ALL;
    optimizations.early_conflicts = false;
    let without = ExploreOptions {
        optimizations,
        ..with_rule
    };
    let (e, r) = explore_and_audit(&program, scope, &without, 400);
    assert!(e.stats.complete);
    assert_eq!(e.stats.tests, 6);
    assert_eq!((r.missing_traces, r.merged_traces), (0, 0), "{r:?}");
}

/// A function input cannot be drawn at random: the scope is named as not audited, with no
/// run, rather than audited on meaningless values.
#[test]
fn a_scope_with_a_function_input_is_not_audited() {
    let program = load(&workspace().join("tests/fixtures/concolic_inputs/fixed.catala_en"));
    let Some(scope) = program.scope_by_name("WithFunction") else {
        panic!("no scope WithFunction")
    };
    let options = ExploreOptions {
        check: false,
        ..ExploreOptions::default()
    };
    let (e, r) = explore_and_audit(&program, scope, &options, 100);
    assert!(!e.stats.complete);
    assert_eq!(r.undrawable, vec!["rate".to_string()]);
    assert_eq!((r.runs, r.in_space), (0, 0));
}
