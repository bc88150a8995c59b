//! Unsatisfiable slices, remembered. The slice of a path query is the part of it that shares
//! variables, directly or through other constraints, with its last constraint (the negated
//! branch): the connected components of the "shares a variable" relation that contain it, plus
//! the constraints without variables. The rest of the query has none of the slice's variables.
//!
//! When a later layer finds a query unsatisfiable and the rest of it holds on the inputs of the
//! last run (evaluated exactly, see [`super::guess::all_hold`]), the slice alone is
//! unsatisfiable: a model of the slice together with those inputs would be a model of the
//! query. Every later query whose slice is the same set of constraints contains it and is
//! unsatisfiable too; this layer answers it without Z3 (or a failed guess). A concolic
//! exploration asks such queries again and again: the same conditions on the same inputs,
//! negated under different unrelated prefixes (a date tested before and after every family
//! situation). A slice whose rest could not be checked is never remembered, so an answer of
//! this layer is always one Z3 would prove. Both tables are bounded (two generations each).

use super::query::{EncodeError, Layer, ModelSource, ModelValue, PathQuery};
use super::term::{Term, VarId};
use crate::layer::{GenerationalMap, SolverLayer, Verdict};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Slices remembered per generation.
const SLICE_GENERATION: usize = 50_000;
/// Terms whose variables are remembered per generation.
const VARS_GENERATION: usize = 100_000;

/// The layer.
pub(crate) struct UnsatSlices {
    /// Slices found unsatisfiable, as their terms in address order.
    known: GenerationalMap<Vec<Term>, ()>,
    /// The variables of each term seen (terms are hash-consed: one entry per node).
    vars_of: GenerationalMap<Term, Rc<[VarId]>>,
    /// The inputs of the last run.
    hints: BTreeMap<VarId, ModelValue>,
    /// The last query passed on: its number, its slice and which of its terms are in it.
    pending: Option<(u64, Vec<Term>, Vec<bool>)>,
    /// Queries answered from a remembered slice.
    pub(crate) hits: u64,
}

impl UnsatSlices {
    pub(crate) fn new() -> UnsatSlices {
        UnsatSlices {
            known: GenerationalMap::new(SLICE_GENERATION),
            vars_of: GenerationalMap::new(VARS_GENERATION),
            hints: BTreeMap::new(),
            pending: None,
            hits: 0,
        }
    }

    /// Records the inputs of the run the next queries start from.
    pub(crate) fn remember(&mut self, inputs: impl IntoIterator<Item = (VarId, ModelValue)>) {
        self.hints.clear();
        self.hints.extend(inputs);
    }

    fn vars(&mut self, t: &Term) -> Rc<[VarId]> {
        if let Some(v) = self.vars_of.get(t) {
            return v;
        }
        let mut out = Vec::new();
        t.collect_vars(&mut out);
        let v: Rc<[VarId]> = out.into();
        self.vars_of.insert(t.clone(), Rc::clone(&v));
        v
    }

