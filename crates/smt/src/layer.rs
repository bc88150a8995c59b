//! The solver chain shared by both engines: a query goes through [`SolverLayer`]s in order,
//! and the first layer that decides it answers; the layers before it then [`learn`] the
//! answer (a cache remembers it). The concolic engine chains exact answers without Z3
//! ([`crate::catala::finite`]), guesses near the last inputs ([`crate::catala::guess`]) and
//! its Z3 session; the derivative-guided engine chains constant folding, a [`QueryCache`] and
//! its Z3 session. A new layer is one new type implementing [`SolverLayer`], put into a
//! [`Chain`] where it belongs. Chains are generic, so the composition costs no dynamic call.
//!
//! [`learn`]: SolverLayer::learn

use crate::fast_hash::FastMap;
use std::hash::Hash;

/// A layer's answer to a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict<M> {
    /// Satisfiable, with the model the layer found (or `()` when the layer gives none).
    Sat(M),
    Unsat,
    /// The solver gave up (a time limit): the query stays undecided.
    Unknown,
}

/// One layer of a solver chain over queries of type `Q`.
pub(crate) trait SolverLayer<Q: ?Sized> {
    /// What a satisfiable answer carries.
    type Model;
    /// Why a layer could not treat a query (e.g. a term Z3 cannot encode).
    type Error;
    /// The answer when this layer decides `query`, `None` to pass it on to the next layer.
    fn decide(&mut self, query: &Q) -> Result<Option<Verdict<Self::Model>>, Self::Error>;
    /// The answer a later layer gave to a query this one passed on.
    fn learn(&mut self, _query: &Q, _verdict: &Verdict<Self::Model>) {}
}

/// A layer that is switched off passes every query on.
impl<Q: ?Sized, L: SolverLayer<Q>> SolverLayer<Q> for Option<L> {
    type Model = L::Model;
    type Error = L::Error;

    fn decide(&mut self, query: &Q) -> Result<Option<Verdict<L::Model>>, L::Error> {
        match self {
            Some(layer) => layer.decide(query),
            None => Ok(None),
        }
    }

    fn learn(&mut self, query: &Q, verdict: &Verdict<L::Model>) {
        if let Some(layer) = self {
            layer.learn(query, verdict);
        }
    }
}

/// Two layers in order: `first` is asked first, `then` gets the queries `first` passes on.
pub(crate) struct Chain<A, B> {
    pub(crate) first: A,
    pub(crate) then: B,
}

impl<Q: ?Sized, M, E, A, B> SolverLayer<Q> for Chain<A, B>
where
    A: SolverLayer<Q, Model = M, Error = E>,
    B: SolverLayer<Q, Model = M, Error = E>,
{
    type Model = M;
    type Error = E;

    fn decide(&mut self, query: &Q) -> Result<Option<Verdict<M>>, E> {
        if let Some(v) = self.first.decide(query)? {
            return Ok(Some(v));
        }
        let Some(v) = self.then.decide(query)? else {
            return Ok(None);
        };
        self.first.learn(query, &v);
        Ok(Some(v))
    }

    fn learn(&mut self, query: &Q, verdict: &Verdict<M>) {
        self.first.learn(query, verdict);
        self.then.learn(query, verdict);
    }
}

/// A map of bounded size kept in two generations: when the young one is full it replaces the
/// old one, so recently used entries stay and memory stays flat on runs of any length.
pub struct GenerationalMap<K, V> {
    young: FastMap<K, V>,
    old: FastMap<K, V>,
    generation: usize,
    /// How many times the young generation replaced the old one.
    turnovers: u64,
}

impl<K: Hash + Eq, V: Clone> GenerationalMap<K, V> {
    /// A map keeping at most about `2 * generation` entries.
    pub fn new(generation: usize) -> Self {
        GenerationalMap {
            young: FastMap::default(),
            old: FastMap::default(),
            generation: generation.max(1),
            turnovers: 0,
        }
    }

    /// The value of `key`, moved to the young generation when found in the old one.
    pub fn get(&mut self, key: &K) -> Option<V>
    where
        K: Clone,
    {
        if let Some(v) = self.young.get(key) {
            return Some(v.clone());
        }
        let (k, v) = self.old.remove_entry(key)?;
        self.insert(k, v.clone());
        Some(v)
    }

