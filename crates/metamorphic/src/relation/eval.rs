//! Evaluation of relation expressions against records. Besides truth, a formula gets a
//! *deviation*: how far a violated formula is from holding (for `F(x) >= F(y)`, the amount
//! `F(y) - F(x)`; for `=`, the absolute difference; a violated boolean counts 1). The search
//! labels a test failed when its conclusion deviates by more than the tolerance δ, and keeps
//! the most deviating base as its next seed.

use super::{ArithOp, Builtin, CmpOp, Expr};
use crate::value::{Record, Value};
use diagnostics::Span;
use thiserror::Error;

/// Smallest deviation reported for a violated strict comparison between equal numbers.
const STRICT_VIOLATION: f64 = 1e-9;
/// Relative difference below which two numbers are taken as equal.
const RELATIVE_NOISE: f64 = 1e-9;

/// An error while evaluating an expression (`Display`: the message; shown at its span by
/// [`crate::Located`], with the sources of the relation or domain the expression is from).
#[derive(Debug, Clone, Error, PartialEq)]
pub enum EvalError {
    #[error("`{var}` has no field `{field}`")]
    UnknownField {
        var: String,
        field: String,
        span: Span,
    },
    #[error("`{name}` is neither a name known here nor a choice of an enum field")]
    UnknownName { name: String, span: Span },
    #[error("the system returned no output `{output}` for `{var}`")]
    MissingOutput {
        output: String,
        var: String,
        span: Span,
    },
    #[error("`{var}` is not bound here")]
    UnboundVariable { var: String, span: Span },
    #[error("type error: {0}")]
    Type(String),
}

impl crate::Positioned for EvalError {
    fn span(&self) -> Option<Span> {
        match self {
            EvalError::UnknownField { span, .. }
            | EvalError::UnknownName { span, .. }
            | EvalError::MissingOutput { span, .. }
            | EvalError::UnboundVariable { span, .. } => Some(*span),
            EvalError::Type(_) => None,
        }
    }
}

/// What an expression can read: case fields, bare names and outputs.
pub trait Environment {
    /// `var.field`
    fn field(&self, var: &str, field: &str) -> Option<Value>;
    /// A bare name's value (a field in single-record contexts).
    fn name(&self, name: &str) -> Option<Value>;
    /// Whether a bare name without a value is an enumeration constant; any other such name
    /// is an error (a misspelt output must not become a constant).
    fn is_constant(&self, name: &str) -> bool;
    /// `F(var)` (output None) or `out.name(var)`.
    fn output(&self, output: Option<&str>, var: &str) -> Option<Value>;
    /// The whole input record of a case variable (for equivalences).
    fn record(&self, var: &str) -> Option<&Record>;
}

/// An environment over named input records and, optionally, their output values.
pub(crate) struct CaseEnvironment<'a> {
    pub vars: &'a [String],
    pub inputs: &'a [Record],
    /// Output records per variable (same order), when evaluating conclusions.
    pub outputs: Option<&'a [Record]>,
    /// Name of the main output `F` in the output records.
    pub main_output: &'a str,
}

impl CaseEnvironment<'_> {
    fn index(&self, var: &str) -> Option<usize> {
        self.vars.iter().position(|v| v == var)
    }
}

impl Environment for CaseEnvironment<'_> {
    fn field(&self, var: &str, field: &str) -> Option<Value> {
        self.inputs.get(self.index(var)?)?.get(field).cloned()
    }

    fn name(&self, _name: &str) -> Option<Value> {
        None
    }

    /// Relations are checked against the domain's enumeration choices before any search
    /// ([`crate::validate_relation`]), so their bare names are constants.
    fn is_constant(&self, _name: &str) -> bool {
        true
    }

    fn output(&self, output: Option<&str>, var: &str) -> Option<Value> {
        let record = self.outputs?.get(self.index(var)?)?;
        record.get(output.unwrap_or(self.main_output)).cloned()
    }

    fn record(&self, var: &str) -> Option<&Record> {
        self.inputs.get(self.index(var)?)
    }
}

