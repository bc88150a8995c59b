//! `lexprobe run --jsonl`: one evaluation per input line, and the metamorphic engine driving it
//! as an external program reaches the same verdicts as with the in-process Catala adapter.

use serde_json::Value as Json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_lexprobe")
}

#[test]
fn jsonl_answers_each_line_with_outputs_or_an_error() {
    let file = workspace().join("tests/fixtures/examples/income_tax.catala_en");
    let mut child = Command::new(bin())
        .arg("run")
        .arg(&file)
        .args(["--scope", "IncomeTax", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("lexprobe starts");
    let input = concat!(
        r#"{"household": {"income": 1000, "children": 0, "birth_date": "1990-01-01"}}"#,
        "\n",
        r#"{"household": {"income": "100.10", "children": 3, "birth_date": "1990-01-01"}}"#,
        "\n",
        "not json\n",
        r#"{"household": {"income": 1000}}"#,
        "\n"
    );
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("lexprobe ends");
    assert!(out.status.success());
    let lines: Vec<Json> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 4);
    // 20% of $1,000; then 15% of $100.10 = $15.015, rounded half away from zero to $15.02.
    assert_eq!(lines[0]["tax"], "200.00");
    assert_eq!(lines[0]["large_family"], false);
    assert_eq!(lines[1]["tax"], "15.02");
    assert_eq!(lines[1]["large_family"], true);
    assert_eq!(lines[2]["error"]["kind"], "input");
    assert_eq!(lines[3]["error"]["kind"], "input");
}

fn verdicts(system: &str) -> Vec<(String, String)> {
    let root = workspace();
    let out = Command::new(bin())
        .current_dir(&root)
        .args(["metamorphic", "--system", system])
        .args(["--domain", "examples/metamorphic/form1040.toml"])
        .args(["--relations", "examples/metamorphic/form1040.mr"])
        .args([
            "--only",
            "r13_medical_floor",
            "--only",
            "r1_disability_filer",
        ])
        .args([
            "--max-tests",
            "1000",
            "--budget",
            "600s",
            "--seed",
            "7",
            "--jobs",
            "1",
            "--format",
            "json",
        ])
        .output()
        .expect("lexprobe starts");
    let json: Json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    json["relations"]
        .as_array()
        .expect("relations")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or("").to_string(),
                r["verdict"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[test]
fn metamorphic_verdicts_agree_in_process_and_over_jsonl() {
    let model = "examples/metamorphic/form1040_bug_medical_floor.catala_en";
    let in_process = verdicts(&format!("catala:{model}#Form1040"));
    let over_jsonl = verdicts(&format!(
        "cmd:{} run {model} --scope Form1040 --jsonl",
        bin()
    ));
    assert_eq!(in_process, over_jsonl);
    // The planted bug ignores the 7.5%-of-AGI medical floor: relation 13 must fail.
    assert!(
        in_process
            .iter()
            .any(|(n, v)| n == "r13_medical_floor" && v == "failed"),
        "{in_process:?}"
    );
}
