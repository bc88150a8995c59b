//! The disjunction of many path conditions made short, exactly: the result holds for exactly
//! the inputs for which some path condition holds. Three rewritings, repeated until none
//! applies:
//! - merge: cases equal except on one key become one case whose set for that key is the union
//!   (`a and x < 5` or `a and x >= 5` is `a`);
//! - widen: when case A requires at least what case B requires except on one key k, A's set
//!   for k may grow by B's (the inputs added are B's), so `y` or `x < 5 and not y` is `y` or
//!   `x < 5`;
//! - absorb: a case whose inputs are all inputs of another case is dropped.
//!
//! Widening and absorbing compare every pair of cases, so they run only while there are at
//! most [`PAIRWISE_LIMIT`] cases; merging groups cases by hashing and always runs.

use crate::case::{domain, is_subset, union, Allowed, Key, Work};
use crate::inputs::Inputs;
use std::collections::{BTreeSet, HashMap};

/// The most cases compared pairwise.
pub const PAIRWISE_LIMIT: usize = 400;
/// The most rounds of rewriting.
const MAX_ROUNDS: usize = 64;

/// The simplified disjunction of `cases`.
pub(crate) fn simplify(cases: Vec<Work>, inputs: &Inputs) -> Vec<Work> {
    let mut cases = dedup(cases);
    for _ in 0..MAX_ROUNDS {
        let before = cases.clone();
        cases = merge_all(cases, inputs);
        if cases.len() <= PAIRWISE_LIMIT {
            widen(&mut cases, inputs);
            cases = absorb(dedup(cases));
        }
        if cases == before {
            break;
        }
    }
    cases
}

fn dedup(cases: Vec<Work>) -> Vec<Work> {
    let mut seen = std::collections::HashSet::new();
    cases
        .into_iter()
        .filter(|c| seen.insert(c.clone()))
        .collect()
}

fn keys_of(cases: &[Work]) -> BTreeSet<Key> {
    cases.iter().flat_map(|c| c.keys().cloned()).collect()
}

/// Merges, for each key in turn, the cases equal except on that key.
fn merge_all(mut cases: Vec<Work>, inputs: &Inputs) -> Vec<Work> {
    for key in keys_of(&cases) {
        cases = merge_on(cases, key, inputs);
    }
    cases
}

fn merge_on(cases: Vec<Work>, key: Key, inputs: &Inputs) -> Vec<Work> {
    let full = domain(&key, inputs);
    // The rest of each case → its position in `out`.
    let mut groups: HashMap<Work, usize> = HashMap::new();
    let mut out: Vec<Work> = Vec::with_capacity(cases.len());
    for mut c in cases {
        let own = c.remove(&key);
        match groups.get(&c) {
            Some(&i) => {
                let merged = match (out[i].get(&key), &own) {
                    (Some(a), Some(b)) => union(a, b, &full),
                    _ => None,
                };
                match merged {
                    Some(m) => out[i].insert(key.clone(), m),
                    None => out[i].remove(&key),
                };
            }
            None => {
                groups.insert(c.clone(), out.len());
                if let Some(o) = own {
                    c.insert(key.clone(), o);
                }
                out.push(c);
            }
        }
    }
    out
}

/// The set a case allows for `key` (`None`: unconstrained).
fn allowed<'w>(c: &'w Work, key: &Key) -> Option<&'w Allowed> {
    c.get(key)
}

/// True when every input of `a` satisfies `b`'s requirements on keys other than `except`.
fn within_except(a: &Work, b: &Work, except: Option<&Key>) -> bool {
    b.iter()
        .all(|(k, bs)| Some(k) == except || allowed(a, k).is_some_and(|as_| is_subset(as_, bs)))
}

fn widen(cases: &mut [Work], inputs: &Inputs) {
    for i in 0..cases.len() {
        for j in 0..cases.len() {
            if i == j {
                continue;
            }
            let b = cases[j].clone();
            for (key, bs) in &b {
                let Some(as_) = cases[i].get(key).cloned() else {
                    continue;
                };
                if is_subset(bs, &as_) || !within_except(&cases[i], &b, Some(key)) {
                    continue;
                }
                match union(&as_, bs, &domain(key, inputs)) {
                    Some(u) => cases[i].insert(key.clone(), u),
                    None => cases[i].remove(key),
                };
            }
        }
    }
}

fn absorb(cases: Vec<Work>) -> Vec<Work> {
    let keep: Vec<bool> = (0..cases.len())
        .map(|j| {
            !(0..cases.len()).any(|i| {
                i != j
                    && within_except(&cases[j], &cases[i], None)
                    && (cases[i] != cases[j] || i < j)
            })
        })
        .collect();
    cases
        .into_iter()
        .zip(keep)
        .filter_map(|(c, k)| k.then_some(c))
        .collect()
}
