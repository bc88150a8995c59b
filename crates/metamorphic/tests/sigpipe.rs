//! A program that closes its input must never kill the tester with SIGPIPE, even with the
//! default disposition of that signal (which the `lexprobe` binary restores at start-up so
//! that `lexprobe ... | head` ends quietly; the Rust runtime ignores SIGPIPE otherwise, so
//! this file restores the default first). This test runs in a process of its own.

use metamorphic::external::{CallMode, ExternalProgram};
use metamorphic::system::{RunFailure, SystemUnderTest};
use metamorphic::value::{Record, Value};
use std::time::Duration;

fn restore_default_sigpipe() {
    // SAFETY: resetting a signal's disposition to its default has no other effect on the
    // process.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn input(x: i64) -> Record {
    [("x".to_string(), Value::Integer(x))].into_iter().collect()
}

#[test]
fn a_program_that_closes_its_input_is_a_run_error_not_a_signal() {
    restore_default_sigpipe();
    // Reads one request, closes its input, then answers it and stays alive: the next
    // request is written to a pipe nobody reads (EPIPE, and SIGPIPE if not blocked).
    let command = "read -r line; exec 0<&-; echo '{\"y\": 1}'; sleep 5";
    let program = ExternalProgram::new(command, CallMode::JsonLines, Duration::from_secs(5));
    let mut closed = 0;
    for x in 0..10 {
        let first = program.run(&input(x));
        assert_eq!(first.map(|o| o["y"].clone()), Ok(Value::Integer(1)));
        match program.run(&input(x)) {
            Err(RunFailure::Crashed { detail }) => {
                assert!(detail.contains("closed its input"), "{detail}");
                assert!(detail.contains("exec 0<&-"), "{detail}");
                closed += 1;
            }
            other => panic!("expected the closed input to be reported, got {other:?}"),
        }
    }
    assert_eq!(closed, 10);
    // One call per process: a program that exits without reading is not an error of the
    // write; its missing answer is.
    let one_call = ExternalProgram::new(
        "exec 0<&-; echo gone >&2; exit 5",
        CallMode::OneCallPerProcess,
        Duration::from_secs(5),
    );
    for x in 0..10 {
        match one_call.run(&input(x)) {
            Err(RunFailure::Crashed { detail }) => {
                assert!(detail.contains("exit status: 5"), "{detail}");
                assert!(detail.contains("gone"), "{detail}");
            }
            other => panic!("{other:?}"),
        }
    }
}
