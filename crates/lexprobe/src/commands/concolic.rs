//! `lexprobe concolic FILE --scope S`: concolic exploration of a scope. Prints one test per
//! execution path (inputs, then outputs or the error with its positions), as Catala-style text
//! or as one JSON object; optionally writes the tests as Catala test scopes.

use crate::catala::findings::Findings;
use crate::catala::report::{print_errors, ErrorReport};
use crate::catala::{self, Loaded};
use crate::exit::{CATALA_ERROR, PROBLEMS_FOUND, SUCCESS, USAGE};
use crate::format::OutputFormat;
use catala_eval::runtime::json::value_to_json;
use catala_eval::runtime::Date;
use catala_eval::ValuePrinter;
use concolic::{Exploration, ExploreOptions, Optimizations, Outcome};
use serde_json::{json, Map, Value as Json};
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

mod emit_suite;
pub use emit_suite::SuiteKind;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  lexprobe concolic tax.catala_en --scope IncomeTaxComputation
  lexprobe concolic tax.catala_en --scope IncomeTaxComputation --format json --stats
  lexprobe concolic tax.catala_en --scope S --optim none --max-tests 100 --timeout 60
  lexprobe concolic tax.catala_en --scope S --emit-tests tests/ --check
  lexprobe concolic tax.catala_en --scope S --emit-tests tests/ --suite minimal && lexprobe test tests/
  lexprobe concolic tax.catala_en --scope S --sarif lexprobe.sarif --junit lexprobe.xml --coverage coverage.html
  lexprobe concolic housing.catala_fr --scope Test --jsonl --timeout 3600 > tests.jsonl
  lexprobe concolic housing.catala_fr --scope Test --jsonl --checkpoint run.ckpt > part1.jsonl
  lexprobe concolic housing.catala_fr --scope Test --jsonl --resume run.ckpt --checkpoint run.ckpt > part2.jsonl
  lexprobe concolic housing.catala_fr --scope Test --plan 8 > plan.json
  lexprobe concolic housing.catala_fr --scope Test --plan-file plan.json --shard 3/8 --jsonl > shard-3.jsonl
  lexprobe merge part1.jsonl part2.jsonl > all.jsonl

Human output and --jsonl print each test as soon as it is found, so a long exploration can be
watched, cut short, or piped; --format json prints one object at the end.

Each test's outcome is the one `lexprobe run` gives on its inputs (definitions in Catala's
order; --order paper explores in the order of the paper's tool, to reproduce its path counts).
A run stopped by --timeout, --max-tests or Ctrl-C (which interrupt a solver check in flight,
and write the checkpoint with --checkpoint) prints its closing line, and says in `incomplete`
what stopped it and what is left unexplored, as it does for solver queries left unknown.

Exit codes:
  0    no problem found on any explored path (or --exit-zero)
  1    a problem found: a conflict, an empty default, a division by zero, a date or duration
       error or another runtime error on some path (the problems listed under `Findings`);
       failed assertions of the scope are inputs outside its input space, not problems
  2    bad usage, or a file that cannot be read or written
  123  a Catala error in the program, or a failed replay check (--check)