/// An environment of one record whose fields are read by bare name (domain constraints,
/// output definitions, features); other bare names must be among `constants` (the domain's
/// enumeration choices).
pub(crate) struct RecordEnvironment<'a> {
    pub record: &'a Record,
    pub constants: &'a [String],
}

impl Environment for RecordEnvironment<'_> {
    fn field(&self, _var: &str, _field: &str) -> Option<Value> {
        None
    }
    fn name(&self, name: &str) -> Option<Value> {
        self.record.get(name).cloned()
    }
    fn is_constant(&self, name: &str) -> bool {
        self.constants.iter().any(|c| c == name)
    }
    fn output(&self, _output: Option<&str>, _var: &str) -> Option<Value> {
        None
    }
    fn record(&self, _var: &str) -> Option<&Record> {
        None
    }
}

/// Truth of a formula and how far it is from holding (0 when it holds).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Judgement {
    pub holds: bool,
    pub deviation: f64,
}

impl Judgement {
    fn from_bool(holds: bool) -> Judgement {
        Judgement {
            holds,
            deviation: if holds { 0.0 } else { 1.0 },
        }
    }
}

fn number(value: &Value) -> Result<f64, EvalError> {
    value
        .as_f64()
        .ok_or_else(|| EvalError::Type(format!("`{value}` is not a number")))
}

/// Evaluates an expression to a value.
pub fn value(expr: &Expr, env: &dyn Environment) -> Result<Value, EvalError> {
    match expr {
        Expr::Bool(b) => Ok(Value::Bool(*b)),
        Expr::Number(n) => Ok(Value::Number(*n)),
        Expr::Name(name, span) => match env.name(name) {
            Some(v) => Ok(v),
            None if env.is_constant(name) => Ok(Value::Enum(name.clone())),
            None => Err(EvalError::UnknownName {
                name: name.clone(),
                span: *span,
            }),
        },
        Expr::Field { var, field, span } => {
            env.field(var, field)
                .ok_or_else(|| EvalError::UnknownField {
                    var: var.clone(),
                    field: field.clone(),
                    span: *span,
                })
        }
        Expr::Output { output, var, span } => {
            env.output(output.as_deref(), var)
                .ok_or_else(|| EvalError::MissingOutput {
                    output: output.clone().unwrap_or_else(|| "F".to_string()),
                    var: var.clone(),
                    span: *span,
                })
        }
        Expr::Neg(e) => Ok(Value::Number(-number(&value(e, env)?)?)),
        Expr::Arith(op, a, b) => {
            let a = number(&value(a, env)?)?;
            let b = number(&value(b, env)?)?;
            let result = match op {
                ArithOp::Add => a + b,
                ArithOp::Sub => a - b,
                ArithOp::Mul => a * b,
                ArithOp::Div => {
                    if b == 0.0 {
                        return Err(EvalError::Type("division by zero".to_string()));
                    }
                    a / b
                }
            };
            Ok(Value::Number(result))
        }
        Expr::Call(builtin, args) => {
            let numbers = args
                .iter()
                .map(|a| number(&value(a, env)?))
                .collect::<Result<Vec<f64>, EvalError>>()?;
            let first = numbers.first().copied().unwrap_or(0.0);
            let result = match builtin {
                Builtin::Ceil => first.ceil(),
                Builtin::Floor => first.floor(),
                Builtin::Abs => first.abs(),
                Builtin::Min => numbers.iter().copied().fold(f64::INFINITY, f64::min),
                Builtin::Max => numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            };
            Ok(Value::Number(result))
        }
        _ => Ok(Value::Bool(judge(expr, env, false)?.holds)),
    }
}

/// Whether a formula holds.
pub fn holds(expr: &Expr, env: &dyn Environment) -> Result<bool, EvalError> {
    Ok(judge(expr, env, false)?.holds)
}

fn values_equal(a: &Value, b: &Value) -> Result<bool, EvalError> {
    match (a, b) {
        (Value::Enum(x), Value::Enum(y)) => Ok(x == y),
        (Value::Enum(_), _) | (_, Value::Enum(_)) => {
            Err(EvalError::Type(format!("cannot compare `{a}` with `{b}`")))
        }
        _ => Ok(number(a)? == number(b)?),
    }
}

