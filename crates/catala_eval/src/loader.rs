//! The one way to load a Catala program for running it: read the file with its includes and
//! the modules it uses (`--include` directories and the nearest `clerk.toml`), compile it to the
//! default calculus, and check that every external declaration has an implementation in
//! [`Externals::standard`](crate::externals::Externals::standard). Used by the command-line
//! tool and by the metamorphic engine's Catala systems alike; failures are diagnostics with
//! positions, rendered by the caller.

use crate::externals::Externals;
use catala_ir::dcalc::Program;
use catala_syntax::{Diagnostic, DiagnosticKind, LoadOptions, SourceMap};
use std::path::{Path, PathBuf};

/// A compiled program with the sources its positions refer to.
pub struct LoadedProgram {
    pub sources: SourceMap,
    pub program: Program,
}

/// Why a program could not be loaded: its diagnostics, with the sources read so far.
pub struct LoadFailure {
    pub sources: SourceMap,
    pub diagnostics: Vec<Diagnostic>,
}

/// Loads `path` with modules looked up in `include_dirs` (then the nearest `clerk.toml`'s).
pub fn load_program(path: &Path, include_dirs: &[PathBuf]) -> Result<LoadedProgram, LoadFailure> {
    let fail = |sources: SourceMap, diagnostics: Vec<Diagnostic>| LoadFailure {
        sources,
        diagnostics,
    };
    if !path.is_file() {
        let d = Diagnostic::new(
            DiagnosticKind::Io,
            format!("cannot read {}: no such file", path.display()),
        );
        return Err(fail(SourceMap::default(), vec![d]));
    }
    let options = LoadOptions::for_file(path, include_dirs)
        .map_err(|d| fail(SourceMap::default(), vec![d]))?;
    let (sources, parsed) = catala_syntax::parse_file_with_options(path, &options);
    let ast = match parsed {
        Ok(ast) => ast,
        Err(d) => return Err(fail(sources, vec![d])),
    };
    let program = match catala_ir::compile(&sources, &ast) {
        Ok(p) => p,
        Err(ds) => return Err(fail(sources, ds)),
    };
    // Every external declaration needs an implementation before anything runs.
    if let Err((span, message)) = Externals::standard().check(&program) {
        let d = Diagnostic::new(DiagnosticKind::NameResolution, message).at(span);
        return Err(fail(sources, vec![d]));
    }
    Ok(LoadedProgram { sources, program })
}
