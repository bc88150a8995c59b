//! The range of the difference NEW − OLD of a numeric output (integer or money) within a
//! region: the smallest and largest value the solver finds for it over the region's leaves.
//! The difference is first checked for a constant (one query); otherwise each bound is found
//! by doubling steps then halving them, with a bounded number of queries; a bound not reached
//! within them is reported as such, never guessed.

use num_bigint::BigInt;
use smt::catala::term::{app, int_const, var, Kind, Op, Term, VarId};
use smt::catala::{CatalaSession, ModelValue, QueryOutcome};
use std::time::Instant;

/// One end of the range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact minimum or maximum.
    Exact(BigInt),
    /// The search stopped at this value, which the difference takes, without ruling out values
    /// beyond it (the query limit, the deadline or a solver's "unknown"; the difference may be
    /// unbounded on that side).
    Beyond(BigInt),
    /// The solver did not answer.
    Unknown,
}

/// The range of a difference over a region.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DifferenceRange {
    pub min: Bound,
    pub max: Bound,
}

impl DifferenceRange {
    /// The difference is this constant throughout the region.
    pub fn constant(&self) -> Option<&BigInt> {
        match (&self.min, &self.max) {
            (Bound::Exact(a), Bound::Exact(b)) if a == b => Some(a),
            _ => None,
        }
    }
}

/// Queries spent on one bound at most.
const QUERIES_PER_BOUND: usize = 80;

/// Searches the range of the integer variable `d` under `region` (a condition over the
/// inputs and `d`), asked of `session` (whose globals hold the domains); after `deadline`, a
/// bound not yet found is reported as not reached.
pub(crate) fn range_of(
    session: &mut CatalaSession,
    region: &Term,
    d: VarId,
    deadline: Option<Instant>,
) -> Result<Option<DifferenceRange>, smt::catala::EncodeError> {
    let x = var(d, Kind::Int);
    let first = match ask(session, region, None, d)? {
        Answer::Value(v) => v,
        Answer::Unsat => return Ok(None),
        Answer::Unknown => {
            return Ok(Some(DifferenceRange {
                min: Bound::Unknown,
                max: Bound::Unknown,
            }))
        }
    };
    let other = app(
        Op::Not,
        vec![app(Op::Eq, vec![x.clone(), int_const(first.to_string())])],
    );
    if let Answer::Unsat = ask(session, region, Some(other), d)? {
        return Ok(Some(DifferenceRange {
            min: Bound::Exact(first.clone()),
            max: Bound::Exact(first),
        }));
    }
    let min = extreme(session, region, d, (first.clone(), true), deadline)?;
    let max = extreme(session, region, d, (first, false), deadline)?;
    Ok(Some(DifferenceRange { min, max }))
}

enum Answer {
    Value(BigInt),
    Unsat,
    Unknown,
}

fn ask(
    session: &mut CatalaSession,
    region: &Term,
    extra: Option<Term>,
    d: VarId,
) -> Result<Answer, smt::catala::EncodeError> {
    let mut query = vec![region.clone()];
    query.extend(extra);
    Ok(match session.check_path(&query)? {
        QueryOutcome::Sat => match session.value(d, Kind::Int) {
            Some(ModelValue::Int(s)) => match s.parse::<BigInt>() {
                Ok(v) => Answer::Value(v),
                Err(_) => Answer::Unknown,
            },
            _ => Answer::Unknown,
        },
        QueryOutcome::Unsat => Answer::Unsat,
        QueryOutcome::Unknown => Answer::Unknown,
    })
}

/// The minimum (`lower`) or maximum of `d` under `region`, from the feasible value `best`.
fn extreme(
    session: &mut CatalaSession,
    region: &Term,
    d: VarId,
    (mut best, lower): (BigInt, bool),
    deadline: Option<Instant>,
) -> Result<Bound, smt::catala::EncodeError> {
    let late = || deadline.is_some_and(|t| Instant::now() >= t);
    let x = var(d, Kind::Int);
    // `d ≤ k` when looking for the minimum, `d ≥ k` for the maximum.
    let beyond = |k: &BigInt| {
        let op = if lower { Op::Le } else { Op::Ge };
        app(op, vec![x.clone(), int_const(k.to_string())])
    };
    let mut step = BigInt::from(1);
    let mut queries = 0;
    // Doubling: find a step past which no value lies.
    loop {
        if queries >= QUERIES_PER_BOUND || late() {
            return Ok(Bound::Beyond(best));
        }
        queries += 1;
        let target = if lower { &best - &step } else { &best + &step };
        match ask(session, region, Some(beyond(&target)), d)? {
            Answer::Value(v) => {
                best = v;
                step *= 2;
            }
            Answer::Unsat => break,
            Answer::Unknown => return Ok(Bound::Beyond(best)),
        }
    }
    // The extreme lies strictly between `best ∓ step` and `best` (included): halve.
    let (mut near, mut far) = (
        best.clone(),
        if lower { &best - &step } else { &best + &step },
    );
    loop {
        let gap = if lower { &near - &far } else { &far - &near };
        if gap <= BigInt::from(1) {
            return Ok(Bound::Exact(near));
        }
        if queries >= QUERIES_PER_BOUND || late() {
            return Ok(Bound::Beyond(near));
        }
        queries += 1;
        let mid: BigInt = (&near + &far) / 2;
        match ask(session, region, Some(beyond(&mid)), d)? {
            Answer::Value(v) => near = v,
            Answer::Unsat => far = mid,
            Answer::Unknown => return Ok(Bound::Beyond(near)),
        }
    }
}
