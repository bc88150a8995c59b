//! What "the two versions differ" means at a leaf of the product exploration: some paired
//! output has another value, or the outcome differs. An error (a conflict, an empty default, a
//! runtime error, a failed assertion) is an outcome: an error in one version only, or errors
//! of different kinds, is a difference; errors of the same kind in both are the same outcome
//! (their positions are in different files, so the kind is what is compared).

use crate::product_executor::{CaseOutcome, CaseOutput};
use crate::relational::Goal;
use crate::symbolic::{constant_term, Sym};
use catala_eval::runtime::json::value_to_json;
use catala_eval::runtime::Value;
use catala_ir::dcalc::{EnumId, Program, StructId};
use smt::catala::term::{self, app, bool_const, int_const, Op, Term, TermNode};

/// The goal of a difference: the condition under which the leaf's outcomes differ.
pub(crate) struct DifferenceGoal<'p> {
    pub(crate) old: &'p Program,
    pub(crate) new: &'p Program,
    /// Paired outputs: (OLD's index, NEW's index).
    pub(crate) outputs: Vec<(usize, usize)>,
}

/// `a ∨ b ∨ …`, folding constants.
pub(crate) fn any(terms: Vec<Term>) -> Term {
    let mut kept = Vec::new();
    for t in terms {
        match &*t {
            TermNode::Bool(true) => return t,
            TermNode::Bool(false) => {}
            _ => kept.push(t),
        }
    }
    match kept.len() {
        0 => bool_const(false),
        1 => kept.remove(0),
        _ => app(Op::Or, kept),
    }
}

/// `a ∧ b ∧ …`, folding constants.
fn all(terms: Vec<Term>) -> Term {
    let mut kept = Vec::new();
    for t in terms {
        match &*t {
            TermNode::Bool(false) => return t,
            TermNode::Bool(true) => {}
            _ => kept.push(t),
        }
    }
    match kept.len() {
        0 => bool_const(true),
        1 => kept.remove(0),
        _ => app(Op::And, kept),
    }
}

/// `a ≠ b`, decided at once when both are the same term or both constants.
fn not_equal(a: &Term, b: &Term) -> Result<Term, String> {
    if a == b {
        return Ok(bool_const(false));
    }
    if a.kind() != b.kind() {
        return Err("an output has another type in NEW than in OLD".into());
    }
    match (&**a, &**b) {
        (TermNode::Int(x), TermNode::Int(y)) => Ok(bool_const(x != y)),
        (TermNode::Bool(x), TermNode::Bool(y)) => Ok(bool_const(x != y)),
        (TermNode::Real(..), TermNode::Real(..)) => Ok(bool_const(true)),
        _ => Ok(term::not(&app(Op::Eq, vec![a.clone(), b.clone()]))),
    }
}

/// A value with its companion, in its program.
#[derive(Clone, Copy)]
pub(crate) struct Side<'a> {
    pub(crate) program: &'a Program,
    pub(crate) value: &'a Value,
    pub(crate) sym: &'a Sym,
}

/// The scalar term of a value: its symbolic term, or its constant.
fn scalar(side: Side<'_>) -> Option<Term> {
    match side.sym {
        Sym::Scalar(t) => Some(t.clone()),
        Sym::Date(parts) => Some(parts[0].clone()),
        Sym::Concrete => constant_term(side.value),
        _ => None,
    }
}

/// The parts of a duration as terms (years, months, days).
fn duration_parts(side: Side<'_>) -> Option<[Term; 3]> {
    match (side.sym, side.value) {
        (Sym::Duration(p), _) => Some((**p).clone()),
        (Sym::Scalar(days), _) => Some([int_const("0"), int_const("0"), days.clone()]),
        (Sym::Concrete, Value::Duration(d)) => Some([
            int_const(d.years.to_string()),
            int_const(d.months.to_string()),
            int_const(d.days.to_string()),
        ]),
        _ => None,
    }
}

