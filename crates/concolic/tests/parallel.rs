//! Parallel exploration finds the paths of the sequential one: the same path conditions (as
//! printed terms, which do not depend on the concrete inputs chosen), each once, with the same
//! outcome kinds.

use catala_ir::dcalc::Program;
use concolic::parallel::explore_parallel;
use concolic::{explore, Control, ExploreOptions, Optimizations, Strategy};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(path: &Path) -> Result<Program, String> {
    let (sources, parsed) = catala_syntax::parse_file_with_sources(path);
    let ast = parsed.map_err(|d| format!("{}: {}", path.display(), d.message))?;
    catala_ir::compile(&sources, &ast)
        .map_err(|ds| format!("{}: {} errors", path.display(), ds.len()))
}

/// Every optimization but the input space: the paper's tool explores the paths of runs that
/// fail an assertion too, and these tests compare with its path counts.
const PAPER_COUNTS: Optimizations = Optimizations {
    input_space: false,
    ..Optimizations::ALL
};

/// The paper's order: these tests compare with the paper's path counts (381, 17, …).
fn options() -> ExploreOptions {
    ExploreOptions {
        order: concolic::EvaluationOrder::Paper,
        optimizations: PAPER_COUNTS,
        keep_constraints: true,
        check: true,
        ..ExploreOptions::default()
    }
}

/// The program and the scope's id.
fn load_scope(path: &Path, scope: &str) -> (Program, catala_ir::dcalc::ScopeId) {
    let program = match load(path) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let Some(id) = program.scope_by_name(scope) else {
        panic!("no scope {scope}")
    };
    (program, id)
}

/// A path as its outcome kind and its printed path condition.
fn line(t: &concolic::TestCase) -> String {
    format!("{} {}", t.outcome.kind(), t.constraints.join(" ∧ "))
}

/// The paths of a sequential exploration with every optimization, sorted.
fn sequential_paths(path: &Path, scope: &str) -> Vec<String> {
    paths_with(path, scope, PAPER_COUNTS)
}

fn parallel_paths(path: &Path, scope: &str, jobs: usize) -> Vec<String> {
    let (program, id) = load_scope(path, scope);
    let found: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let e = explore_parallel(jobs, &program, id, &options(), &|_, t| {
        found
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(line(t));
        Control::Continue
    });
    let e = match e {
        Ok(e) => e,
        Err(err) => panic!("parallel exploration failed: {err}"),
    };
    complete_but_relabelled(&e);
    let mut v = found.into_inner().unwrap_or_else(|p| p.into_inner());
    assert_eq!(v.len(), e.stats.tests);
    v.sort();
    v
}

/// Fixture scopes (file, scope) with defaults, exceptions, labels, conditions, folded
/// matches, lazy conflicts, packed exceptions and money.
const SMALL_SCOPES: [(&str, &str); 6] = [
    ("fig5_default.catala_en", "Fig5"),
    ("branching.catala_en", "LabelScope"),
    ("branching.catala_en", "FoldScope"),
    ("lazy_conflict.catala_en", "LazyConflict"),
    ("packing.catala_en", "Packing"),
    ("discount.catala_en", "Discount"),
];

#[test]
fn parallel_exploration_finds_the_sequential_paths_on_small_scopes() {
    let dir = workspace().join("tests/fixtures/concolic");
    for (file, scope) in SMALL_SCOPES {
        let path = dir.join(file);
        let seq = sequential_paths(&path, scope);
        for jobs in [2, 3] {
            assert_eq!(
                parallel_paths(&path, scope, jobs),
                seq,
                "{file} {scope} jobs={jobs}"
            );
        }
    }
}

#[test]
fn parallel_exploration_finds_the_381_paths_of_the_family_quotient() {
    let corpus = workspace().join("../shared/corpus/cutecat-benchmarks");
    if !corpus.is_dir() {
        eprintln!("corpus not found at {}: test skipped", corpus.display());
        return;
    }
    let path = corpus.join("impot_revenu/nombre_de_parts.catala_fr");
    let seq = sequential_paths(&path, "Test");
    assert_eq!(seq.len(), 381);
    let par = parallel_paths(&path, "Test", 2);
    assert_eq!(par, seq);
}

