//! A deliberately small reference evaluator of dcalc for the tests of this crate: integers,
//! booleans, structures, enumerations, closures, scopes and the default-calculus terms, written
//! straight from the semantics (CUTECat Fig. 1–2, Catala's interpreter) so that the lowering can be
//! checked without the real interpreter. Anything else is reported as unsupported.

#![allow(dead_code)]

use catala_ir::dcalc::{
    BinaryOp, Expr, ExprKind, Lambda, Literal, Program, ScopeId, Stmt, UnaryOp,
};
use catala_syntax::Span;
use num_bigint::BigInt;
use std::sync::Arc;

#[derive(Clone, Debug)]
pub enum Value {
    Int(BigInt),
    Bool(bool),
    Struct(Vec<Value>),
    Enum(u32, Option<Box<Value>>),
    Closure(Arc<Lambda>, Vec<Value>),
    List(Vec<Value>),
    Unset,
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Struct(a), Value::Struct(b)) => a == b,
            (Value::Enum(a, x), Value::Enum(b, y)) => a == b && x == y,
            (Value::Closure(a, _), Value::Closure(b, _)) => Arc::ptr_eq(a, b),
            (Value::List(a), Value::List(b)) => a == b,
            (Value::Unset, Value::Unset) => true,
            _ => false,
        }
    }
}

impl Value {
    pub fn int(v: i64) -> Value {
        Value::Int(BigInt::from(v))
    }
}

#[derive(Debug, PartialEq)]
pub enum EvalError {
    Conflict(Vec<Span>),
    NoValue(Span),
    Unsupported(String),
}

type R<T> = Result<T, EvalError>;

pub struct Evaluator<'p> {
    pub program: &'p Program,
    topdefs: Vec<Value>,
}

struct Frame<'a> {
    slots: Vec<Value>,
    args: &'a [Option<Value>],
}

