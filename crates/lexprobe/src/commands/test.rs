//! `lexprobe test FILES...`: runs every `#[test]` scope of each file; a test passes when it
//! raises no error and no assertion fails.

use crate::catala::report::{print_errors, ErrorReport};
use crate::catala::{self};
use crate::exit::{CATALA_ERROR, SUCCESS};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(
    after_help = "Prints one `Scope: passed` or `Scope: failed` line per test scope (with the error \
boxes of failures on stderr) and a closing `N passed, N failed` line. Exit code 0 iff every \
test passes; 123 when a file does not compile or a test fails."
)]
pub struct TestArgs {
    #[command(flatten)]
    pub includes: crate::catala::IncludeArgs,
    /// Catala source files holding `#[test]` scopes.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

pub fn run(args: TestArgs) -> i32 {
    let (mut passed, mut failed) = (0usize, 0usize);
    for file in &args.files {
        let loaded = match catala::load(file, &args.includes.include) {
            Ok(l) => l,
            Err((sources, errors)) => {
                print_errors(&sources, &errors, false);
                println!("{}: failed (does not compile)", file.display());
                failed += 1;
                continue;
            }
        };
        for (scope, outcome) in catala_eval::run_test_scopes(&loaded.program) {
            let name = &loaded.program.scope(scope).name;
            let errors: Vec<ErrorReport> = match &outcome {
                Err(e) => vec![ErrorReport::from_runtime(e)],
                Ok(r) => r
                    .assertion_failures
                    .iter()
                    .map(ErrorReport::from_assertion)
                    .collect(),
            };
            if errors.is_empty() {
                println!("{name}: passed");
                passed += 1;
            } else {
                print_errors(&loaded.sources, &errors, false);
                println!("{name}: failed");
                failed += 1;
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        SUCCESS
    } else {
        CATALA_ERROR
    }
}
