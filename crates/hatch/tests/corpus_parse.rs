//! Every file of the HATch benchmark corpus parses.

use hatch::front::FrontError;
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
        let file = hatch::input::InputFile::from_text(&f.display().to_string(), src);
        match file.parse() {
            Err(e) if !malformed => failures.push(e.to_string()),
            Ok(_) if malformed => failures.push(format!("{}: accepted", f.display())),
            Err(FrontError::At(e)) => assert_eq!(e.line_col(), Some((7, 1))),
            Err(e) => failures.push(e.to_string()),
            Ok(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
