//! List operations of dcalc (map, filter, exists, for all, fold, sums, extrema, membership):
//! each element is bound to the operation's binder slot in the current frame, and every
//! per-element decision goes through the companion's branch hook, as does the length of each
//! list an operation goes through (`BranchEvent::ListLength`).

use super::companion::{BranchEvent, Companion, Composite, Projection};
use super::error::RuntimeErrorKind;
use super::interpreter::{EvalResult, Frame, Interpreter, Tracked};
use crate::runtime::Value;
use catala_ir::dcalc::{AggregateOp, BinaryOp, Expr, ExprKind, SumType};
use catala_syntax::Span;

impl<C: Companion> Interpreter<'_, C> {
    fn element(&mut self, list: &Tracked<C>, i: usize) -> Tracked<C> {
        let v = match &list.0 {
            Value::List(items) => items.get(i).cloned().unwrap_or(Value::Unit),
            _ => Value::Unit,
        };
        let c = C::project(
            &mut self.session,
            Projection::ListElement(i as u32),
            (&list.0, &list.1),
            &v,
        );
        (v, c)
    }

    fn eval_list(&mut self, e: &Expr, fr: &Frame<C>) -> EvalResult<(Tracked<C>, usize)> {
        let l = self.eval(e, fr)?;
        match &l.0 {
            Value::List(items) => {
                let n = items.len();
                C::branch(
                    &mut self.session,
                    BranchEvent::ListLength {
                        span: e.span,
                        list: &l.1,
                        length: n,
                    },
                );
                Ok((l, n))
            }
            _ => Err(self.internal(e.span)),
        }
    }

    fn list_condition(&mut self, cond: &Expr, fr: &Frame<C>) -> EvalResult<bool> {
        let (taken, c) = self.eval_bool(cond, fr)?;
        C::branch(
            &mut self.session,
            BranchEvent::ListCondition {
                span: cond.span,
                condition: &c,
                taken,
            },
        );
        Ok(taken)
    }

    fn collect_list(&mut self, items: Vec<Tracked<C>>) -> Tracked<C> {
        let (values, comps): (Vec<Value>, Vec<C>) = items.into_iter().unzip();
        let v = Value::List(values.into());
        let c = C::compose(&mut self.session, Composite::List, comps, &v);
        (v, c)
    }

    pub(crate) fn eval_list_op(&mut self, e: &Expr, fr: &Frame<C>) -> EvalResult<Tracked<C>> {
        match &e.kind {
            ExprKind::ListZip(lists) => {
                let mut evaluated = Vec::with_capacity(lists.len());
                for l in lists {
                    evaluated.push(self.eval_list(l, fr)?);
                }
                let n = evaluated.first().map_or(0, |(_, n)| *n);
                if evaluated.iter().any(|(_, m)| *m != n) {
                    return Err(self.error(RuntimeErrorKind::NotSameLength, &[e.span]));
                }
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    let mut values = Vec::with_capacity(evaluated.len());
                    let mut comps = Vec::with_capacity(evaluated.len());
                    for (l, _) in &evaluated {
                        let (v, c) = self.element(l, i);
                        values.push(v);
                        comps.push(c);
                    }
                    let v = Value::Tuple(values.into());
                    let c = C::compose(&mut self.session, Composite::Tuple, comps, &v);
                    out.push((v, c));
                }
                Ok(self.collect_list(out))
            }
            ExprKind::ListMap { binder, list, body } => {
                let (l, n) = self.eval_list(list, fr)?;
                let mut out = Vec::with_capacity(n);
                for i in 0..n {
                    let x = self.element(&l, i);
                    self.set(fr, *binder, x);
                    out.push(self.eval(body, fr)?);
                }
                Ok(self.collect_list(out))
            }
            ExprKind::ListFilter { binder, list, cond } => {
                let (l, n) = self.eval_list(list, fr)?;
                let mut out = Vec::new();
                for i in 0..n {
                    let x = self.element(&l, i);
                    self.set(fr, *binder, x.clone());
                    if self.list_condition(cond, fr)? {
                        out.push(x);
                    }
                }
                Ok(self.collect_list(out))
            }
            ExprKind::ListFind {
                binder,
                list,
                cond,
                option,
            } => {
                let (l, n) = self.eval_list(list, fr)?;
                for i in 0..n {
                    let x = self.element(&l, i);
                    self.set(fr, *binder, x.clone());
                    if self.list_condition(cond, fr)? {
                        let v = Value::new_enum(option.0, 1, x.0.clone());
                        let c = C::compose(
                            &mut self.session,
                            Composite::Enum {
                                enum_id: option.0,
                                case: 1,
                            },
                            vec![x.1],
                            &v,
                        );
                        return Ok((v, c));
                    }
                }
                Ok(self.constant(Value::new_enum(option.0, 0, Value::Unit)))
            }
            ExprKind::ListExists { binder, list, cond }
            | ExprKind::ListForAll { binder, list, cond } => {
                let exists = matches!(e.kind, ExprKind::ListExists { .. });
                let (l, n) = self.eval_list(list, fr)?;
                let mut result = !exists;
                for i in 0..n {
                    let x = self.element(&l, i);
                    self.set(fr, *binder, x);
                    if self.list_condition(cond, fr)? == exists {
                        result = exists;
                        break;
                    }
                }
                Ok(self.constant(Value::Bool(result)))
            }
            ExprKind::ListFold {
                binder,
                acc,
                list,
                init,
                step,
            } => {
                let (l, n) = self.eval_list(list, fr)?;
                let mut a = self.eval(init, fr)?;
                for i in 0..n {
                    let x = self.element(&l, i);
                    self.set(fr, *binder, x);
                    self.set(fr, *acc, a);
                    a = self.eval(step, fr)?;
                }
                Ok(a)
            }
            ExprKind::ListAggregate { op, list, default } => {
                let (l, n) = self.eval_list(list, fr)?;
                if n == 0 {
                    return match (op, default) {
                        (AggregateOp::Sum(t), _) => {
                            let zero = match t {
                                SumType::Integer => Value::integer(0),
                                SumType::Decimal => Value::Decimal(crate::runtime::Decimal::ZERO),
                                SumType::Money => Value::money_cents(0),
                                SumType::Duration => {
                                    Value::Duration(crate::runtime::Duration::default())
                                }
                            };
                            Ok(self.constant(zero))
                        }
                        (_, Some(d)) => self.eval(d, fr),
                        (_, None) => Err(self.error(RuntimeErrorKind::ListEmpty, &[list.span])),
                    };
                }
                let mut acc = self.element(&l, 0);
                for i in 1..n {
                    let x = self.element(&l, i);
                    acc = match op {
                        AggregateOp::Sum(t) => {
                            let add = match t {
                                SumType::Integer => BinaryOp::AddIntInt,
                                SumType::Decimal => BinaryOp::AddDecDec,
                                SumType::Money => BinaryOp::AddMonMon,
                                SumType::Duration => BinaryOp::AddDurDur,
                            };
                            self.binary(add, acc, x, (e.span, e.span), None)?
                        }
                        AggregateOp::Maximum(t) => {
                            self.keep_extremum(BinaryOp::Gt(*t), acc, x, e.span)?
                        }
                        AggregateOp::Minimum(t) => {
                            self.keep_extremum(BinaryOp::Lt(*t), acc, x, e.span)?
                        }
                    };
                }
                Ok(acc)
            }
            ExprKind::ListArgExtremum {
                maximum,
                key_type,
                binder,
                list,
                key,
                default,
            } => {
                let (l, n) = self.eval_list(list, fr)?;
                if n == 0 {
                    return match default {
                        Some(d) => self.eval(d, fr),
                        None => Err(self.error(RuntimeErrorKind::ListEmpty, &[list.span])),
                    };
                }
                let cmp = if *maximum {
                    BinaryOp::Gt(*key_type)
                } else {
                    BinaryOp::Lt(*key_type)
                };
                let mut best = self.element(&l, 0);
                self.set(fr, *binder, best.clone());
                let mut best_key = self.eval(key, fr)?;
                for i in 1..n {
                    let x = self.element(&l, i);
                    self.set(fr, *binder, x.clone());
                    let k = self.eval(key, fr)?;
                    let keep = self.compare_branch(cmp, best_key.clone(), k.clone(), e.span)?;
                    if !keep {
                        best = x;
                        best_key = k;
                    }
                }
                Ok(best)
            }
            ExprKind::ListSort {
                binder,
                list,
                keys,
                descending,
            } => {
                let (l, n) = self.eval_list(list, fr)?;
                let mut keyed: Vec<(Vec<Value>, Tracked<C>)> = Vec::with_capacity(n);
                let mut key_companions: Vec<C> = Vec::new();
                for i in 0..n {
                    let x = self.element(&l, i);
                    let key = match binder {
                        None => {
                            key_companions.push(x.1.clone());
                            vec![x.0.clone()]
                        }
                        Some(b) => {
                            self.set(fr, *b, x.clone());
                            let mut ks = Vec::with_capacity(keys.len());
                            for k in keys {
                                let (v, c) = self.eval(k, fr)?;
                                key_companions.push(c);
                                ks.push(v);
                            }
                            ks
                        }
                    };
                    keyed.push((key, x));
                }
                // The order depends on the keys' values: a symbolic companion cannot follow it.
                let refs: Vec<&C> = key_companions.iter().collect();
                C::opaque_call(&mut self.session, &refs);
                let mut failed = false;
                keyed.sort_by(|(a, _), (b, _)| {
                    let mut ord = std::cmp::Ordering::Equal;
                    for (x, y) in a.iter().zip(b) {
                        match x.compare(y) {
                            Ok(std::cmp::Ordering::Equal) => continue,
                            Ok(o) => {
                                ord = o;
                                break;
                            }
                            Err(_) => {
                                failed = true;
                                break;
                            }
                        }
                    }
                    if *descending {
                        ord.reverse()
                    } else {
                        ord
                    }
                });
                if failed {
                    return Err(self.error(RuntimeErrorKind::Uncomparable, &[e.span]));
                }
                let parts: Vec<C> = keyed.iter().map(|(_, (_, c))| c.clone()).collect();
                let values: Vec<Value> = keyed.into_iter().map(|(_, (v, _))| v).collect();
                let v = Value::List(values.into());
                let c = C::compose(&mut self.session, Composite::List, parts, &v);
                Ok((v, c))
            }
            ExprKind::ListContains { list, elem } => {
                let (l, n) = self.eval_list(list, fr)?;
                let x = self.eval(elem, fr)?;
                let mut found = false;
                for i in 0..n {
                    let y = self.element(&l, i);
                    if self.compare_branch(BinaryOp::Eq, y, x.clone(), e.span)? {
                        found = true;
                        break;
                    }
                }
                Ok(self.constant(Value::Bool(found)))
            }
            _ => Err(self.internal(e.span)),
        }
    }

    /// Evaluates `lhs op rhs` (a comparison) and reports the decision as a list condition.
    fn compare_branch(
        &mut self,
        op: BinaryOp,
        lhs: Tracked<C>,
        rhs: Tracked<C>,
        span: Span,
    ) -> EvalResult<bool> {
        let (v, c) = self.binary(op, lhs, rhs, (span, span), None)?;
        let taken = matches!(v, Value::Bool(true));
        C::branch(
            &mut self.session,
            BranchEvent::ListCondition {
                span,
                condition: &c,
                taken,
            },
        );
        Ok(taken)
    }

    /// Catala's reduce for maximum/minimum: keep the accumulator if it is strictly better,
    /// otherwise take the new element (so the last of equal elements wins).
    fn keep_extremum(
        &mut self,
        cmp: BinaryOp,
        acc: Tracked<C>,
        x: Tracked<C>,
        span: Span,
    ) -> EvalResult<Tracked<C>> {
        if self.compare_branch(cmp, acc.clone(), x.clone(), span)? {
            Ok(acc)
        } else {
            Ok(x)
        }
    }
}
