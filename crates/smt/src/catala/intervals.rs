//! Refutation by intervals: a path query whose constraints cannot all hold within the bounds
//! they give each subterm is unsatisfiable, and this layer says so without Z3. The money
//! formulas of the housing benefits multiply an amount by a coefficient that depends on other
//! inputs (`(rent − threshold) × round(9 × (rate − 4,500) / 200)`); a path that needs such a
//! product to be positive while its two factors have opposite signs is unsatisfiable by sign
//! alone, and Z3 (4.8, nonlinear integer arithmetic) can take a second to prove it.
//!
//! Every numeric node of the query gets an interval with rational bounds (or none: ±∞).
//! A round evaluates each node's interval from its children's ([`Refuter::eval`]), then
//! narrows the nodes under each asserted comparison from the other side's interval, down to
//! the variables ([`Refuter::narrow`]: an operand of a sum lies within the sum minus the other
//! operands, the argument of a rounding within half a unit of it, and so on), after the
//! manner of HC4. A disjunction asserts its one operand left when every other one is false.
//! The query is refuted when some interval becomes empty or some asserted constraint is false
//! on the intervals. Rounds repeat while something narrows, at most [`ROUNDS`] times, within a
//! budget of node visits. When they end without a refutation and a factor of a product of
//! two non-constant terms may have either sign, the two cases (the factor ≥ 0, the factor
//! ≤ 0) are refuted in turn, each narrowed again, up to [`SPLITS`] splits deep: a product of
//! an amount and a coefficient `209 − 6 × dependants` with no bound on the dependants is then
//! refuted on both sides of the coefficient's sign, where Z3 took a minute.
//!
//! Soundness: every interval contains every value its node takes in every model of the
//! constraints asserted so far (under the meaning the encoder gives Z3: a division by an
//! interval containing 0, which Z3 leaves unspecified, gives no bound), so an empty interval
//! means no model. Bounds are exact rationals; an overflow widens the bound to infinity; a
//! strict comparison of decimals narrows as a non-strict one; integer nodes have their bounds
//! rounded inward. The layer only ever answers "unsatisfiable".

use super::calendar;
use super::query::{EncodeError, Layer, ModelSource, PathQuery};
use super::rational::{parse_q, Q};
use super::term::{Kind, Op, Term, TermNode};
use crate::layer::{SolverLayer, Verdict};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Rounds of evaluation and narrowing at most.
const ROUNDS: usize = 6;
/// Node visits (evaluations and narrowings) per query before giving up.
const VISITS: usize = 200_000;
/// Sign splits on one branch of the case analysis at most.
const SPLITS: u32 = 4;

/// The layer. Two of them are in the chain: one without sign splits before the guesses, one
/// with them after (see [`super::chain`]).
#[derive(Default)]
pub(crate) struct Intervals {
    /// Sign splits on one branch of the case analysis at most.
    splits: u32,
    /// Queries refuted.
    pub(crate) refuted: u64,
}

impl Intervals {
    /// The narrowing alone, no sign splits.
    pub(crate) fn plain() -> Intervals {
        Intervals::default()
    }

    /// The narrowing, then up to [`SPLITS`] sign splits when it refutes nothing.
    pub(crate) fn splitting() -> Intervals {
        Intervals {
            splits: SPLITS,
            refuted: 0,
        }
    }
}

impl<'a> SolverLayer<PathQuery<'a>> for Intervals {
    type Model = ModelSource;
    type Error = EncodeError;

    fn decide(&mut self, q: &PathQuery<'a>) -> Result<Option<Verdict<ModelSource>>, EncodeError> {
        if refutes_splitting(q.terms, self.splits) {
            self.refuted += 1;
            q.answer_from(Layer::Intervals);
            return Ok(Some(Verdict::Unsat));
        }
        Ok(None)
    }
}

/// Whether the conjunction of `terms` certainly has no model (`false`: nothing is known).
#[cfg(test)]
pub(crate) fn refutes(terms: &[&Term]) -> bool {
    refutes_splitting(terms, SPLITS)
}

