//! Checks a relations file on an external program or a Catala scope without the `lexprobe`
//! binary (handy for benchmarks): `cargo run -p metamorphic --release --example
//! check_relations -- SYSTEM DOMAIN RELATIONS BUDGET_SECONDS JOBS [ONLY,...] [--one-call]
//! [--json]`, where SYSTEM is a shell command or `catala:FILE#Scope`. Prints one line per
//! relation with its throughput on stderr, then the text (or JSON) report.

use metamorphic::check::check_relations;
use metamorphic::domain::Domain;
use metamorphic::external::{CallMode, ExternalProgram};
use metamorphic::relation::parse_relations;
use metamorphic::search::SearchConfig;
use metamorphic::system::SystemUnderTest;
use metamorphic::tree::TreeOptions;
use std::time::Duration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 5 {
        eprintln!("usage: check_relations SYSTEM DOMAIN RELATIONS BUDGET_SECONDS JOBS [ONLY,...] [--one-call] [--json]");
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
    let system: Box<dyn SystemUnderTest> = match args[0].strip_prefix("catala:") {
        Some(target) => match metamorphic::catala_system(target, jobs) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(2)
            }
        },
        None => Box::new(ExternalProgram::new(
            &args[0],
            mode,
            Duration::from_secs(10),
        )),
    };
    let config = SearchConfig {
        budget: Duration::from_secs_f64(budget),
        jobs,
        ..SearchConfig::default()
    };
    let reports = check_relations(
        &relations,
        &domain,
        system.as_ref(),
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
    if args.iter().any(|a| a == "--json") {
        let document = metamorphic::report::to_json(&reports, &system.describe());
        println!("{document:#}");
    } else {
        print!("{}", metamorphic::report::to_text(&reports));
    }
}