An exploration cut short (--timeout, --max-tests, Ctrl-C) exits as the paths it explored say;
`incomplete` says what is left.")]
pub struct ConcolicArgs {
    #[command(flatten)]
    pub includes: crate::catala::IncludeArgs,
    /// The Catala source file.
    pub file: PathBuf,
    /// The scope to explore.
    #[arg(long, short = 's')]
    pub scope: String,
    /// Output format.
    #[arg(long, short = 'F', value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Stop after this many seconds (a solver check in flight is interrupted).
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Stop after this many tests; with --resume, after this many more tests than the
    /// checkpoint's.
    #[arg(long)]
    pub max_tests: Option<usize>,
    /// Order of the definitions in the runs: catala (Catala's, as `lexprobe run` evaluates
    /// them), or paper (the order of the compiler the paper's tool was built on, to reproduce
    /// its path counts; a test's path may then end differently from the run on its inputs,
    /// which is reported in `incomplete`).
    #[arg(long, value_enum, default_value_t = OrderArg::Catala)]
    pub order: OrderArg,
    #[arg(
        long,
        default_value = "all",
        help = concolic::options::optim_help(),
        long_help = concolic::options::optim_long_help()
    )]
    pub optim: String,
    /// Initial inputs: a JSON object (possibly partial) or @FILE. A list longer than
    /// --max-list-length raises the bound of that list to its length.
    #[arg(long)]
    pub hints: Option<String>,
    /// The most elements of a list input (lists in structures, enumerations and lists
    /// included): every length from 0 to this is explored; `complete` holds within it.
    #[arg(long, default_value_t = concolic::inputs::DEFAULT_MAX_LIST_LENGTH)]
    pub max_list_length: usize,
    /// The dates test inputs are preferred within, `FIRST..LAST` as dates (`2023-01-01..
    /// 2025-12-31`) or years (`2023..2025`); default: the years of the program's date
    /// literals. A preference, never a bound: paths that need other dates are still explored
    /// (the exploration's bounds stay 1900–2199).
    #[arg(long, value_name = "FIRST..LAST")]
    pub date_range: Option<String>,
    /// Print each test's path condition.
    #[arg(long)]
    pub show_constraints: bool,
    /// Write the tests as a Catala test file into this directory: `#[test]` scopes for the
    /// paths that end normally, ```catala-test-cli blocks (command, error, exit code) for
    /// those ending in an error. A program declaring a module is used (`> Using M`), with
    /// its names qualified; a clerk.toml lists the module directories when needed.
    #[arg(long, value_name = "DIR")]
    pub emit_tests: Option<PathBuf>,
    /// Which tests --emit-tests writes: all, or minimal (the fewest that still apply every
    /// rule the exploration applied and show every distinct problem, chosen greedily).
    #[arg(long, value_enum, default_value_t = SuiteKind::All, requires = "emit_tests")]
    pub suite: SuiteKind,
    /// Write one self-contained HTML page for the run to FILE: the problems with the
    /// condition under which each occurs and an example, the law coverage of the tests, and
    /// the tests with their inputs and outputs (the first 500).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Print the statistics (tests, solver calls, times, paths by outcome).
    #[arg(long)]
    pub stats: bool,
    /// Replay every test on the plain interpreter; fail if an outcome differs.
    #[arg(long)]
    pub check: bool,
    /// JSON Lines: one test object per line as it is found, then a closing
    /// `{"stats": …, "incomplete": […]}` line. Memory stays flat however long the run.
    #[arg(long, conflicts_with = "format")]
    pub jsonl: bool,
    /// Worker threads, each with its own Z3 context, sharing the program and the path tree
    /// (same paths as one worker; tests are printed in the order they are found). Works with
    /// --checkpoint and --resume (a checkpoint holds every worker's state), --shard and
    /// --emit-tests.
    #[arg(long, short = 'j', default_value_t = 1)]
    pub jobs: usize,
    /// Keep the state of the exploration in this file (rewritten every --checkpoint-every
    /// seconds and when --timeout or --max-tests stops the run), for --resume.
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Seconds between two checkpoints.
    #[arg(long, default_value_t = 10.0)]
    pub checkpoint_every: f64,
    /// Seconds after which the solver gives up on one query (the exploration is then
    /// reported incomplete, with the count in `unknown_queries`).
    #[arg(long, default_value_t = 60.0)]
    pub query_timeout: f64,
    /// Write each path query the solver gave up on to this directory, as an SMT-LIB 2 file
    /// (unknown-PID-N.smt2), to try it with another solver or attach it to a bug report.
    #[arg(long, value_name = "DIR")]
    pub dump_unknown: Option<PathBuf>,
    /// Continue the exploration saved in this checkpoint file (same program, scope and
    /// --optim); test numbers and figures continue from it.
    #[arg(long)]
    pub resume: Option<PathBuf>,
    /// Order of the paths: depth-first (the paper's), new-branches (a branch no run has
    /// taken yet goes first, so problems behind it show up sooner), or coverage (the way runs
    /// took least often goes first); the same paths in the end; only depth-first with
    /// --checkpoint or --resume.
    #[arg(long, value_enum, default_value_t = StrategyArg::DepthFirst)]
    pub strategy: StrategyArg,
    /// Sharding: print a plan cutting the path tree into disjoint subtrees for this many
    /// shards (JSON, for --plan-file), and stop.
    #[arg(long, value_name = "SHARDS", conflicts_with_all = ["plan_file", "shard"])]
    pub plan: Option<usize>,
    /// Sharding: the number of subtrees a plan cuts the tree into (more: better balance, a
    /// longer plan; default 64 per shard, at least 1024).
    #[arg(long, value_name = "N")]
    pub plan_subtrees: Option<usize>,
    /// Sharding: the plan (from --plan) a shard belongs to; with --shard.
    #[arg(long, requires = "shard", value_name = "FILE")]
    pub plan_file: Option<PathBuf>,
    /// Sharding: explore shard I of N of --plan-file (0 ≤ I < N), or `auto`: the index of a
    /// Slurm job array task (SLURM_ARRAY_TASK_ID) or of a Kubernetes Indexed Job
    /// (JOB_COMPLETION_INDEX); `auto/N` checks the count.
    #[arg(long, requires = "plan_file", value_name = "I/N|auto")]
    pub shard: Option<String>,
    /// Exit with 0 even when problems are found (as linters' --exit-zero): the problems are
    /// still printed and written to --sarif and --junit; errors keep their exit codes.
    #[arg(long)]
    pub exit_zero: bool,
    #[command(flatten)]
    pub outputs: ConcolicOutputArgs,
}

/// Result files written besides the printed output.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ConcolicOutputArgs {
    /// Write the distinct problems found as SARIF 2.1.0 to FILE (one result per problem, with
    /// its positions, message and the inputs of its most typical test).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Write JUnit XML to FILE: one failed test case per distinct problem (its message, the
    /// inputs of its most typical test, its positions), and one passed case for the paths
    /// without a problem.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// The directory the file paths of --sarif are relative to (its `SRCROOT`). Default: the
    /// top of the git work tree holding the program, else the current directory.
    #[arg(long, value_name = "DIR")]
    pub source_root: Option<PathBuf>,
    /// No live status line on the terminal (it is drawn on stderr only when stderr is a
    /// terminal).
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub coverage: super::coverage_args::CoverageArgs,
}

/// The order of the definitions, on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OrderArg {
    Catala,
    Paper,
}

impl OrderArg {
    pub fn name(self) -> &'static str {
        concolic::options::EvaluationOrder::from(self).name()
    }
}

impl From<OrderArg> for concolic::options::EvaluationOrder {
    fn from(o: OrderArg) -> concolic::options::EvaluationOrder {
        match o {
            OrderArg::Catala => concolic::options::EvaluationOrder::Catala,
            OrderArg::Paper => concolic::options::EvaluationOrder::Paper,
        }
    }
}

