//! Symbolic regular expressions over [`Event`]s: ∅, ε, literals, star, concatenation, negation,
//! conjunction and disjunction, built only through smart constructors that apply the standard
//! rewriting rules (∅·R = ∅, ε·R = R, ∅ ∨ R = R, ∅ ∧ R = ∅, ¬¬R = R, (R*)* = R*, idempotence and
//! flattening of ∧/∨, •* = ¬∅ …). Early falsification relies on these rules: a continuation effect
//! that is *syntactically* ∅ means every continuation violates the property.

use crate::event::Event;
use smt::Term;
use std::collections::BTreeMap;
use std::fmt;
use std::rc::Rc;

/// A node of a symbolic regular expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    Empty,
    Eps,
    Lit(Event),
    Star(Sre),
    Concat(Sre, Sre),
    Not(Sre),
    And(Vec<Sre>),
    Or(Vec<Sre>),
}

/// A shared, immutable symbolic regular expression. Each node keeps the hash of its structure,
/// computed once when it is built (children give theirs), so the memo tables keyed by
/// expressions hash a number instead of walking the tree, and unequal expressions are told
/// apart by it. Equality and order are structural.
#[derive(Clone)]
pub struct Sre(Rc<Hashed>);

struct Hashed {
    hash: u64,
    node: Node,
}

impl Sre {
    fn make(node: Node) -> Sre {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        node.hash(&mut h);
        Sre(Rc::new(Hashed {
            hash: h.finish(),
            node,
        }))
    }

    pub fn node(&self) -> &Node {
        &self.0.node
    }

    pub fn empty() -> Sre {
        Sre::make(Node::Empty)
    }

    pub fn eps() -> Sre {
        Sre::make(Node::Eps)
    }

    /// Σ*, written ¬∅.
    pub fn all() -> Sre {
        Sre::make(Node::Not(Sre::empty()))
    }

    /// `•`: any single event.
    pub fn any() -> Sre {
        Sre::lit(Event::top())
    }

    pub fn lit(e: Event) -> Sre {
        if e.is_bottom() {
            Sre::empty()
        } else {
            Sre::make(Node::Lit(e))
        }
    }

    pub fn is_empty(&self) -> bool {
        matches!(self.node(), Node::Empty)
    }

    pub(crate) fn is_eps(&self) -> bool {
        matches!(self.node(), Node::Eps)
    }

    pub fn is_all(&self) -> bool {
        matches!(self.node(), Node::Not(r) if r.is_empty())
    }

    pub fn star(r: Sre) -> Sre {
        match r.node() {
            Node::Empty | Node::Eps => Sre::eps(),
            Node::Star(_) => r,
            Node::Lit(e) if e.is_top() => Sre::all(),
            _ if r.is_all() => r,
            _ => Sre::make(Node::Star(r)),
        }
    }

    pub fn concat(a: Sre, b: Sre) -> Sre {
        if a.is_empty() || b.is_empty() {
            return Sre::empty();
        }
        if a.is_eps() {
            return b;
        }
        if b.is_eps() {
            return a;
        }
        if a.is_all() && b.is_all() {
            return a;
        }
        // right-associate so that derivatives walk sequences one event at a time
        if let Node::Concat(a1, a2) = a.node() {
            return Sre::concat(a1.clone(), Sre::concat(a2.clone(), b));
        }
        Sre::make(Node::Concat(a, b))
    }

    pub fn seq(parts: impl IntoIterator<Item = Sre>) -> Sre {
        let parts: Vec<Sre> = parts.into_iter().collect();
        parts
            .into_iter()
            .rev()
            .fold(Sre::eps(), |acc, p| Sre::concat(p, acc))
    }

    pub fn complement(r: Sre) -> Sre {
        match r.node() {
            Node::Not(inner) => inner.clone(),
            _ => Sre::make(Node::Not(r)),
        }
    }

