//! `lexprobe metamorphic`: searches for inputs that break metamorphic relations on a system
//! under test (an external program speaking JSON, or a Catala scope) and explains the
//! failures. Exit code 0 when every relation passes, 1 when one fails, 3 when none fails but
//! one is inconclusive, 2 on usage errors (including names that do not exist and a program
//! that never answers).

use metamorphic::check::RelationReport;
use metamorphic::domain::Domain;
use metamorphic::external::{CallMode, ExternalProgram};
use metamorphic::names::{check_names, known_outputs, ProbeError};
use metamorphic::relation::{parse_relations_file, Relation};
use metamorphic::search::{LiveSearch, SearchConfig, Verdict};
use metamorphic::system::SystemUnderTest;
use metamorphic::tree::TreeOptions;
use metamorphic::{Located, Positioned, SourceError};
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::exit;
use crate::format::OutputFormat;

/// Shown after the options in `lexprobe metamorphic --help`.
const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  every relation passed
  1  at least one relation failed
  3  no relation failed, but at least one is inconclusive (no test completed: no inputs
     satisfy its premise in the domain, every run of the program failed, or the budget
     ran out first; the text output says which)
  2  usage error: unreadable or invalid files, a name that does not exist (field,
     output, enumeration choice), or a program that never answered

External programs (cmd:'COMMAND') speak JSON Lines: one JSON object of inputs per line on
stdin (with --request-id, plus a request_id the program must echo), one JSON object of
outputs per line on stdout, or {\"error\": \"...\"}. See the README, \"Testing your own
program\".";

#[derive(clap::Args)]
#[command(after_help = EXIT_CODES_HELP)]
pub struct MetamorphicArgs {
    /// System under test: `cmd:'COMMAND'` (a JSON Lines program run by `sh -c`) or
    /// `catala:FILE#Scope`.
    #[arg(long)]
    pub system: String,
    /// Input domain (TOML).
    #[arg(long)]
    pub domain: String,
    /// Relations file.
    #[arg(long)]
    pub relations: String,
    /// The main output F, an expression over output names (overrides the domain's `output`).
    #[arg(long)]
    pub output: Option<String>,
    /// Only check these relations (repeatable, or comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Time budget per relation (e.g. 60s, 500ms, 5m).
    #[arg(long, default_value = "60s")]
    pub budget: String,
    /// Cap on tests per relation.
    #[arg(long)]
    pub max_tests: Option<usize>,
    /// Seed of the random search.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Threads (and program instances) running tests.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// Start the external program once per input instead of keeping it up.
    #[arg(long)]
    pub one_call: bool,
    /// Send a `request_id` with every request to the external program, which must echo it
    /// in its reply: a reply without its request's id is refused.
    #[arg(long)]
    pub request_id: bool,
    /// Time limit for one run of the system.
    #[arg(long, default_value = "10s")]
    pub timeout: String,
    /// Tolerance δ on conclusion violations (relations may set their own).
    #[arg(long, default_value_t = 0.0)]
    pub tolerance: f64,
    /// Bayes factor B of the stopping test.
    #[arg(long, default_value_t = 100.0)]
    pub bayes_factor: f64,
    /// Confidence bound θ of the stopping test.
    #[arg(long, default_value_t = 0.95)]
    pub theta: f64,
    /// Stop a relation after this many bases were accepted without any failure.
    #[arg(long)]
    pub stop_after_bases: Option<usize>,
    /// Stop a relation once this many failures were found.
    #[arg(long)]
    pub stop_after_failures: Option<usize>,
    /// Depth limit of the explanation trees.
    #[arg(long, default_value_t = 4)]
    pub depth: usize,
    /// Write an HTML report here.
    #[arg(long)]
    pub report: Option<String>,
    /// Output format.
    #[arg(long, short = 'F', value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
    /// Prove or refute each relation symbolically (Catala scopes only): explore every path
    /// pair of the relation's cases; verdicts refuted, proved or unknown. `--budget` is per
    /// relation.
    #[arg(long)]
    pub prove: bool,
    #[command(flatten)]
    pub prove_options: ProveOptionArgs,
    #[command(flatten)]
    pub outputs: MetamorphicOutputArgs,
}

/// Limits of `--prove`.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ProveOptionArgs {
    /// With --prove: time limit of one solver query (default 10s).
    #[arg(long, value_name = "DURATION")]
    pub solver_timeout: Option<String>,
    /// With --prove: time limit of the second pass over the queries that ran into
    /// --solver-timeout (default 60s; 0 for no second pass).
    #[arg(long, value_name = "DURATION")]
    pub retry_timeout: Option<String>,
    /// With --prove: budget of the random search run beside each refuted relation, whose
    /// decision tree is shown next to the symbolic region (default 10s; 0 for none).
    #[arg(long, value_name = "DURATION")]
    pub tree_budget: Option<String>,
    /// With --prove: negate branches depth first only (by default, a branch whose other
    /// way no run of its case has taken yet goes first).
    #[arg(long)]
    pub depth_first: bool,
    /// With --prove: ask Z3 every query (no models guessed near the last inputs first).
    #[arg(long)]
    pub no_guesses: bool,
}

