//! Conformance with the Catala compiler, measured by the one test runner behind `lexprobe test`
//! (`lexprobe::testing`) over the shared corpus (`../shared/corpus`, skipped with a notice when
//! absent):
//! - `catala-tests`, the Catala compiler's test suite: every ```catala-test-cli block whose
//!   command lexprobe reproduces is run and compared with its expected output; blocks of
//!   backends and tracing are skipped with the reason. Counts are printed per directory and
//!   every mismatch is listed with a short reason; the test fails when fewer blocks match than
//!   the floor, when a file that matched Catala's compile-time outcome no longer does, or when
//!   a program that compiles evaluates or prints differently from Catala (outside the known
//!   divergences listed below);
//! - `catala-examples`, real programs: `#[test]` scopes passed and blocks matched per
//!   directory, with floors;
//! - the `bad` programs of the test suite are rejected with exit code 123 and a positioned
//!   error, without a panic.
//!
//! Run with `cargo test -p lexprobe --test catala_conformance -- --nocapture` to see the
//! tables.

use lexprobe::testing::command::{self, Invocation};
use lexprobe::testing::execute::{execute, PANIC};
use lexprobe::testing::output;
use lexprobe::testing::{self, Case, CaseKind, Counts, FileReport, RunOptions, RunReport, Status};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Blocks of the Catala test suite that match, at the last measurement; raise it as
/// conformance improves.
const MATCHED_FLOOR: usize = 409;
/// Blocks of catala-examples that match (the expected outputs written in the programs).
const EXAMPLES_MATCHED_FLOOR: usize = 126;
/// `#[test]` scopes of catala-examples that pass.
const EXAMPLES_PASSED_FLOOR: usize = 129;
/// `#[test]` scopes of catala-examples/NSW_community_gaming that pass.
const NSW_PASSED_FLOOR: usize = 25;

fn corpus_dir(name: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(name);
    dir.canonicalize().ok().filter(|d| d.is_dir())
}

/// Runs the tests under `dir`, on a thread with the main thread's room for deep programs.
fn run(dir: &Path) -> RunReport {
    let paths = vec![dir.to_path_buf()];
    let worker = std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(move || testing::run(&paths, &RunOptions::default(), |_| {}))
        .expect("a test thread starts");
    match worker.join().expect("the runner does not panic") {
        Ok(report) => report,
        Err(e) => panic!("{}: {e}", dir.display()),
    }
}

fn relative(dir: &Path, file: &Path) -> String {
    file.strip_prefix(dir).unwrap_or(file).display().to_string()
}