/// [`refutes`] with at most `splits` sign splits on a branch.
fn refutes_splitting(terms: &[&Term], splits: u32) -> bool {
    let mut r = Refuter {
        store: AddrMap::default(),
        bools: AddrMap::default(),
        memo: AddrMap::default(),
        visits: VISITS,
        narrowed: false,
        straddling: Vec::new(),
    };
    r.refute(terms, splits)
}

/// A bound: −∞, a rational, or +∞.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum B {
    NegInf,
    F(Q),
    PosInf,
}

/// Exact comparison of two rationals (no overflow: integer parts, then the reciprocals of the
/// fractional parts).
fn qcmp(a: Q, b: Q) -> Ordering {
    let (ia, ra) = (a.n.div_euclid(a.d), a.n.rem_euclid(a.d));
    let (ib, rb) = (b.n.div_euclid(b.d), b.n.rem_euclid(b.d));
    if ia != ib {
        return ia.cmp(&ib);
    }
    match (ra == 0, rb == 0) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        // ra/da < rb/db exactly when db/rb < da/ra.
        (false, false) => qcmp(Q { n: b.d, d: rb }, Q { n: a.d, d: ra }),
    }
}

fn bcmp(a: B, b: B) -> Ordering {
    match (a, b) {
        (B::F(x), B::F(y)) => qcmp(x, y),
        (x, y) if x == y => Ordering::Equal,
        (B::NegInf, _) | (_, B::PosInf) => Ordering::Less,
        _ => Ordering::Greater,
    }
}

fn bmin(a: B, b: B) -> B {
    if bcmp(a, b) == Ordering::Greater {
        b
    } else {
        a
    }
}

fn bmax(a: B, b: B) -> B {
    if bcmp(a, b) == Ordering::Less {
        b
    } else {
        a
    }
}

fn sign(b: B) -> i8 {
    match b {
        B::NegInf => -1,
        B::PosInf => 1,
        B::F(q) => q.n.signum() as i8,
    }
}

fn bneg(b: B) -> B {
    match b {
        B::NegInf => B::PosInf,
        B::PosInf => B::NegInf,
        B::F(q) => q
            .neg()
            .map_or(if q.n < 0 { B::PosInf } else { B::NegInf }, B::F),
    }
}

/// An interval `[lo, hi]`; empty when `lo > hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct I {
    lo: B,
    hi: B,
}

const ALL: I = I {
    lo: B::NegInf,
    hi: B::PosInf,
};

impl I {
    fn point(q: Q) -> I {
        I {
            lo: B::F(q),
            hi: B::F(q),
        }
    }

    fn int_range(lo: i128, hi: i128) -> I {
        I {
            lo: B::F(Q::int(lo)),
            hi: B::F(Q::int(hi)),
        }
    }

    fn is_empty(&self) -> bool {
        bcmp(self.lo, self.hi) == Ordering::Greater
    }

    fn meet(self, o: I) -> I {
        I {
            lo: bmax(self.lo, o.lo),
            hi: bmin(self.hi, o.hi),
        }
    }

    fn hull(self, o: I) -> I {
        I {
            lo: bmin(self.lo, o.lo),
            hi: bmax(self.hi, o.hi),
        }
    }

    fn contains_zero(&self) -> bool {
        sign(self.lo) <= 0 && sign(self.hi) >= 0
    }

    fn neg(self) -> I {
        I {
            lo: bneg(self.hi),
            hi: bneg(self.lo),
        }
    }

    fn add(self, o: I) -> I {
        let sum = |a: B, b: B, down: bool| match (a, b) {
            (B::F(x), B::F(y)) => x
                .add(y)
                .map_or(if down { B::NegInf } else { B::PosInf }, B::F),
            _ if down => B::NegInf,
            _ => B::PosInf,
        };
        I {
            lo: sum(self.lo, o.lo, true),
            hi: sum(self.hi, o.hi, false),
        }
    }

    fn sub(self, o: I) -> I {
        self.add(o.neg())
    }

