//! First-order terms over booleans, integers and uninterpreted sorts: the formula language that
//! every engine hands to the solver. Terms are plain data (hashable, ordered, printable) so that
//! callers can cache queries, substitute variables and rename them without touching Z3.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::rc::Rc;

/// The sort of a term.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sort {
    Bool,
    Int,
    Unit,
    /// An uninterpreted sort such as `Elem.t`.
    Named(String),
}

impl fmt::Display for Sort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sort::Bool => write!(f, "bool"),
            Sort::Int => write!(f, "int"),
            Sort::Unit => write!(f, "unit"),
            Sort::Named(n) => write!(f, "{n}"),
        }
    }
}

/// Binary arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// Integer comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
}

/// A shared sub-term (or list of sub-terms) with its structural hash, computed once when the
/// node is built: hashing a term then costs one step per node of its top layer, not one per
/// node of the whole tree, and two different nodes are told apart by their hashes before any
/// deep comparison. Equality, order and printing are those of the value it points to.
pub struct Shared<T: ?Sized> {
    node: Rc<T>,
    /// Two independent 64-bit digests of the value (see [`Shared::digest`]).
    hash: [u64; 2],
}

impl<T: Hash + ?Sized> Shared<T> {
    fn from_rc(node: Rc<T>) -> Self {
        let hash = Self::digest(&node);
        Shared { node, hash }
    }

    /// Two SipHash digests with different keys, so that sub-terms, whose hashes stand for
    /// them in the hash of every term above, stay 128-bit fingerprints of their value.
    fn digest(value: &T) -> [u64; 2] {
        let mut first = std::collections::hash_map::DefaultHasher::new();
        value.hash(&mut first);
        let mut second = std::collections::hash_map::DefaultHasher::new();
        second.write_u64(0x9e37_79b9_7f4a_7c15);
        value.hash(&mut second);
        [first.finish(), second.finish()]
    }
}

impl Shared<Term> {
    pub fn new(t: Term) -> Self {
        Self::from_rc(Rc::new(t))
    }
}

impl From<Term> for Shared<Term> {
    fn from(t: Term) -> Self {
        Shared::new(t)
    }
}

impl From<Vec<Term>> for Shared<[Term]> {
    fn from(ts: Vec<Term>) -> Self {
        Self::from_rc(ts.into())
    }
}

impl<T: ?Sized> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared {
            node: Rc::clone(&self.node),
            hash: self.hash,
        }
    }
}

impl<T: ?Sized> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.node
    }
}

impl<T: fmt::Debug + ?Sized> fmt::Debug for Shared<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.node.fmt(f)
    }
}

impl<T: ?Sized> Hash for Shared<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash[0]);
        state.write_u64(self.hash[1]);
    }
}

impl<T: PartialEq + ?Sized> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && (Rc::ptr_eq(&self.node, &other.node) || self.node == other.node)
    }
}

impl<T: Eq + ?Sized> Eq for Shared<T> {}

impl<T: Ord + ?Sized> PartialOrd for Shared<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: Ord + ?Sized> Ord for Shared<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        if Rc::ptr_eq(&self.node, &other.node) {
            Ordering::Equal
        } else {
            self.node.cmp(&other.node)
        }
    }
}

/// A term; shared sub-terms are reference counted so cloning is cheap, and carry their hash.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Term {
    Var(Rc<str>, Sort),
    Bool(bool),
    Int(i64),
    Unit,
    Not(Shared<Term>),
    And(Shared<[Term]>),
    Or(Shared<[Term]>),
    Implies(Shared<Term>, Shared<Term>),
    Iff(Shared<Term>, Shared<Term>),
    Eq(Shared<Term>, Shared<Term>),
    Cmp(CmpOp, Shared<Term>, Shared<Term>),
    Arith(ArithOp, Shared<Term>, Shared<Term>),
    /// Application of an uninterpreted function, with its result sort.
    App(Rc<str>, Shared<[Term]>, Sort),
    /// Universal quantification (used for axioms).
    Forall(Rc<[(Rc<str>, Sort)]>, Rc<Term>),
}

impl Term {
    pub fn var(name: &str, sort: Sort) -> Term {
        Term::Var(Rc::from(name), sort)
    }

    pub fn tt() -> Term {
        Term::Bool(true)
    }

    pub fn ff() -> Term {
        Term::Bool(false)
    }

    pub fn is_true(&self) -> bool {
        matches!(self, Term::Bool(true))
    }

    pub fn is_false(&self) -> bool {
        matches!(self, Term::Bool(false))
    }

