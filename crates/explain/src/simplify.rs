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
use std::hash::{Hash, Hasher};

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
    // Cases equal except on `key` have the same sum of the hashes of their other entries:
    // the cases of `out` by that sum, compared exactly within a sum.
    let mut groups: HashMap<u64, Vec<usize>> = HashMap::new();
    let mut out: Vec<Work> = Vec::with_capacity(cases.len());
    for c in cases {
        let rest = c
            .iter()
            .filter(|(k, _)| **k != key)
            .fold(0u64, |sum, (k, a)| sum.wrapping_add(entry_hash(k, a)));
        let slot = groups.entry(rest).or_default();
        match slot
            .iter()
            .copied()
            .find(|i| equal_except(&out[*i], &c, &key))
        {
            Some(i) => {
                let merged = match (out[i].get(&key), c.get(&key)) {
                    (Some(a), Some(b)) => union(a, b, &full),
                    _ => None,
                };
                match merged {
                    Some(m) => out[i].insert(key.clone(), m),
                    None => out[i].remove(&key),
                };
            }
            None => {
                slot.push(out.len());
                out.push(c);
            }
        }
    }
    out
}

/// A hash of one entry of a case (a cheap multiplicative hash: the keys and sets of one
/// simplification are few, and equal sums are compared exactly).
fn entry_hash(key: &Key, allowed: &Allowed) -> u64 {
    let mut h = MixHasher(0);
    key.hash(&mut h);
    allowed.hash(&mut h);
    h.finish()
}

/// Multiply-rotate hashing of the words written (not for untrusted keys: collisions only
/// cost exact comparisons).
struct MixHasher(u64);

impl Hasher for MixHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Whether cases `a` and `b` are equal on every key but `key`.
fn equal_except(a: &Work, b: &Work, key: &Key) -> bool {
    let mut x = a.iter().filter(|(k, _)| *k != key);
    let mut y = b.iter().filter(|(k, _)| *k != key);
    loop {
        match (x.next(), y.next()) {
            (None, None) => return true,
            (Some(p), Some(q)) if p == q => continue,
            _ => return false,
        }
    }
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
            // Case i (changed) and case j (read), borrowed together without a copy.
            let (a, b) = if i < j {
                let (left, right) = cases.split_at_mut(j);
                (&mut left[i], &right[0])
            } else {
                let (left, right) = cases.split_at_mut(i);
                (&mut right[0], &left[j])
            };
            // Widening needs every key of b in a.
            if b.len() > a.len() {
                continue;
            }
            for (key, bs) in b {
                let Some(as_) = a.get(key) else {
                    continue;
                };
                if is_subset(bs, as_) || !within_except(a, b, Some(key)) {
                    continue;
                }
                match union(as_, bs, &domain(key, inputs)) {
                    Some(u) => a.insert(key.clone(), u),
                    None => a.remove(key),
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
