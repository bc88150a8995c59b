//! The per-function qualifiers of an [`crate::Event`]: an immutable list sorted by function name,
//! shared between the copies of an event. Symbolic states are copied at every branch of the
//! search, and with them the events of their traces; sharing the list makes a copy of an event
//! two reference counts instead of a new map. The order, equality and hash are those of the
//! sorted `(function, qualifier)` pairs, so events compare and sort as a sorted map of them would.

use smt::Term;
use std::fmt;
use std::rc::Rc;

type Entries = Rc<[(Rc<str>, Term)]>;

thread_local! {
    static EMPTY: Entries = Rc::from(Vec::new());
}

/// Qualifiers by function name, sorted, each function at most once. The hash of the pairs is
/// computed the first time it is asked for and kept (events are keys of the memo tables of
/// the search; most events built are never hashed).
#[derive(Clone)]
pub struct Qualifiers {
    /// The hash of `entries`, once computed.
    hash: std::cell::Cell<Option<u64>>,
    entries: Entries,
}

fn hash_of(entries: &[(Rc<str>, Term)]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    entries.hash(&mut h);
    h.finish()
}

impl Default for Qualifiers {
    fn default() -> Self {
        Qualifiers {
            hash: std::cell::Cell::new(None),
            entries: EMPTY.with(Rc::clone),
        }
    }
}

impl PartialEq for Qualifiers {
    fn eq(&self, other: &Qualifiers) -> bool {
        Rc::ptr_eq(&self.entries, &other.entries) || self.entries == other.entries
    }
}

impl Eq for Qualifiers {}

impl std::hash::Hash for Qualifiers {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        let h = self.hash.get().unwrap_or_else(|| {
            let h = hash_of(&self.entries);
            self.hash.set(Some(h));
            h
        });
        state.write_u64(h)
    }
}

impl PartialOrd for Qualifiers {
    fn partial_cmp(&self, other: &Qualifiers) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Qualifiers {
    /// The order of the sorted pairs (the hash plays no part).
    fn cmp(&self, other: &Qualifiers) -> std::cmp::Ordering {
        self.entries.cmp(&other.entries)
    }
}

impl Qualifiers {
    /// No function listed.
    pub fn new() -> Self {
        Self::default()
    }

    /// From pairs already sorted by function name, each name once.
    fn from_sorted(entries: Vec<(Rc<str>, Term)>) -> Self {
        debug_assert!(entries.windows(2).all(|w| w[0].0 < w[1].0));
        if entries.is_empty() {
            Self::default()
        } else {
            Qualifiers {
                hash: std::cell::Cell::new(None),
                entries: Rc::from(entries),
            }
        }
    }

    /// The qualifier of `op`, when listed.
    pub fn get(&self, op: &str) -> Option<&Term> {
        self.entries
            .binary_search_by(|(k, _)| (**k).cmp(op))
            .ok()
            .map(|i| &self.entries[i].1)
    }

    pub fn contains_key(&self, op: &str) -> bool {
        self.get(op).is_some()
    }

