//! A tuple pattern with another number of components than the value matched: Catala's
//! unification error (`enum/bad/arity`), at the arm's body, the pattern's missing components
//! as `<any type>`.

use catala_syntax::ast::Language;

fn first_error(arm: &str, content: &str) -> (String, (usize, usize, usize)) {
    let text = format!(
        "```catala\ndeclaration scope S:\n  output o content integer\n\nscope S:\n  \
         definition o equals\n    match Present content {content} with pattern\n    \
         -- Absent: 0\n    {arm}\n```\n"
    );
    let (sources, program) =
        catala_syntax::parse_str("arity.catala_en", &text, Language::En).expect("parses");
    let errors = match catala_ir::compile(&sources, &program) {
        Ok(_) => panic!("compiles"),
        Err(errors) => errors,
    };
    let p = sources.position(errors[0].labels[0].span);
    (
        errors[0].message.clone(),
        (p.start_line, p.start_col, p.end_col),
    )
}

#[test]
fn too_many_components() {
    let (message, at) = first_error("-- Present content (a, b, c): a + b", "(12, 13)");
    assert_eq!(
        message,
        "Incompatible types:\n  got      (integer, integer),\n  expected (integer, integer, <any type>)"
    );
    // The body `a + b`, line 9 from column 35.
    assert_eq!(at, (9, 35, 40));
}

#[test]
fn too_few_components() {
    let (message, at) = first_error("-- Present content (a, b): a + b", "(12, 13, 14)");
    assert_eq!(
        message,
        "Incompatible types:\n  got      (integer, integer, integer),\n  expected (integer, integer)"
    );
    assert_eq!(at, (9, 32, 37));
}