    pub fn insert(&mut self, key: K, value: V) {
        if self.young.len() >= self.generation {
            self.old = std::mem::take(&mut self.young);
            self.turnovers += 1;
        }
        self.young.insert(key, value);
    }

    pub fn clear(&mut self) {
        self.young.clear();
        self.old.clear();
    }

    pub fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    pub fn is_empty(&self) -> bool {
        self.young.is_empty() && self.old.is_empty()
    }

    /// How many times the young generation has replaced the old one (so that a holder can
    /// release what depends on the entries dropped).
    pub(crate) fn turnovers(&self) -> u64 {
        self.turnovers
    }
}

/// A cache of answers: decides a query it has seen answered, and learns every answer given
/// by the layers after it. It keeps a 128-bit fingerprint of each query (two independent
/// SipHash digests), not the query, so an entry costs a few dozen bytes whatever the size of
/// the query; two different queries share a fingerprint with a probability of about 2^-128
/// per pair. Bounded (two generations of `generation` queries).
pub(crate) struct QueryCache<E> {
    answers: GenerationalMap<u128, Verdict<()>>,
    /// Queries answered from the cache.
    pub(crate) hits: u64,
    error: std::marker::PhantomData<fn() -> E>,
}

/// The fingerprint of a query.
fn fingerprint<Q: Hash + ?Sized>(query: &Q) -> u128 {
    use std::hash::Hasher;
    let mut first = std::collections::hash_map::DefaultHasher::new();
    query.hash(&mut first);
    let mut second = std::collections::hash_map::DefaultHasher::new();
    second.write_u64(0x9e37_79b9_7f4a_7c15);
    query.hash(&mut second);
    (u128::from(first.finish()) << 64) | u128::from(second.finish())
}

impl<E> QueryCache<E> {
    pub(crate) fn new(generation: usize) -> Self {
        QueryCache {
            answers: GenerationalMap::new(generation),
            hits: 0,
            error: std::marker::PhantomData,
        }
    }

    pub(crate) fn clear(&mut self) {
        self.answers.clear();
    }
}

impl<Q: Hash + ?Sized, E> SolverLayer<Q> for QueryCache<E> {
    type Model = ();
    type Error = E;

    fn decide(&mut self, query: &Q) -> Result<Option<Verdict<()>>, E> {
        let Some(v) = self.answers.get(&fingerprint(query)) else {
            return Ok(None);
        };
        self.hits += 1;
        Ok(Some(v))
    }

    fn learn(&mut self, query: &Q, verdict: &Verdict<()>) {
        self.answers.insert(fingerprint(query), verdict.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decides even numbers as satisfiable and counts its calls.
    struct Evens(u32);
    impl SolverLayer<u32> for Evens {
        type Model = ();
        type Error = ();
        fn decide(&mut self, q: &u32) -> Result<Option<Verdict<()>>, ()> {
            self.0 += 1;
            Ok(q.is_multiple_of(2).then_some(Verdict::Sat(())))
        }
    }

    /// Decides everything as unsatisfiable.
    struct Rest;
    impl SolverLayer<u32> for Rest {
        type Model = ();
        type Error = ();
        fn decide(&mut self, _: &u32) -> Result<Option<Verdict<()>>, ()> {
            Ok(Some(Verdict::Unsat))
        }
    }

    #[test]
    fn the_first_layer_that_decides_answers_and_the_cache_learns_it() {
        let mut chain = Chain {
            first: QueryCache::new(10),
            then: Chain {
                first: Evens(0),
                then: Rest,
            },
        };
        assert_eq!(chain.decide(&4), Ok(Some(Verdict::Sat(()))));
        assert_eq!(chain.decide(&3), Ok(Some(Verdict::Unsat)));
        assert_eq!(chain.then.first.0, 2);
        // both answers now come from the cache
        assert_eq!(chain.decide(&4), Ok(Some(Verdict::Sat(()))));
        assert_eq!(chain.decide(&3), Ok(Some(Verdict::Unsat)));
        assert_eq!(chain.then.first.0, 2);
        assert_eq!(chain.first.hits, 2);
    }

    #[test]
    fn generational_maps_stay_bounded_and_keep_recent_entries() {
        let mut m = GenerationalMap::new(3);
        for i in 0..100u32 {
            m.insert(i, i * 2);
            assert!(m.len() <= 6);
        }
        assert_eq!(m.get(&99), Some(198));
        assert_eq!(m.get(&0), None);
    }
}