    fn mul(self, o: I) -> I {
        // 0 × ∞ is 0: an infinite bound is never reached.
        let prod = |a: B, b: B| -> Option<B> {
            match (a, b) {
                (B::F(x), B::F(y)) => x.mul(y).map(B::F),
                _ if sign(a) == 0 || sign(b) == 0 => Some(B::F(Q::int(0))),
                _ if sign(a) * sign(b) > 0 => Some(B::PosInf),
                _ => Some(B::NegInf),
            }
        };
        let corners = [
            prod(self.lo, o.lo),
            prod(self.lo, o.hi),
            prod(self.hi, o.lo),
            prod(self.hi, o.hi),
        ];
        let Some(cs) = corners.into_iter().collect::<Option<Vec<B>>>() else {
            return ALL;
        };
        let lo = cs.iter().copied().min_by(|a, b| bcmp(*a, *b));
        let hi = cs.iter().copied().max_by(|a, b| bcmp(*a, *b));
        match (lo, hi) {
            (Some(lo), Some(hi)) => I { lo, hi },
            _ => ALL,
        }
    }

    /// `self / o`, or no bound when `o` may be 0.
    fn div(self, o: I) -> I {
        if o.contains_zero() {
            return ALL;
        }
        let recip = |b: B| match b {
            B::F(q) => Q::new(q.d, q.n).map_or(B::F(Q::int(0)), B::F),
            _ => B::F(Q::int(0)),
        };
        // On either side of 0, 1/x decreases.
        self.mul(I {
            lo: recip(o.hi),
            hi: recip(o.lo),
        })
    }

    /// The image under a non-decreasing `f` of the bounds (`None`: no bound on that side).
    fn monotone(self, f: impl Fn(Q) -> Option<Q>) -> I {
        I {
            lo: match self.lo {
                B::F(q) => f(q).map_or(B::NegInf, B::F),
                b => b,
            },
            hi: match self.hi {
                B::F(q) => f(q).map_or(B::PosInf, B::F),
                b => b,
            },
        }
    }

    /// Widened by `w` on both sides.
    fn widen(self, w: Q) -> I {
        self.add(I {
            lo: B::F(Q { n: -w.n, d: w.d }),
            hi: B::F(w),
        })
    }

    /// The integers of the interval (bounds rounded inward).
    fn integral(self) -> I {
        I {
            lo: match self.lo {
                B::F(q) => ceil(q).map_or(B::NegInf, B::F),
                b => b,
            },
            hi: match self.hi {
                B::F(q) => floor(q).map_or(B::PosInf, B::F),
                b => b,
            },
        }
    }
}

fn floor(q: Q) -> Option<Q> {
    Some(Q::int(q.n.div_euclid(q.d)))
}

fn ceil(q: Q) -> Option<Q> {
    Some(Q::int(q.n.checked_neg()?.div_euclid(q.d).checked_neg()?))
}

/// Catala's rounding (half away from zero), `None` where it could overflow.
fn round(q: Q) -> Option<Q> {
    (q.n.unsigned_abs() < 1 << 120 && q.d < 1 << 120).then(|| q.round())
}

fn truncate(q: Q) -> Option<Q> {
    Some(q.truncate())
}

/// Hashes a node's address (the keys of the refuter's maps) with one multiplication.
#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(*b);
        }
    }

    fn write_usize(&mut self, n: usize) {
        let h = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
}

/// A map keyed by node addresses.
type AddrMap<V> = HashMap<usize, V, BuildHasherDefault<AddrHasher>>;

/// Why a refutation ended early.
enum Stop {
    /// An interval is empty or an asserted constraint is false: no model.
    Empty,
    /// The budget of visits is spent: nothing is known.
    Budget,
}

