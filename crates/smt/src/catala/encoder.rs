//! Catala terms in Z3: the encoder of a solver chain, owning what encoding needs and keeps.
//! Decimals that are fractions of integers go over integers ([`super::integer_form`]).
//! Terms are encoded once per shared node, in a bounded cache of two generations
//! ([`GenerationalMap`]), so the terms of the current path stay encoded while those of paths
//! long left are released (with their Z3 terms) and memory stays flat. Terms are hash-consed
//! ([`super::intern`]): a constraint built again by a later run is the node already encoded,
//! and the cache, which keeps its nodes alive, is what keeps it that node. Calendar operators
//! become fresh constants defined by the constraints of [`super::z3_calendar`], one set per
//! operator and encoded arguments; an assertion carries the definitions it relies on, so a
//! definition is asserted at the same level as every assertion using it and never popped
//! while in use. The encoder also holds the thread's Z3 context (taken on first use: a chain
//! answered without Z3 never creates one), declared last so that every Z3 term it keeps is
//! dropped before it.

use super::query::EncodeError;
use super::term::{Kind, Op, Term, TermNode, VarId};
use super::z3_calendar;
use crate::context::ContextHandle;
use crate::layer::GenerationalMap;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::rc::Rc;
use z3::ast::{Ast, Bool, Dynamic, Int, Real};
use z3::{Context, Solver};

/// An encoded term and the definitions its Z3 term relies on: the year, month and day of a
/// date are fresh constants defined by `z = day_number(y, m, d)`, `1 ≤ m ≤ 12` and
/// `1 ≤ d ≤ days_in_month(y, m)` (a far easier problem for Z3 than dividing `z` down to its
/// parts). The term is kept so that its node, whose address is the key, stays alive.
type Encoded = (Term, Dynamic<'static>, Rc<[Bool<'static>]>);

/// Entries per generation of the term cache.
const CACHE_GENERATION: usize = 20_000;

/// Encodes Catala terms into the thread's Z3 context.
pub(crate) struct Encoder {
    /// Encoded terms by node address.
    cache: GenerationalMap<usize, Encoded>,
    /// The constants standing for calendar operators met (by operator and encoded
    /// arguments), with the constraint defining them.
    calendar: HashMap<(Op, Vec<Int<'static>>), Rc<z3_calendar::Defined>>,
    /// The definitions met while encoding the current assertion.
    definitions: Vec<Bool<'static>>,
    /// The thread's Z3 context (see [`crate::context`]); declared last.
    context: OnceCell<ContextHandle>,
}

impl Encoder {
    pub(crate) fn new() -> Encoder {
        Encoder {
            cache: GenerationalMap::new(CACHE_GENERATION),
            calendar: HashMap::new(),
            definitions: Vec::new(),
            context: OnceCell::new(),
        }
    }

    /// The thread's context, taken on first use.
    pub(crate) fn ctx(&self) -> &'static Context {
        self.handle().get()
    }

    /// A counted reference to the context, for a holder of Z3 objects built on it.
    pub(crate) fn handle(&self) -> &ContextHandle {
        self.context.get_or_init(ContextHandle::of_thread)
    }