/// The order of an exploration's paths, on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StrategyArg {
    DepthFirst,
    NewBranches,
    Coverage,
}

impl From<StrategyArg> for concolic::Strategy {
    fn from(s: StrategyArg) -> concolic::Strategy {
        match s {
            StrategyArg::DepthFirst => concolic::Strategy::DepthFirst,
            StrategyArg::NewBranches => concolic::Strategy::NewBranchesFirst,
            StrategyArg::Coverage => concolic::Strategy::CoverageGuided,
        }
    }
}

pub fn run(args: ConcolicArgs) -> i32 {
    let json_out = args.format == OutputFormat::Json || args.jsonl;
    let mut options = match explore_options(&args) {
        Ok(o) => o,
        Err(msg) => return usage(&msg),
    };
    let (loaded, scope) =
        match catala::load_scope(&args.file, &args.includes.include, &args.scope, json_out) {
            Ok(found) => found,
            Err(code) => return code,
        };
    // The program, the exploration and the findings live until the process ends: freeing
    // their trees node by node just before it does is work for nothing (about 4 % of the
    // instructions of a small benchmark's whole process).
    let loaded = std::mem::ManuallyDrop::new(loaded);
    let mut bounds = concolic::inputs::Bounds::of(
        &loaded.program,
        scope,
        options.max_list_length,
        options.hints.as_ref(),
    );
    if let Some((first, last)) = options.date_range {
        bounds = bounds.with_date_range(first, last);
    }
    if options.optimizations.input_space {
        bounds.input_assertions = input_assertions(&loaded, scope);
    }
    if let Some(shards) = args.plan {
        return match super::shard::print_plan(&loaded, scope, &options, &args, shards) {
            Ok(()) => SUCCESS,
            Err(e) => {
                eprintln!("lexprobe concolic: {e}");
                CATALA_ERROR
            }
        };
    }
    let shard = match super::shard::read_shard(&loaded, &args) {
        Ok(s) => s,
        Err(e) => return usage(&e),
    };
    if let Err(msg) = take_up_checkpoint(&args, shard.as_ref(), &mut options) {
        return usage(&msg);
    }
    if let (Some(s), true) = (&shard, args.jsonl) {
        println!("{}", super::shard::header_json(s));
    }
    let sinks = TestSinks::new(&args, json_out);
    let mut shard_done: Option<super::shard::ShardDone> = None;
    let shard_parts = (shard.as_ref(), &mut shard_done);
    let result = if args.jobs > 1 {
        explore_parallel(&loaded, scope, &options, &args, &sinks, shard_parts)
    } else {
        explore_sequential(&loaded, scope, &options, &args, &sinks, shard_parts)
    };
    sinks.recorders.status.finish();
    let exploration = match result {
        Ok(e) => std::mem::ManuallyDrop::new(e),
        Err(e) => {
            print_errors(
                &loaded.sources,
                &[ErrorReport::plain("concolic", e.to_string())],
                json_out,
            );
            return CATALA_ERROR;
        }
    };
    let coverage = super::shard::coverage_json(shard.as_ref(), &exploration, shard_done.as_ref());
    let (findings, recorders, collected) = sinks.finish();
    let findings = std::mem::ManuallyDrop::new(findings);
    let suite = match write_suite_and_report(
        &loaded,
        scope,
        &exploration,
        &args,
        (&findings, collected.emitted),
    ) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let found = (&*exploration, collected.json);
    let closing = Closing {
        findings: &findings,
        coverage,
        suite: suite.as_ref(),
    };
    print_exploration(&loaded, scope, found, &args, &bounds, closing);
    let code = write_outputs(&loaded, scope, &exploration, &args, &recorders);
    if code != SUCCESS {
        return code;
    }
    let code = report_mismatches(&exploration, &loaded);
    if code != SUCCESS {
        return code;
    }
    problems_exit_code(recorders.problem_count(), args.exit_zero)
}

/// The exit code once everything went well: 1 when problems were found, unless `exit_zero`.
fn problems_exit_code(problems: usize, exit_zero: bool) -> i32 {
    if problems > 0 && !exit_zero {
        PROBLEMS_FOUND
    } else {
        SUCCESS
    }
}

/// `lexprobe concolic: MESSAGE`, and the usage exit code.
fn usage(message: &str) -> i32 {
    eprintln!("lexprobe concolic: {message}");
    USAGE
}

