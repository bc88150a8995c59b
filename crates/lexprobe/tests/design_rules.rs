//! The design's rules, checked on the tree (DESIGN.md, ARCHITECTURE.md):
//! - crate dependencies go one way: `catala_syntax → catala_ir → catala_eval → {concolic,
//!   metamorphic}`, `smt → {sre, concolic, hatch}`, `sre → hatch`, `{smt, concolic} → metamorphic`
//!   (the symbolic check of relations), everything → `lexprobe`;
//! - every source file opens with a `//!` paragraph saying what it is;
//! - library code neither panics on purpose (`unwrap()`, `expect("…")`, `panic!`) nor prints
//!   (`println!` and friends): only the binary talks to the terminal. Test modules (`tests.rs`,
//!   code after `#[cfg(test)]`) are exempt; a parser's own `expect(token)` method is not an
//!   `Option::expect` and is not matched (its argument is not a string literal).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn crates_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::canonicalize(&dir).unwrap_or(dir)
}

/// The crate a file belongs to (the first component under `crates/`).
fn crate_of(file: &Path) -> String {
    file.strip_prefix(crates_dir())
        .ok()
        .and_then(|p| p.components().next())
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The workspace crates each crate may depend on.
fn allowed() -> BTreeMap<&'static str, Vec<&'static str>> {
    let mut m = BTreeMap::new();
    m.insert("catala_syntax", vec![]);
    m.insert("catala_ir", vec!["catala_syntax"]);
    m.insert("catala_eval", vec!["catala_syntax", "catala_ir"]);
    m.insert("smt", vec![]);
    m.insert("sre", vec!["smt"]);
    m.insert(
        "concolic",
        vec!["catala_syntax", "catala_ir", "catala_eval", "smt"],
    );
    m.insert(
        "metamorphic",
        vec![
            "catala_syntax",
            "catala_ir",
            "catala_eval",
            "smt",
            "concolic",
        ],
    );
    m.insert("hatch", vec!["smt", "sre"]);
    m.insert(
        "reports",
        vec![
            "catala_syntax",
            "catala_ir",
            "catala_eval",
            "concolic",
            "metamorphic",
        ],
    );
    m.insert(
        "lexprobe",
        vec![
            "catala_syntax",
            "catala_ir",
            "catala_eval",
            "smt",
            "sre",
            "concolic",
            "metamorphic",
            "hatch",
            "reports",
        ],
    );
    m
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn crate_dependencies_go_one_way() {
    let allowed = allowed();
    let names: Vec<&str> = allowed.keys().copied().collect();
    for (krate, ok) in &allowed {
        let manifest = crates_dir().join(krate).join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).expect("manifest");
        let mut in_deps = false;
        for line in text.lines() {
            let line = line.trim();
            if line.starts_with('[') {
                in_deps = line == "[dependencies]";
                continue;
            }
            if !in_deps {
                continue;
            }
            let dep = line.split(['.', ' ', '=']).next().unwrap_or("");
            if names.contains(&dep) {
                assert!(
                    ok.contains(&dep),
                    "{krate} depends on {dep}: an arrow backwards in the crate graph"
                );
            }
        }
    }
}

#[test]
fn every_source_file_says_what_it_is() {
    let mut files = Vec::new();
    rust_files(&crates_dir(), &mut files);
    let missing: Vec<String> = files
        .iter()
        .filter(|f| f.components().any(|c| c.as_os_str() == "src"))
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            !text.trim_start().starts_with("//!")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a //! paragraph: {missing:?}"
    );
}

#[test]
fn libraries_neither_panic_nor_print() {
    let mut files = Vec::new();
    rust_files(&crates_dir(), &mut files);
    let forbidden_everywhere = [".unwrap()", ".expect(\"", "panic!("];
    let printing = ["println!(", "eprintln!(", "print!(", "eprint!("];
    let mut found = Vec::new();
    for f in &files {
        let in_src = f.components().any(|c| c.as_os_str() == "src");
        if !in_src || f.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let binary = crate_of(f) == "lexprobe";
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            let code = line.split("//").next().unwrap_or("");
            let mut bad: Vec<&str> = forbidden_everywhere
                .iter()
                .copied()
                .filter(|p| code.contains(p))
                .collect();
            if !binary {
                bad.extend(printing.iter().copied().filter(|p| code.contains(p)));
            }
            if !bad.is_empty() {
                found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "panics or printing in library code: {found:#?}"
    );
}
