//! The external-program adapter: any program that reads one JSON object of input fields and
//! answers one JSON object of outputs. In the long-running mode (JSON Lines) the program is
//! started once per worker and kept up: one object per line on stdin, one per line on
//! stdout. In the one-call mode a fresh process is started for every input (stdin closed
//! after the object, the first JSON line of stdout is the answer). A reply
//! `{"error": "..."}` is the program's own error. Timeouts, crashes and malformed replies
//! become per-test [`RunFailure`]s; a stuck or dead worker is killed and restarted.

use crate::system::{RunFailure, RunResult, SystemUnderTest};
use crate::value::{record_from_json, record_to_json, Record};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How the program is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallMode {
    /// Started once per worker, one JSON object per line in both directions.
    JsonLines,
    /// One process per input.
    OneCallPerProcess,
}

/// How much of the program's standard error is kept for crash reports.
const STDERR_TAIL: usize = 2000;

/// An external program under test.
pub struct ExternalProgram {
    command: String,
    mode: CallMode,
    timeout: Duration,
    idle_workers: Mutex<Vec<Worker>>,
}

/// One running instance of the program in JSON Lines mode.
struct Worker {
    child: Child,
    /// Absent once closed (one-call mode closes it after the input).
    stdin: Option<ChildStdin>,
    replies: Receiver<String>,
    stderr_tail: Arc<Mutex<String>>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        // The program runs in its own process group (the shell and whatever it started):
        // stop the whole group, then reap the shell.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill")
            .args(["-KILL", "--", &group])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn shell_command(command: &str) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(command);
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// Keeps the last bytes of a stream in `tail`.
fn drain_into_tail(mut stream: impl Read + Send + 'static, tail: Arc<Mutex<String>>) {
    std::thread::spawn(move || {
        let mut buffer = [0u8; 4096];
        while let Ok(n) = stream.read(&mut buffer) {
            if n == 0 {
                break;
            }
            if let Ok(mut t) = tail.lock() {
                t.push_str(&String::from_utf8_lossy(&buffer[..n]));
                if t.len() > STDERR_TAIL {
                    let mut cut = t.len() - STDERR_TAIL;
                    while !t.is_char_boundary(cut) {
                        cut += 1;
                    }
                    t.drain(..cut);
                }
            }
        }
    });
}

/// Forwards the lines of a stream to a channel (closed at end of stream).
fn lines_to_channel(stream: impl Read + Send + 'static) -> Receiver<String> {
    let (sender, receiver) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            match line {
                Ok(l) => {
                    if sender.send(l).is_err() {
                        break;
                    }
                }
                Err(_) => break,
            }
        }
    });
    receiver
}

