//! Law coverage: which rules a run applied. [`Coverage`] is a companion that carries nothing
//! with values and only counts, per source position, the default terms reached, the rule
//! consequences used (their justification held) and the assertions checked. It is a separate
//! type from `()`, so concrete runs keep their empty, inlined hooks and pay nothing; a run with
//! coverage is the same evaluator instantiated with this companion.

use super::companion::{BranchEvent, Companion, Composite, Projection};
use super::interpreter::Interpreter;
use super::{AssertionFailure, RuntimeError};
use crate::runtime::Value;
use catala_ir::dcalc::{BinaryOp, ScopeId, UnaryOp};
use catala_syntax::Span;
use std::collections::HashMap;

/// The companion of runs that record coverage (zero-sized).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Coverage;

/// What one or more runs reached, by source position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CoverageLog {
    /// Default terms whose exceptions were evaluated (the term was considered), and how often.
    pub defaults: HashMap<Span, u64>,
    /// Justifications evaluated: (true, false) counts.
    pub justifications: HashMap<Span, (u64, u64)>,
    /// Rule consequences that gave their default term's value.
    pub consequences: HashMap<Span, u64>,
    /// Assertions checked: (held, failed) counts.
    pub assertions: HashMap<Span, (u64, u64)>,
}

impl CoverageLog {
    /// Adds the counts of `other`.
    pub fn merge(&mut self, other: &CoverageLog) {
        for (s, n) in &other.defaults {
            *self.defaults.entry(*s).or_default() += n;
        }
        for (s, (t, f)) in &other.justifications {
            let e = self.justifications.entry(*s).or_default();
            e.0 += t;
            e.1 += f;
        }
        for (s, n) in &other.consequences {
            *self.consequences.entry(*s).or_default() += n;
        }
        for (s, (h, f)) in &other.assertions {
            let e = self.assertions.entry(*s).or_default();
            e.0 += h;
            e.1 += f;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.defaults.is_empty()
            && self.justifications.is_empty()
            && self.consequences.is_empty()
            && self.assertions.is_empty()
    }
}

impl Companion for Coverage {
    type Session = CoverageLog;

    #[inline(always)]
    fn constant(_: &mut CoverageLog, _: &Value) -> Coverage {
        Coverage
    }

    #[inline(always)]
    fn unary(_: &mut CoverageLog, _: UnaryOp, _: (&Value, &Coverage), _: &Value) -> Coverage {
        Coverage
    }

    #[inline(always)]
    fn binary(
        _: &mut CoverageLog,
        _: BinaryOp,
        _: (&Value, &Coverage),
        _: (&Value, &Coverage),
        _: &Value,
    ) -> Coverage {
        Coverage
    }

    #[inline(always)]
    fn compose(_: &mut CoverageLog, _: Composite, _: Vec<Coverage>, _: &Value) -> Coverage {
        Coverage
    }

    #[inline(always)]
    fn project(_: &mut CoverageLog, _: Projection, _: (&Value, &Coverage), _: &Value) -> Coverage {
        Coverage
    }

    fn branch(log: &mut CoverageLog, event: BranchEvent<'_, Coverage>) {
        match event {
            BranchEvent::Exceptions { span, .. } => *log.defaults.entry(span).or_default() += 1,
            BranchEvent::Justification { span, taken, .. } => {
                let e = log.justifications.entry(span).or_default();
                if taken {
                    e.0 += 1
                } else {
                    e.1 += 1
                }
            }
            BranchEvent::Assertion { span, holds, .. } => {
                let e = log.assertions.entry(span).or_default();
                if holds {
                    e.0 += 1
                } else {
                    e.1 += 1
                }
            }
            _ => {}
        }
    }

    fn consequence(log: &mut CoverageLog, span: Span) {
        *log.consequences.entry(span).or_default() += 1;
    }
}

/// How a covered run ended.
#[derive(Clone, Debug)]
pub enum CoveredOutcome {
    /// The scope ran; these assertions failed.
    Ran(Vec<AssertionFailure>),
    /// An assertion failed, then an error ended the run: the inputs are outside the scope's
    /// input space (as a concolic exploration reports them), the error is not the program's.
    OutsideInputs(Vec<AssertionFailure>),
    Error(RuntimeError),
}

/// Runs `scope` on `inputs` with an interpreter prepared once, returning how the run ended and
/// what it covered (the log is emptied for the next run).
pub fn run_covered(
    interp: &mut Interpreter<'_, Coverage>,
    scope: ScopeId,
    inputs: Vec<Option<Value>>,
) -> (CoveredOutcome, CoverageLog) {
    let args = inputs
        .into_iter()
        .map(|v| v.map(|v| (v, Coverage)))
        .collect();
    let outcome = match interp.run(scope, args) {
        Ok((_, failures)) => CoveredOutcome::Ran(failures),
        Err(e) => {
            let failures = interp.take_failures();
            if failures.is_empty() {
                CoveredOutcome::Error(e)
            } else {
                CoveredOutcome::OutsideInputs(failures)
            }
        }
    };
    (outcome, std::mem::take(&mut interp.session))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merging_adds_counts() {
        let s = Span::default();
        let mut a = CoverageLog::default();
        a.justifications.insert(s, (1, 2));
        a.consequences.insert(s, 1);
        let mut b = CoverageLog::default();
        b.justifications.insert(s, (3, 0));
        b.assertions.insert(s, (0, 1));
        a.merge(&b);
        assert_eq!(a.justifications[&s], (4, 2));
        assert_eq!(a.consequences[&s], 1);
        assert_eq!(a.assertions[&s], (0, 1));
        assert!(!a.is_empty());
        assert!(CoverageLog::default().is_empty());
    }
}
