//! `lexprobe diff OLD NEW --scope S`: for which inputs two versions of a scope differ. One
//! concolic exploration of the pair (the same symbolic inputs for both, paths explored
//! together) asks at each pair of leaves whether some output or the outcome differs; the
//! differing leaves, grouped by what differs, are explained as conditions over the inputs.
//! Exit codes: 1 the versions differ, 0 equivalent (within the stated bounds), 3 unknown,
//! 2 usage (including interfaces that cannot be matched), 123 Catala errors.

use crate::catala::{self, IncludeArgs, Loaded};
use crate::diff::changed_code::changed_code;
use crate::diff::changed_lines::changed_lines;
use crate::diff::mapping::GivenMapping;
use crate::diff::report::{changes_text, Versions};
use crate::diff::scale::{self, Explored};
use crate::diff::versions::{materialize, VersionSource};
use crate::exit;
use crate::format::OutputFormat;
use crate::report_files::diff::{diff_junit, diff_sarif, DiffSummary, RegionSummary};
use clap::Args;
use concolic::difference::{
    DifferenceError, DifferenceOptions, DifferenceResult, Verdict, VersionOutcome,
};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct DiffArgs {
    #[command(flatten)]
    pub includes: IncludeArgs,
    /// The old version: a Catala file, or REV:PATH (the file at a git revision).
    pub old: String,
    /// The new version: a Catala file, or REV:PATH.
    pub new: String,
    /// The scope to compare.
    #[arg(long, short = 's')]
    pub scope: String,
    /// The scope's name in NEW, when it was renamed.
    #[arg(long, value_name = "NAME")]
    pub new_scope: Option<String>,
    /// Output format.
    #[arg(long, short = 'F', value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// A renamed input or output: OLD's name = NEW's name (repeatable).
    #[arg(long = "rename", value_name = "OLD=NEW")]
    pub renames: Vec<String>,
    /// A value for an input only NEW has (repeatable): a Catala literal ($20,000,
    /// |2025-07-01|, true, 3, a case name) or JSON as `run` reads inputs.
    #[arg(long = "default", value_name = "NAME=VALUE")]
    pub defaults: Vec<String>,
    /// Renamings and defaults as JSON: {"rename": {"old": "new"}, "default": {"name": value}}.
    #[arg(long, value_name = "FILE")]
    pub mapping: Option<PathBuf>,
    /// Time budget of the exploration in seconds (none by default).
    #[arg(long)]
    pub timeout: Option<f64>,
    /// At most this many path pairs.
    #[arg(long)]
    pub max_pairs: Option<usize>,
    /// Time limit of one solver query, in seconds.
    #[arg(long, default_value_t = 10.0)]
    pub query_timeout: f64,
    /// The most elements a list input has.
    #[arg(long, default_value_t = concolic::inputs::DEFAULT_MAX_LIST_LENGTH)]
    pub max_list_length: usize,
    /// Do not compute the range of each numeric difference.
    #[arg(long)]
    pub no_ranges: bool,
    /// Threads exploring the pair's path tree (a plan cuts it into subtrees they share).
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Which branches are negated first. `directed`: those where the change reached a
    /// condition (NEW's run decided it on another term), then those leading to the lines the
    /// versions do not share (in the main files and in the module files of the same name),
    /// then those met after the changed code, then the rest; `blind`: the same order whatever
    /// changed. Only the order differs: a complete exploration explores the same path pairs
    /// and gives the same verdict.
    #[arg(long, value_enum, default_value_t = ExplorationOrder::Directed)]
    pub order: ExplorationOrder,
    /// Sharding: print a plan cutting the pair's path tree into disjoint subtrees for this
    /// many shards (JSON, for --plan-file), and stop.
    #[arg(long, value_name = "SHARDS", conflicts_with_all = ["plan_file", "shard"])]
    pub plan: Option<usize>,
    /// Sharding: the number of subtrees a plan cuts the tree into (default 32 per shard).
    #[arg(long, requires = "plan", value_name = "N")]
    pub plan_subtrees: Option<usize>,
    /// Sharding: the plan (from --plan) a shard belongs to; with --shard.
    #[arg(long, requires = "shard", value_name = "FILE")]
    pub plan_file: Option<PathBuf>,
    /// Sharding: explore shard I of N of --plan-file (0 ≤ I < N) and print its part (JSON),
    /// which `lexprobe merge` reads with the others.
    #[arg(long, requires = "plan_file", value_name = "I/N")]
    pub shard: Option<String>,
    /// Keep the state of the exploration in this file when a limit (--max-pairs, --timeout)
    /// stops it, or it ends, for --resume (the pair's tree is cut into subtrees first).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["plan", "shard"])]
    pub checkpoint: Option<PathBuf>,
    /// Continue the exploration saved in this checkpoint file (same versions and options);
    /// --max-pairs then counts the pairs of this run.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["plan", "shard"])]
    pub resume: Option<PathBuf>,
    /// The result from the outputs of the shards of a plan rather than an exploration (what
    /// `lexprobe merge` runs for them).
    #[arg(long, hide = true, num_args = 1.., conflicts_with_all = ["plan", "shard", "checkpoint", "resume"])]
    pub from_shards: Vec<PathBuf>,
    /// Write a SARIF log: one result per region, at the lines NEW changed.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Write JUnit XML: one test case per region (one passing case when equivalent).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write an HTML page: the regions beside the law text of both versions, changes marked.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// The order of `diff`'s exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplorationOrder {
    /// The branches leading to the changed code first.
    Directed,
    /// The same order whatever changed.
    Blind,
}

