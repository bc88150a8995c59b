//! The standard library end to end: the fixtures of `tests/fixtures/stdlib` (written for this
//! project, English and French) call the functions of every standard-library module without any
//! `Using` line, and each result is checked against a value worked out by hand from the
//! function's documented behaviour (calendar rules, rounding directions, the cutting of
//! periods). Values are compared in their printed form, whitespace collapsed.

use catala_eval::{run_scope, RuntimeError, RuntimeErrorKind, ValuePrinter};
use catala_ir::dcalc::Program;
use catala_syntax::{LoadOptions, SourceMap};
use std::path::PathBuf;

fn load(name: &str) -> Program {
    load_with_sources(name).1
}

fn load_with_sources(name: &str) -> (SourceMap, Program) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/stdlib")
        .join(name);
    let options = LoadOptions::for_file(&path, &[])
        .unwrap_or_else(|d| panic!("{name}: no load options: {}", d.message));
    let (sources, parsed) = catala_syntax::parse_file_with_options(&path, &options);
    let ast = parsed.unwrap_or_else(|d| panic!("{name} does not parse: {}", d.message));
    let program = catala_ir::compile(&sources, &ast).unwrap_or_else(|ds| {
        panic!(
            "{name} does not compile: {:?}",
            ds.iter().map(|d| d.message.clone()).collect::<Vec<_>>()
        )
    });
    (sources, program)
}

/// `file:line.col-col` of the first position of an error.
fn first_position(sources: &SourceMap, e: &RuntimeError) -> String {
    let label = e.labels.first().expect("the error has a position");
    let p = sources.position(label.span);
    let file = &sources.file(label.span.file).display_name;
    let file = file.rsplit('/').next().unwrap_or(file);
    format!("{file}:{}.{}-{}", p.start_line, p.start_col, p.end_col)
}

fn run(program: &Program, scope: &str) -> Result<Vec<String>, RuntimeError> {
    let id = program
        .scope_by_name(scope)
        .unwrap_or_else(|| panic!("no scope {scope}"));
    let n = program.scope(id).inputs.len();
    let result = run_scope(program, id, vec![None; n])?;
    let printer = ValuePrinter {
        language: program.scope(id).language,
        names: program,
    };
    Ok(result
        .outputs
        .iter()
        .map(|(name, v)| {
            let text = printer.lines(v).join(" ");
            format!(
                "{name} = {}",
                text.split_whitespace().collect::<Vec<_>>().join(" ")
            )
        })
        .collect())
}

/// Runs `scope` and compares its outputs with `expected` (one `name = value` per output).
fn check(program: &Program, scope: &str, expected: &[&str]) {
    let got = run(program, scope).unwrap_or_else(|e| panic!("{scope} failed: {e}"));
    assert_eq!(got, expected, "outputs of {scope}");
}

/// As [`check`] for a French scope, the present optional values written `Present contenu v`
/// whichever spelling of the constructor the printer uses.
fn check_fr(program: &Program, scope: &str, expected: &[&str]) {
    let got: Vec<String> = run(program, scope)
        .unwrap_or_else(|e| panic!("{scope} failed: {e}"))
        .into_iter()
        .map(|line| line.replace("Présent contenu", "Present contenu"))
        .collect();
    assert_eq!(got, expected, "outputs of {scope}");
}

fn period(begin: &str, end: &str) -> String {
    format!("Period {{ -- begin: |{begin}| -- end: |{end}| }}")
}

fn periode(debut: &str, fin: &str) -> String {
    format!("Période {{ -- début: |{debut}| -- fin: |{fin}| }}")
}

#[test]
fn calendar_days_months_and_years() {
    let p = load("dates.catala_en");
    check(
        &p,
        "Calendar",
        &[
            // 1900 is divisible by 100 but not by 400: not a leap year.
            "feb_1900 = |1900-02-28|",
            // 2000 is divisible by 400: a leap year.
            "feb_2000 = |2000-02-29|",
            "feb_2023 = |2023-02-28|",
            "feb_2024 = |2024-02-29|",
            "year_start = |2024-01-01|",
            "year_end = |2024-12-31|",
            "month_start = |2024-07-01|",
            "parts = (2,024, 7, 14)",
            "the_year = 1,999",
            "the_month = 12",
            "the_day = 31",
            "built = |2024-02-29|",
            "earlier = |2024-02-29|",
            "later = |2024-03-01|",
        ],
    );
}

