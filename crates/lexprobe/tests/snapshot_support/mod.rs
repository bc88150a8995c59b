//! What the snapshot tests share: running the `lexprobe` binary from the workspace root (so
//! the paths it prints are the relative ones given), and the text a snapshot pins — the exit
//! code, standard output and standard error — with the times and durations of the run masked
//! (`<time>`), since they change from one run to the next while everything else must not.

use serde_json::Value as Json;
use std::path::Path;
use std::process::Command;

/// What one run of `lexprobe` gave.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `lexprobe ARGS` in the workspace root.
pub fn lexprobe(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .expect("lexprobe starts");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

impl Run {
    /// The exit code, then standard output and standard error as printed, times masked.
    pub fn text(&self) -> String {
        format!(
            "exit code {}\n--- stdout\n{}--- stderr\n{}",
            self.code,
            mask_durations(&self.stdout),
            mask_durations(&self.stderr)
        )
    }

    /// The exit code, then standard output read as one JSON document and written back
    /// indented (keys in their printed order), the values of its time fields masked; then
    /// standard error.
    pub fn json(&self) -> String {
        let mut doc: Json = serde_json::from_str(&self.stdout).expect("one JSON document");
        mask_json_times(&mut doc);
        format!(
            "exit code {}\n--- stdout\n{}\n--- stderr\n{}",
            self.code,
            serde_json::to_string_pretty(&doc).expect("JSON prints"),
            mask_durations(&self.stderr)
        )
    }
}

/// `text` with every duration masked: a decimal number followed by a seconds unit (`0.125 s`,
/// `0.00s`, `0.056(s)`) becomes `<time>` followed by the same unit. Integers are left alone
/// (counts such as `5 tests` are what the snapshots check).
pub fn mask_durations(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let starts_number = chars[i].is_ascii_digit() && (i == 0 || !is_word(chars[i - 1]));
        if starts_number {
            let mut j = i;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            let decimal = j + 1 < chars.len() && chars[j] == '.' && chars[j + 1].is_ascii_digit();
            if decimal {
                let mut k = j + 1;
                while k < chars.len() && chars[k].is_ascii_digit() {
                    k += 1;
                }
                if seconds_unit_at(&chars, k) {
                    out.push_str("<time>");
                    i = k;
                    continue;
                }
            }
            out.extend(&chars[i..j]);
            i = j;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

/// Whether a seconds unit starts at `k`: `s`, ` s` or `(s)`, not followed by a letter.
fn seconds_unit_at(chars: &[char], k: usize) -> bool {
    let rest: String = chars[k..chars.len().min(k + 4)].iter().collect();
    let unit_len = if rest.starts_with("(s)") {
        return true;
    } else if rest.starts_with(" s") {
        2
    } else if rest.starts_with('s') {
        1
    } else {
        return false;
    };
    !matches!(chars.get(k + unit_len), Some(c) if c.is_alphanumeric())
}

/// Masks the numbers of the time fields of a JSON document: keys ending in `_s` (seconds)
/// and `seconds`, and the throughput `tests_per_second`. A `null` stays `null`: whether a
/// time exists is part of what is pinned.
pub fn mask_json_times(doc: &mut Json) {
    match doc {
        Json::Object(map) => {
            for (key, value) in map.iter_mut() {
                let timed = key.ends_with("_s") || key == "seconds" || key == "tests_per_second";
                if timed && value.is_number() {
                    *value = Json::String("<time>".into());
                } else {
                    mask_json_times(value);
                }
            }
        }
        Json::Array(items) => items.iter_mut().for_each(mask_json_times),
        _ => {}
    }
}

#[test]
fn durations_are_masked_and_counts_are_not() {
    let text = "5 tests, 0.001 s total, 0.000 s in the solver\n1st fail 0.25s\nexec time 0.056(s), 48 states, v1.5 sets, 2.5 seconds";
    assert_eq!(
        mask_durations(text),
        "5 tests, <time> s total, <time> s in the solver\n1st fail <time>s\nexec time <time>(s), 48 states, v1.5 sets, 2.5 seconds"
    );
    let mut doc: Json = serde_json::from_str(
        r#"{"time_s": 0.5, "first_failure_s": null, "tests": 3, "stats": [{"seconds": 1.0, "max_s": 2}]}"#,
    )
    .unwrap();
    mask_json_times(&mut doc);
    assert_eq!(
        doc.to_string(),
        r#"{"time_s":"<time>","first_failure_s":null,"tests":3,"stats":[{"seconds":"<time>","max_s":"<time>"}]}"#
    );
}
