//! Honest stops: a time limit interrupts the solver check in flight and is named in
//! `incomplete` with what it leaves unexplored, as is every query the solver gave up on and a
//! test limit; a resumed exploration's test limit counts the tests it finds. Verdicts do not
//! depend on the machine's speed: the slow scope (`hard_cubes.catala_en`) holds a query Z3
//! does not decide in minutes, so no exploration of it ends within the limits used here.

use catala_ir::dcalc::Program;
use concolic::checkpoint::Checkpoint;
use concolic::{explore, explore_checkpointed, Control, ExploreOptions, StopReason};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn load(path: &Path) -> Program {
    let (sources, parsed) = catala_syntax::parse_file_with_sources(path);
    let ast = match parsed {
        Ok(a) => a,
        Err(d) => panic!("{}: {}", path.display(), d.message),
    };
    match catala_ir::compile(&sources, &ast) {
        Ok(p) => p,
        Err(ds) => panic!("{}: {} errors", path.display(), ds.len()),
    }
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/concolic")
        .join(name)
}

fn scope_of(program: &Program, name: &str) -> catala_ir::dcalc::ScopeId {
    match program.scope_by_name(name) {
        Some(id) => id,
        None => panic!("no scope {name}"),
    }
}

#[test]
fn the_time_limit_interrupts_the_query_in_flight_and_is_listed() {
    let program = load(&fixture("hard_cubes.catala_en"));
    let id = scope_of(&program, "HardCubes");
    // The query on the cubes gets a minute of its own: only the time limit can end it.
    let options = ExploreOptions {
        timeout: Some(Duration::from_secs(1)),
        query_timeout: Some(Duration::from_secs(600)),
        ..ExploreOptions::default()
    };
    let start = Instant::now();
    let e = match explore(&program, id, &options) {
        Ok(e) => e,
        Err(err) => panic!("{err}"),
    };
    let took = start.elapsed();
    assert!(took < Duration::from_secs(6), "{took:?}");
    assert_eq!(
        e.stats.stopped_by,
        Some(StopReason::Time(Duration::from_secs(1)))
    );
    assert!(!e.stats.complete);
    // The interrupted query is not one the solver gave up on.
    assert_eq!(e.stats.unknown_queries, 0);
    let expected = format!(
        "time limit (--timeout 1): the paths after test {} are unexplored",
        e.stats.tests
    );
    assert_eq!(e.incomplete, [expected]);
}

#[test]
fn a_query_the_solver_gives_up_on_is_listed() {
    let program = load(&fixture("hard_cubes.catala_en"));
    let id = scope_of(&program, "HardCubes");
    let options = ExploreOptions {
        query_timeout: Some(Duration::from_millis(300)),
        ..ExploreOptions::default()
    };
    let e = match explore(&program, id, &options) {
        Ok(e) => e,
        Err(err) => panic!("{err}"),
    };
    // One query is undecidable for Z3 (the cubes' equation); the path where the condition
    // fails is found, the path where it holds is not.
    assert_eq!(e.stats.unknown_queries, 1);
    assert_eq!(e.stats.stopped_by, None);
    assert!(!e.stats.complete);
    assert_eq!(
        e.incomplete,
        ["1 solver query unknown: its subtree is unexplored"]
    );
}

#[test]
fn a_resumed_exploration_counts_its_own_tests_against_max_tests() {
    // Fig. 5 has five paths: 2 tests, then 2 more, then the last one.
    let program = load(&fixture("fig5_default.catala_en"));
    let id = scope_of(&program, "Fig5");
    let part = |resume: Option<Checkpoint>, max: Option<usize>| {
        let options = ExploreOptions {
            max_tests: max,
            resume,
            checkpoint_every: Some(Duration::from_secs(3600)),
            ..ExploreOptions::default()
        };
        let mut saved: Option<Checkpoint> = None;
        let mut found = 0;
        let e = explore_checkpointed(
            &program,
            id,
            &options,
            &mut |_, _| {
                found += 1;
                Control::Continue
            },
            &mut |c| saved = Some(c.clone()),
        );
        match e {
            Ok(e) => (e, found, saved),
            Err(err) => panic!("{err}"),
        }
    };
    let (e1, found, saved) = part(None, Some(2));
    assert_eq!((found, e1.stats.tests), (2, 2));
    let (e2, found, saved) = part(saved, Some(2));
    assert_eq!(found, 2, "two more tests");
    assert_eq!(e2.stats.tests, 4);
    assert_eq!(e2.stats.stopped_by, Some(StopReason::Tests(2)));
    assert_eq!(
        e2.incomplete,
        ["test limit (--max-tests 2): the paths after test 4 are unexplored"]
    );
    let (e3, found, _) = part(saved, Some(2));
    assert_eq!(found, 1);
    assert_eq!(e3.stats.tests, 5);
    assert!(e3.stats.complete);
    assert!(e3.incomplete.is_empty(), "{:?}", e3.incomplete);
}

#[test]
fn a_test_limit_met_on_the_last_path_claims_nothing_unexplored() {
    // Fig. 5 has five paths: with checkpoints, the exploration stopping at 5 tests solves
    // for the next inputs first, finds none, and is complete.
    let program = load(&fixture("fig5_default.catala_en"));
    let id = scope_of(&program, "Fig5");
    let options = ExploreOptions {
        max_tests: Some(5),
        checkpoint_every: Some(Duration::from_secs(3600)),
        ..ExploreOptions::default()
    };
    let e = explore_checkpointed(
        &program,
        id,
        &options,
        &mut |_, _| Control::Continue,
        &mut |_| {},
    );
    let e = match e {
        Ok(e) => e,
        Err(err) => panic!("{err}"),
    };
    assert_eq!(e.stats.tests, 5);
    assert_eq!(e.stats.stopped_by, None);
    assert!(e.stats.complete);
    assert!(e.incomplete.is_empty(), "{:?}", e.incomplete);
}
