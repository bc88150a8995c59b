//! Sharded exploration finds the paths of one whole exploration: for 1, 3 and 8 shards of a
//! plan, the shards together hold every path of the whole run (compared as printed path
//! conditions, which do not depend on the inputs chosen, and as path identifiers), and no path
//! is found by two shards. Path identifiers tell paths apart exactly as path conditions do. A
//! shard stopped at a limit and resumed from its checkpoint finishes its own paths.
//!
//! Early-conflict lemmas (Fig. 10 of the paper) are learnt by one worker and prune paths
//! below the node they were learnt at; shards do not share them, so with `early` on shards may
//! report feasible paths a single run pruned (never fewer): the scope built to show early
//! conflicts is compared with `early` off, and with it on the single run's paths are a subset.

use catala_ir::dcalc::{Program, ScopeId};
use concolic::checkpoint::Checkpoint;
use concolic::plan::make_plan;
use concolic::shard::explore_shard;
use concolic::{explore, Control, ExploreOptions, Optimizations, PathId, TestCase};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load_scope(path: &Path, scope: &str) -> (Program, ScopeId) {
    let (sources, parsed) = catala_syntax::parse_file_with_sources(path);
    let ast = match parsed {
        Ok(a) => a,
        Err(d) => panic!("{}: {}", path.display(), d.message),
    };
    let program = match catala_ir::compile(&sources, &ast) {
        Ok(p) => p,
        Err(ds) => panic!("{}: {} errors", path.display(), ds.len()),
    };
    let Some(id) = program.scope_by_name(scope) else {
        panic!("no scope {scope}")
    };
    (program, id)
}

fn options() -> ExploreOptions {
    ExploreOptions {
        keep_constraints: true,
        ..ExploreOptions::default()
    }
}

fn without_early() -> ExploreOptions {
    ExploreOptions {
        optimizations: Optimizations {
            early_conflicts: false,
            ..Optimizations::ALL
        },
        ..options()
    }
}

/// A path as its outcome kind and its printed path condition.
fn line(t: &TestCase) -> String {
    format!("{} {}", t.outcome.kind(), t.constraints.join(" ∧ "))
}

/// Tests of every shard of a plan for `shards` shards, shard by shard.
fn sharded(
    program: &Program,
    id: ScopeId,
    opts: &ExploreOptions,
    shards: usize,
    per_shard: usize,
) -> Vec<Vec<TestCase>> {
    let plan = match make_plan(program, id, opts, shards, shards * per_shard) {
        Ok(p) => p,
        Err(e) => panic!("plan: {e}"),
    };
    assert_eq!(plan.unknown_queries + plan.divergences, 0);
    // Subtree prefixes are pairwise disjoint: none is a prefix of another.
    for a in &plan.subtrees {
        for b in &plan.subtrees {
            assert!(a == b || !a.prefix.is_prefix_of(&b.prefix), "{a:?} {b:?}");
        }
    }
    (0..shards)
        .map(|i| {
            let mine: Vec<(PathId, Vec<_>)> = plan
                .shard(i)
                .into_iter()
                .map(|s| (s.prefix.clone(), s.assignment.clone()))
                .collect();
            let mut found = Vec::new();
            let done = explore_shard(
                program,
                id,
                opts,
                &mine,
                &mut |_, t| {
                    found.push(t.clone());
                    Control::Continue
                },
                &mut |_| {},
            );
            let done = match done {
                Ok(d) => d,
                Err(e) => panic!("shard {i}: {e}"),
            };
            if opts.order == concolic::EvaluationOrder::Catala {
                assert!(done.complete.iter().all(|c| *c), "shard {i} incomplete");
            }
            explored_all(&done.exploration, opts);
            // Every test of the shard lies under one of its subtrees.
            for t in &found {
                assert!(mine.iter().any(|(p, _)| p.is_prefix_of(&t.path)));
            }
            found
        })
        .collect()
}

/// The exploration is complete; in the paper's order, every path is explored, but some tests'
/// paths may end otherwise than the plain run on their inputs (counted, and only those).
fn explored_all(e: &concolic::Exploration, opts: &ExploreOptions) {
    if opts.order == concolic::EvaluationOrder::Catala {
        assert!(e.stats.complete, "{:?}", e.incomplete);
        return;
    }
    assert_eq!(e.stats.stopped_by, None);
    assert_eq!((e.stats.unknown_queries, e.stats.divergences), (0, 0));
    assert!(
        e.incomplete.iter().all(|i| i.contains("ended differently")),
        "{:?}",
        e.incomplete
    );
}