/// The options of the exploration, from the command line; the message of a usage error.
fn explore_options(args: &ConcolicArgs) -> Result<ExploreOptions, String> {
    let optimizations = Optimizations::parse(&args.optim).map_err(|e| e.to_string())?;
    if let Some(path) = &args.checkpoint {
        check_checkpoint_writable(path)?;
    }
    let hints = args.hints.as_deref().map(read_json).transpose()?;
    check_combinations(args)?;
    if let Some(dir) = &args.dump_unknown {
        std::fs::create_dir_all(dir).map_err(|e| {
            format!(
                "cannot create the directory {} for --dump-unknown: {e}",
                dir.display()
            )
        })?;
    }
    let json_out = args.format == OutputFormat::Json || args.jsonl;
    let date_range = args
        .date_range
        .as_deref()
        .map(parse_date_range)
        .transpose()?;
    Ok(ExploreOptions {
        date_range,
        optimizations,
        order: args.order.into(),
        cancel: Some(crate::interrupt::on_ctrl_c()),
        strategy: args.strategy.into(),
        max_tests: args.max_tests,
        timeout: args
            .timeout
            .filter(|t| *t > 0.0)
            .map(Duration::from_secs_f64),
        hints,
        check: args.check,
        keep_constraints: args.show_constraints,
        keep_conditions: true,
        // One JSON object and emitted test files need every test at the end.
        keep_tests: (json_out && !args.jsonl) || args.emit_tests.is_some() || args.report.is_some(),
        query_timeout: Some(Duration::from_secs_f64(
            args.query_timeout.clamp(0.001, 4e6),
        )),
        dump_unknown: args.dump_unknown.clone(),
        max_list_length: args.max_list_length,
        checkpoint_every: args
            .checkpoint
            .as_ref()
            .map(|_| Duration::from_secs_f64(args.checkpoint_every)),
        ..ExploreOptions::default()
    })
}

/// `--date-range FIRST..LAST`: two dates (`2023-01-01..2025-12-31`) or two years
/// (`2023..2025`, from January 1st of the first to December 31st of the last).
fn parse_date_range(text: &str) -> Result<(Date, Date), String> {
    let bad = |why: &str| {
        format!(
            "--date-range {text}: {why} (expected FIRST..LAST, e.g. 2023-01-01..2025-12-31 or \
             2023..2025)"
        )
    };
    let (first, last) = text
        .split_once("..")
        .ok_or_else(|| bad("no `..` between the first and the last date"))?;
    let date = |s: &str, end: bool| -> Result<Date, String> {
        let s = s.trim();
        let whole = if s.len() == 4 && s.bytes().all(|b| b.is_ascii_digit()) {
            if end {
                format!("{s}-12-31")
            } else {
                format!("{s}-01-01")
            }
        } else {
            s.to_string()
        };
        Date::parse(&whole).ok_or_else(|| bad(&format!("`{s}` is not a date YYYY-MM-DD or a year")))
    };
    let (first, last) = (date(first, false)?, date(last, true)?);
    let limits = (
        Date::parse("1900-01-01").unwrap_or(first),
        Date::parse("2199-12-31").unwrap_or(last),
    );
    if first > last {
        return Err(bad("the first date is after the last"));
    }
    if first < limits.0 || last > limits.1 {
        return Err(bad("dates are explored from 1900-01-01 to 2199-12-31"));
    }
    Ok((first, last))
}

/// The options that do not go together.
fn check_combinations(args: &ConcolicArgs) -> Result<(), String> {
    if args.jobs == 0 {
        return Err("--jobs must be at least 1".into());
    }
    let checkpoints = args.checkpoint.is_some() || args.resume.is_some();
    if args.strategy != StrategyArg::DepthFirst && checkpoints {
        return Err("--checkpoint and --resume need --strategy depth-first (the subtrees other orders set aside are not in a checkpoint)".into());
    }
    if !(args.checkpoint_every.is_finite() && args.checkpoint_every > 0.0) {
        return Err("--checkpoint-every must be a positive number of seconds".into());
    }
    if args.plan == Some(0) {
        return Err("--plan needs at least 1 shard".into());
    }
    Ok(())
}

/// `--resume`: the checkpoint, checked against the shard (or whole exploration) it continues.
fn take_up_checkpoint(
    args: &ConcolicArgs,
    shard: Option<&super::shard::ShardSetup>,
    options: &mut ExploreOptions,
) -> Result<(), String> {
    if let Some(path) = &args.resume {
        check_checkpoint_shard(path, shard)?;
        options.resume = Some(read_checkpoint(path, args)?);
    }
    Ok(())
}

/// Where the tests go as they are found: the findings, the result files, the printed output
/// (human or JSON Lines, at once), and, with several workers, the tests of one JSON object or
/// of the emitted file, written out (one worker keeps the tests in its exploration).
struct TestSinks<'a> {
    args: &'a ConcolicArgs,
    json_out: bool,
    findings: Mutex<Findings>,
    recorders: crate::report_files::ConcolicRecorders,
    json_tests: Option<Mutex<Vec<(usize, Json)>>>,
    emitted: Option<Mutex<Vec<(usize, emit_suite::FoundTest)>>>,
    out: Mutex<std::io::Stdout>,
}

/// The tests several workers found, in the order they were found: as JSON and as emitted
/// text, as asked.
#[derive(Default)]
struct CollectedTests {
    json: Option<Vec<Json>>,
    emitted: Option<Vec<emit_suite::FoundTest>>,
}

