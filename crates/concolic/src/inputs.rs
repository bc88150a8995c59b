//! The symbolic inputs of a scope. Each input variable's type is unfolded into a [`Shape`]
//! whose leaves are solver variables (booleans, integers, decimals, money in cents, dates as day
//! numbers, durations as years, months and days; an enumeration has a case variable and one
//! shape per payload; a list has a length variable, `0 ≤ length ≤ bound`, and one shape per
//! possible element). What has no symbolic model (functions, types nested deeper than the
//! depth limit) keeps a concrete value and is named in [`InputSpace::fixed`] with the reason,
//! which makes the exploration incomplete. The bounds the exploration is complete within are
//! [`Bounds`]. A shape turns an assignment of its variables into a Catala value and its
//! companion. The realistic values the exploration prefers for these variables are
//! [`realism`]'s.

pub mod realism;

use crate::symbolic::{date_of_day_number, day_number, Sym, SymList};
use catala_eval::runtime::{Date, Decimal, Duration, Integer, Value};
use catala_ir::dcalc::{Program, ScopeId, Ty};
use num_bigint::BigInt;
use smt::catala::term::{self, app, int_const, Kind, Op, Term, VarId};
use smt::catala::ModelValue;
use std::collections::BTreeMap;
use std::rc::Rc;

/// The unfolded type of an input.
#[derive(Clone, Debug)]
pub(crate) enum Shape {
    Bool(VarId),
    Integer(VarId),
    Decimal(VarId),
    Money(VarId),
    Date(VarId),
    /// Years, months and days.
    Duration {
        years: VarId,
        months: VarId,
        days: VarId,
    },
    /// A list of `len` elements (`0 ≤ len ≤ max`): the first `len` of `elems` (`max` of them).
    List {
        len: VarId,
        max: usize,
        elems: Vec<Shape>,
    },
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
#[derive(Clone, Debug)]
pub(crate) struct InputSpace {
    pub vars: Vec<InputVar>,
    /// Domain constraints (enumeration cases, date range, list lengths, duration parts).
    pub domains: Vec<Term>,
    /// The variables standing for dates (day numbers).
    pub dates: Vec<VarId>,
    /// The most elements a list input has.
    pub max_list_length: usize,
    /// Lists whose bound the hints raised (a hint longer than `max_list_length`): input path
    /// (as in [`InputVar::path`]) → bound.
    pub raised: BTreeMap<String, usize>,
    /// Parts of the inputs without a symbolic model, each as `path: reason`: they keep a
    /// concrete value, so the exploration is not complete.
    pub fixed: Vec<String>,
}

impl Default for InputSpace {
    fn default() -> Self {
        InputSpace::new(DEFAULT_MAX_LIST_LENGTH)
    }
}

/// Dates are explored between 1900-01-01 and 2199-12-31.
const FIRST_DAY: i64 = -25_567;
const LAST_DAY: i64 = 84_005;
/// The first and last dates explored.
pub(crate) const DATE_RANGE: (&str, &str) = ("1900-01-01", "2199-12-31");
/// Each part of a duration is explored within ± these (years, months, days): the span of the
/// date range.
pub(crate) const DURATION_LIMITS: (i64, i64, i64) = (300, 3_600, 109_572);
/// The default bound of list inputs' lengths.
pub const DEFAULT_MAX_LIST_LENGTH: usize = 3;
/// Structures and enumerations nested deeper than this are fixed.
pub(crate) const MAX_DEPTH: u32 = 16;
/// Lists of lists nested deeper than this are fixed (each level multiplies the variables by
/// the bound).
pub(crate) const MAX_LIST_NESTING: u32 = 3;

/// The bounds within which an exploration covers every path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub max_list_length: usize,
    /// Lists whose bound the hints raised, by input path.
    pub raised: BTreeMap<String, usize>,
    /// The dates the inputs are preferred within (day numbers, whole years; see
    /// [`realism`]): not a bound, a preference.
    pub preferred_dates: Option<(i64, i64)>,
    /// The scope's assertions on its inputs alone that bound the explored inputs (with the
    /// `input-space` optimization), each as its position (`file:line:col`) and source text.
    pub input_assertions: Vec<(String, String)>,
}

