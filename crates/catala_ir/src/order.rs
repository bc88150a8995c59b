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

    fn find_cycle(&self, pending: &[usize]) -> Vec<usize> {
        let n = self.deps.len();
        let stuck: Vec<bool> = (0..n).map(|v| pending[v] > 0).collect();
        // Start from the smallest stuck vertex and follow stuck dependencies until a repeat.
        let Some(start) = (0..n)
            .filter(|&v| stuck[v])
            .min_by_key(|&v| (self.keys[v], v))
        else {
            return Vec::new();
        };
        let mut path = vec![start];
        let mut cur = start;
        loop {
            let next = self.deps[cur]
                .iter()
                .copied()
                .filter(|&d| d < n && stuck[d])
                .min_by_key(|&d| (self.keys[d], d));
            let Some(next) = next else { return path };
            if let Some(pos) = path.iter().position(|&p| p == next) {
                let mut cycle: Vec<usize> = path[pos..].to_vec();
                // `path` follows "depends on"; report in "is used by" order.
                cycle.reverse();
                // Start from the latest-declared vertex, as Catala prints it.
                if let Some(top) = (0..cycle.len()).max_by_key(|&i| (self.keys[cycle[i]], cycle[i]))
                {
                    cycle.rotate_left(top);
                }
                return cycle;
            }
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
        };
        assert_eq!(g.order().unwrap(), vec![1, 2, 0, 3]);
    }

    #[test]
    fn cycles_are_reported() {
        // x(0) uses y(1), y uses z(2), z uses x.
        let g = DepGraph {
            deps: vec![vec![1], vec![2], vec![0]],
            keys: vec![(0, 0), (0, 1), (0, 2)],
        };
        let cycle = g.order().unwrap_err();
        assert_eq!(cycle.len(), 3);
        // Each element is used by the next one: z → x? x uses y, so y → x.
        for w in cycle.windows(2) {
            assert!(g.deps[w[1]].contains(&w[0]));
        }
    }
}
