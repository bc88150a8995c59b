//! What goes into the concolic solver chain and what comes out of it, shared by every layer: a
//! [`PathQuery`] (the globals and a path condition, with the [`Budget`] the whole query may
//! spend), the [`Answer`] (the outcome and the [`Layer`] that gave it), the values of a model
//! and the errors of the encoding. The layers import these types from here; none of them
//! depends on another layer.

use super::model::Z3Model;
use super::term::{Term, VarId};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Errors of the Catala encoding.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum EncodeError {
    #[error("ill-sorted term: {0}")]
    IllSorted(String),
    #[error("malformed numeric constant: {0}")]
    BadConstant(String),
}

/// The outcome of a path query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryOutcome {
    Sat,
    Unsat,
    Unknown,
}

/// The layers of the chain, in the order they are asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layer {
    /// Exact answers for conditions over constants-compared variables ([`super::finite`]).
    Finite,
    /// A query containing a slice found unsatisfiable before ([`super::unsat_slices`]).
    Slices,
    /// A model guessed near the last inputs and checked exactly ([`super::guess`]).
    Guess,
    /// Constraints that cannot all hold within the bounds they give each subterm
    /// ([`super::intervals`]).
    Intervals,
    /// The Z3 solver holding the path condition (push/pop, or asserted anew per query).
    Z3,
    /// A fresh Z3 solver, when the first one gave up.
    Z3Fresh,
    /// The fresh solver's case split on a count with few values (`case_split`).
    Z3Split,
}

impl Layer {
    /// Every layer, in chain order.
    pub const ALL: [Layer; 7] = [
        Layer::Finite,
        Layer::Slices,
        Layer::Guess,
        Layer::Intervals,
        Layer::Z3,
        Layer::Z3Fresh,
        Layer::Z3Split,
    ];

    /// Whether the layer is one of Z3's.
    pub fn is_z3(self) -> bool {
        matches!(self, Layer::Z3 | Layer::Z3Fresh | Layer::Z3Split)
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

/// The answer to a path query and the layer that gave it (for an unknown answer: the last
/// layer that gave up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    pub outcome: QueryOutcome,
    pub layer: Layer,
}

/// How long one whole query may take, every layer and every Z3 check of it together (the
/// incremental check, the fresh solver, each case of a split): a deadline, or none. A check
/// runs for the smaller of its own limit and what is left; a layer finding nothing left
/// answers unknown without asking Z3.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Budget {
    deadline: Option<Instant>,
}

impl Budget {
    /// No limit.
    pub fn unbounded() -> Budget {
        Budget { deadline: None }
    }

    /// Until `limit` from now (`None`: no limit).
    pub fn within(limit: Option<Duration>) -> Budget {
        Budget {
            deadline: limit.map(|l| Instant::now() + l),
        }
    }

    /// Until `deadline`.
    pub fn until(deadline: Instant) -> Budget {
        Budget {
            deadline: Some(deadline),
        }
    }

    /// The time left (`None`: no limit).
    pub(crate) fn remaining(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }

    /// Whether nothing is left.
    pub(crate) fn exhausted(&self) -> bool {
        self.remaining().is_some_and(|r| r.is_zero())
    }

    /// The limit of one check whose own limit is `own`: the smaller of the two.
    pub(crate) fn limit(&self, own: Option<Duration>) -> Option<Duration> {
        match (own, self.remaining()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// One path query as the layers see it.
pub(crate) struct PathQuery<'a> {
    /// The globals (input domains, assertions), then the path condition.
    pub(crate) terms: &'a [&'a Term],
    /// The path condition alone (the Z3 solver keeps the globals asserted below it).
    pub(crate) path: &'a [Term],
    /// Path queries of the exploration before this one.
    pub(crate) asked: u64,
    /// What the whole query may spend.
    pub(crate) budget: Budget,
    /// The layer that answered (set by it) or gave up last.
    answered_by: Cell<Option<Layer>>,
}

impl<'a> PathQuery<'a> {
    pub(crate) fn new(terms: &'a [&'a Term], path: &'a [Term], asked: u64, budget: Budget) -> Self {
        PathQuery {
            terms,
            path,
            asked,
            budget,
            answered_by: Cell::new(None),
        }
    }

    /// The globals alone.
    pub(crate) fn globals(&self) -> &'a [&'a Term] {
        &self.terms[..self.terms.len().saturating_sub(self.path.len())]
    }

    /// Records that `layer` answers (or gives up on) this query; a layer calls it when it
    /// returns a verdict.
    pub(crate) fn answer_from(&self, layer: Layer) {
        self.answered_by.set(Some(layer));
    }

    /// The layer recorded by [`PathQuery::answer_from`].
    pub(crate) fn answered_by(&self) -> Option<Layer> {
        self.answered_by.get()
    }
}

/// How round the money inputs of a model are (Table 5 of the paper).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RoundnessLevel {
    /// Every money variable is a multiple of $100 (or there is none).
    Hundreds,
    Tens,
    Units,
    /// Some amount has cents.
    Cents,
}

impl RoundnessLevel {
    /// The roundness of some amounts in cents.
    pub(crate) fn of_cents(amounts: &[i128]) -> RoundnessLevel {
        for (level, step) in [
            (RoundnessLevel::Hundreds, 10_000),
            (RoundnessLevel::Tens, 1_000),
            (RoundnessLevel::Units, 100),
        ] {
            if amounts.iter().all(|c| c % step == 0) {
                return level;
            }
        }
        RoundnessLevel::Cents
    }
}

/// A variable's value in a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelValue {
    Bool(bool),
    /// Decimal notation.
    Int(String),
    /// Numerator and positive denominator in decimal notation.
    Real(String, String),
}

/// The model of a satisfiable answer.
pub(crate) enum ModelSource {
    /// Z3's.
    Z3(Z3Model),
    /// Found without Z3: a value for every variable that occurs (the others are free).
    Own(BTreeMap<VarId, ModelValue>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_limits_each_check_to_what_is_left() {
        let own = Some(Duration::from_secs(3600));
        assert_eq!(Budget::unbounded().limit(own), own);
        assert_eq!(Budget::unbounded().limit(None), None);
        let b = Budget::within(Some(Duration::from_secs(60)));
        let left = b.limit(own).unwrap_or_default();
        assert!(left <= Duration::from_secs(60) && left > Duration::from_secs(50));
        assert_eq!(
            b.limit(Some(Duration::from_millis(5))),
            Some(Duration::from_millis(5))
        );
        let spent = Budget::until(Instant::now());
        assert!(spent.exhausted());
        assert_eq!(spent.limit(own), Some(Duration::ZERO));
        assert!(!b.exhausted() && !Budget::unbounded().exhausted());
    }

    #[test]
    fn layers_are_numbered_in_chain_order() {
        for (i, l) in Layer::ALL.iter().enumerate() {
            assert_eq!(l.index(), i);
        }
        assert!(!Layer::Guess.is_z3() && Layer::Z3Split.is_z3());
    }
}
