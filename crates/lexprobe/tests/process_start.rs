//! The process's own entry point (`src/entry.rs`) keeps what Rust's start-up guaranteed: closed
//! standard descriptors are replaced, deeply nested input still gets the stack it needs under a
//! small stack limit, a stack overflow is said as such; and it no longer reads
//! `/proc/self/maps` to learn the stack's bounds. On x86-64 GNU/Linux the binary is linked at a
//! fixed address (`build.rs`), so that the dynamic loader has none of its pointers to relocate.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// An empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lexprobe-start-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        panic!("{}: {e}", dir.display());
    }
    dir
}

/// A scope whose output is `1 + (1 + (… + 0))` with `depth` ones: `depth` by arithmetic.
fn nested_program(dir: &Path, depth: usize) -> PathBuf {
    let file = dir.join("nested.catala_en");
    let text = format!(
        "```catala\ndeclaration scope S:\n  output x content integer\n\nscope S:\n  \
         definition x equals {}0{}\n```\n",
        "(1 + ".repeat(depth),
        ")".repeat(depth)
    );
    if let Err(e) = std::fs::write(&file, text) {
        panic!("{}: {e}", file.display());
    }
    file
}

/// Runs `lexprobe ARGS` from `sh` after `ulimit -s KIB` (the stack limit of the process).
fn with_stack_limit(kib: u32, args: &[&str]) -> Output {
    let script = format!("ulimit -s {kib} && exec \"$0\" \"$@\"");
    match Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_lexprobe"))
        .args(args)
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("sh does not start: {e}"),
    }
}

#[test]
fn nested_input_is_parsed_and_typed_under_a_small_stack_limit() {
    let dir = scratch("nested");
    let file = nested_program(&dir, 150);
    let path = file.to_string_lossy().into_owned();
    // 256 KiB: far less than the parser and the lowering need for 150 levels in a debug build,
    // so they must go on to stack segments of their own.
    let out = with_stack_limit(256, &["typecheck", &path]);
    assert!(
        out.status.success(),
        "status {:?}, stderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    // And with the default limit the scope computes its value: 150 ones added.
    let out = match Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .args(["run", &path, "--scope", "S"])
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("lexprobe does not start: {e}"),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("x = 150"), "{stdout}");
}

#[test]
fn closed_standard_output_is_replaced_not_reused() {
    // With descriptor 1 closed, a write to standard output would fail (and printing panics);
    // the entry point opens /dev/null in its place, as Rust's start-up did.
    let out = match Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" --version >&-")
        .arg(env!("CARGO_BIN_EXE_lexprobe"))
        .stderr(Stdio::piped())
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("sh does not start: {e}"),
    };
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_stack_overflow_is_said_and_ends_the_process_by_the_signal() {
    // The evaluation of a deep expression is not guarded the way parsing is: with 160 levels
    // and a 512 KiB stack, the parser and the lowering grow their own segments, and the
    // interpreter then overflows the initial thread's stack.
    let dir = scratch("overflow");
    let file = nested_program(&dir, 160);
    let path = file.to_string_lossy().into_owned();
    let out = with_stack_limit(512, &["run", &path, "--scope", "S"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        // A build whose frames are small enough evaluates it: then there is nothing to check.
        println!("notice: no stack overflow with 512 KiB in this build; nothing to check");
        return;
    }
    assert!(
        stderr.contains("lexprobe: fatal error: stack overflow"),
        "status {:?}, stderr: {stderr}",
        out.status
    );
    // `sh` exec'd the tool, so the status is the tool's: ended by SIGSEGV.
    assert_eq!(out.status.signal(), Some(11), "{:?}", out.status);
}

#[test]
fn start_up_does_not_read_the_memory_map() {
    let strace = Path::new("/usr/bin/strace");
    if !strace.exists() {
        println!("notice: strace absent: the system calls of start-up are not checked");
        return;
    }
    let dir = scratch("maps");
    let file = nested_program(&dir, 3);
    let path = file.to_string_lossy().into_owned();
    let log = dir.join("trace");
    let out = match Command::new(strace)
        .args(["-f", "-e", "trace=open,openat", "-o"])
        .arg(&log)
        .arg(env!("CARGO_BIN_EXE_lexprobe"))
        .args(["run", &path, "--scope", "S"])
        .output()
    {
        Ok(o) => o,
        Err(e) => panic!("strace does not start: {e}"),
    };
    let trace = std::fs::read_to_string(&log).unwrap_or_default();
    if !out.status.success() || !trace.contains("nested.catala_en") {
        // strace may be denied tracing (no ptrace in some containers).
        println!("notice: strace could not trace the tool here: not checked");
        return;
    }
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("x = 3"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!trace.contains("/proc/self/maps"), "{trace}");
}

#[test]
#[cfg(all(target_os = "linux", target_env = "gnu", target_arch = "x86_64"))]
fn the_binary_is_linked_at_a_fixed_address() {
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_lexprobe")).unwrap_or_default();
    // ELF: the magic number, then at offset 16 the file's type (2: an executable at a fixed
    // address; 3: a position-independent one), little-endian on x86-64.
    assert_eq!(bytes.get(..4), Some(&b"\x7fELF"[..]));
    let kind = bytes.get(16..18).map(|b| u16::from_le_bytes([b[0], b[1]]));
    assert_eq!(kind, Some(2), "e_type of the lexprobe binary");
    let out = Command::new(env!("CARGO_BIN_EXE_lexprobe"))
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("lexprobe does not start: {e}"));
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("lexprobe {}\n", env!("CARGO_PKG_VERSION"))
    );
}
