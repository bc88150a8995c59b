//! The symbolic inputs of a scope. Each input variable's type is unfolded into a [`Shape`]
//! whose leaves are solver variables (booleans, integers, decimals, money in cents, dates as day
//! numbers, durations in days; an enumeration has a case variable and one shape per payload).
//! Lists and functions have no symbolic model: they keep a concrete value (empty, or from the
//! hints). A shape turns an assignment of its variables into a Catala value and its companion.

use crate::symbolic::{constant_term, date_of_day_number, day_number, Sym};
use catala_eval::runtime::{Decimal, Duration, Integer, Value};
use catala_ir::dcalc::{Program, Ty};
use num_bigint::BigInt;
use smt::catala::term::{self, app, int_const, Kind, Op, Term, VarId};
use smt::catala::ModelValue;
use std::rc::Rc;

/// The unfolded type of an input.
#[derive(Clone, Debug)]
pub enum Shape {
    Bool(VarId),
    Integer(VarId),
    Decimal(VarId),
    Money(VarId),
    Date(VarId),
    Duration(VarId),
    Struct(u32, Vec<Shape>),
    Enum {
        enum_id: u32,
        tag: VarId,
        payloads: Vec<Option<Shape>>,
    },
    Tuple(Vec<Shape>),
    /// No symbolic model: this concrete value.
    Fixed(Value),
    /// A context variable: given (the boolean variable) or left to its definitions.
    Optional {
        given: VarId,
        inner: Box<Shape>,
    },
}

/// A solver variable of the inputs.
#[derive(Clone, Debug)]
pub struct InputVar {
    pub kind: Kind,
    /// Where it sits, e.g. `house.income`.
    pub path: String,
    pub is_money: bool,
}

/// The shapes of a scope's inputs and their variables.
#[derive(Clone, Debug, Default)]
pub struct InputSpace {
    pub vars: Vec<InputVar>,
    /// Per scope input: `None` for context variables (left to their definitions).
    pub shapes: Vec<Option<Shape>>,
    /// Domain constraints (enumeration cases, date range).
    pub domains: Vec<Term>,
    /// The variables standing for dates (day numbers).
    pub dates: Vec<VarId>,
}

/// Dates are explored between 1900-01-01 and 2199-12-31.
const FIRST_DAY: i64 = -25_567;
const LAST_DAY: i64 = 84_005;

impl InputSpace {
    /// The shape of a context variable: optional.
    pub fn optional_shape(&mut self, program: &Program, ty: &Ty, path: &str) -> Shape {
        let given = self.fresh(Kind::Bool, &format!("{path}#given"), false);
        let inner = self.shape_of(program, ty, path, 0);
        Shape::Optional {
            given,
            inner: Box::new(inner),
        }
    }

