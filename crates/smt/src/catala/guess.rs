//! Models guessed without Z3. In a depth-first concolic exploration, a query is the path
//! condition of the last run with one constraint negated: the last inputs satisfy every other
//! constraint, and a small change to the variables of the violated constraints often yields a
//! model. This module starts from those inputs, varies only the variables of the constraints
//! they violate, over a few candidates (the old value, 0, the constants of the constraints and
//! the other variables' values, each with its neighbours), and evaluates the constraints
//! exactly on rationals. Only a model that satisfies every constraint is returned, so a guess is
//! always right; when none is found within a small budget (or a constraint is unsatisfiable)
//! the caller asks Z3. Money variables (cents) are given multiples of $100 first, the amounts
//! the soft constraints of Section 4.2 look for first; only where a violated constraint turns
//! true within a band narrower than that, the first $10, $1 or cent past its boundary.
//! When the last amounts were not round, rounding them sets them all free and that search may
//! find nothing (amounts whose product earlier branches pinned); the layer then searches again
//! with the amounts kept, changing the violated constraints' variables alone. A last pass
//! probes, at a depth of the search whose candidates all fail, the values where the failing
//! constraint turns true along that depth's variable, the earlier ones as the search set them
//! (two amounts that must move together: see [`Repair`]).

use super::prefer::Preferences;
use super::query::{EncodeError, Layer, ModelSource, ModelValue, PathQuery};
use super::rational::{parse_q, Q};
use super::spans::{false_along, Point};
use super::term::{Kind, Op, Term, TermNode, VarId};
use crate::layer::GenerationalMap;
use crate::layer::{SolverLayer, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// Cents in the round amount money guesses are multiples of.
const MONEY_STEP: i128 = 10_000;
/// Candidate assignments tried before giving up.
const STEP_LIMIT: usize = 400;
/// Term nodes evaluated before giving up (bounds the cost of a failed guess).
const EVAL_LIMIT: usize = 60_000;
/// Candidates per variable.
const CANDIDATE_LIMIT: usize = 24;
/// Term nodes evaluated, per guess, to look for the values where a violated term turns true.
const PROBE_LIMIT: usize = 40_000;
/// Term nodes evaluated, per guess, by the probes of the last pass (see [`Repair`]).
const REPAIR_LIMIT: usize = 40_000;
/// Doublings of the distance from the current value when probing.
const PROBE_DOUBLINGS: u32 = 48;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum V {
    B(bool),
    N(Q),
}

fn model_to_v(v: &ModelValue) -> Option<V> {
    match v {
        ModelValue::Bool(b) => Some(V::B(*b)),
        ModelValue::Int(s) => Some(V::N(Q::int(s.parse().ok()?))),
        ModelValue::Real(n, d) => parse_q(n, d).map(V::N),
    }
}

fn v_to_model(v: V, kind: Kind) -> Option<ModelValue> {
    match (v, kind) {
        (V::B(b), Kind::Bool) => Some(ModelValue::Bool(b)),
        (V::N(q), Kind::Int) if q.d == 1 => Some(ModelValue::Int(q.n.to_string())),
        (V::N(q), Kind::Real) => Some(ModelValue::Real(q.n.to_string(), q.d.to_string())),
        _ => None,
    }
}

/// Evaluation of terms under an assignment of every variable they mention, within a budget.
struct Eval<'a> {
    values: &'a BTreeMap<VarId, V>,
    budget: usize,
}

impl Eval<'_> {
    /// The value of `t`; `None` for a division by zero, an overflow, an ill-sorted term or an
    /// exhausted budget (the guess then fails, it is never taken as an answer).
    fn eval(&mut self, t: &Term) -> Option<V> {
        self.budget = self.budget.checked_sub(1)?;
        match &**t {
            TermNode::Var(v, _) => self.values.get(v).copied(),
            TermNode::Bool(b) => Some(V::B(*b)),
            TermNode::Int(s) => Some(V::N(Q::int(s.parse().ok()?))),
            TermNode::Real(n, d) => parse_q(n, d).map(V::N),
            TermNode::App(op, args) => self.app(*op, args),
        }
    }

    fn bool(&mut self, t: &Term) -> Option<bool> {
        match self.eval(t)? {
            V::B(b) => Some(b),
            V::N(_) => None,
        }
    }

    fn num(&mut self, t: &Term) -> Option<Q> {
        match self.eval(t)? {
            V::N(q) => Some(q),
            V::B(_) => None,
        }
    }

    fn app(&mut self, op: Op, args: &[Term]) -> Option<V> {
        let arg = |i: usize| args.get(i);
        Some(match op {
            Op::Not => V::B(!self.bool(arg(0)?)?),
            Op::And | Op::Or => {
                let absorbing = op == Op::Or;
                for a in args {
                    if self.bool(a)? == absorbing {
                        return Some(V::B(absorbing));
                    }
                }
                V::B(!absorbing)
            }
            Op::Xor => V::B(self.bool(arg(0)?)? != self.bool(arg(1)?)?),
            Op::Eq => V::B(self.eval(arg(0)?)? == self.eval(arg(1)?)?),
            Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let a = self.num(arg(0)?)?;
                let b = self.num(arg(1)?)?;
                // Denominators are positive: compare a.n·b.d with b.n·a.d.
                let l = a.n.checked_mul(b.d)?;
                let r = b.n.checked_mul(a.d)?;
                V::B(match op {
                    Op::Lt => l < r,
                    Op::Le => l <= r,
                    Op::Gt => l > r,
                    _ => l >= r,
                })
            }
            Op::Add | Op::Sub | Op::Mul => {
                let mut acc = self.num(arg(0)?)?;
                for a in &args[1..] {
                    let x = self.num(a)?;
                    acc = match op {
                        Op::Add => acc.add(x)?,
                        Op::Sub => acc.add(x.neg()?)?,
                        _ => acc.mul(x)?,
                    };
                }
                V::N(acc)
            }
            Op::Div => V::N(self.num(arg(0)?)?.div(self.num(arg(1)?)?)?),
            Op::Neg => V::N(self.num(arg(0)?)?.neg()?),
            Op::ToReal => V::N(self.num(arg(0)?)?),
            Op::Round => V::N(self.num(arg(0)?)?.round()),
            Op::Truncate => V::N(self.num(arg(0)?)?.truncate()),
            Op::IntDiv
            | Op::Mod
            | Op::YearOf
            | Op::MonthOf
            | Op::DayOf
            | Op::DaysInMonth
            | Op::DayNumber => {
                let mut ints = Vec::with_capacity(args.len());
                for a in args {
                    let q = self.num(a)?;
                    if q.d != 1 {
                        return None;
                    }
                    ints.push(q.n);
                }
                V::N(Q::int(super::calendar::apply(op, &ints)?))
            }
            Op::Ite => {
                if self.bool(arg(0)?)? {
                    self.eval(arg(1)?)?
                } else {
                    self.eval(arg(2)?)?
                }
            }
        })
    }
}

