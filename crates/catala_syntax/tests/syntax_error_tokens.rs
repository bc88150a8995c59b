//! The tokens a syntax error lists as valid come in Catala's order, the ones closest to the
//! token written first: the expected orders are those of the Catala test suite's
//! `default/bad/typing_or_logical_error` (`=` written) and `parsing/bad/multiple_errors`
//! (`equal` written).

use catala_syntax::ast::Language;
use catala_syntax::parse_str;

fn message(definition: &str) -> String {
    let text = format!(
        "```catala\ndeclaration scope A:\n  output x content integer\n\nscope A:\n  {definition}\n```\n"
    );
    match parse_str("t.catala_en", &text, Language::En) {
        Ok(_) => panic!("`{definition}` parses"),
        Err(d) => d.message.replace('\n', " "),
    }
}

#[test]
fn the_closest_valid_tokens_come_first() {
    let m = message("definition x = 1");
    assert!(
        m.contains(
            r#"Those are valid at this point: ".", "under condition", "equals", "state", "of"."#
        ),
        "{m}"
    );
    let m = message("definition x equal 1");
    assert!(
        m.contains(
            r#"Those are valid at this point: "equals", ".", "under condition", "state", "of"."#
        ),
        "{m}"
    );
}

#[test]
fn combine_without_all_is_an_unexpected_token() {
    // As parsing/bad/unrecoverable_error: `combine x among …` instead of `combine all x …`.
    let m = message("definition x equals combine x among [1; 2] in acc initially 0 with acc + x");
    assert!(
        m.contains(
            r#"Syntax error at "x": unexpected token. Those are valid at this point: "all"."#
        ),
        "{m}"
    );
}
