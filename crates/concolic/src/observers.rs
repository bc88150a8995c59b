//! Observers of the exploration loop: what watches the loop without steering its search. Each
//! test found goes to the caller's test observer (streaming, progress, findings, result
//! files), which may stop the loop; the state of the loop goes to the checkpoint observer
//! ([`Checkpoints`]), which says when a checkpoint is due, keeps the figures of the checkpoint
//! the exploration continues (statistics and limits count from them) and, in a shard, the
//! subtree being explored and those left incomplete. The loop itself (`crate::exploration_loop`)
//! only says where its state can be saved.

use crate::checkpoint::{Checkpoint, SavedSubtree};
use crate::{Control, ExploreStats, TestCase};
use std::time::{Duration, Instant};

/// The checkpoint observer.
pub(crate) struct Checkpoints<'o> {
    /// Checkpoints are written this often (and when a limit stops the loop); `None`: never.
    every: Option<Duration>,
    last: Instant,
    /// The checkpoint this exploration continues: its figures are added to this one's.
    pub(crate) resumed: Option<Checkpoint>,
    /// The tests found before this exploration started (`max_tests` counts the others).
    pub(crate) tests_before: usize,
    /// In a shard: the position of the subtree being explored in the shard's list.
    pub(crate) shard_subtree: Option<usize>,
    /// In a shard: the positions of the subtrees done so far that could not be explored
    /// entirely.
    pub(crate) lost_subtrees: Vec<usize>,
    /// In a shard resumed from a checkpoint listing its subtrees: the subtrees still to
    /// explore after the current one, listed in every checkpoint written.
    pub(crate) shard_rest: Option<Vec<SavedSubtree>>,
    sink: Option<&'o mut dyn FnMut(&Checkpoint)>,
}

impl<'o> Checkpoints<'o> {
    /// Checkpoints every `every` (none when `None`), handed to `sink`.
    pub(crate) fn new(every: Option<Duration>, sink: &'o mut dyn FnMut(&Checkpoint)) -> Self {
        Checkpoints {
            every,
            last: Instant::now(),
            resumed: None,
            tests_before: 0,
            shard_subtree: None,
            lost_subtrees: Vec::new(),
            shard_rest: None,
            sink: Some(sink),
        }
    }

    /// Continues the figures of checkpoint `c`.
    pub(crate) fn resume_from(&mut self, c: &Checkpoint) {
        self.tests_before = c.tests;
        self.resumed = Some(c.clone());
    }

    /// Checkpoints are written.
    pub(crate) fn enabled(&self) -> bool {
        self.every.is_some()
    }

    /// A periodic checkpoint is due.
    pub(crate) fn due(&self) -> bool {
        self.every.is_some_and(|every| self.last.elapsed() >= every)
    }

    /// Hands `c` to the sink.
    pub(crate) fn write(&mut self, c: &Checkpoint) {
        self.last = Instant::now();
        let listed;
        let c = match &self.shard_rest {
            Some(rest) => {
                let mut l = c.clone();
                l.pending.extend(rest.iter().cloned());
                l.subtrees_listed = true;
                listed = l;
                &listed
            }
            None => c,
        };
        if let Some(sink) = &mut self.sink {
            sink(c);
        }
    }

    /// Solver calls, rounding calls, time and solver time of the explorations this one
    /// continues.
    pub(crate) fn resumed_figures(&self) -> (u64, u64, Duration, Duration) {
        self.resumed
            .as_ref()
            .map_or((0, 0, Duration::ZERO, Duration::ZERO), |c| {
                (
                    c.solver_calls,
                    c.soft_solver_calls,
                    c.elapsed,
                    c.solver_time,
                )
            })
    }
}

/// Everything that observes one worker's loop.
pub(crate) struct Observers<'o, 'c> {
    /// Each test, with its global index; may stop the loop.
    pub(crate) tests: &'o mut dyn FnMut(usize, &TestCase) -> Control,
    pub(crate) checkpoints: &'o mut Checkpoints<'c>,
    /// The figures of the loop: tests by outcome and roundness, relabelled outcomes,
    /// divergences, lemmas, unknown queries, the reason it stopped.
    pub(crate) stats: &'o mut ExploreStats,
}
