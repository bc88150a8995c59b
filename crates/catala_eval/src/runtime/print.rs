//! Printing runtime values exactly as `catala interpret` does, per source language: integers
//! with thousands separators (`2,023` / `2 023`), money (`$1,000.00` / `1 000,00 €`), decimals
//! truncated to six fractional digits with `…` when inexact, dates `|2019-01-31|`, durations
//! `[1 year, 2 months]`, booleans, enums `C content v`, structs and lists in a vertical box.
//!
//! Catala lays values out with OCaml's `Format` at margin 78: a value is a vertical box whose
//! lines are indented by hand (+2 per nesting level), and a result line `x = v` is a
//! horizontal-or-vertical box that puts the value on the next line (indented by 2) when the
//! value, printed flat, does not fit. [`ValuePrinter::result_lines`] reproduces that layout; widths are
//! counted as `Format` counts them (bytes of names, one column for `€` and `…`).

use super::date::Duration;
use super::number::{Decimal, Integer};
use super::value::{TypeNames, Value};
use catala_syntax::ast::Language;

/// `Format`'s default margin, used by Catala when the output is not a terminal.
pub const MARGIN: usize = 78;

/// How values are printed: the language and the names of user types.
#[derive(Clone, Copy)]
pub struct ValuePrinter<'a> {
    pub language: Language,
    pub names: &'a dyn TypeNames,
}

fn thousands_separator(language: Language) -> &'static str {
    match language {
        Language::Fr => " ",
        Language::En | Language::Pl => ",",
    }
}

fn decimal_separator(language: Language) -> &'static str {
    match language {
        Language::Fr => ",",
        Language::En | Language::Pl => ".",
    }
}

/// An integer with thousands separators (`-1,234,567`).
pub(crate) fn format_integer(i: &Integer, language: Language) -> String {
    let digits = i.abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if i.signum() < 0 {
        out.push('-');
    }
    push_grouped(&mut out, &digits, thousands_separator(language));
    out
}

fn push_grouped(out: &mut String, digits: &str, sep: &str) {
    let first = match digits.len() % 3 {
        0 => 3.min(digits.len()),
        r => r,
    };
    out.push_str(&digits[..first]);
    let mut rest = &digits[first..];
    while !rest.is_empty() {
        out.push_str(sep);
        out.push_str(&rest[..3]);
        rest = &rest[3..];
    }
}

/// Money from cents: `$1,000.00`, `-$0.01`, `1 000,00 €`, `-0,01 €`.
pub(crate) fn format_money(cents: &Integer, language: Language) -> String {
    let abs = cents.abs();
    let (units, rest) = abs.div_rem(&Integer::from(100));
    let mut out = String::new();
    if cents.signum() < 0 {
        out.push('-');
    }
    if matches!(language, Language::En) {
        out.push('$');
    }
    out.push_str(&format_integer(&units, language));
    out.push_str(decimal_separator(language));
    out.push_str(&format!("{:02}", rest.to_i64().unwrap_or(0)));
    match language {
        Language::En => {}
        Language::Fr => out.push_str(" €"),
        Language::Pl => out.push_str(" PLN"),
    }
    out
}

/// Maximum number of fractional digits printed for a decimal.
pub(crate) const DECIMAL_DIGITS: usize = 6;

/// A decimal: integer part with separators, at least one fractional digit, at most six
/// (grouped by three), truncated and followed by `…` when digits remain.
pub(crate) fn format_decimal(d: &Decimal, language: Language) -> String {
    let (num, den) = d.numer_denom();
    let (int_part, mut rem) = num.abs().div_rem(&den);
    let mut out = String::new();
    if d.signum() < 0 {
        out.push('-');
    }
    out.push_str(&format_integer(&int_part, language));
    let ten = Integer::from(10);
    let mut ndigit = 0;
    loop {
        let (digit, r) = rem.mul(&ten).div_rem(&den);
        rem = r;
        if ndigit % 3 == 0 {
            out.push_str(if ndigit == 0 {
                decimal_separator(language)
            } else {
                thousands_separator(language)
            });
        }
        out.push_str(&digit.to_string());
        if rem.is_zero() {
            break;
        }
        if ndigit + 1 >= DECIMAL_DIGITS {
            out.push('…');
            break;
        }
        ndigit += 1;
    }
    out
}

