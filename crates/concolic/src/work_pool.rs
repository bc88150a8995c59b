//! The work pool: the subtrees of the path tree waiting to be explored. A searcher may set
//! open branches aside as subtrees (solved for now, explored later), and a worker hands its
//! shallowest open branch to another thread that waits for work; both go through a
//! [`WorkPool`]. A subtree is a [`Task`]: inputs whose run reaches it, the depth above which
//! its path belongs to someone else, and, for a subtree taken up from a checkpoint, the done
//! flags of its path. The sequential pool is [`Solo`]; the pool shared by the threads of
//! `--jobs` is in `crate::parallel`. The pool also holds what a checkpoint needs of the other
//! subtrees: a checkpoint is the state of the worker writing it plus the tasks waiting here.

use crate::checkpoint::{Checkpoint, SavedSubtree};
use crate::inputs::Assignment;
use std::cell::RefCell;

/// A unit of work: inputs reaching a subtree of the path tree, and its depth (the number of
/// leading path constraints that belong to another worker or were explored already).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Task {
    pub(crate) assignment: Assignment,
    pub(crate) floor: usize,
    /// For a subtree taken up from a checkpoint: whether the other side of each constraint
    /// of its path is explored (the constraints past the end are open).
    pub(crate) done: Option<Vec<bool>>,
}

impl Task {
    /// A subtree below `floor`, reached by `assignment`.
    pub(crate) fn new(assignment: Assignment, floor: usize) -> Task {
        Task {
            assignment,
            floor,
            done: None,
        }
    }

    /// The subtree as a checkpoint keeps it.
    pub(crate) fn saved(&self) -> SavedSubtree {
        SavedSubtree {
            assignment: self.assignment.clone(),
            done: match &self.done {
                Some(d) => d.clone(),
                None => vec![true; self.floor],
            },
            subtree: None,
        }
    }

    /// A subtree of a checkpoint, to explore again.
    pub(crate) fn from_saved(s: &SavedSubtree) -> Task {
        Task {
            assignment: s.assignment.clone(),
            floor: 0,
            done: Some(s.done.clone()),
        }
    }
}

/// Where a worker finds more work and shares its own (see `crate::parallel`).
pub(crate) trait WorkPool {
    /// Another worker waits for a subtree.
    fn hungry(&self) -> bool;
    /// Hands a subtree to another worker (or sets it aside for later).
    fn give(&self, task: Task);
    /// The next subtree, or `None` when the exploration is over; `figures` are those of the
    /// worker asking, for a checkpoint written while it waits.
    fn take(&self, figures: &dyn Fn() -> Checkpoint) -> Option<Task>;
    /// Counts a test; returns the number of tests so far, this one included.
    fn count_test(&self) -> usize;
    /// Ends the exploration (a limit was reached or the caller asked).
    fn stop(&self);
    fn is_stopped(&self) -> bool;
    /// The subtrees waiting, for a checkpoint.
    fn waiting(&self) -> Vec<SavedSubtree>;
    /// Whether a checkpoint of every worker is asked for (workers then call [`Self::pause`]
    /// before their next run).
    fn pause_asked(&self) -> bool {
        false
    }
    /// Hands this worker's state (before its next run) to a checkpoint of all workers, and
    /// waits until it is written.
    fn pause(&self, _state: Checkpoint) {}
}

/// The pool of a sequential exploration: nobody to share with, but subtrees set aside by a
/// searcher wait here (the last one set aside is taken first).
#[derive(Default)]
pub(crate) struct Solo {
    pub(crate) tests: std::cell::Cell<usize>,
    pub(crate) stopped: std::cell::Cell<bool>,
    deferred: RefCell<Vec<Task>>,
}

impl Solo {
    /// A pool holding the subtrees of `saved` (those of a checkpoint), the first on top.
    pub(crate) fn with_saved(saved: &[SavedSubtree]) -> Solo {
        let pool = Solo::default();
        pool.deferred
            .borrow_mut()
            .extend(saved.iter().rev().map(Task::from_saved));
        pool
    }
}

impl WorkPool for Solo {
    fn hungry(&self) -> bool {
        false
    }
    fn give(&self, task: Task) {
        self.deferred.borrow_mut().push(task);
    }
    fn take(&self, _: &dyn Fn() -> Checkpoint) -> Option<Task> {
        self.deferred.borrow_mut().pop()
    }
    fn count_test(&self) -> usize {
        self.tests.set(self.tests.get() + 1);
        self.tests.get()
    }
    fn stop(&self) {
        self.stopped.set(true);
    }
    fn is_stopped(&self) -> bool {
        self.stopped.get()
    }
    fn waiting(&self) -> Vec<SavedSubtree> {
        // The next taken first.
        self.deferred
            .borrow()
            .iter()
            .rev()
            .map(Task::saved)
            .collect()
    }
}
