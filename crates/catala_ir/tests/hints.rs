//! Warnings and suggestions: a deprecated `sum T of` is compiled with a warning naming the
//! function to use instead, and misspelt constructors, fields and scope inputs get Catala's
//! "Maybe you wanted to write" paragraph (the closest names by edit distance).

use catala_syntax::ast::Language;
use catala_syntax::Diagnostic;

fn compile(text: &str) -> Result<catala_ir::dcalc::Program, Vec<Diagnostic>> {
    let (sources, program) =
        catala_syntax::parse_str("hints.catala_en", text, Language::En).expect("parses");
    catala_ir::compile(&sources, &program)
}

fn hint(d: &Diagnostic) -> Option<&str> {
    d.labels
        .iter()
        .filter_map(|l| l.note.as_deref())
        .find(|n| n.starts_with("Maybe you wanted to write"))
}

#[test]
fn deprecated_sum_is_a_warning_naming_the_function() {
    let p = compile(
        "```catala\ndeclaration scope S:\n  output x content money\n\nscope S:\n  definition x equals sum money of [$1; $2]\n```\n",
    )
    .expect("compiles");
    assert_eq!(p.warnings.len(), 1);
    assert!(p.warnings[0]
        .message
        .starts_with("Deprecated: the construction 'sum <type> of'"));
    assert!(p.warnings[0]
        .message
        .ends_with("Use the function 'Money.sum of' instead"));
}

#[test]
fn misspelt_names_get_suggestions() {
    let errors = compile(
        "```catala\ndeclaration enumeration E:\n  -- Single\n  -- Couple\n\ndeclaration scope S:\n  output x content E\n\nscope S:\n  definition x equals Cuople\n```\n",
    )
    .expect_err("unknown constructor");
    assert_eq!(
        hint(&errors[0]),
        Some("Maybe you wanted to write: \"Couple\"?")
    );

    let errors = compile(
        "```catala\ndeclaration structure P:\n  data income content money\n  data incomes content money\n\ndeclaration scope S:\n  input p content P\n  output x content money\n\nscope S:\n  definition x equals p.incone\n```\n",
    )
    .expect_err("unknown field");
    assert_eq!(
        hint(&errors[0]),
        Some("Maybe you wanted to write: \"income\" or \"incomes\"?")
    );
}
