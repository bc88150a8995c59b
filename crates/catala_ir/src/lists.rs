//! List expressions: literals, `map each`, `list of ... such that`, `exists`, `for all`,
//! aggregations (`sum T of`, `number of`, `maximum of`), arg-extremum, `combine all`, `contains`.
//! Binders become slots of the current frame.

use crate::dcalc::{AggregateOp, CmpType, Expr, ExprKind, Slot, SumType, Ty, UnaryOp};
use crate::diag::type_error;
use crate::expr::{ExprCtx, R};
use crate::ops::cmp_type;
use catala_syntax::ast::{self, Aggregate, ExprKind as S};
use catala_syntax::Span;

impl ExprCtx<'_> {
    /// Translates `list` and checks it is a list, giving its element type. With a tuple
    /// binder, a tuple of lists written in place (`map each (x, y) among (l1, l2)`) is
    /// traversed in parallel (its elements are tuples); any other operand is a list of tuples.
    fn list_operand(&mut self, list: &ast::Expr) -> R<(Expr, Ty)> {
        self.list_operand_hinted(list, None)
    }

    /// [`Self::list_operand`] with the expected element type, for an empty list literal.
    fn list_operand_hinted(&mut self, list: &ast::Expr, elem: Option<&Ty>) -> R<(Expr, Ty)> {
        // A tuple of lists written in place is traversed in parallel by any binder.
        if let S::Tuple(items) = &list.kind {
            if items.len() > 1 {
                let zipped = ast::Expr {
                    kind: S::ListZip(Box::new(list.clone())),
                    span: list.span,
                };
                return self.list_operand_hinted(&zipped, elem);
            }
        }
        if let S::ListZip(inner) = &list.kind {
            let S::Tuple(items) = &inner.kind else {
                return self.list_operand_hinted(inner, elem);
            };
            let mut lists = Vec::with_capacity(items.len());
            let mut elems = Vec::with_capacity(items.len());
            for it in items {
                let (x, t) = self.list_operand(it)?;
                lists.push(x);
                elems.push(t);
            }
            return Ok((
                Expr::new(ExprKind::ListZip(lists), list.span),
                Ty::Tuple(elems),
            ));
        }
        let hint = elem.map(|t| Ty::List(Box::new(t.clone())));
        let (x, t) = self.translate(list, hint.as_ref())?;
        match t {
            Ty::List(elem) => Ok((x, *elem)),
            // Catala's unification: the operand's type against a list of anything.
            other => Err(crate::diag::incompatible_types(
                &self.env.type_name(&other),
                list.span,
                "list of <any type>",
                list.span,
            )),
        }
    }

    /// Translates `body` with `var` bound to an element.
    fn with_binder(
        &mut self,
        var: &ast::Ident,
        elem: Ty,
        body: &ast::Expr,
        expected: Option<(&Ty, Span)>,
    ) -> R<(Slot, Expr, Ty)> {
        let slot = self.bind(&var.name, elem);
        let r = match expected {
            Some((t, origin)) => self.check(body, t, origin).map(|x| (x, t.clone())),
            None => self.translate(body, None),
        };
        self.unbind(1);
        let (x, t) = r?;
        Ok((slot, x, t))
    }

    /// The comparison of values of type `t` (structural for the types without an order of
    /// their own, as Catala's polymorphic comparisons; functions cannot be compared).
    fn comparable(&self, t: &Ty, span: Span) -> R<CmpType> {
        match t {
            Ty::Arrow(..) => Err(type_error(
                format!(
                    "Values of type {} cannot be compared",
                    self.env.type_name(t)
                ),
                span,
            )),
            _ => Ok(cmp_type(t).unwrap_or(CmpType::Structural)),
        }
    }

    pub(crate) fn translate_list_expr(
        &mut self,
        e: &ast::Expr,
        expect: Option<&Ty>,
    ) -> R<(Expr, Ty)> {
        let span = e.span;
        let mk = |kind| Expr::new(kind, span);
        match &e.kind {
            S::List(items) => {
                let hint = match expect {
                    Some(Ty::List(t)) => Some((**t).clone()),
                    _ => None,
                };
                let mut xs = Vec::new();
                let mut elem: Option<(Ty, Span)> = hint.map(|t| (t, span));
                for it in items {
                    match elem.take() {
                        Some((t, origin)) => {
                            let (x, xt) = self.translate(it, Some(&t))?;
                            if !xt.compatible(&t) {
                                return Err(crate::diag::incompatible_types(
                                    &self.env.type_name(&xt),
                                    it.span,
                                    &self.env.type_name(&t),
                                    origin,
                                ));
                            }
                            xs.push(x);
                            elem = Some((t.meet(&xt), origin));
                        }
                        None => {
                            let (x, t) = self.translate(it, None)?;
                            xs.push(x);
                            elem = Some((t, it.span));
                        }
                    }
                }
                let t = elem.map_or(Ty::Unknown, |(t, _)| t);
                Ok((mk(ExprKind::List(xs)), Ty::List(Box::new(t))))
            }
            S::ListMap { var, list, body } => {
                let (lx, elem) = self.list_operand(list)?;
                let (binder, bx, bt) = self.with_binder(var, elem, body, None)?;
                Ok((
                    mk(ExprKind::ListMap {
                        binder,
                        list: Box::new(lx),
                        body: Box::new(bx),
                    }),
                    Ty::List(Box::new(bt)),
                ))
            }
            S::ListFilter { var, list, cond } => {
                let (lx, elem) = self.list_operand(list)?;
                let (binder, cx, _) =
                    self.with_binder(var, elem.clone(), cond, Some((&Ty::Bool, cond.span)))?;
                Ok((
                    mk(ExprKind::ListFilter {
                        binder,
                        list: Box::new(lx),
                        cond: Box::new(cx),
                    }),
                    Ty::List(Box::new(elem)),
                ))
            }
            S::ListExists { var, list, cond } | S::ListForAll { var, list, cond } => {
                let (lx, elem) = self.list_operand(list)?;
                let (binder, cx, _) =
                    self.with_binder(var, elem, cond, Some((&Ty::Bool, cond.span)))?;
                let (list, cond) = (Box::new(lx), Box::new(cx));
                let kind = if matches!(e.kind, S::ListExists { .. }) {
                    ExprKind::ListExists { binder, list, cond }
                } else {
                    ExprKind::ListForAll { binder, list, cond }
                };
                Ok((mk(kind), Ty::Bool))
            }
            S::ListAggregate { op, list, default } => {
                let (lx, elem) = self.list_operand(list)?;
                if let Aggregate::Count = op {
                    return Ok((
                        mk(ExprKind::Unary {
                            op: UnaryOp::Length,
                            arg: Box::new(lx),
                        }),
                        Ty::Integer,
                    ));
                }
                let agg = match op {
                    Aggregate::Sum(t) => {
                        let st = self.env.resolve_type(self.module, t)?;
                        if st != elem {
                            return Err(crate::diag::incompatible_types(
                                &self.env.type_name(&elem),
                                list.span,
                                &self.env.type_name(&st),
                                t.span,
                            ));
                        }
                        let module_name = match st {
                            Ty::Integer => "Integer",
                            Ty::Decimal => "Decimal",
                            Ty::Money => "Money",
                            Ty::Duration => "Duration",
                            _ => "",
                        };
                        if !module_name.is_empty() && !self.env.ns(self.module).stdlib {
                            self.env.warn(
                                format!(
                                    "Deprecated: the construction 'sum <type> of' is deprecated \
                                     and will be removed in the next release.\nUse the function \
                                     '{module_name}.sum of' instead"
                                ),
                                span,
                            );
                        }
                        let sum = match st {
                            Ty::Integer => SumType::Integer,
                            Ty::Decimal => SumType::Decimal,
                            Ty::Money => SumType::Money,
                            Ty::Duration => SumType::Duration,
                            _ => {
                                return Err(type_error(
                                    format!(
                                        "It is impossible to sum values of type {} together.",
                                        self.env.type_name(&st)
                                    ),
                                    t.span,
                                ))
                            }
                        };
                        AggregateOp::Sum(sum)
                    }
                    Aggregate::Maximum => AggregateOp::Maximum(self.comparable(&elem, list.span)?),
                    Aggregate::Minimum => AggregateOp::Minimum(self.comparable(&elem, list.span)?),
                    Aggregate::Count => AggregateOp::Sum(SumType::Integer),
                };
                let default = match default {
                    Some(d) => Some(Box::new(self.check(d, &elem, list.span)?)),
                    None => None,
                };
                Ok((
                    mk(ExprKind::ListAggregate {
                        op: agg,
                        list: Box::new(lx),
                        default,
                    }),
                    elem,
                ))
            }
            S::ListArgExtremum {
                maximum,
                var,
                list,
                key,
                default,
            } => {
                let (lx, mut elem) = self.list_operand(list)?;
                // The default's type gives the elements' type of an empty list literal.
                let default = match default {
                    Some(d) => {
                        let (dx, dt) = self.translate(d, Some(&elem))?;
                        if !dt.compatible(&elem) {
                            return Err(crate::diag::incompatible_types(
                                &self.env.type_name(&dt),
                                d.span,
                                &self.env.type_name(&elem),
                                list.span,
                            ));
                        }
                        elem = elem.meet(&dt);
                        Some(Box::new(dx))
                    }
                    None => None,
                };
                let (binder, kx, kt) = self.with_binder(var, elem.clone(), key, None)?;
                let key_type = self.comparable(&kt, key.span)?;
                Ok((
                    mk(ExprKind::ListArgExtremum {
                        maximum: *maximum,
                        key_type,
                        binder,
                        list: Box::new(lx),
                        key: Box::new(kx),
                        default,
                    }),
                    elem,
                ))
            }
            S::ListFold {
                var,
                list,
                acc,
                init,
                step,
            } => {
                let (lx, elem) = self.list_operand(list)?;
                let (ix, it) = self.translate(init, expect)?;
                let acc_slot = self.bind(&acc.name, it.clone());
                let r = self.with_binder(var, elem, step, Some((&it, init.span)));
                self.unbind(1);
                let (binder, sx, _) = r?;
                Ok((
                    mk(ExprKind::ListFold {
                        binder,
                        acc: acc_slot,
                        list: Box::new(lx),
                        init: Box::new(ix),
                        step: Box::new(sx),
                    }),
                    it,
                ))
            }
            S::ListContains(list, elem) => {
                let (lx, et) = self.list_operand(list)?;
                let ex = self.check(elem, &et, list.span)?;
                Ok((
                    mk(ExprKind::ListContains {
                        list: Box::new(lx),
                        elem: Box::new(ex),
                    }),
                    Ty::Bool,
                ))
            }
            S::ListFind { var, list, cond } => {
                let hint = match expect {
                    Some(Ty::Option(t)) => Some((**t).clone()),
                    _ => None,
                };
                let (lx, elem) = self.list_operand_hinted(list, hint.as_ref())?;
                let (binder, cx, _) =
                    self.with_binder(var, elem.clone(), cond, Some((&Ty::Bool, cond.span)))?;
                Ok((
                    mk(ExprKind::ListFind {
                        binder,
                        list: Box::new(lx),
                        cond: Box::new(cx),
                        option: self.env.option_enum,
                    }),
                    Ty::Option(Box::new(elem)),
                ))
            }
            S::ListSort {
                var,
                list,
                keys,
                descending,
            } => {
                let (lx, elem) = self.list_operand(list)?;
                let (binder, kxs) = match var {
                    None => (None, Vec::new()),
                    Some(v) => {
                        let slot = self.bind(&v.name, elem.clone());
                        let mut kxs = Vec::new();
                        let mut failed = None;
                        for k in keys {
                            match self.translate(k, None) {
                                Ok((_, Ty::Arrow(..))) => {
                                    failed = Some(type_error(
                                        "Functions cannot be compared to sort a list",
                                        k.span,
                                    ));
                                    break;
                                }
                                Ok((kx, _)) => kxs.push(kx),
                                Err(e) => {
                                    failed = Some(e);
                                    break;
                                }
                            }
                        }
                        self.unbind(1);
                        if let Some(e) = failed {
                            return Err(e);
                        }
                        (Some(slot), kxs)
                    }
                };
                Ok((
                    mk(ExprKind::ListSort {
                        binder,
                        list: Box::new(lx),
                        keys: kxs,
                        descending: *descending,
                    }),
                    Ty::List(Box::new(elem)),
                ))
            }
            _ => Err(type_error("Unsupported expression", span)),
        }
    }
}
