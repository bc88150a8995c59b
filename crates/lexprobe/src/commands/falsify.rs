//! `lexprobe falsify BENCH_DIR/METHOD.ml [--naive]`: runs the derivative-guided (or naive)
//! symbolic executor of `hatch` on a benchmark method and prints the falsifying execution —
//! path condition, symbolic trace with a concrete model, continuation effect — and the time.
//! When nothing is falsified, says how far the bounded search got: every bound exhausted, or
//! the bounds explored completely and the round running when the time ran out.
//! Exit code 1 when a violation is found, 0 when none within the bounds, 2 on input errors.

use crate::exit::{FALSIFIED, SUCCESS, USAGE};
use crate::format::OutputFormat;
use hatch::{falsify_file, Bounds, Mode, Options, Report, SearchProgress};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
pub struct FalsifyArgs {
    /// The method file, e.g. ri/Stack_LinkedList/cons_buggy.ml
    pub method: PathBuf,
    /// Use the naive (derivative-free) semantics.
    #[arg(long)]
    pub naive: bool,
    /// Most function calls along one execution path.
    #[arg(long, default_value_t = 20)]
    pub exec_bound: usize,
    /// Longest trace sampled from an appended effect or required context.
    #[arg(long, default_value_t = 5)]
    pub append_bound: usize,
    /// Time limit in seconds.
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Output format.
    #[arg(long, short = 'F', value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Also write JUnit XML to FILE: one test case for the method, failed when falsified.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Derivative search: one state per refinement of the trace by a library call's required
    /// context or per sampled prestate, instead of one state with their disjunction (the same
    /// executions in more states; for comparisons).
    #[arg(long)]
    pub no_disjunctive_states: bool,
    /// Derivative search: explore again an entry into a function that an earlier entry of its
    /// path covers (same pending frames and continuation, only events no specification sees
    /// since, equal arguments), instead of dropping it (the same verdicts, more states; for
    /// comparisons).
    #[arg(long)]
    pub no_subsumption: bool,
    /// No live status line on the terminal (drawn on stderr only when it is a terminal).
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: FalsifyArgs) -> i32 {
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        eprintln!("error: --timeout must be a positive number of seconds");
        return USAGE;
    }
    let opts = Options {
        mode: if args.naive {
            Mode::Naive
        } else {
            Mode::Derivative
        },
        exec_bound: args.exec_bound,
        append_bound: args.append_bound,
        timeout: Duration::from_secs_f64(args.timeout),
        disjunctive_states: !args.no_disjunctive_states,
        subsume_entries: !args.no_subsumption,
        ..Options::default()
    };
    let status = crate::progress::Status::new(
        crate::progress::wanted(args.quiet),
        &format!("falsify {}", args.method.display()),
    );
    status.set_message(format!(
        "{} search, at most {} calls per path and {} events per sampled trace, {} s",
        if args.naive {
            "naive"
        } else {
            "derivative-guided"
        },
        args.exec_bound,
        args.append_bound,
        args.timeout
    ));
    let found = falsify_file(&args.method, &opts);
    status.finish();
    let report = match found {
        Ok(r) => r,
        Err(e) => {
            eprint!("{}", e.render());
            return USAGE;
        }
    };
    // a closed standard output (e.g. piped into `head`) does not change the verdict
    let _ = print_report(&mut std::io::stdout().lock(), &report, &args);
    if let Some(path) = &args.junit {
        let xml = crate::report_files::falsify_junit(&args.method, args.naive, &report);
        if let Err(msg) = crate::report_files::write_file(path, &xml) {
            eprintln!("error: {msg}");
            return USAGE;
        }
    }
    if report.falsified {
        FALSIFIED
    } else {
        SUCCESS
    }
}

/// How far the bounded search got, for the JSON output.
fn bounds_json(p: &SearchProgress) -> serde_json::Value {
    let pair = |b: Option<Bounds>| {
        b.map(|b| serde_json::json!({"calls": b.calls, "prestate_length": b.prestate_length}))
    };
    serde_json::json!({
        "exec_bound": p.limit.calls,
        "append_bound": p.limit.prestate_length,
        "exhausted": p.exhausted,
        "completed": pair(p.completed),
        "interrupted": pair(p.interrupted),
    })
}

/// Prints the report as text or JSON.
fn print_report(out: &mut impl Write, report: &Report, args: &FalsifyArgs) -> std::io::Result<()> {
    let trace = report.trace_lines();
    if args.format == OutputFormat::Json {
        let v = report.violation.as_ref();
        let json = serde_json::json!({
            "falsified": report.falsified,
            "timed_out": report.timed_out,
            "time_s": report.elapsed.as_secs_f64(),
            "mode": if args.naive { "naive" } else { "derivative" },
            "kind": v.map(|v| format!("{:?}", v.kind)),
            "phi": v.map(|v| v.phi.iter().map(|t| t.to_string()).collect::<Vec<_>>()).unwrap_or_default(),
            "trace": trace,
            "r_cont": v.and_then(|v| v.cont.as_ref()).map(|c| c.to_string()),
            "r_curr": v.and_then(|v| v.context.as_ref()).map(|c| c.to_string()),
            "model": v.map(|v| v.model.clone()).unwrap_or_default(),
            "states": report.states,
            "paths": report.paths,
            "solver_queries": report.solver.queries,
            "bounds": bounds_json(&report.progress),
        });
        writeln!(out, "{json}")?;
    } else {
        match &report.violation {
            Some(v) => {
                writeln!(out, "Falsified ({:?})", v.kind)?;
                let phi: Vec<String> = v.phi.iter().map(|t| t.to_string()).collect();
                writeln!(
                    out,
                    "Phi    = {}",
                    if phi.is_empty() {
                        "true".to_string()
                    } else {
                        phi.join(" ∧ ")
                    }
                )?;
                writeln!(out, "Trace  = {}", trace.join("; "))?;
                if let Some(c) = &v.cont {
                    writeln!(out, "R_cont = {c}")?;
                }
                if let Some(c) = &v.context {
                    writeln!(out, "R_curr = {c}")?;
                }
                let model: Vec<String> = v
                    .model
                    .iter()
                    .filter(|(k, _)| !k.contains(':'))
                    .map(|(k, x)| format!("{k} = {x}"))
                    .collect();
                writeln!(out, "Model  = {}", model.join(", "))?;
            }
            None => writeln!(out, "No violation found: {}", report.progress.describe())?,
        }
        writeln!(
            out,
            "exec time {:.3}(s), {} states, {} paths, {} solver queries",
            report.elapsed.as_secs_f64(),
            report.states,
            report.paths,
            report.solver.queries
        )?;
    }
    Ok(())
}