fn top_directory(dir: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(dir).unwrap_or(file);
    match rel.components().count() {
        0 | 1 => ".".to_string(),
        _ => rel
            .components()
            .next()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

fn is_block(case: &Case) -> bool {
    matches!(case.kind, CaseKind::CliBlock { .. })
}

/// Per directory: blocks (matched, failed, skipped), `#[test]` scopes (passed, failed; a file
/// that does not compile counts as one failure) and the `#[test]` scopes declared (those of
/// files that do not compile included).
#[derive(Default)]
struct DirectoryCounts {
    blocks: Counts,
    test_scopes: Counts,
    declared: usize,
}

/// The `#[test]` attributes written in a file.
fn declared_test_scopes(file: &Path) -> usize {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.trim_start().starts_with("#[test]"))
        .count()
}

fn per_directory(dir: &Path, report: &RunReport) -> BTreeMap<String, DirectoryCounts> {
    let mut table: BTreeMap<String, DirectoryCounts> = BTreeMap::new();
    for file in &report.files {
        let row = table.entry(top_directory(dir, &file.path)).or_default();
        row.declared += declared_test_scopes(&file.path);
        for case in &file.cases {
            if is_block(case) {
                row.blocks.add(case.status);
            } else {
                row.test_scopes.add(case.status);
            }
        }
    }
    table
}

/// Prints the per-directory table, the skip reasons and the mismatches; returns the totals.
fn print_tables(name: &str, dir: &Path, report: &RunReport) -> DirectoryCounts {
    let table = per_directory(dir, report);
    println!("{name}: test blocks and #[test] scopes per directory");
    println!(
        "  {:<32} {:>18} {:>8} {:>11} {:>24}",
        "directory", "matched/attempted", "skipped", "mismatched", "#[test] passed/declared"
    );
    let mut total = DirectoryCounts::default();
    for (directory, row) in &table {
        print_row(directory, row);
        for (t, r) in [
            (&mut total.blocks, &row.blocks),
            (&mut total.test_scopes, &row.test_scopes),
        ] {
            t.passed += r.passed;
            t.failed += r.failed;
            t.skipped += r.skipped;
        }
        total.declared += row.declared;
    }
    print_row("total", &total);
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for case in report.files.iter().flat_map(|f| &f.cases) {
        if case.status == Status::Skipped {
            *reasons
                .entry(case.reason.clone().unwrap_or_default())
                .or_default() += 1;
        }
    }
    println!("{name}: blocks skipped, by reason");
    for (reason, n) in &reasons {
        println!("  {n:>4}  {reason}");
    }
    for file in &report.files {
        for case in file.cases.iter().filter(|c| c.status == Status::Failed) {
            println!(
                "MISMATCH {} {}: {}",
                relative(dir, &file.path),
                match &case.kind {
                    CaseKind::CliBlock { line, command } => format!("{line}: `{command}`"),
                    CaseKind::TestScope if Path::new(&case.name) == file.path => {
                        "#[test] scopes".to_string()
                    }
                    CaseKind::TestScope => format!("#[test] {}", case.name),
                },
                case.reason.as_deref().unwrap_or("")
            );
        }
    }
    total
}

fn print_row(directory: &str, row: &DirectoryCounts) {
    let b = row.blocks;
    let t = row.test_scopes;
    println!(
        "  {:<32} {:>18} {:>8} {:>11} {:>24}",
        directory,
        format!("{}/{}", b.passed, b.passed + b.failed),
        b.skipped,
        b.failed,
        format!("{}/{}", t.passed, row.declared)
    );
}

#[test]
fn catala_test_suite_blocks() {
    let Some(dir) = corpus_dir("catala-tests") else {
        println!("notice: ../shared/corpus/catala-tests is absent; conformance suite skipped");
        return;
    };
    let started = std::time::Instant::now();
    let report = run(&dir);
    let total = print_tables("catala-tests", &dir, &report);
    println!(
        "catala-tests: {} blocks matched / {} attempted, {} skipped, {} mismatched; {} #[test] \
         scopes passed / {} declared ({:.1} s)",
        total.blocks.passed,
        total.blocks.passed + total.blocks.failed,
        total.blocks.skipped,
        total.blocks.failed,
        total.test_scopes.passed,
        total.declared,
        started.elapsed().as_secs_f64()
    );
    assert!(
        total.blocks.passed >= MATCHED_FLOOR,
        "conformance regressed: {} < {MATCHED_FLOOR}",
        total.blocks.passed
    );
    check_compile_time_outcomes(&dir, &report);
    check_evaluations(&dir, &report);
}

/// Files of the test suite on which lexprobe agrees with Catala at compile time: a block
/// expecting a compile-time error must match (same message, same position); for a block
/// expecting results or an evaluation error, the program must compile.
fn check_compile_time_outcomes(dir: &Path, report: &RunReport) {
    let mut lost = Vec::new();
    for name in MUST_MATCH {
        let Some(file) = report
            .files
            .iter()
            .find(|f| relative(dir, &f.path) == *name)
        else {
            lost.push(format!("{name}: not found"));
            continue;
        };
        for case in file.cases.iter().filter(|c| is_block(c)) {
            let expected: Vec<&str> = case.expected.as_deref().unwrap_or("").lines().collect();
            let compile_error = matches!(
                output::parse(&expected, 0).errors.first(),
                Some(e) if e.kind == "compile"
            );
            let agrees = match case.status {
                Status::Skipped | Status::Passed => true,
                Status::Failed if compile_error => false,
                Status::Failed => file.compiled == Some(true),
            };
            if !agrees {
                lost.push(format!("{name}: {}", case.reason.as_deref().unwrap_or("")));
            }
        }
    }
    assert!(lost.is_empty(), "no longer matching Catala: {lost:#?}");
}

/// A program that compiles must evaluate and print as Catala does: a mismatch on an
/// interpretation block whose expected output is a result or an evaluation error is a bug,
/// unless it is a known divergence.
fn check_evaluations(dir: &Path, report: &RunReport) {
    let mut unexplained = Vec::new();
    for file in report.files.iter().filter(|f| f.compiled == Some(true)) {
        for case in file.cases.iter().filter(|c| c.status == Status::Failed) {
            let CaseKind::CliBlock { command, line } = &case.kind else {
                continue;
            };
            if !evaluation_block(command, case) {
                continue;
            }
            let name = relative(dir, &file.path);
            match known_divergence(&name, *line) {
                Some(why) => println!("known divergence ({why}): {name}:{line}"),
                None => unexplained.push(format!(
                    "{name}:{line} `{command}`: {}",
                    case.reason.as_deref().unwrap_or("")
                )),
            }
        }
    }
    assert!(
        unexplained.is_empty(),
        "evaluations differing from Catala's expected output: {unexplained:#?}"
    );
}

/// An interpretation whose expected output is results or an evaluation error (not a
/// compile-time or input error).
fn evaluation_block(command_line: &str, case: &Case) -> bool {
    if !matches!(
        command::parse(command_line),
        command::Command::InScope(Invocation::Interpret(_))
    ) {
        return false;
    }
    let expected: Vec<&str> = case.expected.as_deref().unwrap_or("").lines().collect();
    let parsed = output::parse(&expected, 0);
    !matches!(parsed.errors.first(), Some(e) if e.kind == "compile")
}

/// Blocks where lexprobe knowingly differs from Catala, with the reason (file, line of the
/// block's command, why).
const KNOWN_DIVERGENCES: &[(&str, usize, &str)] = &[(
    "enum/bad/impossible.catala_en",
    0,
    "the message of an `impossible` precondition (`#[error.message]`) is not printed yet",
)];

/// Line 0 stands for every block of the file.
fn known_divergence(file: &str, line: usize) -> Option<&'static str> {
    KNOWN_DIVERGENCES
        .iter()
        .find(|(f, l, _)| *f == file && (*l == 0 || *l == line))
        .map(|(_, _, why)| *why)
}