/// `[1 year, 2 months]`: zero components dropped (a zero duration prints as `[0 day]`).
pub(crate) fn format_duration(d: Duration, language: Language) -> String {
    let plural = |n: i64, s: &str| {
        if n.unsigned_abs() > 1 {
            format!("{n} {s}s")
        } else {
            format!("{n} {s}")
        }
    };
    let parts = match language {
        Language::En => [
            (d.years, plural(d.years, "year")),
            (d.months, plural(d.months, "month")),
            (d.days, plural(d.days, "day")),
        ],
        Language::Fr => [
            (d.years, plural(d.years, "an")),
            (d.months, format!("{} mois", d.months)),
            (d.days, plural(d.days, "jour")),
        ],
        Language::Pl => [
            (d.years, format!("{} rok", d.years)),
            (d.months, format!("{} miesiac", d.months)),
            (d.days, format!("{} dzien", d.days)),
        ],
    };
    // Leading zero components are skipped (keeping the last one), later zeros are dropped.
    let mut kept: Vec<&str> = Vec::new();
    let mut started = false;
    for (i, (n, text)) in parts.iter().enumerate() {
        if !started {
            if *n == 0 && i < parts.len() - 1 {
                continue;
            }
            started = true;
            kept.push(text);
        } else if *n != 0 {
            kept.push(text);
        }
    }
    format!("[{}]", kept.join(", "))
}

pub(crate) fn format_bool(b: bool, language: Language) -> &'static str {
    match (language, b) {
        (Language::En, true) => "true",
        (Language::En, false) => "false",
        (Language::Fr, true) => "vrai",
        (Language::Fr, false) => "faux",
        (Language::Pl, true) => "prawda",
        (Language::Pl, false) => "falsz",
    }
}

/// Columns `Format` counts for a string printed with `%s`: its bytes, except for the `€` and
/// `…` that Catala prints with an explicit width of one.
pub(crate) fn format_width(s: &str) -> usize {
    let specials = s.matches(['€', '…']).count();
    s.len() - specials * 2
}