    /// The sort of the term (boolean connectives are `Bool`).
    pub fn sort(&self) -> Sort {
        match self {
            Term::Var(_, s) | Term::App(_, _, s) => s.clone(),
            Term::Int(_) | Term::Arith(..) => Sort::Int,
            Term::Unit => Sort::Unit,
            _ => Sort::Bool,
        }
    }

    /// Negation with constant folding and double-negation elimination.
    pub fn negation(t: Term) -> Term {
        match t {
            Term::Bool(b) => Term::Bool(!b),
            Term::Not(inner) => (*inner).clone(),
            other => Term::Not(Shared::new(other)),
        }
    }

    /// Conjunction, flattening nested conjunctions and folding constants.
    pub fn and(parts: impl IntoIterator<Item = Term>) -> Term {
        let mut out: Vec<Term> = Vec::new();
        for p in parts {
            match p {
                Term::Bool(true) => {}
                Term::Bool(false) => return Term::ff(),
                Term::And(inner) => {
                    for q in inner.iter() {
                        if !out.contains(q) {
                            out.push(q.clone());
                        }
                    }
                }
                other => {
                    if !out.contains(&other) {
                        out.push(other)
                    }
                }
            }
        }
        match out.len() {
            0 => Term::tt(),
            1 => out.pop().unwrap_or_else(Term::tt),
            _ => Term::And(out.into()),
        }
    }

    /// Disjunction, flattening nested disjunctions and folding constants.
    pub fn or(parts: impl IntoIterator<Item = Term>) -> Term {
        let mut out: Vec<Term> = Vec::new();
        for p in parts {
            match p {
                Term::Bool(false) => {}
                Term::Bool(true) => return Term::tt(),
                Term::Or(inner) => {
                    for q in inner.iter() {
                        if !out.contains(q) {
                            out.push(q.clone());
                        }
                    }
                }
                other => {
                    if !out.contains(&other) {
                        out.push(other)
                    }
                }
            }
        }
        match out.len() {
            0 => Term::ff(),
            1 => out.pop().unwrap_or_else(Term::ff),
            _ => Term::Or(out.into()),
        }
    }

    pub fn implies(a: Term, b: Term) -> Term {
        if a.is_true() {
            b
        } else if a.is_false() || b.is_true() {
            Term::tt()
        } else {
            Term::Implies(Shared::new(a), Shared::new(b))
        }
    }

    pub fn iff(a: Term, b: Term) -> Term {
        match (&a, &b) {
            (Term::Bool(true), _) => b,
            (_, Term::Bool(true)) => a,
            (Term::Bool(false), _) => Term::negation(b),
            (_, Term::Bool(false)) => Term::negation(a),
            _ if a == b => Term::tt(),
            _ => Term::Iff(Shared::new(a), Shared::new(b)),
        }
    }

    /// Equality; equality of booleans becomes `iff`, of units is true.
    pub fn eq(a: Term, b: Term) -> Term {
        if a == b {
            return Term::tt();
        }
        match (a.sort(), b.sort()) {
            (Sort::Bool, _) | (_, Sort::Bool) => Term::iff(a, b),
            (Sort::Unit, _) | (_, Sort::Unit) => Term::tt(),
            _ => match (&a, &b) {
                (Term::Int(x), Term::Int(y)) => Term::Bool(x == y),
                _ => Term::Eq(Shared::new(a), Shared::new(b)),
            },
        }
    }

    pub fn cmp(op: CmpOp, a: Term, b: Term) -> Term {
        Term::Cmp(op, Shared::new(a), Shared::new(b))
    }

    pub fn arith(op: ArithOp, a: Term, b: Term) -> Term {
        Term::Arith(op, Shared::new(a), Shared::new(b))
    }

    pub fn app(name: &str, args: Vec<Term>, sort: Sort) -> Term {
        Term::App(Rc::from(name), args.into(), sort)
    }

    /// Free variables with their sorts.
    pub fn free_vars(&self) -> BTreeMap<Rc<str>, Sort> {
        let mut out = BTreeMap::new();
        self.collect_vars(&mut BTreeSet::new(), &mut out);
        out
    }

