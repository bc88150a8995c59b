//! `lexprobe audit FILE --scope S`: checks a concolic exploration's claim of completeness from
//! outside the solver. The scope is explored, then seeded random inputs within its input space
//! are run and each run's trace (its branch decisions and outcome) is looked up among the
//! traces of the exploration's tests; a run whose trace is missing is a path the exploration
//! did not find. Exit code 1 when the exploration says it is complete and a path is missing.

use crate::catala;
use crate::exit::{SUCCESS, USAGE};
use crate::format::OutputFormat;
use catala_eval::runtime::json::value_to_json;
use concolic::audit::{audit, AuditOptions};
use concolic::{ExploreOptions, Optimizations};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// Exit code of an audit that found a path missing from an exploration said to be complete.
pub(crate) const FALSE_COMPLETENESS: i32 = 1;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  lexprobe audit tax.catala_en --scope IncomeTaxComputation
  lexprobe audit tax.catala_en --scope S --runs 10000 --seed 7 --format json
  lexprobe audit housing.catala_fr --scope Test --max-tests 20000

The exploration is the one `lexprobe concolic` makes with the same options. Random inputs:
integers, amounts and decimals mixing small, round and wide values; dates from 1900 to 2199;
durations in days, months, years or a mix; lists up to the exploration's length bound; each
context variable given one time in two. Runs whose assertions fail are outside the input space
and are not counted.

Exit code: 0 when no path is missing or the exploration does not claim completeness, 1 when it
claims completeness and a random run took a path it did not find, 123 on a Catala error, 2 on
bad usage.")]
pub struct AuditArgs {
    #[command(flatten)]
    pub includes: crate::catala::IncludeArgs,
    /// The Catala source file.
    pub file: PathBuf,
    /// The scope to audit (default: every scope of FILE with inputs).
    #[arg(long, short = 's')]
    pub scope: Option<String>,
    /// Output format.
    #[arg(long, short = 'F', value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Random inputs to draw.
    #[arg(long, default_value_t = 2_000)]
    pub runs: usize,
    /// Seed of the random inputs (the same seed draws the same inputs).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Stop the exploration after this many tests (it is then not complete).
    #[arg(long)]
    pub max_tests: Option<usize>,
    /// Stop the exploration after this many seconds (it is then not complete).
    #[arg(long)]
    pub timeout: Option<f64>,
    /// The longest list input explored and drawn (each length up to it is a branch of the
    /// exploration).
    #[arg(long, default_value_t = concolic::inputs::DEFAULT_MAX_LIST_LENGTH)]
    pub max_list_length: usize,
    /// Optimizations of the exploration, as for `lexprobe concolic --optim`.
    #[arg(long, default_value = "all")]
    pub optim: String,
}

pub fn run(args: AuditArgs) -> i32 {
    let json_out = args.format == OutputFormat::Json;
    let optimizations = match Optimizations::parse(&args.optim) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("lexprobe audit: {e}");
            return USAGE;
        }
    };
    if args.timeout.is_some_and(|t| !(t.is_finite() && t > 0.0)) {
        eprintln!("lexprobe audit: --timeout must be a positive number of seconds");
        return USAGE;
    }
    if args.runs == 0 {
        eprintln!("lexprobe audit: --runs must be at least 1");
        return USAGE;
    }
    let (loaded, scopes) = match &args.scope {
        Some(name) => {
            match catala::load_scope(&args.file, &args.includes.include, name, json_out) {
                Ok((loaded, scope)) => (loaded, vec![scope]),
                Err(code) => return code,
            }
        }
        None => match catala::load(&args.file, &args.includes.include) {
            Ok(loaded) => {
                let scopes = scopes_with_inputs(&loaded.program);
                (loaded, scopes)
            }
            Err((sources, errors)) => {
                crate::catala::report::print_errors(&sources, &errors, json_out);
                return crate::exit::CATALA_ERROR;
            }
        },
    };
    if scopes.is_empty() {
        eprintln!(
            "lexprobe audit: {} declares no scope with inputs: nothing to audit",
            args.file.display()
        );
        return USAGE;
    }
    let options = ExploreOptions {
        optimizations,
        max_tests: args.max_tests,
        timeout: args.timeout.map(Duration::from_secs_f64),
        check: false,
        max_list_length: args.max_list_length,
        ..ExploreOptions::default()
    };
    let settings = AuditOptions {
        runs: args.runs,
        seed: args.seed,
        max_list_length: args.max_list_length,
        ..AuditOptions::default()
    };
    let mut results = Vec::new();
    let mut false_claims = 0;
    for scope in scopes {
        let row = match audit_scope(&loaded.program, scope, &options, &settings) {
            Ok(row) => row,
            Err(e) => {
                eprintln!(
                    "lexprobe audit: scope {}: {e}",
                    loaded.program.scope(scope).name
                );
                return crate::exit::CATALA_ERROR;
            }
        };
        if row["complete"] == json!(true) && row["missing_paths"] != json!(0) {
            false_claims += 1;
        }
        if json_out {
            results.push(row);
        } else {
            print_row(&row);
        }
    }
    if json_out {
        let doc = json!({ "seed": args.seed, "scopes": results });
        println!(
            "{}",
            serde_json::to_string_pretty(&doc).unwrap_or_else(|_| doc.to_string())
        );
    } else if false_claims > 0 {
        eprintln!(
            "lexprobe audit: {false_claims} exploration(s) claim completeness but missed paths"
        );
    }
    if false_claims > 0 {
        FALSE_COMPLETENESS
    } else {
        SUCCESS
    }
}

