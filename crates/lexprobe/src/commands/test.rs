//! `lexprobe test PATHS...`: runs the `#[test]` scopes and the ```catala-test-cli blocks of
//! Catala files, walking directories, with a report for people, as JSON, or as JUnit XML.

use crate::exit::{CATALA_ERROR, SUCCESS, USAGE};
use crate::format::OutputFormat;
use crate::testing::{self, report, RunOptions};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  lexprobe test tests/my_tests.catala_en
  lexprobe test examples/ --include lib/
  lexprobe test . --target aides-logement         # the tests of a clerk.toml target
  lexprobe test tests/ --format json > report.json
  lexprobe test tests/ --junit report.xml         # JUnit XML for CI servers

Runs, in every file given and every .catala_en/.catala_fr/.catala_pl file found under the
directories given:
- the #[test] scopes: `Scope: passed` when the scope raises no error and no assertion fails,
  `Scope: failed` otherwise (with the error boxes on stderr);
- the ```catala-test-cli blocks, as Catala's `clerk test` does: the block's `catala` command
  (test-scope S, interpret -s S, typecheck, with --input, -F json, --message-format=gnu, ...)
  is run and its output compared with the block's expected output: RESULT boxes identical,
  errors of the same kind at the same position with the same message, the same exit code
  (`#return code N#`); one line `FILE:LINE: catala COMMAND: passed`, `failed (why)` (with
  the expected and actual outputs on stderr) or `skipped (why)`: commands of Catala's
  backends (ocaml, python, lcalc, ...) and tracing flags (--trace, --debug) are skipped.
Files found in directories are tested only when they hold #[test] scopes or test blocks.
Used modules are looked up in --include directories and in the include_dirs of the nearest
clerk.toml. Prints a closing `N passed, N failed[, N skipped]` line; a file named on the
command line that holds no test is reported on stderr. Exit code 0 iff no test fails; 123 when
a test fails or a file holding #[test] scopes does not compile; 2 on bad usage: a path that does
not exist, or no test at all in the paths given.")]
pub struct TestArgs {
    #[command(flatten)]
    pub includes: crate::catala::IncludeArgs,
    /// Catala source files, or directories to search for them recursively.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Output format: a line per test, or one JSON report.
    #[arg(long, short = 'F', value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Also write the report as JUnit XML to FILE (one testsuite per file).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Test only the `tests` of this `[[target]]` of the directory's clerk.toml (repeatable).
    #[arg(long, value_name = "NAME")]
    pub target: Vec<String>,
    /// Law coverage of the `#[test]` scopes (`--coverage FILE.html`, `--coverage-json FILE`).
    #[command(flatten)]
    pub coverage: super::coverage_args::CoverageArgs,
}

pub fn run(args: TestArgs) -> i32 {
    let options = RunOptions {
        include_dirs: args.includes.include.clone(),
        targets: args.target.clone(),
    };
    if let Some(missing) = args.paths.iter().find(|p| !p.exists()) {
        eprintln!(
            "lexprobe test: {}: no such file or directory",
            missing.display()
        );
        return USAGE;
    }
    let human = args.format == OutputFormat::Human;
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let ran = testing::run(&args.paths, &options, |file| {
        if human {
            report::write_file_lines(file, &mut out, &mut err);
        }
    });
    let run_report = match ran {
        Ok(r) => r,
        Err(msg) => {
            eprintln!("lexprobe test: {msg}");
            return USAGE;
        }
    };
    let counts = run_report.counts();
    if human {
        println!("{}", report::summary_line(counts));
    } else {
        println!("{}", report::to_json(&run_report));
    }
    for file in run_report.files.iter().filter(|f| f.cases.is_empty()) {
        eprintln!(
            "lexprobe test: {}: no test (no #[test] scope, no ```catala-test-cli block)",
            file.path.display()
        );
    }
    if counts.passed + counts.failed + counts.skipped == 0 {
        let names: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        eprintln!(
            "lexprobe test: no test found in {}: tests are #[test] scopes and \
             ```catala-test-cli blocks",
            names.join(", ")
        );
        return USAGE;
    }
    if let Some(path) = &args.junit {
        if let Err(e) = std::fs::write(path, testing::junit::to_junit(&run_report)) {
            eprintln!("lexprobe test: cannot write {}: {e}", path.display());
            return USAGE;
        }
    }
    let coverage_files = args.coverage.files();
    if coverage_files.wanted() {
        let files: Vec<PathBuf> = run_report
            .files
            .iter()
            .filter(|f| f.compiled == Some(true))
            .map(|f| f.path.clone())
            .collect();
        let (mut report, errors) =
            crate::law_coverage::of_test_scopes(&files, &args.includes.include);
        for e in errors {
            eprintln!("lexprobe test: coverage: {e}");
        }
        let names: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
        report.title = format!("{} (test scopes)", names.join(", "));
        if let Err(msg) = coverage_files.write(&report) {
            eprintln!("lexprobe test: {msg}");
            return USAGE;
        }
    }
    if counts.failed == 0 {
        SUCCESS
    } else {
        CATALA_ERROR
    }
}