fn usage(json: bool, message: &str) -> i32 {
    if json {
        println!(
            "{}",
            serde_json::json!({"error": "usage", "message": message})
        );
    } else {
        eprintln!("lexprobe diff: {message}");
    }
    exit::USAGE
}

/// Loads one version, printing its errors.
fn load(
    file: &std::path::Path,
    includes: &[PathBuf],
    scope: &str,
    json: bool,
) -> Result<(Loaded, catala_ir::dcalc::ScopeId), i32> {
    catala::load_scope(file, includes, scope, json)
}

pub fn run(args: DiffArgs) -> i32 {
    let json = args.format == OutputFormat::Json;
    let given = match GivenMapping::read(&args.renames, &args.defaults, args.mapping.as_deref()) {
        Ok(m) => m,
        Err(e) => return usage(json, &e),
    };
    let (old_src, new_src) = (
        VersionSource::parse(&args.old),
        VersionSource::parse(&args.new),
    );
    let (old_file, new_file) = match (materialize(&old_src, "old"), materialize(&new_src, "new")) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => return usage(json, &e),
    };
    for f in [&old_file, &new_file] {
        if f.path.is_dir() || !f.path.exists() {
            return usage(
                json,
                &format!("{} is not a Catala source file", f.path.display()),
            );
        }
    }
    let includes = |extra: &Option<PathBuf>| {
        let mut dirs = args.includes.include.clone();
        dirs.extend(extra.clone());
        dirs
    };
    let new_scope_name = args.new_scope.clone().unwrap_or_else(|| args.scope.clone());
    let (old, old_scope) = match load(
        &old_file.path,
        &includes(&old_file.include),
        &args.scope,
        json,
    ) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let (new, new_scope) = match load(
        &new_file.path,
        &includes(&new_file.include),
        &new_scope_name,
        json,
    ) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let mapping = match given.resolve(&new.program, new_scope) {
        Ok(m) => m,
        Err(e) => return usage(json, &e),
    };
    let result = match scale::explore(
        &args,
        (&old.program, old_scope),
        (&new.program, new_scope),
        &mapping,
        &difference_options(&args, (&old, &new)),
    ) {
        Ok(Explored::Whole(r)) => *r,
        Ok(Explored::Printed(code)) => return code,
        Err(DifferenceError::Interface(e)) => {
            return usage(
                json,
                &format!("the versions' interfaces do not match:\n{e}"),
            )
        }
        Err(DifferenceError::Concolic(e)) => {
            if json {
                println!(
                    "{}",
                    serde_json::json!({"error": "exploration", "message": e.to_string()})
                );
            } else {
                eprintln!("lexprobe diff: {e}");
            }
            return exit::CATALA_ERROR;
        }
    };
    let versions = Versions {
        old: &old,
        new: &new,
        old_label: old_src.label(),
        new_label: new_src.label(),
        scope: args.scope.clone(),
        language: old.program.scope(old_scope).language,
    };
    if json {
        println!("{:#}", versions.json(&result));
    } else {
        print!("{}", versions.text(&result));
    }
    if let Err(e) = write_files(&args, &versions, &result, &new_file.path) {
        eprintln!("lexprobe diff: {e}");
        return exit::USAGE;
    }
    match result.verdict {
        Verdict::Differs => exit::DIFFERS,
        Verdict::Equivalent => exit::SUCCESS,
        Verdict::Unknown => exit::INCONCLUSIVE,
    }
}

