//! Checks a relations file on an external program without the `lexprobe` binary (handy for
//! benchmarks): `cargo run -p metamorphic --release --example check_relations -- COMMAND
//! DOMAIN RELATIONS BUDGET_SECONDS JOBS [ONLY,...]`. Prints one line per relation with its
//! throughput, then the text report.

use metamorphic::check::check_relations;
use metamorphic::domain::Domain;
use metamorphic::external::{CallMode, ExternalProgram};
use metamorphic::relation::parse_relations;
use metamorphic::search::SearchConfig;
use metamorphic::tree::TreeOptions;
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 5 {
        eprintln!("usage: check_relations COMMAND DOMAIN RELATIONS BUDGET_SECONDS JOBS [ONLY,...] [--one-call]");
        std::process::exit(2);
    }
    let read = |path: &str| {
        std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2)
        })
    };
    let domain = Domain::from_toml(&read(&args[1])).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let mut relations = parse_relations(&read(&args[2])).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let budget: f64 = args[3].parse().unwrap_or(5.0);
    let jobs: usize = args[4].parse().unwrap_or(1);
    if let Some(only) = args.get(5).filter(|a| !a.starts_with("--")) {
        let names: Vec<&str> = only.split(',').collect();
        relations.retain(|r| names.contains(&r.name.as_str()));
    }
    let mode = if args.iter().any(|a| a == "--one-call") {
        CallMode::OneCallPerProcess
    } else {
        CallMode::JsonLines
    };
    let system = ExternalProgram::new(&args[0], mode, Duration::from_secs(10));
    let config = SearchConfig {
        budget: Duration::from_secs_f64(budget),
        jobs,
        ..SearchConfig::default()
    };
    let reports = check_relations(
        &relations,
        &domain,
        &system,
        &config,
        &TreeOptions::default(),
        &mut |r| {
            eprintln!(
                "{}: {} tests in {:.2}s = {:.0} tests/s",
                r.relation.name,
                r.outcome.tests,
                r.outcome.elapsed_s,
                r.outcome.throughput()
            )
        },
    );
    print!("{}", metamorphic::report::to_text(&reports));
}
