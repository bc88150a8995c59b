//! Symbolic events ⟨x_ret ← f x̄_arg | φ⟩ and their boolean algebra (Definition 6.2 of the
//! derivative-guided symbolic execution paper). An [`Event`] is stored in the stratified form of
//! Section 6: one qualifier per effectful function it mentions (the disjuncts are over disjoint
//! functions), plus one qualifier for *every other* function. That second part is the first
//! optimization of Section 7: negation never has to enumerate the library's functions.
//!
//! Qualifiers are [`Term`]s whose event-local variables have canonical names: the i-th argument is
//! [`arg_var`]`(i)` and the result is [`RET_VAR`]. Every other free variable is a symbolic
//! variable shared with the path condition.

use crate::qualifiers::Qualifiers;
use smt::{Sort, Term};
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// Canonical name of the result variable of an event.
pub const RET_VAR: &str = "#r";

/// Canonical name of the i-th argument of an event.
pub fn arg_var(i: usize) -> String {
    format!("#{i}")
}

/// The signature of an effectful function: argument sorts and result sort.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OpSig {
    pub args: Vec<Sort>,
    pub ret: Sort,
}

/// A symbolic event in stratified form.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Event {
    /// Qualifier of each explicitly mentioned function (shared by the copies of the event).
    pub ops: Qualifiers,
    /// Qualifier of every function not in `ops`; it cannot mention event-local variables.
    pub others: Term,
}

impl Event {
    /// The event of one function with a qualifier over canonical local names.
    pub fn atom(op: &str, qualifier: Term) -> Event {
        Event {
            ops: std::iter::once((Rc::from(op), qualifier)).collect(),
            others: Term::ff(),
        }
        .normalized()
    }

    /// `•`: every event.
    pub fn top() -> Event {
        Event {
            ops: Qualifiers::new(),
            others: Term::tt(),
        }
    }

    /// `⊥`: no event.
    pub fn bottom() -> Event {
        Event {
            ops: Qualifiers::new(),
            others: Term::ff(),
        }
    }

    /// A guard event ⟨φ⟩: every call, whenever φ holds.
    pub fn guard(phi: Term) -> Event {
        Event {
            ops: Qualifiers::new(),
            others: phi,
        }
    }

    fn normalized(mut self) -> Event {
        self.ops = self.ops.filter(|q| *q != self.others);
        self
    }

    /// The qualifier of function `op` in this event.
    pub fn qualifier(&self, op: &str) -> Term {
        self.ops
            .get(op)
            .cloned()
            .unwrap_or_else(|| self.others.clone())
    }

    /// Syntactically empty.
    pub fn is_bottom(&self) -> bool {
        self.others.is_false() && self.ops.values().all(Term::is_false)
    }

    /// Syntactically full.
    pub(crate) fn is_top(&self) -> bool {
        self.others.is_true() && self.ops.values().all(Term::is_true)
    }

    /// Functions this event may be a call of, or `None` when it also covers unlisted functions.
    pub fn possible_ops(&self) -> Option<Vec<Rc<str>>> {
        if !self.others.is_false() {
            return None;
        }
        Some(
            self.ops
                .iter()
                .filter(|(_, q)| !q.is_false())
                .map(|(o, _)| o.clone())
                .collect(),
        )
    }

    /// Compatibility of Section 5.2: the two events can be calls of a common function.
    pub fn compatible(&self, other: &Event) -> bool {
        match (self.possible_ops(), other.possible_ops()) {
            (Some(a), Some(b)) => a.iter().any(|o| b.contains(o)),
            (Some(a), None) => a.iter().any(|o| !other.qualifier(o).is_false()),
            (None, Some(b)) => b.iter().any(|o| !self.qualifier(o).is_false()),
            (None, None) => true,
        }
    }

    /// `~ℓ`.
    pub fn negate(&self) -> Event {
        Event {
            ops: self.ops.map(|q| Term::negation(q.clone())),
            others: Term::negation(self.others.clone()),
        }
        .normalized()
    }

    fn combine(&self, other: &Event, f: impl Fn(Term, Term) -> Term) -> Event {
        let ops = self
            .ops
            .union_of_keys(&other.ops)
            .into_iter()
            .map(|o| (o.clone(), f(self.qualifier(o), other.qualifier(o))))
            .collect();
        Event {
            ops,
            others: f(self.others.clone(), other.others.clone()),
        }
        .normalized()
    }

    /// `ℓ₁ ⊓ ℓ₂`. With `•` on either side this is the other event, given back as that event
    /// itself (a copy sharing its qualifiers) instead of a new list with a conjunction with
    /// `true` built and simplified away: the same value, without the allocations. (A trace
    /// refined by an `admit` keeps its events wherever the refinement is `•`, and events `•`,
    /// as the prestates of a group are, take the next event of the expression as it is.)
    pub fn and(&self, other: &Event) -> Event {
        if other.is_top() && self.conjoins_to_itself() {
            return self.clone();
        }
        if self.is_top() && other.conjoins_to_itself() {
            return other.clone();
        }
        self.combine(other, |a, b| Term::and([a, b]))
    }