fn check_scope(path: &Path, scope: &str, opts: &ExploreOptions, expected: Option<usize>) {
    let (program, id) = load_scope(path, scope);
    let whole = match explore(&program, id, opts) {
        Ok(e) => e,
        Err(e) => panic!("{e}"),
    };
    explored_all(&whole, opts);
    if let Some(n) = expected {
        assert_eq!(whole.tests.len(), n, "{scope}");
    }
    let mut lines: Vec<String> = whole.tests.iter().map(line).collect();
    lines.sort();
    let ids: BTreeSet<PathId> = whole.tests.iter().map(|t| t.path.clone()).collect();
    // One identifier per path: as many distinct identifiers as distinct path conditions.
    assert_eq!(ids.len(), whole.tests.len(), "{scope}: identifiers collide");
    for shards in [1, 3, 8] {
        let found = sharded(&program, id, opts, shards, 4);
        let all: Vec<&TestCase> = found.iter().flatten().collect();
        let mut got: Vec<String> = all.iter().map(|t| line(t)).collect();
        got.sort();
        assert_eq!(got, lines, "{scope}, {shards} shards");
        let got_ids: BTreeSet<PathId> = all.iter().map(|t| t.path.clone()).collect();
        assert_eq!(got_ids, ids, "{scope}, {shards} shards");
    }
}

#[test]
fn shards_together_find_the_paths_of_one_exploration_on_the_fixtures() {
    let dir = workspace().join("tests/fixtures/concolic");
    for (file, scope) in [
        ("fig5_default.catala_en", "Fig5"),
        ("branching.catala_en", "LabelScope"),
        ("branching.catala_en", "FoldScope"),
        ("branching.catala_en", "MatchScope"),
        ("lazy_conflict.catala_en", "LazyConflict"),
        ("packing.catala_en", "Packing"),
        ("discount.catala_en", "Discount"),
    ] {
        check_scope(&dir.join(file), scope, &options(), None);
    }
    let early = dir.join("early_conflict.catala_en");
    check_scope(&early, "EarlyConflict", &without_early(), None);
    // With early conflicts on, the single run prunes; the shards find a superset.
    let (program, id) = load_scope(&early, "EarlyConflict");
    let whole = match explore(&program, id, &options()) {
        Ok(e) => e,
        Err(e) => panic!("{e}"),
    };
    let single: BTreeSet<String> = whole.tests.iter().map(line).collect();
    let shards: BTreeSet<String> = sharded(&program, id, &options(), 3, 4)
        .iter()
        .flatten()
        .map(line)
        .collect();
    assert!(single.is_subset(&shards));
    assert!(
        single.len() < shards.len(),
        "the lemma no longer prunes here"
    );
}

#[test]
fn shards_together_find_the_381_paths_of_the_family_quotient() {
    let corpus = workspace().join("../shared/corpus/cutecat-benchmarks");
    if !corpus.is_dir() {
        eprintln!("corpus not found at {}: test skipped", corpus.display());
        return;
    }
    // 381 paths: CUTECat's count for this benchmark (Table 1 of the paper), in its order,
    // with the paths of runs that fail an assertion explored as its tool does.
    check_scope(
        &corpus.join("impot_revenu/nombre_de_parts.catala_fr"),
        "Test",
        &ExploreOptions {
            order: concolic::EvaluationOrder::Paper,
            optimizations: Optimizations {
                input_space: false,
                ..Optimizations::ALL
            },
            ..options()
        },
        Some(381),
    );
}

#[test]
fn a_shard_stopped_and_resumed_finishes_its_own_paths() {
    let (program, id) = load_scope(
        &workspace().join("tests/fixtures/concolic/branching.catala_en"),
        "LabelScope",
    );
    let plan = match make_plan(&program, id, &options(), 2, 4) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    for shard in 0..2 {
        let mine: Vec<(PathId, Vec<_>)> = plan
            .shard(shard)
            .into_iter()
            .map(|s| (s.prefix.clone(), s.assignment.clone()))
            .collect();
        let run = |opts: &ExploreOptions, saved: &mut Option<Checkpoint>| {
            let mut found: Vec<String> = Vec::new();
            let done = explore_shard(
                &program,
                id,
                opts,
                &mine,
                &mut |_, t| {
                    found.push(line(t));
                    Control::Continue
                },
                &mut |c| *saved = Some(c.clone()),
            );
            match done {
                Ok(d) => (found, d),
                Err(e) => panic!("{e}"),
            }
        };
        let (mut whole, _) = run(&options(), &mut None);
        whole.sort();
        for stop_after in 1..whole.len() {
            let first = ExploreOptions {
                max_tests: Some(stop_after),
                checkpoint_every: Some(Duration::from_secs(3600)),
                ..options()
            };
            let mut saved = None;
            let (part1, d1) = run(&first, &mut saved);
            assert!(!d1.exploration.stats.complete);
            let Some(c) = saved else {
                panic!("shard {shard}: no checkpoint after {stop_after} tests")
            };
            let c = match Checkpoint::from_json(&c.to_json()) {
                Ok(c) => c,
                Err(e) => panic!("{e}"),
            };
            let resumed = ExploreOptions {
                resume: Some(c),
                checkpoint_every: Some(Duration::from_secs(3600)),
                ..options()
            };
            let (part2, d2) = run(&resumed, &mut None);
            assert!(d2.complete.iter().all(|c| *c));
            // At a limit the checkpoint is taken right after the last test: no path twice.
            let mut both: Vec<String> = part1.into_iter().chain(part2).collect();
            both.sort();
            assert_eq!(both, whole, "shard {shard}, stopped after {stop_after}");
        }
    }
}
