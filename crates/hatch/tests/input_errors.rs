//! Errors in HATch input files name the file, line and column (in code points) and, rendered,
//! show the source line with the offending token underlined in the box layout shared with
//! Catala's errors.

use hatch::front::{load_method, FrontError};
use std::path::PathBuf;

fn method_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hatch-input-errors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("method file");
    path
}

#[test]
fn a_parse_error_is_shown_at_its_token_with_the_source_line() {
    // `match` is outside the language: the error is at it, line 2, columns 3 to 7.
    let path = method_file("parse.ml", "let f x =\n  match x with | _ -> x\n");
    let error = load_method(&path).expect_err("a parse error");
    let name = path.display().to_string();
    assert!(matches!(error, FrontError::At(_)), "{error:?}");
    let text = error.to_string();
    assert!(text.starts_with(&format!("{name}:2:3: ")), "{text}");
    let boxed = error.render();
    assert!(boxed.starts_with("┌─[ERROR]─\n"), "{boxed}");
    assert!(boxed.contains(&format!("├─➤ {name}:2.3-8:\n")), "{boxed}");
    assert!(boxed.contains("│ 2 │   match x with | _ -> x\n"), "{boxed}");
    assert!(boxed.contains("│   │   ‾‾‾‾‾\n"), "{boxed}");
}

#[test]
fn a_front_end_error_counts_columns_in_code_points() {
    // A `val` has no place in a method file; the comment before it holds a two-byte `é`, so
    // the `val` on the same line is at column 9 (its tenth byte).
    let path = method_file("val.ml", "let f x = x\n(* é *) val g : int\n");
    let error = load_method(&path).expect_err("an input error");
    let name = path.display().to_string();
    assert_eq!(
        error.to_string(),
        format!("{name}:2:9: unexpected `val` in a method file")
    );
    assert!(error.render().contains("│ 2 │ (* é *) val g : int\n"));
}

#[test]
fn an_unreadable_file_is_named_without_a_position() {
    let path = std::env::temp_dir().join("hatch-input-errors-missing/none.ml");
    let error = load_method(&path).expect_err("unreadable");
    assert!(matches!(error, FrontError::Unreadable { .. }), "{error:?}");
    assert!(error
        .to_string()
        .starts_with(&format!("{}: cannot read: ", path.display())));
}