/// Interprets one reply line.
fn parse_reply(line: &str) -> RunResult {
    let parsed: serde_json::Value =
        serde_json::from_str(line.trim()).map_err(|_| RunFailure::Malformed {
            reply: line.to_string(),
        })?;
    let object = parsed.as_object().ok_or_else(|| RunFailure::Malformed {
        reply: line.to_string(),
    })?;
    if let Some(error) = object.get("error") {
        let only_error = object.len() == 1 || object.get("outputs").is_none();
        if only_error && !error.is_null() {
            let message = match error {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            return Err(RunFailure::Reported { message });
        }
    }
    match object.get("outputs").and_then(|o| o.as_object()) {
        Some(outputs) => Ok(record_from_json(outputs)),
        None => Ok(record_from_json(object)),
    }
}

impl ExternalProgram {
    /// A program run through `sh -c command`.
    pub fn new(command: &str, mode: CallMode, timeout: Duration) -> ExternalProgram {
        ExternalProgram {
            command: command.to_string(),
            mode,
            timeout,
            idle_workers: Mutex::new(Vec::new()),
        }
    }

    fn start_worker(&self) -> Result<Worker, RunFailure> {
        let mut child = shell_command(&self.command)
            .spawn()
            .map_err(|e| RunFailure::Crashed {
                detail: format!("cannot start `{}`: {e}", self.command),
            })?;
        let missing = || RunFailure::Crashed {
            detail: "no pipe to the program".to_string(),
        };
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr = child.stderr.take().ok_or_else(missing)?;
        let stderr_tail = Arc::new(Mutex::new(String::new()));
        drain_into_tail(stderr, stderr_tail.clone());
        Ok(Worker {
            child,
            stdin: Some(stdin),
            replies: lines_to_channel(stdout),
            stderr_tail,
        })
    }

    fn crash_detail(worker: &mut Worker, what: &str) -> String {
        // Give the exit status and stderr a moment to arrive.
        let mut status = None;
        for _ in 0..50 {
            if let Ok(Some(s)) = worker.child.try_wait() {
                status = Some(s);
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let tail = worker
            .stderr_tail
            .lock()
            .map(|t| t.trim().to_string())
            .unwrap_or_default();
        let status = status.map_or("still running".to_string(), |s| s.to_string());
        if tail.is_empty() {
            format!("{what} ({status})")
        } else {
            format!("{what} ({status}); stderr: {tail}")
        }
    }

    fn run_json_lines(&self, input: &Record) -> RunResult {
        let idle = self.idle_workers.lock().ok().and_then(|mut w| w.pop());
        let mut worker = match idle {
            Some(w) => w,
            None => self.start_worker()?,
        };
        let line = format!("{}\n", record_to_json(input));
        let written = match worker.stdin.as_mut() {
            Some(stdin) => stdin
                .write_all(line.as_bytes())
                .and_then(|_| stdin.flush())
                .is_ok(),
            None => false,
        };
        if !written {
            let detail = Self::crash_detail(&mut worker, "the program closed its input");
            return Err(RunFailure::Crashed { detail });
        }
        match worker.replies.recv_timeout(self.timeout) {
            Ok(reply) => {
                let result = parse_reply(&reply);
                if let Ok(mut idle) = self.idle_workers.lock() {
                    idle.push(worker);
                }
                result
            }
            Err(RecvTimeoutError::Timeout) => Err(RunFailure::Timeout {
                seconds: self.timeout.as_secs_f64(),
            }),
            Err(RecvTimeoutError::Disconnected) => {
                let detail = Self::crash_detail(&mut worker, "the program ended without answering");
                Err(RunFailure::Crashed { detail })
            }
        }
    }

    fn run_one_call(&self, input: &Record) -> RunResult {
        let mut worker = self.start_worker()?;
        let line = format!("{}\n", record_to_json(input));
        if let Some(mut stdin) = worker.stdin.take() {
            // Closing stdin tells a one-call program that the input is complete.
            let _ = stdin.write_all(line.as_bytes());
        }
        let deadline = std::time::Instant::now() + self.timeout;
        loop {
            let remaining = deadline.saturating_duration_since(std::time::Instant::now());
            match worker.replies.recv_timeout(remaining) {
                Ok(reply) if reply.trim().is_empty() => continue,
                Ok(reply) => return parse_reply(&reply),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(RunFailure::Timeout {
                        seconds: self.timeout.as_secs_f64(),
                    })
                }
                Err(RecvTimeoutError::Disconnected) => {
                    let detail = Self::crash_detail(&mut worker, "the program printed no answer");
                    return Err(RunFailure::Crashed { detail });
                }
            }
        }
    }
}

impl SystemUnderTest for ExternalProgram {
    fn describe(&self) -> String {
        match self.mode {
            CallMode::JsonLines => format!("cmd:{} (JSON Lines)", self.command),
            CallMode::OneCallPerProcess => format!("cmd:{} (one call per process)", self.command),
        }
    }

    fn run(&self, input: &Record) -> RunResult {
        match self.mode {
            CallMode::JsonLines => self.run_json_lines(input),
            CallMode::OneCallPerProcess => self.run_one_call(input),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    #[test]
    fn replies_are_outputs_errors_or_malformed() {
        let ok = parse_reply(r#"{"refund": 12.5, "status": "ok"}"#).unwrap();
        assert_eq!(ok["refund"], Value::Number(12.5));
        let wrapped = parse_reply(r#"{"outputs": {"tax": 3}}"#).unwrap();
        assert_eq!(wrapped["tax"], Value::Integer(3));
        assert_eq!(
            parse_reply(r#"{"error": "conflict"}"#),
            Err(RunFailure::Reported {
                message: "conflict".into()
            })
        );
        assert!(matches!(
            parse_reply("Traceback (most recent call last)"),
            Err(RunFailure::Malformed { .. })
        ));
        assert!(matches!(
            parse_reply("[1, 2]"),
            Err(RunFailure::Malformed { .. })
        ));
    }
}
