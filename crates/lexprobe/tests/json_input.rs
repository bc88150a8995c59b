//! `lexprobe run --input` and `--jsonl` read JSON numbers exactly: a decimal written `0.1` is
//! Catala's 1/10, an amount of money keeps every cent, an integer may have any size, and an
//! amount with digits below the cent is refused with the field named.

use serde_json::Value as Json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/json_input/exact.catala_en")
}

fn run(input: &str, json: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lexprobe"));
    command
        .arg("run")
        .arg(fixture())
        .args(["--scope", "Exact", "--input", input]);
    if json {
        command.args(["--format", "json"]);
    }
    command.output().expect("lexprobe starts")
}

#[test]
fn a_decimal_input_equals_the_decimal_written_in_the_program() {
    let out = run(
        r#"{"rate": 0.1, "amount": 12345678901234567.89, "count": 123456789012345678901234567890}"#,
        false,
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("rate_is_a_tenth = true"), "{stdout}");
    assert!(stdout.contains("sum_is_three_tenths = true"), "{stdout}");
    // $12,345,678,901,234,567.89 + $0.01, printed with Catala's thousands separators.
    assert!(
        stdout.contains("amount_plus_a_cent = $12,345,678,901,234,567.90"),
        "{stdout}"
    );
    // Integers are printed with Catala's thousands separators too.
    assert!(
        stdout.contains("count_plus_one = 123,456,789,012,345,678,901,234,567,891"),
        "{stdout}"
    );
}

#[test]
fn exponents_and_json_output() {
    let out = run(r#"{"rate": 1e-1, "amount": 2.5E2, "count": 1e3}"#, true);
    assert_eq!(out.status.code(), Some(0));
    let j: Json = serde_json::from_slice(&out.stdout).expect("JSON output");
    let text = j.to_string();
    assert!(text.contains(r#""rate_is_a_tenth":true"#), "{text}");
    // Money is written as a string with two decimals, integers as numeric strings.
    assert!(text.contains(r#""amount_plus_a_cent":"250.01""#), "{text}");
    assert!(text.contains(r#""count_plus_one":"1001""#), "{text}");
}

#[test]
fn money_below_the_cent_is_refused_naming_the_field() {
    let out = run(r#"{"rate": 0.1, "amount": 1.999, "count": 1}"#, false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(123), "{stderr}");
    assert!(stderr.contains("/amount"), "{stderr}");
    // (The message is wrapped in its box: only its beginning is on one line.)
    assert!(
        stderr.contains("amount of money 1.999 has digits below"),
        "{stderr}"
    );
}

#[test]
fn jsonl_lines_are_read_exactly_too() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .arg("run")
        .arg(fixture())
        .args(["--scope", "Exact", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("lexprobe starts");
    let input = concat!(
        r#"{"rate": 0.1, "amount": 0.29, "count": 0}"#,
        "\n",
        r#"{"rate": 0.10000000000000001, "amount": 1, "count": 0}"#,
        "\n",
        r#"{"rate": 0.1, "amount": 0.001, "count": 0}"#,
        "\n"
    );
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("lexprobe ends");
    let lines: Vec<Json> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["rate_is_a_tenth"], true);
    assert_eq!(lines[0]["amount_plus_a_cent"], "0.30");
    // 0.10000000000000001 is not 1/10, though its binary float is the same as 0.1's.
    assert_eq!(lines[1]["rate_is_a_tenth"], false);
    assert_eq!(lines[2]["error"]["kind"], "input");
}

#[test]
fn a_function_input_is_refused_with_catalas_message() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/json_input/function_input.catala_en");
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .arg("run")
        .arg(&file)
        .args(["--scope", "Apply", "--input", "{}"])
        .output()
        .expect("lexprobe starts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(123), "{stderr}");
    // As Catala's json/bad/lambdas: the message alone, without a JSON path.
    assert!(
        stderr.contains("│  Cannot convert functional values from JSON\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("Invalid input"), "{stderr}");
}
