//! Parses the files given on the command line and prints a summary or the diagnostic.
fn main() {
    for arg in std::env::args().skip(1) {
        let start = std::time::Instant::now();
        let (sources, result) = catala_syntax::parse_file_with_sources(std::path::Path::new(&arg));
        match result {
            Ok(p) => println!("{arg}: {} items in {:?}", p.items.len(), start.elapsed()),
            Err(d) => print!(
                "{arg}:\n{}",
                catala_syntax::render_error(&sources, None, &d.message, &d.labels)
            ),
        }
    }
}
