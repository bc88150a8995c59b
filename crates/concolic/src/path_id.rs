//! Path identifiers: the sequence of branch decisions a run took from the root of the path
//! tree, one character per constraint of its path condition (`1`: the recorded constraint is
//! the branch's first way — a condition that held, a context input given, a match on this
//! case, a list input of this length, a division by zero; `0`: its other way). The branch
//! point at each position is fixed by the decisions before it (the program is deterministic),
//! so two runs with the same decisions followed the same path and two different paths differ
//! at their first diverging branch, where one has `1` and the other `0`. The identifier does
//! not depend on the inputs, the worker, the shard or the resumed run that found the path,
//! which is what lets outputs of several processes be merged without doubles.
//!
//! A subtree of the path tree is named the same way, by the decisions of its common prefix;
//! the paths below it are those whose identifier starts with it. Sorting identifiers
//! lexicographically (`0` before `1`, a prefix before its extensions) lists paths in a
//! depth-first order of the tree.

use crate::symbolic::PathConstraint;
use std::fmt;

/// The branch decisions of a path (or of a subtree's prefix), from the root.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PathId(Vec<bool>);

impl PathId {
    /// The identifier of a run's path condition.
    pub fn of(path: &[PathConstraint]) -> PathId {
        PathId(path.iter().map(|c| c.way & 1 == 1).collect())
    }

    /// The decisions, from the root.
    pub fn decisions(&self) -> &[bool] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The first `n` decisions (all of them when there are fewer).
    pub fn prefix(&self, n: usize) -> PathId {
        PathId(self.0[..n.min(self.0.len())].to_vec())
    }

    /// The first `k` decisions, then the other way at position `k`: the subtree a search
    /// reaches by negating the `k`-th constraint. `None` when `k` is past the end.
    pub(crate) fn sibling_subtree(&self, k: usize) -> Option<PathId> {
        let way = *self.0.get(k)?;
        let mut bits = self.0[..k].to_vec();
        bits.push(!way);
        Some(PathId(bits))
    }

    /// This identifier names a subtree containing `path`.
    pub fn is_prefix_of(&self, path: &PathId) -> bool {
        path.0.starts_with(&self.0)
    }

    /// Reads the text form (`0`s and `1`s).
    pub fn parse(text: &str) -> Result<PathId, String> {
        text.chars()
            .map(|c| match c {
                '0' => Ok(false),
                '1' => Ok(true),
                other => Err(format!("not a path identifier: unexpected {other:?}")),
            })
            .collect::<Result<Vec<bool>, String>>()
            .map(PathId)
    }
}

impl From<Vec<bool>> for PathId {
    fn from(bits: Vec<bool>) -> PathId {
        PathId(bits)
    }
}

impl fmt::Display for PathId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in &self.0 {
            f.write_str(if *b { "1" } else { "0" })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> PathId {
        match PathId::parse(s) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn text_form_reads_back() {
        for s in ["", "0", "1", "0110100111"] {
            assert_eq!(id(s).to_string(), s);
        }
        assert!(PathId::parse("01x").is_err());
    }

    #[test]
    fn subtrees_and_prefixes() {
        let p = id("0110");
        assert_eq!(p.sibling_subtree(0), Some(id("1")));
        assert_eq!(p.sibling_subtree(2), Some(id("010")));
        assert_eq!(p.sibling_subtree(4), None);
        assert!(id("01").is_prefix_of(&p));
        assert!(id("").is_prefix_of(&p));
        assert!(p.is_prefix_of(&p));
        assert!(!id("1").is_prefix_of(&p));
        assert!(!p.sibling_subtree(1).is_some_and(|s| s.is_prefix_of(&p)));
    }

    #[test]
    fn sorted_identifiers_list_a_subtree_contiguously() {
        // Depth-first: every path under `01` comes between `00…` and `1…`.
        let mut ids = [id("1"), id("011"), id("00"), id("010"), id("0100")];
        ids.sort();
        let text: Vec<String> = ids.iter().map(|p| p.to_string()).collect();
        assert_eq!(text, ["00", "010", "0100", "011", "1"]);
    }
}
