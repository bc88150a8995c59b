//! Runs the falsifier on one method file without the `lexprobe` binary:
//! `cargo run -p hatch --example falsify_one -- FILE [--naive] [--no-merge] [--no-disjunctive-states] [--no-deferred-checks] [--no-subsumption] [--timeout SECONDS]
//! [--exec-bound N] [--append-bound N] [--json]` (`--no-merge`: explore states an explored one
//! covers, for comparisons; `--no-disjunctive-states`: one state per refinement of an `admit` or sampled prestate;
//! `--no-deferred-checks`: check the feasibility of every state an `admit` or `append` changes at once;
//! `--no-subsumption`: explore the entries into user functions an earlier entry covers).
//! `HATCH_VERBOSE=1` prints one line per search round on standard error.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: falsify_one FILE [--naive] [--no-merge] [--no-disjunctive-states] [--no-deferred-checks] [--no-subsumption] [--timeout SECONDS] [--exec-bound N] [--append-bound N] [--json]");
        std::process::exit(2);
    };
    let mut opts = hatch::Options::default();
    let mut json = false;
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--naive" => opts.mode = hatch::Mode::Naive,
            "--json" => json = true,
            "--no-merge" => opts.merge_states = false,
            "--no-disjunctive-states" => opts.disjunctive_states = false,
            "--no-deferred-checks" => opts.deferred_checks = false,
            "--no-subsumption" => opts.subsume_entries = false,
            "--exec-bound" | "--append-bound" => {
                i += 1;
                let Some(n) = args.get(i).and_then(|t| t.parse::<usize>().ok()) else {
                    eprintln!("{} needs a number", args[i - 1]);
                    std::process::exit(2);
                };
                if args[i - 1] == "--exec-bound" {
                    opts.exec_bound = n;
                } else {
                    opts.append_bound = n;
                }
            }
            "--timeout" => {
                i += 1;
                match args
                    .get(i)
                    .and_then(|t| t.parse::<f64>().ok())
                    .filter(|t| *t > 0.0)
                {
                    Some(t) => opts.timeout = std::time::Duration::from_secs_f64(t),
                    None => {
                        eprintln!("--timeout needs a positive number");
                        std::process::exit(2);
                    }
                }
            }
            other => {
                eprintln!("unknown argument {other}");
                std::process::exit(2);
            }
        }
        i += 1;
    }
    if std::env::var("HATCH_VERBOSE").is_ok() {
        opts.on_round = Some(|line| eprintln!("{line}"));
    }
    match hatch::falsify_file(std::path::Path::new(path), &opts) {
        Ok(r) if json => {
            let v = serde_json::json!({
                "falsified": r.falsified,
                "timed_out": r.timed_out,
                "time_s": r.elapsed.as_secs_f64(),
                "exhausted": r.progress.exhausted,
                "states": r.states,
                "paths": r.paths,
                "solver_queries": r.solver.queries,
                "trace": r.trace_lines(),
            });
            println!("{v}");
            std::process::exit(i32::from(r.falsified));
        }
        Ok(r) => {
            if let Some(v) = &r.violation {
                println!(
                    "Phi    = {}",
                    v.phi
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join(" ∧ ")
                );
                println!("Trace  = {}", r.trace_lines().join("; "));
                if let Some(c) = &v.cont {
                    println!("R_cont = {c}");
                }
            }
            println!(
                "falsified={} timed_out={} time={:.3}s states={} paths={} queries={}",
                r.falsified,
                r.timed_out,
                r.elapsed.as_secs_f64(),
                r.states,
                r.paths,
                r.solver.queries
            );
            std::process::exit(i32::from(r.falsified));
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
