//! Parses the real Catala programs of the shared corpus (`../shared/corpus` beside the
//! workspace): every file of the CUTECat benchmarks must parse; the catala-examples and the
//! Catala compiler's `good` tests are counted; the `bad` tests must parse or fail with a
//! positioned diagnostic, never panic. Skipped, with a notice, when the corpus is absent.

use catala_syntax::{parse_file, Diagnostic};
use std::path::{Path, PathBuf};

fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("notice: corpus not found at {}, skipping", dir.display());
        None
    }
}

fn catala_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            catala_files(&path, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "catala_en" | "catala_fr" | "catala_pl"))
        {
            out.push(path);
        }
    }
}

fn describe(d: &Diagnostic) -> String {
    let pos = d.labels.first().map_or(String::from("?"), |l| {
        format!("{}..{}", l.span.start, l.span.end)
    });
    format!("{:?} at {pos}: {}", d.kind, d.message)
}

/// Parses every file under `dir`; returns (parsed, total, failures).
fn parse_all(dir: &Path) -> (usize, usize, Vec<String>) {
    let mut files = Vec::new();
    catala_files(dir, &mut files);
    let mut failures = Vec::new();
    for f in &files {
        if let Err(d) = parse_file(f) {
            failures.push(format!("{}: {}", f.display(), describe(&d)));
        }
    }
    (files.len() - failures.len(), files.len(), failures)
}

#[test]
fn cutecat_benchmarks_all_parse() {
    let Some(corpus) = corpus_dir() else { return };
    let (ok, total, failures) = parse_all(&corpus.join("cutecat-benchmarks"));
    println!("cutecat-benchmarks: parsed {ok}/{total}");
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(total > 0);
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn catala_examples_parse_count() {
    let Some(corpus) = corpus_dir() else { return };
    let (ok, total, failures) = parse_all(&corpus.join("catala-examples"));
    println!("catala-examples: parsed {ok}/{total}");
    for f in &failures {
        println!("  FAIL {f}");
    }
    assert!(total > 0);
}

/// Directories named `good` under the compiler's test suite.
fn test_dirs(root: &Path, name: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for e in entries.filter_map(|e| e.ok()) {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == name) {
                out.push(p.clone());
            }
            test_dirs(&p, name, out);
        }
    }
}

#[test]
fn catala_tests_good_parse_count() {
    let Some(corpus) = corpus_dir() else { return };
    let mut dirs = Vec::new();
    test_dirs(&corpus.join("catala-tests"), "good", &mut dirs);
    dirs.sort();
    let (mut ok, mut total) = (0, 0);
    for d in &dirs {
        let (o, t, failures) = parse_all(d);
        ok += o;
        total += t;
        for f in &failures {
            println!("  FAIL {f}");
        }
    }
    println!("catala-tests good: parsed {ok}/{total}");
    assert!(total > 0);
}

#[test]
fn catala_tests_bad_parse_or_give_positioned_diagnostics() {
    let Some(corpus) = corpus_dir() else { return };
    let mut dirs = Vec::new();
    test_dirs(&corpus.join("catala-tests"), "bad", &mut dirs);
    let mut files = Vec::new();
    for d in &dirs {
        catala_files(d, &mut files);
    }
    let mut parsed = 0;
    for f in &files {
        match parse_file(f) {
            Ok(_) => parsed += 1,
            Err(d) => assert!(
                !d.labels.is_empty(),
                "{}: diagnostic without position: {}",
                f.display(),
                d.message
            ),
        }
    }
    println!(
        "catala-tests bad: {parsed}/{} parse, the others give positioned diagnostics",
        files.len()
    );
    assert!(!files.is_empty());
}