fn compare_pair(a: &Value, op: CmpOp, b: &Value) -> Result<Judgement, EvalError> {
    if matches!(a, Value::Enum(_)) || matches!(b, Value::Enum(_)) {
        let equal = values_equal(a, b)?;
        return match op {
            CmpOp::Eq => Ok(Judgement::from_bool(equal)),
            CmpOp::Ne => Ok(Judgement::from_bool(!equal)),
            _ => Err(EvalError::Type(format!(
                "`{}` needs numbers, found `{a}` and `{b}`",
                op.symbol()
            ))),
        };
    }
    let (x, y) = (number(a)?, number(b)?);
    // Numbers within floating-point noise of each other count as equal, so that sums of
    // money read back from JSON (e.g. 14000.000000001) do not fake violations.
    let close = (x - y).abs() <= RELATIVE_NOISE * x.abs().max(y.abs()).max(1.0);
    let holds = match op {
        CmpOp::Eq => close,
        CmpOp::Ne => !close,
        CmpOp::Lt => x < y && !close,
        CmpOp::Le => x <= y || close,
        CmpOp::Gt => x > y && !close,
        CmpOp::Ge => x >= y || close,
    };
    let deviation = if holds {
        0.0
    } else {
        (x - y).abs().max(STRICT_VIOLATION)
    };
    Ok(Judgement { holds, deviation })
}

fn all_of(parts: impl IntoIterator<Item = Judgement>) -> Judgement {
    let mut result = Judgement {
        holds: true,
        deviation: 0.0,
    };
    for part in parts {
        if !part.holds {
            result.holds = false;
            result.deviation = result.deviation.max(part.deviation);
        }
    }
    result
}

fn any_of(parts: impl IntoIterator<Item = Judgement>) -> Judgement {
    let mut deviation = f64::INFINITY;
    for part in parts {
        if part.holds {
            return Judgement {
                holds: true,
                deviation: 0.0,
            };
        }
        deviation = deviation.min(part.deviation);
    }
    Judgement {
        holds: false,
        deviation: if deviation.is_finite() {
            deviation
        } else {
            1.0
        },
    }
}

