//! Shared set-up of the mutation tests on the hand-written fixtures of `tests/fixtures/mutate`.

use catala_eval::loader::LoadedProgram;
use catala_ir::dcalc::ScopeId;
use std::path::Path;

/// The fixture `tests/fixtures/mutate/NAME` loaded, with its scope `scope`.
pub fn load_fixture(name: &str, scope: &str) -> (LoadedProgram, ScopeId) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/mutate")
        .join(name);
    let Ok(loaded) = catala_eval::loader::load_program(&path, &[]) else {
        panic!("the fixture {name} compiles")
    };
    let Some(id) = loaded.program.scope_by_name(scope) else {
        panic!("no scope {scope} in {name}")
    };
    (loaded, id)
}

/// The source text at `span`.
pub fn span_text(loaded: &LoadedProgram, span: catala_syntax::Span) -> String {
    let f = loaded.sources.file(span.file);
    f.text[span.start as usize..span.end as usize].to_string()
}
