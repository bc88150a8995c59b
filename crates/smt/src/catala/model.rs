//! A model Z3 gave, as the chain hands it on: the Z3 model, the values the model refiner
//! moved without asking Z3 (rounded inputs checked exactly), and where further rounding
//! queries are asked (the solver that answered, or the assertions of the fresh solver that
//! did). It holds its own reference to the thread's Z3 context, declared last, so it can
//! outlive the chain that produced it.

use super::query::ModelValue;
use super::term::{Kind, VarId};
use crate::context::ContextHandle;
use std::rc::Rc;
use z3::ast::{Bool, Int, Real};
use z3::{Model, Solver};

/// Where the rounding queries of a model are asked.
pub(crate) enum Origin {
    /// The solver that found the model, still holding its query (the assumptions of a
    /// rounding query go on top of it).
    Solver(Rc<Solver<'static>>),
    /// A fresh solver's assertions (each rounding query is a fresh solver too).
    Fresh(Rc<[Bool<'static>]>),
}

/// A satisfiable answer's model from Z3.
pub(crate) struct Z3Model {
    pub(crate) model: Model<'static>,
    pub(crate) origin: Origin,
    /// Values that replace the model's.
    pub(crate) overrides: Vec<(VarId, i128)>,
    context: ContextHandle,
}

impl Z3Model {
    pub(crate) fn new(model: Model<'static>, origin: Origin, context: ContextHandle) -> Z3Model {
        Z3Model {
            model,
            origin,
            overrides: Vec::new(),
            context,
        }
    }

    /// The value of a variable (completed with defaults when unconstrained).
    pub(crate) fn value(&self, v: VarId, kind: Kind) -> Option<ModelValue> {
        if let Some((_, x)) = self.overrides.iter().find(|(u, _)| *u == v) {
            return Some(ModelValue::Int(x.to_string()));
        }
        let ctx = self.context.get();
        let name = format!("v{}", v.0);
        let model = &self.model;
        match kind {
            Kind::Bool => model
                .eval(&Bool::new_const(ctx, name), true)?
                .as_bool()
                .map(ModelValue::Bool),
            Kind::Int => {
                let i = model.eval(&Int::new_const(ctx, name), true)?;
                match i.as_i64() {
                    Some(n) => Some(ModelValue::Int(n.to_string())),
                    None => parse_int_text(&i.to_string()).map(ModelValue::Int),
                }
            }
            Kind::Real => {
                let r = model.eval(&Real::new_const(ctx, name), true)?;
                match r.as_real() {
                    Some((n, d)) => Some(ModelValue::Real(n.to_string(), d.to_string())),
                    None => parse_real_text(&r.to_string()).map(|(n, d)| ModelValue::Real(n, d)),
                }
            }
        }
    }

    /// The integer value of a variable.
    pub(crate) fn int(&self, v: VarId) -> Option<i128> {
        match self.value(v, Kind::Int) {
            Some(ModelValue::Int(s)) => s.parse().ok(),
            _ => None,
        }
    }
}

/// Reads Z3's printing of an integer numeral: `42` or `(- 42)`.
fn parse_int_text(s: &str) -> Option<String> {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix("(-").and_then(|r| r.strip_suffix(')')) {
        let digits = inner.trim();
        return digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| format!("-{digits}"));
    }
    s.bytes().all(|b| b.is_ascii_digit()).then(|| s.to_string())
}

/// Reads Z3's printing of a rational numeral: `2.0`, `(/ 1.0 3.0)`, `(- (/ 1.0 3.0))`.
fn parse_real_text(s: &str) -> Option<(String, String)> {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix("(-").and_then(|r| r.strip_suffix(')')) {
        let (n, d) = parse_real_text(inner)?;
        return Some((format!("-{n}"), d));
    }
    if let Some(inner) = s.strip_prefix("(/").and_then(|r| r.strip_suffix(')')) {
        let mut parts = inner.split_whitespace();
        let n = parse_int_text(parts.next()?.trim_end_matches(".0"))?;
        let d = parse_int_text(parts.next()?.trim_end_matches(".0"))?;
        return Some((n, d));
    }
    parse_int_text(s.trim_end_matches(".0")).map(|n| (n, "1".to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z3_numerals_are_read_back() {
        assert_eq!(parse_int_text("(- 12)").as_deref(), Some("-12"));
        assert_eq!(
            parse_real_text("(- (/ 1.0 3.0))"),
            Some(("-1".into(), "3".into()))
        );
    }
}
