//! The design's rules, checked on the tree (DESIGN.md, ARCHITECTURE.md):
//! - crate dependencies go one way: `catala_syntax → catala_ir → catala_eval → {concolic,
//!   metamorphic}`, `smt → {sre, concolic, hatch}`, `sre → hatch`, `{smt, concolic} → metamorphic`
//!   (the symbolic check of relations), everything → `lexprobe`;
//! - every source file opens with a `//!` paragraph saying what it is;
//! - the boundaries of the second architecture step (ARCHITECTURE.md): `metamorphic` reaches
//!   `concolic` only through its relational API (`concolic::relational`); the query types and
//!   the layers before Z3 in `smt::catala` do not touch Z3; report writers in `lexprobe` do not
//!   read the commands' argument structs; no function of a command is over 100 lines; one
//!   position type (`diagnostics::Span`) for every input language;
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
    m.insert("diagnostics", vec![]);
    m.insert("catala_syntax", vec!["diagnostics"]);
    m.insert("catala_ir", vec!["catala_syntax"]);
    m.insert("catala_eval", vec!["catala_syntax", "catala_ir"]);
    m.insert("smt", vec![]);
    m.insert("explain", vec!["smt"]);
    m.insert("sre", vec!["smt"]);
    m.insert(
        "concolic",
        vec![
            "catala_syntax",
            "catala_ir",
            "catala_eval",
            "smt",
            "explain",
        ],
    );
    m.insert(
        "metamorphic",
        vec![
            "diagnostics",
            "catala_syntax",
            "catala_ir",
            "catala_eval",
            "smt",
            "concolic",
        ],
    );
    m.insert("hatch", vec!["diagnostics", "smt", "sre"]);
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
            "explain",
            "diagnostics",
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

/// Every workspace crate is in the graph of [`allowed`] (a new crate must say where it sits).
#[test]
fn every_crate_has_a_place_in_the_graph() {
    let allowed = allowed();
    let entries = std::fs::read_dir(crates_dir()).expect("crates directory");
    for e in entries.flatten() {
        if e.path().join("Cargo.toml").exists() {
            let name = e.file_name().to_string_lossy().into_owned();
            assert!(
                allowed.contains_key(name.as_str()),
                "crate {name} is not in the dependency graph of design_rules.rs"
            );
        }
    }
}

/// The `concolic::…` paths named in the files under `dir`, with the file and line.
fn paths_into(dir: &Path, krate: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    let mut found = Vec::new();
    let needle = format!("{krate}::");
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let mut rest = code;
            while let Some(at) = rest.find(&needle) {
                let before = rest[..at].chars().last();
                let after = &rest[at + needle.len()..];
                rest = after;
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let module: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                found.push((module, format!("{}:{}", f.display(), i + 1)));
            }
        }
    }
    found
}

#[test]
fn metamorphic_reaches_concolic_only_through_its_relational_api() {
    let uses = paths_into(&crates_dir().join("metamorphic/src"), "concolic");
    assert!(!uses.is_empty(), "the prover no longer uses concolic?");
    let bad: Vec<_> = uses.iter().filter(|(m, _)| m != "relational").collect();
    assert!(
        bad.is_empty(),
        "metamorphic names concolic internals (only `concolic::relational` is its API): {bad:?}"
    );
}

#[test]
fn the_query_types_and_the_layers_before_z3_do_not_touch_z3() {
    let dir = crates_dir().join("smt/src/catala");
    for file in [
        "query.rs",
        "stats.rs",
        "chain.rs",
        "session.rs",
        "finite.rs",
        "guess.rs",
        "term.rs",
        "calendar.rs",
        "case_split.rs",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).expect(file);
        let code: String = text
            .lines()
            .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            !code.contains("z3::"),
            "smt/src/catala/{file} names the z3 crate: only the Z3 layers, the encoder and the model refiner may"
        );
    }
    for krate in allowed().keys().filter(|k| **k != "smt") {
        let manifest =
            std::fs::read_to_string(crates_dir().join(krate).join("Cargo.toml")).expect("manifest");
        assert!(
            !manifest.lines().any(|l| l.trim_start().starts_with("z3")),
            "{krate} depends on z3: only smt talks to Z3"
        );
    }
}