/// Result files for CI servers.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct MetamorphicOutputArgs {
    /// Write the failed (and inconclusive) relations as SARIF 2.1.0 to FILE, at each
    /// relation's position in the relations file, with the failing pair.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<std::path::PathBuf>,
    /// Write JUnit XML to FILE: one test case per relation.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<std::path::PathBuf>,
    /// No live status line on the terminal (drawn on stderr only when it is a terminal).
    #[arg(long)]
    pub quiet: bool,
}

/// Parses `60s`, `500ms`, `5m`, `1h` or a bare number of seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| c.is_alphabetic()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("invalid duration `{text}`"))?;
    let seconds = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        _ => {
            return Err(format!(
                "invalid duration unit in `{text}` (use ms, s, m or h)"
            ))
        }
    };
    if !seconds.is_finite() || seconds < 0.0 {
        return Err(format!("invalid duration `{text}`"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

fn make_system(
    args: &MetamorphicArgs,
    timeout: Duration,
) -> Result<Box<dyn SystemUnderTest>, String> {
    if let Some(command) = args.system.strip_prefix("cmd:") {
        let mode = if args.one_call {
            CallMode::OneCallPerProcess
        } else {
            CallMode::JsonLines
        };
        let program =
            ExternalProgram::new(command, mode, timeout).with_request_ids(args.request_id);
        return Ok(Box::new(program));
    }
    if let Some(target) = args.system.strip_prefix("catala:") {
        return metamorphic::catala_system(target, args.jobs.max(1)).map_err(|e| e.to_string());
    }
    Err(format!(
        "unknown system `{}`: use cmd:'COMMAND' or catala:FILE#Scope",
        args.system
    ))
}

pub fn run(args: MetamorphicArgs) -> i32 {
    match run_checked(&args) {
        Ok(code) => code,
        Err(Failure::Located(error)) => {
            eprint!("{}", error.render());
            exit::USAGE
        }
        Err(Failure::Message(message)) => {
            eprintln!("lexprobe metamorphic: {message}");
            exit::USAGE
        }
    }
}

/// Why a check stops before any verdict: an error at a position of an input file (the
/// relations, the domain or `--output`: shown in the box layout), or a message.
#[derive(Debug, PartialEq)]
enum Failure {
    Located(SourceError),
    Message(String),
}

impl fmt::Display for Failure {
    /// `file:line:column: message`, or the message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Located(e) => e.fmt(f),
            Failure::Message(m) => f.write_str(m),
        }
    }
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Message(message)
    }
}

impl From<&str> for Failure {
    fn from(message: &str) -> Failure {
        Failure::Message(message.to_string())
    }
}

/// An error of the file `file`: at its position, or (about the whole file) after its name.
fn in_file<E: Positioned>(error: Located<E>, file: &str) -> Failure {
    if error.line_col().is_some() {
        Failure::Located(error.source_error())
    } else {
        Failure::Message(format!("{file}: {}", error.error))
    }
}

/// The exit code for a set of verdicts: 1 if any failed, else 3 if any is inconclusive.
fn exit_code(verdicts: impl IntoIterator<Item = Verdict>) -> i32 {
    let verdicts: Vec<Verdict> = verdicts.into_iter().collect();
    if verdicts.contains(&Verdict::Failed) {
        exit::RELATION_FAILED
    } else if verdicts.contains(&Verdict::Inconclusive) {
        exit::INCONCLUSIVE
    } else {
        exit::SUCCESS
    }
}

