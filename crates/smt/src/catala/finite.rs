//! A decision procedure for the simplest path conditions, answered without Z3: boolean
//! combinations of boolean variables and of comparisons between one integer variable and a
//! constant (dates as day numbers, enumeration cases, counts). Such a condition changes truth
//! value only where a variable crosses one of the constants it is compared with, so each
//! integer variable needs as candidates only 0 and, for each such constant c, c − 1, c and
//! c + 1; a backtracking search with three-valued evaluation then finds a model or proves that
//! there is none. Anything else (arithmetic, two variables in one comparison, decimals,
//! variables the caller keeps for Z3) is left to Z3, as is a search that grows too long.

use super::prefer::Preferences;
use super::query::{EncodeError, Layer, ModelSource, ModelValue, PathQuery};
use super::term::{Kind, Op, Term, TermNode, VarId};
use crate::layer::{SolverLayer, Verdict};
use std::collections::{BTreeMap, BTreeSet};

/// The answer for a conjunction of terms.
#[derive(Debug, PartialEq)]
pub enum Decision {
    /// A model of every variable that occurs (others are free).
    Sat(BTreeMap<VarId, ModelValue>),
    Unsat,
}

/// Search nodes visited before handing the question to Z3.
const STEP_LIMIT: usize = 2_000;

/// A term of the fragment, compiled: variables are indices, constants parsed.
enum C {
    Const(bool),
    BoolVar(usize),
    /// `x op c` for the integer variable of index `x`.
    Cmp(Op, usize, i128),
    Not(Box<C>),
    And(Vec<C>),
    Or(Vec<C>),
    Xor(Box<C>, Box<C>),
    /// Equality of two boolean terms.
    Iff(Box<C>, Box<C>),
}

#[derive(Default)]
struct Vars {
    index: BTreeMap<VarId, usize>,
    /// Per variable index: `None` for a boolean, the integer constants it meets otherwise.
    domains: Vec<Option<BTreeSet<i128>>>,
}

impl Vars {
    fn slot(&mut self, v: VarId, int: bool) -> Option<usize> {
        if let Some(&i) = self.index.get(&v) {
            return (self.domains[i].is_some() == int).then_some(i);
        }
        let i = self.domains.len();
        self.index.insert(v, i);
        self.domains.push(int.then(BTreeSet::new));
        Some(i)
    }
}

