//! `declaration type T: external` declares an abstract type (Catala's `typing/good/abstract`):
//! the program compiles and runs, a list of it is empty, and the type is no scope's input
//! given in JSON.

use catala_eval::{run_scope, ValuePrinter};
use std::path::PathBuf;

#[test]
fn an_abstract_type_compiles_and_its_empty_list_prints() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/eval/abstract_type.catala_en");
    let (sources, ast) = catala_syntax::parse_file(&path)
        .unwrap_or_else(|d| panic!("the fixture does not parse: {}", d.message));
    let program = catala_ir::compile(&sources, &ast).unwrap_or_else(|ds| {
        panic!(
            "the fixture does not compile: {:?}",
            ds.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        )
    });
    let id = program.scope_by_name("Holder").expect("scope Holder");
    let n = program.scope(id).inputs.len();
    let result = run_scope(&program, id, vec![None; n]).unwrap_or_else(|e| panic!("{e}"));
    let printer = ValuePrinter {
        language: program.scope(id).language,
        names: &program,
    };
    let lines: Vec<String> = result
        .outputs
        .iter()
        .flat_map(|(name, v)| printer.result_lines(name, v))
        .collect();
    assert_eq!(lines, vec!["│ things = []", "│ count = 0"]);
}