/// The variables of a term with their sorts, and its numeric constants.
fn scan(t: &Term, vars: &mut BTreeMap<VarId, Kind>, consts: &mut BTreeSet<(i128, i128)>) {
    match &**t {
        TermNode::Var(v, k) => {
            vars.insert(*v, *k);
        }
        TermNode::Int(s) => {
            if let Ok(n) = s.parse() {
                consts.insert((n, 1));
            }
        }
        TermNode::Real(n, d) => {
            if let Some(q) = parse_q(n, d) {
                consts.insert((q.n, q.d));
            }
        }
        TermNode::App(_, args) => args.iter().for_each(|a| scan(a, vars, consts)),
        TermNode::Bool(_) => {}
    }
}

/// The variables of `terms` with their sorts.
pub(crate) fn variables(terms: &[Term]) -> BTreeMap<VarId, Kind> {
    let mut vars = BTreeMap::new();
    let mut consts = BTreeSet::new();
    for t in terms {
        scan(t, &mut vars, &mut consts);
    }
    vars
}

/// True when every term of `terms` is true under `values` (a value for each variable),
/// evaluated exactly within the evaluation budget; false when one is false or cannot be
/// evaluated (a division by zero, an overflow, the budget exhausted).
pub(crate) fn all_hold<'t>(
    terms: impl IntoIterator<Item = &'t Term>,
    values: &BTreeMap<VarId, ModelValue>,
) -> bool {
    let Some(values) = values
        .iter()
        .map(|(v, x)| Some((*v, model_to_v(x)?)))
        .collect::<Option<BTreeMap<VarId, V>>>()
    else {
        return false;
    };
    let mut ev = Eval {
        values: &values,
        budget: EVAL_LIMIT,
    };
    terms.into_iter().all(|t| ev.bool(t) == Some(true))
}

/// The truth of `t` under `values` (a value for each of its variables), evaluated exactly
/// within the evaluation budget; `None` when it cannot be evaluated (a division by zero, an
/// overflow, a missing value, the budget exhausted).
pub(crate) fn truth(t: &Term, values: &BTreeMap<VarId, ModelValue>) -> Option<bool> {
    let values = values
        .iter()
        .map(|(v, x)| Some((*v, model_to_v(x)?)))
        .collect::<Option<BTreeMap<VarId, V>>>()?;
    Eval {
        values: &values,
        budget: EVAL_LIMIT,
    }
    .bool(t)
}

/// Tries to find a model of the conjunction of `terms` near `hints` (the last inputs). Money
/// variables (`money`) only take multiples of $100. `None` when no model was found: the
/// question is then for Z3, and nothing is implied about satisfiability.
pub fn guess(
    terms: &[&Term],
    hints: &BTreeMap<VarId, ModelValue>,
    money: &[VarId],
) -> Option<BTreeMap<VarId, ModelValue>> {
    guess_preferring(terms, hints, money, &[], &Preferences::default())
}

/// [`guess`] preferring realistic values: a variable without a hint starts at its preferred
/// point (`prefs`), and the candidates inside the preferred ranges are tried first, all of
/// them before any outside; a variable left outside its range is then moved into it when the
/// terms allow; then each date variable of `dates` (day numbers) is moved to the
/// roundest date near its value that keeps every term true and is no further from its range:
/// January 1st, then the first day of a month.
pub(crate) fn guess_preferring(
    terms: &[&Term],
    hints: &BTreeMap<VarId, ModelValue>,
    money: &[VarId],
    dates: &[VarId],
    prefs: &Preferences,
) -> Option<BTreeMap<VarId, ModelValue>> {
    guess_remembering(terms, hints, money, dates, prefs, &mut TermMemo::new())
}

/// What the guesses remember of each term: its variables and constants (a term's, for as
/// long as it is kept), and its truth at the starting point of the guesses (the hints with
/// defaults), until the hints change.
pub(crate) struct TermMemo {
    scans: GenerationalMap<Term, Rc<Scanned>>,
    truths: crate::fast_hash::FastMap<Term, bool>,
}

/// The variables (with their sorts) and the numeric constants of a term.
type Scanned = (BTreeMap<VarId, Kind>, BTreeSet<(i128, i128)>);

/// Terms whose scans are remembered per generation.
const SCAN_GENERATION: usize = 50_000;

