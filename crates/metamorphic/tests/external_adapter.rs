//! The external-program adapter against a real program that answers, errs, prints garbage,
//! crashes and hangs on request: every misbehaviour is reported for its own test and the
//! next call works again (the program is restarted when needed).

use metamorphic::external::{CallMode, ExternalProgram};
use metamorphic::system::{RunFailure, SystemUnderTest};
use metamorphic::value::{Record, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn fixture() -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/metamorphic/misbehaving.py");
    let python = std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !python {
        eprintln!("python3 not found: skipping the external-adapter tests");
        return None;
    }
    Some(path)
}

fn request(mode: &str, x: i64) -> Record {
    [
        ("mode".to_string(), Value::Enum(mode.to_string())),
        ("x".to_string(), Value::Integer(x)),
    ]
    .into_iter()
    .collect()
}

fn exercise(program: &ExternalProgram) {
    let ok = program.run(&request("ok", 21)).unwrap();
    assert_eq!(ok["double"], Value::Integer(42));
    assert!(matches!(
        program.run(&request("garbage", 1)),
        Err(RunFailure::Malformed { reply }) if reply == "this is not json"
    ));
    assert_eq!(
        program.run(&request("ok", 2)).unwrap()["double"],
        Value::Integer(4)
    );
    assert_eq!(
        program.run(&request("error", 1)),
        Err(RunFailure::Reported {
            message: "boom".into()
        })
    );
    match program.run(&request("crash", 1)) {
        Err(RunFailure::Crashed { detail }) => {
            assert!(detail.contains("asked to crash"), "{detail}");
        }
        other => panic!("expected a crash, got {other:?}"),
    }
    assert_eq!(
        program.run(&request("ok", 5)).unwrap()["double"],
        Value::Integer(10)
    );
    let started = Instant::now();
    assert!(matches!(
        program.run(&request("hang", 1)),
        Err(RunFailure::Timeout { .. })
    ));
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(
        program.run(&request("ok", 7)).unwrap()["double"],
        Value::Integer(14)
    );
}

#[test]
fn json_lines_mode_survives_every_misbehaviour() {
    let Some(path) = fixture() else { return };
    let program = ExternalProgram::new(
        &format!("python3 {}", path.display()),
        CallMode::JsonLines,
        Duration::from_secs(4),
    );
    exercise(&program);
}

#[test]
fn one_call_mode_survives_every_misbehaviour() {
    let Some(path) = fixture() else { return };
    let program = ExternalProgram::new(
        &format!("python3 {}", path.display()),
        CallMode::OneCallPerProcess,
        Duration::from_secs(4),
    );
    exercise(&program);
}

#[test]
fn missing_program_is_a_per_test_crash() {
    let program = ExternalProgram::new(
        "exec /nonexistent/program-that-is-not-here",
        CallMode::JsonLines,
        Duration::from_secs(2),
    );
    assert!(matches!(
        program.run(&request("ok", 1)),
        Err(RunFailure::Crashed { .. })
    ));
}