    fn fresh(&mut self, kind: Kind, path: &str, is_money: bool) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(InputVar {
            kind,
            path: path.to_string(),
            is_money,
        });
        id
    }

    /// Unfolds the type `ty` of the input at `path`.
    pub fn shape_of(&mut self, program: &Program, ty: &Ty, path: &str, depth: u32) -> Shape {
        match ty {
            Ty::Bool => Shape::Bool(self.fresh(Kind::Bool, path, false)),
            Ty::Integer => Shape::Integer(self.fresh(Kind::Int, path, false)),
            Ty::Decimal => Shape::Decimal(self.fresh(Kind::Real, path, false)),
            Ty::Money => Shape::Money(self.fresh(Kind::Int, path, true)),
            Ty::Date => {
                let v = self.fresh(Kind::Int, path, false);
                self.dates.push(v);
                let x = term::var(v, Kind::Int);
                self.domains.push(app(
                    Op::And,
                    vec![
                        app(Op::Ge, vec![x.clone(), int_const(FIRST_DAY.to_string())]),
                        app(Op::Le, vec![x, int_const(LAST_DAY.to_string())]),
                    ],
                ));
                Shape::Date(v)
            }
            Ty::Duration => Shape::Duration(self.fresh(Kind::Int, path, false)),
            Ty::Struct(id) if depth < 16 => {
                let def = program.structure(*id);
                let fields = def
                    .fields
                    .iter()
                    .map(|f| {
                        self.shape_of(program, &f.ty, &format!("{path}.{}", f.name), depth + 1)
                    })
                    .collect();
                Shape::Struct(id.0, fields)
            }
            Ty::Enum(id) if depth < 16 => {
                let def = program.enumeration(*id);
                let tag = self.fresh(Kind::Int, &format!("{path}#case"), false);
                let x = term::var(tag, Kind::Int);
                self.domains.push(app(
                    Op::And,
                    vec![
                        app(Op::Ge, vec![x.clone(), int_const("0")]),
                        app(Op::Lt, vec![x, int_const(def.cases.len().to_string())]),
                    ],
                ));
                let payloads = def
                    .cases
                    .iter()
                    .map(|c| {
                        c.payload.as_ref().map(|t| {
                            self.shape_of(program, t, &format!("{path}.{}", c.name), depth + 1)
                        })
                    })
                    .collect();
                Shape::Enum {
                    enum_id: id.0,
                    tag,
                    payloads,
                }
            }
            Ty::Tuple(items) => Shape::Tuple(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, t)| self.shape_of(program, t, &format!("{path}.{i}"), depth + 1))
                    .collect(),
            ),
            Ty::List(_) => Shape::Fixed(Value::List(Rc::from(Vec::new()))),
            _ => Shape::Fixed(Value::Unit),
        }
    }
}

/// An assignment of the input variables (`None`: the default, zero / false / first case).
pub type Assignment = Vec<Option<ModelValue>>;

fn int_of(text: &str) -> Integer {
    match text.parse::<i64>() {
        Ok(n) => Integer::from(n),
        Err(_) => text
            .parse::<BigInt>()
            .map(Integer::from_bigint)
            .unwrap_or(Integer::ZERO),
    }
}

fn int_value(a: &Assignment, v: VarId) -> Integer {
    match a.get(v.0 as usize) {
        Some(Some(ModelValue::Int(s))) => int_of(s),
        _ => Integer::ZERO,
    }
}

impl Shape {
    /// The value of this shape under `a`, with its symbolic companion.
    pub fn build(&self, a: &Assignment) -> (Value, Sym) {
        let var = |v: VarId, k: Kind| Sym::Scalar(term::var(v, k));
        match self {
            Shape::Bool(v) => {
                let b = matches!(a.get(v.0 as usize), Some(Some(ModelValue::Bool(true))));
                (Value::Bool(b), var(*v, Kind::Bool))
            }
            Shape::Integer(v) => (Value::Integer(int_value(a, *v)), var(*v, Kind::Int)),
            Shape::Money(v) => (Value::Money(int_value(a, *v)), var(*v, Kind::Int)),
            Shape::Decimal(v) => {
                let d = match a.get(v.0 as usize) {
                    Some(Some(ModelValue::Real(n, d))) => {
                        let den = int_of(d);
                        if den.is_zero() {
                            Decimal::ZERO
                        } else {
                            Decimal::from_ratio(&int_of(n), &den)
                        }
                    }
                    Some(Some(ModelValue::Int(n))) => Decimal::from_integer(&int_of(n)),
                    _ => Decimal::ZERO,
                };
                (Value::Decimal(d), var(*v, Kind::Real))
            }
            Shape::Date(v) => {
                let n = int_value(a, *v).to_i64().unwrap_or(0);
                let d = date_of_day_number(n.clamp(FIRST_DAY, LAST_DAY))
                    .or_else(|| date_of_day_number(0));
                match d {
                    Some(d) => (Value::Date(d), var(*v, Kind::Int)),
                    None => (Value::Unit, Sym::Concrete),
                }
            }
            Shape::Duration(v) => {
                let n = int_value(a, *v).to_i64().unwrap_or(0);
                (Value::Duration(Duration::new(0, 0, n)), var(*v, Kind::Int))
            }
            Shape::Struct(id, fields) => {
                let (vals, syms): (Vec<Value>, Vec<Sym>) =
                    fields.iter().map(|f| f.build(a)).unzip();
                (Value::new_struct(*id, vals), Sym::Struct(syms.into()))
            }
            Shape::Tuple(items) => {
                let (vals, syms): (Vec<Value>, Vec<Sym>) = items.iter().map(|f| f.build(a)).unzip();
                (Value::Tuple(vals.into()), Sym::Tuple(syms.into()))
            }
            Shape::Enum {
                enum_id,
                tag,
                payloads,
            } => {
                let n = payloads.len().max(1) as i64;
                let case = int_value(a, *tag).to_i64().unwrap_or(0).clamp(0, n - 1) as u32;
                let mut syms = Vec::with_capacity(payloads.len());
                let mut payload_value = Value::Unit;
                for (i, p) in payloads.iter().enumerate() {
                    match p {
                        Some(shape) => {
                            let (v, s) = shape.build(a);
                            if i == case as usize {
                                payload_value = v;
                            }
                            syms.push(s);
                        }
                        None => syms.push(Sym::Concrete),
                    }
                }
                let sym = Sym::Enum {
                    tag: term::var(*tag, Kind::Int),
                    payloads: syms.into(),
                };
                (Value::new_enum(*enum_id, case, payload_value), sym)
            }
            Shape::Fixed(v) => (v.clone(), Sym::Concrete),
            Shape::Optional { inner, .. } => inner.build(a),
        }
    }