    pub fn and(parts: impl IntoIterator<Item = Sre>) -> Sre {
        let mut out: Vec<Sre> = Vec::new();
        for p in parts {
            match p.node() {
                Node::Empty => return Sre::empty(),
                _ if p.is_all() => {}
                Node::And(inner) => out.extend(inner.iter().cloned()),
                _ => out.push(p),
            }
        }
        out.sort();
        out.dedup();
        // R ∧ ¬R = ∅
        for r in &out {
            if out.contains(&Sre::complement(r.clone())) {
                return Sre::empty();
            }
        }
        // ε ∧ R: ε if R nullable, else ∅
        if out.iter().any(Sre::is_eps) {
            return if out.iter().all(Sre::nullable) {
                Sre::eps()
            } else {
                Sre::empty()
            };
        }
        // literals conjoin into one literal
        let lits: Vec<Event> = out
            .iter()
            .filter_map(|r| {
                if let Node::Lit(e) = r.node() {
                    Some(e.clone())
                } else {
                    None
                }
            })
            .collect();
        if lits.len() > 1 {
            let merged = lits[1..].iter().fold(lits[0].clone(), |acc, e| acc.and(e));
            out.retain(|r| !matches!(r.node(), Node::Lit(_)));
            out.push(Sre::lit(merged));
            return Sre::and(out);
        }
        match out.len() {
            0 => Sre::all(),
            1 => out.pop().unwrap_or_else(Sre::all),
            _ => Sre::make(Node::And(out)),
        }
    }

    pub fn or(parts: impl IntoIterator<Item = Sre>) -> Sre {
        let mut out: Vec<Sre> = Vec::new();
        for p in parts {
            match p.node() {
                Node::Empty => {}
                _ if p.is_all() => return Sre::all(),
                Node::Or(inner) => out.extend(inner.iter().cloned()),
                _ => out.push(p),
            }
        }
        out.sort();
        out.dedup();
        for r in &out {
            if out.contains(&Sre::complement(r.clone())) {
                return Sre::all();
            }
        }
        // ε ∨ R = R when R is nullable
        if out.iter().any(Sre::is_eps) && out.iter().any(|r| !r.is_eps() && r.nullable()) {
            out.retain(|r| !r.is_eps());
        }
        let lits: Vec<Event> = out
            .iter()
            .filter_map(|r| {
                if let Node::Lit(e) = r.node() {
                    Some(e.clone())
                } else {
                    None
                }
            })
            .collect();
        if lits.len() > 1 {
            let merged = lits[1..].iter().fold(lits[0].clone(), |acc, e| acc.or(e));
            out.retain(|r| !matches!(r.node(), Node::Lit(_)));
            out.push(Sre::lit(merged));
            return Sre::or(out);
        }
        match out.len() {
            0 => Sre::empty(),
            1 => out.pop().unwrap_or_else(Sre::empty),
            _ => Sre::make(Node::Or(out)),
        }
    }

    /// ν(R): R accepts the empty trace.
    pub fn nullable(&self) -> bool {
        match self.node() {
            Node::Empty | Node::Lit(_) => false,
            Node::Eps | Node::Star(_) => true,
            Node::Concat(a, b) => a.nullable() && b.nullable(),
            Node::Not(r) => !r.nullable(),
            Node::And(xs) => xs.iter().all(Sre::nullable),
            Node::Or(xs) => xs.iter().any(Sre::nullable),
        }
    }

    /// Substitutes symbolic variables in every literal.
    pub fn subst(&self, map: &BTreeMap<Rc<str>, Term>) -> Sre {
        if map.is_empty() {
            return self.clone();
        }
        match self.node() {
            Node::Empty | Node::Eps => self.clone(),
            Node::Lit(e) => Sre::lit(e.subst(map)),
            Node::Star(r) => Sre::star(r.subst(map)),
            Node::Concat(a, b) => Sre::concat(a.subst(map), b.subst(map)),
            Node::Not(r) => Sre::complement(r.subst(map)),
            Node::And(xs) => Sre::and(xs.iter().map(|x| x.subst(map))),
            Node::Or(xs) => Sre::or(xs.iter().map(|x| x.subst(map))),
        }
    }

    /// Every literal of the expression.
    pub fn literals(&self, out: &mut Vec<Event>) {
        match self.node() {
            Node::Empty | Node::Eps => {}
            Node::Lit(e) => out.push(e.clone()),
            Node::Star(r) | Node::Not(r) => r.literals(out),
            Node::Concat(a, b) => {
                a.literals(out);
                b.literals(out)
            }
            Node::And(xs) | Node::Or(xs) => xs.iter().for_each(|x| x.literals(out)),
        }
    }

    /// Size in nodes (for reports and cut-offs).
    pub fn size(&self) -> usize {
        match self.node() {
            Node::Empty | Node::Eps | Node::Lit(_) => 1,
            Node::Star(r) | Node::Not(r) => 1 + r.size(),
            Node::Concat(a, b) => 1 + a.size() + b.size(),
            Node::And(xs) | Node::Or(xs) => 1 + xs.iter().map(Sre::size).sum::<usize>(),
        }
    }
}