    /// The Z3 constant of an integer variable.
    pub(crate) fn int_var(&self, v: VarId) -> Int<'static> {
        Int::new_const(self.ctx(), format!("v{}", v.0))
    }

    /// What asserting `t` takes: the definitions it relies on, then its encoding.
    pub(crate) fn assertion(&mut self, t: &Term) -> Result<Vec<Bool<'static>>, EncodeError> {
        self.definitions.clear();
        let b = self.encode_bool(t)?;
        let mut out: Vec<Bool<'static>> = Vec::new();
        for d in std::mem::take(&mut self.definitions) {
            if !out.contains(&d) {
                out.push(d);
            }
        }
        out.push(b);
        Ok(out)
    }

    /// The assertions of every term of `terms`, in order.
    pub(crate) fn assertions(
        &mut self,
        terms: &[&Term],
    ) -> Result<Vec<Bool<'static>>, EncodeError> {
        let mut out = Vec::new();
        for t in terms {
            out.extend(self.assertion(t)?);
        }
        Ok(out)
    }

    /// The conjunction of `terms` as an SMT-LIB 2 script (declarations and assertions,
    /// without `check-sat`).
    pub(crate) fn smt_lib(&mut self, terms: &[&Term]) -> Result<String, EncodeError> {
        let solver = Solver::new(self.ctx());
        for b in self.assertions(terms)? {
            solver.assert(&b);
        }
        Ok(solver.to_string())
    }

    /// Notes a definition the current assertion relies on.
    pub(crate) fn note_definition(&mut self, d: Bool<'static>) {
        self.definitions.push(d);
    }

    /// The constants standing for a calendar operator on encoded arguments (one set per
    /// operator and arguments), their definition noted for the current assertion.
    fn calendar_op(&mut self, op: Op, args: &[Term]) -> Result<Int<'static>, EncodeError> {
        let ctx = self.ctx();
        let xs = args
            .iter()
            .map(|a| self.encode_int(a))
            .collect::<Result<Vec<_>, _>>()?;
        let bad = || EncodeError::IllSorted(format!("{op:?}"));
        let key = (
            match op {
                Op::Mod => Op::IntDiv,
                Op::MonthOf | Op::DayOf => Op::YearOf,
                other => other,
            },
            xs.clone(),
        );
        let defined = match self.calendar.get(&key) {
            Some(d) => d.clone(),
            None => {
                let d = Rc::new(match (op, xs.as_slice()) {
                    (Op::IntDiv | Op::Mod, [a, b]) => z3_calendar::floor_div(ctx, a, b),
                    (Op::YearOf | Op::MonthOf | Op::DayOf, [z]) => z3_calendar::civil(ctx, z),
                    (Op::DaysInMonth, [y, m]) => z3_calendar::days_in_month(ctx, y, m),
                    (Op::DayNumber, [y, m, d]) => z3_calendar::day_number(ctx, y, m, d),
                    _ => return Err(bad()),
                });
                self.calendar.insert(key, d.clone());
                d
            }
        };
        self.definitions.push(defined.definition.clone());
        let index = match op {
            Op::Mod | Op::MonthOf => 1,
            Op::DayOf => 2,
            _ => 0,
        };
        defined.values.get(index).cloned().ok_or_else(bad)
    }

    fn encode_bool(&mut self, t: &Term) -> Result<Bool<'static>, EncodeError> {
        self.encode(t)?
            .as_bool()
            .ok_or_else(|| EncodeError::IllSorted(t.to_string()))
    }

    pub(crate) fn encode_int(&mut self, t: &Term) -> Result<Int<'static>, EncodeError> {
        self.encode(t)?
            .as_int()
            .ok_or_else(|| EncodeError::IllSorted(t.to_string()))
    }

    fn encode_real(&mut self, t: &Term) -> Result<Real<'static>, EncodeError> {
        let d = self.encode(t)?;
        if let Some(i) = d.as_int() {
            return Ok(Real::from_int(&i));
        }
        d.as_real()
            .ok_or_else(|| EncodeError::IllSorted(t.to_string()))
    }

    /// Encodes a term (memoised on the shared node).
    fn encode(&mut self, t: &Term) -> Result<Dynamic<'static>, EncodeError> {
        let key = Rc::as_ptr(t) as usize;
        let turnovers = self.cache.turnovers();
        let (d, defs) = match self.cache.get(&key) {
            Some((_, d, defs)) => {
                self.definitions.extend(defs.iter().cloned());
                (d, None)
            }
            None => {
                let start = self.definitions.len();
                let d = self.encode_node(t)?;
                let defs: Rc<[Bool<'static>]> = self.definitions[start..].into();
                (d, Some(defs))
            }
        };
        if let Some(defs) = defs {
            self.cache.insert(key, (t.clone(), d.clone(), defs));
        }
        if self.cache.turnovers() != turnovers && self.calendar.len() >= CACHE_GENERATION {
            // Parts of day numbers no longer in use go with their terms (a part still in use
            // gets fresh constants and a new definition).
            self.calendar.clear();
        }
        Ok(d)
    }

    fn encode_node(&mut self, t: &Term) -> Result<Dynamic<'static>, EncodeError> {
        let ctx = self.ctx();
        let bad = || EncodeError::IllSorted(t.to_string());
        Ok(match &**t {
            TermNode::Var(v, k) => {
                let name = format!("v{}", v.0);
                match k {
                    Kind::Bool => Dynamic::from_ast(&Bool::new_const(ctx, name)),
                    Kind::Int => Dynamic::from_ast(&Int::new_const(ctx, name)),
                    Kind::Real => Dynamic::from_ast(&Real::new_const(ctx, name)),
                }
            }
            TermNode::Bool(b) => Dynamic::from_ast(&Bool::from_bool(ctx, *b)),
            TermNode::Int(s) => Dynamic::from_ast(
                &Int::from_str(ctx, s).ok_or_else(|| EncodeError::BadConstant(s.clone()))?,
            ),
            TermNode::Real(n, d) => Dynamic::from_ast(
                &Real::from_real_str(ctx, n, d)
                    .ok_or_else(|| EncodeError::BadConstant(format!("{n}/{d}")))?,
            ),
            TermNode::App(op, args) => {
                let arg = |i: usize| args.get(i).ok_or_else(bad);
                match op {
                    Op::Not => Dynamic::from_ast(&self.encode_bool(arg(0)?)?.not()),
                    Op::And | Op::Or => {
                        let parts = args
                            .iter()
                            .map(|a| self.encode_bool(a))
                            .collect::<Result<Vec<_>, _>>()?;
                        let refs: Vec<&Bool<'static>> = parts.iter().collect();
                        if *op == Op::And {
                            Dynamic::from_ast(&Bool::and(ctx, &refs))
                        } else {
                            Dynamic::from_ast(&Bool::or(ctx, &refs))
                        }
                    }
                    Op::Xor => {
                        let a = self.encode_bool(arg(0)?)?;
                        let b = self.encode_bool(arg(1)?)?;
                        Dynamic::from_ast(&a.xor(&b))
                    }
                    Op::Add | Op::Sub | Op::Mul | Op::Neg => {
                        self.encode_arith(*op, t.kind(), args).map_err(|_| bad())?
                    }
                    Op::Div => {
                        let a = self.encode_real(arg(0)?)?;
                        let b = self.encode_real(arg(1)?)?;
                        Dynamic::from_ast(&a.div(&b))
                    }
                    Op::ToReal => Dynamic::from_ast(&self.encode_real(arg(0)?)?),
                    Op::Round | Op::Truncate => {
                        // Over integers when the decimal is a fraction of integers.
                        if let Some(f) = self.fraction(arg(0)?)? {
                            return Ok(Dynamic::from_ast(&self.rounded(*op, f)));
                        }
                        let q = self.encode_real(arg(0)?)?;
                        let zero = Real::from_real(ctx, 0, 1);
                        let half = if *op == Op::Round {
                            Real::from_real(ctx, 1, 2)
                        } else {
                            zero.clone()
                        };
                        let pos = Real::add(ctx, &[&q, &half]).to_int();
                        let neg = Real::add(ctx, &[&q.unary_minus(), &half])
                            .to_int()
                            .unary_minus();
                        Dynamic::from_ast(&q.ge(&zero).ite(&pos, &neg))
                    }
                    Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                        let (a, b) = (arg(0)?, arg(1)?);
                        if a.kind() == Kind::Real || b.kind() == Kind::Real {
                            if let Some(c) = self.compared(*op, a, b)? {
                                return Ok(Dynamic::from_ast(&c));
                            }
                            let x = self.encode_real(a)?;
                            let y = self.encode_real(b)?;
                            Dynamic::from_ast(&match op {
                                Op::Lt => x.lt(&y),
                                Op::Le => x.le(&y),
                                Op::Gt => x.gt(&y),
                                _ => x.ge(&y),
                            })
                        } else {
                            let x = self.encode_int(a)?;
                            let y = self.encode_int(b)?;
                            Dynamic::from_ast(&match op {
                                Op::Lt => x.lt(&y),
                                Op::Le => x.le(&y),
                                Op::Gt => x.gt(&y),
                                _ => x.ge(&y),
                            })
                        }
                    }
                    Op::Eq => {
                        let (a, b) = (arg(0)?, arg(1)?);
                        if a.kind() == Kind::Real || b.kind() == Kind::Real {
                            if let Some(c) = self.compared(*op, a, b)? {
                                return Ok(Dynamic::from_ast(&c));
                            }
                            let x = self.encode_real(a)?;
                            let y = self.encode_real(b)?;
                            Dynamic::from_ast(&x._eq(&y))
                        } else {
                            let x = self.encode(a)?;
                            let y = self.encode(b)?;
                            Dynamic::from_ast(&x._eq(&y))
                        }
                    }
                    Op::IntDiv
                    | Op::Mod
                    | Op::YearOf
                    | Op::MonthOf
                    | Op::DayOf
                    | Op::DaysInMonth
                    | Op::DayNumber => {
                        if matches!(op, Op::IntDiv | Op::Mod)
                            && !matches!(args.get(1).map(|b| &**b), Some(TermNode::Int(k)) if !k.starts_with('-') && k != "0")
                        {
                            return Err(bad());
                        }
                        Dynamic::from_ast(&self.calendar_op(*op, args)?)
                    }
                    Op::Ite => {
                        let c = self.encode_bool(arg(0)?)?;
                        let x = self.encode(arg(1)?)?;
                        let y = self.encode(arg(2)?)?;
                        Dynamic::from_ast(&c.ite(&x, &y))
                    }
                }
            }
        })
    }

    fn encode_arith(
        &mut self,
        op: Op,
        kind: Kind,
        args: &[Term],
    ) -> Result<Dynamic<'static>, EncodeError> {
        let ctx = self.ctx();
        if kind == Kind::Real {
            let xs = args
                .iter()
                .map(|a| self.encode_real(a))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Real<'static>> = xs.iter().collect();
            let first = xs.first().ok_or(EncodeError::IllSorted("arity".into()))?;
            Ok(Dynamic::from_ast(&match op {
                Op::Add => Real::add(ctx, &refs),
                Op::Sub => Real::sub(ctx, &refs),
                Op::Mul => Real::mul(ctx, &refs),
                _ => first.unary_minus(),
            }))
        } else {
            let xs = args
                .iter()
                .map(|a| self.encode_int(a))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Int<'static>> = xs.iter().collect();
            let first = xs.first().ok_or(EncodeError::IllSorted("arity".into()))?;
            Ok(Dynamic::from_ast(&match op {
                Op::Add => Int::add(ctx, &refs),
                Op::Sub => Int::sub(ctx, &refs),
                Op::Mul => Int::mul(ctx, &refs),
                _ => first.unary_minus(),
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catala::term::{app, int_const, var};

    #[test]
    fn the_parts_of_a_date_share_one_definition_and_terms_are_encoded_once() {
        let mut e = Encoder::new();
        let z = var(VarId(0), Kind::Int);
        let year = app(
            Op::Eq,
            vec![app(Op::YearOf, vec![z.clone()]), int_const("2024")],
        );
        let month = app(
            Op::Eq,
            vec![app(Op::MonthOf, vec![z.clone()]), int_const("3")],
        );
        // The definition of the civil date of z, then the equation.
        let a = e.assertion(&year).unwrap_or_default();
        let b = e.assertion(&month).unwrap_or_default();
        assert_eq!((a.len(), b.len()), (2, 2));
        assert_eq!(a[0], b[0], "one definition for the year and the month of z");
        assert_eq!(e.calendar.len(), 1);
        // The same node again: from the cache, with its definition.
        let before = e.cache.len();
        assert_eq!(e.assertion(&year).unwrap_or_default(), a);
        assert_eq!(e.cache.len(), before);
        // The same term built anew (as a later run builds it) is the same node: from the
        // cache too.
        let rebuilt = app(
            Op::Eq,
            vec![
                app(Op::YearOf, vec![var(VarId(0), Kind::Int)]),
                int_const("2024"),
            ],
        );
        assert_eq!(e.assertion(&rebuilt).unwrap_or_default(), a);
        assert_eq!(e.cache.len(), before);
        // A division by a variable is not encoded (only by positive constants).
        let bad = app(
            Op::Eq,
            vec![app(Op::IntDiv, vec![z.clone(), z]), int_const("1")],
        );
        assert!(matches!(e.assertion(&bad), Err(EncodeError::IllSorted(_))));
    }
}
