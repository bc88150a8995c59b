//! The live status line of long runs (`concolic`, `mutate`, `metamorphic`, `falsify`): a
//! spinner with the elapsed time and what the run has done so far (tests, problems, rate), drawn
//! by `indicatif` on the error stream, only when that stream is a terminal and `--quiet` is not
//! given, so that it never mixes into output read by programs. Cleared when the run ends.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Whether a status line is drawn: on a terminal, unless `--quiet`.
pub(crate) fn wanted(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A status line (or nothing, when not [`wanted`]). Shared by worker threads.
pub(crate) struct Status {
    bar: Option<ProgressBar>,
    started: Instant,
    tests: AtomicU64,
    errors: AtomicU64,
    assertions: AtomicU64,
    queries: AtomicU64,
}

impl Status {
    /// A status line headed by `what` (e.g. `concolic Test`) when `enabled`.
    pub(crate) fn new(enabled: bool, what: &str) -> Status {
        let bar = enabled.then(|| {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr_with_hz(8));
            let style =
                ProgressStyle::with_template("{spinner} {prefix} [{elapsed_precise}] {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner());
            bar.set_style(style);
            bar.set_prefix(what.to_string());
            bar.enable_steady_tick(Duration::from_millis(125));
            bar
        });
        Status {
            bar,
            started: Instant::now(),
            tests: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            assertions: AtomicU64::new(0),
            queries: AtomicU64::new(0),
        }
    }

    /// Whether anything is drawn.
    pub(crate) fn is_drawn(&self) -> bool {
        self.bar.is_some()
    }

    /// Replaces the message after the elapsed time.
    pub(crate) fn set_message(&self, message: String) {
        if let Some(bar) = &self.bar {
            bar.set_message(message);
        }
    }

    /// Prints a line above the status line (or on the error stream when none is drawn).
    pub(crate) fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// A concolic test was found, ending in `outcome` (`ok`, `assertion`, or an error kind),
    /// after `queries` more path queries.
    pub(crate) fn test(&self, outcome: &str, queries: u64) {
        let Some(bar) = &self.bar else {
            return;
        };
        let tests = self.tests.fetch_add(1, Ordering::Relaxed) + 1;
        let queries = self.queries.fetch_add(queries, Ordering::Relaxed) + queries;
        match outcome {
            "ok" => {}
            "assertion" => {
                self.assertions.fetch_add(1, Ordering::Relaxed);
            }
            _ => {
                self.errors.fetch_add(1, Ordering::Relaxed);
            }
        }
        let seconds = self.started.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!(
            "{tests} tests ({} with an error, {} outside the input space) · {queries} queries · {:.1} tests/s",
            self.errors.load(Ordering::Relaxed),
            self.assertions.load(Ordering::Relaxed),
            tests as f64 / seconds
        ));
    }

    /// Erases the status line.
    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Status {
    fn drop(&mut self) {
        self.finish();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_not_wanted_draws_nothing_and_counts_nothing() {
        let s = Status::new(false, "x");
        assert!(!s.is_drawn());
        s.test("conflict", 3);
        assert_eq!(s.tests.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn quiet_wins_over_a_terminal() {
        assert!(!wanted(true));
    }
}
