//! Conformance of compile-time outcomes with the Catala compiler's own test suite
//! (`../shared/corpus/catala-tests`): for every file with a `catala-test-cli` block, the expected
//! output says whether the program compiles (success or a runtime error) or is rejected at compile
//! time (an `[ERROR]` box that is neither a syntax error nor "During evaluation"). We compare that
//! outcome, and for rejected programs the first line of the message and the first position. Files
//! using modules, or that our parser rejects, are counted as skipped. Skips with a notice when the
//! corpus is absent.

use std::path::{Path, PathBuf};

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/catala-tests")
}

fn catala_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            catala_files(&p, out);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e == "catala_en" || e == "catala_fr")
        {
            out.push(p);
        }
    }
}

/// What a test block expects of compilation.
#[derive(Debug)]
enum Expected {
    Compiles,
    Rejected {
        /// The message, whitespace-normalised.
        message: String,
        /// `file-basename:line.col-col` of the first position, if any.
        position: Option<String>,
    },
}

fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The expectation of the first test block of `text`, if it tells anything about compilation.
fn expectation(text: &str) -> Option<Expected> {
    let start = text.find("```catala-test-cli")?;
    let block = &text[start..];
    let end = block[3..].find("```").map_or(block.len(), |e| e + 3);
    let block = &block[..end];
    let lines: Vec<&str> = block.lines().collect();
    let Some(err) = lines.iter().position(|l| l.starts_with("┌─[ERROR]")) else {
        return Some(Expected::Compiles);
    };
    let mut message = Vec::new();
    let mut i = err + 1;
    // Skip the blank line after the header, then take the message up to the next blank line.
    while i < lines.len() && lines[i].trim() == "│" {
        i += 1;
    }
    while i < lines.len() && lines[i].trim() != "│" && !lines[i].starts_with("├") {
        message.push(lines[i].trim_start_matches('│').trim());
        i += 1;
    }
    let message = normalise(&message.join(" "));
    if message.starts_with("During evaluation") || message.starts_with("Assertion failed") {
        return Some(Expected::Compiles);
    }
    if message.starts_with("Syntax error") || message.is_empty() {
        return None;
    }
    let position = lines[i..]
        .iter()
        .find_map(|l| l.strip_prefix("├─➤ "))
        .map(|p| {
            let p = p.trim_end_matches(':');
            p.rsplit('/').next().unwrap_or(p).to_string()
        });
    Some(Expected::Rejected { message, position })
}

#[test]
fn compile_time_outcomes_match_catala_tests() {
    let root = corpus_root();
    if !root.exists() {
        eprintln!("corpus absent ({}): skipping", root.display());
        return;
    }
    let mut files = Vec::new();
    catala_files(&root, &mut files);
    let (mut attempted, mut matched, mut same_message, mut skipped) = (0, 0, 0, 0);
    let mut mismatches = Vec::new();
    let mut matched_files: Vec<String> = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let Some(expected) = expectation(&text) else {
            continue;
        };
        if text.contains("> Module") || text.contains("> Using") || text.contains("Stdlib") {
            skipped += 1;
            continue;
        }
        let Ok((sources, program)) = catala_syntax::parse_file(f) else {
            skipped += 1;
            continue;
        };
        attempted += 1;
        let result = catala_ir::compile(&sources, &program);
        let name = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        match (&expected, result) {
            (Expected::Compiles, Ok(_)) => {
                matched += 1;
                matched_files.push(name.clone());
            }
            (Expected::Compiles, Err(ds)) => mismatches.push(format!(
                "{name}: expected to compile, got: {}",
                normalise(&ds[0].message)
            )),
            (Expected::Rejected { message, .. }, Ok(_)) => {
                mismatches.push(format!("{name}: expected error \"{message}\", compiled"))
            }
            (Expected::Rejected { message, position }, Err(ds)) => {
                let d = &ds[0];
                let ours = normalise(&d.message);
                let our_pos = d.labels.first().map(|l| {
                    let p = sources.position(l.span).to_string();
                    p.rsplit('/').next().unwrap_or(&p).to_string()
                });
                if &ours == message && &our_pos == position {
                    matched += 1;
                    matched_files.push(name.clone());
                } else if &ours == message {
                    same_message += 1;
                    mismatches.push(format!(
                        "{name}: same message, position {our_pos:?} instead of {position:?}"
                    ));
                } else {
                    mismatches.push(format!(
                        "{name}: expected \"{message}\" at {position:?}, got \"{ours}\" at \
                         {our_pos:?}"
                    ));
                }
            }
        }
    }
    println!(
        "catala-tests compile-time outcomes: {matched} matched / {attempted} attempted \
         ({same_message} with the same message but another position), {skipped} skipped \
         (modules, standard library or parse)"
    );
    for m in &mismatches {
        println!("  {m}");
    }
    if std::env::var_os("LIST_MATCHED").is_some() {
        for m in &matched_files {
            println!("MATCHED {m}");
        }
    }
    // Every compile-time error file of the language core must agree with Catala exactly.
    let missing: Vec<&&str> = MUST_MATCH
        .iter()
        .filter(|f| !matched_files.iter().any(|m| m == **f))
        .collect();
    assert!(missing.is_empty(), "no longer matching Catala: {missing:?}");
}

/// `bad` files of the Catala test suite on which our compile-time outcome (rejection with the
/// same message and first position, or acceptance for programs that fail only at run time)
/// agrees with Catala's expected output.
const MUST_MATCH: &[&str] = &[
    "arithmetic/bad/division_by_zero.catala_en",
    "array/bad/broken-message.catala_en",
    "array/bad/omit_empty.catala_en",
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
    "money/bad/no_mingle.catala_en",
    "name_resolution/bad/toplevel_defs.catala_en",
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
    "variable_state/bad/def_no_state.catala_en",
    "variable_state/bad/double_same_state.catala_en",
    "variable_state/bad/no_cross_exceptions.catala_en",
    "variable_state/bad/self_reference_first_state.catala_en",
    "variable_state/bad/unknown_state.catala_en",
];