/// The expected outputs written in the real programs of catala-examples, and their `#[test]`
/// scopes.
#[test]
fn catala_examples() {
    let Some(dir) = corpus_dir("catala-examples") else {
        println!("notice: ../shared/corpus/catala-examples is absent; suite skipped");
        return;
    };
    let started = std::time::Instant::now();
    let report = run(&dir);
    let total = print_tables("catala-examples", &dir, &report);
    println!(
        "catala-examples: {} blocks matched / {} attempted, {} skipped; {} #[test] scopes \
         passed / {} declared ({:.1} s)",
        total.blocks.passed,
        total.blocks.passed + total.blocks.failed,
        total.blocks.skipped,
        total.test_scopes.passed,
        total.declared,
        started.elapsed().as_secs_f64()
    );
    assert!(
        total.blocks.passed >= EXAMPLES_MATCHED_FLOOR,
        "expected outputs regressed: {} < {EXAMPLES_MATCHED_FLOOR}",
        total.blocks.passed
    );
    assert!(
        total.test_scopes.passed >= EXAMPLES_PASSED_FLOOR,
        "#[test] scopes regressed: {} < {EXAMPLES_PASSED_FLOOR}",
        total.test_scopes.passed
    );
    let nsw = per_directory(&dir, &report)
        .remove("NSW_community_gaming")
        .unwrap_or_default();
    assert!(
        nsw.test_scopes.passed >= NSW_PASSED_FLOOR && nsw.test_scopes.failed == 0,
        "NSW #[test] scopes: {} passed, {} failed",
        nsw.test_scopes.passed,
        nsw.test_scopes.failed
    );
}