impl Bounds {
    /// The bounds of an exploration of `scope` with `max_list_length` and `hints` (hints longer
    /// than the bound raise the bound of their list).
    pub fn of(
        program: &Program,
        scope: ScopeId,
        max_list_length: usize,
        hints: Option<&serde_json::Value>,
    ) -> Bounds {
        let mut space = InputSpace::new(max_list_length);
        if let Some(h) = hints {
            space.raise_for_hints(program, scope, h);
        }
        Bounds {
            max_list_length,
            raised: space.raised,
            preferred_dates: realism::Realism::of(program, scope, None).dates,
            input_assertions: Vec::new(),
        }
    }

    /// These bounds with the dates preferred within `first` to `last` (widened to whole
    /// years), as [`crate::ExploreOptions::date_range`] gives them.
    pub fn with_date_range(mut self, first: Date, last: Date) -> Bounds {
        self.preferred_dates = realism::preferred_dates(first, last);
        self
    }

    /// `{"max_list_length": 3, "dates": ["1900-01-01", "2199-12-31"], "durations": {…}}`,
    /// with `"raised_list_lengths"` when hints raised some and `"preferred_dates"` (the first
    /// and last realistic dates) when the program has some.
    pub fn to_json(&self) -> serde_json::Value {
        let (y, m, d) = DURATION_LIMITS;
        let mut o = serde_json::json!({
            "max_list_length": self.max_list_length,
            "dates": [DATE_RANGE.0, DATE_RANGE.1],
            "durations": {
                "years": [-y, y],
                "months": [-m, m],
                "days": [-d, d],
            },
        });
        if !self.raised.is_empty() {
            o["raised_list_lengths"] = serde_json::json!(self.raised);
        }
        let text = |z: i64| date_of_day_number(z).map(|d| d.to_string());
        if let Some((Some(a), Some(b))) = self.preferred_dates.map(|(a, b)| (text(a), text(b))) {
            o["preferred_dates"] = serde_json::json!([a, b]);
        }
        if !self.input_assertions.is_empty() {
            o["input_assertions"] = self
                .input_assertions
                .iter()
                .map(|(at, text)| serde_json::json!({"at": at, "text": text}))
                .collect();
        }
        o
    }

    /// One line: `lists of at most 3 elements, dates from 1900-01-01 to 2199-12-31, …`.
    pub fn describe(&self) -> String {
        let (y, m, d) = DURATION_LIMITS;
        let mut text = format!(
            "lists of at most {} elements, dates from {} to {}, durations within ±{y} years, ±{m} months, ±{d} days",
            self.max_list_length, DATE_RANGE.0, DATE_RANGE.1
        );
        for (path, n) in &self.raised {
            text.push_str(&format!(", {path}: at most {n} elements (hint)"));
        }
        if !self.input_assertions.is_empty() {
            let each: Vec<String> = self
                .input_assertions
                .iter()
                .map(|(at, t)| format!("{t} ({at})"))
                .collect();
            text.push_str(&format!(
                ", inputs within the scope's assertions: {}",
                each.join(", ")
            ));
        }
        text
    }
}

impl InputSpace {
    /// An empty space whose lists have at most `max_list_length` elements.
    pub fn new(max_list_length: usize) -> InputSpace {
        InputSpace {
            vars: Vec::new(),
            domains: Vec::new(),
            dates: Vec::new(),
            max_list_length,
            raised: BTreeMap::new(),
            fixed: Vec::new(),
        }
    }

    /// Raises the bound of each list input the hints give with more elements than
    /// `max_list_length` to the hint's length. Hints that do not read are left to the
    /// exploration, which reports them.
    pub(crate) fn raise_for_hints(
        &mut self,
        program: &Program,
        scope: ScopeId,
        hints: &serde_json::Value,
    ) {
        let serde_json::Value::Object(given) = hints else {
            return;
        };
        for input in &program.scope(scope).inputs {
            let Some(j) = given.get(&input.name) else {
                continue;
            };
            let path = format!("/{}", input.name);
            if let Ok(v) = catala_eval::runtime::json::value_from_json(program, &input.ty, j, &path)
            {
                self.hint_lengths(program, &input.ty, &v, &input.name);
            }
        }
    }

