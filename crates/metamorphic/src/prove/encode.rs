//! A relation and its domain as solver terms, for the relational exploration of
//! [`concolic::relational`]. Each case of the relation (x, y, …) gets one solver variable per
//! domain field, except that a follow-up shares the variables of the case it is declared
//! equivalent to (`x ==[f, g] y` in every disjunct of the premise: y gets fresh variables for
//! f and g only). The domain's ranges, steps, choices and constraints, and the premise, become
//! the exploration's globals; the conclusion becomes, at each leaf, the condition "violated by
//! more than the tolerance" over the cases' symbolic outputs, mirroring
//! [`crate::relation::eval::judge`] (an `and` fails when one side fails, an `or` when both do).
//!
//! Numbers are real terms in the domain's units: money variables hold cents and are divided
//! by 100, integers are converted, booleans count 0 and 1 in arithmetic. `ceil` and `floor`
//! introduce an integer variable bounded around their argument.

use crate::domain::{Domain, FieldKind};
use crate::relation::{ArithOp, Builtin, CmpOp, Expr, Relation};
use catala_eval::runtime::{Date, Value as CatalaValue};
use catala_ir::dcalc::{InputKind, Program, ScopeId, Ty};
use concolic::relational::{CaseInput, CaseOutput, Goal, InputVar, OutputTerm, RelationalSpace};
use smt::catala::term::{self, app, bool_const, int_const, real_const, var, Kind, Op, Term, VarId};

/// How one domain field is held by the scope and the solver.
#[derive(Clone, Debug)]
pub enum FieldEncoding {
    Bool,
    Integer,
    /// Cents in an integer variable.
    Money,
    Decimal,
    /// A Catala enumeration (payload-free cases): the case index; the domain's choices are
    /// case names, `case_of[i]` the index of choice `i`.
    Enum {
        enum_id: u32,
        case_of: Vec<u32>,
    },
    /// A Catala date given as a choice of days: the day number of each choice.
    Date {
        days: Vec<i64>,
    },
}

/// One domain field: its scope input and encoding.
#[derive(Clone, Debug)]
pub struct EncodedField {
    pub name: String,
    /// Index among the scope's inputs.
    pub input: usize,
    pub encoding: FieldEncoding,
}

/// The variables of a relation's cases.
#[derive(Clone, Debug)]
pub struct Encoding {
    pub fields: Vec<EncodedField>,
    /// The case variables, bases first (`x`, `y` or `x`, `x'`, `y`, `y'`).
    pub cases: Vec<String>,
    /// `vars[case][field]`: the solver variable of that field in that case.
    pub vars: Vec<Vec<VarId>>,
    /// Per case: the case whose variables it shares, and the fields it has its own
    /// variables for (`None`: a case with all its own variables).
    pub shares: Vec<Option<(usize, Vec<String>)>>,
    pub space: RelationalSpace,
}

fn kind_of(e: &FieldEncoding) -> Kind {
    match e {
        FieldEncoding::Bool => Kind::Bool,
        FieldEncoding::Decimal => Kind::Real,
        _ => Kind::Int,
    }
}

/// An exact rational constant for a number of the relation language (its shortest decimal
/// writing, as Rust prints it).
pub fn number_term(n: f64) -> Result<Term, String> {
    if !n.is_finite() {
        return Err(format!("the number {n} has no exact value"));
    }
    let text = format!("{n}");
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.as_str()),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let mut num: String = format!("{whole}{frac}").trim_start_matches('0').to_string();
    if num.is_empty() {
        num = "0".into();
    }
    if negative && num != "0" {
        num = format!("-{num}");
    }
    let den = format!("1{}", "0".repeat(frac.len()));
    Ok(real_const(num, den))
}

fn real(n: i64) -> Term {
    real_const(n.to_string(), "1")
}

fn to_real(t: Term) -> Term {
    if t.kind() == Kind::Real {
        t
    } else {
        app(Op::ToReal, vec![t])
    }
}

fn cents_to_units(t: Term) -> Term {
    app(Op::Div, vec![to_real(t), real(100)])
}

/// Fresh auxiliary variables and their definitions.
pub struct Aux {
    pub next: u32,
    pub defs: Vec<Term>,
}

