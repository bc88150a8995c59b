//! When lexprobe's output matches a block's expected output: the RESULT boxes identical line
//! for line; the same exit code; for errors, the same kind at the same first position and,
//! where the block shows one, the same message — and for evaluation errors every position
//! (a conflict names all the rules that applied), for failed assertions every message. With
//! `-F json`, the JSON lines identical.

use super::output::{same_position, ErrorOutput, ParsedOutput};

/// What a block's output is compared on, besides the exit code and the errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compared {
    /// The RESULT boxes, line for line (`interpret`).
    Results,
    /// The RESULT boxes and the JSON lines (`interpret -F json`).
    ResultsAndJson,
    /// Nothing more: `typecheck` compares success or failure (Catala prints extra boxes for
    /// the invariant checks lexprobe does not have).
    Outcome,
}

/// Compares an expected output with lexprobe's; `Err` says briefly how they differ.
pub(crate) fn compare(
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

/// `message` with the folder of the actual file written as the expected output writes it: a
/// message naming files (`… the file name "tests/modules/bad/m.catala_en"`) names them from
/// where Catala's tests run (the repository root), lexprobe from where it was given the file.
/// The two folders are told by the first positions, `expected` and `actual`, of one file.
fn with_expected_paths(message: &str, expected: &str, actual: &str) -> String {
    let file = |p: &str| {
        p.rsplit_once(':')
            .map_or(String::new(), |(f, _)| f.to_string())
    };
    let (ef, af) = (file(expected), file(actual));
    let (mut e_parts, mut a_parts): (Vec<&str>, Vec<&str>) =
        (ef.split('/').collect(), af.split('/').collect());
    let mut common = 0;
    while e_parts.len() > 1 && a_parts.len() > 1 && e_parts.last() == a_parts.last() {
        e_parts.pop();
        a_parts.pop();
        common += 1;
    }
    if common < 2 {
        return message.to_string();
    }
    let (e_dir, a_dir) = (
        format!("{}/", e_parts.join("/")),
        format!("{}/", a_parts.join("/")),
    );
    message.replace(&a_dir, &e_dir)
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
    let message = match (e.positions.first(), a.positions.first()) {
        (Some(ep), Some(ap)) => with_expected_paths(&a.message, ep, ap),
        _ => a.message.clone(),
    };
    if !e.message.is_empty() && e.message != message {
        return Err(format!(
            "message differs: expected \"{}\", got \"{}\"",
            e.message, message
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
    fn file_names_in_messages_are_compared_from_the_test_root() {
        let box_at = |file: &str, named: &str| {
            format!(
                "┌─[ERROR]─\n│  Module declared as X, which does not match the file name \"{named}\".\n├─➤ {file}:1.10-11:\n└─"
            )
        };
        let e = out(
            &box_at("tests/m/bad/a.catala_en", "tests/m/bad/a.catala_en"),
            123,
        );
        let a = out(
            &box_at(
                "/c/catala-tests/m/bad/a.catala_en",
                "/c/catala-tests/m/bad/a.catala_en",
            ),
            123,
        );
        assert_eq!(compare(&e, &a, Compared::Outcome), Ok(()));
        let relative = out(&box_at("m/bad/a.catala_en", "m/bad/a.catala_en"), 123);
        assert_eq!(compare(&e, &relative, Compared::Outcome), Ok(()));
        // Another file named in the message is still a difference.
        let other = out(
            &box_at(
                "/c/catala-tests/m/bad/a.catala_en",
                "/c/catala-tests/m/bad/b.catala_en",
            ),
            123,
        );
        assert!(compare(&e, &other, Compared::Outcome).is_err());
    }

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
