//! `lexprobe typecheck FILES...`: parses, resolves and type-checks each file.

use crate::catala::report::print_errors;
use crate::catala::{self};
use crate::exit::{CATALA_ERROR, SUCCESS};
use crate::format::OutputFormat;
use std::path::PathBuf;

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
}

pub fn run(args: TypecheckArgs) -> i32 {
    let json = args.format == OutputFormat::Json;
    let mut code = SUCCESS;
    for file in &args.files {
        match catala::load(file, &args.includes.include) {
            Ok(_) => {
                if json {
                    println!("{}", serde_json::json!({"file": file, "ok": true}));
                } else {
                    println!("┌─[RESULT]─\n│ Typechecking successful!\n└─");
                }
            }
            Err((sources, errors)) => {
                print_errors(&sources, &errors, json);
                code = CATALA_ERROR;
            }
        }
    }
    code
}