fn run_checked(args: &MetamorphicArgs) -> Result<i32, Failure> {
    let budget = parse_duration(&args.budget)?;
    let timeout = parse_duration(&args.timeout)?;
    let domain = read_domain(args)?;
    let relations = read_relations(args, &domain)?;
    let system = make_system(args, timeout)?;
    metamorphic::check_domain_inputs(&domain, system.as_ref())
        .map_err(|e| in_file(e, &args.domain))?;
    // Every name must exist before the search starts: the outputs are the scope's declared
    // ones, or those of a first probe run of the program.
    let outputs = known_outputs(system.as_ref(), &domain, args.seed).map_err(|e| match &e {
        ProbeError::NoAnswer {
            never_answered: true,
            ..
        } => format!("the program gave no usable answer: {e}"),
        _ => e.to_string(),
    })?;
    check_names(&domain, &relations, &outputs).map_err(|e| Failure::Located(e.source_error()))?;
    if args.prove {
        return run_prove(args, &domain, &relations, budget).map_err(Failure::Message);
    }
    let reports = search_relations(args, &relations, &domain, system.as_ref(), budget);
    let description = system.describe();
    if args.format == OutputFormat::Json {
        let document = metamorphic::report::to_json(&reports, &description);
        println!(
            "{}",
            serde_json::to_string_pretty(&document).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", metamorphic::report::to_text(&reports));
    }
    write_result_files(args, &reports, &description)?;
    Ok(exit_code(reports.iter().map(|r| r.outcome.verdict)))
}

/// The input domain (`--domain`, with `--output` in place of its main output); it keeps the
/// texts its later errors point into.
fn read_domain(args: &MetamorphicArgs) -> Result<Domain, Failure> {
    let domain_text = std::fs::read_to_string(&args.domain)
        .map_err(|e| format!("cannot read {}: {e}", args.domain))?;
    let mut domain =
        Domain::from_toml_file(&args.domain, &domain_text).map_err(|e| in_file(e, &args.domain))?;
    if let Some(output) = &args.output {
        domain
            .set_output("--output", output)
            .map_err(|e| Failure::Located(*e.located))?;
    }
    Ok(domain)
}

/// The relations of `--relations` (those of `--only` when given), each checked against the
/// domain.
fn read_relations(args: &MetamorphicArgs, domain: &Domain) -> Result<Vec<Relation>, Failure> {
    let relations_text = std::fs::read_to_string(&args.relations)
        .map_err(|e| format!("cannot read {}: {e}", args.relations))?;
    let mut relations = parse_relations_file(&args.relations, &relations_text)
        .map_err(|e| Failure::Located(*e.located))?;
    if !args.only.is_empty() {
        for name in &args.only {
            if !relations.iter().any(|r| &r.name == name) {
                return Err(format!("no relation named `{name}` in {}", args.relations).into());
            }
        }
        relations.retain(|r| args.only.contains(&r.name));
    }
    for relation in &relations {
        metamorphic::validate_relation(relation, domain)
            .map_err(|e| Failure::Located(e.source_error()))?;
    }
    Ok(relations)
}

/// The random search of each relation in turn, with the live status line on a terminal.
fn search_relations(
    args: &MetamorphicArgs,
    relations: &[Relation],
    domain: &Domain,
    system: &dyn SystemUnderTest,
    budget: Duration,
) -> Vec<RelationReport> {
    let status =
        crate::progress::Status::new(crate::progress::wanted(args.outputs.quiet), "metamorphic");
    let show_progress = status.is_drawn();
    let live = Arc::new(LiveSearch::default());
    let config = SearchConfig {
        seed: args.seed,
        budget,
        max_tests: args.max_tests,
        jobs: args.jobs.max(1),
        bayes_factor: args.bayes_factor,
        theta: args.theta,
        tolerance: args.tolerance,
        stop_after_accepted_bases: args.stop_after_bases,
        stop_after_failures: args.stop_after_failures,
        live: show_progress.then(|| Arc::clone(&live)),
        ..SearchConfig::default()
    };
    let tree_options = TreeOptions {
        max_depth: args.depth,
        ..TreeOptions::default()
    };
    let total = relations.len();
    // The relation being searched (0-based), and whether the search is over: the status line
    // is refreshed from the search's published figures four times a second.
    let current = AtomicUsize::new(0);
    let over = AtomicBool::new(false);
    let mut reports = Vec::with_capacity(relations.len());
    std::thread::scope(|scope| {
        if show_progress {
            scope.spawn(|| {
                while !over.load(Ordering::Relaxed) {
                    let n = current.load(Ordering::Relaxed);
                    if let Some(relation) = relations.get(n) {
                        status.set_message(crate::report_files::relation_running(
                            n + 1,
                            total,
                            &relation.name,
                            &config,
                            &live,
                        ));
                    }
                    std::thread::sleep(Duration::from_millis(250));
                }
            });
        }
        let mut done = 0;
        // Each relation's sample of tests is dropped once it is explained: memory stays that
        // of one relation's search.
        metamorphic::check::check_each_relation(
            relations,
            domain,
            system,
            &config,
            &tree_options,
            &mut |mut report| {
                done += 1;
                if show_progress {
                    status.println(&crate::report_files::relation_done_line(
                        done, total, &report,
                    ));
                    live.reset();
                    current.store(done, Ordering::Relaxed);
                }
                report.release_sample();
                reports.push(report);
            },
        );
        over.store(true, Ordering::Relaxed);
    });
    status.finish();
    reports
}

/// The files asked for besides the printed report: `--report` (HTML), `--sarif`, `--junit`.
fn write_result_files(
    args: &MetamorphicArgs,
    reports: &[RelationReport],
    description: &str,
) -> Result<(), String> {
    if let Some(path) = &args.report {
        std::fs::write(path, metamorphic::report::to_html(reports, description))
            .map_err(|e| format!("cannot write {path}: {e}"))?;
    }
    if let Some(path) = &args.outputs.sarif {
        let log = crate::report_files::metamorphic_sarif(reports, &args.relations, description);
        crate::report_files::write_file(path, &format!("{log:#}\n"))?;
    }
    if let Some(path) = &args.outputs.junit {
        let xml = crate::report_files::metamorphic_junit(reports, &args.relations, description);
        crate::report_files::write_file(path, &xml)?;
    }
    Ok(())
}

/// `--prove`: the symbolic check of each relation, printed as it finishes.
fn run_prove(
    args: &MetamorphicArgs,
    domain: &Domain,
    relations: &[metamorphic::relation::Relation],
    budget: Duration,
) -> Result<i32, String> {
    use metamorphic::prove::{self, ProofVerdict, ProveConfig};
    if args.outputs.sarif.is_some() || args.outputs.junit.is_some() {
        return Err(
            "--sarif and --junit are written by the random search only, not with --prove".into(),
        );
    }
    let target = args
        .system
        .strip_prefix("catala:")
        .ok_or("--prove needs a Catala scope: --system catala:FILE#Scope")?;
    let defaults = ProveConfig::default();
    let opts = &args.prove_options;
    let optional = |text: &Option<String>| -> Result<Option<Duration>, String> {
        text.as_deref().map(parse_duration).transpose()
    };
    let retry_timeout = match optional(&opts.retry_timeout)? {
        Some(d) if d.is_zero() => None,
        Some(d) => Some(d),
        None => defaults.retry_timeout,
    };
    let config = ProveConfig {
        budget,
        tolerance: args.tolerance,
        query_timeout: optional(&opts.solver_timeout)?.unwrap_or(defaults.query_timeout),
        retry_timeout,
        order: if opts.depth_first {
            metamorphic::prove::RelationalOrder::DepthFirst
        } else {
            defaults.order
        },
        guesses: !opts.no_guesses,
        tree_budget: optional(&opts.tree_budget)?.unwrap_or(defaults.tree_budget),
        tree_depth: args.depth,
        seed: args.seed,
        jobs: args.jobs.max(1),
        ..defaults
    };
    let show_progress = !args.outputs.quiet && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut reports = Vec::new();
    prove::prove_catala(target, domain, relations, &config, &mut |report| {
        if show_progress {
            eprintln!(
                "[{}/{}] {}: {} ({} path pairs, {:.2} s)",
                reports.len() + 1,
                relations.len(),
                report.relation,
                report.verdict.as_str(),
                report.path_pairs,
                report.elapsed_s
            );
        }
        reports.push(report);
    })?;
    if args.format == OutputFormat::Json {
        let document = prove::report::to_json(&reports, &args.system);
        println!(
            "{}",
            serde_json::to_string_pretty(&document).map_err(|e| e.to_string())?
        );
    } else {
        print!("{}", prove::report::to_text(&reports));
    }
    let verdicts: Vec<ProofVerdict> = reports.iter().map(|r| r.verdict).collect();
    Ok(if verdicts.contains(&ProofVerdict::Refuted) {
        exit::RELATION_FAILED
    } else if verdicts.contains(&ProofVerdict::Unknown) {
        exit::INCONCLUSIVE
    } else {
        exit::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(system: &str, only: &[&str], relations: &str) -> MetamorphicArgs {
        let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/metamorphic");
        MetamorphicArgs {
            system: system.replace("EXAMPLES", examples),
            domain: format!("{examples}/form1040.toml"),
            relations: relations.replace("EXAMPLES", examples),
            output: None,
            only: only.iter().map(|s| s.to_string()).collect(),
            budget: "20s".into(),
            max_tests: Some(300),
            seed: 1,
            jobs: 2,
            one_call: false,
            request_id: false,
            timeout: "10s".into(),
            tolerance: 0.0,
            bayes_factor: 100.0,
            theta: 0.95,
            stop_after_bases: None,
            stop_after_failures: None,
            depth: 4,
            report: None,
            format: OutputFormat::Json,
            prove: false,
            prove_options: ProveOptionArgs::default(),
            outputs: MetamorphicOutputArgs::default(),
        }
    }

    #[test]
    fn exit_codes_follow_the_verdicts() {
        let only = ["r3_eitc_mfs", "r9_etc_mfs"];
        let correct = args(
            "catala:EXAMPLES/form1040.catala_en#Form1040",
            &only,
            "EXAMPLES/form1040.mr",
        );
        assert_eq!(run_checked(&correct), Ok(0));
        let buggy = args(
            "catala:EXAMPLES/form1040_bug_eitc_mfs.catala_en#Form1040",
            &only,
            "EXAMPLES/form1040.mr",
        );
        assert_eq!(run_checked(&buggy), Ok(1));
    }

    #[test]
    fn usage_errors_are_messages() {
        let unknown = args(
            "catala:EXAMPLES/form1040.catala_en#Form1040",
            &["r99"],
            "EXAMPLES/form1040.mr",
        );
        assert!(run_checked(&unknown)
            .unwrap_err()
            .to_string()
            .contains("no relation named `r99`"));
        let mut wrong_domain = args(
            "catala:EXAMPLES/form1040_bug_eitc_mfs.catala_en#TestJointReturn",
            &[],
            "EXAMPLES/form1040.mr",
        );
        wrong_domain.max_tests = Some(1);
        let message = run_checked(&wrong_domain).unwrap_err().to_string();
        assert!(message.contains("has no such input"), "{message}");
        // Positioned at the field's name in its table header `[fields.NAME]`: column 9.
        let field = message
            .split('`')
            .nth(1)
            .expect("the message names the field")
            .to_string();
        let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/metamorphic");
        let text = std::fs::read_to_string(format!("{examples}/form1040.toml")).unwrap();
        let header = format!("[fields.{field}]");
        let line = text.lines().position(|l| l.trim() == header).unwrap() + 1;
        assert!(
            message.contains(&format!("form1040.toml:{line}:9: ")),
            "{message}"
        );
        let bad_system = args("ftp:nowhere", &[], "EXAMPLES/form1040.mr");
        assert!(run_checked(&bad_system)
            .unwrap_err()
            .to_string()
            .contains("unknown system"));
        let dir = std::env::temp_dir().join(format!("lexprobe-mr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let broken = dir.join("broken.mr");
        std::fs::write(&broken, "relation r\n  forall x, y. x.agi >=\n").unwrap();
        let broken_args = args("cmd:true", &[], broken.to_str().unwrap());
        let message = run_checked(&broken_args).unwrap_err().to_string();
        assert!(message.contains("broken.mr:3:1:"), "{message}");
    }

    #[test]
    fn exit_code_is_1_on_failure_else_3_when_inconclusive() {
        use Verdict::*;
        assert_eq!(exit_code([Passed, Passed]), 0);
        assert_eq!(exit_code([Passed, Inconclusive]), 3);
        assert_eq!(exit_code([Inconclusive, Failed, Passed]), 1);
        assert_eq!(exit_code([]), 0);
    }

    fn scratch(name: &str, text: &str) -> String {
        let dir = std::env::temp_dir().join(format!("lexprobe-mr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    #[test]
    fn an_unsatisfiable_premise_is_inconclusive_exit_3() {
        let relations = scratch(
            "impossible.mr",
            "relation impossible forall x, y. x ==[age] y and y.age > 500 => F(x) = F(y)\n",
        );
        let mut impossible = args(
            "catala:EXAMPLES/form1040.catala_en#Form1040",
            &[],
            &relations,
        );
        impossible.budget = "5s".into();
        assert_eq!(run_checked(&impossible), Ok(exit::INCONCLUSIVE));
    }

    #[test]
    fn misspelt_outputs_are_positioned_usage_errors() {
        let only = ["r3_eitc_mfs"];
        let mut option = args(
            "catala:EXAMPLES/form1040.catala_en#Form1040",
            &only,
            "EXAMPLES/form1040.mr",
        );
        option.output = Some("refund + refnd".into());
        let message = run_checked(&option).unwrap_err().to_string();
        assert!(
            message
                .starts_with("--output:1:10: the definition of F `refund + refnd` reads `refnd`"),
            "{message}"
        );
        assert!(message.contains("refund"), "{message}");
        // In the domain file: `output = "refund_amount"` on line 2, the name at column 11.
        let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/metamorphic");
        let domain_text = std::fs::read_to_string(format!("{examples}/form1040.toml")).unwrap();
        let kept: Vec<&str> = domain_text
            .lines()
            .filter(|l| !l.starts_with("output"))
            .collect();
        let domain = scratch(
            "misspelt.toml",
            &format!("# F\noutput = \"refund_amount\"\n{}\n", kept.join("\n")),
        );
        let mut in_domain = args(
            "catala:EXAMPLES/form1040.catala_en#Form1040",
            &only,
            "EXAMPLES/form1040.mr",
        );
        in_domain.domain = domain.clone();
        let message = run_checked(&in_domain).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!("{domain}:2:11: the definition of F")),
            "{message}"
        );
        // A feature reading a name that does not exist.
        let features_line = domain_text
            .lines()
            .position(|l| l.trim() == "[features]")
            .unwrap();
        let with_feature =
            domain_text.replacen("[features]\n", "[features]\nzz_bad = \"agi + incme\"\n", 1);
        let mut bad_feature = args(
            "catala:EXAMPLES/form1040.catala_en#Form1040",
            &only,
            "EXAMPLES/form1040.mr",
        );
        bad_feature.domain = scratch("feature.toml", &with_feature);
        let message = run_checked(&bad_feature).unwrap_err().to_string();
        assert!(
            message.starts_with(&format!(
                "{}:{}:17: feature `zz_bad` uses `incme`",
                bad_feature.domain,
                features_line + 2
            )),
            "{message}"
        );
        // A relation reading an output that does not exist.
        let relations = scratch(
            "misspelt.mr",
            "relation r forall x, y. x ==[l27] y =>\n  out.eic(x) >= 0\n",
        );
        let named = args(
            "catala:EXAMPLES/form1040.catala_en#Form1040",
            &[],
            &relations,
        );
        let message = run_checked(&named).unwrap_err().to_string();
        // At the output's name, after `  out.` on line 2.
        assert!(
            message.starts_with(&format!(
                "{relations}:2:7: relation `r` reads the output `eic`"
            )),
            "{message}"
        );
    }

    #[test]
    fn a_program_that_never_answers_is_a_usage_error_naming_it() {
        let silent = args(
            "cmd:echo 'no tax tables' >&2; exit 7",
            &["r3_eitc_mfs"],
            "EXAMPLES/form1040.mr",
        );
        let message = run_checked(&silent).unwrap_err().to_string();
        assert!(message.contains("gave no usable answer"), "{message}");
        assert!(
            message.contains("`echo 'no tax tables' >&2; exit 7`"),
            "{message}"
        );
        assert!(message.contains("exit status: 7"), "{message}");
        assert!(message.contains("stderr: no tax tables"), "{message}");
    }

    #[test]
    fn prove_exits_1_on_a_refuted_relation_and_0_when_all_are_proved() {
        let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/prove");
        let mut step = args(
            &format!("catala:{fixtures}/benefit_step.catala_en#Benefit"),
            &["more_income_never_raises"],
            &format!("{fixtures}/benefit.mr"),
        );
        step.domain = format!("{fixtures}/benefit.toml");
        step.prove = true;
        assert_eq!(run_checked(&step), Ok(exit::RELATION_FAILED));
        let mut monotone = step;
        monotone.system = format!("catala:{fixtures}/benefit.catala_en#Benefit");
        monotone.only = vec!["more_income_never_raises".into(), "never_negative".into()];
        assert_eq!(run_checked(&monotone), Ok(exit::SUCCESS));
        let mut external = monotone;
        external.system = "cmd:true".into();
        assert!(run_checked(&external).is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("-1s").is_err());
    }
}