impl Aux {
    fn fresh_int(&mut self) -> Term {
        let v = var(VarId(self.next), Kind::Int);
        self.next += 1;
        v
    }
}

/// A translated sub-expression.
#[derive(Clone, Debug)]
enum Tv {
    Bool(Term),
    Num(Term),
    /// An enumeration or date field (its integer term) and the field, to resolve names.
    Choice(Term, usize),
    /// A bare constant name (an enumeration choice).
    Name(String),
}

/// What bare names and outputs mean where an expression is translated.
enum Scope<'a> {
    /// A relation: fields and outputs through case variables.
    Relation {
        outputs: Option<&'a [Vec<CaseOutput>]>,
    },
    /// A domain constraint: bare names are the fields of this case.
    Fields(usize),
    /// The definition of F: bare names are the outputs of this case.
    Outputs(&'a [CaseOutput]),
}

struct Translator<'a> {
    enc: &'a Encoding,
    domain: &'a Domain,
    scope: Scope<'a>,
    aux: &'a mut Aux,
}

fn field_term(enc: &Encoding, case: usize, field: usize) -> Tv {
    let f = &enc.fields[field];
    let v = var(enc.vars[case][field], kind_of(&f.encoding));
    match f.encoding {
        FieldEncoding::Bool => Tv::Bool(v),
        FieldEncoding::Integer => Tv::Num(to_real(v)),
        FieldEncoding::Money => Tv::Num(cents_to_units(v)),
        FieldEncoding::Decimal => Tv::Num(v),
        FieldEncoding::Enum { .. } | FieldEncoding::Date { .. } => Tv::Choice(v, field),
    }
}

/// The term of a Catala output value (`Err` for values the relation language cannot read).
fn output_term(o: &CaseOutput) -> Result<Tv, String> {
    let t = match o.term() {
        OutputTerm::Term(t) => t,
        OutputTerm::NotScalar => {
            return Err(format!("output `{}` is not a number or a boolean", o.name))
        }
        OutputTerm::Compound => {
            return Err(format!(
                "output `{}` is a structure, enumeration or list",
                o.name
            ))
        }
    };
    Ok(match &o.value {
        CatalaValue::Bool(_) => Tv::Bool(t),
        CatalaValue::Money(_) => Tv::Num(cents_to_units(t)),
        CatalaValue::Integer(_) => Tv::Num(to_real(t)),
        CatalaValue::Decimal(_) => Tv::Num(t),
        _ => return Err(format!("output `{}` is not a number or a boolean", o.name)),
    })
}

fn bool_as_num(b: Term) -> Term {
    app(Op::Ite, vec![b, real(1), real(0)])
}