    fn hint_lengths(&mut self, program: &Program, ty: &Ty, v: &Value, path: &str) {
        match (ty, v) {
            (Ty::List(t), Value::List(items)) => {
                if items.len() > self.max_list_length {
                    let n = self.raised.entry(path.to_string()).or_default();
                    *n = (*n).max(items.len());
                }
                for (i, x) in items.iter().enumerate() {
                    self.hint_lengths(program, t, x, &format!("{path}[{i}]"));
                }
            }
            (Ty::Struct(id), Value::Struct(s)) => {
                let def = program.structure(*id);
                for (f, x) in def.fields.iter().zip(s.fields.iter()) {
                    self.hint_lengths(program, &f.ty, x, &format!("{path}.{}", f.name));
                }
            }
            (Ty::Enum(id), Value::Enum(e)) => {
                let def = program.enumeration(*id);
                if let Some(c) = def.cases.get(e.case as usize) {
                    if let Some(t) = &c.payload {
                        self.hint_lengths(program, t, &e.payload, &format!("{path}.{}", c.name));
                    }
                }
            }
            (Ty::Tuple(ts), Value::Tuple(items)) => {
                for (i, (t, x)) in ts.iter().zip(items.iter()).enumerate() {
                    self.hint_lengths(program, t, x, &format!("{path}.{i}"));
                }
            }
            (Ty::Option(t), Value::Enum(e)) if e.case == 1 => {
                self.hint_lengths(program, t, &e.payload, &format!("{path}.Present"));
            }
            _ => {}
        }
    }

    fn bounded(&mut self, v: VarId, lo: i64, hi: i64) {
        let x = term::var(v, Kind::Int);
        self.domains.push(app(
            Op::And,
            vec![
                app(Op::Ge, vec![x.clone(), int_const(lo.to_string())]),
                app(Op::Le, vec![x, int_const(hi.to_string())]),
            ],
        ));
    }

    /// A part without a symbolic model: named once for all the elements of the lists it is in
    /// (`deep[*][*]`).
    fn fix(&mut self, path: &str, reason: &str, value: Value) -> Shape {
        let mut general = String::with_capacity(path.len());
        let mut in_index = false;
        for c in path.chars() {
            match c {
                '[' => {
                    in_index = true;
                    general.push_str("[*]");
                }
                ']' => in_index = false,
                _ if in_index => {}
                _ => general.push(c),
            }
        }
        let note = format!("{general}: {reason}");
        if !self.fixed.contains(&note) {
            self.fixed.push(note);
        }
        Shape::Fixed(value)
    }

    /// The shape of a context variable: optional.
    pub(crate) fn optional_shape(&mut self, program: &Program, ty: &Ty, path: &str) -> Shape {
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
        self.shape_nested(program, ty, path, depth, 0)
    }