struct Refuter {
    /// Narrowed intervals of numeric nodes, by address (terms are hash-consed).
    store: AddrMap<I>,
    /// Values of boolean variables asserted.
    bools: AddrMap<bool>,
    /// The intervals the children give each node, evaluated this round (still valid later in
    /// the round: intervals only shrink, so an older one contains the newer).
    memo: AddrMap<I>,
    visits: usize,
    narrowed: bool,
    /// Factors of products of non-constant terms whose intervals have 0 inside, met in the
    /// last round (the candidates for a split).
    straddling: Vec<Term>,
}

fn key(t: &Term) -> usize {
    std::rc::Rc::as_ptr(t) as usize
}

fn constant(t: &Term) -> Option<Q> {
    match &**t {
        TermNode::Int(s) => Some(Q::int(s.parse().ok()?)),
        TermNode::Real(n, d) => parse_q(n, d),
        _ => None,
    }
}

impl Refuter {
    /// Rounds of narrowing until nothing narrows (or [`ROUNDS`]).
    fn fixpoint(&mut self, terms: &[&Term]) -> Result<(), Stop> {
        for _ in 0..ROUNDS {
            self.memo.clear();
            self.straddling.clear();
            self.narrowed = false;
            for t in terms {
                self.assert(t, true)?;
            }
            if !self.narrowed {
                break;
            }
        }
        Ok(())
    }

    /// Whether `terms` are refuted from this state, splitting on signs `splits` deep.
    fn refute(&mut self, terms: &[&Term], splits: u32) -> bool {
        match self.fixpoint(terms) {
            Err(Stop::Empty) => return true,
            Err(Stop::Budget) => return false,
            Ok(()) => {}
        }
        if splits == 0 {
            return false;
        }
        let Some(factor) = self.straddling.first().cloned() else {
            return false;
        };
        let zero = B::F(Q::int(0));
        let cases = [
            I {
                lo: zero,
                hi: B::PosInf,
            },
            I {
                lo: B::NegInf,
                hi: zero,
            },
        ];
        for case in cases {
            let mut branch = Refuter {
                store: self.store.clone(),
                bools: self.bools.clone(),
                memo: AddrMap::default(),
                visits: self.visits,
                narrowed: false,
                straddling: Vec::new(),
            };
            let refuted = match branch.narrow(&factor, case) {
                Err(Stop::Empty) => true,
                Err(Stop::Budget) => false,
                Ok(()) => branch.refute(terms, splits - 1),
            };
            self.visits = branch.visits;
            if !refuted {
                return false;
            }
        }
        true
    }

    fn visit(&mut self) -> Result<(), Stop> {
        self.visits = self.visits.checked_sub(1).ok_or(Stop::Budget)?;
        Ok(())
    }

    /// The interval of a numeric node: what its children give, within what was narrowed.
    fn eval(&mut self, t: &Term) -> Result<I, Stop> {
        let natural = self.natural(t)?;
        Ok(match self.store.get(&key(t)) {
            Some(stored) => natural.meet(*stored),
            None => natural,
        })
    }

    /// The interval its children give a numeric node (remembered for the round).
    fn natural(&mut self, t: &Term) -> Result<I, Stop> {
        let k = key(t);
        if let Some(i) = self.memo.get(&k) {
            return Ok(*i);
        }
        self.visit()?;
        let mut i = match &**t {
            TermNode::Var(..) => ALL,
            TermNode::Int(_) | TermNode::Real(..) => constant(t).map_or(ALL, I::point),
            TermNode::Bool(_) => ALL,
            TermNode::App(op, args) => self.eval_app(*op, args)?,
        };
        if t.kind() == Kind::Int {
            i = i.integral();
        }
        self.memo.insert(k, i);
        Ok(i)
    }

