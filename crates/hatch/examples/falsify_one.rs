//! Runs the falsifier on one method file: `cargo run -p hatch --example falsify_one -- FILE [naive]`.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: falsify_one FILE [naive]");
        std::process::exit(2);
    };
    let mut opts = hatch::Options::default();
    if args.get(2).is_some_and(|a| a == "naive") {
        opts.mode = hatch::Mode::Naive;
    }
    opts.verbose = std::env::var("HATCH_VERBOSE").is_ok();
    if let Some(m) = std::env::var("HATCH_MATCH_LIMIT")
        .ok()
        .and_then(|m| m.parse().ok())
    {
        opts.match_limit = m;
    }
    if let Some(t) = args.get(3).and_then(|t| t.parse::<f64>().ok()) {
        opts.timeout = std::time::Duration::from_secs_f64(t);
    }
    match hatch::falsify_file(std::path::Path::new(path), &opts) {
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
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