#[test]
fn additions_with_an_explicit_rounding() {
    let p = load("dates.catala_en");
    check(
        &p,
        "Rounding",
        &[
            // 2023-02-31 does not exist: down is the last day of February, up the 1st of March.
            "down_jan_31 = |2023-02-28|",
            "up_jan_31 = |2023-03-01|",
            // In 2024 February has 29 days.
            "down_leap = |2024-02-29|",
            "up_leap = |2024-03-01|",
            // Two months after 2023-12-31 is 2024-02-31, across the year.
            "down_past_year = |2024-02-29|",
            "up_past_year = |2024-03-01|",
            // One month before 2024-03-31 is 2024-02-31.
            "sub_down = |2024-02-29|",
            "sub_up = |2024-03-01|",
            // Months first, one rounding, then the day: 02-29 + 1 day, 03-01 + 1 day.
            "down_then_days = |2024-03-01|",
            "up_then_days = |2024-03-02|",
        ],
    );
}

#[test]
fn ages_of_someone_born_on_a_leap_day() {
    let p = load("dates.catala_en");
    check(
        &p,
        "Ages",
        &[
            // Born 2004-02-29, 18 years later is 2022-02-29, which does not exist: rounded down
            // the birthday is 2022-02-28 (reached on that day), rounded up 2022-03-01 (not yet).
            "old_down = true",
            "old_up = false",
            "young_down = false",
            "young_up = true",
            "old_up_next_day = true",
            // Born 2004-03-15: 18 on 2022-03-15, so still 17 on 2022-03-14.
            "young_day_before = true",
        ],
    );
}

#[test]
fn days_of_the_week_and_named_months() {
    let p = load("dates.catala_en");
    check(
        &p,
        "Weekdays",
        &[
            "new_year_2000 = Saturday",
            // The first Moon landing, 1969-07-20, was a Sunday (before 1970: negative day
            // numbers).
            "moon_landing = Sunday",
            "new_year_1900 = Monday",
            "leap_day = Thursday",
            "months = [ 3; 12; ]",
            "september = September",
        ],
    );
}

#[test]
fn months_of_a_year() {
    let p = load("dates.catala_en");
    check(
        &p,
        "Months",
        &[
            "leap_february = MonthYear { -- year_number: 2,024 -- month_name: February }",
            "first = |2024-02-01|",
            "last = |2024-02-29|",
            "after = true",
            "not_after = false",
            "before_or_during = true",
            "during_or_after = true",
            "not_during_or_after = false",
        ],
    );
}

#[test]
fn a_day_or_month_that_does_not_exist_is_a_runtime_error() {
    let (sources, p) = load_with_sources("dates.catala_en");
    // Reported at the user's call (the function's name), not inside the standard library.
    let e = run(&p, "NoSuchDay").expect_err("2023-02-29 does not exist");
    assert_eq!(e.kind, RuntimeErrorKind::External);
    assert_eq!(e.message, "|2023-02-29| is not a valid date.");
    assert_eq!(first_position(&sources, &e), "dates.catala_en:132.23-45");
    let e = run(&p, "NoSuchMonth").expect_err("there is no 13th month");
    assert_eq!(e.kind, RuntimeErrorKind::External);
    assert!(
        e.message.contains("13 is not a valid month number"),
        "{}",
        e.message
    );
    assert_eq!(first_position(&sources, &e), "dates.catala_en:138.23-44");
}

#[test]
fn money_roundings_go_to_whole_units() {
    let p = load("numbers.catala_en");
    check(
        &p,
        "MoneyRounding",
        &[
            // Up: $2.01 -> $3; a whole amount stays; -$2.70 -> -$2; -$0.40 -> $0.
            "excess = [ $3.00; $2.00; -$2.00; $0.00; -$3.00; ]",
            // Down: $2.99 -> $2; -$2.10 -> -$3; -$2.00 stays; $0.40 -> $0.
            "default = [ $2.00; -$3.00; -$2.00; $0.00; ]",
            // Toward zero.
            "truncated = [ -$2.00; $2.00; $0.00; ]",
            // Halves away from zero: -$2.45 -> -$2.50; $2.44 -> $2.40; $1,250 -> $1,300;
            // $1,249.99 -> $1,200; -$1,250 -> -$1,300; $0.50 -> $1; 5 digits keep the cents;
            // -$0.05 -> -$0.10.
            "to_decimal = [ -$2.50; $2.40; $1,300.00; $1,200.00; -$1,300.00; $1.00; $12.34; \
             -$0.10; ]",
        ],
    );
    check(
        &p,
        "MoneyBounds",
        &[
            "over = $70.00",
            "not_over = $0.00",
            "short = $70.00",
            "not_short = $0.00",
            "positive = $0.00",
            "total = $3.00",
            "empty_total = $0.00",
            // `ceiling` caps from above, `floor` from below.
            "capped = $40.00",
            "raised = $60.00",
            "smaller = -$60.00",
            "larger = $50.00",
        ],
    );
}

