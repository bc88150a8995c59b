//! The figures of a solver chain: how many path queries each layer answered (and how), the
//! rounding queries of the model refiner and the time spent in Z3.

use super::query::{Layer, QueryOutcome};
use std::time::Duration;

/// The answers one layer gave.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LayerStats {
    pub sat: u64,
    pub unsat: u64,
    /// Queries the layer gave up on last (no later layer tried them).
    pub unknown: u64,
}

impl LayerStats {
    /// Every answer of the layer.
    pub fn answers(&self) -> u64 {
        self.sat + self.unsat + self.unknown
    }
}

/// Counters of one chain.
#[derive(Debug, Default, Clone, Copy)]
pub struct SessionStats {
    /// Satisfiability checks for path conditions (answered by any layer).
    pub path_queries: u64,
    /// Extra checks made to round money and date inputs.
    pub soft_queries: u64,
    /// Rounding queries answered "no" without Z3: a constraint over the fixed and pinned
    /// variables alone is false at the candidate (not counted in `soft_queries`).
    pub soft_refuted: u64,
    /// Time spent in Z3 checks.
    pub solver_time: Duration,
    /// Path queries answered without Z3 (included in `path_queries`).
    pub fast_queries: u64,
    /// Of those, the ones answered by a model guessed near the last inputs.
    pub guessed_queries: u64,
    /// Path queries the first Z3 solver gave up on and that went to a fresh solver
    /// (included in `path_queries`).
    pub fresh_queries: u64,
    /// The answers of each layer, indexed in the order of [`Layer::ALL`].
    pub by_layer: [LayerStats; Layer::ALL.len()],
}

impl SessionStats {
    /// The answers of one layer.
    pub fn of(&self, layer: Layer) -> LayerStats {
        self.by_layer[layer.index()]
    }

    /// Counts one answer of `layer`.
    pub(crate) fn count(&mut self, layer: Layer, outcome: QueryOutcome) {
        self.path_queries += 1;
        if !layer.is_z3() {
            self.fast_queries += 1;
        }
        if layer == Layer::Guess {
            self.guessed_queries += 1;
        }
        let s = &mut self.by_layer[layer.index()];
        match outcome {
            QueryOutcome::Sat => s.sat += 1,
            QueryOutcome::Unsat => s.unsat += 1,
            QueryOutcome::Unknown => s.unknown += 1,
        }
    }
}
