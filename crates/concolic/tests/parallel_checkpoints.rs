//! Checkpoints and shards with several threads. A checkpoint of a parallel exploration holds
//! the state of every thread and the subtrees queued between them: resumed with one or two
//! threads, it finds exactly the paths the first part had not found (none twice, none
//! missed), whether it was taken while the threads ran (every run here, the most demanding
//! case) or when a test limit stopped them. A shard explored by two threads finds the paths
//! of one thread. Paths are compared as outcome kinds and printed path conditions, which do
//! not depend on the inputs chosen.

use catala_ir::dcalc::{Program, ScopeId};
use concolic::checkpoint::Checkpoint;
use concolic::parallel::explore_parallel_checkpointed;
use concolic::plan::make_plan;
use concolic::shard::{explore_shard, explore_shard_parallel};
use concolic::{explore, Control, ExploreOptions, PathId, TestCase};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/concolic")
        .join(name)
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

fn line(t: &TestCase) -> String {
    format!("{} {}", t.outcome.kind(), t.constraints.join(" ∧ "))
}

const SCOPES: &[(&str, &str)] = &[
    ("fig5_default.catala_en", "Fig5"),
    ("branching.catala_en", "LabelScope"),
    ("discount.catala_en", "Discount"),
    ("lazy_conflict.catala_en", "LazyConflict"),
];

/// The paths of one sequential exploration, sorted.
fn sequential(program: &Program, id: ScopeId) -> Vec<String> {
    let e = match explore(program, id, &options()) {
        Ok(e) => e,
        Err(err) => panic!("{err}"),
    };
    assert!(e.stats.complete);
    let mut v: Vec<String> = e.tests.iter().map(line).collect();
    v.sort();
    v
}

/// What a parallel exploration streamed: its tests and its checkpoints, in the order they
/// came.
enum Event {
    Test(String),
    Checkpoint(Box<Checkpoint>),
}

/// Explores with `jobs` threads from `options`, streaming into an event log.
fn parallel(
    program: &Program,
    id: ScopeId,
    jobs: usize,
    options: &ExploreOptions,
) -> (concolic::Exploration, Vec<Event>) {
    let events: Mutex<Vec<Event>> = Mutex::new(Vec::new());
    let push = |e: Event| events.lock().unwrap_or_else(|p| p.into_inner()).push(e);
    let e = explore_parallel_checkpointed(
        jobs,
        program,
        id,
        options,
        &|_, t| {
            push(Event::Test(line(t)));
            Control::Continue
        },
        &mut |c| push(Event::Checkpoint(Box::new(c.clone()))),
    );
    let e = match e {
        Ok(e) => e,
        Err(err) => panic!("{err}"),
    };
    (e, events.into_inner().unwrap_or_else(|p| p.into_inner()))
}

/// Resumes `c` (through its JSON form) with `jobs` threads; the tests found.
fn resume(program: &Program, id: ScopeId, c: &Checkpoint, jobs: usize) -> Vec<String> {
    let restored = match Checkpoint::from_json(&c.to_json()) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    let options = ExploreOptions {
        resume: Some(restored),
        ..options()
    };
    let (e, events) = parallel(program, id, jobs, &options);
    assert!(e.stats.complete, "resumed with {jobs}: {:?}", e.incomplete);
    let found: Vec<String> = events
        .into_iter()
        .filter_map(|e| match e {
            Event::Test(t) => Some(t),
            Event::Checkpoint(_) => None,
        })
        .collect();
    assert_eq!(e.stats.tests, c.tests + found.len());
    found
}

#[test]
fn a_checkpoint_of_running_threads_resumes_to_the_remaining_paths() {
    for (file, scope) in SCOPES {
        let (program, id) = load_scope(&fixture(file), scope);
        let expected = sequential(&program, id);
        // A checkpoint before every run of every thread.
        let every_run = ExploreOptions {
            checkpoint_every: Some(Duration::ZERO),
            ..options()
        };
        let (e, events) = parallel(&program, id, 2, &every_run);
        assert!(e.stats.complete, "{scope}: {:?}", e.incomplete);
        let mut before: Vec<String> = Vec::new();
        let mut checkpoints = 0;
        for event in &events {
            match event {
                Event::Test(t) => before.push(t.clone()),
                Event::Checkpoint(c) => {
                    checkpoints += 1;
                    // Every thread was paused: the checkpoint counts the tests streamed
                    // before it, no more, no less.
                    assert_eq!(c.tests, before.len(), "{scope}");
                    for jobs in [1, 2] {
                        let mut all = before.clone();
                        all.extend(resume(&program, id, c, jobs));
                        all.sort();
                        assert_eq!(all, expected, "{scope}, {} tests before, {jobs}", c.tests);
                    }
                }
            }
        }
        assert!(checkpoints > 0, "{scope}: no checkpoint");
        before.sort();
        assert_eq!(before, expected, "{scope}");
    }
}

