//! Settings of an exploration: the optimizations of Section 4 of the paper, each switchable
//! and each described once in the table [`OPTIMIZATIONS`] (name, where it acts, help line),
//! from which `--optim` is parsed and its help and errors are written; and the limits, hints
//! and outputs asked for.

use crate::checkpoint::Checkpoint;
use crate::ConcolicError;
use std::time::Duration;

/// The optimizations of Section 4, each switchable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Optimizations {
    /// Drop constraints without variables and repeated constraints.
    pub trivial_constraints: bool,
    /// Push/pop the path condition instead of re-asserting it.
    pub incremental: bool,
    /// Refine models towards round money amounts.
    pub soft_constraints: bool,
    /// Fold the cases of a `match` that share their arm into one branch.
    pub case_folding: bool,
    /// Stop evaluating a default term's exceptions at the second non-empty one (Fig. 9).
    pub lazy_defaults: bool,
    /// Group the exceptions of default terms by free variables (exception packing).
    pub exception_packing: bool,
    /// Early conflicts (Fig. 10): when an exception of a default term fails, the constraints
    /// of the earlier exceptions did not cause the failure, so the other outcomes of those
    /// exceptions are explored only among inputs that avoid the failing exception's path.
    pub early_conflicts: bool,
    /// Answer queries over dates, enumeration cases and booleans compared with constants
    /// without Z3 (`smt::catala::finite`); the money variables always go to Z3, which rounds
    /// them.
    pub fast_queries: bool,
    /// Before asking Z3, look for a model near the last inputs, changing only the variables
    /// of the violated constraints (`smt::catala::guess`; money at multiples of $100 first). Only
    /// satisfiable queries are answered this way, always with a checked model.
    pub guesses: bool,
    /// Remember the part of each unsatisfiable query that shares variables with its negated
    /// constraint (when the rest holds on the last inputs), and answer every later query
    /// containing that part "unsatisfiable" without Z3 (`smt::catala::unsat_slices`).
    pub unsat_slices: bool,
    /// Before asking Z3, refute the queries whose constraints cannot all hold within the
    /// bounds they give each subterm (`smt::catala::intervals`: signs of products, ranges of
    /// roundings); only unsatisfiable queries are answered this way.
    pub intervals: bool,
    /// Check the explored scope's assertions on its inputs alone before its body
    /// (`catala_eval::eval::input_assertions`), record those that hold as fixed constraints
    /// and end the path at one that fails: only the inputs the assertions admit (the input
    /// space the scope states) are explored, and a run outside it (a starting input) is one
    /// test, not a finding. Without it, Catala checks the assertions after the whole scope, and
    /// every path of the computation on inputs outside them is explored too.
    pub input_space: bool,
}

impl Optimizations {
    pub const ALL: Optimizations = Optimizations {
        trivial_constraints: true,
        incremental: true,
        soft_constraints: true,
        case_folding: true,
        lazy_defaults: true,
        exception_packing: true,
        early_conflicts: true,
        fast_queries: true,
        guesses: true,
        unsat_slices: true,
        intervals: true,
        input_space: true,
    };
    pub const NONE: Optimizations = Optimizations {
        trivial_constraints: false,
        incremental: false,
        soft_constraints: false,
        case_folding: false,
        lazy_defaults: false,
        exception_packing: false,
        early_conflicts: false,
        fast_queries: false,
        guesses: false,
        unsat_slices: false,
        intervals: false,
        input_space: false,
    };

    /// The switch of one optimization.
    pub(crate) fn switch(&mut self, which: Switch) -> &mut bool {
        match which {
            Switch::Trivial => &mut self.trivial_constraints,
            Switch::Incremental => &mut self.incremental,
            Switch::Soft => &mut self.soft_constraints,
            Switch::Folding => &mut self.case_folding,
            Switch::Lazy => &mut self.lazy_defaults,
            Switch::Reorder => &mut self.exception_packing,
            Switch::Early => &mut self.early_conflicts,
            Switch::Fast => &mut self.fast_queries,
            Switch::Guess => &mut self.guesses,
            Switch::Slices => &mut self.unsat_slices,
            Switch::Intervals => &mut self.intervals,
            Switch::InputSpace => &mut self.input_space,
        }
    }

    /// Whether one optimization is on.
    pub(crate) fn is_on(&self, which: Switch) -> bool {
        let mut copy = *self;
        *copy.switch(which)
    }