impl<'a> TestSinks<'a> {
    fn new(args: &'a ConcolicArgs, json_out: bool) -> TestSinks<'a> {
        let several = args.jobs > 1;
        TestSinks {
            args,
            json_out,
            findings: Mutex::new(Findings::default()),
            recorders: crate::report_files::ConcolicRecorders::new(
                crate::report_files::ConcolicFiles {
                    sarif: args.outputs.sarif.clone(),
                    junit: args.outputs.junit.clone(),
                    source_root: args.outputs.source_root.clone(),
                    coverage: args.outputs.coverage.files(),
                },
                args.outputs.quiet,
                &args.scope,
            ),
            json_tests: (several && json_out && !args.jsonl).then(|| Mutex::new(Vec::new())),
            emitted: (several && (args.emit_tests.is_some() || args.report.is_some()))
                .then(|| Mutex::new(Vec::new())),
            out: Mutex::new(std::io::stdout()),
        }
    }

    /// Takes test `i`, found on `loaded`'s program.
    fn take(
        &self,
        loaded: &Loaded,
        scope: catala_ir::dcalc::ScopeId,
        i: usize,
        t: &concolic::TestCase,
    ) -> concolic::Control {
        self.findings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .record(loaded, scope, i, t);
        self.recorders.record(loaded, scope, i, t);
        if let Some(c) = &self.json_tests {
            let j = test_json(loaded, scope, t);
            c.lock().unwrap_or_else(|p| p.into_inner()).push((i, j));
        }
        if let Some(c) = &self.emitted {
            let found = emit_suite::FoundTest::of(loaded, scope, t);
            c.lock().unwrap_or_else(|p| p.into_inner()).push((i, found));
        }
        let mut text: Vec<u8> = Vec::new();
        let _ = if self.args.jsonl {
            crate::format::json_line(&mut text, &test_json(loaded, scope, t));
            Ok(())
        } else if self.json_out {
            Ok(())
        } else {
            print_test(&mut text, loaded, scope, i, t, self.args.show_constraints)
        };
        if !text.is_empty() {
            let mut o = self.out.lock().unwrap_or_else(|p| p.into_inner());
            // A closed pipe (e.g. `| head`) is not an error of the exploration.
            let _ = o.write_all(&text).and_then(|_| o.flush());
        }
        concolic::Control::Continue
    }

    /// The findings, the result files and the tests collected from several workers.
    fn finish(
        self,
    ) -> (
        Findings,
        crate::report_files::ConcolicRecorders,
        CollectedTests,
    ) {
        fn in_order<T>(c: Option<Mutex<Vec<(usize, T)>>>) -> Option<Vec<T>> {
            let mut v = c?.into_inner().unwrap_or_else(|p| p.into_inner());
            v.sort_by_key(|(i, _)| *i);
            Some(v.into_iter().map(|(_, t)| t).collect())
        }
        let collected = CollectedTests {
            json: in_order(self.json_tests),
            emitted: in_order(self.emitted),
        };
        let findings = self
            .findings
            .into_inner()
            .unwrap_or_else(|p| p.into_inner());
        (findings, self.recorders, collected)
    }
}

/// What the closing part reports besides the exploration.
struct Closing<'a> {
    findings: &'a Findings,
    coverage: Json,
    /// The test suite written (--emit-tests).
    suite: Option<&'a emit_suite::SuiteWritten>,
}

/// Prints the closing part: the JSON Lines closing line, the JSON object, or the findings and
/// the summary.
fn print_exploration(
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    (exploration, json_tests): (&Exploration, Option<Vec<Json>>),
    args: &ConcolicArgs,
    bounds: &concolic::inputs::Bounds,
    closing: Closing,
) {
    let Closing {
        findings,
        coverage,
        suite,
    } = closing;
    let suite_json = suite.map(emit_suite::SuiteWritten::to_json);
    if args.jsonl {
        crate::format::print_json_line(&json!({
            "stats": stats_json(exploration, bounds),
            "incomplete": exploration.incomplete,
            "bounds": bounds.to_json(),
            "findings": findings.to_json(),
            "coverage": coverage,
            "suite": suite_json,
        }));
    } else if args.format == OutputFormat::Json {
        let mut doc = to_json(loaded, scope, exploration, bounds);
        if let Some(tests) = json_tests {
            doc["tests"] = Json::Array(tests);
        }
        doc["findings"] = findings.to_json();
        doc["coverage"] = coverage;
        if let Some(s) = suite_json {
            doc["suite"] = s;
        }
        crate::format::print_json_line(&doc);
        // Printed once, at the end of the process: not freed (see `run`).
        std::mem::forget(doc);
    } else {
        print!("{}", findings.render());
        print_summary(exploration, args, bounds);
        if let Some(s) = suite {
            println!("{}", s.line());
        }
    }
}

/// Writes the test suite (--emit-tests) and the HTML report (--report), from the tests in
/// exploration order (`emitted`: those several workers handed over); the exit code of a
/// failure.
fn write_suite_and_report(
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    exploration: &Exploration,
    args: &ConcolicArgs,
    (findings, emitted): (&Findings, Option<Vec<emit_suite::FoundTest>>),
) -> Result<Option<emit_suite::SuiteWritten>, i32> {
    let failed = |msg: String| {
        eprintln!("lexprobe concolic: {msg}");
        CATALA_ERROR
    };
    let rebuilt = match emitted {
        Some(found) => Some(emit_suite::replayed(loaded, scope, found).map_err(failed)?),
        None => None,
    };
    let tests = rebuilt.as_deref().unwrap_or(&exploration.tests);
    let suite = write_suite(loaded, scope, tests, args).map_err(failed)?;
    if let Some(path) = &args.report {
        let findings_json = findings.to_json();
        let input = crate::report_files::html_report::ReportInput {
            loaded,
            scope,
            file: &args.file,
            include_dirs: &args.includes.include,
            tests,
            findings: &findings_json,
            complete: exploration.stats.complete,
            incomplete: &exploration.incomplete,
        };
        crate::report_files::html_report::write_report(&input, path).map_err(|m| usage(&m))?;
    }
    Ok(suite)
}

