//! `lexprobe mutate FILE --scope S --seed N --count K`: mutation testing of the concolic
//! engine (Section 5.2 of the CUTECat paper). Mutants remove an exception, duplicate one, or
//! negate a default's condition; each is explored and reported as detected when a conflict or
//! missing case absent from the original program is found, with the time to first detection.

use crate::catala;
use crate::catala::report::{print_errors, ErrorReport};
use crate::exit::{CATALA_ERROR, SUCCESS, USAGE};
use crate::format::OutputFormat;
use crate::report_files::mutate::{MutateReport, RuleIndex};
use catala_eval::Value;
use concolic::mutation::{run_mutants, run_mutants_both_orders, MutationOptions};
use concolic::{ExploreOptions, Optimizations, Strategy};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
#[command(after_help = "Examples:
  lexprobe mutate housing.catala_fr --scope Test --seed 1 --count 20 --timeout 60
  lexprobe concolic housing.catala_fr --scope Test --jsonl > original.jsonl
  lexprobe mutate housing.catala_fr --scope Test --witnesses original.jsonl --timeout 300

A mutant is detected when its exploration finds inputs on which it fails (conflict, no
applicable rule, ...) while the original program, run on the same inputs, does not fail that
way; the exploration stops there. Not every mutant injects a reachable issue (a removed
exception may leave a base case that covers it). With --witnesses, the inputs of a file written
by `lexprobe concolic --jsonl` on the original program (all its paths when that exploration was
complete) confirm each drawn mutant first: mutants none of these inputs makes fail in a new way
are set aside and counted, and others are drawn in their place; each kept mutant is then first
run on the witnesses covering each way through its mutated term (chosen on the original), and
explored from the first of them. By default each mutant is explored in two orders at once (two
threads, --strategy both): depth-first directed at the mutated term (its branches first, then
its definition's), and new branches first; the first detection counts.")]
pub struct MutateArgs {
    #[command(flatten)]
    pub includes: crate::catala::IncludeArgs,
    /// The Catala source file.
    pub file: PathBuf,
    /// The scope to explore.
    #[arg(long, short = 's')]
    pub scope: String,
    /// Seed choosing the mutants.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of mutants.
    #[arg(long, default_value_t = 20)]
    pub count: usize,
    /// Time limit of each exploration, in seconds.
    #[arg(long)]
    pub timeout: Option<f64>,
    #[arg(
        long,
        default_value = "all",
        help = concolic::options::optim_help(),
        long_help = concolic::options::optim_long_help()
    )]
    pub optim: String,
    /// Output format.
    #[arg(long, short = 'F', value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Confirm mutants on the inputs of this JSON Lines file (`lexprobe concolic --jsonl`).
    #[arg(long)]
    pub witnesses: Option<PathBuf>,
    /// Order of each mutant's paths (see `lexprobe concolic --help`): depth-first (the
    /// paper's), new-branches, coverage, or both (depth-first and new-branches) side by side
    /// in two threads, the first detection counting (the two orders are fast on different
    /// mutants).
    #[arg(long, value_enum, default_value_t = MutateStrategy::Both)]
    pub strategy: MutateStrategy,
    /// No live status line on the terminal (drawn on stderr only when it is a terminal).
    #[arg(long)]
    pub quiet: bool,
}

/// The order of each mutant's exploration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MutateStrategy {
    DepthFirst,
    NewBranches,
    Coverage,
    Both,
}

pub fn run(args: MutateArgs) -> i32 {
    let json_out = args.format == OutputFormat::Json;
    let optimizations = match Optimizations::parse(&args.optim) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("lexprobe mutate: {e}");
            return USAGE;
        }
    };
    let (loaded, scope) =
        match catala::load_scope(&args.file, &args.includes.include, &args.scope, json_out) {
            Ok(found) => found,
            Err(code) => return code,
        };
    let witnesses = match &args.witnesses {
        Some(path) => match read_witnesses(&loaded.program, scope, path) {
            Ok(w) => Some(w),
            Err(msg) => {
                eprintln!("lexprobe mutate: {msg}");
                return USAGE;
            }
        },
        None => None,
    };
    let options = MutationOptions {
        seed: args.seed,
        count: args.count,
        explore: explore_options(&args, optimizations),
        witnesses,
    };
    let file = args.file.clone();
    let includes = args.includes.include.clone();
    let setup = move || {
        catala::load(&file, &includes)
            .map(|l| l.program)
            .map_err(|_| format!("cannot load {}", file.display()))
    };
    let status = crate::progress::Status::new(
        crate::progress::wanted(args.quiet),
        &format!("mutate {}", args.scope),
    );
    status.set_message(format!(
        "{} mutants of seed {}, each explored until a problem shows{}",
        args.count,
        args.seed,
        args.timeout
            .map(|t| format!(" or {t} s pass"))
            .unwrap_or_default()
    ));
    let campaign = match args.strategy {
        MutateStrategy::Both => run_mutants_both_orders(&loaded.program, scope, &options, &setup),
        _ => run_mutants(&loaded.program, scope, &options),
    };
    status.finish();
    let rules = rule_index(&args);
    let report = MutateReport {
        loaded: &loaded,
        scope,
        rules: &rules,
    };
    match campaign {
        Ok(campaign) if json_out => println!("{}", report.json(&campaign)),
        Ok(campaign) => print!("{}", report.text(&campaign, args.witnesses.is_some())),
        Err(e) => {
            print_errors(
                &loaded.sources,
                &[ErrorReport::plain("concolic", e.to_string())],
                json_out,
            );
            return CATALA_ERROR;
        }
    }
    SUCCESS
}

/// The options of each mutant's exploration: the order asked for (depth-first for the first
/// of `both`), the time limit, no replay check, no tests kept.
fn explore_options(args: &MutateArgs, optimizations: Optimizations) -> ExploreOptions {
    ExploreOptions {
        optimizations,
        strategy: match args.strategy {
            MutateStrategy::NewBranches => Strategy::NewBranchesFirst,
            MutateStrategy::Coverage => Strategy::CoverageGuided,
            MutateStrategy::DepthFirst | MutateStrategy::Both => Strategy::DepthFirst,
        },
        timeout: args
            .timeout
            .filter(|t| *t > 0.0)
            .map(Duration::from_secs_f64),
        check: false,
        keep_tests: false,
        ..ExploreOptions::default()
    }
}

/// The rules of the program as parsed (for the rule texts of the report); none when the
/// file cannot be parsed again.
fn rule_index(args: &MutateArgs) -> RuleIndex {
    let Ok(options) = catala_syntax::LoadOptions::for_file(&args.file, &args.includes.include)
    else {
        return RuleIndex::default();
    };
    match catala_syntax::parse_file_with_options(&args.file, &options) {
        (_, Ok(ast)) => RuleIndex::of(&ast),
        (_, Err(_)) => RuleIndex::default(),
    }
}

/// The inputs of every test line of a `lexprobe concolic --jsonl` file (the closing stats
/// line has no inputs and is skipped).
fn read_witnesses(
    program: &catala_ir::dcalc::Program,
    scope: catala_ir::dcalc::ScopeId,
    path: &std::path::Path,
) -> Result<Vec<Vec<Option<Value>>>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let json: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}: not JSON: {e}", path.display(), n + 1))?;
        let Some(inputs) = json.get("inputs") else {
            continue;
        };
        let values = catala_eval::eval::inputs_from_json(program, scope, inputs)
            .map_err(|e| format!("{}:{}: {e}", path.display(), n + 1))?;
        out.push(values);
    }
    Ok(out)
}