    /// The pairs in order of function name.
    pub fn iter(&self) -> impl Iterator<Item = (&Rc<str>, &Term)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &Rc<str>> {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &Term> {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// `self` and `other` are one list (copies of one event's qualifiers), not merely equal.
    pub fn shares_with(&self, other: &Qualifiers) -> bool {
        Rc::ptr_eq(&self.entries, &other.entries)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The same list with `f` applied to every qualifier.
    pub fn map(&self, f: impl Fn(&Term) -> Term) -> Self {
        Self::from_sorted(
            self.entries
                .iter()
                .map(|(k, v)| (k.clone(), f(v)))
                .collect(),
        )
    }

    /// The pairs whose qualifier satisfies `keep` (the list itself when all do).
    pub fn filter(&self, keep: impl Fn(&Term) -> bool) -> Self {
        if self.entries.iter().all(|(_, v)| keep(v)) {
            return self.clone();
        }
        Self::from_sorted(
            self.entries
                .iter()
                .filter(|(_, v)| keep(v))
                .cloned()
                .collect(),
        )
    }

    /// The functions listed in `self` or `other`, in order, each once.
    pub fn union_of_keys<'a>(&'a self, other: &'a Qualifiers) -> Vec<&'a Rc<str>> {
        let (a, b) = (&self.entries, &other.entries);
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::with_capacity(a.len().max(b.len()));
        while i < a.len() || j < b.len() {
            let next = match (a.get(i), b.get(j)) {
                (Some((x, _)), Some((y, _))) => match x.cmp(y) {
                    std::cmp::Ordering::Less => {
                        i += 1;
                        x
                    }
                    std::cmp::Ordering::Greater => {
                        j += 1;
                        y
                    }
                    std::cmp::Ordering::Equal => {
                        i += 1;
                        j += 1;
                        x
                    }
                },
                (Some((x, _)), None) => {
                    i += 1;
                    x
                }
                (None, Some((y, _))) => {
                    j += 1;
                    y
                }
                (None, None) => break,
            };
            out.push(next);
        }
        out
    }
}

impl FromIterator<(Rc<str>, Term)> for Qualifiers {
    /// Sorts by function name; a name given twice keeps its last qualifier (as a map would).
    fn from_iter<I: IntoIterator<Item = (Rc<str>, Term)>>(iter: I) -> Self {
        let mut entries: Vec<(Rc<str>, Term)> = iter.into_iter().collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0)); // stable: equal names keep their order
        let mut unique: Vec<(Rc<str>, Term)> = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            match unique.last_mut() {
                Some(last) if last.0 == k => last.1 = v,
                _ => unique.push((k, v)),
            }
        }
        Self::from_sorted(unique)
    }
}

impl<'a> IntoIterator for &'a Qualifiers {
    type Item = (&'a Rc<str>, &'a Term);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Rc<str>, Term)>,
        fn(&'a (Rc<str>, Term)) -> (&'a Rc<str>, &'a Term),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

impl fmt::Debug for Qualifiers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn q(pairs: &[(&str, i64)]) -> Qualifiers {
        pairs
            .iter()
            .map(|(k, v)| (Rc::from(*k), Term::Int(*v)))
            .collect()
    }

    #[test]
    fn sorted_unique_and_ordered_like_a_map() {
        let a = q(&[("put", 1), ("get", 2), ("put", 3)]);
        assert_eq!(a.len(), 2);
        assert_eq!(a.get("put"), Some(&Term::Int(3)));
        assert_eq!(a.get("get"), Some(&Term::Int(2)));
        assert_eq!(a.get("mem"), None);
        let keys: Vec<&str> = a.keys().map(|k| &**k).collect();
        assert_eq!(keys, ["get", "put"]);
        // the order of two lists is the order of the maps with the same pairs
        let lists = [
            q(&[("a", 1)]),
            q(&[("a", 1), ("b", 0)]),
            q(&[("b", 0)]),
            q(&[]),
        ];
        for x in &lists {
            for y in &lists {
                let mx: BTreeMap<_, _> = x.iter().collect();
                let my: BTreeMap<_, _> = y.iter().collect();
                assert_eq!(x.cmp(y), mx.cmp(&my), "{x:?} vs {y:?}");
            }
        }
    }

    #[test]
    fn lists_built_apart_with_the_same_pairs_are_equal_with_the_same_hash() {
        use std::hash::{BuildHasher, RandomState};
        let a = q(&[("put", 1), ("get", 2)]);
        let b = q(&[("get", 2), ("put", 1)]);
        let c = q(&[("get", 2), ("put", 4)]);
        assert!(!Rc::ptr_eq(&a.entries, &b.entries));
        assert_eq!(a, b);
        let s = RandomState::new();
        assert_eq!(s.hash_one(&a), s.hash_one(&b));
        assert_ne!(a, c);
        assert_eq!(q(&[]), Qualifiers::new());
    }

    #[test]
    fn copies_share_the_list() {
        let a = q(&[("put", 1)]);
        let b = a.clone();
        assert!(Rc::ptr_eq(&a.entries, &b.entries));
        // a filter that keeps everything gives the same list
        assert!(Rc::ptr_eq(&a.filter(|_| true).entries, &a.entries));
        assert!(a.filter(|_| false).is_empty());
    }

    #[test]
    fn union_of_keys_merges_in_order() {
        let a = q(&[("a", 0), ("c", 0)]);
        let b = q(&[("b", 0), ("c", 0), ("d", 0)]);
        let u: Vec<&str> = a.union_of_keys(&b).into_iter().map(|k| &**k).collect();
        assert_eq!(u, ["a", "b", "c", "d"]);
    }
}
