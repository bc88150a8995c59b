//! Every file of the HATch benchmark corpus parses.

use std::path::PathBuf;

fn corpus() -> Option<PathBuf> {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/hatch-benchmarks");
    if p.exists() {
        Some(p)
    } else {
        println!("corpus not found at {}: skipping", p.display());
        None
    }
}

fn ml_files(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                ml_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "ml") {
                out.push(p);
            }
        }
    }
}

#[test]
fn every_corpus_file_parses() {
    let Some(root) = corpus() else { return };
    let mut files = Vec::new();
    ml_files(&root, &mut files);
    assert!(files.len() > 200);
    let mut failures = Vec::new();
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap_or_default();
        // this file of the corpus is not valid OCaml (an `if` without `then`)
        let malformed = f.ends_with("ColoredGraph_KVStore/add_node_buggy.ml");
        match hatch::syntax::parse_items(&src) {
            Err(e) if !malformed => failures.push(format!("{}:{e}", f.display())),
            Ok(_) if malformed => failures.push(format!("{}: accepted", f.display())),
            Err(e) => assert_eq!((e.pos.line, e.pos.col), (7, 1)),
            Ok(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