impl TermMemo {
    pub(crate) fn new() -> TermMemo {
        TermMemo {
            scans: GenerationalMap::new(SCAN_GENERATION),
            truths: Default::default(),
        }
    }

    /// Forgets the truths: the starting point changed.
    pub(crate) fn new_hints(&mut self) {
        self.truths.clear();
    }

    fn scan(&mut self, t: &Term) -> Rc<Scanned> {
        if let Some(s) = self.scans.get(t) {
            return s;
        }
        let mut vars = BTreeMap::new();
        let mut consts = BTreeSet::new();
        scan(t, &mut vars, &mut consts);
        let s = Rc::new((vars, consts));
        self.scans.insert(t.clone(), Rc::clone(&s));
        s
    }
}

/// [`guess_preferring`], with what `memo` remembers of the terms (its truths must be those of
/// `hints`, see [`TermMemo::new_hints`]).
pub(crate) fn guess_remembering(
    terms: &[&Term],
    hints: &BTreeMap<VarId, ModelValue>,
    money: &[VarId],
    dates: &[VarId],
    prefs: &Preferences,
    memo: &mut TermMemo,
) -> Option<BTreeMap<VarId, ModelValue>> {
    let mut kinds = BTreeMap::new();
    let mut per_term = Vec::with_capacity(terms.len());
    for t in terms {
        let s = memo.scan(t);
        kinds.extend(s.0.iter().map(|(v, k)| (*v, *k)));
        per_term.push(s);
    }
    let is_money = |v: &VarId| money.contains(v);
    let round = |v: &VarId, x: &V| match x {
        V::N(q) if is_money(v) => q.d == 1 && q.n % MONEY_STEP == 0,
        _ => true,
    };
    // The starting point: the hint of each variable, or the solver's usual default.
    let mut values: BTreeMap<VarId, V> = kinds
        .iter()
        .map(|(v, k)| {
            let hinted = hints.get(v).and_then(model_to_v).filter(|x| match (x, k) {
                (V::B(_), Kind::Bool) => true,
                (V::N(q), Kind::Int) => q.d == 1,
                (V::N(_), Kind::Real) => true,
                _ => false,
            });
            let default = match k {
                Kind::Bool => V::B(false),
                Kind::Int => V::N(Q::int(prefs.point(*v))),
                Kind::Real => V::N(Q::int(0)),
            };
            (*v, hinted.unwrap_or(default))
        })
        .collect();
    let mut ev = Eval {
        values: &values,
        budget: EVAL_LIMIT,
    };
    let mut violated = Vec::new();
    for (i, t) in terms.iter().enumerate() {
        // The starting point is a function of the hints: a truth found there holds until
        // they change.
        if let Some(&known) = memo.truths.get(*t) {
            if !known {
                violated.push(i);
            }
            continue;
        }
        match ev.bool(t) {
            Some(b) => {
                memo.truths.insert((*t).clone(), b);
                if !b {
                    violated.push(i);
                }
            }
            None if ev.budget == 0 => return None,
            None => violated.push(i),
        }
    }
    // A violated term without variables stays violated whatever the values.
    if violated.iter().any(|i| per_term[*i].0.is_empty()) {
        return None;
    }
    let mut budget = ev.budget;
    // The variables to change: those of the violated terms, and money amounts not round.
    let mut free: BTreeSet<VarId> = violated
        .iter()
        .flat_map(|i| per_term[*i].0.keys().copied())
        .collect();
    free.extend(values.iter().filter(|(v, x)| !round(v, x)).map(|(v, _)| *v));
    if free.is_empty() {
        let budget = pull_into_ranges(terms, &mut values, prefs, budget);
        round_dates(terms, &mut values, dates, budget, prefs);
        return model(&values, &kinds);
    }
    let free: Vec<VarId> = free.into_iter().collect();
    // The terms to re-check, each at the depth where its last free variable gets a value.
    let depth_of = |v: &VarId| free.iter().position(|f| f == v);
    let mut checks: Vec<Vec<usize>> = vec![Vec::new(); free.len()];
    let mut consts = BTreeSet::new();
    for (i, scanned) in per_term.iter().enumerate() {
        let (vars, c) = &**scanned;
        if let Some(d) = vars.keys().filter_map(depth_of).max() {
            checks[d].push(i);
            consts.extend(c.iter().copied());
        }
    }
    // Where each violated term turns true along each of its integer variables alone.
    let mut near: BTreeMap<VarId, (Vec<Q>, Vec<Q>)> = BTreeMap::new();
    let mut probe_budget = PROBE_LIMIT;
    for &i in &violated {
        for (v, k) in &per_term[i].0 {
            if *k == Kind::Int {
                let (found, finer) =
                    turning_points(terms[i], *v, is_money(v), &mut values, &mut probe_budget);
                let entry = near.entry(*v).or_default();
                entry.0.extend(found);
                entry.1.extend(finer);
            }
        }
    }
    let candidates: Vec<Vec<V>> = free
        .iter()
        .map(|v| {
            let (turning, finer) = near
                .get(v)
                .map_or((&[][..], &[][..]), |(t, f)| (&t[..], &f[..]));
            let mut c = candidates(*v, kinds[v], &values, turning, &consts, is_money(v), prefs);
            c.extend(finer.iter().map(|q| V::N(*q)));
            // Inside the preferred range first (stable: the current value stays first).
            c.sort_by_key(|x| distance(prefs, *v, x));
            c
        })
        .collect();
    // The candidates inside the preferred ranges alone first, when some are outside: a
    // depth-first search would otherwise take an unrealistic value of an early variable
    // before a realistic value of a later one.
    let inside: Vec<Vec<V>> = free
        .iter()
        .zip(&candidates)
        .map(|(v, c)| {
            let within: Vec<V> = c
                .iter()
                .copied()
                .filter(|x| distance(prefs, *v, x) == 0)
                .collect();
            if within.is_empty() {
                c.clone()
            } else {
                within
            }
        })
        .collect();
    // The search from the first free variable over `cands`.
    let run = |cands: &[Vec<V>],
               values: &mut BTreeMap<VarId, V>,
               steps: &mut usize,
               budget: &mut usize,
               repair: Option<&mut Repair>| {
        search(
            terms, &free, cands, &checks, 0, values, steps, budget, repair,
        )
    };
    let start = values.clone();
    let mut found = false;
    if inside != candidates {
        let (mut steps, mut first_budget) = (STEP_LIMIT / 2, budget / 2);
        found = run(&inside, &mut values, &mut steps, &mut first_budget, None).unwrap_or(false);
        if !found {
            values = start.clone();
        }
    }
    if !found {
        found = run(&candidates, &mut values, &mut 0, &mut budget, None)?;
    }
    if !found {
        values = start;
        let mut repair = Repair {
            money: free.iter().map(is_money).collect(),
            budget: REPAIR_LIMIT,
        };
        let mut eval_budget = EVAL_LIMIT;
        found = run(
            &candidates,
            &mut values,
            &mut 0,
            &mut eval_budget,
            Some(&mut repair),
        )?;
    }
    if !found {
        return None;
    }
    let budget = pull_into_ranges(terms, &mut values, prefs, budget);
    round_dates(terms, &mut values, dates, budget, prefs);
    model(&values, &kinds)
}

