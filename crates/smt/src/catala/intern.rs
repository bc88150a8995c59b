//! Hash-consing of terms: the thread's table of the term nodes alive, so that structurally
//! equal terms built anywhere on a thread (in one run of an exploration or in different runs)
//! are one node. Every constructor of [`super::term`] goes through [`intern`]; a node's
//! children are themselves unique nodes, so a node is hashed and compared shallowly, its
//! children by address, and two terms are equal exactly when they are the same node.
//!
//! The table holds weak references only: a term lives as long as its users keep it, and the
//! entries of the nodes dropped are swept out whenever the table has doubled since the last
//! sweep, so it stays within about twice the nodes alive. Terms are `Rc`s, bound to the
//! thread that built them; each thread has its own table.

use super::term::{Term, TermNode};
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};
use std::rc::{Rc, Weak};

/// Entries below which the table is never swept.
const MIN_SWEEP: usize = 1 << 14;

/// The nodes of one hash: almost always one.
enum Slot {
    One(Weak<TermNode>),
    Many(Vec<Weak<TermNode>>),
}

impl Slot {
    fn alive(&self) -> bool {
        match self {
            Slot::One(w) => w.strong_count() > 0,
            Slot::Many(ws) => ws.iter().any(|w| w.strong_count() > 0),
        }
    }
}

/// The thread's table: live nodes by their shallow hash.
struct Table {
    slots: HashMap<u64, Slot, BuildHasherDefault<Identity>>,
    /// Entries at which the next sweep happens.
    sweep_at: usize,
}

thread_local! {
    static TABLE: RefCell<Table> = RefCell::new(Table {
        slots: HashMap::default(),
        sweep_at: MIN_SWEEP,
    });
}

/// The unique node equal to `node` on this thread: the one alive if there is one, else
/// `node`, now shared. (While the thread's table is being torn down, at the thread's end, a
/// new node is returned as is.)
pub(super) fn intern(node: TermNode) -> Term {
    let hash = hash_of(&node);
    let mut pending = Some(node);
    let found = TABLE.try_with(|table| table.borrow_mut().find_or_insert(hash, &mut pending));
    match (found, pending) {
        (Ok(Some(t)), _) => t,
        (_, Some(node)) => Rc::new(node),
        // `find_or_insert` returns a node whenever it takes the pending one.
        (_, None) => unreachable!("a node taken by the table is returned"),
    }
}

/// Entries of this thread's table (live or not yet swept).
#[cfg(test)]
pub(crate) fn table_len() -> usize {
    TABLE.with(|t| t.borrow().slots.len())
}

impl Table {
    /// The live node equal to `*pending`, else the pending node, taken and entered.
    fn find_or_insert(&mut self, hash: u64, pending: &mut Option<TermNode>) -> Option<Term> {
        let node = pending.as_ref()?;
        let found = match self.slots.get(&hash) {
            Some(Slot::One(w)) => w.upgrade().filter(|t| **t == *node),
            Some(Slot::Many(ws)) => ws.iter().filter_map(Weak::upgrade).find(|t| **t == *node),
            None => None,
        };
        if let Some(t) = found {
            return Some(t);
        }
        let t = Rc::new(pending.take()?);
        let w = Rc::downgrade(&t);
        match self.slots.get_mut(&hash) {
            None => {
                self.slots.insert(hash, Slot::One(w));
                if self.slots.len() >= self.sweep_at {
                    self.sweep();
                }
            }
            Some(slot) => match slot {
                Slot::One(old) if old.strong_count() == 0 => *old = w,
                Slot::One(old) => *slot = Slot::Many(vec![old.clone(), w]),
                Slot::Many(ws) => {
                    ws.retain(|w| w.strong_count() > 0);
                    ws.push(w);
                }
            },
        }
        Some(t)
    }

    /// Drops the entries of the nodes no longer alive.
    fn sweep(&mut self) {
        self.slots.retain(|_, slot| slot.alive());
        self.sweep_at = (2 * self.slots.len()).max(MIN_SWEEP);
    }
}