#[test]
fn threads_stopped_at_a_test_limit_resume_to_the_remaining_paths() {
    for (file, scope) in SCOPES {
        let (program, id) = load_scope(&fixture(file), scope);
        let expected = sequential(&program, id);
        for stop_after in 1..expected.len() {
            let first = ExploreOptions {
                max_tests: Some(stop_after),
                checkpoint_every: Some(Duration::from_secs(3600)),
                ..options()
            };
            let (e, events) = parallel(&program, id, 2, &first);
            let mut found = Vec::new();
            let mut last = None;
            for event in events {
                match event {
                    Event::Test(t) => found.push(t),
                    Event::Checkpoint(c) => last = Some(c),
                }
            }
            assert!(found.len() >= stop_after);
            if e.stats.complete {
                // The other thread found the last paths before it saw the limit: nothing is
                // left, and no checkpoint is written.
                found.sort();
                assert_eq!(found, expected, "{scope}, stopped after {stop_after}");
                assert!(last.is_none());
                continue;
            }
            let Some(c) = last else {
                panic!("{scope}: no checkpoint after {stop_after} tests")
            };
            for jobs in [1, 2] {
                let mut all = found.clone();
                // A test whose run is done again on resumption is not counted in the
                // checkpoint: it is found again, on the same path.
                let again = resume(&program, id, &c, jobs);
                all.extend(again);
                all.sort();
                all.dedup();
                assert_eq!(all, expected, "{scope}, stopped after {stop_after}, {jobs}");
            }
        }
    }
}

#[test]
fn a_shard_explored_by_two_threads_finds_the_paths_of_one() {
    for (file, scope) in SCOPES {
        let (program, id) = load_scope(&fixture(file), scope);
        let plan = match make_plan(&program, id, &options(), 2, 4) {
            Ok(p) => p,
            Err(e) => panic!("plan: {e}"),
        };
        let mut all = Vec::new();
        for shard in 0..2 {
            let mine: Vec<(PathId, Vec<_>)> = plan
                .shard(shard)
                .into_iter()
                .map(|s| (s.prefix.clone(), s.assignment.clone()))
                .collect();
            let mut one = Vec::new();
            let alone = explore_shard(
                &program,
                id,
                &options(),
                &mine,
                &mut |_, t| {
                    one.push(line(t));
                    Control::Continue
                },
                &mut |_| {},
            );
            let alone = match alone {
                Ok(d) => d,
                Err(e) => panic!("{e}"),
            };
            let two: Mutex<Vec<String>> = Mutex::new(Vec::new());
            let together = explore_shard_parallel(
                2,
                &program,
                id,
                &options(),
                &mine,
                &|_, t| {
                    two.lock().unwrap_or_else(|p| p.into_inner()).push(line(t));
                    Control::Continue
                },
                &mut |_| {},
            );
            let together = match together {
                Ok(d) => d,
                Err(e) => panic!("{e}"),
            };
            let mut two = two.into_inner().unwrap_or_else(|p| p.into_inner());
            one.sort();
            two.sort();
            assert_eq!(two, one, "{scope}, shard {shard}");
            assert_eq!(together.complete, alone.complete);
            assert!(together.exploration.stats.complete);
            assert_eq!(together.exploration.stats.tests, one.len());
            let tests: Vec<usize> = together.costs.iter().map(|c| c.tests).collect();
            let alone_tests: Vec<usize> = alone.costs.iter().map(|c| c.tests).collect();
            assert_eq!(tests, alone_tests, "{scope}, shard {shard}");
            all.extend(two);
        }
        all.sort();
        assert_eq!(all, sequential(&program, id), "{scope}");
    }
}
