//! The path condition Φ of a symbolic state: a conjunction that only grows along a path, kept as
//! a persistent list so that the states branching from one state share the conjuncts they had
//! in common (a copy of a state copies one pointer, not every conjunct).

use smt::Term;
use std::rc::Rc;

/// A conjunction of terms, in the order they were added.
#[derive(Clone, Debug, Default)]
pub struct PathCondition(Option<Rc<Link>>);

#[derive(Debug)]
struct Link {
    last: Term,
    before: PathCondition,
    len: usize,
}

impl PathCondition {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |l| l.len)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Adds a conjunct (this state only: the states that shared the list are unchanged).
    pub fn push(&mut self, t: Term) {
        let len = self.len() + 1;
        let before = std::mem::take(self);
        *self = PathCondition(Some(Rc::new(Link {
            last: t,
            before,
            len,
        })));
    }

    /// The conjuncts, most recent first.
    pub fn iter_recent_first(&self) -> impl Iterator<Item = &Term> {
        let mut cur = self.0.as_deref();
        std::iter::from_fn(move || {
            let link = cur?;
            cur = link.before.0.as_deref();
            Some(&link.last)
        })
    }

    /// The conjuncts in the order they were added.
    pub fn to_vec(&self) -> Vec<Term> {
        let mut v: Vec<Term> = self.iter_recent_first().cloned().collect();
        v.reverse();
        v
    }
}

impl Drop for PathCondition {
    /// Frees a long list without one nested drop per conjunct.
    fn drop(&mut self) {
        let mut cur = self.0.take();
        while let Some(link) = cur {
            match Rc::try_unwrap(link) {
                Ok(mut l) => cur = l.before.0.take(),
                Err(_) => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smt::Sort;

    #[test]
    fn branches_share_their_common_conjuncts_and_keep_their_own() {
        let x = |i: i64| Term::eq(Term::var("x", Sort::Int), Term::Int(i));
        let mut a = PathCondition::new();
        a.push(x(1));
        a.push(x(2));
        let mut b = a.clone();
        b.push(x(3));
        a.push(x(4));
        assert_eq!(a.to_vec(), vec![x(1), x(2), x(4)]);
        assert_eq!(b.to_vec(), vec![x(1), x(2), x(3)]);
        assert_eq!((a.len(), b.len()), (3, 3));
        let recent: Vec<Term> = b.iter_recent_first().cloned().collect();
        assert_eq!(recent, vec![x(3), x(2), x(1)]);
        drop(a);
        assert_eq!(b.to_vec(), vec![x(1), x(2), x(3)]);
        assert!(PathCondition::new().is_empty());
    }

    #[test]
    fn a_long_list_is_freed_without_deep_recursion() {
        let mut p = PathCondition::new();
        for i in 0..200_000 {
            p.push(Term::Int(i));
        }
        assert_eq!(p.len(), 200_000);
        drop(p);
    }
}
