//! Corpus suite: every Catala file of the CUTECat benchmarks and of the NSW community gaming
//! example must parse, resolve and type-check, and lower to dcalc. Reads `../shared/corpus`
//! relative to the workspace root and skips with a notice when it is absent.

use std::path::{Path, PathBuf};

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
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
            .is_some_and(|e| e.starts_with("catala_"))
        {
            out.push(p);
        }
    }
}

/// Files named by a `> Include:` / `> Inclusion:` line of another file of the list: they are
/// fragments of a program, compiled as part of the file including them.
fn included_files(files: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for line in text.lines() {
            let line = line.trim();
            let target = line
                .strip_prefix("> Include:")
                .or_else(|| line.strip_prefix("> Inclusion:"));
            if let (Some(t), Some(parent)) = (target, f.parent()) {
                if let Ok(p) = parent.join(t.trim()).canonicalize() {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// Compiles every entry file under `dir` (those no other file includes, which pull in all the
/// others); returns (compiled, failures) and prints how many files that covers.
fn compile_all(dir: &Path) -> (usize, Vec<String>) {
    let mut all = Vec::new();
    catala_files(dir, &mut all);
    let included = included_files(&all);
    println!(
        "{}: {} files, of which {} are included by others",
        dir.display(),
        all.len(),
        all.iter()
            .filter(|f| f.canonicalize().is_ok_and(|c| included.contains(&c)))
            .count()
    );
    let files: Vec<PathBuf> = all
        .into_iter()
        .filter(|f| f.canonicalize().map_or(true, |c| !included.contains(&c)))
        .collect();
    let mut ok = 0;
    let mut failures = Vec::new();
    for f in &files {
        match catala_syntax::parse_file(f) {
            Err(d) => failures.push(format!("{}: parse: {}", f.display(), d.message)),
            Ok((sources, program)) => match catala_ir::compile(&sources, &program) {
                Ok(_) => ok += 1,
                Err(ds) => {
                    let d = &ds[0];
                    let pos = d
                        .labels
                        .first()
                        .map(|l| sources.position(l.span).to_string())
                        .unwrap_or_default();
                    failures.push(format!("{}: {} at {}", f.display(), d.message, pos));
                }
            },
        }
    }
    (ok, failures)
}

#[test]
fn cutecat_benchmarks_compile() {
    let dir = corpus_root().join("cutecat-benchmarks");
    if !dir.exists() {
        eprintln!("corpus absent ({}): skipping", dir.display());
        return;
    }
    let (ok, failures) = compile_all(&dir);
    println!(
        "cutecat-benchmarks: {ok} compiled, {} failed",
        failures.len()
    );
    for f in &failures {
        println!("  {f}");
    }
    assert!(failures.is_empty(), "{} files failed", failures.len());
}

#[test]
fn nsw_community_gaming_compiles() {
    let dir = corpus_root().join("catala-examples/NSW_community_gaming");
    if !dir.exists() {
        eprintln!("corpus absent ({}): skipping", dir.display());
        return;
    }
    let (ok, failures) = compile_all(&dir);
    println!(
        "NSW_community_gaming: {ok} compiled, {} failed",
        failures.len()
    );
    for f in &failures {
        println!("  {f}");
    }
    assert!(failures.is_empty(), "{} files failed", failures.len());
}