impl ValuePrinter<'_> {
    /// The value laid out as Catala does, the first line starting at the box's column: the
    /// returned lines after the first must be prefixed by that column's indentation.
    pub fn lines(&self, v: &Value) -> Vec<String> {
        let mut lines = vec![String::new()];
        self.layout(v, 0, &mut lines);
        lines
    }

    /// The value on one line, as in the flat rendering of `Format` (used for assertion
    /// messages and width computations; cuts vanish, the manual indentation stays).
    pub fn flat(&self, v: &Value) -> String {
        self.lines(v).concat()
    }

    fn layout(&self, v: &Value, indent: usize, lines: &mut Vec<String>) {
        let lang = self.language;
        let newline = |lines: &mut Vec<String>, n: usize| lines.push(" ".repeat(indent + n));
        match v {
            Value::Unit => push(lines, "()"),
            Value::Bool(b) => push(lines, format_bool(*b, lang)),
            Value::Integer(i) => push(lines, &format_integer(i, lang)),
            Value::Decimal(d) => push(lines, &format_decimal(d, lang)),
            Value::Money(m) => push(lines, &format_money(m, lang)),
            Value::Date(d) => push(lines, &format!("|{d}|")),
            Value::Duration(d) => push(lines, &format_duration(*d, lang)),
            Value::Closure(_) => push(lines, "<function>"),
            Value::Enum(e) => {
                push(lines, self.names.case_name(e.enum_id, e.case as usize));
                if self.names.case_has_payload(e.enum_id, e.case as usize) {
                    push(
                        lines,
                        match lang {
                            Language::En => " content ",
                            Language::Fr => " contenu ",
                            Language::Pl => " typu ",
                        },
                    );
                    self.layout(&e.payload, indent + 2, lines);
                }
            }
            Value::Struct(s) => {
                push(lines, self.names.struct_name(s.struct_id));
                push(lines, " {");
                for (i, field) in s.fields.iter().enumerate() {
                    newline(lines, 2);
                    push(lines, "-- ");
                    push(lines, self.names.field_name(s.struct_id, i));
                    push(lines, ": ");
                    self.layout(field, indent + 2, lines);
                }
                if !s.fields.is_empty() {
                    newline(lines, 0);
                }
                push(lines, "}");
            }
            Value::List(items) => {
                push(lines, "[");
                for item in items.iter() {
                    newline(lines, 2);
                    self.layout(item, indent + 2, lines);
                    push(lines, ";");
                }
                if !items.is_empty() {
                    newline(lines, 0);
                }
                push(lines, "]");
            }
            Value::Tuple(items) => {
                push(lines, "(");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        push(lines, ", ");
                    }
                    self.layout(item, indent + 1, lines);
                }
                push(lines, ")");
            }
        }
    }

    /// The lines of one result of `catala interpret`, each starting with `│`: `│ x = v` when the
    /// flat value fits in the margin, otherwise `│ x =` and the value on the following lines,
    /// indented by two more columns.
    pub fn result_lines(&self, name: &str, v: &Value) -> Vec<String> {
        let value_lines = self.lines(v);
        let flat_width: usize = value_lines.iter().map(|l| format_width(l)).sum();
        let name_width = name.chars().count();
        // "│ " + name + " =" then a break of width 1.
        let after_equals = 2 + name_width + 2;
        let (mut out, box_column) = if after_equals + 1 + flat_width < MARGIN {
            (vec![format!("│ {name} = ")], after_equals + 1)
        } else {
            (vec![format!("│ {name} ="), "│   ".to_string()], 4)
        };
        let continuation = format!("│{}", " ".repeat(box_column - 1));
        for (i, line) in value_lines.into_iter().enumerate() {
            if i == 0 {
                if let Some(last) = out.last_mut() {
                    last.push_str(&line);
                }
            } else {
                out.push(format!("{continuation}{line}"));
            }
        }
        out
    }
}

