//! Catala test scopes from explored paths. Each test that computes its outputs becomes a
//! `#[test]` scope calling the explored scope on the test's inputs and asserting every output;
//! tests ending in an error are listed in the file's text with their inputs. The file includes
//! the explored source (`> Include:`), so `lexprobe test` and the Catala compiler can replay it.
//! Values are written as exact Catala literals (negative numbers as differences, non-decimal
//! fractions as quotients).

use crate::{Exploration, Outcome};
use catala_eval::runtime::{Decimal, Integer, Value};
use catala_ir::dcalc::{Program, ScopeId};
use catala_syntax::ast::Language;
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

fn integer_literal(i: &Integer) -> String {
    if i.signum() < 0 {
        format!("(0 - {})", i.abs())
    } else {
        i.to_string()
    }
}

fn money_literal(cents: &Integer, lang: Language) -> String {
    let abs = cents.abs();
    let (units, rest) = abs.div_rem(&Integer::from(100));
    let r = rest.to_i64().unwrap_or(0);
    let text = match lang {
        Language::En => format!("${units}.{r:02}"),
        Language::Fr => format!("{units},{r:02} €"),
        Language::Pl => format!("{units}.{r:02} PLN"),
    };
    if cents.signum() < 0 {
        let zero = match lang {
            Language::En => "$0.00".to_string(),
            Language::Fr => "0,00 €".to_string(),
            Language::Pl => "0.00 PLN".to_string(),
        };
        format!("({zero} - {text})")
    } else {
        text
    }
}

/// Exact decimal literal: finite expansions as digits, others as a quotient.
fn decimal_literal(d: &Decimal, lang: Language) -> String {
    let sep = if matches!(lang, Language::Fr) {
        ","
    } else {
        "."
    };
    let (num, den) = d.numer_denom();
    let (Some(n), Some(mut q)) = (num.abs().to_i64(), den.to_i64()) else {
        return format!("({num}{sep}0 / {den}{sep}0)");
    };
    let mut digits = 0u32;
    while q % 10 == 0 && q > 1 {
        q /= 10;
        digits += 1;
    }
    let (mut twos, mut fives) = (0u32, 0u32);
    while q % 2 == 0 {
        q /= 2;
        twos += 1;
    }
    while q % 5 == 0 {
        q /= 5;
        fives += 1;
    }
    let text = if q == 1 {
        let scale = digits + twos.max(fives);
        let den = den.to_i64().unwrap_or(1) as i128;
        let scaled = (n as i128) * 10i128.pow(scale) / den;
        let p = 10i128.pow(scale);
        let frac = if scale == 0 {
            "0".to_string()
        } else {
            format!("{:0width$}", scaled % p, width = scale as usize)
        };
        format!("{}{sep}{frac}", scaled / p)
    } else {
        format!("({n}{sep}0 / {den}{sep}0)")
    };
    if d.signum() < 0 {
        format!("(0{sep}0 - {text})")
    } else {
        text
    }
}

/// A Catala literal for a value.
pub fn literal(program: &Program, v: &Value, lang: Language) -> String {
    let fr = matches!(lang, Language::Fr);
    match v {
        Value::Unit => "()".into(),
        Value::Bool(b) => match (b, fr) {
            (true, true) => "vrai".into(),
            (false, true) => "faux".into(),
            (b, false) => b.to_string(),
        },
        Value::Integer(i) => integer_literal(i),
        Value::Decimal(d) => decimal_literal(d, lang),
        Value::Money(c) => money_literal(c, lang),
        Value::Date(d) => format!("|{:04}-{:02}-{:02}|", d.year, d.month, d.day),
        Value::Duration(d) => {
            let (y, m, dd) = if fr {
                ("an", "mois", "jour")
            } else {
                ("year", "month", "day")
            };
            format!(
                "{} {y} + {} {m} + {} {dd}",
                integer_literal(&Integer::from(d.years)),
                integer_literal(&Integer::from(d.months)),
                integer_literal(&Integer::from(d.days))
            )
        }
        Value::Struct(s) => {
            let def = program.structs.get(s.struct_id as usize);
            let name = def.map_or("?", |d| d.name.as_str());
            let mut out = format!("{name} {{");
            for (i, f) in s.fields.iter().enumerate() {
                let fname = def
                    .and_then(|d| d.fields.get(i))
                    .map_or("?", |f| f.name.as_str());
                let _ = write!(out, " -- {fname}: {}", literal(program, f, lang));
            }
            out.push_str(" }");
            out
        }
        Value::Enum(e) => {
            let def = program.enums.get(e.enum_id as usize);
            let case = def.and_then(|d| d.cases.get(e.case as usize));
            let name = case.map_or("?", |c| c.name.as_str());
            if case.is_some_and(|c| c.payload.is_some()) {
                let kw = if fr { "contenu" } else { "content" };
                format!("{name} {kw} ({})", literal(program, &e.payload, lang))
            } else {
                name.to_string()
            }
        }
        Value::Tuple(items) => {
            let parts: Vec<String> = items.iter().map(|i| literal(program, i, lang)).collect();
            format!("({})", parts.join(", "))
        }
        Value::List(items) => {
            let parts: Vec<String> = items.iter().map(|i| literal(program, i, lang)).collect();
            format!("[{}]", parts.join("; "))
        }
        Value::Closure(_) => "()".into(),
    }
}

