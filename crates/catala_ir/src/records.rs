//! Structures, tuples and scopes in expressions: field access (including a sub-scope's outputs,
//! `sub.x`), structure literals and `but replace`, tuple destructuring, and direct scope calls
//! `output of S with { ... }` with their input checks.

use crate::dcalc::{Expr, ExprKind, Ty};
use crate::diag::{name_error, name_error_at, type_error};
use crate::expr::{Dep, ExprCtx, R};
use catala_syntax::ast::{self, ExprKind as S};
use catala_syntax::Span;

impl ExprCtx<'_> {
    pub(crate) fn field(
        &mut self,
        inner: &ast::Expr,
        qualifier: Option<&ast::QualName>,
        field: &ast::Ident,
        span: Span,
    ) -> R<(Expr, Ty)> {
        // `sub.x`: an output of a sub-scope.
        if let (S::Var(id), Some((_, sig))) = (&inner.kind, self.scope) {
            let is_local = self.locals.iter().any(|l| l.name == id.name);
            if let (false, Some(&si)) = (is_local, sig.sub_by_name.get(&id.name)) {
                let sub = &sig.subscopes[si];
                let callee = self.env.scope(sub.scope);
                let out = &self.env.structs[callee.output_struct.0 as usize];
                let Some(fi) = out.fields.iter().position(|f| f.name == field.name) else {
                    return Err(name_error(
                        format!(
                            "Variable {} is not a declared output of scope {}.",
                            field.name, callee.name
                        ),
                        span,
                    ));
                };
                self.dep(Dep::Sub(si), inner.span);
                let s = self.frames.access(0, sub.slot);
                let ty = out.fields[fi].ty.clone();
                return Ok((
                    Expr::new(
                        ExprKind::StructField {
                            expr: Box::new(Expr::new(ExprKind::Local(s), inner.span)),
                            id: callee.output_struct,
                            field: fi as u32,
                        },
                        span,
                    ),
                    ty,
                ));
            }
        }
        let (x, t) = self.translate(inner, None)?;
        let Ty::Struct(sid) = t else {
            return Err(type_error(
                format!(
                    "This expression has type {}, it has no field {}",
                    self.tyname(&t),
                    field.name
                ),
                inner.span,
            ));
        };
        let def = &self.env.structs[sid.0 as usize];
        // `e.S.f`: the structure qualifier must name a structure.
        if let Some(q) = qualifier {
            self.env.lookup_struct(self.module, q)?;
        }
        let Some(fi) = def.fields.iter().position(|f| f.name == field.name) else {
            let elsewhere: Vec<&str> = self
                .env
                .structs
                .iter()
                .filter(|s| s.fields.iter().any(|f| f.name == field.name))
                .map(|s| s.name.as_str())
                .collect();
            let message = if elsewhere.is_empty() {
                format!(
                    "Field \"{}\" does not belong to structure \"{}\".",
                    field.name, def.name
                )
            } else {
                format!(
                    "Field {} does not belong to structure {} (however, structure {} defines \
                     it).",
                    field.name,
                    def.name,
                    elsewhere.join(", ")
                )
            };
            let mut d = name_error(message, span);
            let names: Vec<&str> = def.fields.iter().map(|f| f.name.as_str()).collect();
            if let Some(hint) = catala_syntax::suggestion(&field.name, names, true) {
                d = d.with_label(catala_syntax::Label::note_only(hint));
            }
            return Err(d);
        };
        Ok((
            Expr::new(
                ExprKind::StructField {
                    expr: Box::new(x),
                    id: sid,
                    field: fi as u32,
                },
                span,
            ),
            def.fields[fi].ty.clone(),
        ))
    }

    pub(crate) fn struct_lit(
        &mut self,
        name: &ast::QualName,
        fields: &[(ast::Ident, ast::Expr)],
        span: Span,
    ) -> R<(Expr, Ty)> {
        let sid = self.env.lookup_struct(self.module, name)?;
        let def = &self.env.structs[sid.0 as usize];
        let mut slots: Vec<Option<Expr>> = vec![None; def.fields.len()];
        for (f, e) in fields {
            let Some(fi) = def.fields.iter().position(|d| d.name == f.name) else {
                return Err(name_error_at(
                    format!(
                        "This identifier should refer to a field of struct {}.",
                        def.name
                    ),
                    &[f.span, def.span],
                ));
            };
            if slots[fi].is_some() {
                return Err(name_error(
                    format!("The field {} has been defined twice.", f.name),
                    f.span,
                ));
            }
            let origin = self.env.field_type_spans[sid.0 as usize][fi];
            slots[fi] = Some(self.check(e, &def.fields[fi].ty, origin)?);
        }
        let missing: Vec<&str> = def
            .fields
            .iter()
            .zip(slots.iter())
            .filter(|(_, s)| s.is_none())
            .map(|(f, _)| f.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(name_error(
                format!(
                    "Missing field(s) for structure {}:\n{}.",
                    def.name,
                    missing.join(", ")
                ),
                span,
            ));
        }
        let fields = slots.into_iter().flatten().collect();
        Ok((
            Expr::new(ExprKind::StructNew { id: sid, fields }, span),
            Ty::Struct(sid),
        ))
    }

    pub(crate) fn struct_replace(
        &mut self,
        base: &ast::Expr,
        fields: &[(ast::Ident, ast::Expr)],
        span: Span,
    ) -> R<(Expr, Ty)> {
        let (bx, bt) = self.translate(base, None)?;
        let Ty::Struct(sid) = bt else {
            return Err(type_error(
                format!(
                    "This expression has type {}, not a structure",
                    self.tyname(&bt)
                ),
                base.span,
            ));
        };
        let def = &self.env.structs[sid.0 as usize];
        let tmp = self.frames.alloc();
        let mut out: Vec<Option<Expr>> = vec![None; def.fields.len()];
        for (f, e) in fields {
            let Some(fi) = def.fields.iter().position(|d| d.name == f.name) else {
                return Err(name_error(
                    format!("Field {} does not belong to structure {}", f.name, def.name),
                    f.span,
                ));
            };
            if out[fi].is_some() {
                return Err(name_error(
                    format!("Duplicate redefinition of field {}.", f.name),
                    f.span,
                ));
            }
            let origin = self.env.field_type_spans[sid.0 as usize][fi];
            out[fi] = Some(self.check(e, &def.fields[fi].ty, origin)?);
        }
        let fields = out
            .into_iter()
            .enumerate()
            .map(|(i, x)| {
                x.unwrap_or_else(|| {
                    Expr::new(
                        ExprKind::StructField {
                            expr: Box::new(Expr::new(ExprKind::Local(tmp), base.span)),
                            id: sid,
                            field: i as u32,
                        },
                        base.span,
                    )
                })
            })
            .collect();
        Ok((
            Expr::new(
                ExprKind::Let {
                    slot: tmp,
                    value: Box::new(bx),
                    body: Box::new(Expr::new(ExprKind::StructNew { id: sid, fields }, span)),
                },
                span,
            ),
            Ty::Struct(sid),
        ))
    }

    pub(crate) fn scope_call(
        &mut self,
        name: &ast::QualName,
        args: &[(ast::Ident, ast::Expr)],
        span: Span,
    ) -> R<(Expr, Ty)> {
        if self.scope.is_none() {
            return Err(name_error(
                "Scope calls are not allowed outside of a scope.",
                span,
            ));
        }
        let callee_id = self.env.lookup_scope(self.module, name)?;
        let callee = self.env.scope(callee_id);
        let no_input = |arg: &ast::Ident| {
            let d = name_error_at(
                format!("Scope {} has no input variable {}.", callee.name, arg.name),
                &[arg.span, callee.span],
            );
            let mut inputs: Vec<&str> = callee.decls.iter().map(|d| d.name.as_str()).collect();
            inputs.sort_unstable();
            match catala_syntax::suggestion_of(&inputs) {
                Some(hint) => d.with_label(catala_syntax::Label::note_only(hint)),
                None => d,
            }
        };
        // Names that are no variable of the callee at all come first, then missing inputs,
        // then variables that are not inputs (as Catala checks them).
        if let Some((arg, _)) = args
            .iter()
            .find(|(a, _)| !callee.decl_by_name.contains_key(&a.name))
        {
            return Err(no_input(arg));
        }
        for &d in &callee.inputs {
            let decl = &callee.decls[d];
            if !args.iter().any(|(a, _)| a.name == decl.name)
                && decl.kind == crate::dcalc::InputKind::Input
            {
                return Err(name_error_at(
                    format!(
                        "Definition of input variable '{}' missing in this scope call",
                        decl.name
                    ),
                    &[span, decl.span],
                ));
            }
        }
        let mut out: Vec<Option<Expr>> = vec![None; callee.inputs.len()];
        for (arg, e) in args {
            let pos = callee
                .inputs
                .iter()
                .position(|&d| callee.decls[d].name == arg.name);
            let Some(i) = pos else {
                return Err(no_input(arg));
            };
            if out[i].is_some() {
                return Err(name_error(
                    format!(
                        "Duplicate definition of scope input variable '{}'.",
                        arg.name
                    ),
                    arg.span,
                ));
            }
            let decl = &callee.decls[callee.inputs[i]];
            let value = self.check(e, &decl.value_ty(), decl.ty_span)?;
            out[i] = Some(if decl.kind == crate::dcalc::InputKind::Context {
                crate::context::list_returning(self, value, decl)
            } else {
                value
            });
        }
        self.dep(Dep::Scope(callee_id), span);
        Ok((
            Expr::new(
                ExprKind::ScopeCall {
                    scope: callee_id,
                    args: out,
                },
                span,
            ),
            Ty::Struct(callee.output_struct),
        ))
    }

    /// `let (x, y) equals e in body`: binds each component through a temporary slot.
    pub(crate) fn let_tuple(
        &mut self,
        names: &[ast::Ident],
        value: &ast::Expr,
        body: &ast::Expr,
        expect: Option<&Ty>,
        span: Span,
    ) -> R<(Expr, Ty)> {
        let (vx, vt) = self.translate(value, None)?;
        let Ty::Tuple(ts) = &vt else {
            return Err(type_error(
                format!("This expression has type {}, not a tuple", self.tyname(&vt)),
                value.span,
            ));
        };
        if ts.len() != names.len() {
            // Catala unifies the value's type with a tuple of as many components as names, the
            // components beyond the value's unknown; the error is given at the body.
            let expected: Vec<String> = (0..names.len())
                .map(|i| {
                    ts.get(i)
                        .map_or("<any type>".to_string(), |t| self.tyname(t))
                })
                .collect();
            let names_span = match (names.first(), names.last()) {
                (Some(a), Some(b)) => a.span.to(b.span),
                _ => value.span,
            };
            return Err(crate::diag::incompatible_at(
                body.span,
                (&self.tyname(&vt), value.span),
                (&format!("({})", expected.join(", ")), names_span),
            ));
        }
        let tmp = self.frames.alloc();
        let mut slots = Vec::new();
        for (n, t) in names.iter().zip(ts.iter()) {
            slots.push(self.bind(&n.name, t.clone()));
        }
        let r = self.translate(body, expect);
        self.unbind(names.len());
        let (mut out, bt) = r?;
        for (i, slot) in slots.into_iter().enumerate().rev() {
            let get = Expr::new(
                ExprKind::TupleGet {
                    expr: Box::new(Expr::new(ExprKind::Local(tmp), value.span)),
                    index: i as u32,
                },
                value.span,
            );
            out = Expr::new(
                ExprKind::Let {
                    slot,
                    value: Box::new(get),
                    body: Box::new(out),
                },
                span,
            );
        }
        Ok((
            Expr::new(
                ExprKind::Let {
                    slot: tmp,
                    value: Box::new(vx),
                    body: Box::new(out),
                },
                span,
            ),
            bt,
        ))
    }
}