    fn shape_nested(
        &mut self,
        program: &Program,
        ty: &Ty,
        path: &str,
        depth: u32,
        lists: u32,
    ) -> Shape {
        match ty {
            Ty::Bool => Shape::Bool(self.fresh(Kind::Bool, path, false)),
            Ty::Integer => Shape::Integer(self.fresh(Kind::Int, path, false)),
            Ty::Decimal => Shape::Decimal(self.fresh(Kind::Real, path, false)),
            Ty::Money => Shape::Money(self.fresh(Kind::Int, path, true)),
            Ty::Date => {
                let v = self.fresh(Kind::Int, path, false);
                self.dates.push(v);
                self.bounded(v, FIRST_DAY, LAST_DAY);
                Shape::Date(v)
            }
            Ty::Duration => {
                let (ly, lm, ld) = DURATION_LIMITS;
                let years = self.fresh(Kind::Int, &format!("{path}#years"), false);
                let months = self.fresh(Kind::Int, &format!("{path}#months"), false);
                let days = self.fresh(Kind::Int, &format!("{path}#days"), false);
                self.bounded(years, -ly, ly);
                self.bounded(months, -lm, lm);
                self.bounded(days, -ld, ld);
                Shape::Duration {
                    years,
                    months,
                    days,
                }
            }
            Ty::Struct(_) | Ty::Enum(_) | Ty::Tuple(_) | Ty::List(_) | Ty::Option(_)
                if depth >= MAX_DEPTH =>
            {
                let reason = format!("nested deeper than {MAX_DEPTH} levels, fixed");
                self.fix(path, &reason, Value::Unit)
            }
            Ty::Struct(id) => {
                let def = program.structure(*id);
                let fields = def
                    .fields
                    .iter()
                    .map(|f| {
                        let p = format!("{path}.{}", f.name);
                        self.shape_nested(program, &f.ty, &p, depth + 1, lists)
                    })
                    .collect();
                Shape::Struct(id.0, fields)
            }
            Ty::Enum(id) => {
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
                            let p = format!("{path}.{}", c.name);
                            self.shape_nested(program, t, &p, depth + 1, lists)
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
                    .map(|(i, t)| {
                        let p = format!("{path}.{i}");
                        self.shape_nested(program, t, &p, depth + 1, lists)
                    })
                    .collect(),
            ),
            Ty::List(_) if lists >= MAX_LIST_NESTING => {
                let reason =
                    format!("list nested in more than {MAX_LIST_NESTING} lists, fixed to []");
                self.fix(path, &reason, Value::List(Rc::from(Vec::new())))
            }
            Ty::List(elem) => {
                let max = self
                    .raised
                    .get(path)
                    .copied()
                    .unwrap_or(self.max_list_length);
                let len = self.fresh(Kind::Int, &format!("{path}#length"), false);
                self.bounded(len, 0, max as i64);
                let elems = (0..max)
                    .map(|i| {
                        let p = format!("{path}[{i}]");
                        self.shape_nested(program, elem, &p, depth + 1, lists + 1)
                    })
                    .collect();
                Shape::List { len, max, elems }
            }
            Ty::Option(inner) => {
                let Some(id) = program.option_enum else {
                    return self.fix(path, "optional without its enumeration, fixed", Value::Unit);
                };
                // `Absent` (case 0) or `Present content x` (case 1).
                let tag = self.fresh(Kind::Int, &format!("{path}#case"), false);
                self.bounded(tag, 0, 1);
                let p = format!("{path}.Present");
                let present = self.shape_nested(program, inner, &p, depth + 1, lists);
                Shape::Enum {
                    enum_id: id.0,
                    tag,
                    payloads: vec![None, Some(present)],
                }
            }
            Ty::Arrow(..) => self.fix(path, "function, fixed", Value::Unit),
            _ => self.fix(path, "type without a symbolic model, fixed", Value::Unit),
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
    pub(crate) fn build(&self, a: &Assignment) -> (Value, Sym) {
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
            Shape::Duration {
                years,
                months,
                days,
            } => {
                let part = |v: VarId| int_value(a, v).to_i64().unwrap_or(0);
                let value = Duration::new(part(*years), part(*months), part(*days));
                let t = |v: VarId| term::var(v, Kind::Int);
                let sym = Sym::Duration(Rc::new([t(*years), t(*months), t(*days)]));
                (Value::Duration(value), sym)
            }
            Shape::List { len, max, elems } => {
                let n = int_value(a, *len)
                    .to_i64()
                    .unwrap_or(0)
                    .clamp(0, *max as i64) as usize;
                let (vals, syms): (Vec<Value>, Vec<Sym>) =
                    elems.iter().take(n).map(|e| e.build(a)).unzip();
                let sym = Sym::List(Rc::new(SymList {
                    items: syms.into(),
                    len: Some((term::var(*len, Kind::Int), *max)),
                }));
                (Value::List(vals.into()), sym)
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

    /// The bounds of the list lengths in this shape, `0 ≤ len ≤ max` (for callers that make
    /// shapes themselves, as the relational exploration's caller does).
    pub(crate) fn length_domains(&self, out: &mut Vec<Term>) {
        match self {
            Shape::List { len, max, elems } => {
                let x = term::var(*len, Kind::Int);
                out.push(app(
                    Op::And,
                    vec![
                        app(Op::Ge, vec![x.clone(), int_const("0")]),
                        app(Op::Le, vec![x, int_const(max.to_string())]),
                    ],
                ));
                for e in elems {
                    e.length_domains(out);
                }
            }
            Shape::Struct(_, parts) | Shape::Tuple(parts) => {
                for p in parts {
                    p.length_domains(out);
                }
            }
            Shape::Enum { payloads, .. } => {
                for p in payloads.iter().flatten() {
                    p.length_domains(out);
                }
            }
            Shape::Optional { inner, .. } => inner.length_domains(out),
            _ => {}
        }
    }

    /// The argument of a scope run under `a` (`None`: an optional argument not given).
    pub(crate) fn build_arg(&self, a: &Assignment) -> Option<(Value, Sym)> {
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
    pub(crate) fn absorb(&mut self, value: &Value, a: &mut Assignment) {
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
            (
                Shape::Duration {
                    years,
                    months,
                    days,
                },
                Value::Duration(d),
            ) => {
                set(*years, ModelValue::Int(d.years.to_string()));
                set(*months, ModelValue::Int(d.months.to_string()));
                set(*days, ModelValue::Int(d.days.to_string()));
            }
            (Shape::List { len, max, elems }, Value::List(items)) => {
                // The bound of a list was raised to its hint's length when the space was made.
                let n = items.len().min(*max);
                set(*len, ModelValue::Int(n.to_string()));
                for (e, v) in elems.iter_mut().zip(items.iter()) {
                    e.absorb(v, a);
                }
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
