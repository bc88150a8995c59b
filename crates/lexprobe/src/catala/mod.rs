//! Loading Catala programs for the subcommands (`run`, `test`, `typecheck`): parsing, compiling
//! to the default calculus, and turning every kind of failure into an [`ErrorReport`] that can be
//! printed in Catala's box layout or as JSON.

pub(crate) mod condition_format;
pub(crate) mod findings;
pub(crate) mod problem_groups;
pub mod report;

use crate::exit::CATALA_ERROR;
use catala_ir::dcalc::{Program, ScopeId};
use catala_syntax::SourceMap;
use report::print_errors;
pub use report::ErrorReport;
use std::path::{Path, PathBuf};

/// `--include DIR` (repeatable): where used modules are looked up, after the directory of the
/// using file; the `include_dirs` of the nearest `clerk.toml` are added after these.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct IncludeArgs {
    /// Directory where used modules (`> Using M`) are looked up (repeatable); the nearest
    /// clerk.toml's include_dirs are searched too.
    #[arg(long = "include", short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
}

/// A compiled program with the sources its positions refer to.
pub struct Loaded {
    pub sources: SourceMap,
    pub program: Program,
}

/// A compiled program, or the sources read so far and the errors that stopped compilation.
pub type LoadResult = Result<Loaded, (SourceMap, Vec<ErrorReport>)>;

/// Parses and compiles `path`; on failure returns the sources read so far (to render the
/// errors' source lines) and the errors.
pub fn load(path: &Path, include_dirs: &[PathBuf]) -> LoadResult {
    match catala_eval::loader::load_program(path, include_dirs) {
        Ok(l) => Ok(Loaded {
            sources: l.sources,
            program: l.program,
        }),
        Err(f) => {
            let reports = f
                .diagnostics
                .iter()
                .map(|d| {
                    if d.kind == catala_syntax::DiagnosticKind::Io && d.labels.is_empty() {
                        ErrorReport::plain("io", d.message.clone())
                    } else {
                        ErrorReport::from_diagnostic(d)
                    }
                })
                .collect();
            Err((f.sources, reports))
        }
    }
}

/// Loads `path` and finds `scope` in it. On failure the errors are printed (boxes, or JSON when
/// `json` is set) and the exit code to return is given back.
pub(crate) fn load_scope(
    path: &Path,
    include_dirs: &[PathBuf],
    scope: &str,
    json: bool,
) -> Result<(Loaded, ScopeId), i32> {
    let loaded = match load(path, include_dirs) {
        Ok(l) => l,
        Err((sources, errors)) => {
            print_errors(&sources, &errors, json);
            return Err(CATALA_ERROR);
        }
    };
    match find_scope(&loaded, scope) {
        Ok(id) => Ok((loaded, id)),
        Err(err) => {
            print_errors(&loaded.sources, &[err], json);
            Err(CATALA_ERROR)
        }
    }
}

/// The scope named `scope`, or Catala's error naming the scopes there are.
pub(crate) fn find_scope(loaded: &Loaded, scope: &str) -> Result<ScopeId, ErrorReport> {
    loaded.program.scope_by_name(scope).ok_or_else(|| {
        let known: Vec<&str> = loaded
            .program
            .scopes
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        ErrorReport::plain(
            "name_resolution",
            format!(
                "There is no scope \"{scope}\" inside the program (scopes: {}).",
                known.join(", ")
            ),
        )
    })
}

/// Writes the compilation's warnings (deprecated constructions) in Catala's `┌─[WARNING]─`
/// boxes.
pub(crate) fn write_warnings(loaded: &Loaded, err: &mut dyn std::io::Write) {
    for w in &loaded.program.warnings {
        let text = catala_syntax::render_warning(&loaded.sources, None, &w.message, &w.labels);
        let _ = writeln!(err, "{}", text.trim_end());
    }
}
