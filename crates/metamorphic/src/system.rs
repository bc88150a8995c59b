//! Systems under test: anything that maps an input record to an output record. The search
//! only sees the [`SystemUnderTest`] trait; a failed run (timeout, crash, malformed reply, an
//! error reported by the system) is a per-test [`RunFailure`], never a reason to stop.

use crate::value::Record;
use std::fmt;
use std::time::Instant;

/// Why one run of the system produced no outputs.
#[derive(Debug, Clone, PartialEq)]
pub enum RunFailure {
    /// The system did not answer within the time limit (it was stopped).
    Timeout { seconds: f64 },
    /// The system exited or closed its output without answering.
    Crashed { detail: String },
    /// The reply was not a JSON object (a stray line, a traceback, a JSON array ...).
    Malformed { reply: String },
    /// A reply line longer than the adapter accepts.
    ReplyTooLong { bytes: usize, limit: usize },
    /// A reply line that is not UTF-8 (shown with the invalid bytes replaced).
    NotUtf8 { reply: String },
    /// The reply carried another request's id (or none, from a program that echoes ids).
    WrongRequestId { expected: u64, found: String },
    /// The system answered with an error of its own (e.g. `{"error": "..."}`).
    Reported { message: String },
    /// Not run: the time budget ran out first.
    NotRun,
}

impl fmt::Display for RunFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunFailure::Timeout { seconds } => write!(f, "timeout after {seconds:.1}s"),
            RunFailure::Crashed { detail } => write!(f, "crash: {detail}"),
            RunFailure::Malformed { reply } => {
                let shown: String = reply.chars().take(120).collect();
                write!(f, "malformed reply: {shown}")
            }
            RunFailure::ReplyTooLong { bytes, limit } => write!(
                f,
                "malformed reply: a line of {bytes} bytes or more (the limit is {limit})"
            ),
            RunFailure::NotUtf8 { reply } => {
                let shown: String = reply.chars().take(120).collect();
                write!(f, "malformed reply: not UTF-8: {shown}")
            }
            RunFailure::WrongRequestId { expected, found } => write!(
                f,
                "reply to the wrong request: expected request_id {expected}, found {found}"
            ),
            RunFailure::Reported { message } => write!(f, "error: {message}"),
            RunFailure::NotRun => write!(f, "not run (time budget exhausted)"),
        }
    }
}

/// The outcome of one run.
pub type RunResult = Result<Record, RunFailure>;

/// The input fields a system declares (a Catala scope does; an external program does not).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DeclaredInputs {
    /// Inputs every run must give.
    pub required: Vec<String>,
    /// Inputs a run may give.
    pub optional: Vec<String>,
}

/// A program whose inputs and outputs are named-field records. Implementations must be
/// usable from several threads at once (the search evaluates batches in parallel).
pub trait SystemUnderTest: Send + Sync {
    /// A short description for reports (e.g. the command line).
    fn describe(&self) -> String;

    /// The inputs the system declares, when it declares them (checked against the domain
    /// before searching).
    fn declared_inputs(&self) -> Option<DeclaredInputs> {
        None
    }

    /// The names of the outputs the system declares, when it declares them (a Catala scope
    /// does; an external program's outputs are learnt from a probe run).
    fn declared_outputs(&self) -> Option<Vec<String>> {
        None
    }

    /// Runs the system on one input.
    fn run(&self, input: &Record) -> RunResult;

    /// Runs the system on one input, giving up at `deadline` (the run is then stopped when
    /// the system can be stopped, and the result is `RunFailure::NotRun`). Systems that
    /// cannot be interrupted just run.
    fn run_until(&self, input: &Record, deadline: Option<Instant>) -> RunResult {
        let _ = deadline;
        self.run(input)
    }
}

/// A system given by a Rust function (tests, benchmarks and in-process models).
pub struct FunctionSystem<F: Fn(&Record) -> RunResult + Send + Sync> {
    pub name: String,
    pub function: F,
}

impl<F: Fn(&Record) -> RunResult + Send + Sync> SystemUnderTest for FunctionSystem<F> {
    fn describe(&self) -> String {
        self.name.clone()
    }

    fn run(&self, input: &Record) -> RunResult {
        (self.function)(input)
    }
}

/// Runs a batch of inputs on `jobs` threads; results are in input order. Inputs not started
/// by `deadline` are not run, and runs still going at `deadline` are stopped when the
/// system can stop them (both `RunFailure::NotRun`).
pub fn run_batch(
    system: &dyn SystemUnderTest,
    inputs: &[Record],
    jobs: usize,
    deadline: Option<Instant>,
) -> Vec<RunResult> {
    let jobs = jobs.max(1).min(inputs.len().max(1));
    let expired = || deadline.is_some_and(|d| Instant::now() >= d);
    if jobs == 1 {
        return inputs
            .iter()
            .map(|i| {
                if expired() {
                    Err(RunFailure::NotRun)
                } else {
                    system.run_until(i, deadline)
                }
            })
            .collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<Option<RunResult>> = vec![None; inputs.len()];
    let slots = std::sync::Mutex::new(&mut results);
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= inputs.len() {
                    break;
                }
                let result = if expired() {
                    Err(RunFailure::NotRun)
                } else {
                    system.run_until(&inputs[i], deadline)
                };
                if let Ok(mut guard) = slots.lock() {
                    guard[i] = Some(result);
                }
            });
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.unwrap_or(Err(RunFailure::Crashed {
                detail: "worker thread lost its result".to_string(),
            }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    #[test]
    fn batches_keep_input_order_across_threads() {
        let system = FunctionSystem {
            name: "double".into(),
            function: |input: &Record| {
                let x = input.get("x").and_then(Value::as_f64).unwrap_or(0.0);
                if x == 3.0 {
                    return Err(RunFailure::Reported {
                        message: "three".into(),
                    });
                }
                let mut out = Record::new();
                out.insert("y".into(), Value::Number(2.0 * x));
                Ok(out)
            },
        };
        let inputs: Vec<Record> = (0..40)
            .map(|i| [("x".to_string(), Value::Integer(i))].into_iter().collect())
            .collect();
        let results = run_batch(&system, &inputs, 4, None);
        assert_eq!(results.len(), 40);
        let late = run_batch(&system, &inputs, 2, Some(Instant::now()));
        assert!(late.iter().all(|r| r == &Err(RunFailure::NotRun)));
        for (i, r) in results.iter().enumerate() {
            if i == 3 {
                assert!(matches!(r, Err(RunFailure::Reported { .. })));
            } else {
                assert_eq!(r.as_ref().unwrap()["y"], Value::Number(2.0 * i as f64));
            }
        }
    }
}
