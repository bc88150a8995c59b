//! An operand that should be a list and is not is a unification error worded as Catala's
//! (`array/bad/type_error_in_filter`: `Incompatible types: got St, expected list of <any
//! type>`), pointing at the operand.

use catala_syntax::ast::Language;

#[test]
fn a_structure_where_a_list_is_expected() {
    let text = "```catala\ndeclaration structure St:\n  data x content integer\n\n\
                declaration scope S:\n  input s content St\n  output n content integer\n\n\
                scope S:\n  definition n equals number of list of y among s such that y > 2\n```\n";
    let (sources, program) =
        catala_syntax::parse_str("list.catala_en", text, Language::En).expect("parses");
    let errors = match catala_ir::compile(&sources, &program) {
        Ok(_) => panic!("compiles"),
        Err(errors) => errors,
    };
    assert_eq!(
        errors[0].message,
        "Incompatible types:\n  got      St,\n  expected list of <any type>"
    );
    // At the operand `s` (line 10, column 49).
    let at = errors[0].labels.first().map(|l| sources.position(l.span));
    assert_eq!(at.map(|p| (p.start_line, p.start_col)), Some((10, 49)));
}