/// Compiles `t` if it is in the fragment, collecting variables and constants.
fn compile(t: &Term, vars: &mut Vars, exclude: &[VarId]) -> Option<C> {
    let all = |args: &[Term], vars: &mut Vars| -> Option<Vec<C>> {
        args.iter().map(|a| compile(a, vars, exclude)).collect()
    };
    match &**t {
        TermNode::Bool(b) => Some(C::Const(*b)),
        TermNode::Var(v, Kind::Bool) if !exclude.contains(v) => {
            vars.slot(*v, false).map(C::BoolVar)
        }
        TermNode::App(Op::Not, args) if args.len() == 1 => {
            Some(C::Not(Box::new(compile(&args[0], vars, exclude)?)))
        }
        TermNode::App(Op::And, args) => Some(C::And(all(args, vars)?)),
        TermNode::App(Op::Or, args) => Some(C::Or(all(args, vars)?)),
        TermNode::App(op @ (Op::Xor | Op::Eq), args)
            if args.len() == 2 && args.iter().all(|a| a.kind() == Kind::Bool) =>
        {
            let a = Box::new(compile(&args[0], vars, exclude)?);
            let b = Box::new(compile(&args[1], vars, exclude)?);
            Some(if *op == Op::Xor {
                C::Xor(a, b)
            } else {
                C::Iff(a, b)
            })
        }
        TermNode::App(op @ (Op::Eq | Op::Lt | Op::Le | Op::Gt | Op::Ge), args)
            if args.len() == 2 =>
        {
            // `x op c`, or `c op x` read as `x op' c`.
            let (v, c, op) = match (&*args[0], &*args[1]) {
                (TermNode::Var(v, Kind::Int), TermNode::Int(c)) => (v, c, *op),
                (TermNode::Int(c), TermNode::Var(v, Kind::Int)) => (
                    v,
                    c,
                    match op {
                        Op::Lt => Op::Gt,
                        Op::Le => Op::Ge,
                        Op::Gt => Op::Lt,
                        Op::Ge => Op::Le,
                        other => *other,
                    },
                ),
                _ => return None,
            };
            if exclude.contains(v) {
                return None;
            }
            let c: i128 = c.parse().ok()?;
            let i = vars.slot(*v, true)?;
            if let Some(Some(set)) = vars.domains.get_mut(i) {
                set.extend([c.checked_sub(1)?, c, c.checked_add(1)?]);
            }
            Some(C::Cmp(op, i, c))
        }
        _ => None,
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Val {
    Bool(bool),
    Int(i128),
}

/// The truth of `c` under a partial assignment (`None`: not yet known).
fn eval(c: &C, a: &[Option<Val>]) -> Option<bool> {
    match c {
        C::Const(b) => Some(*b),
        C::BoolVar(i) => match a[*i] {
            Some(Val::Bool(b)) => Some(b),
            _ => None,
        },
        C::Cmp(op, i, k) => match a[*i] {
            Some(Val::Int(x)) => Some(match op {
                Op::Eq => x == *k,
                Op::Lt => x < *k,
                Op::Le => x <= *k,
                Op::Gt => x > *k,
                _ => x >= *k,
            }),
            _ => None,
        },
        C::Not(x) => eval(x, a).map(|b| !b),
        C::And(xs) | C::Or(xs) => {
            let absorbing = matches!(c, C::Or(_));
            let mut unknown = false;
            for x in xs {
                match eval(x, a) {
                    Some(b) if b == absorbing => return Some(absorbing),
                    Some(_) => {}
                    None => unknown = true,
                }
            }
            (!unknown).then_some(!absorbing)
        }
        C::Xor(x, y) => Some(eval(x, a)? != eval(y, a)?),
        C::Iff(x, y) => Some(eval(x, a)? == eval(y, a)?),
    }
}

/// Decides the conjunction of `terms`, or returns `None` when it is outside the fragment (or
/// mentions a variable of `exclude`) or the search is too long.
pub fn decide(terms: &[&Term], exclude: &[VarId]) -> Option<Decision> {
    decide_preferring(terms, exclude, &[], &Preferences::default())
}

/// [`decide`], trying first for each variable with a preferred range in `prefs` its
/// preferred point, then the candidates inside its range (nearest to the point first), then
/// those outside (nearest to the range first); and for the date variables of `dates` (day
/// numbers) round dates near the constants they are compared with, January 1st, then the
/// first day of a month, as long as they are no further from their range.
pub fn decide_preferring(
    terms: &[&Term],
    exclude: &[VarId],
    dates: &[VarId],
    prefs: &Preferences,
) -> Option<Decision> {
    let mut vars = Vars::default();
    let mut compiled = Vec::with_capacity(terms.len());
    for t in terms {
        match compile(t, &mut vars, exclude)? {
            C::Const(true) => {}
            C::Const(false) => return Some(Decision::Unsat),
            c => compiled.push(c),
        }
    }
    let var_of: BTreeMap<usize, VarId> = vars.index.iter().map(|(v, i)| (*i, *v)).collect();
    // Candidates in the order tried: without a preferred range, 0 first (the solver's usual
    // choice), then ascending; with one, its point first, then by distance to the range and
    // to the point. Variables with fewer candidates first.
    let mut order: Vec<(usize, Vec<Val>)> = vars
        .domains
        .iter()
        .enumerate()
        .map(|(i, d)| match d {
            None => (i, vec![Val::Bool(false), Val::Bool(true)]),
            Some(set) => match var_of.get(&i).and_then(|v| prefs.get(*v)) {
                Some(p) => {
                    let mut c: Vec<i128> = std::iter::once(p.point)
                        .chain(set.iter().copied().filter(|x| *x != p.point))
                        .collect();
                    c.sort_by_cached_key(|x| (p.distance(*x), (x - p.point).abs(), *x < p.point));
                    (i, c.into_iter().map(Val::Int).collect())
                }
                None => {
                    let mut c = vec![Val::Int(0)];
                    c.extend(set.iter().filter(|x| **x != 0).map(|x| Val::Int(*x)));
                    (i, c)
                }
            },
        })
        .collect();
    order.sort_by_key(|(_, c)| c.len());
    let mut assignment: Vec<Option<Val>> = vec![None; vars.domains.len()];
    let all: Vec<usize> = (0..compiled.len()).collect();
    let mut last_false = None;
    let mut budget = Budget {
        steps: 0,
        last_false: &mut last_false,
    };
    if !search(&compiled, &all, &order, 0, &mut assignment, &mut budget)? {
        return Some(Decision::Unsat);
    }
    // Round dates: each date variable in turn takes the roundest date near its value or near
    // a constant it meets that keeps every term true (January 1st, then a first of month).
    for v in dates {
        let Some(&i) = vars.index.get(v) else {
            continue;
        };
        let Some(Val::Int(current)) = assignment[i] else {
            continue;
        };
        // Nearer the preferred range first, then rounder, then nearer the value.
        let key = |z: i128| (prefs.distance(*v, z), super::calendar::roundness(z));
        let now = key(current);
        let mut near: Vec<i128> = std::iter::once(current)
            .chain(vars.domains[i].iter().flatten().copied())
            .flat_map(super::calendar::round_dates_near)
            .filter(|z| key(*z) < now)
            .collect();
        near.sort_by_cached_key(|z| (key(*z), (z - current).abs()));
        for z in near {
            assignment[i] = Some(Val::Int(z));
            if compiled.iter().all(|c| eval(c, &assignment) == Some(true)) {
                break;
            }
            assignment[i] = Some(Val::Int(current));
        }
    }
    let model = vars
        .index
        .iter()
        .filter_map(|(v, i)| {
            let value = match assignment[*i]? {
                Val::Bool(b) => ModelValue::Bool(b),
                Val::Int(x) => ModelValue::Int(x.to_string()),
            };
            Some((*v, value))
        })
        .collect();
    Some(Decision::Sat(model))
}

/// The search's bookkeeping: nodes visited so far, and the term found false last.
struct Budget<'a> {
    steps: usize,
    last_false: &'a mut Option<usize>,
}

/// Depth-first search over the candidates; `None` when the step budget runs out. `pending`
/// lists the terms not yet decided by the partial assignment (a decided term stays decided
/// when the assignment grows). The term found false last is evaluated first: the next
/// candidate of the same variable is most often rejected by it, after one evaluation instead
/// of one per pending term (the node's answer does not depend on the order).
fn search(
    terms: &[C],
    pending: &[usize],
    order: &[(usize, Vec<Val>)],
    depth: usize,
    a: &mut [Option<Val>],
    budget: &mut Budget<'_>,
) -> Option<bool> {
    budget.steps += 1;
    if budget.steps > STEP_LIMIT {
        return None;
    }
    if let Some(t) = *budget.last_false {
        if pending.contains(&t) && eval(&terms[t], a) == Some(false) {
            return Some(false);
        }
    }
    let mut open = Vec::with_capacity(pending.len());
    for &t in pending {
        match eval(&terms[t], a) {
            Some(false) => {
                *budget.last_false = Some(t);
                return Some(false);
            }
            Some(true) => {}
            None => open.push(t),
        }
    }
    if open.is_empty() {
        return Some(true);
    }
    let Some((i, candidates)) = order.get(depth) else {
        return Some(false);
    };
    for c in candidates {
        a[*i] = Some(*c);
        if search(terms, &open, order, depth + 1, a, budget)? {
            return Some(true);
        }
    }
    a[*i] = None;
    Some(false)
}

/// The solver layer answering the queries of this fragment exactly, without Z3.
pub(crate) struct FiniteAnswers {
    /// Variables left to Z3 (money amounts, which Z3 rounds).
    kept: Vec<VarId>,
    /// Date variables, given round dates when they can be.
    pub(crate) dates: Vec<VarId>,
    /// The realistic ranges tried first.
    pub(crate) preferences: Preferences,
}

impl FiniteAnswers {
    pub(crate) fn new(kept: Vec<VarId>) -> FiniteAnswers {
        FiniteAnswers {
            kept,
            dates: Vec::new(),
            preferences: Preferences::default(),
        }
    }
}

impl<'a> SolverLayer<PathQuery<'a>> for FiniteAnswers {
    type Model = ModelSource;
    type Error = EncodeError;

    fn decide(&mut self, q: &PathQuery<'a>) -> Result<Option<Verdict<ModelSource>>, EncodeError> {
        let decision = decide_preferring(q.terms, &self.kept, &self.dates, &self.preferences);
        if decision.is_some() {
            q.answer_from(Layer::Finite);
        }
        Ok(decision.map(|d| match d {
            Decision::Sat(m) => Verdict::Sat(ModelSource::Own(m)),
            Decision::Unsat => Verdict::Unsat,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::term::{app, bool_const, int_const, not, var, Kind};

    fn ge(v: u32, c: i64) -> Term {
        app(
            Op::Ge,
            vec![var(VarId(v), Kind::Int), int_const(c.to_string())],
        )
    }
    fn eq(v: u32, c: i64) -> Term {
        app(
            Op::Eq,
            vec![var(VarId(v), Kind::Int), int_const(c.to_string())],
        )
    }

    #[test]
    fn dates_and_cases_are_decided_with_a_model() {
        // date ≥ 19478 and case ∈ {6, 8}, case ≠ 8, 0 ≤ case ≤ 8.
        let terms = [
            ge(0, 19478),
            app(Op::Or, vec![eq(1, 6), eq(1, 8)]),
            not(&eq(1, 8)),
            ge(1, 0),
            app(Op::Le, vec![var(VarId(1), Kind::Int), int_const("8")]),
        ];
        let refs: Vec<&Term> = terms.iter().collect();
        let Some(Decision::Sat(m)) = decide(&refs, &[]) else {
            panic!("expected a model")
        };
        assert_eq!(m.get(&VarId(1)), Some(&ModelValue::Int("6".into())));
        let Some(ModelValue::Int(d)) = m.get(&VarId(0)) else {
            panic!("no date")
        };
        assert!(d.parse::<i128>().is_ok_and(|d| d >= 19478));
    }

    #[test]
    fn dates_prefer_january_first_then_the_first_of_a_month() {
        use crate::catala::calendar::day_number;
        let day = |y, m, d| day_number(y, m, d).unwrap_or(0) as i64;
        let model_date = |terms: &[Term]| {
            let refs: Vec<&Term> = terms.iter().collect();
            match decide_preferring(&refs, &[], &[VarId(0)], &Preferences::default()) {
                Some(Decision::Sat(m)) => m.get(&VarId(0)).cloned(),
                other => panic!("{other:?}"),
            }
        };
        // After 1960-03-17 and before 1965: 1961-01-01 rather than 1960-03-18.
        let after = [
            not(&app(
                Op::Le,
                vec![
                    var(VarId(0), Kind::Int),
                    int_const(day(1960, 3, 17).to_string()),
                ],
            )),
            app(
                Op::Lt,
                vec![
                    var(VarId(0), Kind::Int),
                    int_const(day(1965, 1, 1).to_string()),
                ],
            ),
        ];
        assert_eq!(
            model_date(&after),
            Some(ModelValue::Int(day(1961, 1, 1).to_string()))
        );
        // Within March 1960 after the 17th: no January 1st, but April 1st is out too; the
        // first day of a month is impossible, so the exact boundary stays.
        let march = [
            after[0].clone(),
            app(
                Op::Lt,
                vec![
                    var(VarId(0), Kind::Int),
                    int_const(day(1960, 4, 1).to_string()),
                ],
            ),
        ];
        assert_eq!(
            model_date(&march),
            Some(ModelValue::Int(day(1960, 3, 18).to_string()))
        );
        // Before 1960-03-17 and after 1960-01-15: 1960-02-01.
        let between = [
            ge(0, day(1960, 1, 15)),
            app(
                Op::Lt,
                vec![
                    var(VarId(0), Kind::Int),
                    int_const(day(1960, 3, 17).to_string()),
                ],
            ),
        ];
        assert_eq!(
            model_date(&between),
            Some(ModelValue::Int(day(1960, 2, 1).to_string()))
        );
    }

    #[test]
    fn contradictions_are_unsat_and_other_terms_go_to_z3() {
        let terms = [ge(0, 10), not(&ge(0, 5)), var(VarId(2), Kind::Bool)];
        let refs: Vec<&Term> = terms.iter().collect();
        assert_eq!(decide(&refs, &[]), Some(Decision::Unsat));
        let b = [var(VarId(2), Kind::Bool), bool_const(true)];
        let refs: Vec<&Term> = b.iter().collect();
        assert!(matches!(decide(&refs, &[]), Some(Decision::Sat(_))));
        // Arithmetic, comparisons of two variables, excluded variables: not decided here.
        let sum = app(
            Op::Ge,
            vec![
                app(Op::Add, vec![var(VarId(0), Kind::Int), int_const("1")]),
                int_const("3"),
            ],
        );
        assert_eq!(decide(&[&sum], &[]), None);
        let two = app(
            Op::Ge,
            vec![var(VarId(0), Kind::Int), var(VarId(1), Kind::Int)],
        );
        assert_eq!(decide(&[&two], &[]), None);
        assert_eq!(decide(&[&ge(3, 1)], &[VarId(3)]), None);
    }
}
