//! `lexprobe typecheck FILES...`: parses, resolves and type-checks each file.

use crate::catala::report::{write_errors, ErrorStyle};
use crate::catala::{self, LoadResult};
use crate::exit::{CATALA_ERROR, SUCCESS};
use crate::format::OutputFormat;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct TypecheckArgs {
    #[command(flatten)]
    pub includes: crate::catala::IncludeArgs,
    /// Catala source files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, short = 'F', value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Do not print the warnings (deprecated constructions) on standard error.
    #[arg(long)]
    pub disable_warnings: bool,
}

pub fn run(args: TypecheckArgs) -> i32 {
    let style = ErrorStyle::boxes_or_json(args.format == OutputFormat::Json);
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let mut code = SUCCESS;
    for file in &args.files {
        let loaded = catala::load(file, &args.includes.include);
        if let (Ok(l), false) = (&loaded, args.disable_warnings || style == ErrorStyle::Json) {
            catala::write_warnings(l, &mut err);
        }
        if report(file, &loaded, style, &mut out, &mut err) != SUCCESS {
            code = CATALA_ERROR;
        }
    }
    code
}

/// Writes the outcome of type-checking `file` (already loaded): Catala's success box, or the
/// errors; returns the exit code.
pub(crate) fn report(
    file: &Path,
    loaded: &LoadResult,
    style: ErrorStyle,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    match loaded {
        Ok(_) => {
            let _ = if style == ErrorStyle::Json {
                writeln!(out, "{}", serde_json::json!({"file": file, "ok": true}))
            } else {
                writeln!(out, "┌─[RESULT]─\n│ Typechecking successful!\n└─")
            };
            SUCCESS
        }
        Err((sources, errors)) => {
            write_errors(sources, errors, style, out, err);
            CATALA_ERROR
        }
    }
}