/// The exploration's limits and order from the command line.
fn difference_options(args: &DiffArgs, (old, new): (&Loaded, &Loaded)) -> DifferenceOptions {
    let mut options = DifferenceOptions::default();
    options.exploration.budget = args.timeout.map(Duration::from_secs_f64);
    options.exploration.max_pairs = args.max_pairs;
    options.exploration.query_timeout =
        Some(Duration::from_secs_f64(args.query_timeout.max(0.001)));
    options.max_list_length = args.max_list_length;
    options.ranges = !args.no_ranges;
    options.jobs = args.jobs.max(1);
    if args.order == ExplorationOrder::Directed {
        options.changed = Some(changed_code(&old.sources, &new.sources));
    }
    options
}

/// Writes the SARIF, JUnit and HTML files asked for.
fn write_files(
    args: &DiffArgs,
    versions: &Versions<'_>,
    result: &DifferenceResult,
    new_path: &std::path::Path,
) -> Result<(), String> {
    if args.sarif.is_none() && args.junit.is_none() && args.report.is_none() {
        return Ok(());
    }
    let text = |l: &Loaded| {
        l.sources
            .files
            .first()
            .map(|f| f.text.clone())
            .unwrap_or_default()
    };
    let changed = changed_lines(&text(versions.old), &text(versions.new));
    let format = crate::catala::condition_format::CatalaFormat(versions.language);
    let regions = result
        .regions
        .iter()
        .map(|r| {
            let condition_cases = versions.condition(result, r).lines(&format);
            let new_error_at = match &r.example.new {
                VersionOutcome::Failed(f) => f
                    .spans
                    .iter()
                    .filter(|s| s.file.0 == 0)
                    .filter_map(|s| versions.new.sources.line_col(*s))
                    .collect(),
                VersionOutcome::Outputs(_) => Vec::new(),
            };
            RegionSummary {
                title: changes_text(&r.changes),
                condition: condition_cases.join(" "),
                condition_cases,
                paths: r.paths.len(),
                example: versions.text_example(&r.example),
                new_error_at,
            }
        })
        .collect();
    let note = if result.complete {
        format!(
            "every path pair within the bounds: {}",
            result.bounds.describe()
        )
    } else {
        result.incomplete.join("; ")
    };
    // Result files name NEW's file as given (or its path in the repository for REV:PATH).
    let new_file = match VersionSource::parse(&args.new) {
        VersionSource::Git { path, .. } => path,
        VersionSource::File(_) => new_path.to_path_buf(),
    };
    let summary = DiffSummary {
        verdict: result.verdict.as_str(),
        scope: &args.scope,
        old_label: &versions.old_label,
        new_label: &versions.new_label,
        new_file: &new_file,
        changed: &changed,
        regions,
        note,
        elapsed_s: result.stats.elapsed_s,
    };
    if let Some(path) = &args.sarif {
        crate::report_files::write_file(path, &format!("{:#}\n", diff_sarif(&summary)))?;
    }
    if let Some(path) = &args.junit {
        crate::report_files::write_file(path, &diff_junit(&summary))?;
    }
    if let Some(path) = &args.report {
        crate::report_files::diff_html::write_diff_report(path, &summary, versions, result)?;
    }
    Ok(())
}
