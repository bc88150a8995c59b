//! Benchmark of loading and testing real module programs: for each test file given (or each
//! Catala file of each directory given), times the load of the file with every module it uses
//! and the standard library (read, parse, resolve, type, lower: the median of `RUNS` loads),
//! then the evaluation of all its `#[test]` scopes (the median of `RUNS` rounds, each on a
//! fresh interpreter), and prints one line per file and the totals. Not a test: run it through
//! `bench/catala/load.sh` (release mode), which also reports the peak memory.
//!
//! Usage: `bench_load [--runs N] PATH...`

use catala_eval::eval::{run_with, Interpreter};
use catala_syntax::LoadOptions;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn catala_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(path) else {
        return out;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            out.extend(catala_files(&p));
        } else if p
            .extension()
            .is_some_and(|e| e.to_string_lossy().starts_with("catala_"))
        {
            out.push(p);
        }
    }
    out
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs.get(xs.len() / 2).copied().unwrap_or_default()
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 10usize;
    if let Some(i) = args.iter().position(|a| a == "--runs") {
        runs = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(runs)
            .max(1);
        args.drain(i..(i + 2).min(args.len()));
    }
    if args.is_empty() {
        eprintln!("usage: bench_load [--runs N] PATH...");
        std::process::exit(2);
    }
    let mut total_load = Duration::ZERO;
    let mut total_eval = Duration::ZERO;
    let (mut passed, mut failed, mut files) = (0usize, 0usize, 0usize);
    println!(
        "{:<60} {:>6} {:>7} {:>10} {:>10}",
        "file", "lines", "tests", "load ms", "tests ms"
    );
    for arg in &args {
        for file in catala_files(Path::new(arg)) {
            let options = match LoadOptions::for_file(&file, &[]) {
                Ok(o) => o,
                Err(d) => {
                    println!("{}: {}", file.display(), d.message);
                    continue;
                }
            };
            let mut loads = Vec::with_capacity(runs);
            let mut compiled = None;
            for _ in 0..runs {
                let start = Instant::now();
                let (sources, parsed) = catala_syntax::parse_file_with_options(&file, &options);
                let program = parsed.map_err(|d| d.message).and_then(|ast| {
                    catala_ir::compile(&sources, &ast)
                        .map_err(|ds| ds.first().map(|d| d.message.clone()).unwrap_or_default())
                });
                loads.push(start.elapsed());
                let lines: usize = sources.files.iter().map(|f| f.text.lines().count()).sum();
                compiled = Some((program, lines));
            }
            let Some((program, lines)) = compiled else {
                continue;
            };
            let program = match program {
                Ok(p) => p,
                Err(message) => {
                    println!("{}: does not compile: {message}", file.display());
                    continue;
                }
            };
            let tests = program.test_scopes();
            if tests.is_empty() {
                continue;
            }
            files += 1;
            let mut evals = Vec::with_capacity(runs);
            let mut outcome = (0, 0);
            for _ in 0..runs {
                let start = Instant::now();
                let mut ok = 0;
                let mut ko = 0;
                match Interpreter::<()>::new(&program, ()) {
                    Ok(mut interp) => {
                        for &scope in &tests {
                            match run_with(&mut interp, scope, Vec::new()) {
                                Ok(r) if r.assertion_failures.is_empty() => ok += 1,
                                _ => ko += 1,
                            }
                        }
                    }
                    Err(_) => ko += tests.len(),
                }
                evals.push(start.elapsed());
                outcome = (ok, ko);
            }
            passed += outcome.0;
            failed += outcome.1;
            let (load, eval) = (median(loads), median(evals));
            total_load += load;
            total_eval += eval;
            println!(
                "{:<60} {:>6} {:>7} {:>10.2} {:>10.3}",
                file.display(),
                lines,
                tests.len(),
                ms(load),
                ms(eval)
            );
        }
    }
    println!(
        "{files} files, {passed} tests passed, {failed} failed; load {:.1} ms in all ({:.1} ms per file), tests {:.2} ms in all",
        ms(total_load),
        ms(total_load) / files.max(1) as f64,
        ms(total_eval)
    );
}
