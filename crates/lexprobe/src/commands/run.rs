//! `lexprobe run FILE --scope S`: evaluates one scope and prints its outputs as
//! `catala interpret` does, or as JSON; `--jsonl` serves many evaluations over stdin/stdout.

use crate::catala::report::{print_errors, write_errors, ErrorReport, ErrorStyle};
use crate::catala::{self, Loaded};
use crate::exit::{CATALA_ERROR, SUCCESS, USAGE};
use crate::format::{MessageFormat, OutputFormat};
use catala_eval::eval::interpreter::DebugRecord;
use catala_eval::runtime::json::{InputError, FUNCTIONAL_INPUT};
use catala_eval::{inputs_from_json, outputs_to_json, Interpreter, ScopeResult, ValuePrinter};
use catala_ir::dcalc::{InputKind, Scope as ScopeDecl, ScopeId};
use catala_syntax::ast::Language;
use serde_json::{json, Value as Json};
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  lexprobe run tax.catala_en --scope IncomeTax --input '{\"household\": {\"income\": 30000, \"children\": 2}}'
  lexprobe run tax.catala_en --scope IncomeTax --input @household.json --format json
  printf '{\"x\": 1}\\n{\"x\": 2}\\n' | lexprobe run f.catala_en --scope S --jsonl

Inputs use the Catala compiler's JSON formats, numbers read exactly from their text (0.1 is
1/10; money to the cent, more digits are refused): integers, decimals and money as numbers or
numeric strings (decimals also \"n/d\"), dates as \"YYYY-MM-DD\", durations as
{\"years\", \"months\", \"days\"}, enumerations as \"Case\" or {\"Case\": payload},
structures as objects. Exit code: 0 on success, 123 on a
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
    /// How errors are printed: Catala's boxes, or one `file:line.col-col: [ERROR] message` line
    /// each.
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
    /// Report failed assertions as warnings and print the results anyway (exit code 0).
    #[arg(long)]
    pub no_fail_on_assert: bool,
    /// Do not print the warnings (deprecated constructions) on standard error.
    #[arg(long)]
    pub disable_warnings: bool,
    /// Serve evaluations: read one JSON inputs object per line on stdin, write one JSON line
    /// (the outputs object, or {"error": ...}) per input on stdout.
    #[arg(long)]
    pub jsonl: bool,
    /// Show the values of the expressions marked `#[debug.print]` (`[DEBUG] label = value (at
    /// position)` lines before the results).
    #[arg(long)]
    pub debug: bool,
}

pub fn run(args: RunArgs) -> i32 {
    let json_out = args.format == OutputFormat::Json || args.jsonl;
    let style = match (json_out, args.message_format) {
        (true, _) => ErrorStyle::Json,
        (false, MessageFormat::Human) => ErrorStyle::Boxes,
        (false, MessageFormat::Gnu) => ErrorStyle::Gnu,
    };
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let loaded = match catala::load(&args.file, &args.includes.include) {
        Ok(l) => l,
        Err((sources, errors)) => {
            write_errors(&sources, &errors, style, &mut out, &mut err);
            return CATALA_ERROR;
        }
    };
    if !args.disable_warnings && !json_out {
        catala::write_warnings(&loaded, &mut err);
    }
    let scope = match catala::find_scope(&loaded, &args.scope) {
        Ok(scope) => scope,
        Err(e) => {
            write_errors(&loaded.sources, &[e], style, &mut out, &mut err);
            return CATALA_ERROR;
        }
    };
    if args.jsonl {
        return serve_jsonl(&loaded, scope);
    }
    let input = match read_input(args.input.as_deref()) {
        Ok(j) => j,
        Err(msg) => {
            eprintln!("lexprobe run: {msg}");
            return USAGE;
        }
    };
    let request = RunRequest {
        scope: &args.scope,
        input: input.as_ref(),
        json: json_out,
        style,
        fail_on_assert: !args.no_fail_on_assert,
        debug: args.debug,
    };
    evaluate(&loaded, &request, &mut out, &mut err)
}

/// One evaluation of a loaded program, as `lexprobe run` (and the test runner) performs it.
pub(crate) struct RunRequest<'a> {
    /// The scope to evaluate.
    pub scope: &'a str,
    /// The inputs object; `None` leaves every input empty.
    pub input: Option<&'a Json>,
    /// Outputs as a JSON object instead of the `┌─[RESULT]─` box.
    pub json: bool,
    /// How errors are written.
    pub style: ErrorStyle,
    /// Failed assertions are errors (exit code 123); otherwise warnings, and the run goes on.
    pub fail_on_assert: bool,
    /// Write the `#[debug.print]` values (`[DEBUG] …` lines) before the results.
    pub debug: bool,
}