    /// The names of the optimizations that are on, in the order of [`OPTIMIZATIONS`].
    #[cfg(test)]
    pub(crate) fn names_on(&self) -> Vec<&'static str> {
        OPTIMIZATIONS
            .iter()
            .filter(|o| self.is_on(o.switch))
            .map(|o| o.name)
            .collect()
    }

    /// The solver chain these optimizations ask for: one setting per entry of
    /// [`OPTIMIZATIONS`] of kind [`OptimizationKind::SolverLayer`] that is on. `money` are the
    /// money variables (left to Z3 by the finite layer, guessed at round amounts), `dates`
    /// the date variables (given round values by every layer when `soft` is on); the limits
    /// and outputs of the run are the caller's to add.
    pub fn solver_chain(
        &self,
        money: &[smt::catala::VarId],
        dates: &[smt::catala::VarId],
    ) -> smt::catala::ChainConfig {
        let mut chain = smt::catala::ChainConfig::default();
        let layers = OPTIMIZATIONS
            .iter()
            .filter(|o| o.kind == OptimizationKind::SolverLayer && self.is_on(o.switch));
        for o in layers {
            match o.switch {
                Switch::Incremental => chain.incremental = true,
                Switch::Fast => chain.finite = Some(money.to_vec()),
                Switch::Guess => chain.guesses = Some(money.to_vec()),
                Switch::Slices => chain.unsat_slices = true,
                Switch::Intervals => chain.intervals = true,
                Switch::Soft => chain.round_dates = dates.to_vec(),
                _ => {}
            }
        }
        chain
    }

    /// Parses `none`, `all` or a comma list of the names of [`OPTIMIZATIONS`]; `all,-NAME`
    /// turns one off.
    pub fn parse(text: &str) -> Result<Optimizations, ConcolicError> {
        match text.trim() {
            "all" => return Ok(Optimizations::ALL),
            "none" => return Ok(Optimizations::NONE),
            _ => {}
        }
        let mut o = Optimizations::NONE;
        for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, on) = match name.strip_prefix('-') {
                Some(rest) => (rest, false),
                None => (name, true),
            };
            match name {
                "all" => {
                    o = if on {
                        Optimizations::ALL
                    } else {
                        Optimizations::NONE
                    }
                }
                "none" => o = Optimizations::NONE,
                other => match OPTIMIZATIONS.iter().find(|e| e.name == other) {
                    Some(entry) => *o.switch(entry.switch) = on,
                    None => return Err(ConcolicError::UnknownOptimization(other.to_string())),
                },
            }
        }
        Ok(o)
    }
}

/// The optimizations, one per field of [`Optimizations`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Switch {
    Trivial,
    Incremental,
    Soft,
    Folding,
    Lazy,
    Reorder,
    Early,
    Fast,
    Guess,
    Slices,
    Intervals,
    InputSpace,
}

/// Where an optimization acts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OptimizationKind {
    /// Rewrites a copy of the program before the exploration.
    ProgramPass,
    /// Changes what the symbolic companion records or how the interpreter evaluates with it.
    CompanionFlag,
    /// Changes how path queries are answered (a layer of the solver chain, or the Z3 session).
    SolverLayer,
    /// Changes how the search uses the answers.
    Search,
}

impl OptimizationKind {
    pub fn label(self) -> &'static str {
        match self {
            OptimizationKind::ProgramPass => "program pass",
            OptimizationKind::CompanionFlag => "companion flag",
            OptimizationKind::SolverLayer => "solver layer",
            OptimizationKind::Search => "search",
        }
    }
}

/// One entry of the table of optimizations.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Optimization {
    /// The name `--optim` takes.
    pub name: &'static str,
    pub switch: Switch,
    pub kind: OptimizationKind,
    /// One line for `--help`.
    pub help: &'static str,
}

/// Every optimization: option parsing, `--help` and error messages read this table.
pub(crate) const OPTIMIZATIONS: &[Optimization] = &[
    Optimization {
        name: "trivial",
        switch: Switch::Trivial,
        kind: OptimizationKind::CompanionFlag,
        help: "drop constraints without variables and repeated ones; fold constant operands",
    },
    Optimization {
        name: "incremental",
        switch: Switch::Incremental,
        kind: OptimizationKind::SolverLayer,
        help: "push/pop the path condition in Z3 instead of asserting it anew",
    },
    Optimization {
        name: "soft",
        switch: Switch::Soft,
        kind: OptimizationKind::SolverLayer,
        help: "pull money inputs towards round amounts ($100, $10, $1)",
    },
    Optimization {
        name: "folding",
        switch: Switch::Folding,
        kind: OptimizationKind::ProgramPass,
        help: "fold the cases of a match that share their arm into one branch",
    },
    Optimization {
        name: "lazy",
        switch: Switch::Lazy,
        kind: OptimizationKind::CompanionFlag,
        help: "stop a default term's exceptions at the second applicable one (a conflict)",
    },
    Optimization {
        name: "reorder",
        switch: Switch::Reorder,
        kind: OptimizationKind::ProgramPass,
        help: "pack the exceptions of default terms by the variables they read",
    },
    Optimization {
        name: "early",
        switch: Switch::Early,
        kind: OptimizationKind::Search,
        help: "early conflicts: a failing exception prunes the other outcomes of earlier ones",
    },
    Optimization {
        name: "fast",
        switch: Switch::Fast,
        kind: OptimizationKind::SolverLayer,
        help: "decide conditions over dates, enumerations and booleans exactly, without Z3",
    },
    Optimization {
        name: "guess",
        switch: Switch::Guess,
        kind: OptimizationKind::SolverLayer,
        help: "guess models near the last inputs, checked exactly, before asking Z3",
    },
    Optimization {
        name: "slices",
        switch: Switch::Slices,
        kind: OptimizationKind::SolverLayer,
        help: "answer a query without Z3 when its part on the negated branch's variables was unsatisfiable before",
    },
    Optimization {
        name: "intervals",
        switch: Switch::Intervals,
        kind: OptimizationKind::SolverLayer,
        help: "refute a query without Z3 when its constraints cannot hold within the bounds they give each subterm",
    },
    Optimization {
        name: "input-space",
        switch: Switch::InputSpace,
        kind: OptimizationKind::CompanionFlag,
        help: "check the scope's assertions on its inputs first and explore only the inputs they admit",
    },
];