/// `to` relative to the directory `from` (both made absolute).
fn relative_path(to: &Path, from: &Path) -> PathBuf {
    let abs = |p: &Path| {
        std::fs::canonicalize(p).unwrap_or_else(|_| {
            std::env::current_dir()
                .map(|d| d.join(p))
                .unwrap_or_else(|_| p.to_path_buf())
        })
    };
    let (to, from) = (abs(to), abs(from));
    let a: Vec<Component> = to.components().collect();
    let b: Vec<Component> = from.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &a[common..] {
        out.push(c.as_os_str());
    }
    out
}

/// The text of the test file.
pub fn test_file_text(
    program: &Program,
    scope: ScopeId,
    exploration: &Exploration,
    include: &Path,
) -> String {
    let decl = program.scope(scope);
    let lang = decl.language;
    let fr = matches!(lang, Language::Fr);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# {} {}\n\n> {}: {}\n",
        if fr { "Tests de" } else { "Tests of" },
        decl.name,
        if fr { "Inclusion" } else { "Include" },
        include.display()
    );
    for (i, t) in exploration.tests.iter().enumerate() {
        let test_name = format!("Test_{}_{}", decl.name, i + 1);
        let mut defs = String::new();
        for (input, v) in decl.inputs.iter().zip(&t.inputs) {
            if let Some(v) = v {
                let _ = writeln!(
                    defs,
                    "  {} run.{} {} {}",
                    if fr { "définition" } else { "definition" },
                    input.name,
                    if fr { "égal à" } else { "equals" },
                    literal(program, v, lang)
                );
            }
        }
        let Outcome::Ok(outs) = &t.outcome else {
            let _ = writeln!(
                out,
                "Path {} ends with `{}` on these inputs:\n\n```\n{defs}```\n",
                i + 1,
                t.outcome.kind()
            );
            continue;
        };
        let _ = writeln!(out, "```catala");
        if fr {
            let _ = writeln!(
                out,
                "#[test]\ndéclaration champ d'application {test_name}:\n  résultat run champ d'application {}\n\nchamp d'application {test_name}:",
                decl.name
            );
        } else {
            let _ = writeln!(
                out,
                "#[test]\ndeclaration scope {test_name}:\n  output run scope {}\n\nscope {test_name}:",
                decl.name
            );
        }
        out.push_str(&defs);
        for (name, v) in outs {
            let _ = writeln!(
                out,
                "  assertion run.{name} = {}",
                literal(program, v, lang)
            );
        }
        let _ = writeln!(out, "```\n");
    }
    out
}

/// Writes the tests of `exploration` as Catala test scopes into `dir`; returns the file path.
pub fn write_test_file(
    program: &Program,
    scope: ScopeId,
    exploration: &Exploration,
    source: &Path,
    dir: &Path,
) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let decl = program.scope(scope);
    let ext = source
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("catala_en");
    let path = dir.join(format!("{}_concolic.{ext}", decl.name));
    let include = relative_path(source, dir);
    std::fs::write(&path, test_file_text(program, scope, exploration, &include))?;
    Ok(path)
}
