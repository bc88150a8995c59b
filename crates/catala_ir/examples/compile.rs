//! Compiles the Catala files given on the command line and prints a one-line summary per file
//! (or the first diagnostic with its position).

fn main() {
    for arg in std::env::args().skip(1) {
        let path = std::path::Path::new(&arg);
        let started = std::time::Instant::now();
        match catala_syntax::parse_file(path) {
            Err(d) => println!("{arg}: parse error: {}", d.message),
            Ok((sources, program)) => {
                let parsed = started.elapsed();
                match catala_ir::compile(&sources, &program) {
                    Ok(p) => println!(
                        "{arg}: ok ({} scopes, {} variables of which {} may be empty, {} structs, \
                         {} enums; parse {:?}, compile {:?})",
                        p.scopes.len(),
                        p.scopes.iter().map(|s| s.vars.len()).sum::<usize>(),
                        p.scopes
                            .iter()
                            .flat_map(|s| &s.vars)
                            .filter(|v| v.may_be_empty)
                            .count(),
                        p.structs.len(),
                        p.enums.len(),
                        parsed,
                        started.elapsed() - parsed
                    ),
                    Err(ds) => {
                        for d in ds.iter().take(3) {
                            let pos = d
                                .labels
                                .first()
                                .map(|l| sources.position(l.span).to_string())
                                .unwrap_or_default();
                            println!("{arg}: {:?} error: {} at {pos}", d.kind, d.message);
                            for l in &d.labels {
                                println!(
                                    "    {} {}",
                                    l.note.as_deref().unwrap_or("-"),
                                    sources.position(l.span)
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
