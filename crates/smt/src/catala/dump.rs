//! A wrapper around the Z3 layers that writes every path query they give up on to a
//! directory as an SMT-LIB 2 file, `unknown-PID-N.smt2` (N: the query's number in the
//! exploration), for inspection with another solver or in a bug report: the declarations and
//! assertions of the globals and the path condition, Z3's reason for giving up as a comment,
//! and `(check-sat)`. A query ended by the exploration's stop is not written (it was not
//! given up on). Writing is best effort: the caller creates the directory, and a file that
//! cannot be written is skipped while the exploration goes on.

use super::query::{EncodeError, ModelSource, PathQuery};
use super::z3_base::SharedZ3;
use crate::layer::{SolverLayer, Verdict};
use std::path::PathBuf;

/// Writes the queries `inner` gives up on to `dir` (nothing when `dir` is `None`).
pub struct DumpUnknown<L> {
    pub(crate) inner: L,
    dir: Option<PathBuf>,
    /// Files written.
    pub(crate) written: u64,
    base: SharedZ3,
}

impl<L> DumpUnknown<L> {
    pub(crate) fn new(inner: L, dir: Option<PathBuf>, base: SharedZ3) -> DumpUnknown<L> {
        DumpUnknown {
            inner,
            dir,
            written: 0,
            base,
        }
    }

    fn write(&mut self, dir: &std::path::Path, q: &PathQuery<'_>) {
        let mut base = self.base.borrow_mut();
        let Ok(script) = base.encoder.smt_lib(q.terms) else {
            return;
        };
        let text = format!(
            "; reason unknown: {}\n{script}\n(check-sat)\n",
            base.reason_unknown
        );
        let file = dir.join(format!("unknown-{}-{}.smt2", std::process::id(), q.asked));
        if std::fs::write(&file, text).is_ok() {
            self.written += 1;
        }
    }
}

impl<'a, L> SolverLayer<PathQuery<'a>> for DumpUnknown<L>
where
    L: SolverLayer<PathQuery<'a>, Model = ModelSource, Error = EncodeError>,
{
    type Model = ModelSource;
    type Error = EncodeError;

    fn decide(&mut self, q: &PathQuery<'a>) -> Result<Option<Verdict<ModelSource>>, EncodeError> {
        let verdict = self.inner.decide(q)?;
        if let (Some(Verdict::Unknown), Some(dir)) = (&verdict, self.dir.clone()) {
            if !self.base.borrow().stop.reached() {
                self.write(&dir, q);
            }
        }
        Ok(verdict)
    }

    fn learn(&mut self, q: &PathQuery<'a>, verdict: &Verdict<ModelSource>) {
        self.inner.learn(q, verdict);
    }
}
