//! The external-program adapter: any program that reads one JSON object of input fields and
//! answers one JSON object of outputs. In the long-running mode (JSON Lines) the program is
//! started once per worker and kept up: one object per line on stdin, one per line on
//! stdout. In the one-call mode a fresh process is started for every input (stdin closed
//! after the object, the first non-blank line of stdout is the answer). A reply
//! `{"error": "..."}` is the program's own error.
//!
//! With request ids on ([`ExternalProgram::with_request_ids`]; off by default, since a
//! program that rejects unknown input fields would refuse them), every request carries a
//! `request_id` that the program must echo in its reply, and every reply is checked against
//! its request (a reply without the id, such as a stray JSON object, is refused). A reply is never attributed to another input:
//! after a malformed, missing (timeout, exit) or wrong-id reply, or when an idle instance
//! has printed lines nobody asked for, the instance is killed and the next run starts a
//! fresh one; the run itself is a [`RunFailure`] of its test. Writes never raise SIGPIPE
//! ([`pipe`]); reply lines are bounded ([`reply`]).

pub(crate) mod pipe;
pub(crate) mod reply;

use crate::system::{RunFailure, RunResult, SystemUnderTest};
use crate::value::Record;
use reply::{check_request_id, parse_reply, reply_lines, request_line, ReplyLine};
use std::io::Read;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, TryRecvError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

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
    send_request_ids: bool,
    next_request: AtomicU64,
    restarts: AtomicUsize,
}

/// One running instance of the program.
struct Worker {
    child: Child,
    /// Absent once closed (one-call mode closes it after the input).
    stdin: Option<ChildStdin>,
    replies: Receiver<ReplyLine>,
    stderr_tail: Arc<Mutex<String>>,
    stderr_reader: std::thread::JoinHandle<()>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        // The program runs in its own process group (the shell and whatever it started):
        // stop the whole group, then reap the shell.
        pipe::kill_process_group(self.child.id());
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

/// Keeps the last bytes of a stream in `tail`; the thread ends with the stream.
fn drain_into_tail(
    mut stream: impl Read + Send + 'static,
    tail: Arc<Mutex<String>>,
) -> std::thread::JoinHandle<()> {
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
    })
}

/// How a wait for a reply ended without one.
enum NoReply {
    Timeout,
    Deadline,
    Ended,
}

impl ExternalProgram {
    /// A program run through `sh -c command`.
    pub fn new(command: &str, mode: CallMode, timeout: Duration) -> ExternalProgram {
        ExternalProgram {
            command: command.to_string(),
            mode,
            timeout,
            idle_workers: Mutex::new(Vec::new()),
            send_request_ids: false,
            next_request: AtomicU64::new(1),
            restarts: AtomicUsize::new(0),
        }
    }

    /// Sends a `request_id` with every request; every reply must echo the id of its own
    /// request.
    pub fn with_request_ids(mut self, on: bool) -> ExternalProgram {
        self.send_request_ids = on;
        self
    }

    /// The next request id, when ids are sent.
    fn next_id(&self) -> Option<u64> {
        self.send_request_ids
            .then(|| self.next_request.fetch_add(1, Ordering::Relaxed))
    }

    /// The command line, as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Instances killed because of a malformed, missing, extra or wrong-id reply, a
    /// timeout or an exit.
    pub fn restarts(&self) -> usize {
        self.restarts.load(Ordering::Relaxed)
    }

    fn start_worker(&self) -> Result<Worker, RunFailure> {
        let mut child = shell_command(&self.command)
            .spawn()
            .map_err(|e| RunFailure::Crashed {
                detail: format!("cannot start `{}`: {e}", self.command),
            })?;
        let missing = || RunFailure::Crashed {
            detail: format!("no pipe to `{}`", self.command),
        };
        let stdin = child.stdin.take().ok_or_else(missing)?;
        let stdout = child.stdout.take().ok_or_else(missing)?;
        let stderr = child.stderr.take().ok_or_else(missing)?;
        let stderr_tail = Arc::new(Mutex::new(String::new()));
        let stderr_reader = drain_into_tail(stderr, stderr_tail.clone());
        Ok(Worker {
            child,
            stdin: Some(stdin),
            replies: reply_lines(stdout),
            stderr_tail,
            stderr_reader,
        })
    }

    /// Ends an instance that misbehaved (dropping it kills it).
    fn discard(&self, worker: Worker) {
        self.restarts.fetch_add(1, Ordering::Relaxed);
        drop(worker);
    }