    /// The slice of `terms` around its last term (in address order, without repeats) and
    /// which terms are in it; `None` for no terms.
    fn slice(&mut self, terms: &[&Term]) -> Option<(Vec<Term>, Vec<bool>)> {
        let last = terms.last()?;
        let vars: Vec<Rc<[VarId]>> = terms.iter().map(|t| self.vars(t)).collect();
        let mut reached: Vec<VarId> = self.vars(last).to_vec();
        let mut inside = vec![false; terms.len()];
        loop {
            let mut grew = false;
            for (i, vs) in vars.iter().enumerate() {
                if inside[i] || !(vs.is_empty() || vs.iter().any(|v| reached.contains(v))) {
                    continue;
                }
                inside[i] = true;
                for v in vs.iter() {
                    if !reached.contains(v) {
                        reached.push(*v);
                        grew = true;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        let mut key: Vec<Term> = terms
            .iter()
            .zip(&inside)
            .filter(|(_, i)| **i)
            .map(|(t, _)| (*t).clone())
            .collect();
        key.sort_by_key(|t| Rc::as_ptr(t) as usize);
        key.dedup_by(|a, b| Rc::ptr_eq(a, b));
        Some((key, inside))
    }
}

impl<'a> SolverLayer<PathQuery<'a>> for UnsatSlices {
    type Model = ModelSource;
    type Error = EncodeError;

    fn decide(&mut self, q: &PathQuery<'a>) -> Result<Option<Verdict<ModelSource>>, EncodeError> {
        self.pending = None;
        let Some((key, inside)) = self.slice(q.terms) else {
            return Ok(None);
        };
        if self.known.get(&key).is_some() {
            self.hits += 1;
            q.answer_from(Layer::Slices);
            return Ok(Some(Verdict::Unsat));
        }
        self.pending = Some((q.asked, key, inside));
        Ok(None)
    }

    fn learn(&mut self, q: &PathQuery<'a>, verdict: &Verdict<ModelSource>) {
        let Some((asked, key, inside)) = self.pending.take() else {
            return;
        };
        if asked != q.asked || !matches!(verdict, Verdict::Unsat) {
            return;
        }
        let rest = q
            .terms
            .iter()
            .zip(&inside)
            .filter(|(_, i)| !**i)
            .map(|(t, _)| *t);
        if super::guess::all_hold(rest, &self.hints) {
            self.known.insert(key, ());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::query::Budget;
    use crate::catala::term::{app, int_const, not, var, Kind, Op};

    fn x(i: u32) -> Term {
        var(VarId(i), Kind::Int)
    }

    fn lt(a: &Term, n: i64) -> Term {
        app(Op::Lt, vec![a.clone(), int_const(n.to_string())])
    }

    fn ask(layer: &mut UnsatSlices, terms: &[Term], n: u64) -> Option<Verdict<ModelSource>> {
        let refs: Vec<&Term> = terms.iter().collect();
        let q = PathQuery::new(&refs, terms, n, Budget::unbounded());
        layer.decide(&q).ok().flatten()
    }

    fn tell_unsat(layer: &mut UnsatSlices, terms: &[Term], n: u64) {
        let refs: Vec<&Term> = terms.iter().collect();
        let q = PathQuery::new(&refs, terms, n, Budget::unbounded());
        assert!(layer.decide(&q).ok().flatten().is_none());
        layer.learn(&q, &Verdict::Unsat);
    }

    fn int(n: i64) -> ModelValue {
        ModelValue::Int(n.to_string())
    }

    #[test]
    fn the_slice_is_what_shares_variables_with_the_last_term() {
        let (a, b, c) = (x(0), x(1), x(2));
        let a_b = app(Op::Lt, vec![a.clone(), b.clone()]);
        let terms = [lt(&c, 5), a_b.clone(), lt(&a, 3), not(&lt(&b, 10))];
        let refs: Vec<&Term> = terms.iter().collect();
        let (key, inside) = UnsatSlices::new().slice(&refs).unwrap_or_default();
        assert_eq!(inside, vec![false, true, true, true]);
        assert_eq!(key.len(), 3);
        assert!(!key.iter().any(|t| Rc::ptr_eq(t, &terms[0])));
    }

    #[test]
    fn an_unsatisfiable_slice_answers_the_queries_containing_it() {
        let (a, c) = (x(0), x(2));
        let mut layer = UnsatSlices::new();
        layer.remember([(VarId(0), int(1)), (VarId(2), int(0))]);
        // a < 3 and not (a < 5) is unsatisfiable whatever c is; c < 5 holds on the inputs.
        let first = [lt(&c, 5), lt(&a, 3), not(&lt(&a, 5))];
        tell_unsat(&mut layer, &first, 0);
        // The same slice under another prefix on c.
        let second = [not(&lt(&c, 5)), lt(&a, 3), not(&lt(&a, 5))];
        assert!(matches!(ask(&mut layer, &second, 1), Some(Verdict::Unsat)));
        assert_eq!(layer.hits, 1);
        // A different slice is passed on.
        let third = [lt(&c, 5), lt(&a, 4), not(&lt(&a, 5))];
        assert!(ask(&mut layer, &third, 2).is_none());
    }

    #[test]
    fn a_slice_is_not_remembered_when_the_rest_may_be_what_is_unsatisfiable() {
        let (a, c) = (x(0), x(2));
        let mut layer = UnsatSlices::new();
        // The rest (c < 5, not (c < 3)) is false on the inputs (c = 0): the query's
        // unsatisfiability says nothing about the slice (a < 3 and a < 5 is satisfiable).
        layer.remember([(VarId(0), int(1)), (VarId(2), int(0))]);
        tell_unsat(
            &mut layer,
            &[lt(&c, 3), not(&lt(&c, 3)), lt(&a, 3), lt(&a, 5)],
            0,
        );
        assert!(ask(&mut layer, &[lt(&a, 3), lt(&a, 5)], 1).is_none());
        // Without the inputs of a variable of the rest, nothing is remembered either.
        layer.remember([(VarId(0), int(1))]);
        tell_unsat(&mut layer, &[lt(&c, 5), lt(&a, 3), not(&lt(&a, 5))], 2);
        assert!(ask(&mut layer, &[lt(&a, 3), not(&lt(&a, 5))], 3).is_none());
    }

    #[test]
    fn only_unsatisfiable_answers_of_the_same_query_are_learnt() {
        let a = x(0);
        let mut layer = UnsatSlices::new();
        layer.remember([(VarId(0), int(1))]);
        let terms = [lt(&a, 3), not(&lt(&a, 5))];
        let refs: Vec<&Term> = terms.iter().collect();
        let q = PathQuery::new(&refs, &terms, 0, Budget::unbounded());
        assert!(layer.decide(&q).ok().flatten().is_none());
        layer.learn(&q, &Verdict::Unknown);
        assert!(ask(&mut layer, &terms, 1).is_none());
        // An answer to another query than the one passed on is not learnt.
        let other = PathQuery::new(&refs, &terms, 7, Budget::unbounded());
        layer.learn(&other, &Verdict::Unsat);
        assert!(ask(&mut layer, &terms, 2).is_none());
    }
}