/// Moves each variable outside its preferred range (a value kept from the last inputs, or
/// forced by the search) to its preferred point, or else to the nearest value of its range,
/// when every term stays true. Gives the evaluation budget left.
fn pull_into_ranges(
    terms: &[&Term],
    values: &mut BTreeMap<VarId, V>,
    prefs: &Preferences,
    mut budget: usize,
) -> usize {
    let outside: Vec<(VarId, i128)> = values
        .iter()
        .filter_map(|(v, x)| match x {
            V::N(q) if q.d == 1 && prefs.distance(*v, q.n) > 0 => Some((*v, q.n)),
            _ => None,
        })
        .collect();
    for (v, current) in outside {
        let Some(p) = prefs.get(v) else { continue };
        for z in [p.point, p.clamp(current)] {
            values.insert(v, V::N(Q::int(z)));
            let mut ev = Eval { values, budget };
            let holds = terms.iter().all(|t| ev.bool(t) == Some(true));
            budget = ev.budget;
            if holds {
                break;
            }
            values.insert(v, V::N(Q::int(current)));
            if budget == 0 {
                return 0;
            }
        }
    }
    budget
}

/// How far a candidate is outside the preferred range of `v` (0 for booleans, decimals and
/// variables without a range).
fn distance(prefs: &Preferences, v: VarId, x: &V) -> i128 {
    match x {
        V::N(q) if q.d == 1 => prefs.distance(v, q.n),
        _ => 0,
    }
}

/// Moves date variables to round dates when every term stays true (see [`guess_preferring`]).
fn round_dates(
    terms: &[&Term],
    values: &mut BTreeMap<VarId, V>,
    dates: &[VarId],
    budget: usize,
    prefs: &Preferences,
) {
    let mut budget = budget;
    for v in dates {
        let Some(V::N(q)) = values.get(v).copied() else {
            continue;
        };
        if q.d != 1 {
            continue;
        }
        let current = q.n;
        // Nearer the preferred range first, then rounder.
        let key = |z: i128| (prefs.distance(*v, z), super::calendar::roundness(z));
        let level = key(current);
        let mut near: Vec<i128> = super::calendar::round_dates_near(current)
            .into_iter()
            .filter(|z| key(*z) < level)
            .collect();
        near.sort_by_key(|z| (key(*z), (z - current).abs()));
        for z in near {
            values.insert(*v, V::N(Q::int(z)));
            let mut ev = Eval { values, budget };
            let holds = terms.iter().all(|t| ev.bool(t) == Some(true));
            budget = ev.budget;
            if holds {
                break;
            }
            values.insert(*v, V::N(Q::int(current)));
            if budget == 0 {
                return;
            }
        }
    }
}

fn model(
    values: &BTreeMap<VarId, V>,
    kinds: &BTreeMap<VarId, Kind>,
) -> Option<BTreeMap<VarId, ModelValue>> {
    values
        .iter()
        .map(|(v, x)| Some((*v, v_to_model(*x, kinds[v])?)))
        .collect()
}