/// The shallow hash of a node (the children by address; see [`TermNode`]'s `Hash`).
fn hash_of(node: &TermNode) -> u64 {
    let mut h = crate::fast_hash::FastHasher::default();
    node.hash(&mut h);
    h.finish()
}

/// The table's keys are already hashes.
#[derive(Default)]
struct Identity(u64);

impl Hasher for Identity {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::term::{app, bool_const, int_const, not, real_const, var, Kind, Op, VarId};

    fn sum(x: u32, k: &str) -> Term {
        app(
            Op::Le,
            vec![
                app(Op::Add, vec![var(VarId(x), Kind::Int), int_const(k)]),
                int_const("100"),
            ],
        )
    }

    #[test]
    fn equal_terms_built_apart_are_one_node() {
        let a = sum(0, "7");
        let b = sum(0, "7");
        assert!(Rc::ptr_eq(&a, &b));
        assert!(Rc::ptr_eq(&not(&a), &not(&b)));
        assert!(Rc::ptr_eq(&real_const("1", "3"), &real_const("1", "3")));
        assert!(Rc::ptr_eq(&bool_const(true), &bool_const(true)));
        // Different terms stay different nodes, and unequal.
        for c in [sum(1, "7"), sum(0, "8"), app(Op::Lt, vec![int_const("7")])] {
            assert!(!Rc::ptr_eq(&a, &c));
            assert_ne!(a, c);
        }
        assert_ne!(var(VarId(0), Kind::Int), var(VarId(0), Kind::Real));
        assert_ne!(real_const("1", "3"), real_const("13", "1"));
    }

    #[test]
    fn a_term_rebuilt_after_its_node_was_dropped_is_sound() {
        let x = var(VarId(3), Kind::Int);
        let first = app(Op::Mul, vec![x.clone(), int_const("2")]);
        let text = first.to_string();
        drop(first);
        // The table's entry of the dropped node is dead: neither found for the same term nor
        // taken for another.
        let other = app(Op::Mul, vec![x.clone(), int_const("3")]);
        let again = app(Op::Mul, vec![x, int_const("2")]);
        assert_eq!(again.to_string(), text);
        assert_eq!(other.to_string(), "(* v3 3)");
        assert!(!Rc::ptr_eq(&again, &other));
    }

    #[test]
    fn the_table_keeps_about_the_nodes_alive() {
        let kept = sum(9, "1");
        for round in 0..10 {
            // 10 × 20,000 distinct terms of 3 nodes each, dropped at once.
            let terms: Vec<Term> = (0..20_000).map(|i| sum(round, &i.to_string())).collect();
            assert_eq!(terms.len(), 20_000);
        }
        // Swept whenever it doubles: at most twice what was alive at the last sweep (the
        // 60,000 nodes of a round, at most) plus what came after it.
        assert!(table_len() <= 4 * 60_000 + MIN_SWEEP, "{}", table_len());
        assert!(Rc::ptr_eq(&kept, &sum(9, "1")));
        // Ten rounds entered about 600,000 nodes: most entries were swept.
        assert!(table_len() < 600_000 / 2);
    }

    #[test]
    fn nodes_of_one_hash_are_told_apart() {
        let mut table = Table {
            slots: HashMap::default(),
            sweep_at: MIN_SWEEP,
        };
        let mut enter = |n: TermNode| table.find_or_insert(42, &mut Some(n));
        let a = enter(TermNode::Int("1".into()));
        let b = enter(TermNode::Int("2".into()));
        let (Some(a), Some(b)) = (a, b) else {
            panic!("every node is entered");
        };
        assert!(!Rc::ptr_eq(&a, &b));
        assert!(enter(TermNode::Int("1".into())).is_some_and(|t| Rc::ptr_eq(&t, &a)));
        assert!(enter(TermNode::Int("2".into())).is_some_and(|t| Rc::ptr_eq(&t, &b)));
        drop(a);
        let c = enter(TermNode::Int("3".into()));
        assert!(c.is_some_and(|t| !Rc::ptr_eq(&t, &b) && t.to_string() == "3"));
        assert_eq!(table.slots.len(), 1);
    }
}