/// The condition under which two values (of OLD and NEW) differ, over the input variables.
pub(crate) fn differs(a: Side<'_>, b: Side<'_>) -> Result<Term, String> {
    if a.sym.is_concrete() && b.sym.is_concrete() {
        let same = value_to_json(a.program, a.value) == value_to_json(b.program, b.value);
        return Ok(bool_const(!same));
    }
    if let (Value::Duration(_), Value::Duration(_)) = (a.value, b.value) {
        if let (Some(x), Some(y)) = (duration_parts(a), duration_parts(b)) {
            let parts = x
                .iter()
                .zip(&y)
                .map(|(p, q)| not_equal(p, q))
                .collect::<Result<Vec<_>, _>>()?;
            return Ok(any(parts));
        }
    }
    if let (Some(x), Some(y)) = (scalar(a), scalar(b)) {
        return not_equal(&x, &y);
    }
    match (a.value, b.value) {
        (Value::Struct(sa), Value::Struct(sb)) => {
            let (da, db) = (
                a.program.structure(StructId(sa.struct_id)),
                b.program.structure(StructId(sb.struct_id)),
            );
            let parts_a = parts(a.sym, sa.fields.len());
            let parts_b = parts(b.sym, sb.fields.len());
            let mut out = Vec::new();
            for (i, f) in da.fields.iter().enumerate() {
                let Some(j) = db.fields.iter().position(|g| g.name == f.name) else {
                    return Ok(bool_const(true));
                };
                let (Some(va), Some(vb)) = (sa.fields.get(i), sb.fields.get(j)) else {
                    return Err("a structure output without its fields".into());
                };
                out.push(differs(
                    Side {
                        program: a.program,
                        value: va,
                        sym: &parts_a[i],
                    },
                    Side {
                        program: b.program,
                        value: vb,
                        sym: &parts_b[j],
                    },
                )?);
            }
            Ok(any(out))
        }
        (Value::Enum(ea), Value::Enum(eb)) => {
            let (ca, cb) = (
                &a.program.enumeration(EnumId(ea.enum_id)).cases,
                &b.program.enumeration(EnumId(eb.enum_id)).cases,
            );
            let same_cases =
                ca.len() == cb.len() && ca.iter().zip(cb.iter()).all(|(x, y)| x.name == y.name);
            let tag = |side: Side<'_>, case: u32| match side.sym {
                Sym::Enum { tag, payloads } => Some((tag.clone(), payloads.clone())),
                Sym::Concrete => Some((int_const(case.to_string()), Vec::new().into())),
                _ => None,
            };
            let (Some((ta, pa)), Some((tb, pb))) = (tag(a, ea.case), tag(b, eb.case)) else {
                return Err("an enumeration output without its case".into());
            };
            if !same_cases {
                return Err("an enumeration output has other cases in NEW than in OLD".into());
            }
            // Payloads other than the current case's are not known as values: compare the
            // case, and the current payloads when the cases are the same.
            let payload_a = pa.get(ea.case as usize).cloned().unwrap_or_default();
            let payload_b = pb.get(eb.case as usize).cloned().unwrap_or_default();
            let cases_differ = not_equal(&ta, &tb)?;
            let payload = if ea.case == eb.case {
                differs(
                    Side {
                        program: a.program,
                        value: &ea.payload,
                        sym: &payload_a,
                    },
                    Side {
                        program: b.program,
                        value: &eb.payload,
                        sym: &payload_b,
                    },
                )?
            } else {
                bool_const(true)
            };
            if !ta.is_ground() || !tb.is_ground() {
                let fixed = all(vec![
                    app(Op::Eq, vec![ta.clone(), int_const(ea.case.to_string())]),
                    app(Op::Eq, vec![tb.clone(), int_const(eb.case.to_string())]),
                ]);
                if !matches!(&*payload, TermNode::Bool(false)) {
                    // Where the cases are other than this run's, the payloads are unknown.
                    return Ok(any(vec![cases_differ, all(vec![fixed, payload])]));
                }
            }
            Ok(any(vec![cases_differ, payload]))
        }
        _ => Err("list outputs that depend on the inputs are not compared".into()),
    }
}

/// The parts of a structure's companion.
fn parts(sym: &Sym, n: usize) -> Vec<Sym> {
    match sym {
        Sym::Struct(p) => p.to_vec(),
        _ => vec![Sym::Concrete; n],
    }
}

impl DifferenceGoal<'_> {
    /// The condition under which output pair `(k, j)` differs.
    pub(crate) fn output_differs(
        &self,
        old: &[CaseOutput],
        new: &[CaseOutput],
        (k, j): (usize, usize),
    ) -> Result<Term, String> {
        let (Some(a), Some(b)) = (old.get(k), new.get(j)) else {
            return Err("a version gave fewer outputs than it declares".into());
        };
        differs(
            Side {
                program: self.old,
                value: &a.value,
                sym: &a.sym,
            },
            Side {
                program: self.new,
                value: &b.value,
                sym: &b.sym,
            },
        )
        .map_err(|e| format!("output `{}`: {e}", a.name))
    }
}

impl Goal for DifferenceGoal<'_> {
    fn violation(&mut self, outputs: &[Vec<CaseOutput>], _: u32) -> Result<Term, String> {
        let [old, new] = outputs else {
            return Err("a difference has two cases".into());
        };
        let parts = self
            .outputs
            .iter()
            .map(|&pair| self.output_differs(old, new, pair))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(any(parts))
    }

    fn outcome_violation(
        &mut self,
        outcomes: &[CaseOutcome],
        _: u32,
    ) -> Option<Result<Term, String>> {
        Some(match outcomes {
            [CaseOutcome::Failed(a), CaseOutcome::Failed(b)] => Ok(bool_const(a.kind != b.kind)),
            [_, _] => Ok(bool_const(true)),
            _ => Err("a difference has two cases".into()),
        })
    }
}
