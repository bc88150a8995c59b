//! Searchers over the open branches of every run so far, for a loop that keeps its runs
//! (the relational one, `crate::relational_loop`) rather than one path's stack (the searchers
//! of `crate::searcher`). Each run's branches are added as the run meets them, with whether
//! their other way was new then; the searcher takes out the one to negate next.
//! [`DepthFirstFrontier`]: the deepest branch of the latest run first. [`NewBranchesFirstFrontier`]:
//! first the branches whose other way no run had taken when they were met and none has taken
//! since, the deepest of the latest run first; then depth first.

/// A branch to negate: constraint `i` of run `run`, keeping the constraints before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Open {
    pub(crate) run: usize,
    pub(crate) i: usize,
}

/// Decides which open branch of the runs so far is negated next.
pub(crate) trait Frontier {
    /// A branch met by the latest run; `new_way`: no run had taken its other way.
    fn add(&mut self, open: Open, new_way: bool);
    /// The branch to negate next, or `None` when every branch is taken out; `taken(o)`: some
    /// run has taken the other way of `o` since it was added.
    fn pick(&mut self, taken: &dyn Fn(Open) -> bool) -> Option<Open>;
    fn is_empty(&self) -> bool;
}

/// The deepest branch of the latest run first.
#[derive(Default)]
pub(crate) struct DepthFirstFrontier {
    stack: Vec<Open>,
}

impl Frontier for DepthFirstFrontier {
    fn add(&mut self, open: Open, _: bool) {
        self.stack.push(open);
    }

    fn pick(&mut self, _: &dyn Fn(Open) -> bool) -> Option<Open> {
        self.stack.pop()
    }

    fn is_empty(&self) -> bool {
        self.stack.is_empty()
    }
}

/// `fresh` holds branches whose other way was not taken by any run when they were met,
/// `seen` the others (each in the order met: the deepest branch of the latest run on top).
#[derive(Default)]
pub(crate) struct NewBranchesFirstFrontier {
    fresh: Vec<Open>,
    seen: Vec<Open>,
}

impl Frontier for NewBranchesFirstFrontier {
    fn add(&mut self, open: Open, new_way: bool) {
        if new_way {
            self.fresh.push(open);
        } else {
            self.seen.push(open);
        }
    }

    fn pick(&mut self, taken: &dyn Fn(Open) -> bool) -> Option<Open> {
        let mut stale = Vec::new();
        let mut found = None;
        while let Some(o) = self.fresh.pop() {
            if taken(o) {
                stale.push(o);
            } else {
                found = Some(o);
                break;
            }
        }
        // Branches whose other way was taken meanwhile join the depth-first stack, the
        // deepest on top.
        self.seen.extend(stale.into_iter().rev());
        found.or_else(|| self.seen.pop())
    }

    fn is_empty(&self) -> bool {
        self.fresh.is_empty() && self.seen.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o(run: usize, i: usize) -> Open {
        Open { run, i }
    }

    #[test]
    fn depth_first_takes_the_latest_branch_first() {
        let mut f = DepthFirstFrontier::default();
        f.add(o(0, 0), true);
        f.add(o(0, 1), false);
        f.add(o(1, 2), true);
        let order: Vec<Open> = std::iter::from_fn(|| f.pick(&|_| false)).collect();
        assert_eq!(order, [o(1, 2), o(0, 1), o(0, 0)]);
        assert!(f.is_empty());
    }

    #[test]
    fn new_branches_go_first_unless_their_way_was_taken_since() {
        let mut f = NewBranchesFirstFrontier::default();
        f.add(o(0, 0), true);
        f.add(o(0, 1), false);
        f.add(o(0, 2), true);
        f.add(o(0, 3), true);
        // The other way of (0, 3) was taken meanwhile: (0, 2) is the newest fresh one; (0, 3)
        // joins the depth-first stack above (0, 1).
        let taken = |b: Open| b == o(0, 3);
        assert_eq!(f.pick(&taken), Some(o(0, 2)));
        assert_eq!(f.pick(&taken), Some(o(0, 0)));
        assert_eq!(f.pick(&taken), Some(o(0, 3)));
        assert_eq!(f.pick(&taken), Some(o(0, 1)));
        assert_eq!(f.pick(&taken), None);
    }
}