    fn eval_app(&mut self, op: Op, args: &[Term]) -> Result<I, Stop> {
        let arg = |i: usize| args.get(i);
        let Some(first) = arg(0) else {
            return Ok(ALL);
        };
        Ok(match op {
            Op::Add | Op::Sub | Op::Mul => {
                let mut acc = self.eval(first)?;
                for a in &args[1..] {
                    let x = self.eval(a)?;
                    acc = match op {
                        Op::Add => acc.add(x),
                        Op::Sub => acc.sub(x),
                        _ => acc.mul(x),
                    };
                }
                if op == Op::Mul && args.iter().filter(|a| constant(a).is_none()).count() > 1 {
                    for a in args {
                        let i = self.eval(a)?;
                        if sign(i.lo) < 0 && sign(i.hi) > 0 {
                            self.straddling.push(a.clone());
                        }
                    }
                }
                acc
            }
            Op::Neg => self.eval(first)?.neg(),
            Op::ToReal => self.eval(first)?,
            Op::Div => match arg(1) {
                Some(b) => {
                    let d = self.eval(b)?;
                    self.eval(first)?.div(d)
                }
                None => ALL,
            },
            Op::Round => self.eval(first)?.monotone(round),
            Op::Truncate => self.eval(first)?.monotone(truncate),
            Op::IntDiv => match arg(1).and_then(constant) {
                Some(c) if c.d == 1 && c.n > 0 => self
                    .eval(first)?
                    .monotone(|q| Some(Q::int(floor(q)?.n.div_euclid(c.n)))),
                _ => ALL,
            },
            Op::Mod => match arg(1).and_then(constant) {
                Some(c) if c.d == 1 && c.n > 0 => I::int_range(0, c.n - 1),
                _ => ALL,
            },
            Op::YearOf => self.eval(first)?.monotone(|q| {
                let z = floor(q)?.n;
                Some(Q::int(calendar::apply(Op::YearOf, &[z])?))
            }),
            Op::MonthOf => I::int_range(1, 12),
            Op::DayOf => I::int_range(1, 31),
            Op::DaysInMonth => I::int_range(28, 31),
            Op::Ite => match (self.decide(first)?, arg(1), arg(2)) {
                (Some(true), Some(a), _) => self.eval(a)?,
                (Some(false), _, Some(b)) => self.eval(b)?,
                (None, Some(a), Some(b)) => {
                    let x = self.eval(a)?;
                    x.hull(self.eval(b)?)
                }
                _ => ALL,
            },
            _ => ALL,
        })
    }

    /// Narrows the interval of `t` to within `to`, and its children accordingly: whenever
    /// the result is narrower than what the children give, each child is narrowed from it
    /// (even when the node itself was already that narrow: its children may have widened
    /// nothing but been narrowed elsewhere since).
    fn narrow(&mut self, t: &Term, to: I) -> Result<(), Stop> {
        self.visit()?;
        let natural = self.natural(t)?;
        let k = key(t);
        let current = match self.store.get(&k) {
            Some(stored) => natural.meet(*stored),
            None => natural,
        };
        let mut new = current.meet(to);
        if t.kind() == Kind::Int {
            new = new.integral();
        }
        if new.is_empty() {
            return Err(Stop::Empty);
        }
        if new != current {
            self.store.insert(k, new);
            self.narrowed = true;
        }
        if new == natural {
            return Ok(());
        }
        let TermNode::App(op, args) = &**t else {
            return Ok(());
        };
        self.narrow_app(*op, args, new)
    }

