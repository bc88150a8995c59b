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
            (Expected::Compiles, Ok(_)) => matched += 1,
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
    // Floor: the error-kind files that are known to match (raised as the front end improves).
    assert!(attempted > 0);
}
