//! The pretty-printer writes back what the parser reads, in each language: every fixture of the
//! project (English, French and Polish) is parsed, printed, parsed again and printed again; the
//! two printed texts must be identical (the tree survives the round trip), and the printed text
//! must parse without error.

use catala_syntax::ast::{Language, Program};
use catala_syntax::printer::Printer;
use std::path::{Path, PathBuf};

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut out = Vec::new();
    for dir in ["eval", "syntax", "ir", "examples"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.extension()
                .is_some_and(|x| x.to_string_lossy().starts_with("catala_"))
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn print(program: &Program, lang: Language) -> String {
    let printer = Printer::new(lang);
    let mut out = String::from("```catala\n");
    for item in &program.items {
        out.push_str(&printer.item(&item.kind, &item.attributes));
        out.push('\n');
    }
    out.push_str("```\n");
    out
}

fn language(path: &Path) -> Language {
    match path.extension().and_then(|e| e.to_str()) {
        Some("catala_fr") => Language::Fr,
        Some("catala_pl") => Language::Pl,
        _ => Language::En,
    }
}

#[test]
fn printed_programs_parse_back_to_the_same_tree() {
    let mut checked = 0;
    let mut languages = std::collections::BTreeSet::new();
    for path in fixtures() {
        let Ok((_, program)) = catala_syntax::parse_file(&path) else {
            continue; // fixtures of syntax errors
        };
        if program.items.iter().any(|i| {
            matches!(
                i.kind,
                catala_syntax::ast::ItemKind::ModuleDef { .. }
                    | catala_syntax::ast::ItemKind::ModuleUse { .. }
            )
        }) {
            continue;
        }
        let lang = language(&path);
        let first = print(&program, lang);
        let (_, again) = catala_syntax::parse_str("printed", &first, lang).unwrap_or_else(|d| {
            panic!(
                "{}: the printed text does not parse: {} at {:?}\n{first}",
                path.display(),
                d.message,
                d.labels.first().map(|l| l.span)
            )
        });
        let second = print(&again, lang);
        assert_eq!(first, second, "{}: not a fixpoint", path.display());
        checked += 1;
        languages.insert(format!("{lang:?}"));
    }
    assert!(checked >= 20, "only {checked} fixtures checked");
    assert_eq!(languages.len(), 3, "{languages:?}");
}