/// The values of the integer variable `v` at which `t` turns true, the other variables at
/// their `values`: from `v`'s current value (rounded down to the money step for money), the
/// first value found true going up and going down by doubling distances, then the nearest true
/// value between it and the last false one by bisection (on the money step's grid for money).
/// At most one value per direction; none when `t` cannot be evaluated or the budget runs out.
/// For money, also the finer amounts where it turns true between two multiples of $100 (the
/// cent, and the first multiples of $10 and $1 past it): the second list, tried last, for
/// conditions true only within a band narrower than $100. `values` is left as it was.
fn turning_points(
    t: &Term,
    v: VarId,
    money: bool,
    values: &mut BTreeMap<VarId, V>,
    budget: &mut usize,
) -> (Vec<Q>, Vec<Q>) {
    let mut finer = Vec::new();
    let Some(V::N(x0)) = values.get(&v).copied() else {
        return (Vec::new(), finer);
    };
    if x0.d != 1 {
        return (Vec::new(), finer);
    }
    let step = if money { MONEY_STEP } else { 1 };
    let base = x0.n.div_euclid(step) * step;
    let mut holds = |x: i128, values: &mut BTreeMap<VarId, V>| -> Option<bool> {
        values.insert(v, V::N(Q::int(x)));
        let mut ev = Eval {
            values,
            budget: *budget,
        };
        let r = ev.bool(t);
        *budget = ev.budget;
        r
    };
    let mut found = Vec::new();
    'directions: for dir in [1i128, -1] {
        // The probes of this direction, base + 2^k steps: none is tried when the term is
        // false on the whole range they span (its intervals say so, the other variables at
        // their values).
        let probe = |k: u32| {
            1i128
                .checked_shl(k)
                .and_then(|d| d.checked_mul(step * dir))
                .and_then(|d| base.checked_add(d))
        };
        let (Some(first), Some(last)) = (probe(0), probe(PROBE_DOUBLINGS - 1)) else {
            continue;
        };
        let fixed = |u: VarId| match values.get(&u) {
            Some(V::B(b)) => Some(Point::Bool(*b)),
            Some(V::N(q)) => Some(Point::Num(*q)),
            None => None,
        };
        if false_along(t, v, (first.min(last), first.max(last)), &fixed) {
            continue;
        }
        let mut last_false = base;
        let mut first_true = None;
        for k in 0..PROBE_DOUBLINGS {
            let Some(x) = probe(k) else {
                break;
            };
            match holds(x, values) {
                Some(true) => {
                    first_true = Some(x);
                    break;
                }
                Some(false) => last_false = x,
                None => break 'directions,
            }
        }
        let Some(mut hi) = first_true else {
            continue;
        };
        let mut lo = last_false;
        let mut bisect = |lo: &mut i128, hi: &mut i128, step: i128, values: &mut _| {
            while (*hi - *lo).abs() > step {
                let mid = *lo + (*hi - *lo) / step / 2 * step;
                match holds(mid, values) {
                    Some(true) => *hi = mid,
                    Some(false) => *lo = mid,
                    None => return false,
                }
            }
            true
        };
        let exact = bisect(&mut lo, &mut hi, step, values);
        found.push(Q::int(hi));
        if !money || !exact {
            continue;
        }
        // Between the last false multiple of $100 and the first true one: the exact cent
        // where the term turns true, and the roundest amounts ($10, $1) past it.
        let mut cent = hi;
        if bisect(&mut lo, &mut cent, 1, values) {
            for unit in [1_000, 100, 1] {
                let below = cent.div_euclid(unit) * unit;
                let past = if dir > 0 && below != cent {
                    below + unit
                } else {
                    below
                };
                if past != hi && !finer.contains(&Q::int(past)) {
                    finer.push(Q::int(past));
                }
            }
        }
    }
    values.insert(v, V::N(x0));
    (found, finer)
}

/// The values tried for `v`, in order: its current value first (when allowed), then the
/// values where a violated term turns true (`turning`), its preferred point (0 without one),
/// then the constants and the other variables' values with their neighbours.
fn candidates(
    v: VarId,
    kind: Kind,
    values: &BTreeMap<VarId, V>,
    turning: &[Q],
    consts: &BTreeSet<(i128, i128)>,
    money: bool,
    prefs: &Preferences,
) -> Vec<V> {
    let current = values.get(&v).copied();
    if kind == Kind::Bool {
        let b = matches!(current, Some(V::B(true)));
        return vec![V::B(b), V::B(!b)];
    }
    let mut points: Vec<Q> = Vec::new();
    if let Some(V::N(q)) = current {
        points.push(q);
    }
    points.extend_from_slice(turning);
    if kind == Kind::Int {
        points.push(Q::int(prefs.point(v)));
    }
    points.push(Q::int(0));
    points.extend(consts.iter().filter_map(|(n, d)| Q::new(*n, *d)));
    points.extend(values.iter().filter_map(|(u, x)| match x {
        V::N(q) if *u != v => Some(*q),
        _ => None,
    }));
    let mut out: Vec<Q> = Vec::new();
    let mut push = |q: Q| {
        if !out.contains(&q) {
            out.push(q);
        }
    };
    for p in points {
        if money {
            let below = (p.n.div_euclid(p.d)).div_euclid(MONEY_STEP) * MONEY_STEP;
            for x in [below, below + MONEY_STEP, below - MONEY_STEP] {
                push(Q::int(x));
            }
        } else if kind == Kind::Int {
            let below = p.n.div_euclid(p.d);
            for x in [below, below + 1, below - 1] {
                push(Q::int(x));
            }
        } else {
            push(p);
            for delta in [1, -1] {
                if let Some(x) = p.add(Q::int(delta)) {
                    push(x);
                }
            }
        }
    }
    out.truncate(CANDIDATE_LIMIT);
    out.into_iter().map(V::N).collect()
}

/// What the last pass of [`search`] adds to the candidates: at a depth whose candidates all
/// fail a check, the values where the first failing check turns true along that depth's
/// variable, the earlier variables at the values the search gave them. A model that needs two
/// variables to move together (the negated branch turned true by the rent, an earlier branch
/// on the resources kept true by the resources) is out of reach of candidates computed at the
/// last inputs alone.
struct Repair {
    /// Whether each free variable is money (probed on the $100 grid first).
    money: Vec<bool>,
    /// Term nodes left for those probes.
    budget: usize,
}