    /// What went wrong, with the command, its exit status and the end of its stderr.
    fn crash_detail(&self, worker: &mut Worker, what: &str) -> String {
        // Give the exit status and the rest of stderr a moment to arrive.
        let mut status = None;
        for _ in 0..100 {
            if status.is_none() {
                status = worker.child.try_wait().ok().flatten();
            }
            if status.is_some() && worker.stderr_reader.is_finished() {
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
        let command = &self.command;
        if tail.is_empty() {
            format!("`{command}` {what} ({status}; nothing on stderr)")
        } else {
            format!("`{command}` {what} ({status}); stderr: {tail}")
        }
    }

    /// An idle instance with nothing unread on its output, or a fresh one. An instance
    /// that printed lines nobody asked for is killed (they would answer the next request).
    fn take_worker(&self) -> Result<Worker, RunFailure> {
        loop {
            let idle = self.idle_workers.lock().ok().and_then(|mut w| w.pop());
            let Some(worker) = idle else {
                return self.start_worker();
            };
            let clean = loop {
                match worker.replies.try_recv() {
                    Ok(line) if line.is_blank() => continue,
                    Ok(_) => break false,
                    Err(TryRecvError::Empty) => break true,
                    Err(TryRecvError::Disconnected) => break false,
                }
            };
            if clean {
                return Ok(worker);
            }
            self.discard(worker);
        }
    }

    /// Waits for the next non-blank line until the per-run timeout or `deadline`.
    fn next_line(
        &self,
        worker: &Worker,
        started: Instant,
        deadline: Option<Instant>,
    ) -> Result<ReplyLine, NoReply> {
        let timeout_at = started + self.timeout;
        let (until, by_deadline) = match deadline {
            Some(d) if d < timeout_at => (d, true),
            _ => (timeout_at, false),
        };
        loop {
            let wait = until.saturating_duration_since(Instant::now());
            match worker.replies.recv_timeout(wait) {
                Ok(line) if line.is_blank() => continue,
                Ok(line) => return Ok(line),
                Err(RecvTimeoutError::Timeout) if by_deadline => return Err(NoReply::Deadline),
                Err(RecvTimeoutError::Timeout) => return Err(NoReply::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(NoReply::Ended),
            }
        }
    }

    /// Reads and checks the reply to request `id`. `Ok` when the instance may answer
    /// further requests, `Err` (with the run's result) when it must be discarded.
    fn read_reply(
        &self,
        worker: &mut Worker,
        id: Option<u64>,
        started: Instant,
        deadline: Option<Instant>,
    ) -> Result<RunResult, RunResult> {
        let line = match self.next_line(worker, started, deadline) {
            Ok(line) => line,
            Err(NoReply::Deadline) => return Err(Err(RunFailure::NotRun)),
            Err(NoReply::Timeout) => {
                return Err(Err(RunFailure::Timeout {
                    seconds: self.timeout.as_secs_f64(),
                }))
            }
            Err(NoReply::Ended) => {
                let detail = self.crash_detail(worker, "ended without answering");
                return Err(Err(RunFailure::Crashed { detail }));
            }
        };
        let text = match line {
            ReplyLine::Text(text) => text,
            ReplyLine::TooLong { bytes } => {
                return Err(Err(RunFailure::ReplyTooLong {
                    bytes,
                    limit: reply::MAX_REPLY_BYTES,
                }))
            }
            ReplyLine::NotUtf8 { shown } => return Err(Err(RunFailure::NotUtf8 { reply: shown })),
        };
        let parsed = parse_reply(&text).map_err(Err)?;
        if let Some(id) = id {
            check_request_id(parsed.request_id.as_ref(), id).map_err(Err)?;
        }
        Ok(parsed.outputs)
    }

    fn run_json_lines(&self, input: &Record, deadline: Option<Instant>) -> RunResult {
        let mut worker = self.take_worker()?;
        let id = self.next_id();
        let line = request_line(input, id);
        let started = Instant::now();
        let written = match worker.stdin.as_mut() {
            Some(stdin) => pipe::write_all_without_sigpipe(stdin, line.as_bytes()).is_ok(),
            None => false,
        };
        if !written {
            let detail = self.crash_detail(&mut worker, "closed its input");
            self.discard(worker);
            return Err(RunFailure::Crashed { detail });
        }
        match self.read_reply(&mut worker, id, started, deadline) {
            Ok(result) => {
                if let Ok(mut idle) = self.idle_workers.lock() {
                    idle.push(worker);
                }
                result
            }
            Err(result) => {
                self.discard(worker);
                result
            }
        }
    }

    fn run_one_call(&self, input: &Record, deadline: Option<Instant>) -> RunResult {
        let mut worker = self.start_worker()?;
        let id = self.next_id();
        let line = request_line(input, id);
        let started = Instant::now();
        if let Some(mut stdin) = worker.stdin.take() {
            // A program may answer without reading its input: a closed pipe is not an
            // error here. Closing stdin tells the program that the input is complete.
            let _ = pipe::write_all_without_sigpipe(&mut stdin, line.as_bytes());
        }
        let result = match self.read_reply(&mut worker, id, started, deadline) {
            Ok(result) | Err(result) => result,
        };
        // The process has answered (or failed): it is not needed any more.
        drop(worker);
        result
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
        self.run_until(input, None)
    }

    fn run_until(&self, input: &Record, deadline: Option<Instant>) -> RunResult {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(RunFailure::NotRun);
        }
        match self.mode {
            CallMode::JsonLines => self.run_json_lines(input, deadline),
            CallMode::OneCallPerProcess => self.run_one_call(input, deadline),
        }
    }
}