/// Writes the tests (in exploration order) as a Catala test file (--emit-tests).
fn write_suite(
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    tests: &[concolic::TestCase],
    args: &ConcolicArgs,
) -> Result<Option<emit_suite::SuiteWritten>, String> {
    let Some(dir) = &args.emit_tests else {
        return Ok(None);
    };
    let source = emit_suite::SuiteSource {
        loaded,
        scope,
        file: &args.file,
        include_dirs: &args.includes.include,
    };
    let written = emit_suite::write_suite(&source, tests, dir, args.suite)?;
    eprintln!("tests written to {}", written.file.display());
    Ok(Some(written))
}

/// Writes the result files; the exit code.
fn write_outputs(
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    exploration: &Exploration,
    args: &ConcolicArgs,
    recorders: &crate::report_files::ConcolicRecorders,
) -> i32 {
    let program = (args.file.as_path(), args.includes.include.as_slice());
    let summary = exploration_summary(exploration);
    if let Err(msg) = recorders.write(loaded, scope, program, &summary) {
        return usage(&msg);
    }
    SUCCESS
}

/// What the exploration did, for the JUnit report.
fn exploration_summary(e: &Exploration) -> crate::report_files::ExplorationSummary {
    let count = |kind: &str| e.stats.by_outcome.get(kind).copied().unwrap_or(0);
    crate::report_files::ExplorationSummary {
        tests: e.stats.tests,
        ok: count("ok"),
        outside: count("assertion") + e.stats.outside_with_error,
        complete: e.stats.complete,
        incomplete: e.incomplete.clone(),
        seconds: e.stats.time.as_secs_f64(),
    }
}

/// The failed replay checks, if any, and the exit code.
fn report_mismatches(exploration: &Exploration, loaded: &Loaded) -> i32 {
    if exploration.replay_mismatches.is_empty() {
        return SUCCESS;
    }
    for (i, why) in &exploration.replay_mismatches {
        eprintln!(
            "lexprobe concolic: replay check failed for test {}: {}",
            i + 1,
            readable_positions(why, &loaded.sources)
        );
    }
    CATALA_ERROR
}

/// A replay check's explanation with its positions (`file N byte M`, as the library writes
/// them) given as `file:line:column`.
fn readable_positions(why: &str, sources: &catala_syntax::SourceMap) -> String {
    let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let mut out = String::new();
    let mut rest = why;
    while let Some(i) = rest.find("file ") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 5..];
        let n = digits(after);
        if let Some(tail) = after[n..].strip_prefix(" byte ") {
            let m = digits(tail);
            let file = after[..n].parse::<usize>().ok();
            let offset = tail[..m].parse::<usize>().ok();
            if let (Some(f), Some(o)) = (file, offset) {
                if let Some(source) = sources.files.get(f) {
                    let (line, col) = source.line_col(o);
                    out.push_str(&format!("{}:{line}:{col}", source.display_name));
                    rest = &tail[m..];
                    continue;
                }
            }
        }
        out.push_str("file ");
        rest = after;
    }
    out.push_str(rest);
    out
}

fn read_json(arg: &str) -> Result<Json, String> {
    let text = match arg.strip_prefix('@') {
        Some(path) => {
            std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?
        }
        None => arg.to_string(),
    };
    serde_json::from_str(&text).map_err(|e| format!("--hints is not valid JSON: {e}"))
}

fn to_json(
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    e: &Exploration,
    bounds: &concolic::inputs::Bounds,
) -> Json {
    let tests: Vec<Json> = e
        .tests
        .iter()
        .map(|t| test_json(loaded, scope, t))
        .collect();
    json!({
        "tests": tests,
        "stats": stats_json(e, bounds),
        "incomplete": e.incomplete,
        "bounds": bounds.to_json(),
    })
}

/// The explored scope's assertions on its inputs alone, as positions and source texts.
fn input_assertions(loaded: &Loaded, scope: catala_ir::dcalc::ScopeId) -> Vec<(String, String)> {
    let decl = loaded.program.scope(scope);
    let found = catala_eval::eval::input_assertions::InputAssertions::of(&loaded.program, decl);
    found
        .spans(decl)
        .into_iter()
        .map(|span| {
            let p = loaded.sources.position(span);
            let file = loaded.sources.file(span.file);
            let text = file
                .text
                .get(span.start as usize..(span.end as usize).min(file.text.len()))
                .unwrap_or("")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            (format!("{}:{}:{}", p.file, p.start_line, p.start_col), text)
        })
        .collect()
}

fn test_json(loaded: &Loaded, scope: catala_ir::dcalc::ScopeId, t: &concolic::TestCase) -> Json {
    let mut o = Map::new();
    o.insert("path".into(), json!(t.path.to_string()));
    o.insert(
        "inputs".into(),
        crate::report_files::test_inputs_json(loaded, scope, t),
    );
    o.insert("outcome".into(), json!(t.outcome.kind()));
    if t.outside_input_space {
        o.insert("outside_input_space".into(), json!(true));
    }
    match &t.outcome {
        Outcome::Ok(outs) => {
            let mut m = Map::new();
            for (n, v) in outs {
                m.insert(n.clone(), value_to_json(&loaded.program, v));
            }
            o.insert("outputs".into(), Json::Object(m));
        }
        Outcome::Error(err) => {
            o.insert(
                "error".into(),
                ErrorReport::from_runtime(err).to_json(&loaded.sources),
            );
        }
        Outcome::Assertion(a) => {
            o.insert(
                "error".into(),
                ErrorReport::from_assertion(a).to_json(&loaded.sources),
            );
        }
    }
    if !t.constraints.is_empty() {
        o.insert("constraints".into(), json!(t.constraints));
    }
    Json::Object(o)
}

