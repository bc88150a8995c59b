//! Parses the Catala files given on the command line and prints, for each, the number of items
//! and the parse time (includes followed), or the diagnostic in Catala's layout. Used to time
//! the parser: `cargo run --release -p catala_syntax --example parse -- FILE...`.

fn main() {
    for arg in std::env::args().skip(1) {
        let start = std::time::Instant::now();
        let path = std::path::Path::new(&arg);
        let (sources, result) = catala_syntax::parse_file_with_sources(path);
        let elapsed = start.elapsed();
        match result {
            Ok(p) => {
                let lines: usize = sources.files.iter().map(|f| f.text.lines().count()).sum();
                println!(
                    "{arg}: {} items, {} files, {lines} lines in {elapsed:?}",
                    p.items.len(),
                    sources.files.len()
                );
            }
            Err(d) => print!(
                "{arg}:\n{}",
                catala_syntax::render_error(&sources, None, &d.message, &d.labels)
            ),
        }
    }
}
