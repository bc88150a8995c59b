//! Measures the cost of the search itself: the 16 Form 1040 relations against an
//! in-process system that answers instantly (a linear stand-in for the tax model), so that
//! every microsecond spent is generation, judging and bookkeeping.
//! `cargo run -p metamorphic --release --example search_overhead -- DOMAIN RELATIONS SECONDS`

use metamorphic::domain::Domain;
use metamorphic::relation::parse_relations;
use metamorphic::search::{search_relation, SearchConfig};
use metamorphic::system::{FunctionSystem, RunResult};
use metamorphic::value::{Record, Value};
use std::time::Duration;

fn stand_in(input: &Record) -> RunResult {
    let number = |name: &str| input.get(name).and_then(Value::as_f64).unwrap_or(0.0);
    let refund = number("l27") + number("l29") + 2000.0 * number("qc") - 0.1 * number("agi");
    let mut out = Record::new();
    out.insert("refund".to_string(), Value::Number(refund));
    Ok(out)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: search_overhead DOMAIN RELATIONS SECONDS");
        std::process::exit(2);
    }
    let domain = Domain::from_toml(&std::fs::read_to_string(&args[0]).unwrap_or_default())
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        });
    let relations = parse_relations(&std::fs::read_to_string(&args[1]).unwrap_or_default())
        .unwrap_or_else(|e| {
            eprintln!("{e}");
            std::process::exit(2)
        });
    let seconds: f64 = args[2].parse().unwrap_or(1.0);
    let system = FunctionSystem {
        name: "stand-in".into(),
        function: stand_in,
    };
    let config = SearchConfig {
        budget: Duration::from_secs_f64(seconds),
        ..SearchConfig::default()
    };
    let (mut tests, mut elapsed) = (0usize, 0.0f64);
    for relation in &relations {
        let outcome = search_relation(relation, &domain, &system, &config);
        println!(
            "{:<34} {:>8} tests {:>9.0} tests/s {:>9.0} runs/s",
            relation.name,
            outcome.tests,
            outcome.throughput(),
            outcome.runs as f64 / outcome.elapsed_s.max(1e-9)
        );
        tests += outcome.tests;
        elapsed += outcome.elapsed_s;
    }
    println!(
        "all relations: {tests} tests in {elapsed:.1}s = {:.0} tests/s",
        tests as f64 / elapsed
    );
}