/// The figures; `complete` is beside the bounds it holds within.
fn stats_json(e: &Exploration, bounds: &concolic::inputs::Bounds) -> Json {
    let s = &e.stats;
    json!({
        "tests": s.tests,
        "solver_calls": s.solver_calls,
        "soft_solver_calls": s.soft_solver_calls,
        "queries_without_z3": s.queries_without_z3,
        "guessed_queries": s.guessed_queries,
        "fresh_queries": s.fresh_queries,
        "time_s": s.time.as_secs_f64(),
        "solver_time_s": s.solver_time.as_secs_f64(),
        "complete": s.complete,
        "bounds": bounds.to_json(),
        "by_outcome": s.by_outcome,
        "by_roundness": s.by_roundness,
        "divergences": s.divergences,
        "early_lemmas": s.early_lemmas,
        "dropped_lemmas": s.dropped_lemmas,
        "unknown_queries": s.unknown_queries,
    })
}

fn print_test(
    out: &mut impl Write,
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    i: usize,
    t: &concolic::TestCase,
    show_constraints: bool,
) -> std::io::Result<()> {
    let decl = loaded.program.scope(scope);
    let printer = ValuePrinter {
        language: decl.language,
        names: &loaded.program,
    };
    writeln!(out, "Test {} ({}):", i + 1, t.outcome.kind())?;
    for (input, v) in decl.inputs.iter().zip(&t.inputs) {
        if let Some(v) = v {
            for line in printer.result_lines(&input.name, v) {
                writeln!(out, "  input {}", line.trim_end())?;
            }
        }
    }
    match &t.outcome {
        Outcome::Ok(outs) => {
            for (n, v) in outs {
                for line in printer.result_lines(n, v) {
                    writeln!(out, "  output {}", line.trim_end())?;
                }
            }
        }
        Outcome::Error(err) => write!(
            out,
            "{}",
            ErrorReport::from_runtime(err).render(&loaded.sources, None)
        )?,
        Outcome::Assertion(a) => write!(
            out,
            "{}",
            ErrorReport::from_assertion(a).render(&loaded.sources, None)
        )?,
    }
    if show_constraints {
        for c in &t.constraints {
            writeln!(out, "  constraint {c}")?;
        }
    }
    Ok(())
}

fn print_summary(e: &Exploration, args: &ConcolicArgs, bounds: &concolic::inputs::Bounds) {
    if !e.incomplete.is_empty() {
        println!("Incomplete exploration:");
        for entry in &e.incomplete {
            println!("  {entry}");
        }
    }
    println!(
        "Exploration {} within the bounds: {}",
        if e.stats.complete {
            "complete"
        } else {
            "not complete"
        },
        bounds.describe()
    );
    if args.stats {
        let s = &e.stats;
        println!(
            "Stats: {} tests, {} solver calls (+{} for round amounts), {:.3} s total, {:.3} s in the solver, {}",
            s.tests,
            s.solver_calls,
            s.soft_solver_calls,
            s.time.as_secs_f64(),
            s.solver_time.as_secs_f64(),
            summary_verdict(e)
        );
        println!(
            "  queries answered without Z3: {} ({} by a model guessed near the last inputs)",
            s.queries_without_z3, s.guessed_queries
        );
        if s.fresh_queries > 0 {
            println!(
                "  queries handed to a fresh solver (over the incremental solver's resource limit): {}",
                s.fresh_queries
            );
        }
        for (k, n) in &s.by_outcome {
            println!("  {k}: {n}");
        }
    }
}

/// `complete`, or what stopped the exploration (only a limit that was hit), or `incomplete`.
fn summary_verdict(e: &Exploration) -> String {
    if e.stats.complete {
        return "complete".to_string();
    }
    match &e.stats.stopped_by {
        Some(concolic::StopReason::Time(t)) => {
            format!("stopped at the time limit (--timeout {})", t.as_secs_f64())
        }
        Some(concolic::StopReason::Tests(n)) => {
            format!("stopped at the test limit (--max-tests {n})")
        }
        Some(concolic::StopReason::Interrupted) => "interrupted (Ctrl-C)".to_string(),
        Some(concolic::StopReason::Caller) => "stopped".to_string(),
        None => "incomplete (see above)".to_string(),
    }
}

/// One worker: tests are printed (human, JSON Lines) as they are found.
fn explore_sequential(
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    options: &ExploreOptions,
    args: &ConcolicArgs,
    sinks: &TestSinks,
    (shard, shard_done): (
        Option<&super::shard::ShardSetup>,
        &mut Option<super::shard::ShardDone>,
    ),
) -> Result<Exploration, concolic::ConcolicError> {
    let mut on_test = |i: usize, t: &concolic::TestCase| sinks.take(loaded, scope, i, t);
    let mut on_checkpoint = |c: &concolic::checkpoint::Checkpoint| save_checkpoint(args, c, shard);
    if let Some(s) = shard {
        let done = concolic::shard::explore_shard(
            &loaded.program,
            scope,
            options,
            &s.subtrees,
            &mut on_test,
            &mut on_checkpoint,
        )?;
        *shard_done = Some(super::shard::ShardDone {
            complete: done.complete,
            costs: done.costs,
        });
        return Ok(done.exploration);
    }
    concolic::explore_checkpointed(
        &loaded.program,
        scope,
        options,
        &mut on_test,
        &mut on_checkpoint,
    )
}