impl<'p> Evaluator<'p> {
    pub fn new(program: &'p Program) -> R<Evaluator<'p>> {
        let mut ev = Evaluator {
            program,
            topdefs: vec![Value::Unset; program.topdefs.len()],
        };
        for id in &program.topdef_order {
            let d = program.topdef(*id);
            let mut frame = Frame {
                slots: vec![Value::Unset; d.frame_size as usize],
                args: &[],
            };
            let v = ev.value(&d.body, &mut frame)?;
            ev.topdefs[id.0 as usize] = v;
        }
        Ok(ev)
    }

    /// Runs a scope with arguments aligned with its inputs; returns the output structure fields.
    pub fn run(&self, scope: ScopeId, args: &[Option<Value>]) -> R<Vec<Value>> {
        let s = self.program.scope(scope);
        let mut frame = Frame {
            slots: vec![Value::Unset; s.frame_size as usize],
            args,
        };
        for stmt in &s.body {
            match stmt {
                Stmt::Define { slot, expr, .. } => {
                    let v = self.value(expr, &mut frame)?;
                    frame.slots[slot.index()] = v;
                }
                Stmt::CallSubScope {
                    slot, scope, args, ..
                } => {
                    let mut vals = Vec::new();
                    for a in args {
                        vals.push(match a {
                            Some(e) => self.default(e, &mut frame)?,
                            None => None,
                        });
                    }
                    let out = self.run(*scope, &vals)?;
                    frame.slots[slot.index()] = Value::Struct(out);
                }
                Stmt::Assert { expr, .. } => {
                    if self.value(expr, &mut frame)? != Value::Bool(true) {
                        return Err(EvalError::Unsupported("assertion failed".into()));
                    }
                }
            }
        }
        Ok(s.outputs
            .iter()
            .map(|o| frame.slots[o.slot.index()].clone())
            .collect())
    }

    /// Runs a scope by input names.
    pub fn run_named(&self, scope: &str, inputs: &[(&str, Value)]) -> R<Vec<(String, Value)>> {
        let id = self
            .program
            .scope_by_name(scope)
            .ok_or_else(|| EvalError::Unsupported(format!("no scope {scope}")))?;
        let s = self.program.scope(id);
        let args: Vec<Option<Value>> = s
            .inputs
            .iter()
            .map(|i| {
                inputs
                    .iter()
                    .find(|(n, _)| *n == i.name)
                    .map(|(_, v)| v.clone())
            })
            .collect();
        let out = self.run(id, &args)?;
        Ok(s.outputs.iter().map(|o| o.name.clone()).zip(out).collect())
    }

    /// Evaluates a default position: `None` is empty.
    fn default(&self, e: &Expr, f: &mut Frame<'_>) -> R<Option<Value>> {
        match &e.kind {
            ExprKind::Empty => Ok(None),
            ExprKind::ScopeArg(i) => Ok(f.args.get(*i as usize).cloned().flatten()),
            ExprKind::PureDefault(x) => Ok(Some(self.value(x, f)?)),
            ExprKind::Default {
                exceptions,
                justification,
                consequence,
            } => {
                let mut found: Vec<(Span, Value)> = Vec::new();
                for ex in exceptions {
                    if let Some(v) = self.default(ex, f)? {
                        found.push((ex.span, v));
                    }
                }
                match found.len() {
                    0 => match self.value(justification, f)? {
                        Value::Bool(true) => self.default(consequence, f),
                        _ => Ok(None),
                    },
                    1 => Ok(found.pop().map(|(_, v)| v)),
                    _ => Err(EvalError::Conflict(
                        found.into_iter().map(|(s, _)| s).collect(),
                    )),
                }
            }
            _ => Err(EvalError::Unsupported(format!(
                "not a default: {:?}",
                e.kind
            ))),
        }
    }

    fn value(&self, e: &Expr, f: &mut Frame<'_>) -> R<Value> {
        Ok(match &e.kind {
            ExprKind::Literal(Literal::Bool(b)) => Value::Bool(*b),
            ExprKind::Literal(Literal::Integer(i)) => Value::Int(i.clone()),
            ExprKind::Local(s) => f.slots[s.index()].clone(),
            ExprKind::TopDef(t) => self.topdefs[t.0 as usize].clone(),
            ExprKind::ErrorOnEmpty { expr, decl } => match self.default(expr, f)? {
                Some(v) => v,
                None => return Err(EvalError::NoValue(*decl)),
            },
            ExprKind::Let { slot, value, body } => {
                let v = self.value(value, f)?;
                f.slots[slot.index()] = v;
                self.value(body, f)?
            }
            ExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => match self.value(cond, f)? {
                Value::Bool(true) => self.value(then_branch, f)?,
                _ => self.value(else_branch, f)?,
            },
            ExprKind::Lambda(l) => Value::Closure(
                l.clone(),
                l.captures
                    .iter()
                    .map(|s| f.slots[s.index()].clone())
                    .collect(),
            ),
            ExprKind::Apply { func, args } => {
                let Value::Closure(l, captured) = self.value(func, f)? else {
                    return Err(EvalError::Unsupported("apply".into()));
                };
                let mut slots = vec![Value::Unset; l.frame_size as usize];
                for (i, v) in captured.into_iter().enumerate() {
                    slots[i] = v;
                }
                for (i, a) in args.iter().enumerate() {
                    slots[l.param_slot(i).index()] = self.value(a, f)?;
                }
                let mut inner = Frame { slots, args: &[] };
                self.value(&l.body, &mut inner)?
            }
            ExprKind::StructNew { fields, .. } => {
                Value::Struct(fields.iter().map(|x| self.value(x, f)).collect::<R<_>>()?)
            }
            ExprKind::StructField { expr, field, .. } => match self.value(expr, f)? {
                Value::Struct(fs) => fs[*field as usize].clone(),
                _ => return Err(EvalError::Unsupported("field".into())),
            },
            ExprKind::EnumInject { case, payload, .. } => Value::Enum(
                *case,
                match payload {
                    Some(p) => Some(Box::new(self.value(p, f)?)),
                    None => None,
                },
            ),
            ExprKind::Match { expr, arms, .. } => {
                let Value::Enum(case, payload) = self.value(expr, f)? else {
                    return Err(EvalError::Unsupported("match".into()));
                };
                let arm = &arms[case as usize];
                if let (Some(b), Some(p)) = (arm.binder, payload) {
                    f.slots[b.index()] = *p;
                }
                self.value(&arm.body, f)?
            }
            ExprKind::IsCase { expr, case, .. } => match self.value(expr, f)? {
                Value::Enum(c, _) => Value::Bool(c == *case),
                _ => return Err(EvalError::Unsupported("is case".into())),
            },
            ExprKind::List(items) => {
                Value::List(items.iter().map(|x| self.value(x, f)).collect::<R<_>>()?)
            }
            // Only the shape lowering produces for variables that may be empty: the element of a
            // list of at most one element, or the default.
            ExprKind::ListArgExtremum {
                binder,
                list,
                key,
                default,
                ..
            } => match self.value(list, f)? {
                Value::List(items) if items.len() == 1 => {
                    f.slots[binder.index()] = items[0].clone();
                    self.value(key, f)?;
                    items[0].clone()
                }
                Value::List(items) if items.is_empty() => match default {
                    Some(d) => self.value(d, f)?,
                    None => return Err(EvalError::Unsupported("empty list".into())),
                },
                _ => return Err(EvalError::Unsupported("arg extremum".into())),
            },
            ExprKind::ScopeCall { scope, args } => {
                let mut vals = Vec::new();
                for a in args {
                    vals.push(match a {
                        Some(x) => Some(self.value(x, f)?),
                        None => None,
                    });
                }
                Value::Struct(self.run(*scope, &vals)?)
            }
            ExprKind::Unary { op, arg } => {
                let v = self.value(arg, f)?;
                match (op, v) {
                    (UnaryOp::Not, Value::Bool(b)) => Value::Bool(!b),
                    (UnaryOp::MinusInt, Value::Int(i)) => Value::Int(-i),
                    (op, _) => return Err(EvalError::Unsupported(format!("{op:?}"))),
                }
            }
            ExprKind::Binary { op, lhs, rhs, .. } => {
                let a = self.value(lhs, f)?;
                let b = self.value(rhs, f)?;
                binary(*op, a, b)?
            }
            other => return Err(EvalError::Unsupported(format!("{other:?}"))),
        })
    }
}

fn binary(op: BinaryOp, a: Value, b: Value) -> R<Value> {
    use BinaryOp as B;
    Ok(match (op, a, b) {
        (B::And, Value::Bool(x), Value::Bool(y)) => Value::Bool(x && y),
        (B::Or, Value::Bool(x), Value::Bool(y)) => Value::Bool(x || y),
        (B::AddIntInt, Value::Int(x), Value::Int(y)) => Value::Int(x + y),
        (B::SubIntInt, Value::Int(x), Value::Int(y)) => Value::Int(x - y),
        (B::MultIntInt, Value::Int(x), Value::Int(y)) => Value::Int(x * y),
        (B::Lt(_), Value::Int(x), Value::Int(y)) => Value::Bool(x < y),
        (B::Le(_), Value::Int(x), Value::Int(y)) => Value::Bool(x <= y),
        (B::Gt(_), Value::Int(x), Value::Int(y)) => Value::Bool(x > y),
        (B::Ge(_), Value::Int(x), Value::Int(y)) => Value::Bool(x >= y),
        (B::Eq, x, y) => Value::Bool(x == y),
        (B::Neq, x, y) => Value::Bool(x != y),
        (op, _, _) => return Err(EvalError::Unsupported(format!("{op:?}"))),
    })
}