/// The scopes of the main program (not of the modules it uses) with at least one input.
fn scopes_with_inputs(program: &catala_ir::dcalc::Program) -> Vec<catala_ir::dcalc::ScopeId> {
    (0..program.scopes.len())
        .map(|i| catala_ir::dcalc::ScopeId(i as u32))
        .filter(|id| {
            let s = program.scope(*id);
            s.module.is_none() && !s.inputs.is_empty()
        })
        .collect()
}

/// Explores one scope and audits the exploration: the row of the report, as JSON.
fn audit_scope(
    program: &catala_ir::dcalc::Program,
    scope: catala_ir::dcalc::ScopeId,
    options: &ExploreOptions,
    settings: &AuditOptions,
) -> Result<serde_json::Value, concolic::ConcolicError> {
    let exploration = concolic::explore(program, scope, options)?;
    let explored: Vec<_> = exploration.tests.iter().map(|t| t.inputs.clone()).collect();
    let report = audit(program, scope, options, &explored, settings)?;
    let decl = program.scope(scope);
    let example_json = |inputs: &Vec<Option<catala_eval::Value>>| {
        let mut m = serde_json::Map::new();
        for (input, v) in decl.inputs.iter().zip(inputs) {
            if let Some(v) = v {
                m.insert(input.name.clone(), value_to_json(program, v));
            }
        }
        serde_json::Value::Object(m)
    };
    Ok(json!({
        "scope": decl.name,
        "tests": exploration.stats.tests,
        "complete": exploration.stats.complete,
        "incomplete": exploration.incomplete,
        "explored_paths": report.explored_traces,
        "random_runs": report.runs,
        "in_input_space": report.in_space,
        "random_paths": report.random_traces,
        "missing_runs": report.missing_runs,
        "missing_paths": report.missing_traces,
        "merged_by_early_conflicts": report.merged_traces,
        "not_drawn": report.undrawable,
        "missing_examples": report.examples.iter().map(example_json).collect::<Vec<_>>(),
    }))
}

/// The human form of a row.
fn print_row(row: &serde_json::Value) {
    let text = |k: &str| row[k].to_string();
    let incomplete: Vec<String> = row["incomplete"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let verdict = if row["complete"] == json!(true) {
        "complete".to_string()
    } else if incomplete.is_empty() {
        "not complete".to_string()
    } else {
        format!("not complete ({})", incomplete.join("; "))
    };
    println!(
        "{}: {} tests ({} distinct paths), {verdict}",
        row["scope"].as_str().unwrap_or(""),
        text("tests"),
        text("explored_paths"),
    );
    if let Some(names) = row["not_drawn"].as_array().filter(|a| !a.is_empty()) {
        let names: Vec<&str> = names.iter().filter_map(|n| n.as_str()).collect();
        println!(
            "  not audited: no value can be drawn at random for {} (function)",
            names.join(", ")
        );
        return;
    }
    println!(
        "  {} random runs, {} within the input space, {} distinct paths; {} runs on {} paths missing from the exploration",
        text("random_runs"),
        text("in_input_space"),
        text("random_paths"),
        text("missing_runs"),
        text("missing_paths"),
    );
    if row["merged_by_early_conflicts"] != json!(0) {
        println!(
            "  {} paths off the explored ones end in an error a test has (left out by early conflicts)",
            text("merged_by_early_conflicts")
        );
    }
    if let Some(examples) = row["missing_examples"].as_array() {
        for e in examples {
            println!("  missing: {e}");
        }
    }
}
