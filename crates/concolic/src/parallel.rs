//! Parallel exploration: `jobs` workers, each in its own thread with its own copy of the
//! program, its own interpreter and its own Z3 context, share the path tree. A worker explores
//! its subtree depth-first; when another worker waits for work, it hands out the shallowest
//! open branch of its stack (solving for inputs that reach it) and marks it done locally, so
//! every subtree is explored by exactly one worker and the set of paths is that of the
//! sequential exploration. (Early-conflict lemmas stay with the worker that learnt them: a
//! subtree handed out may then be pruned less than in a sequential run.) The exploration ends
//! when every worker waits and no subtree is left, or at a limit.

use crate::explore::{
    conclude, transform, Control, ExploreOptions, ExploreStats, Task, TestCase, WorkPool, Worker,
};
use crate::{ConcolicError, Exploration};
use catala_ir::dcalc::{Program, ScopeId};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

struct Queue {
    tasks: VecDeque<Task>,
    waiting: usize,
    finished: bool,
}

/// The subtrees waiting for a worker, and the counters every worker reads.
struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
    jobs: usize,
    waiting: AtomicUsize,
    queued: AtomicUsize,
    tests: AtomicUsize,
    stopped: AtomicBool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // A worker that panicked while holding the lock left the queue consistent (every
        // update is a single push or pop), so the poison is ignored.
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl WorkPool for Shared {
    fn hungry(&self) -> bool {
        self.waiting.load(Ordering::Relaxed) > self.queued.load(Ordering::Relaxed)
    }

    fn give(&self, task: Task) {
        let mut q = self.lock();
        q.tasks.push_back(task);
        self.queued.fetch_add(1, Ordering::Relaxed);
        self.wake.notify_one();
    }

    fn take(&self) -> Option<Task> {
        let mut q = self.lock();
        q.waiting += 1;
        self.waiting.fetch_add(1, Ordering::Relaxed);
        let task = loop {
            if self.stopped.load(Ordering::Relaxed) || q.finished {
                break None;
            }
            if let Some(t) = q.tasks.pop_front() {
                self.queued.fetch_sub(1, Ordering::Relaxed);
                break Some(t);
            }
            if q.waiting == self.jobs {
                // Nobody is exploring and nothing is queued: every path is covered.
                q.finished = true;
                self.wake.notify_all();
                break None;
            }
            q = self.wake.wait(q).unwrap_or_else(|p| p.into_inner());
        };
        q.waiting -= 1;
        self.waiting.fetch_sub(1, Ordering::Relaxed);
        task
    }

    fn count_test(&self) -> usize {
        self.tests.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        let _q = self.lock();
        self.wake.notify_all();
    }

    fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }
}

/// What a worker thread reports (plain data, to cross threads).
struct Summary {
    stats: ExploreStats,
    incomplete: Vec<String>,
    mismatches: Vec<(usize, String)>,
}

/// Explores `scope` with `jobs` workers. Each thread builds its own context with `setup`
/// (typically: load and compile the program; `program_of` reads the program from it) and calls
/// `on_test` with it for each test it finds (test indices are global; the order of the calls
/// is not that of a sequential run). Tests are not kept in the result, only the statistics.
pub fn explore_parallel<T, S, P, F>(
    jobs: usize,
    scope: ScopeId,
    options: &ExploreOptions,
    setup: S,
    program_of: P,
    on_test: F,
) -> Result<Exploration, ConcolicError>
where
    S: Fn() -> Result<T, String> + Sync,
    P: Fn(&T) -> &Program + Sync,
    F: Fn(&T, usize, &TestCase) -> Control + Sync,
{
    let jobs = jobs.max(1);
    let options = ExploreOptions {
        keep_tests: false,
        ..options.clone()
    };
    let shared = Shared {
        queue: Mutex::new(Queue {
            tasks: VecDeque::new(),
            waiting: 0,
            finished: false,
        }),
        wake: Condvar::new(),
        jobs,
        waiting: AtomicUsize::new(0),
        queued: AtomicUsize::new(0),
        tests: AtomicUsize::new(0),
        stopped: AtomicBool::new(false),
    };
    let start = Instant::now();
    let worker = |index: usize| -> Result<Summary, String> {
        let context = setup()?;
        let program = program_of(&context);
        let transformed = transform(program, &options);
        let mut w = Worker::new(program, &transformed, scope, &options, start)
            .map_err(|e| e.to_string())?;
        let initial = w.initial_assignment().map_err(|e| e.to_string())?;
        let first = (index == 0).then_some((initial, 0));
        let mut report = |i: usize, t: &TestCase| on_test(&context, i, t);
        w.run(first, &shared, &mut report)
            .map_err(|e| e.to_string())?;
        let e = w.finish(shared.is_stopped());
        Ok(Summary {
            stats: e.stats,
            incomplete: e.incomplete,
            mismatches: e.replay_mismatches,
        })
    };
    let results: Vec<Result<Summary, String>> = std::thread::scope(|threads| {
        let handles: Vec<_> = (0..jobs)
            .map(|index| {
                let worker = &worker;
                let shared = &shared;
                threads.spawn(move || {
                    let r = worker(index);
                    if r.is_err() {
                        shared.stop();
                    }
                    r
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a worker thread panicked".to_string()))
            })
            .collect()
    });
    let mut stats = ExploreStats {
        complete: true,
        ..ExploreStats::default()
    };
    let mut incomplete = Vec::new();
    let mut mismatches = Vec::new();
    for r in results {
        let s = r.map_err(ConcolicError::Worker)?;
        stats.tests += s.stats.tests;
        stats.solver_calls += s.stats.solver_calls;
        stats.soft_solver_calls += s.stats.soft_solver_calls;
        stats.queries_without_z3 += s.stats.queries_without_z3;
        stats.guessed_queries += s.stats.guessed_queries;
        stats.fresh_queries += s.stats.fresh_queries;
        stats.solver_time += s.stats.solver_time;
        stats.divergences += s.stats.divergences;
        stats.early_lemmas += s.stats.early_lemmas;
        stats.dropped_lemmas += s.stats.dropped_lemmas;
        stats.unknown_queries += s.stats.unknown_queries;
        stats.relabelled += s.stats.relabelled;
        // The worker that met the limit says which; the others stopped because it did.
        if stats.stopped_by.is_none() {
            stats.stopped_by = s.stats.stopped_by;
        }
        stats.complete &= s.stats.complete;
        for (k, n) in s.stats.by_outcome {
            *stats.by_outcome.entry(k).or_default() += n;
        }
        for (k, n) in s.stats.by_roundness {
            *stats.by_roundness.entry(k).or_default() += n;
        }
        incomplete.extend(s.incomplete);
        mismatches.extend(s.mismatches);
    }
    stats.complete &= !shared.is_stopped();
    stats.time = start.elapsed();
    incomplete.sort();
    incomplete.dedup();
    mismatches.sort();
    let mut e = Exploration {
        tests: Vec::new(),
        stats,
        incomplete,
        replay_mismatches: mismatches,
    };
    conclude(&mut e);
    Ok(e)
}