impl Translator<'_> {
    fn case(&self, name: &str) -> Result<usize, String> {
        self.enc
            .cases
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| format!("`{name}` is not a case of the relation"))
    }

    fn field_index(&self, name: &str) -> Result<usize, String> {
        self.enc
            .fields
            .iter()
            .position(|f| f.name == name)
            .ok_or_else(|| format!("`{name}` is not a field of the domain"))
    }

    fn value(&mut self, e: &Expr) -> Result<Tv, String> {
        Ok(match e {
            Expr::Bool(b) => Tv::Bool(bool_const(*b)),
            Expr::Number(n) => Tv::Num(number_term(*n)?),
            Expr::Name(n, _) => match &self.scope {
                Scope::Fields(case) => match self.field_index(n) {
                    Ok(f) => field_term(self.enc, *case, f),
                    Err(_) => Tv::Name(n.clone()),
                },
                Scope::Outputs(outs) => match outs.iter().find(|o| &o.name == n) {
                    Some(o) => output_term(o)?,
                    None => return Err(format!("no output `{n}`")),
                },
                Scope::Relation { .. } => Tv::Name(n.clone()),
            },
            Expr::Field { var, field, .. } => {
                let case = self.case(var)?;
                let f = self.field_index(field)?;
                field_term(self.enc, case, f)
            }
            Expr::Output { output, var, .. } => {
                let case = self.case(var)?;
                let Scope::Relation {
                    outputs: Some(outputs),
                } = &self.scope
                else {
                    return Err("outputs are read only in conclusions".to_string());
                };
                let outs = outputs
                    .get(case)
                    .ok_or_else(|| "a case without outputs".to_string())?;
                match output {
                    Some(name) => match outs.iter().find(|o| &o.name == name) {
                        Some(o) => output_term(o)?,
                        None => return Err(format!("no output `{name}`")),
                    },
                    None => {
                        let mut inner = Translator {
                            enc: self.enc,
                            domain: self.domain,
                            scope: Scope::Outputs(outs),
                            aux: self.aux,
                        };
                        inner.value(&self.domain.main_output.1)?
                    }
                }
            }
            Expr::Neg(inner) => Tv::Num(app(Op::Neg, vec![self.num(inner)?])),
            Expr::Arith(op, a, b) => {
                let (a, b) = (self.num(a)?, self.num(b)?);
                let op = match op {
                    ArithOp::Add => Op::Add,
                    ArithOp::Sub => Op::Sub,
                    ArithOp::Mul => Op::Mul,
                    ArithOp::Div => Op::Div,
                };
                Tv::Num(app(op, vec![a, b]))
            }
            Expr::Call(builtin, args) => {
                let mut terms = Vec::with_capacity(args.len());
                for a in args {
                    terms.push(self.num(a)?);
                }
                let first = terms
                    .first()
                    .cloned()
                    .ok_or_else(|| "a call without arguments".to_string())?;
                Tv::Num(match builtin {
                    Builtin::Abs => app(
                        Op::Ite,
                        vec![
                            app(Op::Lt, vec![first.clone(), real(0)]),
                            app(Op::Neg, vec![first.clone()]),
                            first,
                        ],
                    ),
                    Builtin::Min | Builtin::Max => {
                        let pick = if *builtin == Builtin::Min {
                            Op::Lt
                        } else {
                            Op::Gt
                        };
                        terms.into_iter().skip(1).fold(first, |acc, t| {
                            app(
                                Op::Ite,
                                vec![app(pick, vec![t.clone(), acc.clone()]), t, acc],
                            )
                        })
                    }
                    Builtin::Floor | Builtin::Ceil => {
                        // k ≤ q < k + 1 (floor), k − 1 < q ≤ k (ceil).
                        let k = self.aux.fresh_int();
                        let kr = to_real(k);
                        let one = real(1);
                        let defs = if *builtin == Builtin::Floor {
                            vec![
                                app(Op::Le, vec![kr.clone(), first.clone()]),
                                app(Op::Lt, vec![first, app(Op::Add, vec![kr.clone(), one])]),
                            ]
                        } else {
                            vec![
                                app(
                                    Op::Lt,
                                    vec![app(Op::Sub, vec![kr.clone(), one]), first.clone()],
                                ),
                                app(Op::Le, vec![first, kr.clone()]),
                            ]
                        };
                        self.aux.defs.extend(defs);
                        kr
                    }
                })
            }
            other => Tv::Bool(term::not(&self.violated(other, false, 0.0)?)),
        })
    }

    fn num(&mut self, e: &Expr) -> Result<Term, String> {
        match self.value(e)? {
            Tv::Num(t) => Ok(t),
            Tv::Bool(b) => Ok(bool_as_num(b)),
            _ => Err(format!("`{e}` is not a number")),
        }
    }

    /// The integer term of a choice name for the field `field`.
    fn choice(&self, field: usize, name: &str) -> Result<Term, String> {
        let f = &self.enc.fields[field];
        let choices = match &self.domain.field(&f.name).map(|s| &s.kind) {
            Some(FieldKind::Enum { choices }) => choices.clone(),
            _ => Vec::new(),
        };
        let i = choices
            .iter()
            .position(|c| c == name)
            .ok_or_else(|| format!("`{name}` is not a choice of `{}`", f.name))?;
        match &f.encoding {
            FieldEncoding::Enum { case_of, .. } => Ok(int_const(case_of[i].to_string())),
            FieldEncoding::Date { days } => Ok(int_const(days[i].to_string())),
            _ => Err(format!("`{}` has no choices", f.name)),
        }
    }

    /// "`a op b` is false by more than `delta`".
    fn pair_violated(&mut self, a: &Tv, op: CmpOp, b: &Tv, delta: f64) -> Result<Term, String> {
        let choice_pair =
            |t: &Translator, x: &Tv, y: &Tv| -> Result<Option<(Term, Term)>, String> {
                Ok(match (x, y) {
                    (Tv::Choice(s, f), Tv::Name(n)) | (Tv::Name(n), Tv::Choice(s, f)) => {
                        Some((s.clone(), t.choice(*f, n)?))
                    }
                    (Tv::Choice(s, _), Tv::Choice(r, _)) => Some((s.clone(), r.clone())),
                    (Tv::Name(m), Tv::Name(n)) => Some((bool_const(true), bool_const(m == n))),
                    (Tv::Choice(..), _)
                    | (_, Tv::Choice(..))
                    | (Tv::Name(_), _)
                    | (_, Tv::Name(_)) => return Err("a choice compared with a number".to_string()),
                    _ => None,
                })
            };
        if let Some((s, r)) = choice_pair(self, a, b)? {
            let equal = app(Op::Eq, vec![s, r]);
            let fails = match op {
                CmpOp::Eq => term::not(&equal),
                CmpOp::Ne => equal,
                _ => return Err(format!("`{}` between choices", op.symbol())),
            };
            return Ok(if delta < 1.0 {
                fails
            } else {
                bool_const(false)
            });
        }
        let as_num = |t: &Tv| match t {
            Tv::Num(n) => n.clone(),
            Tv::Bool(b) => bool_as_num(b.clone()),
            _ => real(0),
        };
        let (x, y) = (as_num(a), as_num(b));
        let d = number_term(delta)?;
        let tiny = delta < 1e-9;
        let gap = |hi: &Term, lo: &Term| {
            app(
                Op::Gt,
                vec![app(Op::Sub, vec![hi.clone(), lo.clone()]), d.clone()],
            )
        };
        Ok(match op {
            CmpOp::Eq => app(Op::Or, vec![gap(&x, &y), gap(&y, &x)]),
            CmpOp::Ne => {
                if tiny {
                    app(Op::Eq, vec![x, y])
                } else {
                    bool_const(false)
                }
            }
            CmpOp::Lt => {
                if tiny {
                    app(Op::Ge, vec![x, y])
                } else {
                    gap(&x, &y)
                }
            }
            CmpOp::Le => gap(&x, &y),
            CmpOp::Gt => {
                if tiny {
                    app(Op::Ge, vec![y, x])
                } else {
                    gap(&y, &x)
                }
            }
            CmpOp::Ge => gap(&y, &x),
        })
    }

    /// "`e` (negated when `negated`) is false by more than `delta`", as the evaluator judges.
    fn violated(&mut self, e: &Expr, negated: bool, delta: f64) -> Result<Term, String> {
        let boolean = |holds: Term| {
            if delta < 1.0 {
                term::not(&holds)
            } else {
                bool_const(false)
            }
        };
        Ok(match e {
            Expr::Not(inner) => self.violated(inner, !negated, delta)?,
            Expr::And(a, b) | Expr::Or(a, b) => {
                let conjunctive = matches!(e, Expr::And(..)) != negated;
                let va = self.violated(a, negated, delta)?;
                let vb = self.violated(b, negated, delta)?;
                app(if conjunctive { Op::Or } else { Op::And }, vec![va, vb])
            }
            Expr::Implies(a, b) => {
                let va = self.violated(a, !negated, delta)?;
                let vb = self.violated(b, negated, delta)?;
                app(if negated { Op::Or } else { Op::And }, vec![va, vb])
            }
            Expr::Compare { operands, ops } => {
                let mut values = Vec::with_capacity(operands.len());
                for o in operands {
                    values.push(self.value(o)?);
                }
                let mut pairs = Vec::with_capacity(ops.len());
                for (i, op) in ops.iter().enumerate() {
                    let op = if negated { op.negated() } else { *op };
                    pairs.push(self.pair_violated(&values[i], op, &values[i + 1], delta)?);
                }
                if pairs.len() == 1 {
                    pairs.remove(0)
                } else {
                    app(if negated { Op::And } else { Op::Or }, pairs)
                }
            }
            Expr::Equiv {
                left,
                right,
                except,
                ..
            } => {
                let (l, r) = (self.case(left)?, self.case(right)?);
                let mut same = vec![bool_const(true)];
                for (i, f) in self.enc.fields.iter().enumerate() {
                    if except.contains(&f.name) || self.enc.vars[l][i] == self.enc.vars[r][i] {
                        continue;
                    }
                    let k = kind_of(&f.encoding);
                    same.push(app(
                        Op::Eq,
                        vec![var(self.enc.vars[l][i], k), var(self.enc.vars[r][i], k)],
                    ));
                }
                let equal = app(Op::And, same);
                boolean(if negated { term::not(&equal) } else { equal })
            }
            other => match self.value(other)? {
                Tv::Bool(b) => boolean(if negated { term::not(&b) } else { b }),
                _ => return Err(format!("`{other}` is not a condition")),
            },
        })
    }
}