#[test]
fn decimal_integer_and_duration_helpers() {
    let p = load("numbers.catala_en");
    check(
        &p,
        "Decimals",
        &[
            // 2.345 -> 2.35 and -2.35 (half away from zero); 1/3 -> 0.3333 (printed with
            // grouped fractional digits); 1250 to hundreds -> 1300; -0.5 -> -1; 0.0449 -> 0.04.
            "to_decimal = [ 2.35; -2.35; 0.333,3; 1,300.0; -1.0; 0.04; ]",
            "truncated = -7.0",
            "excess = [ -7.0; 8.0; 7.0; ]",
            "default = [ -8.0; 7.0; -7.0; ]",
            // Decimals are exact: 0.1 + 0.2 is exactly 0.3.
            "total = 0.3",
            "positive = 0.0",
            "capped = 1.5",
            "raised = 3.5",
        ],
    );
    check(
        &p,
        "Integers",
        &[
            "smaller = -4",
            "larger = 3",
            "capped = 7",
            "raised = 12",
            "positive = 0",
            "total = -4",
        ],
    );
    check(
        &p,
        "Durations",
        &[
            "months = [3 months]",
            "days = [15 days]",
            "nothing = [0 day]",
            "negative = [0 day]",
            // `2 month > 0 day` compares by months (the zero has no days): kept.
            "kept = [2 months]",
        ],
    );
}

#[test]
fn periods_are_cut_by_month_and_by_year() {
    let p = load("periods.catala_en");
    let by_month = [
        period("2024-01-15", "2024-01-31"),
        period("2024-02-01", "2024-02-29"),
        period("2024-03-01", "2024-03-10"),
    ];
    // Years starting in April: 2023-02-10 is in the year that began on 2022-04-01.
    let by_year = [
        period("2023-02-10", "2023-03-31"),
        period("2023-04-01", "2024-03-31"),
        period("2024-04-01", "2024-05-20"),
    ];
    check(
        &p,
        "Splitting",
        &[
            &format!("by_month = [ {}; ]", by_month.join("; ")),
            &format!("by_year = [ {}; ]", by_year.join("; ")),
            // A single day gives no part, and a period ending on the 1st of a month is not
            // cut before that day (Catala's behaviour).
            "one_day = []",
            &format!(
                "to_first_of_month = [ {}; ]",
                period("2024-01-15", "2024-02-01")
            ),
            "reversed = []",
        ],
    );
}

#[test]
fn relations_between_periods() {
    let p = load("periods.catala_en");
    check(
        &p,
        "Relations",
        &[
            &format!(
                "common = Present content {}",
                period("2024-01-15", "2024-01-31")
            ),
            "disjoint = Absent",
            "overlapping = true",
            "not_overlapping = false",
            "adjacent = true",
            "not_adjacent = false",
            "covering = true",
            "not_covering = false",
            &format!("joined = {}", period("2024-01-01", "2024-03-05")),
            "february_days = [29 days]",
            "leap_year_days = [366 days]",
            &format!("february = {}", period("2024-02-01", "2024-02-29")),
            &format!("year_2023 = {}", period("2023-01-01", "2023-12-31")),
            "valid = true",
            "invalid = false",
            "contained = true",
            "before = true",
            "after = false",
        ],
    );
    check(
        &p,
        "Finding",
        &[
            // Both periods contain 2024-01-20: the first one in the list is found.
            &format!(
                "in_both = Present content {}",
                period("2024-01-01", "2024-01-31")
            ),
            &format!(
                "in_second = Present content {}",
                period("2024-01-15", "2024-02-15")
            ),
            "in_none = Absent",
        ],
    );
}

