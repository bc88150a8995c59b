//! Errors of domain files point at the offending key or value: `file:line:column` and the box
//! with the source line, for TOML syntax errors, wrong field types, unknown kinds and
//! missing keys, and for a feature naming something that does not exist.

use metamorphic::domain::Domain;

const NAME: &str = "tax.toml";

fn error(text: &str) -> metamorphic::Located<metamorphic::domain::DomainError> {
    Domain::from_toml_file(NAME, text).unwrap_err()
}

#[test]
fn an_unknown_field_type_is_marked_on_its_value() {
    // Line 3 is `type = "integr"`: the value starts at column 8 and takes 8 characters.
    let text = "output = \"refund\"\n[fields.kids]\ntype = \"integr\"\nmin = 0\nmax = 3\n";
    let e = error(text);
    assert_eq!(
        e.to_string(),
        "tax.toml:3:8: field `kids`: unknown type `integr`"
    );
    let boxed = e.render();
    assert!(boxed.contains("├─➤ tax.toml:3.8-16:\n"), "{boxed}");
    assert!(
        boxed.contains("│ 3 │ type = \"integr\"\n│   │        ‾‾‾‾‾‾‾‾\n"),
        "{boxed}"
    );
}

#[test]
fn a_value_of_the_wrong_type_and_a_missing_key_are_located() {
    // `max = "three"` on line 5: the value at column 7.
    let text = "[fields.kids]\ntype = \"integer\"\nmin = 0\n\nmax = \"three\"\n";
    assert_eq!(
        error(text).to_string(),
        "tax.toml:5:7: field `kids`: `max` must be a number"
    );
    // No `max` at all: the field's name in its header `[fields.kids]`, column 9.
    let text = "[fields.sts]\ntype = \"boolean\"\n[fields.kids]\ntype = \"integer\"\nmin = 0\n";
    assert_eq!(
        error(text).to_string(),
        "tax.toml:3:9: field `kids`: integer fields need `max`"
    );
}

#[test]
fn a_toml_syntax_error_is_located() {
    // Line 2 has a key without a value: the parser stops on line 2.
    let e = error("output = \"refund\"\nmin =\n");
    let (line, _) = e.line_col().expect("a TOML syntax error has a position");
    assert_eq!(line, 2, "{e}");
    assert!(e.to_string().starts_with("tax.toml:2:"), "{e}");
    assert!(e.render().contains("│ 2 │ min =\n"), "{}", e.render());
}

#[test]
fn a_misspelt_name_in_a_feature_is_marked_exactly_on_the_name() {
    // Line 6 is `over = "agi - incme"`: `incme` is at columns 15-19, not the quote after it.
    let text = "[fields.agi]\ntype = \"money\"\nmin = 0\nmax = 10\n\
                [features]\nover = \"agi - incme\"\n";
    let e = error(text);
    assert_eq!(
        e.to_string(),
        "tax.toml:6:15: feature `over` uses `incme`, which is neither an input field, a feature nor a choice of an enum field"
    );
    let boxed = e.render();
    assert!(boxed.contains("├─➤ tax.toml:6.15-20:\n"), "{boxed}");
    let marked = format!(
        "│ 6 │ over = \"agi - incme\"\n│   │ {}{}\n",
        " ".repeat(14),
        "‾".repeat(5)
    );
    assert!(boxed.contains(&marked), "{boxed}");
}
