//! `lexprobe run FILE --scope S`: evaluates one scope and prints its outputs as
//! `catala interpret` does, or as JSON; `--jsonl` serves many evaluations over stdin/stdout.

use crate::catala::report::{print_errors, ErrorReport};
use crate::catala::{self, Loaded};
use crate::exit::{CATALA_ERROR, SUCCESS, USAGE};
use crate::format::OutputFormat;
use catala_eval::runtime::json::InputError;
use catala_eval::{inputs_from_json, outputs_to_json, Interpreter, ScopeResult, ValuePrinter};
use catala_ir::dcalc::{InputKind, ScopeId};
use serde_json::{json, Value as Json};
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  lexprobe run tax.catala_en --scope IncomeTax --input '{\"household\": {\"income\": 30000, \"children\": 2}}'
  lexprobe run tax.catala_en --scope IncomeTax --input @household.json --format json
  printf '{\"x\": 1}\\n{\"x\": 2}\\n' | lexprobe run f.catala_en --scope S --jsonl

Inputs use the Catala compiler's JSON formats: integers and money as numbers or numeric
strings, dates as \"YYYY-MM-DD\", durations as {\"years\", \"months\", \"days\"}, enumerations as
\"Case\" or {\"Case\": payload}, structures as objects. Exit code: 0 on success, 123 on a
Catala error (parse, typing, conflict, no applicable rule, failed assertion...), 2 on bad usage.")]
pub struct RunArgs {
    #[command(flatten)]
    pub includes: crate::catala::IncludeArgs,
    /// The Catala source file (.catala_en, .catala_fr, .catala_pl).
    pub file: PathBuf,
    /// The scope to evaluate.
    #[arg(long, short = 's')]
    pub scope: String,
    /// The scope's inputs: a JSON object keyed by input variable, or @FILE to read it from a file.
    #[arg(long)]
    pub input: Option<String>,
    /// Output format.
    #[arg(long, short = 'F', value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Serve evaluations: read one JSON inputs object per line on stdin, write one JSON line
    /// (the outputs object, or {"error": ...}) per input on stdout.
    #[arg(long)]
    pub jsonl: bool,
}

pub fn run(args: RunArgs) -> i32 {
    let json_out = args.format == OutputFormat::Json || args.jsonl;
    let (loaded, scope) =
        match catala::load_scope(&args.file, &args.includes.include, &args.scope, json_out) {
            Ok(found) => found,
            Err(code) => return code,
        };
    if args.jsonl {
        return serve_jsonl(&loaded, scope);
    }
    let input_json = match read_input(args.input.as_deref()) {
        Ok(j) => j,
        Err(msg) => {
            eprintln!("lexprobe run: {msg}");
            return USAGE;
        }
    };
    let s = loaded.program.scope(scope);
    if input_json.is_none() && s.inputs.iter().any(|i| i.kind == InputKind::Input) {
        let names: Vec<&str> = s
            .inputs
            .iter()
            .filter(|i| i.kind == InputKind::Input)
            .map(|i| i.name.as_str())
            .collect();
        let err = ErrorReport::plain(
            "input",
            format!(
                "Invalid scope for execution or testing: scope {} has input variables ({}); give them with --input",
                s.name,
                names.join(", ")
            ),
        );
        print_errors(&loaded.sources, &[err], json_out);
        return CATALA_ERROR;
    }
    // Without --input every input is left empty (context variables take the scope's own
    // definitions); JSON is read only when given, as `catala interpret` does.
    let inputs = match &input_json {
        None => vec![None; s.inputs.len()],
        Some(json) => match inputs_from_json(&loaded.program, scope, json) {
            Ok(v) => v,
            Err(e) => {
                print_errors(&loaded.sources, &[input_report(&e)], json_out);
                return CATALA_ERROR;
            }
        },
    };
    match catala_eval::run_scope(&loaded.program, scope, inputs) {
        Err(e) => {
            print_errors(&loaded.sources, &[ErrorReport::from_runtime(&e)], json_out);
            CATALA_ERROR
        }
        Ok(result) if !result.assertion_failures.is_empty() => {
            let errors: Vec<ErrorReport> = result
                .assertion_failures
                .iter()
                .map(ErrorReport::from_assertion)
                .collect();
            print_errors(&loaded.sources, &errors, json_out);
            CATALA_ERROR
        }
        Ok(result) => {
            if json_out {
                println!("{}", outputs_to_json(&loaded.program, &result));
            } else {
                print!("{}", result_box(&loaded, &result));
            }
            SUCCESS
        }
    }
}

/// The `┌─[RESULT]─ S ─` box of `catala interpret`.
pub fn result_box(loaded: &Loaded, result: &ScopeResult) -> String {
    let s = loaded.program.scope(result.scope);
    let printer = ValuePrinter {
        language: s.language,
        names: &loaded.program,
    };
    let mut out = format!("┌─[RESULT]─ {} ─\n", s.name);
    if result.outputs.is_empty() {
        out.push_str("│ Computation successful!\n");
    }
    for (name, value) in &result.outputs {
        for line in printer.result_lines(name, value) {
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    out.push_str("└─\n");
    out
}

fn input_report(e: &InputError) -> ErrorReport {
    ErrorReport::plain(
        "input",
        format!("Invalid input at {}: {}", e.path, e.message),
    )
}

fn read_input(arg: Option<&str>) -> Result<Option<Json>, String> {
    let Some(arg) = arg else {
        return Ok(None);
    };
    let text = match arg.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read input file {path}: {e}"))?,
        None => arg.to_string(),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("--input is not valid JSON: {e}"))
}

/// One evaluation per stdin line, with the interpreter prepared once.
fn serve_jsonl(loaded: &Loaded, scope: ScopeId) -> i32 {
    let mut interp = match Interpreter::<()>::new(&loaded.program, ()) {
        Ok(i) => i,
        Err(e) => {
            print_errors(&loaded.sources, &[ErrorReport::from_runtime(&e)], true);
            return CATALA_ERROR;
        }
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        let reply = match serde_json::from_str::<Json>(&line) {
            Err(e) => {
                json!({"error": {"kind": "input", "message": format!("invalid JSON: {e}"), "positions": []}})
            }
            Ok(input) => match inputs_from_json(&loaded.program, scope, &input) {
                Err(e) => json!({"error": input_report(&e).to_json(&loaded.sources)}),
                Ok(values) => match catala_eval::run_with(&mut interp, scope, values) {
                    Err(e) => {
                        json!({"error": ErrorReport::from_runtime(&e).to_json(&loaded.sources)})
                    }
                    Ok(r) if !r.assertion_failures.is_empty() => {
                        let first = ErrorReport::from_assertion(&r.assertion_failures[0]);
                        json!({"error": first.to_json(&loaded.sources)})
                    }
                    Ok(r) => outputs_to_json(&loaded.program, &r),
                },
            },
        };
        if writeln!(out, "{reply}").and_then(|_| out.flush()).is_err() {
            break;
        }
    }
    SUCCESS
}
