//! The messages of failed assertions, as Catala builds them (its interpreter's partial
//! evaluation of the assertion, De Morgan's negation, and its printer's parentheses): each
//! expected message is worked out by hand from those rules for the fixture
//! `tests/fixtures/eval/assertion_messages.catala_en`.

use catala_eval::run_scope;
use std::path::PathBuf;

#[test]
fn failed_assertions_show_partially_evaluated_negations() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/eval/assertion_messages.catala_en");
    let (sources, ast) = catala_syntax::parse_file(&path)
        .unwrap_or_else(|d| panic!("the fixture does not parse: {}", d.message));
    let program = catala_ir::compile(&sources, &ast).unwrap_or_else(|ds| {
        panic!(
            "the fixture does not compile: {:?}",
            ds.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        )
    });
    let id = program.scope_by_name("Messages").expect("scope Messages");
    let result = run_scope(&program, id, Vec::new()).unwrap_or_else(|e| panic!("{e}"));
    let messages: Vec<&str> = result
        .assertion_failures
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(
        messages,
        vec![
            // 1. `p and q`, p true: the second conjunct, the value false, negated.
            "Assertion failed: true",
            "Assertion failed: 3 ≠ 2",
            // 3. A negation is parenthesized on the left of a connective, not on the right.
            "Assertion failed: (3 ≠ 1) && 3 ≠ 2",
            "Assertion failed: (3 ≯ 4) && 3 ≠ 5",
            "Assertion failed: (3 ≯ 4) && 3 ≮ 2",
            // 6. not (not (x && y)) is printed as x && y; comparisons under `&&` bare.
            "Assertion failed: 3 = 3 && 3 < 4",
            // 7. Under a negated comparison, every operator is parenthesized.
            "Assertion failed: (3 > 2) ≠ (3 < 1 || 3 < 2)",
            "Assertion failed: (3 > 1 && 3 > 2) && 3 ≯ 5",
            "Assertion failed: (3 = 3) ≠ (3 = 4)",
            "Assertion failed: 3 = 3",
        ]
    );
}