/// Depth-first search over the candidates of the free variables; `None` when a budget runs
/// out. With `repair`, a depth whose candidates all fail tries the turning points of its first
/// failing check as well (see [`Repair`]).
#[allow(clippy::too_many_arguments)]
fn search(
    terms: &[&Term],
    free: &[VarId],
    candidates: &[Vec<V>],
    checks: &[Vec<usize>],
    depth: usize,
    values: &mut BTreeMap<VarId, V>,
    steps: &mut usize,
    budget: &mut usize,
    mut repair: Option<&mut Repair>,
) -> Option<bool> {
    let Some(v) = free.get(depth) else {
        return Some(true);
    };
    let mut queue: Vec<V> = candidates[depth].clone();
    let mut failing: Option<usize> = None;
    let mut repaired = false;
    let mut i = 0;
    loop {
        if i == queue.len() {
            let (Some(r), Some(f), false) = (repair.as_deref_mut(), failing, repaired) else {
                return Some(false);
            };
            repaired = true;
            let Some(first) = queue.first().copied() else {
                return Some(false);
            };
            values.insert(*v, first);
            let (found, finer) =
                turning_points(terms[f], *v, r.money[depth], values, &mut r.budget);
            for q in found.into_iter().chain(finer) {
                if !queue.contains(&V::N(q)) {
                    queue.push(V::N(q));
                }
            }
            continue;
        }
        let c = queue[i];
        i += 1;
        *steps += 1;
        if *steps > STEP_LIMIT {
            return None;
        }
        values.insert(*v, c);
        let mut ev = Eval {
            values,
            budget: *budget,
        };
        let mut ok = true;
        for &t in &checks[depth] {
            if ev.bool(terms[t]) != Some(true) {
                if ev.budget == 0 {
                    return None;
                }
                failing.get_or_insert(t);
                ok = false;
                break;
            }
        }
        *budget = ev.budget;
        if ok
            && search(
                terms,
                free,
                candidates,
                checks,
                depth + 1,
                values,
                steps,
                budget,
                repair.as_deref_mut(),
            )?
        {
            return Some(true);
        }
    }
}

/// The solver layer guessing models near the last inputs; it never answers "unsatisfiable".
pub(crate) struct Guesses {
    /// Money variables, guessed at multiples of $100 first.
    money: Vec<VarId>,
    /// Date variables, moved to round dates when they can be.
    pub(crate) dates: Vec<VarId>,
    /// The realistic ranges tried first.
    pub(crate) preferences: Preferences,
    /// The inputs of the last run.
    hints: BTreeMap<VarId, ModelValue>,
    /// What is remembered of the terms, their truths at the hints.
    memo: TermMemo,
    /// Queries answered by a guess.
    pub(crate) found: u64,
    /// Of those, the ones answered with the last inputs' amounts kept off round values.
    pub(crate) kept_amounts: u64,
}

impl Guesses {
    pub(crate) fn new(money: Vec<VarId>) -> Guesses {
        Guesses {
            money,
            dates: Vec::new(),
            preferences: Preferences::default(),
            hints: BTreeMap::new(),
            memo: TermMemo::new(),
            found: 0,
            kept_amounts: 0,
        }
    }

    /// Whether some money variable of `terms` has a last input off the multiples of $100.
    fn off_round_money(&mut self, terms: &[&Term]) -> bool {
        let off = |v: &VarId| match self.hints.get(v) {
            Some(ModelValue::Int(s)) => s.parse::<i128>().map_or(true, |c| c % MONEY_STEP != 0),
            _ => false,
        };
        let money: Vec<VarId> = self.money.iter().copied().filter(|v| off(v)).collect();
        !money.is_empty()
            && terms
                .iter()
                .any(|t| money.iter().any(|v| self.memo.scan(t).0.contains_key(v)))
    }

    /// Records the inputs of the run the next queries start from.
    pub(crate) fn remember(&mut self, inputs: impl IntoIterator<Item = (VarId, ModelValue)>) {
        self.hints.clear();
        self.hints.extend(inputs);
        self.memo.new_hints();
    }
}

impl<'a> SolverLayer<PathQuery<'a>> for Guesses {
    type Model = ModelSource;
    type Error = EncodeError;