#[test]
fn report_writers_take_plain_values_not_command_arguments() {
    let src = crates_dir().join("lexprobe/src");
    let mut files = Vec::new();
    rust_files(&src.join("report_files"), &mut files);
    files.push(src.join("law_coverage.rs"));
    for f in &files {
        let text = std::fs::read_to_string(f).expect("report writer");
        assert!(
            !text.contains("crate::commands"),
            "{} reads the commands' module (report writers take plain values)",
            f.display()
        );
    }
}

/// The functions of `text` longer than `limit` lines, from their `fn` line to the closing
/// brace at the same indentation (the layout `cargo fmt` gives).
fn long_functions(text: &str, limit: usize) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let signature = ["fn ", "pub fn ", "pub(crate) fn ", "async fn "]
            .iter()
            .any(|p| trimmed.starts_with(p));
        if !signature {
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        if let Some(end) = lines[i..].iter().position(|l| *l == close) {
            if end + 1 > limit {
                let name = trimmed.split('(').next().unwrap_or(trimmed).to_string();
                long.push((name, end + 1));
            }
        }
    }
    long
}

#[test]
fn the_long_function_scanner_counts_lines_from_fn_to_its_brace() {
    let body = "    let x = 1;\n".repeat(5);
    let text = format!("fn short() {{\n{body}}}\n\nfn other() {{\n}}\n");
    assert_eq!(long_functions(&text, 6), vec![("fn short".to_string(), 7)]);
    assert!(long_functions(&text, 7).is_empty());
}

#[test]
fn no_command_function_is_over_100_lines() {
    let mut files = Vec::new();
    rust_files(&crates_dir().join("lexprobe/src/commands"), &mut files);
    let mut long = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("command file");
        for (name, n) in long_functions(&text, 100) {
            long.push(format!("{} {name}: {n} lines", f.display()));
        }
    }
    assert!(
        long.is_empty(),
        "command functions over 100 lines: {long:#?}"
    );
}

/// One exploration loop in `concolic`: `drive` in `exploration_loop.rs` is the only driver.
/// Every other source file of the crate that both runs an executor and asks the solver chain
/// for a path (the relational loop, the planner) is an instance of it — it implements
/// `LoopSteps` and calls `drive` — and has no `loop` of its own.
#[test]
fn concolic_has_one_exploration_loop_that_the_others_instantiate() {
    let mut files = Vec::new();
    rust_files(&crates_dir().join("concolic/src"), &mut files);
    let mut instances = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name == "exploration_loop.rs" {
            assert!(text.contains("fn drive<"), "the loop's driver is gone");
            assert!(text.contains("impl LoopSteps for SubtreeSteps"));
            continue;
        }
        assert!(!text.contains("fn drive"), "{name}: a second driver");
        if text.contains(".execute(") && text.contains("check_path(") {
            assert!(text.contains("LoopSteps for "), "{name}: not a LoopSteps");
            assert!(text.contains("drive(&mut"), "{name}: not driven by `drive`");
            assert!(!text.contains("loop {"), "{name}: a loop of its own");
            instances.push(name);
        }
    }
    instances.sort();
    assert_eq!(instances, ["plan.rs", "relational_loop.rs"]);
}

/// The exploration loop's worker holds what explores (program, inputs, solver chain, executor,
/// searcher), not what watches: the statistics, checkpoints, shard bookkeeping and the tests'
/// stream are observers (`concolic/src/observers.rs`) handed to the loop.
#[test]
fn statistics_and_checkpoints_observe_the_loop_and_are_not_fields_of_the_worker() {
    let text =
        std::fs::read_to_string(crates_dir().join("concolic/src/worker.rs")).unwrap_or_default();
    let start = text
        .find("pub(crate) struct Worker<")
        .expect("the worker's struct");
    let body = &text[start..];
    let end = body.find("\n}\n").expect("its end");
    let fields = &body[..end];
    for watcher in [
        "ExploreStats",
        "Checkpoints",
        "Checkpoint",
        "on_test",
        "shard",
    ] {
        assert!(
            !fields.contains(watcher),
            "the worker has a field of the observers' kind: {watcher}"
        );
    }
    let observers =
        std::fs::read_to_string(crates_dir().join("concolic/src/observers.rs")).unwrap_or_default();
    let start = observers
        .find("pub(crate) struct Observers")
        .expect("the observers' struct");
    let fields = &observers[start..];
    let fields = &fields[..fields.find("\n}\n").expect("its end")];
    for observer in ["tests:", "checkpoints:", "stats:"] {
        assert!(fields.contains(observer), "no {observer} observer");
    }
}
