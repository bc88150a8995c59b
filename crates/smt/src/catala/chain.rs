//! The concolic solver chain, assembled in one place ([`assemble`]) from a [`ChainConfig`]
//! (which the concolic engine builds from its table of optimizations): exact answers without
//! Z3 ([`FiniteAnswers`]), the slices found unsatisfiable before ([`UnsatSlices`]),
//! refutations by intervals ([`Intervals`]), models guessed near the last inputs
//! ([`Guesses`]), refutations by intervals with sign splits, then the Z3 layers inside the SMT-LIB dump wrapper: the solver holding the
//! path condition ([`Z3Incremental`]) and, when it is incremental, the fresh solver with its
//! case split ([`Z3Fresh`]). A layer that is off is `None` and passes every query on.
//!
//! The refutations come before the guesses: a guess can only fail on an unsatisfiable query,
//! and it fails after its whole search (probes, candidates, depth-first search), while the
//! intervals refute most unsatisfiable queries of the housing benefits in a few narrowing
//! rounds. Either order gives the same answers (a guess is checked exactly; a refutation is
//! sound), so only the time changes: on the current housing module's first 10,000 tests,
//! 47 s with the guesses first against 36 s with the refutations first. The sign splits of
//! the intervals (a case analysis on factors of products) are a second interval layer after
//! the guesses: on a satisfiable query they were half the intervals' work for nothing (a
//! small program's whole process: 2 % of its instructions), and the queries only they refute
//! are few (the first 25,000 tests of the housing module took the same time either way).
//!
//! A new layer is a type implementing [`SolverLayer`] over [`super::PathQuery`] (model
//! [`super::ModelSource`], error [`super::EncodeError`]) that records itself with
//! [`super::PathQuery::answer_from`] when it answers, a variant of [`super::Layer`], a field of
//! [`ChainConfig`] when it can be switched, and its place in [`Layers`] and [`assemble`].
//!
//! [`SolverLayer`]: crate::layer::SolverLayer

use super::dump::DumpUnknown;
use super::finite::FiniteAnswers;
use super::guess::Guesses;
use super::intervals::Intervals;
use super::prefer::Preferences;
use super::term::VarId;
use super::unsat_slices::UnsatSlices;
use super::z3_base::SharedZ3;
use super::z3_fresh::Z3Fresh;
use super::z3_incremental::Z3Incremental;
use crate::layer::Chain;
use crate::Stop;
use std::path::PathBuf;
use std::time::Duration;

/// What a chain is made of.
#[derive(Debug, Clone, Default)]
pub struct ChainConfig {
    /// How long one whole query may take, every layer and check together (`None`: no
    /// limit); also the limit of each rounding query.
    pub query_timeout: Option<Duration>,
    /// Keep the path condition on a push/pop stack, and give the queries this solver gives
    /// up on to a fresh solver; otherwise assert each query anew, once.
    pub incremental: bool,
    /// The finite layer, with the variables it leaves to Z3 (money amounts, which Z3
    /// rounds); `None`: off.
    pub finite: Option<Vec<VarId>>,
    /// The guessing layer, with the money variables (guessed at multiples of $100 first);
    /// `None`: off.
    pub guesses: Option<Vec<VarId>>,
    /// Remember the slices of the queries found unsatisfiable, and answer the queries
    /// containing one without Z3.
    pub unsat_slices: bool,
    /// Refute, without Z3, the queries whose constraints cannot all hold within the bounds
    /// they give each subterm.
    pub intervals: bool,
    /// Date variables (day numbers) to give round values in every layer's models.
    pub round_dates: Vec<VarId>,
    /// The realistic ranges every layer's models prefer (never constraints).
    pub preferences: Preferences,
    /// Where to write the queries Z3 gives up on (`None`: nowhere).
    pub dump_unknown: Option<PathBuf>,
    /// When every check must end (the exploration's deadline, Ctrl-C).
    pub stop: Stop,
}

/// The Z3 layers: the first solver, then the fresh one.
pub(crate) type Z3Layers = Chain<Z3Incremental, Option<Z3Fresh>>;

/// The layers in the order they are asked.
pub(crate) type Layers = Chain<
    Option<FiniteAnswers>,
    Chain<
        Option<UnsatSlices>,
        Chain<
            Option<Intervals>,
            Chain<Option<Guesses>, Chain<Option<Intervals>, DumpUnknown<Z3Layers>>>,
        >,
    >,
>;

/// The chain of `config`, its Z3 layers sharing `z3`.
pub(crate) fn assemble(config: &ChainConfig, z3: &SharedZ3) -> Layers {
    let finite = config.finite.clone().map(|kept| {
        let mut f = FiniteAnswers::new(kept);
        f.dates = config.round_dates.clone();
        f.preferences = config.preferences.clone();
        f
    });
    let guesses = config.guesses.clone().map(|money| {
        let mut g = Guesses::new(money);
        g.dates = config.round_dates.clone();
        g.preferences = config.preferences.clone();
        g
    });
    let z3_layers = Chain {
        first: Z3Incremental::new(z3.clone(), config.incremental),
        then: config.incremental.then(|| Z3Fresh::new(z3.clone())),
    };
    Chain {
        first: finite,
        then: Chain {
            first: config.unsat_slices.then(UnsatSlices::new),
            then: Chain {
                first: config.intervals.then(Intervals::plain),
                then: Chain {
                    first: guesses,
                    then: Chain {
                        first: config.intervals.then(Intervals::splitting),
                        then: DumpUnknown::new(z3_layers, config.dump_unknown.clone(), z3.clone()),
                    },
                },
            },
        },
    }
}