/// Which earlier case a case is declared equivalent to in every disjunct of `e`, and the
/// fields it may differ on there.
fn equivalence(e: &Expr, case: &str, earlier: &[String]) -> Option<(String, Vec<String>)> {
    match e {
        Expr::Equiv {
            left,
            right,
            except,
            ..
        } => {
            let partner = if left == case {
                right
            } else if right == case {
                left
            } else {
                return None;
            };
            earlier
                .contains(partner)
                .then(|| (partner.clone(), except.clone()))
        }
        Expr::And(a, b) => match (equivalence(a, case, earlier), equivalence(b, case, earlier)) {
            (Some((p, mut fa)), Some((q, fb))) if p == q => {
                fa.retain(|f| fb.contains(f));
                Some((p, fa))
            }
            (Some(x), _) | (None, Some(x)) => Some(x),
            (None, None) => None,
        },
        Expr::Or(a, b) => match (equivalence(a, case, earlier), equivalence(b, case, earlier)) {
            (Some((p, mut fa)), Some((q, fb))) if p == q => {
                for f in fb {
                    if !fa.contains(&f) {
                        fa.push(f);
                    }
                }
                Some((p, fa))
            }
            _ => None,
        },
        _ => None,
    }
}

/// How each domain field is given to the scope.
fn encode_fields(
    program: &Program,
    scope: ScopeId,
    domain: &Domain,
) -> Result<Vec<EncodedField>, String> {
    let decl = program.scope(scope);
    let mut out = Vec::new();
    for spec in &domain.fields {
        let (input, decl_input) = decl
            .inputs
            .iter()
            .enumerate()
            .find(|(_, i)| i.name == spec.name && i.kind != InputKind::Internal)
            .ok_or_else(|| format!("the scope has no input `{}`", spec.name))?;
        let _ = decl_input.kind;
        let mismatch = || {
            format!(
                "field `{}`: its domain type does not fit the scope input's type",
                spec.name
            )
        };
        let encoding = match (&decl_input.ty, &spec.kind) {
            (Ty::Bool, FieldKind::Boolean) => FieldEncoding::Bool,
            (Ty::Integer, FieldKind::Integer { .. }) => FieldEncoding::Integer,
            (Ty::Money, FieldKind::Number { .. }) => FieldEncoding::Money,
            (Ty::Decimal, FieldKind::Number { .. }) => FieldEncoding::Decimal,
            (Ty::Enum(id), FieldKind::Enum { choices }) => {
                let def = program.enumeration(*id);
                let mut case_of = Vec::new();
                for c in choices {
                    let i = def
                        .cases
                        .iter()
                        .position(|k| &k.name == c)
                        .ok_or_else(|| format!("field `{}`: no case `{c}`", spec.name))?;
                    if def.cases[i].payload.is_some() {
                        return Err(format!(
                            "field `{}`: case `{c}` has a payload (not encoded)",
                            spec.name
                        ));
                    }
                    case_of.push(i as u32);
                }
                FieldEncoding::Enum {
                    enum_id: id.0,
                    case_of,
                }
            }
            (Ty::Date, FieldKind::Enum { choices }) => {
                let mut days = Vec::new();
                for c in choices {
                    let d = Date::parse(c)
                        .ok_or_else(|| format!("field `{}`: `{c}` is not a date", spec.name))?;
                    days.push(d.day_number());
                }
                FieldEncoding::Date { days }
            }
            _ => return Err(mismatch()),
        };
        out.push(EncodedField {
            name: spec.name.clone(),
            input,
            encoding,
        });
    }
    // An `input` the domain leaves out would be missing from every run: the exploration would
    // then prove the relation of runs that all fail, not of the scope. (A context variable
    // left out keeps its definitions.)
    if let Some(missing) = decl
        .inputs
        .iter()
        .find(|i| i.kind == InputKind::Input && !out.iter().any(|f| f.name == i.name))
    {
        return Err(format!(
            "the scope's input `{}` is not a field of the domain: a proof explores the domain's \
             fields only (add `{}` to the domain)",
            missing.name, missing.name
        ));
    }
    Ok(out)
}

