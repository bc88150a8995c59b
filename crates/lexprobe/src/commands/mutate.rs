//! `lexprobe mutate FILE --scope S --seed N --count K`: mutation testing of the concolic
//! engine (Section 5.2 of the CUTECat paper). Mutants remove an exception, duplicate one, or
//! negate a default's condition; each is explored and reported as detected when a conflict or
//! missing case absent from the original program is found, with the time to first detection.

use crate::catala;
use crate::catala::report::{print_errors, ErrorReport};
use crate::exit::{CATALA_ERROR, SUCCESS, USAGE};
use crate::format::OutputFormat;
use concolic::mutation::run_mutants;
use concolic::{ExploreOptions, Optimizations};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args)]
#[command(after_help = "Example:
  lexprobe mutate housing.catala_fr --scope Test --seed 1 --count 20 --timeout 60")]
pub struct MutateArgs {
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
    /// Optimizations: none, all, or a comma list.
    #[arg(long, default_value = "all")]
    pub optim: String,
    /// Output format.
    #[arg(long, short = 'F', value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,
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
    let (loaded, scope) = match catala::load_scope(&args.file, &args.scope, json_out) {
        Ok(found) => found,
        Err(code) => return code,
    };
    let options = ExploreOptions {
        optimizations,
        timeout: args
            .timeout
            .filter(|t| *t > 0.0)
            .map(Duration::from_secs_f64),
        check: false,
        ..ExploreOptions::default()
    };
    let reports = match run_mutants(&loaded.program, scope, args.seed, args.count, &options) {
        Ok(r) => r,
        Err(e) => {
            print_errors(
                &loaded.sources,
                &[ErrorReport::plain("concolic", e.to_string())],
                json_out,
            );
            return CATALA_ERROR;
        }
    };
    let detected: Vec<f64> = reports
        .iter()
        .filter_map(|r| r.time_to_detection.map(|t| t.as_secs_f64()))
        .collect();
    let mean = (!detected.is_empty()).then(|| detected.iter().sum::<f64>() / detected.len() as f64);
    if json_out {
        let mutants: Vec<_> = reports
            .iter()
            .map(|r| {
                json!({
                    "mutation": format!("{:?}", r.mutation.kind),
                    "site": r.mutation.site,
                    "exception": r.mutation.exception,
                    "detected": r.detected,
                    "time_to_detection_s": r.time_to_detection.map(|t| t.as_secs_f64()),
                    "tests": r.tests,
                    "time_s": r.exploration_time.as_secs_f64(),
                })
            })
            .collect();
        println!(
            "{}",
            json!({"mutants": mutants, "detected": detected.len(), "mean_time_to_detection_s": mean})
        );
    } else {
        for (i, r) in reports.iter().enumerate() {
            println!(
                "mutant {}: {:?} at default #{} (exception {}): {} ({} tests, {:.3} s)",
                i + 1,
                r.mutation.kind,
                r.mutation.site,
                r.mutation.exception,
                match r.time_to_detection {
                    Some(t) => format!("detected after {:.3} s", t.as_secs_f64()),
                    None => "not detected".to_string(),
                },
                r.tests,
                r.exploration_time.as_secs_f64()
            );
        }
        println!(
            "{}/{} mutants detected{}",
            detected.len(),
            reports.len(),
            mean.map_or(String::new(), |m| format!(
                ", mean time to detection {m:.3} s"
            ))
        );
    }
    SUCCESS
}