    fn decide(&mut self, q: &PathQuery<'a>) -> Result<Option<Verdict<ModelSource>>, EncodeError> {
        let mut model = guess_remembering(
            q.terms,
            &self.hints,
            &self.money,
            &self.dates,
            &self.preferences,
            &mut self.memo,
        );
        if model.is_none() && self.off_round_money(q.terms) {
            // Rounding the amounts of the last inputs frees them all, and the search among
            // round amounts may miss a model the amounts as they were give (a product of two
            // amounts pinned by earlier branches): the violated terms' variables alone, then.
            model = guess_remembering(
                q.terms,
                &self.hints,
                &[],
                &self.dates,
                &self.preferences,
                &mut self.memo,
            );
            self.kept_amounts += u64::from(model.is_some());
        }
        if model.is_some() {
            self.found += 1;
            q.answer_from(Layer::Guess);
        }
        Ok(model.map(|m| Verdict::Sat(ModelSource::Own(m))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::term::{app, int_const, not, real_const, var};

    fn money(v: u32) -> Term {
        var(VarId(v), Kind::Int)
    }

    fn check(terms: &[&Term], m: &BTreeMap<VarId, ModelValue>) -> bool {
        let values: BTreeMap<VarId, V> = m
            .iter()
            .filter_map(|(v, x)| Some((*v, model_to_v(x)?)))
            .collect();
        let mut ev = Eval {
            values: &values,
            budget: usize::MAX,
        };
        terms.iter().all(|t| ev.bool(t) == Some(true))
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        let r = |n, d| Q::new(n, d).map(|q| q.round().n);
        assert_eq!(r(5, 2), Some(3));
        assert_eq!(r(-5, 2), Some(-3));
        assert_eq!(r(7, 3), Some(2));
        assert_eq!(r(-7, 3), Some(-2));
        assert_eq!(Q::new(-7, 2).map(|q| q.truncate().n), Some(-3));
    }

    #[test]
    fn a_negated_constraint_is_satisfied_by_changing_its_variables() {
        // Section 132: customer ≥ employee, and now customer − employee > round(customer / 5).
        let c = money(0);
        let e = money(1);
        let prefix = app(Op::Ge, vec![c.clone(), e.clone()]);
        let fifth = app(
            Op::Round,
            vec![app(
                Op::Mul,
                vec![app(Op::ToReal, vec![c.clone()]), real_const("1", "5")],
            )],
        );
        let negated = app(Op::Gt, vec![app(Op::Sub, vec![c, e]), fifth]);
        let terms = [&prefix, &negated];
        let hints = BTreeMap::from([
            (VarId(0), ModelValue::Int("0".into())),
            (VarId(1), ModelValue::Int("0".into())),
        ]);
        let Some(m) = guess(&terms, &hints, &[VarId(0), VarId(1)]) else {
            panic!("no guess")
        };
        assert!(check(&terms, &m));
        for x in m.values() {
            let ModelValue::Int(s) = x else { panic!() };
            assert_eq!(s.parse::<i128>().map(|n| n % MONEY_STEP), Ok(0), "{m:?}");
        }
    }

    #[test]
    fn a_second_variable_moved_to_keep_an_earlier_branch_true_is_found_by_its_probes() {
        // Path x − 3y ≤ 0 and x − 3y ≥ −2 (y within a third of x), negated branch
        // x + y ≥ 1,000, from x = y = 0. x = 1,000 turns the branch true but breaks the first
        // constraint; only y = 334 (or a neighbour) then keeps both, and neither the constants
        // (1,000, 3, −2) nor the values where the branch turns true along one variable alone
        // (1,000) is such a y. The last pass probes y at x = 1,000 and finds it.
        let (x, y) = (var(VarId(0), Kind::Int), var(VarId(1), Kind::Int));
        let gap = app(
            Op::Sub,
            vec![x.clone(), app(Op::Mul, vec![int_const("3"), y.clone()])],
        );
        let below = app(Op::Le, vec![gap.clone(), int_const("0")]);
        let above = app(Op::Ge, vec![gap, int_const("-2")]);
        let negated = app(Op::Ge, vec![app(Op::Add, vec![x, y]), int_const("1000")]);
        let terms = [&below, &above, &negated];
        let hints = BTreeMap::from([
            (VarId(0), ModelValue::Int("0".into())),
            (VarId(1), ModelValue::Int("0".into())),
        ]);
        let Some(m) = guess(&terms, &hints, &[]) else {
            panic!("no guess")
        };
        assert!(check(&terms, &m), "{m:?}");
    }

    /// The value guessed for variable 0 (an integer), if any.
    fn first_guessed(
        terms: &[&Term],
        hints: &BTreeMap<VarId, ModelValue>,
        money: &[VarId],
    ) -> Option<String> {
        match guess(terms, hints, money)?.remove(&VarId(0))? {
            ModelValue::Int(s) => Some(s),
            _ => None,
        }
    }

    /// `round((x − 6,990.00 €) × 0.0169) ≥ 50.00 €` on resources `x` in cents (the shape of
    /// the housing benefits' personal participation).
    fn rate_above(x: &Term) -> Term {
        let part = app(
            Op::Round,
            vec![app(
                Op::Mul,
                vec![
                    app(
                        Op::ToReal,
                        vec![app(Op::Sub, vec![x.clone(), int_const("699000")])],
                    ),
                    real_const("169", "10000"),
                ],
            )],
        );
        app(Op::Ge, vec![part, int_const("5000")])
    }

    #[test]
    fn a_threshold_far_from_every_constant_is_found_by_probing() {
        // (x − 699000) × 0.0169 ≥ 4999.5 ⇔ x ≥ 994828.4: the smallest multiple of $100
        // above is 1,000,000 cents. None of the constants or their neighbours satisfies it,
        // nor the hint (500,000).
        let x = money(0);
        let t = rate_above(&x);
        let hints = BTreeMap::from([(VarId(0), ModelValue::Int("500000".into()))]);
        assert_eq!(
            first_guessed(&[&t], &hints, &[VarId(0)]),
            Some("1000000".into())
        );
        // An integer (not money) lands on the exact threshold, 994,829.
        assert_eq!(first_guessed(&[&t], &hints, &[]), Some("994829".into()));
    }

    #[test]
    fn a_band_narrower_than_a_hundred_dollars_is_found_to_the_cent() {
        // 8,014.79 € ≤ x < 8,015.00 €: no multiple of $100 (nor of $1) is in the band; the
        // cent where the first term turns true is.
        let x = money(0);
        let lower = app(Op::Ge, vec![x.clone(), int_const("801479")]);
        let upper = app(Op::Lt, vec![x.clone(), int_const("801500")]);
        let hints = BTreeMap::from([(VarId(0), ModelValue::Int("0".into()))]);
        assert_eq!(
            first_guessed(&[&upper, &lower], &hints, &[VarId(0)]),
            Some("801479".into())
        );
        // With room for a round amount, the round amount is taken.
        let wide = app(Op::Lt, vec![x, int_const("900000")]);
        assert_eq!(
            first_guessed(&[&wide, &lower], &hints, &[VarId(0)]),
            Some("810000".into())
        );
    }

    #[test]
    fn probing_leaves_the_values_and_finds_both_directions() {
        // x − 7 > 100 or x − 7 < −100, from x = 7: true from 108 up and from −94 down.
        let x = money(0);
        let off = app(Op::Sub, vec![x.clone(), int_const("7")]);
        let t = app(
            Op::Or,
            vec![
                app(Op::Gt, vec![off.clone(), int_const("100")]),
                app(Op::Lt, vec![off, int_const("-100")]),
            ],
        );
        let mut values = BTreeMap::from([(VarId(0), V::N(Q::int(7)))]);
        let mut budget = usize::MAX;
        let (found, finer) = turning_points(&t, VarId(0), false, &mut values, &mut budget);
        assert_eq!(found, vec![Q::int(108), Q::int(-94)]);
        assert!(finer.is_empty());
        assert_eq!(values.get(&VarId(0)), Some(&V::N(Q::int(7))));
        // Without budget nothing is found.
        let mut none = 0;
        assert_eq!(
            turning_points(&t, VarId(0), false, &mut values, &mut none),
            (vec![], vec![])
        );
    }

    #[test]
    fn a_false_condition_without_variables_gives_no_guess() {
        // 0 > 0 beside a condition the starting values satisfy: no values can help.
        let x = money(0);
        let positive = app(Op::Ge, vec![x, int_const("0")]);
        let never = app(
            Op::Gt,
            vec![app(Op::Add, vec![int_const("0")]), int_const("0")],
        );
        let hints = BTreeMap::from([(VarId(0), ModelValue::Int("0".into()))]);
        assert_eq!(guess(&[&positive, &never], &hints, &[VarId(0)]), None);
        assert_eq!(guess(&[&never], &BTreeMap::new(), &[]), None);
    }

    #[test]
    fn unsatisfiable_or_unreachable_conditions_give_no_guess() {
        let x = var(VarId(0), Kind::Int);
        let ge = app(Op::Ge, vec![x.clone(), int_const("10")]);
        let lt = not(&app(Op::Ge, vec![x.clone(), int_const("5")]));
        assert_eq!(guess(&[&ge, &lt], &BTreeMap::new(), &[]), None);
        // x · x = 2 has no integer solution; 1 / x with x = 0 is never taken as true.
        let square = app(
            Op::Eq,
            vec![app(Op::Mul, vec![x.clone(), x.clone()]), int_const("2")],
        );
        assert_eq!(guess(&[&square], &BTreeMap::new(), &[]), None);
        let inv = app(
            Op::Eq,
            vec![
                app(
                    Op::Div,
                    vec![real_const("1", "1"), app(Op::ToReal, vec![x])],
                ),
                real_const("0", "1"),
            ],
        );
        assert_eq!(guess(&[&inv], &BTreeMap::new(), &[]), None);
    }

    #[test]
    fn satisfied_terms_keep_the_hints_and_money_stays_round() {
        let x = var(VarId(0), Kind::Int);
        let m = var(VarId(1), Kind::Int);
        let ge = app(Op::Ge, vec![x, int_const("3")]);
        let over = app(Op::Gt, vec![m, int_const("123")]);
        let hints = BTreeMap::from([(VarId(0), ModelValue::Int("7".into()))]);
        let Some(model) = guess(&[&ge, &over], &hints, &[VarId(1)]) else {
            panic!("no guess")
        };
        assert_eq!(model.get(&VarId(0)), Some(&ModelValue::Int("7".into())));
        assert_eq!(model.get(&VarId(1)), Some(&ModelValue::Int("10000".into())));
    }

    #[test]
    fn values_outside_their_preferred_ranges_move_in_when_the_terms_allow() {
        use crate::catala::prefer::{Preferred, PreferredUnit};
        // A date d (day numbers) with d > 1000 and a count n ≥ 0 compared with n ≥ −5:
        // the hints (d = 90000, n = −3) satisfy both, but lie outside the preferred ranges
        // d ∈ [19000, 20000] (point 19500) and n ∈ [0, 100] (point 0): both move to their
        // points, which satisfy the terms too.
        let d = var(VarId(0), Kind::Int);
        let n = var(VarId(1), Kind::Int);
        let after = app(Op::Gt, vec![d.clone(), int_const("1000")]);
        let count = app(Op::Ge, vec![n, int_const("-5")]);
        let hints = BTreeMap::from([
            (VarId(0), ModelValue::Int("90000".into())),
            (VarId(1), ModelValue::Int("-3".into())),
        ]);
        let mut prefs = Preferences::default();
        prefs.set(
            VarId(0),
            Preferred {
                lo: Some(19_000),
                hi: Some(20_000),
                point: 19_500,
                unit: PreferredUnit::Day,
            },
        );
        prefs.set(VarId(1), Preferred::count(0, Some(100)));
        let m = guess_preferring(&[&after, &count], &hints, &[], &[], &prefs);
        let Some(m) = m else { panic!("no guess") };
        assert_eq!(m.get(&VarId(0)), Some(&ModelValue::Int("19500".into())));
        assert_eq!(m.get(&VarId(1)), Some(&ModelValue::Int("0".into())));
        // d < 500 forces d outside the range: the nearest value of the range does not hold
        // either, so d keeps a value that satisfies the term.
        let before = app(Op::Lt, vec![d, int_const("500")]);
        let m = guess_preferring(&[&before], &hints, &[], &[], &prefs);
        let Some(m) = m else { panic!("no guess") };
        let Some(ModelValue::Int(x)) = m.get(&VarId(0)) else {
            panic!("{m:?}")
        };
        assert!(x.parse::<i128>().is_ok_and(|x| x < 500), "{m:?}");
    }
}