/// Evaluates `request.scope` of `loaded`, writing results to `out` and errors to `err` (or to
/// `out` in JSON); returns the exit code.
pub(crate) fn evaluate(
    loaded: &Loaded,
    request: &RunRequest,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let style = request.style;
    let scope = match catala::find_scope(loaded, request.scope) {
        Ok(id) => id,
        Err(e) => {
            write_errors(&loaded.sources, &[e], style, out, err);
            return CATALA_ERROR;
        }
    };
    let s = loaded.program.scope(scope);
    if request.input.is_none() {
        if let Some(e) = inputs_missing(s) {
            write_errors(&loaded.sources, &[e], style, out, err);
            return CATALA_ERROR;
        }
    }
    // Without --input every input is left empty (context variables take the scope's own
    // definitions); JSON is read only when given, as `catala interpret` does.
    let inputs = match request.input {
        None => vec![None; s.inputs.len()],
        Some(json) => match inputs_from_json(&loaded.program, scope, json) {
            Ok(v) => v,
            Err(e) => {
                write_errors(&loaded.sources, &[input_report(&e)], style, out, err);
                return CATALA_ERROR;
            }
        },
    };
    let mut interp = match Interpreter::<()>::new(&loaded.program, ()) {
        Ok(i) => i,
        Err(e) => {
            let report = ErrorReport::from_runtime(&e);
            write_errors(&loaded.sources, &[report], style, out, err);
            return CATALA_ERROR;
        }
    };
    if request.debug {
        interp.debug_log = Some(Vec::new());
    }
    let result = catala_eval::run_with(&mut interp, scope, inputs);
    if let Some(log) = interp.debug_log.take() {
        write_debug_log(loaded, s.language, log, out);
    }
    let result = match result {
        Err(e) => {
            let report = ErrorReport::from_runtime(&e);
            write_errors(&loaded.sources, &[report], style, out, err);
            return CATALA_ERROR;
        }
        Ok(result) => result,
    };
    if !result.assertion_failures.is_empty() {
        let errors: Vec<ErrorReport> = result
            .assertion_failures
            .iter()
            .map(ErrorReport::from_assertion)
            .collect();
        if request.fail_on_assert {
            write_errors(&loaded.sources, &errors, style, out, err);
            return CATALA_ERROR;
        }
        let n = errors.len();
        for (i, e) in errors.iter().enumerate() {
            let suffix = (n > 1).then(|| format!("{}/{n}", i + 1));
            let warning = catala_syntax::render_warning(
                &loaded.sources,
                suffix.as_deref(),
                &e.message,
                &e.labels,
            );
            let _ = writeln!(err, "{}", warning.trim_end());
        }
    }
    let _ = if request.json {
        writeln!(out, "{}", outputs_to_json(&loaded.program, &result))
    } else {
        write!(out, "{}", result_box(loaded, &result))
    };
    SUCCESS
}

/// The error of a scope run without `--input` although it has input variables (context
/// variables may be left empty: they take the scope's own definitions).
fn inputs_missing(s: &ScopeDecl) -> Option<ErrorReport> {
    let names: Vec<&str> = s
        .inputs
        .iter()
        .filter(|i| i.kind == InputKind::Input)
        .map(|i| i.name.as_str())
        .collect();
    if names.is_empty() {
        return None;
    }
    Some(ErrorReport::plain(
        "input",
        format!(
            "Invalid scope for execution or testing: scope {} has input variables ({}); give them with --input",
            s.name,
            names.join(", ")
        ),
    ))
}

/// The `[DEBUG] label = value (at position)` lines of the `#[debug.print]` values of a run.
fn write_debug_log(
    loaded: &Loaded,
    language: Language,
    log: Vec<DebugRecord>,
    out: &mut dyn Write,
) {
    let printer = ValuePrinter {
        language,
        names: &loaded.program,
    };
    for record in log {
        let label = record.label.map(|l| format!("{l} = ")).unwrap_or_default();
        let _ = writeln!(
            out,
            "[DEBUG] {label}{} (at {})",
            printer.flat(&record.value),
            loaded.sources.position(record.span)
        );
    }
}

/// The `┌─[RESULT]─ S ─` box of `catala interpret`.
pub(crate) fn result_box(loaded: &Loaded, result: &ScopeResult) -> String {
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
    // A scope with a function input is refused whatever the JSON, as Catala does, with its
    // message alone.
    if e.message == FUNCTIONAL_INPUT {
        return ErrorReport::plain("input", e.message.clone());
    }
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