    fn collect_vars(&self, bound: &mut BTreeSet<Rc<str>>, out: &mut BTreeMap<Rc<str>, Sort>) {
        match self {
            Term::Var(n, s) => {
                if !bound.contains(n) {
                    out.insert(n.clone(), s.clone());
                }
            }
            Term::Bool(_) | Term::Int(_) | Term::Unit => {}
            Term::Not(a) => a.collect_vars(bound, out),
            Term::And(xs) | Term::Or(xs) | Term::App(_, xs, _) => {
                for x in xs.iter() {
                    x.collect_vars(bound, out)
                }
            }
            Term::Implies(a, b) | Term::Iff(a, b) | Term::Eq(a, b) => {
                a.collect_vars(bound, out);
                b.collect_vars(bound, out)
            }
            Term::Cmp(_, a, b) | Term::Arith(_, a, b) => {
                a.collect_vars(bound, out);
                b.collect_vars(bound, out)
            }
            Term::Forall(vs, body) => {
                let mut inner = bound.clone();
                for (v, _) in vs.iter() {
                    inner.insert(v.clone());
                }
                body.collect_vars(&mut inner, out)
            }
        }
    }

    /// Names of the uninterpreted functions applied in the term.
    pub fn functions(&self, out: &mut BTreeSet<Rc<str>>) {
        match self {
            Term::App(f, xs, _) => {
                out.insert(f.clone());
                for x in xs.iter() {
                    x.functions(out)
                }
            }
            Term::Var(..) | Term::Bool(_) | Term::Int(_) | Term::Unit => {}
            Term::Not(a) => a.functions(out),
            Term::And(xs) | Term::Or(xs) => {
                for x in xs.iter() {
                    x.functions(out)
                }
            }
            Term::Implies(a, b) | Term::Iff(a, b) | Term::Eq(a, b) => {
                a.functions(out);
                b.functions(out)
            }
            Term::Cmp(_, a, b) | Term::Arith(_, a, b) => {
                a.functions(out);
                b.functions(out)
            }
            Term::Forall(_, body) => body.functions(out),
        }
    }

    /// Capture-avoiding substitution of free variables (quantified names shadow the map).
    pub fn subst(&self, map: &dyn Fn(&str) -> Option<Term>) -> Term {
        match self {
            Term::Var(n, _) => map(n).unwrap_or_else(|| self.clone()),
            Term::Bool(_) | Term::Int(_) | Term::Unit => self.clone(),
            Term::Not(a) => Term::negation(a.subst(map)),
            Term::And(xs) => Term::and(xs.iter().map(|x| x.subst(map))),
            Term::Or(xs) => Term::or(xs.iter().map(|x| x.subst(map))),
            Term::Implies(a, b) => Term::implies(a.subst(map), b.subst(map)),
            Term::Iff(a, b) => Term::iff(a.subst(map), b.subst(map)),
            Term::Eq(a, b) => Term::eq(a.subst(map), b.subst(map)),
            Term::Cmp(op, a, b) => Term::cmp(*op, a.subst(map), b.subst(map)),
            Term::Arith(op, a, b) => Term::arith(*op, a.subst(map), b.subst(map)),
            Term::App(f, xs, s) => Term::App(
                f.clone(),
                xs.iter().map(|x| x.subst(map)).collect::<Vec<_>>().into(),
                s.clone(),
            ),
            Term::Forall(vs, body) => {
                let names: Vec<Rc<str>> = vs.iter().map(|(v, _)| v.clone()).collect();
                let inner = |n: &str| {
                    if names.iter().any(|b| &**b == n) {
                        None
                    } else {
                        map(n)
                    }
                };
                Term::Forall(vs.clone(), Rc::new(body.subst(&inner)))
            }
        }
    }

    /// Renames free variables, keeping their sorts.
    pub fn rename(&self, f: &dyn Fn(&str) -> Option<String>) -> Term {
        let fv = self.free_vars();
        self.subst(&|n: &str| {
            let sort = fv.get(n)?.clone();
            f(n).map(|m| Term::var(&m, sort))
        })
    }

    /// Substitution from a map of names.
    pub fn subst_map(&self, map: &BTreeMap<Rc<str>, Term>) -> Term {
        if map.is_empty() {
            return self.clone();
        }
        self.subst(&|n: &str| map.get(n).cloned())
    }
}

fn write_list(f: &mut fmt::Formatter<'_>, xs: &[Term], sep: &str) -> fmt::Result {
    for (i, x) in xs.iter().enumerate() {
        if i > 0 {
            write!(f, " {sep} ")?;
        }
        write_atomic(f, x)?;
    }
    Ok(())
}

