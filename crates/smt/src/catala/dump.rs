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
pub(crate) struct DumpUnknown<L> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::query::{Budget, Layer};
    use crate::catala::term::{app, int_const, var, Kind, Op, Term, VarId};
    use crate::catala::z3_base::Z3Base;
    use crate::Stop;

    /// A layer that gives up on everything.
    struct GivesUp;
    impl<'a> SolverLayer<PathQuery<'a>> for GivesUp {
        type Model = ModelSource;
        type Error = EncodeError;
        fn decide(
            &mut self,
            q: &PathQuery<'a>,
        ) -> Result<Option<Verdict<ModelSource>>, EncodeError> {
            q.answer_from(Layer::Z3);
            Ok(Some(Verdict::Unknown))
        }
    }

    #[test]
    fn a_query_given_up_on_is_written_as_smt_lib_that_z3_reads_back() {
        let dir = std::env::temp_dir().join(format!("lexprobe-dump-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        // x³ + y³ = z³ with x, y, z > 0 (a global and a path of three conditions).
        let v = |i: u32| var(VarId(i), Kind::Int);
        let cube = |i: u32| app(Op::Mul, vec![v(i), v(i), v(i)]);
        let global = app(Op::Gt, vec![v(0), int_const("0")]);
        let path = [
            app(Op::Gt, vec![v(1), int_const("0")]),
            app(Op::Gt, vec![v(2), int_const("0")]),
            app(Op::Eq, vec![app(Op::Add, vec![cube(0), cube(1)]), cube(2)]),
        ];
        let terms: Vec<&Term> = std::iter::once(&global).chain(&path).collect();
        let base = Z3Base::shared(None, Stop::default());
        let mut dump = DumpUnknown::new(GivesUp, Some(dir.clone()), base.clone());
        let q = PathQuery::new(&terms, &path, 7, Budget::unbounded());
        assert!(matches!(dump.decide(&q), Ok(Some(Verdict::Unknown))));
        let file = dir.join(format!("unknown-{}-7.smt2", std::process::id()));
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        assert_eq!(dump.written, 1);
        assert!(text.trim_end().ends_with("(check-sat)"), "{text}");
        // Z3 reads it back: four assertions over x, y, z, unsatisfiable when z = 1.
        let ctx = base.borrow().encoder.ctx();
        let solver = z3::Solver::new(ctx);
        solver.from_string(text);
        assert_eq!(solver.get_assertions().len(), 4);
        let z = base.borrow().encoder.int_var(VarId(2));
        use z3::ast::Ast;
        solver.assert(&z._eq(&z3::ast::Int::from_i64(ctx, 1)));
        assert_eq!(solver.check(), z3::SatResult::Unsat);
        // Without a directory nothing is written.
        let mut quiet = DumpUnknown::new(GivesUp, None, base);
        assert!(matches!(quiet.decide(&q), Ok(Some(Verdict::Unknown))));
        assert_eq!(quiet.written, 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