    /// The event is what `combine` with `Term::and` and `•` would build from it: normalized
    /// (no function's qualifier is that of the others), and each qualifier is what
    /// `Term::and` gives back for it conjoined with `true` (anything but a conjunction of fewer
    /// than two parts or with a repeated part, which `Term::and` would rewrite).
    fn conjoins_to_itself(&self) -> bool {
        let stable = |t: &Term| match t {
            Term::And(parts) => {
                parts.len() >= 2
                    && parts
                        .iter()
                        .enumerate()
                        .all(|(i, p)| !parts[..i].contains(p))
            }
            _ => true,
        };
        stable(&self.others) && self.ops.values().all(|q| *q != self.others && stable(q))
    }

    /// `ℓ₁ ⊔ ℓ₂`.
    pub fn or(&self, other: &Event) -> Event {
        self.combine(other, |a, b| Term::or([a, b]))
    }

    /// `ℓ₁ ⊔ ℓ₂`, with a qualifier that is a disjunction of some disjuncts and the negation of
    /// their disjunction written `true` (the union of the parts of a partition).
    pub fn union(&self, other: &Event) -> Event {
        self.combine(other, or_qualifiers)
    }

    /// Substitutes symbolic variables (never the event-local ones).
    pub fn subst(&self, map: &BTreeMap<Rc<str>, Term>) -> Event {
        if map.is_empty() {
            return self.clone();
        }
        Event {
            ops: self.ops.map(|q| q.subst_map(map)),
            others: self.others.subst_map(map),
        }
        .normalized()
    }

    /// The constraint of this event (Section 6) with its local variables renamed apart by
    /// `rename(op, local)`: the disjunction of the qualifiers of the functions it may be.
    pub fn constraint(&self, rename: &dyn Fn(&str, &str) -> Option<Term>) -> Term {
        if !self.others.is_false() {
            // some unlisted function is possible (given the guard)
            let listed = self
                .ops
                .iter()
                .map(|(o, q)| q.subst(&|n: &str| rename(o, n)));
            return Term::or(listed.chain(std::iter::once(self.others.clone())));
        }
        Term::or(
            self.ops
                .iter()
                .map(|(o, q)| q.subst(&|n: &str| rename(o, n))),
        )
    }

    /// Free symbolic variables (locals excluded).
    pub fn symbolic_vars(&self) -> BTreeMap<Rc<str>, Sort> {
        let mut out = BTreeMap::new();
        for q in self.ops.values().chain(std::iter::once(&self.others)) {
            for (n, s) in q.free_vars() {
                if !n.starts_with('#') {
                    out.insert(n, s);
                }
            }
        }
        out
    }
}

/// `a ∨ b`, and `true` when a disjunct is the negation of some of the others (`x ∨ ¬x`,
/// `x ∨ y ∨ ¬(x ∨ y)`: the union of the parts of a partition is everything).
fn or_qualifiers(a: Term, b: Term) -> Term {
    let t = Term::or([a, b]);
    if let Term::Or(list) = &t {
        let tautology = list.iter().any(|x| match x {
            Term::Not(inner) => match &**inner {
                Term::Or(parts) => parts.iter().all(|p| list.contains(p)),
                single => list.contains(single),
            },
            _ => false,
        });
        if tautology {
            return Term::tt();
        }
    }
    t
}

fn show_qualifier(q: &Term) -> String {
    q.rename(&|n: &str| {
        if n == RET_VAR {
            Some("vret".to_string())
        } else {
            n.strip_prefix('#').map(|i| format!("x_{i}"))
        }
    })
    .to_string()
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_top() {
            return write!(f, "•");
        }
        if self.is_bottom() {
            return write!(f, "⊥");
        }
        let mut first = true;
        for (o, q) in &self.ops {
            if q.is_false() {
                continue;
            }
            if !first {
                write!(f, " ⊔ ")?;
            }
            first = false;
            write!(f, "⟨{o} = vret | {}⟩", show_qualifier(q))?;
        }
        if !self.others.is_false() {
            if !first {
                write!(f, " ⊔ ")?;
            }
            let excluded: Vec<&str> = self.ops.keys().map(|k| &**k).collect();
            if excluded.is_empty() {
                write!(f, "⟨{}⟩", self.others)?;
            } else {
                write!(f, "⟨{} | not {}⟩", self.others, excluded.join(", "))?;
            }
        }
        Ok(())
    }
}