/// Truth and deviation of a formula (of its negation when `negated`).
pub fn judge(expr: &Expr, env: &dyn Environment, negated: bool) -> Result<Judgement, EvalError> {
    match expr {
        Expr::Not(inner) => judge(inner, env, !negated),
        Expr::And(a, b) | Expr::Or(a, b) => {
            let ja = judge(a, env, negated)?;
            let jb = judge(b, env, negated)?;
            let conjunctive = matches!(expr, Expr::And(..)) != negated;
            Ok(if conjunctive {
                all_of([ja, jb])
            } else {
                any_of([ja, jb])
            })
        }
        Expr::Implies(a, b) => {
            let ja = judge(a, env, !negated)?;
            let jb = judge(b, env, negated)?;
            Ok(if negated {
                all_of([ja, jb])
            } else {
                any_of([ja, jb])
            })
        }
        Expr::Compare { operands, ops } => {
            let values = operands
                .iter()
                .map(|o| value(o, env))
                .collect::<Result<Vec<Value>, EvalError>>()?;
            let mut pairs = Vec::with_capacity(ops.len());
            for (i, op) in ops.iter().enumerate() {
                let op = if negated { op.negated() } else { *op };
                pairs.push(compare_pair(&values[i], op, &values[i + 1])?);
            }
            Ok(if negated {
                any_of(pairs)
            } else {
                all_of(pairs)
            })
        }
        Expr::Equiv {
            left,
            right,
            except,
            span,
            ..
        } => {
            let unbound = |var: &String| EvalError::UnboundVariable {
                var: var.clone(),
                span: *span,
            };
            let l = env.record(left).ok_or_else(|| unbound(left))?;
            let r = env.record(right).ok_or_else(|| unbound(right))?;
            let mut equal = true;
            for (field, lv) in l {
                if except.contains(field) {
                    continue;
                }
                match r.get(field) {
                    Some(rv) if values_equal(lv, rv).unwrap_or(false) => {}
                    _ => {
                        equal = false;
                        break;
                    }
                }
            }
            equal &= r.keys().all(|k| except.contains(k) || l.contains_key(k));
            Ok(Judgement::from_bool(equal != negated))
        }
        _ => match value(expr, env)? {
            Value::Bool(b) => Ok(Judgement::from_bool(b != negated)),
            other => Err(EvalError::Type(format!(
                "`{expr}` is `{other}`, not a condition"
            ))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relation::parse_expression;

    fn case(pairs: &[(&str, Value)]) -> Record {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn deviation_measures_distance_to_holding() {
        let vars = vec!["x".to_string(), "y".to_string()];
        let inputs = vec![
            case(&[("a", Value::Integer(1))]),
            case(&[("a", Value::Integer(2))]),
        ];
        let outputs = vec![
            case(&[("r", Value::Number(100.0))]),
            case(&[("r", Value::Number(130.0))]),
        ];
        let env = CaseEnvironment {
            vars: &vars,
            inputs: &inputs,
            outputs: Some(&outputs),
            main_output: "r",
        };
        let ge = parse_expression("F(x) >= F(y)", &["x", "y"]).unwrap();
        assert_eq!(
            judge(&ge, &env, false).unwrap(),
            Judgement {
                holds: false,
                deviation: 30.0
            }
        );
        let either = parse_expression("F(x) >= F(y) or F(x) = F(y) - 10", &["x", "y"]).unwrap();
        assert_eq!(judge(&either, &env, false).unwrap().deviation, 20.0);
        let negated = parse_expression("not (F(x) < F(y))", &["x", "y"]).unwrap();
        assert_eq!(judge(&negated, &env, false).unwrap().deviation, 30.0);
        let noisy = parse_expression("F(x) + 30.000000000001 = F(y)", &["x", "y"]).unwrap();
        assert!(holds(&noisy, &env).unwrap());
        let implication = parse_expression("x.a = 2 => F(x) > 1000", &["x", "y"]).unwrap();
        assert!(holds(&implication, &env).unwrap());
    }

    #[test]
    fn equivalence_ignores_listed_fields_only() {
        let vars = vec!["x".to_string(), "y".to_string()];
        let inputs = vec![
            case(&[("a", Value::Integer(1)), ("s", Value::Enum("MFJ".into()))]),
            case(&[("a", Value::Integer(2)), ("s", Value::Enum("MFJ".into()))]),
        ];
        let env = CaseEnvironment {
            vars: &vars,
            inputs: &inputs,
            outputs: None,
            main_output: "F",
        };
        let except_a = parse_expression("x ==[a] y", &["x", "y"]).unwrap();
        let exact = parse_expression("x == y", &["x", "y"]).unwrap();
        assert!(holds(&except_a, &env).unwrap());
        assert!(!holds(&exact, &env).unwrap());
        let status = parse_expression("x.s = MFJ and y.s != MFS", &["x", "y"]).unwrap();
        assert!(holds(&status, &env).unwrap());
    }

    #[test]
    fn bare_names_read_fields_in_record_context() {
        let record = case(&[("AGI", Value::Number(1000.0)), ("MDE", Value::Number(80.0))]);
        let env = RecordEnvironment {
            record: &record,
            constants: &["MFJ".to_string()],
        };
        let floor = parse_expression("MDE <= AGI * 7.5%", &[]).unwrap();
        assert!(!holds(&floor, &env).unwrap());
        let ceil = parse_expression("ceil(AGI / 300)", &[]).unwrap();
        assert_eq!(value(&ceil, &env).unwrap(), Value::Number(4.0));
        // A declared choice is a constant; any other unknown name is an error with its
        // position, never a constant (a misspelt output would make F constant).
        let choice = parse_expression("MFJ", &[]).unwrap();
        assert_eq!(value(&choice, &env).unwrap(), Value::Enum("MFJ".into()));
        let misspelt = parse_expression("AGI + MDEE", &[]).unwrap();
        let error = value(&misspelt, &env).unwrap_err();
        // `MDEE` is bytes 6-10 of the text.
        assert_eq!(
            error,
            EvalError::UnknownName {
                name: "MDEE".into(),
                span: Span::new(diagnostics::FileId(0), 6, 10)
            }
        );
    }
}
