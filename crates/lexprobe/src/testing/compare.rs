//! When lexprobe's output matches a block's expected output: the RESULT boxes identical line
//! for line; the same exit code; for errors, the same kind at the same first position and,
//! where the block shows one, the same message — and for evaluation errors every position
//! (a conflict names all the rules that applied), for failed assertions every message. With
//! `-F json`, the JSON lines identical.

use super::output::{same_position, ErrorOutput, ParsedOutput};

/// What a block's output is compared on, besides the exit code and the errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compared {
    /// The RESULT boxes, line for line (`interpret`).
    Results,
    /// The RESULT boxes and the JSON lines (`interpret -F json`).
    ResultsAndJson,
    /// Nothing more: `typecheck` compares success or failure (Catala prints extra boxes for
    /// the invariant checks lexprobe does not have).
    Outcome,
}

/// Compares an expected output with lexprobe's; `Err` says briefly how they differ.
pub fn compare(
    expected: &ParsedOutput,
    actual: &ParsedOutput,
    compared: Compared,
) -> Result<(), String> {
    if expected.code != actual.code {
        let what = |p: &ParsedOutput| match p.errors.first() {
            Some(e) if p.code != 0 => {
                let short: String = e.message.chars().take(90).collect();
                format!("exit code {} ({}: {short})", p.code, e.kind)
            }
            _ => format!("exit code {}", p.code),
        };
        return Err(format!("expected {}, got {}", what(expected), what(actual)));
    }
    match (expected.errors.first(), actual.errors.first()) {
        (Some(e), Some(a)) => compare_errors(e, a, expected, actual)?,
        (Some(e), None) => return Err(format!("expected a {} error, got none", e.kind)),
        (None, Some(a)) => return Err(format!("unexpected {} error: {}", a.kind, a.message)),
        (None, None) => {}
    }
    if compared != Compared::Outcome && expected.results != actual.results {
        let first_difference = expected
            .results
            .iter()
            .zip(&actual.results)
            .find(|(e, a)| e != a)
            .map(|(e, a)| format!("expected `{e}`, got `{a}`"))
            .unwrap_or_else(|| {
                format!(
                    "expected {} result lines, got {}",
                    expected.results.len(),
                    actual.results.len()
                )
            });
        return Err(format!("results differ: {first_difference}"));
    }
    if compared == Compared::ResultsAndJson && expected.other != actual.other {
        return Err(format!(
            "JSON differs: expected `{}`, got `{}`",
            expected.other.join(" "),
            actual.other.join(" ")
        ));
    }
    Ok(())
}

fn compare_errors(
    e: &ErrorOutput,
    a: &ErrorOutput,
    expected: &ParsedOutput,
    actual: &ParsedOutput,
) -> Result<(), String> {
    if e.kind != a.kind {
        return Err(format!(
            "expected a {} error, got a {} error",
            e.kind, a.kind
        ));
    }
    match (e.positions.first(), a.positions.first()) {
        (Some(ep), Some(ap)) if !same_position(ep, ap) => {
            return Err(format!("{} error at {ap}, expected at {ep}", e.kind))
        }
        (Some(ep), None) => {
            return Err(format!("{} error without position, expected {ep}", e.kind))
        }
        _ => {}
    }
    if !e.message.is_empty() && e.message != a.message {
        return Err(format!(
            "message differs: expected \"{}\", got \"{}\"",
            e.message, a.message
        ));
    }
    let evaluation = !matches!(e.kind, "compile" | "assertion");
    if evaluation
        && (e.positions.len() != a.positions.len()
            || e.positions
                .iter()
                .zip(&a.positions)
                .any(|(x, y)| !same_position(x, y)))
    {
        return Err(format!(
            "{} error positions differ: expected {}, got {}",
            e.kind,
            e.positions.join(", "),
            a.positions.join(", ")
        ));
    }
    if e.kind == "assertion" {
        let messages = |p: &ParsedOutput| -> Vec<String> {
            p.errors
                .iter()
                .filter(|x| x.kind == "assertion")
                .map(|x| x.message.clone())
                .collect()
        };
        let (em, am) = (messages(expected), messages(actual));
        if em != am {
            return Err(format!(
                "failed assertions differ: expected {em:?}, got {am:?}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::output::parse;
    use super::*;

    fn out(text: &str, code: i32) -> ParsedOutput {
        parse(&text.lines().collect::<Vec<_>>(), code)
    }

    const CONFLICT: &str = "┌─[ERROR]─\n│  During evaluation: conflict between multiple valid consequences for assigning the same variable.\n├─➤ t/a.catala_en:3.5-6:\n├─➤ t/a.catala_en:4.5-6:\n└─";

    #[test]
    fn identical_results_match_and_others_do_not() {
        let e = out("┌─[RESULT]─ A ─\n│ x = 1\n└─", 0);
        assert_eq!(compare(&e, &e, Compared::Results), Ok(()));
        let a = out("┌─[RESULT]─ A ─\n│ x = 2\n└─", 0);
        let why = compare(&e, &a, Compared::Results).unwrap_err();
        assert!(why.contains("`│ x = 1`, got `│ x = 2`"), "{why}");
    }

    #[test]
    fn errors_compare_kind_positions_and_code() {
        let e = out(&format!("{CONFLICT}\n#return code 123#"), 0);
        assert_eq!(compare(&e, &out(CONFLICT, 123), Compared::Results), Ok(()));
        let why = compare(&e, &out(CONFLICT, 0), Compared::Results).unwrap_err();
        assert!(why.starts_with("expected exit code 123"), "{why}");
        let moved = CONFLICT.replace("4.5-6", "5.5-6");
        let why = compare(&e, &out(&moved, 123), Compared::Results).unwrap_err();
        assert!(why.contains("positions differ"), "{why}");
    }
}
