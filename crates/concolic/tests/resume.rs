//! An exploration stopped at a limit with checkpoints on, then resumed from its last
//! checkpoint, covers exactly the paths of one uninterrupted exploration: none twice, none
//! missed, and its figures continue those of the first part.

use catala_ir::dcalc::Program;
use concolic::checkpoint::Checkpoint;
use concolic::{explore, explore_checkpointed, Control, ExploreOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

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

fn line(t: &concolic::TestCase) -> String {
    format!("{} {}", t.outcome.kind(), t.constraints.join(" ∧ "))
}

#[test]
fn a_resumed_exploration_finishes_the_paths_of_the_first_part() {
    for (file, scope) in [
        ("fig5_default.catala_en", "Fig5"),
        ("lazy_conflict.catala_en", "LazyConflict"),
        ("branching.catala_en", "LabelScope"),
    ] {
        let program = load(&fixture(file));
        let Some(id) = program.scope_by_name(scope) else {
            panic!("no scope {scope}")
        };
        let base = ExploreOptions {
            keep_constraints: true,
            ..ExploreOptions::default()
        };
        let whole = match explore(&program, id, &base) {
            Ok(e) => e,
            Err(err) => panic!("{err}"),
        };
        let mut expected: Vec<String> = whole.tests.iter().map(line).collect();
        expected.sort();
        assert!(expected.len() >= 3, "{scope}: {} paths", expected.len());
        for stop_after in 1..expected.len() {
            // First part: stops after `stop_after` tests and checkpoints there.
            let first = ExploreOptions {
                max_tests: Some(stop_after),
                checkpoint_every: Some(Duration::from_secs(3600)),
                ..base.clone()
            };
            let mut saved: Option<Checkpoint> = None;
            let part1 = explore_checkpointed(
                &program,
                id,
                &first,
                &mut |_, _| Control::Continue,
                &mut |c| saved = Some(c.clone()),
            );
            let part1 = match part1 {
                Ok(e) => e,
                Err(err) => panic!("{err}"),
            };
            assert_eq!(part1.tests.len(), stop_after);
            assert!(!part1.stats.complete);
            let Some(saved) = saved else {
                panic!("{scope}: no checkpoint after {stop_after} tests")
            };
            assert_eq!(saved.tests, stop_after);
            // Second part, through the checkpoint's JSON form.
            let restored = match Checkpoint::from_json(&saved.to_json()) {
                Ok(c) => c,
                Err(e) => panic!("{e}"),
            };
            let second = ExploreOptions {
                resume: Some(restored),
                ..base.clone()
            };
            let mut indices = Vec::new();
            let part2 = explore_checkpointed(
                &program,
                id,
                &second,
                &mut |i, _| {
                    indices.push(i);
                    Control::Continue
                },
                &mut |_| {},
            );
            let part2 = match part2 {
                Ok(e) => e,
                Err(err) => panic!("{err}"),
            };
            assert!(part2.stats.complete);
            assert_eq!(part2.stats.tests, expected.len());
            assert_eq!(indices.first(), Some(&stop_after));
            let mut got: Vec<String> = part1.tests.iter().chain(&part2.tests).map(line).collect();
            got.sort();
            assert_eq!(got, expected, "{scope}, stopped after {stop_after}");
        }
    }
}