fn shape_of(program: &Program, f: &EncodedField, v: VarId) -> CaseInput {
    match &f.encoding {
        FieldEncoding::Bool => CaseInput::Bool(v),
        FieldEncoding::Integer => CaseInput::Integer(v),
        FieldEncoding::Money => CaseInput::Money(v),
        FieldEncoding::Decimal => CaseInput::Decimal(v),
        FieldEncoding::Date { .. } => CaseInput::Date(v),
        FieldEncoding::Enum { enum_id, .. } => CaseInput::Enum {
            enum_id: *enum_id,
            tag: v,
            cases: program
                .enumeration(catala_ir::dcalc::EnumId(*enum_id))
                .cases
                .len(),
        },
    }
}

/// The range, step and choices of one field variable.
fn field_domain(domain: &Domain, f: &EncodedField, v: VarId, aux: &mut Aux) -> Vec<Term> {
    let k = kind_of(&f.encoding);
    let x = var(v, k);
    let spec = domain.field(&f.name).map(|s| s.kind.clone());
    let mut out = Vec::new();
    match (&f.encoding, spec) {
        (FieldEncoding::Integer, Some(FieldKind::Integer { min, max })) => {
            out.push(app(Op::Ge, vec![x.clone(), int_const(min.to_string())]));
            out.push(app(Op::Le, vec![x, int_const(max.to_string())]));
        }
        (FieldEncoding::Money, Some(FieldKind::Number { min, max, step })) => {
            let lo = (min * 100.0).ceil() as i64;
            let hi = (max * 100.0).floor() as i64;
            out.push(app(Op::Ge, vec![x.clone(), int_const(lo.to_string())]));
            out.push(app(Op::Le, vec![x.clone(), int_const(hi.to_string())]));
            let cents = (step * 100.0).round() as i64;
            if cents > 1 && ((step * 100.0) - cents as f64).abs() < 1e-9 {
                let k = aux.fresh_int();
                out.push(app(
                    Op::Eq,
                    vec![x, app(Op::Mul, vec![int_const(cents.to_string()), k])],
                ));
            }
        }
        (FieldEncoding::Decimal, Some(FieldKind::Number { min, max, step })) => {
            if let (Ok(lo), Ok(hi)) = (number_term(min), number_term(max)) {
                out.push(app(Op::Ge, vec![x.clone(), lo]));
                out.push(app(Op::Le, vec![x.clone(), hi]));
            }
            if step > 0.0 {
                if let Ok(s) = number_term(step) {
                    let k = aux.fresh_int();
                    out.push(app(Op::Eq, vec![x, app(Op::Mul, vec![s, to_real(k)])]));
                }
            }
        }
        (FieldEncoding::Enum { case_of, .. }, _) => {
            let options = case_of
                .iter()
                .map(|c| app(Op::Eq, vec![x.clone(), int_const(c.to_string())]))
                .collect();
            out.push(app(Op::Or, options));
        }
        (FieldEncoding::Date { days }, _) => {
            let options = days
                .iter()
                .map(|d| app(Op::Eq, vec![x.clone(), int_const(d.to_string())]))
                .collect();
            out.push(app(Op::Or, options));
        }
        _ => {}
    }
    out
}

