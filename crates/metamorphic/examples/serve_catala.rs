//! Serves a Catala scope over JSON Lines on stdin/stdout (one inputs object per line in,
//! one outputs-or-error object per line out), so that it can be tested through the
//! external-program adapter: `lexprobe metamorphic --system "cmd:target/release/examples/
//! serve_catala FILE Scope" ...`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 2 {
        eprintln!("usage: serve_catala FILE Scope");
        std::process::exit(2);
    }
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    if let Err(e) = metamorphic::catala::serve_json_lines(
        std::path::Path::new(&args[0]),
        &args[1],
        stdin.lock(),
        stdout.lock(),
    ) {
        eprintln!("{e}");
        std::process::exit(2);
    }
}