/// The names of [`OPTIMIZATIONS`], comma-separated.
pub(crate) fn optimization_names() -> String {
    OPTIMIZATIONS
        .iter()
        .map(|o| o.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The one-line help of `--optim`.
pub fn optim_help() -> String {
    format!(
        "Optimizations: none, all, or a comma list of {}; `all,-NAME` turns one off",
        optimization_names()
    )
}

/// The long help of `--optim`: one line per optimization, with where it acts.
pub fn optim_long_help() -> String {
    let mut text = optim_help();
    text.push_str(" (all on by default):");
    for o in OPTIMIZATIONS {
        text.push_str(&format!(
            "\n  {:<12} {} ({})",
            o.name,
            o.help,
            o.kind.label()
        ));
    }
    text
}

/// The order in which a scope's independent definitions are evaluated, in the runs of an
/// exploration. It decides which of two failing definitions stops a run, hence each test's
/// outcome and the set of paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EvaluationOrder {
    /// Catala's order, the program's as compiled: the one `lexprobe run` evaluates, so each
    /// test ends as the run on its inputs does.
    #[default]
    Catala,
    /// The order of the Catala compiler CUTECat (the paper's implementation) was built on
    /// ([`crate::reorder::cutecat_order`]): reproduces the paper's path counts. A test's path
    /// may then end differently from the run on its inputs: its outcome is the run's, and the
    /// exploration says so in `incomplete`.
    Paper,
}

impl EvaluationOrder {
    /// The name `--order` takes.
    pub fn name(self) -> &'static str {
        match self {
            EvaluationOrder::Catala => "catala",
            EvaluationOrder::Paper => "paper",
        }
    }

    /// Parses a name of [`EvaluationOrder::name`].
    pub fn parse(text: &str) -> Option<EvaluationOrder> {
        [EvaluationOrder::Catala, EvaluationOrder::Paper]
            .into_iter()
            .find(|o| o.name() == text.trim())
    }
}

/// The order in which an exploration visits the paths (its searcher, see [`crate::searcher`]).
/// All visit the same set of paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// Depth-first, negating the last open constraint (Section 3 of the paper).
    #[default]
    DepthFirst,
    /// Depth-first, except that the deepest open constraint whose negation leads to a branch
    /// no run has taken yet (a condition's other outcome, another case of a match) goes
    /// first; the open constraints below it are set aside as subtrees and explored later.
    /// Problems sitting behind an untried branch are found sooner. Not with checkpoints.
    NewBranchesFirst,
    /// The open constraint whose negation leads the way runs took least often goes first
    /// (`crate::coverage_guided`); the open constraints below it are set aside as subtrees.
    /// Not with checkpoints.
    CoverageGuided,
}

impl Strategy {
    /// The searcher of this order.
    pub(crate) fn searcher(self) -> Box<dyn crate::searcher::Searcher> {
        match self {
            Strategy::DepthFirst => Box::new(crate::searcher::DepthFirst),
            Strategy::NewBranchesFirst => Box::new(crate::searcher::NewBranchesFirst),
            Strategy::CoverageGuided => Box::new(crate::coverage_guided::CoverageGuided),
        }
    }
}