/// Builds the variables, shapes and globals of `relation`'s cases on `scope`.
pub fn encode(
    program: &Program,
    scope: ScopeId,
    domain: &Domain,
    relation: &Relation,
) -> Result<Encoding, String> {
    let fields = encode_fields(program, scope, domain)?;
    let cases = relation.all_vars();
    if cases.is_empty() {
        return Err("the relation has no case".to_string());
    }
    let premise = relation.premise();
    let mut vars: Vec<Vec<VarId>> = Vec::new();
    let mut shares = Vec::new();
    let mut inputs: Vec<InputVar> = Vec::new();
    let fresh = |inputs: &mut Vec<InputVar>, case: &str, f: &EncodedField| {
        let id = VarId(inputs.len() as u32);
        inputs.push(InputVar {
            kind: kind_of(&f.encoding),
            path: format!("{case}.{}", f.name),
            is_money: matches!(f.encoding, FieldEncoding::Money),
        });
        id
    };
    for (c, case) in cases.iter().enumerate() {
        let shared = equivalence(&premise, case, &cases[..c]);
        let mut row = Vec::with_capacity(fields.len());
        match &shared {
            Some((partner, differ)) => {
                let p = cases.iter().position(|x| x == partner).unwrap_or(0);
                for (i, f) in fields.iter().enumerate() {
                    row.push(if differ.contains(&f.name) {
                        fresh(&mut inputs, case, f)
                    } else {
                        vars[p][i]
                    });
                }
                shares.push(Some((p, differ.clone())));
            }
            None => {
                for f in &fields {
                    row.push(fresh(&mut inputs, case, f));
                }
                shares.push(None);
            }
        }
        vars.push(row);
    }
    let decl = program.scope(scope);
    let mut case_shapes = Vec::with_capacity(cases.len());
    for row in &vars {
        let mut shapes: Vec<Option<CaseInput>> = vec![None; decl.inputs.len()];
        for (f, v) in fields.iter().zip(row) {
            shapes[f.input] = Some(shape_of(program, f, *v));
        }
        case_shapes.push(shapes);
    }
    let mut enc = Encoding {
        fields,
        cases,
        vars,
        shares,
        space: RelationalSpace {
            vars: inputs,
            cases: case_shapes,
            globals: Vec::new(),
            first_free_var: 0,
        },
    };
    let mut aux = Aux {
        next: enc.space.vars.len() as u32,
        defs: Vec::new(),
    };
    let mut globals = Vec::new();
    // Ranges of each variable once (shared variables are bounded by their owner).
    let mut seen = std::collections::BTreeSet::new();
    for row in &enc.vars {
        for (f, v) in enc.fields.iter().zip(row) {
            if seen.insert(*v) {
                globals.extend(field_domain(domain, f, *v, &mut aux));
            }
        }
    }
    for c in 0..enc.cases.len() {
        for (text, constraint) in &domain.constraints {
            let mut t = Translator {
                enc: &enc,
                domain,
                scope: Scope::Fields(c),
                aux: &mut aux,
            };
            let v = t
                .violated(constraint, false, 0.0)
                .map_err(|e| format!("domain constraint `{text}`: {e}"))?;
            globals.push(term::not(&v));
        }
    }
    let mut t = Translator {
        enc: &enc,
        domain,
        scope: Scope::Relation { outputs: None },
        aux: &mut aux,
    };
    let premise_violated = t
        .violated(&premise, false, 0.0)
        .map_err(|e| format!("premise: {e}"))?;
    globals.push(term::not(&premise_violated));
    globals.append(&mut aux.defs);
    enc.space.globals = globals;
    enc.space.first_free_var = aux.next;
    Ok(enc)
}

/// The conclusion of a relation as the exploration's goal.
pub struct ConclusionGoal<'a> {
    pub encoding: &'a Encoding,
    pub domain: &'a Domain,
    pub conclusion: &'a Expr,
    pub tolerance: f64,
}

impl Goal for ConclusionGoal<'_> {
    fn violation(
        &mut self,
        outputs: &[Vec<CaseOutput>],
        first_free_var: u32,
    ) -> Result<Term, String> {
        let mut aux = Aux {
            next: first_free_var,
            defs: Vec::new(),
        };
        let mut t = Translator {
            enc: self.encoding,
            domain: self.domain,
            scope: Scope::Relation {
                outputs: Some(outputs),
            },
            aux: &mut aux,
        };
        let v = t.violated(self.conclusion, false, self.tolerance)?;
        if aux.defs.is_empty() {
            return Ok(v);
        }
        let mut all = vec![v];
        all.append(&mut aux.defs);
        Ok(app(Op::And, all))
    }
}
