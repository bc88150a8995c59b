//! Set-up shared by the tests that write a method of their own beside the fixture's
//! UniqueSet_KVStore specifications.

use std::path::PathBuf;

/// The folder of the benchmark-language fixtures.
pub fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/hatch")
}

/// Copies the fixture's predefined files and its UniqueSet_KVStore specifications into a fresh
/// temporary folder named after `prefix` and `tag`, and writes `contents` there as `name.ml`;
/// returns the folder and the method's file.
pub fn unique_set_method(
    prefix: &str,
    tag: &str,
    name: &str,
    contents: &str,
) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("{prefix}-{tag}-{}", std::process::id()));
    let pre = dir.join("predefined");
    let bench = dir.join("ri/UniqueSet_KVStore");
    std::fs::create_dir_all(&pre).expect("temp dir");
    std::fs::create_dir_all(&bench).expect("temp dir");
    for e in std::fs::read_dir(fixture().join("predefined")).expect("predefined") {
        let e = e.expect("entry");
        std::fs::copy(e.path(), pre.join(e.file_name())).expect("copy");
    }
    let src = fixture().join("ri/UniqueSet_KVStore");
    for f in ["automata_preds.ml", "lib_nty.ml", "lib_rty.ml", "ri.ml"] {
        std::fs::copy(src.join(f), bench.join(f)).expect("copy");
    }
    let file = bench.join(format!("{name}.ml"));
    std::fs::write(&file, contents).expect("write");
    (dir, file)
}