/// Prints an event with its argument names, given the arities of its functions.
pub fn show_event(e: &Event, arity: &dyn Fn(&str) -> usize) -> String {
    let mut parts = Vec::new();
    for (o, q) in &e.ops {
        if q.is_false() {
            continue;
        }
        let args: Vec<String> = (0..arity(o)).map(|i| format!("x_{i}")).collect();
        let args = if args.is_empty() {
            String::new()
        } else {
            format!(" {}", args.join(" "))
        };
        parts.push(format!("⟨{o}{args} = vret | {}⟩", show_qualifier(q)));
    }
    if !e.others.is_false() || parts.is_empty() {
        let mut single = e.clone();
        single.ops = Qualifiers::new();
        if e.ops.is_empty() {
            parts.push(format!("{single}"));
        } else {
            let excluded: Vec<&str> = e.ops.keys().map(|k| &**k).collect();
            parts.push(format!("⟨{} | not {}⟩", e.others, excluded.join(", ")));
        }
    }
    parts.join(" ⊔ ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(phi: Term) -> Event {
        Event::atom("put", phi)
    }

    #[test]
    fn negation_keeps_other_functions_without_enumerating_them() {
        let k = Term::var("#0", Sort::Int);
        let e = put(Term::eq(k.clone(), Term::Int(1)));
        let n = e.negate();
        assert_eq!(
            n.qualifier("put"),
            Term::negation(Term::eq(k, Term::Int(1)))
        );
        assert!(n.qualifier("get").is_true());
        assert_eq!(n.negate(), e);
    }

    #[test]
    fn the_union_of_the_parts_of_a_partition_is_everything() {
        let k = Term::var("#0", Sort::Int);
        let one = Term::eq(k.clone(), Term::Int(1));
        let two = Term::eq(k, Term::Int(2));
        let a = put(one.clone());
        let b = put(two.clone());
        let rest = a.or(&b).negate();
        // put(#0 = 1) ⊔ put(#0 = 2) ⊔ ~(both): every call
        let all = a.union(&b).union(&rest);
        assert!(all.qualifier("put").is_true() && all.qualifier("get").is_true());
        // a union that is not everything keeps its disjunction
        assert_eq!(a.union(&b).qualifier("put"), Term::or([one, two]));
        assert!(a.union(&b).qualifier("get").is_false());
    }

    #[test]
    fn conjunction_is_pointwise_over_functions() {
        let k = Term::var("#0", Sort::Int);
        let a = put(Term::eq(k.clone(), Term::Int(1)));
        let b = Event::atom("get", Term::tt());
        assert!(a.and(&b).is_bottom());
        assert!(!a.compatible(&b));
        let c = a.and(&Event::top());
        assert_eq!(c, a);
        let d = a.or(&b);
        assert_eq!(d.possible_ops().map(|v| v.len()), Some(2));
    }

    #[test]
    fn conjunction_with_everything_is_the_event_itself_shared() {
        let k = Term::var("#0", Sort::Int);
        let x = Term::var("x", Sort::Int);
        let one = Term::eq(k.clone(), Term::Int(1));
        let kx = Term::eq(k.clone(), x.clone());
        let general = |a: &Event, b: &Event| a.combine(b, |p, q| Term::and([p, q]));
        // `•` with its functions listed (each `true`) is everything too
        let top_listed = Event {
            ops: [(Rc::from("put"), Term::tt())].into_iter().collect(),
            others: Term::tt(),
        };
        let events = vec![
            put(one.clone()),
            put(one.clone()).negate(),
            put(Term::and([one.clone(), kx.clone()])),
            put(kx.clone()).or(&Event::atom("get", Term::negation(one.clone()))),
            Event::guard(Term::cmp(smt::CmpOp::Lt, x.clone(), Term::Int(3))),
            Event::top(),
            Event::bottom(),
        ];
        for e in &events {
            for top in [Event::top(), top_listed.clone()] {
                for (a, b) in [(e, &top), (&top, e)] {
                    let fast = a.and(b);
                    assert_eq!(fast, general(a, b), "{a} ⊓ {b}");
                }
            }
            // the result shares the event's own list of qualifiers
            let same = e.and(&Event::top());
            assert!(e.ops.is_empty() || e.ops.shares_with(&same.ops), "{e}");
        }
        // a qualifier `Term::and` would rewrite (a repeated part) is rebuilt, as before
        let repeated = Event {
            ops: [(
                Rc::from("put"),
                Term::And(vec![one.clone(), one.clone()].into()),
            )]
            .into_iter()
            .collect(),
            others: Term::ff(),
        };
        assert!(!repeated.conjoins_to_itself());
        assert_eq!(repeated.and(&Event::top()).qualifier("put"), one);
        // an event that is not normalized is normalized, as before
        let unnormalized = Event {
            ops: [(Rc::from("put"), Term::ff())].into_iter().collect(),
            others: Term::ff(),
        };
        assert_eq!(
            unnormalized.and(&Event::top()),
            general(&unnormalized, &Event::top())
        );
        assert!(unnormalized.and(&Event::top()).ops.is_empty());
    }
}