impl PartialEq for Sre {
    fn eq(&self, other: &Sre) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
            || (self.0.hash == other.0.hash && self.0.node == other.0.node)
    }
}

impl Eq for Sre {}

impl std::hash::Hash for Sre {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.0.hash)
    }
}

impl PartialOrd for Sre {
    fn partial_cmp(&self, other: &Sre) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Sre {
    /// The structural order of the nodes (the hash plays no part).
    fn cmp(&self, other: &Sre) -> std::cmp::Ordering {
        if Rc::ptr_eq(&self.0, &other.0) {
            return std::cmp::Ordering::Equal;
        }
        self.0.node.cmp(&other.0.node)
    }
}

impl fmt::Debug for Sre {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Sre").field(&self.0.node).finish()
    }
}

impl fmt::Display for Sre {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn atomic(r: &Sre) -> bool {
            matches!(
                r.node(),
                Node::Empty | Node::Eps | Node::Lit(_) | Node::Star(_) | Node::Not(_)
            )
        }
        fn paren(f: &mut fmt::Formatter<'_>, r: &Sre) -> fmt::Result {
            if atomic(r) {
                write!(f, "{r}")
            } else {
                write!(f, "({r})")
            }
        }
        match self.node() {
            Node::Empty => write!(f, "∅"),
            Node::Eps => write!(f, "ε"),
            Node::Lit(e) => write!(f, "{e}"),
            Node::Star(r) => {
                paren(f, r)?;
                write!(f, "*")
            }
            Node::Not(r) if r.is_empty() => write!(f, "•*"),
            Node::Not(r) => {
                write!(f, "¬")?;
                paren(f, r)
            }
            Node::Concat(a, b) => {
                paren(f, a)?;
                write!(f, "; ")?;
                paren(f, b)
            }
            Node::And(xs) | Node::Or(xs) => {
                let sep = if matches!(self.node(), Node::And(_)) {
                    " ∧ "
                } else {
                    " ∨ "
                };
                for (i, x) in xs.iter().enumerate() {
                    if i > 0 {
                        write!(f, "{sep}")?;
                    }
                    paren(f, x)?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a() -> Sre {
        Sre::lit(Event::atom("a", Term::tt()))
    }

    #[test]
    fn rewriting_rules() {
        assert!(Sre::concat(Sre::empty(), a()).is_empty());
        assert_eq!(Sre::concat(Sre::eps(), a()), a());
        assert_eq!(Sre::or([Sre::empty(), a()]), a());
        assert!(Sre::and([Sre::empty(), a()]).is_empty());
        assert_eq!(Sre::complement(Sre::complement(a())), a());
        assert_eq!(Sre::star(Sre::star(a())), Sre::star(a()));
        assert!(Sre::star(Sre::any()).is_all());
        assert!(Sre::and([a(), Sre::complement(a())]).is_empty());
        assert_eq!(Sre::and([Sre::all(), a()]), a());
    }

    #[test]
    fn expressions_built_apart_are_equal_with_the_same_hash_and_order() {
        use std::hash::{BuildHasher, RandomState};
        let x = Sre::seq([a(), Sre::star(a()), Sre::complement(a())]);
        let y = Sre::seq([a(), Sre::star(a()), Sre::complement(a())]);
        let z = Sre::seq([a(), Sre::star(a()), a()]);
        assert!(!Rc::ptr_eq(&x.0, &y.0));
        assert_eq!(x, y);
        assert_eq!(x.cmp(&y), std::cmp::Ordering::Equal);
        let s = RandomState::new();
        assert_eq!(s.hash_one(&x), s.hash_one(&y));
        assert_ne!(x, z);
        // the order is that of the nodes: a literal before a complement (declaration order)
        assert_eq!(z.cmp(&x), std::cmp::Ordering::Less);
    }

    #[test]
    fn nullable_follows_the_definition() {
        assert!(Sre::eps().nullable());
        assert!(!a().nullable());
        assert!(Sre::star(a()).nullable());
        assert!(!Sre::concat(a(), Sre::star(a())).nullable());
        assert!(Sre::complement(a()).nullable());
        assert!(!Sre::and([Sre::star(a()), a()]).nullable());
    }
}