/// Every program of the Catala test suite's `bad` folders whose tests expect a failure is
/// rejected with exit code 123 and an error box that names a position: at type-checking, or
/// when running the scopes its blocks name; and nothing panics.
#[test]
fn bad_programs_give_positioned_errors() {
    let Some(dir) = corpus_dir("catala-tests") else {
        println!("notice: ../shared/corpus/catala-tests is absent; suite skipped");
        return;
    };
    let report = run(&dir);
    let bad: Vec<&FileReport> = report
        .files
        .iter()
        .filter(|f| {
            f.path.components().any(|c| c.as_os_str() == "bad")
                && std::fs::read_to_string(&f.path).is_ok_and(|t| t.contains("#return code"))
        })
        .collect();
    let mut accepted = Vec::new();
    for file in &bad {
        let loaded = lexprobe::catala::load(&file.path, &[]);
        let typecheck = execute(&Invocation::Typecheck, &file.path, &loaded);
        let mut outcomes = vec![typecheck];
        if outcomes[0].code == 0 {
            let text = std::fs::read_to_string(&file.path).unwrap_or_default();
            for block in testing::blocks::cli_blocks(&text) {
                // The scope a traced run names is run without the trace.
                let untraced = without_tracing(&block.command);
                if let command::Command::InScope(Invocation::Interpret(mut options)) =
                    command::parse(&untraced)
                {
                    options.json = false;
                    options.gnu = false;
                    let invocation = Invocation::Interpret(options);
                    outcomes.push(execute(&invocation, &file.path, &loaded));
                }
            }
        }
        assert!(
            outcomes.iter().all(|o| o.code != PANIC),
            "{} made lexprobe panic",
            file.path.display()
        );
        let rejected = outcomes.iter().any(|o| {
            // JSON input errors have no source position, in Catala as here (nor has the
            // refusal of a function input, worded as Catala words it).
            o.code == 123
                && o.stderr.contains("┌─[ERROR]─")
                && (o.stderr.contains("├─➤ ")
                    || o.stderr.contains("Invalid input")
                    || o.stderr
                        .contains(catala_eval::runtime::json::FUNCTIONAL_INPUT))
        });
        if !rejected {
            accepted.push(relative(&dir, &file.path));
        }
    }
    println!(
        "catala-tests bad programs: {} of {} rejected with a positioned error",
        bad.len() - accepted.len(),
        bad.len()
    );
    for a in &accepted {
        println!("NOT REJECTED {a}");
    }
    assert!(
        accepted.is_empty(),
        "{} bad programs not rejected",
        accepted.len()
    );
}

fn without_tracing(command_line: &str) -> String {
    let mut words = Vec::new();
    let mut skip_value = false;
    for w in command_line.split_whitespace() {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        skip_value = w == "--trace-format";
        if !command::TRACING_FLAGS.contains(&w) {
            words.push(w);
        }
    }
    words.join(" ")
}

