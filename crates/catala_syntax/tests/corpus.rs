//! Parses the real Catala programs of the shared corpus (`../shared/corpus` beside the
//! workspace): every file of the CUTECat benchmarks and of catala-examples must parse; the
//! Catala compiler's `good` tests all parse; its
//! `bad` tests parse unless their expected output is a syntax error, which is then reported at
//! the compiler's position. Skipped, with a notice, when the corpus is absent.

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
    assert!(failures.is_empty(), "{failures:#?}");
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
    assert!(total > 0 && ok == total, "parsed {ok}/{total}");
}

/// The first error box of a test file's expected outputs: its message's first line and its
/// first position (`line.col`), if any.
fn first_expected_error(text: &str) -> Option<(String, Option<(usize, usize)>)> {
    let start = text.find("┌─[ERROR]")?;
    let rest = &text[start..];
    let message = rest
        .lines()
        .nth(2)?
        .trim_start_matches('│')
        .trim()
        .to_string();
    let position = rest
        .lines()
        .take_while(|l| !l.starts_with("└─"))
        .find_map(|l| l.strip_prefix("├─➤ "))
        .and_then(|p| {
            let range = p.trim_end_matches(':').rsplit_once(':')?.1;
            let (line, col) = range.split_once('-')?.0.split_once('.')?;
            Some((line.parse().ok()?, col.parse().ok()?))
        });
    Some((message, position))
}

/// Every `bad` test of the compiler either parses, or fails with a positioned diagnostic; the
/// files the parser rejects are exactly those whose expected output is a syntax error (or an
/// error on a module directive), and
/// the error is reported at the same line and column as the Catala compiler.
#[test]
fn catala_tests_bad_fail_exactly_on_syntax_errors() {
    let Some(corpus) = corpus_dir() else { return };
    let mut dirs = Vec::new();
    test_dirs(&corpus.join("catala-tests"), "bad", &mut dirs);
    let mut files = Vec::new();
    for d in &dirs {
        catala_files(d, &mut files);
    }
    let (mut parsed, mut syntax_errors) = (0, 0);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let expected = first_expected_error(&text);
        let is_syntax_error = expected.as_ref().is_some_and(|(m, _)| {
            m.starts_with("Syntax error")
                || m.starts_with("Please add parentheses")
                // Module directives checked while reading files (parsing errors in Catala).
                || m.starts_with("Module declared as")
                || m.starts_with("A file that declares a module")
        });
        let (sources, result) = catala_syntax::parse_file_with_sources(f);
        match result {
            Ok(_) => {
                parsed += 1;
                assert!(
                    !is_syntax_error,
                    "{}: should be a syntax error",
                    f.display()
                );
            }
            Err(d) => {
                assert!(
                    !d.labels.is_empty(),
                    "{}: diagnostic without position: {}",
                    f.display(),
                    d.message
                );
                assert!(
                    is_syntax_error,
                    "{}: unexpected {}",
                    f.display(),
                    describe(&d)
                );
                syntax_errors += 1;
                let pos = sources.position(d.labels[0].span);
                let expected_pos = expected.and_then(|(_, p)| p);
                assert_eq!(
                    Some((pos.start_line, pos.start_col)),
                    expected_pos,
                    "{}: {}",
                    f.display(),
                    d.message
                );
            }
        }
    }
    println!(
        "catala-tests bad: {parsed}/{} parse, {syntax_errors} are syntax errors reported at \
         Catala's position",
        files.len()
    );
    assert!(!files.is_empty());
}