/// Several workers sharing the program loaded once: tests are printed as they are found, in
/// that order; checkpoints hold the state of every worker.
fn explore_parallel(
    loaded: &Loaded,
    scope: catala_ir::dcalc::ScopeId,
    options: &ExploreOptions,
    args: &ConcolicArgs,
    sinks: &TestSinks,
    (shard, shard_done): (
        Option<&super::shard::ShardSetup>,
        &mut Option<super::shard::ShardDone>,
    ),
) -> Result<Exploration, concolic::ConcolicError> {
    let on_test = |i: usize, t: &concolic::TestCase| sinks.take(loaded, scope, i, t);
    if let Some(s) = shard {
        let done = concolic::shard::explore_shard_parallel(
            args.jobs,
            &loaded.program,
            scope,
            options,
            &s.subtrees,
            &on_test,
            &mut |c: &concolic::checkpoint::Checkpoint| save_checkpoint(args, c, shard),
        )?;
        *shard_done = Some(super::shard::ShardDone {
            complete: done.complete,
            costs: done.costs,
        });
        return Ok(done.exploration);
    }
    concolic::parallel::explore_parallel_checkpointed(
        args.jobs,
        &loaded.program,
        scope,
        options,
        &on_test,
        &mut |c: &concolic::checkpoint::Checkpoint| save_checkpoint(args, c, None),
    )
}

/// Writes checkpoint `c` to the `--checkpoint` file, if any.
fn save_checkpoint(
    args: &ConcolicArgs,
    c: &concolic::checkpoint::Checkpoint,
    shard: Option<&super::shard::ShardSetup>,
) {
    if let Some(path) = &args.checkpoint {
        if let Err(e) = write_checkpoint(path, args, c, shard) {
            eprintln!("lexprobe concolic: cannot write checkpoint: {e}");
        }
    }
}

/// Refuses, before the exploration starts, a `--checkpoint` path the first checkpoint could not
/// be written to: a directory, or a file whose temporary sibling (written, then renamed over
/// it) cannot be created. A temporary file this check creates is removed again.
fn check_checkpoint_writable(path: &std::path::Path) -> Result<(), String> {
    let shown = path.display();
    if path.is_dir() {
        return Err(format!("--checkpoint {shown}: is a directory, not a file"));
    }
    let tmp = path.with_extension("tmp");
    let cannot = |e: std::io::Error| format!("--checkpoint {shown}: cannot write there: {e}");
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
    {
        Ok(_) => std::fs::remove_file(&tmp).map_err(cannot),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => std::fs::OpenOptions::new()
            .write(true)
            .open(&tmp)
            .map(drop)
            .map_err(cannot),
        Err(e) => Err(cannot(e)),
    }
}

/// Writes the checkpoint file atomically (a killed process leaves the previous one whole).
fn write_checkpoint(
    path: &std::path::Path,
    args: &ConcolicArgs,
    c: &concolic::checkpoint::Checkpoint,
    shard: Option<&super::shard::ShardSetup>,
) -> std::io::Result<()> {
    let mut doc = json!({
        "program": args.file.display().to_string(),
        "scope": args.scope,
        "optim": args.optim,
        "order": args.order.name(),
        "state": c.to_json(),
    });
    if let Some(s) = shard {
        doc["shard"] = json!({ "plan": s.plan_hash, "index": s.index, "count": s.count });
    }
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, format!("{doc}\n"))?;
    std::fs::rename(&tmp, path)
}

/// A shard resumes only its own checkpoint, and a whole exploration only a whole one.
fn check_checkpoint_shard(
    path: &std::path::Path,
    shard: Option<&super::shard::ShardSetup>,
) -> Result<(), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let doc: Json = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a checkpoint: {e}", path.display()))?;
    let then = doc.get("shard").filter(|s| !s.is_null());
    let now = shard.map(|s| json!({ "plan": s.plan_hash, "index": s.index, "count": s.count }));
    if then != now.as_ref() {
        let name = |s: Option<&Json>| match s {
            Some(s) => format!("shard {}/{} of plan {}", s["index"], s["count"], s["plan"]),
            None => "a whole exploration".to_string(),
        };
        return Err(format!(
            "{} is the checkpoint of {}, not of {}",
            path.display(),
            name(then),
            name(now.as_ref())
        ));
    }
    Ok(())
}

fn read_checkpoint(
    path: &std::path::Path,
    args: &ConcolicArgs,
) -> Result<concolic::checkpoint::Checkpoint, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let doc: Json = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a checkpoint: {e}", path.display()))?;
    for (key, now) in [
        ("scope", args.scope.as_str()),
        ("optim", args.optim.as_str()),
    ] {
        let then = doc.get(key).and_then(Json::as_str).unwrap_or("");
        if then != now {
            return Err(format!(
                "{} was written with --{key} {then}, not {now}",
                path.display()
            ));
        }
    }
    // Checkpoints written before the evaluation order was an option were in the paper's.
    let order = doc.get("order").and_then(Json::as_str).unwrap_or("paper");
    if order != args.order.name() {
        return Err(format!(
            "{} was written with --order {order}, not {}",
            path.display(),
            args.order.name()
        ));
    }
    let state = doc
        .get("state")
        .ok_or_else(|| format!("{} is not a checkpoint", path.display()))?;
    concolic::checkpoint::Checkpoint::from_json(state)
        .map_err(|e| format!("{}: {e}", path.display()))
}