/// Settings of an exploration.
#[derive(Clone, Debug)]
pub struct ExploreOptions {
    pub optimizations: Optimizations,
    /// The order of the definitions in the runs (Catala's by default).
    pub order: EvaluationOrder,
    pub strategy: Strategy,
    /// Stop after this many tests found by this process (a resumed exploration finds this
    /// many more).
    pub max_tests: Option<usize>,
    /// Stop this long after the start (a solver check in flight is interrupted).
    pub timeout: Option<Duration>,
    /// Stop when this flag is raised (e.g. by a Ctrl-C handler); a solver check in flight is
    /// interrupted.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Initial inputs (a JSON object keyed by input name, possibly partial).
    pub hints: Option<serde_json::Value>,
    /// Replay every test on the plain interpreter.
    pub check: bool,
    /// Keep each test's path condition (printed terms).
    pub keep_constraints: bool,
    /// Give each test that ends in a runtime error its path condition over the inputs
    /// ([`crate::TestCase::condition`]), from which a problem's condition is made.
    pub keep_conditions: bool,
    /// Keep the tests in [`Exploration::tests`]; a streaming caller that consumes each test as
    /// it is found turns this off so memory stays flat on explorations of any length.
    pub keep_tests: bool,
    /// Continue a sequential exploration from this checkpoint.
    pub resume: Option<Checkpoint>,
    /// Hand a checkpoint to the caller this often (and when a limit stops the exploration).
    pub checkpoint_every: Option<Duration>,
    /// The solver gives up on a query after this long (counted in `unknown_queries`).
    pub query_timeout: Option<Duration>,
    /// Write the path queries the solver gives up on to this directory (SMT-LIB 2).
    pub dump_unknown: Option<std::path::PathBuf>,
    /// The most elements of a list input (each length is a branch); a hint's longer list
    /// raises its own list's bound (see [`crate::inputs::Bounds`]).
    pub max_list_length: usize,
    /// The first and last dates the inputs are preferred within (widened to whole years);
    /// `None`: the years of the program's date literals (see [`crate::inputs::realism`]). A
    /// preference, never a constraint: paths needing other dates are still explored.
    pub date_range: Option<(catala_eval::runtime::Date, catala_eval::runtime::Date)>,
}

impl Default for ExploreOptions {
    fn default() -> Self {
        ExploreOptions {
            optimizations: Optimizations::ALL,
            order: EvaluationOrder::Catala,
            strategy: Strategy::DepthFirst,
            max_tests: None,
            timeout: None,
            cancel: None,
            hints: None,
            check: true,
            keep_constraints: false,
            keep_conditions: false,
            keep_tests: true,
            resume: None,
            checkpoint_every: None,
            query_timeout: Some(Duration::from_secs(60)),
            dump_unknown: None,
            max_list_length: crate::inputs::DEFAULT_MAX_LIST_LENGTH,
            date_range: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_optimization_has_one_entry_and_parses_by_its_name() {
        let mut seen = Optimizations::NONE;
        for o in OPTIMIZATIONS {
            let parsed = Optimizations::parse(o.name).ok();
            let mut alone = Optimizations::NONE;
            *alone.switch(o.switch) = true;
            assert_eq!(parsed, Some(alone), "{}", o.name);
            let without = Optimizations::parse(&format!("all,-{}", o.name)).ok();
            assert_eq!(without.map(|w| w.is_on(o.switch)), Some(false));
            *seen.switch(o.switch) = true;
        }
        assert_eq!(seen, Optimizations::ALL, "every field is in the table");
        assert_eq!(Optimizations::ALL.names_on().len(), OPTIMIZATIONS.len());
    }

    #[test]
    fn unknown_names_are_reported_with_the_names_of_the_table() {
        let err = Optimizations::parse("trivial,magic")
            .err()
            .map(|e| e.to_string());
        let msg = err.unwrap_or_default();
        assert!(msg.contains("`magic`"), "{msg}");
        assert!(msg.contains(&optimization_names()), "{msg}");
        assert!(optim_long_help().contains("guess"));
    }

    #[test]
    fn the_solver_chain_has_the_layers_of_the_optimizations_on() {
        use smt::catala::VarId;
        let (money, dates) = ([VarId(1)], [VarId(2)]);
        let all = Optimizations::ALL.solver_chain(&money, &dates);
        assert!(all.incremental);
        assert_eq!(all.finite.as_deref(), Some(&money[..]));
        assert_eq!(all.guesses.as_deref(), Some(&money[..]));
        assert_eq!(all.round_dates, dates);
        let none = Optimizations::NONE.solver_chain(&money, &dates);
        assert!(!none.incremental && none.finite.is_none() && none.guesses.is_none());
        assert!(none.round_dates.is_empty());
        let some = Optimizations::parse("all,-guess,-soft,-incremental").ok();
        let some = some.map(|o| o.solver_chain(&money, &dates));
        assert!(some.is_some_and(|c| !c.incremental
            && c.finite.is_some()
            && c.guesses.is_none()
            && c.round_dates.is_empty()));
    }
}
