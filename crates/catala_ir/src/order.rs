//! Dependency ordering: Catala's stable topological order (among the vertices whose dependencies
//! are done, always take the one with the smallest key: variables before assertions, then
//! declaration order) and the cycle that makes an order impossible.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A dependency graph over vertices `0..n`: `deps[v]` lists the vertices `v` reads.
pub(crate) struct DepGraph {
    pub deps: Vec<Vec<usize>>,
    /// Priority of each vertex (smaller first among ready vertices).
    pub keys: Vec<(u8, usize)>,
    /// Order of the vertices in the search for a cycle, when it differs from `keys` (the
    /// states of a variable: see `lower_scope`).
    pub cycle_keys: Option<Vec<(u8, usize)>>,
}

impl DepGraph {
    /// The stable topological order, or a cycle (as a vertex path whose last element depends on
    /// the first, listed in dependency order: each element is used by the next).
    pub fn order(&self) -> Result<Vec<usize>, Vec<usize>> {
        let n = self.deps.len();
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut pending: Vec<usize> = vec![0; n];
        for (v, ds) in self.deps.iter().enumerate() {
            let mut uniq = ds.clone();
            uniq.sort_unstable();
            uniq.dedup();
            for d in uniq {
                if d < n {
                    users[d].push(v);
                    pending[v] += 1;
                }
            }
        }
        let mut heap: BinaryHeap<Reverse<((u8, usize), usize)>> = (0..n)
            .filter(|&v| pending[v] == 0)
            .map(|v| Reverse((self.keys[v], v)))
            .collect();
        let mut out = Vec::with_capacity(n);
        while let Some(Reverse((_, v))) = heap.pop() {
            out.push(v);
            for &u in &users[v] {
                pending[u] -= 1;
                if pending[u] == 0 {
                    heap.push(Reverse((self.keys[u], u)));
                }
            }
        }
        if out.len() == n {
            return Ok(out);
        }
        Err(self.find_cycle(&pending))
    }

    /// A cycle among the vertices left over by the sort, found as Catala does: start from the
    /// greatest vertex of a strongly connected component and follow, within it, the greatest
    /// vertex using the current one, until reaching a vertex already on the path.
    fn find_cycle(&self, pending: &[usize]) -> Vec<usize> {
        let n = self.deps.len();
        let stuck: Vec<bool> = (0..n).map(|v| pending[v] > 0).collect();
        // users[v]: stuck vertices reading v.
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (v, ds) in self.deps.iter().enumerate() {
            if stuck[v] {
                for &d in ds {
                    if d < n && stuck[d] && !users[d].contains(&v) {
                        users[d].push(v);
                    }
                }
            }
        }
        let reach = |from: usize| -> Vec<bool> {
            let mut seen = vec![false; n];
            let mut stack = users[from].clone();
            while let Some(v) = stack.pop() {
                if !seen[v] {
                    seen[v] = true;
                    stack.extend(users[v].iter().copied());
                }
            }
            seen
        };
        let keys = self.cycle_keys.as_ref().unwrap_or(&self.keys);
        let key = |v: usize| (keys[v], v);
        let Some(v0) = (0..n)
            .filter(|&v| stuck[v] && reach(v)[v])
            .max_by_key(|&v| key(v))
        else {
            return Vec::new();
        };
        let from_v0 = reach(v0);
        let in_scc = |u: usize| from_v0[u] && reach(u)[v0];
        let mut path = vec![v0];
        let mut cur = v0;
        loop {
            if let Some(i) = (0..path.len())
                .rev()
                .find(|&i| users[cur].contains(&path[i]))
            {
                return path[i..].to_vec();
            }
            let Some(next) = users[cur]
                .iter()
                .copied()
                .filter(|&u| in_scc(u))
                .max_by_key(|&u| key(u))
            else {
                return path;
            };
            path.push(next);
            cur = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ready_vertices_come_out_by_key() {
        // 0 depends on 2; 1 and 2 are free; the assertion 3 (key class 1) depends on nothing.
        let g = DepGraph {
            deps: vec![vec![2], vec![], vec![], vec![]],
            keys: vec![(0, 0), (0, 1), (0, 2), (1, 0)],
            cycle_keys: None,
        };
        assert_eq!(g.order().unwrap(), vec![1, 2, 0, 3]);
    }

    #[test]
    fn cycles_are_reported_as_catala_does() {
        // Catala's tests/scope/bad/cycle_in_scope: x uses z, y uses x, z uses y; Catala prints
        // "z → x → y → z" (each vertex is used in the definition of the next).
        let g = DepGraph {
            deps: vec![vec![2], vec![0], vec![1]],
            keys: vec![(0, 0), (0, 1), (0, 2)],
            cycle_keys: None,
        };
        assert_eq!(g.order().unwrap_err(), vec![2, 0, 1]);
    }

    #[test]
    fn the_cycle_is_searched_from_the_greatest_vertex() {
        // Catala's tests/scope/bad/cyclic_scope_calls: S1 calls S2, S2 calls S1 and S3, S3 calls
        // S4, S4 calls S2; Catala prints "S4 → S3 → S2 → S4".
        let g = DepGraph {
            deps: vec![vec![1], vec![0, 2], vec![3], vec![1]],
            keys: vec![(0, 0), (0, 1), (0, 2), (0, 3)],
            cycle_keys: None,
        };
        assert_eq!(g.order().unwrap_err(), vec![3, 2, 1]);
    }

    #[test]
    fn states_of_a_variable_are_searched_last_state_first() {
        // Catala's tests/variable_state/bad/state_cycle: foo@bar (0) reads foofoo@baz (3),
        // foo@baz (1) reads foo@bar, foofoo@bar (2) reads foo@baz, foofoo@baz reads foofoo@bar;
        // Catala prints "foofoo@bar → foofoo@baz → foo@bar → foo@baz".
        let g = DepGraph {
            deps: vec![vec![3], vec![0], vec![1], vec![2]],
            keys: vec![(0, 0), (0, 1), (0, 1024), (0, 1025)],
            cycle_keys: Some(vec![(0, 1023), (0, 1022), (0, 2047), (0, 2046)]),
        };
        assert_eq!(g.order().unwrap_err(), vec![2, 3, 0, 1]);
    }
}