fn push(lines: &mut [String], s: &str) {
    if let Some(last) = lines.last_mut() {
        last.push_str(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Names;
    impl TypeNames for Names {
        fn struct_name(&self, id: u32) -> &str {
            ["S", "NombreDeParts", "S"][id as usize]
        }
        fn field_name(&self, id: u32, field: usize) -> &str {
            match id {
                0 => ["x", "y"][field],
                1 => ["nombre_de_parts", "abattement"][field],
                _ => ["ci", "cm", "cfun1", "cfun2"][field],
            }
        }
        fn enum_name(&self, _: u32) -> &str {
            "E"
        }
        fn case_name(&self, _: u32, case: usize) -> &str {
            ["A", "B"][case]
        }
        fn case_has_payload(&self, _: u32, case: usize) -> bool {
            case == 0
        }
    }

    fn dec(s: &str) -> Decimal {
        Decimal::parse(s).unwrap_or_else(|| panic!("bad literal {s}"))
    }

    #[test]
    fn numbers_per_language() {
        assert_eq!(format_integer(&Integer::from(2023), Language::En), "2,023");
        assert_eq!(format_integer(&Integer::from(2023), Language::Fr), "2 023");
        assert_eq!(
            format_integer(&Integer::from(-1_000_000), Language::En),
            "-1,000,000"
        );
        assert_eq!(format_integer(&Integer::from(999), Language::En), "999");
        assert_eq!(
            format_money(&Integer::from(100_000), Language::En),
            "$1,000.00"
        );
        assert_eq!(
            format_money(&Integer::from(100_000), Language::Fr),
            "1 000,00 €"
        );
        assert_eq!(format_money(&Integer::from(-1), Language::En), "-$0.01");
        assert_eq!(format_money(&Integer::from(-30), Language::Fr), "-0,30 €");
        assert_eq!(
            format_money(&Integer::from(34573), Language::Fr),
            "345,73 €"
        );
    }

    #[test]
    fn decimals_are_truncated_to_six_digits() {
        assert_eq!(format_decimal(&dec("12"), Language::En), "12.0");
        assert_eq!(format_decimal(&dec("3"), Language::Fr), "3,0");
        assert_eq!(
            format_decimal(&dec("84.648665"), Language::En),
            "84.648,665"
        );
        assert_eq!(
            format_decimal(&Decimal::from_ratio(&1.into(), &3.into()), Language::En),
            "0.333,333…"
        );
        assert_eq!(
            format_decimal(&Decimal::from_ratio(&2.into(), &3.into()), Language::Fr),
            "0,666 666…"
        );
        assert_eq!(format_decimal(&dec("-0.5"), Language::En), "-0.5");
        assert_eq!(
            format_decimal(&dec("1234.0000005"), Language::En),
            "1,234.000,000…"
        );
    }

    #[test]
    fn durations_drop_zero_components() {
        let p = |y, m, d| format_duration(Duration::new(y, m, d), Language::En);
        assert_eq!(p(1, 2, 0), "[1 year, 2 months]");
        assert_eq!(p(0, 0, 5937), "[5937 days]");
        assert_eq!(p(1, 13, -365), "[1 year, 13 months, -365 days]");
        assert_eq!(p(0, 0, 0), "[0 day]");
        assert_eq!(p(2, 0, 1), "[2 years, 1 day]");
        assert_eq!(
            format_duration(Duration::new(2, 3, 1), Language::Fr),
            "[2 ans, 3 mois, 1 jour]"
        );
    }

    #[test]
    fn struct_result_on_the_same_line() {
        // catala-tests/impot_revenu expected output (FR).
        let printer = ValuePrinter {
            language: Language::Fr,
            names: &Names,
        };
        let v = Value::new_struct(1, vec![Value::Decimal(dec("3")), Value::money_cents(0)]);
        assert_eq!(
            printer.result_lines("sortie", &v),
            vec![
                "│ sortie = NombreDeParts {",
                "│            -- nombre_de_parts: 3,0",
                "│            -- abattement: 0,00 €",
                "│          }",
            ]
        );
    }

    #[test]
    fn struct_result_breaks_when_too_wide() {
        // catala-tests/modules/good/mod_def_context.catala_en: the flat value would end at
        // column 78, so it goes on the next line.
        let printer = ValuePrinter {
            language: Language::En,
            names: &Names,
        };
        let closure = Value::Closure(std::rc::Rc::new(()));
        let v = Value::new_struct(
            2,
            vec![
                Value::integer(0),
                Value::money_cents(0),
                closure.clone(),
                closure,
            ],
        );
        assert_eq!(
            printer.result_lines("o1", &v),
            vec![
                "│ o1 =",
                "│   S {",
                "│     -- ci: 0",
                "│     -- cm: $0.00",
                "│     -- cfun1: <function>",
                "│     -- cfun2: <function>",
                "│   }",
            ]
        );
    }

    #[test]
    fn enums_and_lists() {
        let printer = ValuePrinter {
            language: Language::Fr,
            names: &Names,
        };
        let v = Value::new_enum(0, 0, Value::integer(2000));
        assert_eq!(printer.flat(&v), "A contenu 2 000");
        let b = Value::new_enum(0, 1, Value::Unit);
        assert_eq!(printer.flat(&b), "B");
        let l = Value::List(vec![Value::Bool(true), Value::Bool(false)].into());
        assert_eq!(printer.lines(&l), vec!["[", "  vrai;", "  faux;", "]"]);
        assert_eq!(printer.flat(&Value::List(Vec::new().into())), "[]");
    }
}