fn write_atomic(f: &mut fmt::Formatter<'_>, t: &Term) -> fmt::Result {
    match t {
        Term::Var(..) | Term::Bool(_) | Term::Int(_) | Term::Unit | Term::Not(_) => {
            write!(f, "{t}")
        }
        Term::App(_, xs, _) if xs.is_empty() => write!(f, "{t}"),
        _ => write!(f, "({t})"),
    }
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Term::Var(n, _) => write!(f, "{n}"),
            Term::Bool(b) => write!(f, "{b}"),
            Term::Int(i) => write!(f, "{i}"),
            Term::Unit => write!(f, "()"),
            Term::Not(a) => {
                write!(f, "¬")?;
                write_atomic(f, a)
            }
            Term::And(xs) => write_list(f, xs, "∧"),
            Term::Or(xs) => write_list(f, xs, "∨"),
            Term::Implies(a, b) => {
                write_atomic(f, a)?;
                write!(f, " ⇒ ")?;
                write_atomic(f, b)
            }
            Term::Iff(a, b) => {
                write_atomic(f, a)?;
                write!(f, " ⇔ ")?;
                write_atomic(f, b)
            }
            Term::Eq(a, b) => {
                write_atomic(f, a)?;
                write!(f, " == ")?;
                write_atomic(f, b)
            }
            Term::Cmp(op, a, b) => {
                let s = match op {
                    CmpOp::Lt => "<",
                    CmpOp::Le => "<=",
                    CmpOp::Gt => ">",
                    CmpOp::Ge => ">=",
                };
                write_atomic(f, a)?;
                write!(f, " {s} ")?;
                write_atomic(f, b)
            }
            Term::Arith(op, a, b) => {
                let s = match op {
                    ArithOp::Add => "+",
                    ArithOp::Sub => "-",
                    ArithOp::Mul => "*",
                    ArithOp::Div => "/",
                    ArithOp::Mod => "mod",
                };
                write_atomic(f, a)?;
                write!(f, " {s} ")?;
                write_atomic(f, b)
            }
            Term::App(n, xs, _) => {
                write!(f, "{n}")?;
                for x in xs.iter() {
                    write!(f, " ")?;
                    write_atomic(f, x)?;
                }
                Ok(())
            }
            Term::Forall(vs, body) => {
                write!(f, "∀")?;
                for (v, s) in vs.iter() {
                    write!(f, " ({v}: {s})")?;
                }
                write!(f, ". {body}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smart_constructors_fold_constants() {
        let x = Term::var("x", Sort::Bool);
        assert_eq!(Term::and([Term::tt(), x.clone()]), x);
        assert!(Term::and([Term::ff(), x.clone()]).is_false());
        assert!(Term::or([Term::tt(), x.clone()]).is_true());
        assert_eq!(Term::negation(Term::negation(x.clone())), x);
    }

    fn deep(leaf: i64) -> Term {
        let x = Term::var("x", Sort::Int);
        let inner = Term::or([
            Term::cmp(CmpOp::Lt, x.clone(), Term::Int(leaf)),
            Term::var("p", Sort::Bool),
        ]);
        Term::and([Term::negation(inner), Term::var("q", Sort::Bool)])
    }

    fn hash_of(t: &Term) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        t.hash(&mut h);
        h.finish()
    }

    #[test]
    fn shared_nodes_compare_and_hash_by_value() {
        // built twice: no node is shared between the two copies
        let (a, b) = (deep(3), deep(3));
        let (Term::And(xs), Term::And(ys)) = (&a, &b) else {
            panic!("a conjunction was expected: {a}");
        };
        assert!(!Rc::ptr_eq(&xs.node, &ys.node));
        assert_eq!(a, b);
        assert_eq!(hash_of(&a), hash_of(&b));
        assert_eq!(a.cmp(&b), Ordering::Equal);
        // a leaf three nodes down changes equality, hash and order
        let c = deep(4);
        assert_ne!(a, c);
        assert_ne!(hash_of(&a), hash_of(&c));
        assert_eq!(a.cmp(&c), Ordering::Less);
        assert_eq!(c.cmp(&a), Ordering::Greater);
        // the order is that of the values: 3 < 4 under the same context
        assert_eq!(
            Term::cmp(CmpOp::Lt, Term::Int(0), Term::Int(3)).cmp(&Term::cmp(
                CmpOp::Lt,
                Term::Int(0),
                Term::Int(4)
            )),
            Ordering::Less
        );
    }

    #[test]
    fn substitution_respects_quantifiers() {
        let x = Term::var("x", Sort::Int);
        let body = Term::eq(x.clone(), Term::var("y", Sort::Int));
        let q = Term::Forall(
            vec![(Rc::from("x"), Sort::Int)].into(),
            Rc::new(body.clone()),
        );
        let map: BTreeMap<Rc<str>, Term> =
            [(Rc::from("x"), Term::Int(1)), (Rc::from("y"), Term::Int(2))].into();
        let s = q.subst_map(&map);
        let fv = s.free_vars();
        assert!(fv.is_empty());
        assert_eq!(format!("{s}"), "∀ (x: int). x == 2");
    }
}