    /// The argument of a scope run under `a` (`None`: an optional argument not given).
    pub fn build_arg(&self, a: &Assignment) -> Option<(Value, Sym)> {
        match self {
            Shape::Optional { given, inner } => {
                matches!(a.get(given.0 as usize), Some(Some(ModelValue::Bool(true))))
                    .then(|| inner.build(a))
            }
            _ => Some(self.build(a)),
        }
    }

    /// Writes into `a` the assignment that makes this shape build `value` (for hints); a
    /// `Fixed` shape takes the value itself.
    pub fn absorb(&mut self, value: &Value, a: &mut Assignment) {
        let mut set = |v: VarId, m: ModelValue| {
            if let Some(slot) = a.get_mut(v.0 as usize) {
                *slot = Some(m);
            }
        };
        match (self, value) {
            (Shape::Bool(v), Value::Bool(b)) => set(*v, ModelValue::Bool(*b)),
            (Shape::Integer(v), Value::Integer(i)) | (Shape::Money(v), Value::Money(i)) => {
                set(*v, ModelValue::Int(i.to_string()))
            }
            (Shape::Decimal(v), Value::Decimal(d)) => {
                let (n, den) = d.numer_denom();
                set(*v, ModelValue::Real(n.to_string(), den.to_string()))
            }
            (Shape::Date(v), Value::Date(d)) => set(*v, ModelValue::Int(day_number(d).to_string())),
            (Shape::Duration(v), Value::Duration(d)) if d.years == 0 && d.months == 0 => {
                set(*v, ModelValue::Int(d.days.to_string()))
            }
            (Shape::Struct(_, fields), Value::Struct(s)) => {
                for (f, v) in fields.iter_mut().zip(s.fields.iter()) {
                    f.absorb(v, a);
                }
            }
            (Shape::Tuple(items), Value::Tuple(t)) => {
                for (f, v) in items.iter_mut().zip(t.iter()) {
                    f.absorb(v, a);
                }
            }
            (Shape::Enum { tag, payloads, .. }, Value::Enum(e)) => {
                set(*tag, ModelValue::Int(e.case.to_string()));
                if let Some(Some(p)) = payloads.get_mut(e.case as usize) {
                    p.absorb(&e.payload, a);
                }
            }
            (Shape::Fixed(slot), v) => *slot = v.clone(),
            (Shape::Optional { given, inner }, v) => {
                set(*given, ModelValue::Bool(true));
                inner.absorb(v, a);
            }
            _ => {}
        }
    }
}

/// The constant term of a value, for callers outside this module.
pub fn value_term(v: &Value) -> Option<Term> {
    constant_term(v)
}