    fn narrow_app(&mut self, op: Op, args: &[Term], to: I) -> Result<(), Stop> {
        let half = Q { n: 1, d: 2 };
        let Some(first) = args.first() else {
            return Ok(());
        };
        match op {
            Op::Add | Op::Sub => {
                // t = Σ sᵢ·aᵢ with s₀ = 1 and, for a difference, sᵢ = −1 after it: each
                // sᵢ·aᵢ lies within t minus the other terms.
                let signed = args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        let v = self.eval(a)?;
                        Ok(if op == Op::Sub && i > 0 { v.neg() } else { v })
                    })
                    .collect::<Result<Vec<I>, Stop>>()?;
                for (i, a) in args.iter().enumerate() {
                    let mut rest = to;
                    for (j, v) in signed.iter().enumerate() {
                        if j != i {
                            rest = rest.sub(*v);
                        }
                    }
                    let rest = if op == Op::Sub && i > 0 {
                        rest.neg()
                    } else {
                        rest
                    };
                    self.narrow(a, rest)?;
                }
            }
            Op::Mul => {
                let vals = args
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<Vec<I>, Stop>>()?;
                for (i, a) in args.iter().enumerate() {
                    let mut others = I::point(Q::int(1));
                    for (j, v) in vals.iter().enumerate() {
                        if j != i {
                            others = others.mul(*v);
                        }
                    }
                    // aᵢ = t / (the others) when they cannot be 0.
                    if !others.contains_zero() {
                        self.narrow(a, to.div(others))?;
                    }
                }
            }
            Op::Neg => self.narrow(first, to.neg())?,
            Op::ToReal => self.narrow(first, to)?,
            Op::Div => {
                if let Some(b) = args.get(1) {
                    let d = self.eval(b)?;
                    if !d.contains_zero() {
                        self.narrow(first, to.mul(d))?;
                    }
                }
            }
            Op::Round => self.narrow(first, to.widen(half))?,
            Op::Truncate => self.narrow(first, to.widen(Q::int(1)))?,
            Op::IntDiv => {
                if let Some(c) = args.get(1).and_then(constant) {
                    if c.d == 1 && c.n > 0 {
                        // t = ⌊a / c⌋: c·t ≤ a ≤ c·t + c − 1.
                        let scaled = to.mul(I::point(c));
                        let a = I {
                            lo: scaled.lo,
                            hi: scaled.add(I::point(Q::int(c.n - 1))).hi,
                        };
                        self.narrow(first, a)?;
                    }
                }
            }
            Op::YearOf => {
                // The year is between two known years: the day is within them.
                let first_day = |y: Q| -> Option<Q> {
                    let y = floor(y)?.n;
                    Some(Q::int(calendar::apply(Op::DayNumber, &[y, 1, 1])?))
                };
                let lo = match to.lo {
                    B::F(y) => first_day(y).map_or(B::NegInf, B::F),
                    b => b,
                };
                let hi = match to.hi {
                    B::F(y) => y
                        .add(Q::int(1))
                        .and_then(first_day)
                        .and_then(|d| d.add(Q::int(-1)))
                        .map_or(B::PosInf, B::F),
                    b => b,
                };
                self.narrow(first, I { lo, hi })?;
            }
            Op::Ite => match (self.decide(first)?, args.get(1), args.get(2)) {
                (Some(true), Some(a), _) => self.narrow(a, to)?,
                (Some(false), _, Some(b)) => self.narrow(b, to)?,
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// The truth of a boolean term on the current intervals, when they decide it.
    fn decide(&mut self, t: &Term) -> Result<Option<bool>, Stop> {
        self.visit()?;
        Ok(match &**t {
            TermNode::Bool(b) => Some(*b),
            TermNode::Var(..) => self.bools.get(&key(t)).copied(),
            TermNode::App(Op::Not, args) => match args.first() {
                Some(a) => self.decide(a)?.map(|b| !b),
                None => None,
            },
            TermNode::App(op @ (Op::And | Op::Or), args) => {
                let absorbing = *op == Op::Or;
                let mut all = true;
                for a in args {
                    match self.decide(a)? {
                        Some(b) if b == absorbing => return Ok(Some(absorbing)),
                        Some(_) => {}
                        None => all = false,
                    }
                }
                all.then_some(!absorbing)
            }
            TermNode::App(op @ (Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq), args)
                if args.len() == 2 && args[0].kind() != Kind::Bool =>
            {
                let a = self.eval(&args[0])?;
                let b = self.eval(&args[1])?;
                let lt = |x: B, y: B| bcmp(x, y) == Ordering::Less;
                let le = |x: B, y: B| bcmp(x, y) != Ordering::Greater;
                match op {
                    Op::Lt if lt(a.hi, b.lo) => Some(true),
                    Op::Lt if le(b.hi, a.lo) => Some(false),
                    Op::Le if le(a.hi, b.lo) => Some(true),
                    Op::Le if lt(b.hi, a.lo) => Some(false),
                    Op::Gt if lt(b.hi, a.lo) => Some(true),
                    Op::Gt if le(a.hi, b.lo) => Some(false),
                    Op::Ge if le(b.hi, a.lo) => Some(true),
                    Op::Ge if lt(a.hi, b.lo) => Some(false),
                    Op::Eq if a.meet(b).is_empty() => Some(false),
                    Op::Eq if a.lo == a.hi && b.lo == b.hi && a.lo == b.lo => Some(true),
                    _ => None,
                }
            }
            _ => None,
        })
    }

    /// Asserts that the boolean term `t` has the value `value`.
    fn assert(&mut self, t: &Term, value: bool) -> Result<(), Stop> {
        self.visit()?;
        match &**t {
            TermNode::Bool(b) if *b != value => Err(Stop::Empty),
            TermNode::Var(..) => match self.bools.insert(key(t), value) {
                Some(old) if old != value => Err(Stop::Empty),
                _ => Ok(()),
            },
            TermNode::App(Op::Not, args) if args.len() == 1 => self.assert(&args[0], !value),
            TermNode::App(op @ (Op::And | Op::Or), args) => {
                // A conjunction asserted true (a disjunction asserted false) asserts each
                // operand; otherwise one operand at least has the value, the last one left.
                let each = (*op == Op::And) == value;
                if each {
                    for a in args {
                        self.assert(a, value)?;
                    }
                    return Ok(());
                }
                let mut open = None;
                for a in args {
                    match self.decide(a)? {
                        Some(b) if b == value => return Ok(()),
                        Some(_) => {}
                        None if open.is_some() => return Ok(()),
                        None => open = Some(a),
                    }
                }
                match open {
                    Some(a) => self.assert(a, value),
                    None => Err(Stop::Empty),
                }
            }
            TermNode::App(op @ (Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::Eq), args)
                if args.len() == 2 && args[0].kind() != Kind::Bool =>
            {
                if self.decide(t)? == Some(!value) {
                    return Err(Stop::Empty);
                }
                self.compare(*op, &args[0], &args[1], value)
            }
            _ => {
                // Anything else is only checked: false on the intervals refutes.
                match self.decide(t)? {
                    Some(b) if b != value => Err(Stop::Empty),
                    _ => Ok(()),
                }
            }
        }
    }

    /// Asserts `a op b` (or its negation when `value` is false).
    fn compare(&mut self, op: Op, a: &Term, b: &Term, value: bool) -> Result<(), Stop> {
        // Normalized to a < b or a ≤ b (or a = b, a ≠ b).
        let (op, a, b) = match (op, value) {
            (Op::Lt, true) => (Op::Lt, a, b),
            (Op::Le, true) => (Op::Le, a, b),
            (Op::Gt, true) => (Op::Lt, b, a),
            (Op::Ge, true) => (Op::Le, b, a),
            (Op::Lt, false) => (Op::Le, b, a),
            (Op::Le, false) => (Op::Lt, b, a),
            (Op::Gt, false) => (Op::Le, a, b),
            (Op::Ge, false) => (Op::Lt, a, b),
            (Op::Eq, true) => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                self.narrow(a, y)?;
                return self.narrow(b, x);
            }
            _ => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                if x.lo == x.hi && y.lo == y.hi && x.lo == y.lo {
                    return Err(Stop::Empty);
                }
                return Ok(());
            }
        };
        let (x, y) = (self.eval(a)?, self.eval(b)?);
        // Between integers, a < b is a ≤ b − 1; between decimals it is relaxed to a ≤ b.
        let gap = if op == Op::Lt && a.kind() == Kind::Int {
            Q::int(1)
        } else {
            Q::int(0)
        };
        let below = I {
            lo: B::NegInf,
            hi: y.add(I::point(Q { n: -gap.n, d: 1 })).hi,
        };
        let above = I {
            lo: x.add(I::point(gap)).lo,
            hi: B::PosInf,
        };
        self.narrow(a, below)?;
        self.narrow(b, above)
    }
}

#[cfg(test)]
mod tests;