#[test]
fn french_names_have_the_same_meaning() {
    let p = load("francais.catala_fr");
    check(
        &p,
        "Dates",
        &[
            "année = 2 024",
            "le_mois = 7",
            "le_jour = 14",
            "début_mois = |2024-07-01|",
            // 2100 is not a leap year.
            "fin_février = |2100-02-28|",
            "début_année = |2024-01-01|",
            "fin_année = |2024-12-31|",
            // 2023-04-31 does not exist.
            "arrondi_inf = |2023-04-30|",
            "arrondi_sup = |2023-05-01|",
            // 2023-02-29 does not exist.
            "retrait_inf = |2023-02-28|",
            "retrait_sup = |2023-03-01|",
            "majeur = vrai",
            "mineur = vrai",
            // 1789-07-14 was a Tuesday.
            "jour_semaine = Mardi",
            "numéro_mois = 8",
            "nom_mois = Mai",
            "mois_année = MoisAnnée { -- nom_mois: Février -- année: 2 024 }",
            "dans_le_mois = vrai",
            "avant_le_mois = vrai",
        ],
    );
    check(
        &p,
        "Nombres",
        &[
            "excès = -1,00 €",
            "défaut = -2,00 €",
            "tronqué = 1,00 €",
            "à_la_décimale = 1 230,00 €",
            "total = 3,50 €",
            "en_plus = 20,00 €",
            "en_moins = 0,00 €",
            "somme_décimale = 0,75",
            "décimal_excès = 1,0",
            // 0.125 is a half: away from zero.
            "décimal_arrondi = 0,13",
            "somme_entière = 9",
            "somme_durées = [1 an, 6 mois]",
            "plafonné = 3",
        ],
    );
    check_fr(
        &p,
        "Périodes",
        &[
            &format!(
                "parties = [ {}; {}; ]",
                periode("2023-12-20", "2023-12-31"),
                periode("2024-01-01", "2024-01-05")
            ),
            &format!(
                "parties_annuelles = [ {}; {}; ]",
                periode("2023-06-01", "2023-06-30"),
                periode("2023-07-01", "2023-08-31")
            ),
            &format!(
                "commun = Present contenu {}",
                periode("2024-06-01", "2024-06-30")
            ),
            "contenue = faux",
            "durée_p = [28 jours]",
            &format!("réunion = {}", periode("2023-12-01", "2024-01-31")),
            &format!(
                "trouvée = Present contenu {}",
                periode("2024-01-01", "2024-01-31")
            ),
            &format!("mois_entier = {}", periode("2023-02-01", "2023-02-28")),
        ],
    );
}

#[test]
fn polymorphic_list_functions() {
    let p = load("lists.catala_en");
    check(
        &p,
        "Lists",
        &[
            // From 2 included to 5 excluded.
            "counting = [ 2; 3; 4; ]",
            "backwards = []",
            "third = Present content 30",
            "fourth = Absent",
            "before_first = Absent",
            "first_of_empty = Absent",
            "last = Present content $2.00",
            "without_first = [ 2; 3; ]",
            "without_last = [ 1; 2; ]",
            "without_second = [ 1; 3; ]",
            "without_tenth = [ 1; 2; 3; ]",
            "empty_without_first = []",
            "reversed = [ 3; 2; 1; ]",
            "reversed_pairs = [ (2, false); (1, true); ]",
        ],
    );
    // By first day; the two periods starting on 2024-03-01 keep their order (1 before 3).
    check(
        &p,
        "Sorting",
        &[&format!(
            "sorted = [ ({}, 4); ({}, 2); ({}, 1); ({}, 3); ]",
            period("2023-12-01", "2024-12-31"),
            period("2024-01-01", "2024-01-31"),
            period("2024-03-01", "2024-03-31"),
            period("2024-03-01", "2024-03-02"),
        )],
    );
}

#[test]
fn polymorphic_list_functions_in_french() {
    let p = load("listes.catala_fr");
    check_fr(
        &p,
        "Listes",
        &[
            "suite = [ 0; 1; 2; ]",
            "premier = Present contenu 5,00 €",
            "dernier = Absent",
            "deuxième = Present contenu 8",
            "sans_deuxième = [ 7; 9; ]",
            "sans_premier = [ 8; 9; ]",
            "sans_dernier = [ 7; 8; ]",
            "inversée = [ 9; 8; 7; ]",
            &format!(
                "triée = [ ({}, 2,5); ({}, 1,5); ]",
                periode("2024-01-01", "2024-01-31"),
                periode("2024-02-01", "2024-02-29")
            ),
        ],
    );
}
