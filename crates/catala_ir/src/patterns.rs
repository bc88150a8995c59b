//! Pattern matching on enumerations: `match e with pattern -- C content x: ... -- anything: ...`
//! becomes a dcalc `Match` with one arm per case (a final wildcard fills the missing cases), and
//! `e with pattern C [content x] [and cond]` becomes `IsCase` or a `Match` returning booleans.

use crate::dcalc::{EnumId, Expr, ExprKind, MatchArm, Ty};
use crate::diag::{name_error, name_error_at, type_error};
use crate::expr::{bool_lit, ExprCtx, R};
use catala_syntax::ast::{self, Pattern};
use catala_syntax::Span;

impl ExprCtx<'_> {
    pub(crate) fn matching(
        &mut self,
        scrutinee: &ast::Expr,
        arms: &[ast::MatchArm],
        expect: Option<&Ty>,
        span: Span,
    ) -> R<(Expr, Ty)> {
        let (sx, st) = self.translate(scrutinee, None)?;
        let Some((eid, content)) = self.enum_view(&st) else {
            return Err(type_error(
                format!(
                    "This expression has type {}, it cannot be matched on",
                    self.env.type_name(&st)
                ),
                scrutinee.span,
            ));
        };
        let n = self.env.enums[eid.0 as usize].cases.len();
        let mut bodies: Vec<Option<(Option<crate::dcalc::Slot>, Expr)>> = vec![None; n];
        let mut result: Option<(Ty, Span)> = None;
        let mut wildcard: Option<Expr> = None;
        let mut body_spans: Vec<Option<Span>> = vec![None; n];
        if let [ast::MatchArm {
            pattern: Pattern::Wildcard(_),
            span: arm_span,
            ..
        }] = arms
        {
            return Err(name_error(
                "Couldn't infer the enumeration name from lonely wildcard (wildcard cannot be \
                 used as single match case).",
                *arm_span,
            ));
        }
        for (i, arm) in arms.iter().enumerate() {
            match &arm.pattern {
                Pattern::Ctor { ctor, binding } => {
                    let (aeid, case) = self.env.resolve_ctor(self.module, ctor)?;
                    if aeid != eid {
                        return Err(name_error(
                            format!(
                                "This case matches a constructor of enumeration {} but previous \
                                 cases were matching constructors of enumeration {}.",
                                self.env.enums[eid.0 as usize].name,
                                self.env.enums[aeid.0 as usize].name
                            ),
                            ctor.span(),
                        ));
                    }
                    if let Some(first) = body_spans[case as usize] {
                        return Err(name_error_at(
                            format!("The constructor {} has been matched twice.", ctor.name.name),
                            &[arm.body.span, first],
                        ));
                    }
                    body_spans[case as usize] = Some(arm.body.span);
                    let payload = self.case_payload(eid, case, content.as_ref());
                    let binder = match (binding, payload) {
                        (Some(b), Some(t)) => Some((b, t)),
                        (Some(b), None) => {
                            return Err(type_error(
                                format!("The constructor {} has no content", ctor.name.name),
                                b.span,
                            ))
                        }
                        (None, _) => None,
                    };
                    let slot = binder.map(|(b, t)| self.bind(&b.name, t));
                    let r = self.arm_body(&arm.body, expect, &result);
                    if slot.is_some() {
                        self.unbind(1);
                    }
                    let (bx, bt) = r?;
                    result.get_or_insert((bt, arm.body.span));
                    bodies[case as usize] = Some((slot, bx));
                }
                Pattern::Wildcard(wspan) => {
                    if i + 1 != arms.len() {
                        return Err(name_error_at(
                            "Wildcard must be the last match case.",
                            &[arm.span, *wspan],
                        ));
                    }
                    let (bx, bt) = self.arm_body(&arm.body, expect, &result)?;
                    result.get_or_insert((bt, arm.body.span));
                    wildcard = Some(bx);
                }
            }
        }
        let mut out = Vec::with_capacity(n);
        for (case, body) in bodies.into_iter().enumerate() {
            match (body, &wildcard) {
                (Some((binder, body)), _) => out.push(MatchArm { binder, body }),
                (None, Some(w)) => out.push(MatchArm {
                    binder: None,
                    body: w.clone(),
                }),
                (None, None) => {
                    let e = &self.env.enums[eid.0 as usize];
                    return Err(name_error_at(
                        format!(
                            "The constructor {} of enum {} is missing from this pattern \
                             matching",
                            e.cases[case].name, e.name
                        ),
                        &[span],
                    ));
                }
            }
        }
        let Some((ty, _)) = result else {
            return Err(type_error("This pattern matching has no case", span));
        };
        Ok((
            Expr::new(
                ExprKind::Match {
                    expr: Box::new(sx),
                    id: eid,
                    arms: out,
                },
                span,
            ),
            ty,
        ))
    }

    /// The enumeration behind a type: itself, or the optional enumeration with the content type
    /// of an `optional of t`.
    pub(crate) fn enum_view(&self, t: &Ty) -> Option<(EnumId, Option<Ty>)> {
        match t {
            Ty::Enum(e) => Some((*e, None)),
            Ty::Option(inner) => Some((self.env.option_enum, Some((**inner).clone()))),
            _ => None,
        }
    }

    /// The payload type of `case` of `eid` (`content` for `Present` of an optional).
    pub(crate) fn case_payload(&self, eid: EnumId, case: u32, content: Option<&Ty>) -> Option<Ty> {
        match content {
            Some(t) if eid == self.env.option_enum => (case == 1).then(|| t.clone()),
            _ => self.env.enums[eid.0 as usize].cases[case as usize]
                .payload
                .clone(),
        }
    }

    fn arm_body(
        &mut self,
        body: &ast::Expr,
        expect: Option<&Ty>,
        previous: &Option<(Ty, Span)>,
    ) -> R<(Expr, Ty)> {
        match previous {
            Some((t, origin)) => {
                let t = t.clone();
                let x = self.check(body, &t, *origin)?;
                Ok((x, t))
            }
            None => self.translate(body, expect),
        }
    }

    pub(crate) fn test_ctor(
        &mut self,
        e: &ast::Expr,
        ctor: &ast::QualName,
        binding: Option<&ast::Ident>,
        and_cond: Option<&ast::Expr>,
        span: Span,
    ) -> R<(Expr, Ty)> {
        let (x, t) = self.translate(e, None)?;
        let (eid, case): (EnumId, u32) = self.env.resolve_ctor(self.module, ctor)?;
        let view = self.enum_view(&t);
        let content = view.as_ref().and_then(|(_, c)| c.clone());
        if view.map(|(e, _)| e) != Some(eid) {
            return Err(crate::diag::incompatible_types(
                &self.env.type_name(&t),
                e.span,
                &self.env.enums[eid.0 as usize].name,
                ctor.span(),
            ));
        }
        if binding.is_none() && and_cond.is_none() {
            return Ok((
                Expr::new(
                    ExprKind::IsCase {
                        expr: Box::new(x),
                        id: eid,
                        case,
                    },
                    span,
                ),
                Ty::Bool,
            ));
        }
        let payload = self.case_payload(eid, case, content.as_ref());
        let slot = match (binding, payload) {
            (Some(b), Some(pt)) => Some(self.bind(&b.name, pt)),
            (Some(b), None) => {
                return Err(type_error(
                    format!("The constructor {} has no content", ctor.name.name),
                    b.span,
                ))
            }
            (None, _) => None,
        };
        let cond = match and_cond {
            Some(c) => self.check(c, &Ty::Bool, c.span),
            None => Ok(bool_lit(true, span)),
        };
        if slot.is_some() {
            self.unbind(1);
        }
        let cond = cond?;
        let n = self.env.enums[eid.0 as usize].cases.len();
        let arms = (0..n)
            .map(|i| {
                if i as u32 == case {
                    MatchArm {
                        binder: slot,
                        body: cond.clone(),
                    }
                } else {
                    MatchArm {
                        binder: None,
                        body: bool_lit(false, span),
                    }
                }
            })
            .collect();
        Ok((
            Expr::new(
                ExprKind::Match {
                    expr: Box::new(x),
                    id: eid,
                    arms,
                },
                span,
            ),
            Ty::Bool,
        ))
    }
}