/// A complete sequential exploration with `options`, replayed without mismatch.
fn explore_checked(path: &Path, scope: &str, options: &ExploreOptions) -> concolic::Exploration {
    let (program, id) = load_scope(path, scope);
    let e = match explore(&program, id, options) {
        Ok(e) => e,
        Err(err) => panic!("exploration failed: {err}"),
    };
    complete_but_relabelled(&e);
    e
}

/// Every path explored, but in the paper's order some tests' paths may end otherwise than
/// the plain run on their inputs (Catala's order): each such test is counted, and each replay
/// mismatch is one of them.
fn complete_but_relabelled(e: &concolic::Exploration) {
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

/// Each path as outcome and printed path condition, sorted.
fn sorted_paths(e: &concolic::Exploration) -> Vec<String> {
    let mut v: Vec<String> = e.tests.iter().map(line).collect();
    v.sort();
    v
}

/// Each path as outcome and printed path condition, with the given optimizations, sorted.
fn paths_with(path: &Path, scope: &str, optimizations: Optimizations) -> Vec<String> {
    let options = ExploreOptions {
        optimizations,
        ..options()
    };
    sorted_paths(&explore_checked(path, scope, &options))
}

#[test]
fn queries_answered_without_z3_give_the_same_paths() {
    let slow = Optimizations {
        fast_queries: false,
        guesses: false,
        ..PAPER_COUNTS
    };
    let dir = workspace().join("tests/fixtures/concolic");
    let mut cases: Vec<(PathBuf, &str, Option<usize>)> = vec![
        (dir.join("fig5_default.catala_en"), "Fig5", Some(5)),
        (dir.join("branching.catala_en"), "LabelScope", Some(3)),
        (dir.join("branching.catala_en"), "FoldScope", None),
        (
            dir.join("early_conflict.catala_en"),
            "EarlyConflict",
            Some(5),
        ),
        (dir.join("discount.catala_en"), "Discount", Some(3)),
    ];
    let corpus = workspace().join("../shared/corpus/cutecat-benchmarks");
    if corpus.is_dir() {
        cases.push((corpus.join("smic/smic.catala_fr"), "Smic", Some(17)));
        cases.push((
            corpus.join("us_tax_code/section_132.catala_en"),
            "QualifiedEmployeeDiscount",
            Some(10),
        ));
        cases.push((
            corpus.join("running_example/running_example.catala_en"),
            "IncomeTaxComputation",
            Some(4),
        ));
        cases.push((
            corpus.join("impot_revenu/nombre_de_parts.catala_fr"),
            "Test",
            Some(381),
        ));
    } else {
        eprintln!(
            "corpus not found at {}: SMIC and family quotient skipped",
            corpus.display()
        );
    }
    for (path, scope, count) in cases {
        let fast = paths_with(&path, scope, PAPER_COUNTS);
        if let Some(n) = count {
            assert_eq!(fast.len(), n, "{scope}");
        }
        assert_eq!(fast, paths_with(&path, scope, slow), "{scope}");
    }
}

#[test]
fn guessed_models_answer_the_satisfiable_money_queries() {
    // Three paths: the assertion fails; it holds and the discount is excessive or not. Each of
    // the two queries negates one comparison of amounts that the previous inputs violate by a
    // small change, so both are answered by a guessed model, with amounts in whole $100.
    let path = workspace().join("tests/fixtures/concolic/discount.catala_en");
    let e = explore_checked(&path, "Discount", &options());
    assert_eq!(e.stats.tests, 3);
    assert_eq!(e.stats.solver_calls, 2);
    assert_eq!(e.stats.guessed_queries, 2);
    assert_eq!(e.stats.soft_solver_calls, 0);
    assert_eq!(e.stats.by_roundness.get("Hundreds"), Some(&3));
    let mut kinds: Vec<&str> = e.tests.iter().map(|t| t.outcome.kind()).collect();
    kinds.sort();
    assert_eq!(kinds, ["assertion", "ok", "ok"]);
}

/// The outcome kinds in the order found, and the sorted paths, with a strategy.
fn explore_in_order(path: &Path, scope: &str, strategy: Strategy) -> (Vec<String>, Vec<String>) {
    let options = ExploreOptions {
        strategy,
        ..options()
    };
    let e = explore_checked(path, scope, &options);
    let order = e
        .tests
        .iter()
        .map(|t| t.outcome.kind().to_string())
        .collect();
    (order, sorted_paths(&e))
}

#[test]
fn new_branches_first_finds_the_depth_first_paths() {
    let dir = workspace().join("tests/fixtures/concolic");
    let mut cases: Vec<PathBuf> = Vec::new();
    let mut scopes = Vec::new();
    let more = [
        ("early_conflict.catala_en", "EarlyConflict"),
        ("late_branch.catala_en", "Late"),
    ];
    for (file, scope) in SMALL_SCOPES.into_iter().chain(more) {
        cases.push(dir.join(file));
        scopes.push(scope);
    }
    let corpus = workspace().join("../shared/corpus/cutecat-benchmarks");
    if corpus.is_dir() {
        cases.push(corpus.join("impot_revenu/nombre_de_parts.catala_fr"));
        scopes.push("Test");
    } else {
        eprintln!("corpus not found: family quotient skipped");
    }
    for (path, scope) in cases.iter().zip(scopes) {
        let (_, dfs) = explore_in_order(path, scope, Strategy::DepthFirst);
        let (_, nbf) = explore_in_order(path, scope, Strategy::NewBranchesFirst);
        assert_eq!(nbf, dfs, "{scope}");
    }
}

#[test]
fn new_branches_first_reaches_an_untaken_branch_sooner() {
    // Derived by hand in the fixture: 17 paths; the run with `exempt` (no rule for `rate`)
    // comes last depth-first, and once the four other conditions have each been tried both
    // ways (runs 2 to 5) when untaken branches go first.
    let path = workspace().join("tests/fixtures/concolic/late_branch.catala_en");
    let (dfs, _) = explore_in_order(&path, "Late", Strategy::DepthFirst);
    let (nbf, _) = explore_in_order(&path, "Late", Strategy::NewBranchesFirst);
    assert_eq!(dfs.len(), 17);
    assert_eq!(nbf.len(), 17);
    let first_missing = |v: &[String]| v.iter().position(|k| k == "no_value");
    assert_eq!(first_missing(&dfs), Some(16));
    assert_eq!(first_missing(&nbf), Some(5));
}

#[test]
fn coverage_guided_order_finds_the_depth_first_paths() {
    let dir = workspace().join("tests/fixtures/concolic");
    let more = [
        ("early_conflict.catala_en", "EarlyConflict"),
        ("late_branch.catala_en", "Late"),
    ];
    for (file, scope) in SMALL_SCOPES.into_iter().chain(more) {
        let path = dir.join(file);
        let (_, dfs) = explore_in_order(&path, scope, Strategy::DepthFirst);
        let (_, cov) = explore_in_order(&path, scope, Strategy::CoverageGuided);
        assert_eq!(cov, dfs, "{scope}");
    }
    let corpus = workspace().join("../shared/corpus/cutecat-benchmarks");
    if corpus.is_dir() {
        let path = corpus.join("impot_revenu/nombre_de_parts.catala_fr");
        let (_, dfs) = explore_in_order(&path, "Test", Strategy::DepthFirst);
        let (_, cov) = explore_in_order(&path, "Test", Strategy::CoverageGuided);
        assert_eq!(cov.len(), 381);
        assert_eq!(cov, dfs);
    } else {
        eprintln!("corpus not found: family quotient skipped");
    }
}

#[test]
fn coverage_guided_order_reaches_the_untaken_branch_first_too() {
    // The fixture of `new_branches_first_reaches_an_untaken_branch_sooner`: while some way is
    // untaken, the least-taken way is an untaken one, so the coverage-guided order also
    // reaches the missing rule long before the depth-first order (17th of 17).
    let path = workspace().join("tests/fixtures/concolic/late_branch.catala_en");
    let (cov, _) = explore_in_order(&path, "Late", Strategy::CoverageGuided);
    assert_eq!(cov.len(), 17);
    let first_missing = cov.iter().position(|k| k == "no_value");
    assert!(first_missing.is_some_and(|p| p <= 5), "{first_missing:?}");
}