/// `bad` files of the Catala test suite on which lexprobe's compile-time outcome (rejection
/// with the same message and first position, or acceptance for programs that fail only at run
/// time) agrees with Catala's expected output.
const MUST_MATCH: &[&str] = &[
    "arithmetic/bad/division_by_zero.catala_en",
    "array/bad/broken-message.catala_en",
    "array/bad/omit_empty.catala_en",
    "array/bad/type_error_in_filter.catala_en",
    "assertions/bad/inline.catala_en",
    "assertions/bad/simple.catala_en",
    "bool/bad/bad_assert.catala_en",
    "bool/bad/test_xor_with_int.catala_en",
    "date/bad/rounding_option_conflict.catala_en",
    "date/bad/rounding_option_en.catala_en",
    "date/bad/rounding_option_fr.catala_fr",
    "date/bad/substraction.catala_en",
    "date/bad/uncomparable_duration.catala_en",
    "default/bad/conflict.catala_en",
    "default/bad/empty.catala_en",
    "default/bad/empty_with_rules.catala_en",
    "default/bad/typing_or_logical_error.catala_en",
    "default/bad/verbose_errors.catala_en",
    "enum/bad/ambiguous_cases.catala_en",
    "enum/bad/ambiguous_wildcard.catala_en",
    "enum/bad/duplicate_case.catala_en",
    "enum/bad/duplicate_def_case.catala_en",
    "enum/bad/empty.catala_en",
    "enum/bad/impossible.catala_en",
    "enum/bad/missing_case.catala_en",
    "enum/bad/not_ending_wildcard.catala_en",
    "enum/bad/quick_pattern_2.catala_en",
    "enum/bad/quick_pattern_3.catala_en",
    "enum/bad/quick_pattern_4.catala_en",
    "enum/bad/quick_pattern_fail.catala_en",
    "enum/bad/too_many_cases.catala_en",
    "enum/bad/useless_wildcard.catala_en",
    "enum/bad/wrong_cons.catala_en",
    "exception/bad/ambiguous_unlabeled_exception.catala_en",
    "exception/bad/dangling_exception.catala_en",
    "exception/bad/exceptions_cycle.catala_en",
    "exception/bad/missing_unlabeled_definition.catala_en",
    "exception/bad/multi_same_result.catala_en",
    "exception/bad/one_ambiguous_exception.catala_en",
    "exception/bad/self_exception.catala_en",
    "exception/bad/two_exceptions.catala_en",
    "func/bad/bad_func.catala_en",
    "func/bad/param_inconsistency.catala_en",
    "func/bad/param_inconsistency2.catala_en",
    "func/bad/param_inconsistency3.catala_en",
    "func/bad/recursive.catala_en",
    "io/bad/forgot_input.catala_en",
    "io/bad/inputing_to_not_input.catala_en",
    "io/bad/redefining_input.catala_en",
    "io/bad/using_non_output.catala_en",
    "modules/bad/mod_badname.catala_en",
    "money/bad/no_mingle.catala_en",
    "name_resolution/bad/toplevel_defs.catala_en",
    "parsing/bad/unrecoverable_error.catala_en",
    "scope/bad/cycle_in_scope.catala_en",
    "scope/bad/cyclic_scope_calls.catala_en",
    "scope/bad/cyclic_scopes.catala_en",
    "scope/bad/nothing.catala_en",
    "scope/bad/scope.catala_en",
    "scope/bad/scope_call_duplicate.catala_en",
    "scope/bad/scope_call_extra.catala_en",
    "scope/bad/scope_call_missing.catala_en",
    "scope/bad/sub_vars_in_sub_var.catala_en",
    "struct/bad/bug_107.catala_en",
    "struct/bad/empty_struct.catala_en",
    "struct/bad/nested.catala_en",
    "struct/bad/nested2.catala_en",
    "struct/bad/nonexisting_struct.catala_en",
    "struct/bad/struct_duplicate.catala_en",
    "struct/bad/struct_duplicate_def.catala_en",
    "struct/bad/struct_update.catala_en",
    "struct/bad/wrong_qualified_field.catala_en",
    "trace/bad/assertion.catala_en",
    "trace/bad/assertion_inner.catala_en",
    "typing/bad/err1.catala_en",
    "typing/bad/err2.catala_en",
    "typing/bad/err3.catala_en",
    "typing/bad/err4.catala_en",
    "typing/bad/err5.catala_en",
    "typing/bad/err6.catala_en",
    "typing/bad/mult_errs1.catala_en",
    "typing/good/abstract.catala_en",
    "variable_state/bad/def_no_state.catala_en",
    "variable_state/bad/double_same_state.catala_en",
    "variable_state/bad/no_cross_exceptions.catala_en",
    "variable_state/bad/self_reference_first_state.catala_en",
    "variable_state/bad/unknown_state.catala_en",
];
