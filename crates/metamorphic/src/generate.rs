//! Test-case generation: base cases and follow-ups that satisfy a relation's premise.
//!
//! The premise is put in disjunctive normal form; each test picks one clause at random and
//! builds the cases constructively where the clause says how: a follow-up related by
//! `x ==[L] y` starts as a copy of `x` with only the fields of `L` redrawn; a literal
//! `y.f op e` (with `e` computable from the cases already built) narrows the draw of `y.f`
//! to the interval it allows, `y.f = e` fixes it, `y.b` / `not y.b` fixes a boolean. What the
//! clause does not pin down is drawn uniformly from the domain, and whatever is not
//! constructive (non-linear literals, domain constraints) is enforced by rejection: every
//! case returned satisfies the domain and the whole premise.

use crate::domain::{Domain, Interval};
use crate::relation::eval::{holds, value, CaseEnvironment};
use crate::relation::{CmpOp, Expr, Relation};
use crate::rng::SeededRng;
use crate::value::{Record, Value};
use std::collections::HashMap;

/// Attempts before giving up on one draw (the search then counts a generation failure).
const ATTEMPTS: usize = 200;
/// Beyond this many clauses the premise is handled by rejection alone.
const MAX_CLAUSES: usize = 512;

/// One conjunction of literals (each literal a comparison pair, an equivalence, a boolean
/// atom, or the negation of one of the latter two).
type Literals = Vec<Expr>;

/// A literal that bounds one field: `field op other`.
#[derive(Debug, Clone)]
struct FieldConstraint {
    op: CmpOp,
    other: Expr,
    /// The case variables `other` reads (all must be built before it can be computed).
    other_vars: Vec<String>,
}

/// A clause with what it says about each field, worked out once.
#[derive(Debug, Clone)]
struct Clause {
    literals: Literals,
    /// The variables of each literal.
    literal_vars: Vec<Vec<String>>,
    /// variable -> field -> constraints.
    constraints: HashMap<String, HashMap<String, Vec<FieldConstraint>>>,
}

impl Clause {
    fn new(literals: Literals) -> Clause {
        let literal_vars = literals.iter().map(Expr::variables).collect();
        let mut constraints: HashMap<String, HashMap<String, Vec<FieldConstraint>>> =
            HashMap::new();
        let mut add = |var: &str, field: &str, op: CmpOp, other: Expr| {
            let mut self_reference = false;
            other.walk(&mut |e| {
                self_reference |=
                    matches!(e, Expr::Field { var: v, field: f, .. } if v == var && f == field)
            });
            if self_reference {
                return;
            }
            let other_vars = other.variables();
            constraints
                .entry(var.to_string())
                .or_default()
                .entry(field.to_string())
                .or_default()
                .push(FieldConstraint {
                    op,
                    other,
                    other_vars,
                });
        };
        for literal in &literals {
            match literal {
                Expr::Compare { operands, ops } if operands.len() == 2 => {
                    if let Expr::Field { var, field, .. } = &operands[0] {
                        add(var, field, ops[0], operands[1].clone());
                    }
                    if let Expr::Field { var, field, .. } = &operands[1] {
                        add(var, field, ops[0].flipped(), operands[0].clone());
                    }
                }
                Expr::Field { var, field, .. } => add(var, field, CmpOp::Eq, Expr::Bool(true)),
                Expr::Not(inner) => {
                    if let Expr::Field { var, field, .. } = inner.as_ref() {
                        add(var, field, CmpOp::Eq, Expr::Bool(false));
                    }
                }
                _ => {}
            }
        }
        Clause {
            literals,
            literal_vars,
            constraints,
        }
    }
}

/// The literal-level normal form of `expr` (negated when `negated`).
fn dnf(expr: &Expr, negated: bool) -> Vec<Literals> {
    match expr {
        Expr::Bool(b) => {
            if *b != negated {
                vec![Vec::new()]
            } else {
                Vec::new()
            }
        }
        Expr::Not(inner) => dnf(inner, !negated),
        Expr::And(a, b) | Expr::Or(a, b) => {
            let conjunctive = matches!(expr, Expr::And(..)) != negated;
            combine(dnf(a, negated), dnf(b, negated), conjunctive)
        }
        Expr::Implies(a, b) => combine(dnf(a, !negated), dnf(b, negated), negated),
        Expr::Compare { operands, ops } => {
            let pairs: Vec<Expr> = ops
                .iter()
                .enumerate()
                .map(|(i, op)| Expr::Compare {
                    operands: vec![operands[i].clone(), operands[i + 1].clone()],
                    ops: vec![if negated { op.negated() } else { *op }],
                })
                .collect();
            if negated {
                pairs.into_iter().map(|p| vec![p]).collect()
            } else {
                vec![pairs]
            }
        }
        other => {
            let literal = if negated {
                Expr::Not(Box::new(other.clone()))
            } else {
                other.clone()
            };
            vec![vec![literal]]
        }
    }
}

fn combine(left: Vec<Literals>, right: Vec<Literals>, conjunctive: bool) -> Vec<Literals> {
    if !conjunctive {
        let mut all = left;
        all.extend(right);
        return all;
    }
    let mut product = Vec::new();
    for l in &left {
        for r in &right {
            let mut clause = l.clone();
            clause.extend(r.iter().cloned());
            product.push(clause);
            if product.len() > MAX_CLAUSES {
                return vec![Vec::new()];
            }
        }
    }
    product
}

/// What a clause says about one field of one case.
#[derive(Debug, Clone)]
struct FieldBounds {
    interval: Interval,
    fixed: Option<Value>,
    excluded: Vec<Value>,
}

impl FieldBounds {
    fn new() -> FieldBounds {
        FieldBounds {
            interval: Interval::unbounded(),
            fixed: None,
            excluded: Vec::new(),
        }
    }

    fn is_trivial(&self) -> bool {
        self.fixed.is_none() && self.excluded.is_empty() && self.interval == Interval::unbounded()
    }

    fn add(&mut self, op: CmpOp, bound: Value) {
        let Some(x) = bound.as_f64().filter(|_| !matches!(bound, Value::Bool(_))) else {
            match op {
                CmpOp::Eq => self.fixed = Some(bound),
                CmpOp::Ne => self.excluded.push(bound),
                _ => {}
            }
            return;
        };
        match op {
            CmpOp::Eq => self.fixed = Some(bound),
            CmpOp::Ne => self.excluded.push(bound),
            CmpOp::Lt => self.interval.lower_hi(x, true),
            CmpOp::Le => self.interval.lower_hi(x, false),
            CmpOp::Gt => self.interval.raise_lo(x, true),
            CmpOp::Ge => self.interval.raise_lo(x, false),
        }
    }

    fn admits(&self, v: &Value) -> bool {
        if let Some(f) = &self.fixed {
            return same_value(f, v);
        }
        if self.excluded.iter().any(|e| same_value(e, v)) {
            return false;
        }
        match v {
            Value::Enum(_) => true,
            other => other.as_f64().is_some_and(|x| self.interval.contains(x)),
        }
    }
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Enum(x), Value::Enum(y)) => x == y,
        _ => a.as_f64().is_some() && a.as_f64() == b.as_f64(),
    }
}

/// Cases built so far for one test, with their variable names.
#[derive(Default)]
struct BuiltCases {
    names: Vec<String>,
    cases: Vec<Record>,
}

/// Generates premise-respecting cases for one relation on one domain.
pub(crate) struct CaseGenerator<'a> {
    relation: &'a Relation,
    domain: &'a Domain,
    clauses: Vec<Clause>,
    vars: Vec<String>,
    premise: Expr,
}

impl<'a> CaseGenerator<'a> {
    pub(crate) fn new(relation: &'a Relation, domain: &'a Domain) -> CaseGenerator<'a> {
        let premise = relation.premise();
        let mut literal_sets = dnf(&premise, false);
        if literal_sets.is_empty() {
            // An unsatisfiable premise: keep one empty clause; rejection will report it.
            literal_sets.push(Vec::new());
        }
        let clauses = literal_sets.into_iter().map(Clause::new).collect();
        CaseGenerator {
            relation,
            domain,
            clauses,
            vars: relation.all_vars(),
            premise,
        }
    }

    /// How many clauses the premise has in normal form (read by the tests).
    #[cfg(test)]
    pub(crate) fn clause_count(&self) -> usize {
        self.clauses.len()
    }

    /// The bounds the constraints of one field put on it, given the cases built so far.
    fn bounds_for(
        constraints: &[FieldConstraint],
        names: &[String],
        cases: &[Record],
    ) -> FieldBounds {
        let env = CaseEnvironment {
            vars: names,
            inputs: cases,
            outputs: None,
            main_output: "",
        };
        let mut bounds = FieldBounds::new();
        for constraint in constraints {
            if constraint.other_vars.iter().all(|v| names.contains(v)) {
                if let Ok(bound) = value(&constraint.other, &env) {
                    bounds.add(constraint.op, bound);
                }
            }
        }
        bounds
    }

    /// Draws a value for `field` meeting `bounds`.
    fn draw(&self, field: &str, bounds: &FieldBounds, rng: &mut SeededRng) -> Option<Value> {
        let spec = self.domain.field(field)?;
        if let Some(fixed) = &bounds.fixed {
            let value = match (fixed, &spec.kind) {
                (v, crate::domain::FieldKind::Integer { .. }) => {
                    Value::Integer(v.as_f64()?.round() as i64)
                }
                (Value::Integer(i), crate::domain::FieldKind::Number { .. }) => {
                    Value::Number(*i as f64)
                }
                (v, _) => v.clone(),
            };
            return Some(value);
        }
        for _ in 0..20 {
            let v = spec.sample_within(&bounds.interval, rng)?;
            if bounds.admits(&v) {
                return Some(v);
            }
        }
        None
    }

    /// Adjusts `case` (the case of `var`, at index `names.len()` once pushed) so the clause's
    /// literals on its fields hold; fields in `redraw` are drawn afresh in any case.
    fn shape_case(
        &self,
        clause: &Clause,
        var: &str,
        case: Record,
        redraw: &dyn Fn(&str) -> bool,
        built: &mut BuiltCases,
        rng: &mut SeededRng,
    ) -> Option<()> {
        built.names.push(var.to_string());
        built.cases.push(case);
        let last = built.cases.len() - 1;
        let var_constraints = clause.constraints.get(var);
        for spec in &self.domain.fields {
            let constraints = var_constraints.and_then(|c| c.get(&spec.name));
            let must_redraw = redraw(&spec.name);
            if constraints.is_none() && !must_redraw {
                continue;
            }
            let bounds = match constraints {
                Some(c) => Self::bounds_for(c, &built.names, &built.cases),
                None => FieldBounds::new(),
            };
            let current_ok = built.cases[last]
                .get(&spec.name)
                .is_some_and(|v| bounds.admits(v));
            if must_redraw || (!bounds.is_trivial() && !current_ok) {
                let v = self.draw(&spec.name, &bounds, rng)?;
                built.cases[last].insert(spec.name.clone(), v);
            }
        }
        Some(())
    }

    fn clause_holds_on(&self, clause: &Clause, vars: &[String], cases: &[Record]) -> bool {
        let env = CaseEnvironment {
            vars,
            inputs: cases,
            outputs: None,
            main_output: "",
        };
        clause
            .literals
            .iter()
            .zip(&clause.literal_vars)
            .all(|(literal, mentions)| {
                !mentions.iter().all(|v| vars.contains(v)) || holds(literal, &env).unwrap_or(false)
            })
    }

    fn admitted(&self, cases: &[Record]) -> bool {
        cases.iter().all(|c| self.domain.admits(c).unwrap_or(false))
    }

    /// Redraws 1 to 3 random fields of a case (the uniform perturbation of Algorithm 1).
    pub(crate) fn perturb(&self, case: &Record, rng: &mut SeededRng) -> Record {
        let mut out = case.clone();
        let n = 1 + rng.below(3);
        for _ in 0..n {
            let spec = &self.domain.fields[rng.below(self.domain.fields.len())];
            out.insert(spec.name.clone(), spec.sample(rng));
        }
        out
    }

    /// Base cases (one per base variable) meeting the base premise and the base-only
    /// literals of some clause: perturbations of `seed` when given, fresh draws otherwise.
    pub(crate) fn base_cases(
        &self,
        seed: Option<&[Record]>,
        rng: &mut SeededRng,
    ) -> Option<Vec<Record>> {
        let base_vars = &self.relation.base_vars;
        for _ in 0..ATTEMPTS {
            let clause = &self.clauses[rng.below(self.clauses.len())];
            let mut built = BuiltCases::default();
            let mut complete = true;
            for (i, var) in base_vars.iter().enumerate() {
                let start = match seed.and_then(|s| s.get(i)) {
                    Some(s) => self.perturb(s, rng),
                    None => self.domain.sample(rng),
                };
                if self
                    .shape_case(clause, var, start, &|_| false, &mut built, rng)
                    .is_none()
                {
                    complete = false;
                    break;
                }
            }
            let BuiltCases { names, cases } = built;
            if !complete || !self.admitted(&cases) || !self.clause_holds_on(clause, &names, &cases)
            {
                continue;
            }
            let env = CaseEnvironment {
                vars: &names,
                inputs: &cases,
                outputs: None,
                main_output: "",
            };
            if holds(&self.relation.base_premise, &env).unwrap_or(false) {
                return Some(cases);
            }
        }
        None
    }

    /// Follow-up cases (one per follow-up variable) such that bases and follow-ups together
    /// satisfy the whole premise. `None` when no attempt succeeded.
    pub(crate) fn follow_ups(&self, bases: &[Record], rng: &mut SeededRng) -> Option<Vec<Record>> {
        let base_vars = &self.relation.base_vars;
        let usable: Vec<&Clause> = self
            .clauses
            .iter()
            .filter(|c| self.clause_holds_on(c, base_vars, bases))
            .collect();
        if usable.is_empty() {
            return None;
        }
        for _ in 0..ATTEMPTS {
            let clause = usable[rng.below(usable.len())];
            let mut built = BuiltCases {
                names: base_vars.clone(),
                cases: bases.to_vec(),
            };
            let mut complete = true;
            for var in &self.relation.follow_vars {
                let partner = clause.literals.iter().find_map(|literal| match literal {
                    Expr::Equiv {
                        left,
                        right,
                        except,
                        ..
                    } => {
                        let other = if left == var {
                            right
                        } else if right == var {
                            left
                        } else {
                            return None;
                        };
                        let index = built.names.iter().position(|n| n == other)?;
                        Some((index, except.clone()))
                    }
                    _ => None,
                });
                let shaped = match partner {
                    Some((index, except)) => {
                        let start = built.cases[index].clone();
                        let redraw = move |f: &str| except.iter().any(|e| e == f);
                        self.shape_case(clause, var, start, &redraw, &mut built, rng)
                    }
                    None => {
                        let start = self.domain.sample(rng);
                        self.shape_case(clause, var, start, &|_| true, &mut built, rng)
                    }
                };
                if shaped.is_none() {
                    complete = false;
                    break;
                }
            }
            let mut cases = built.cases;
            if !complete || !self.admitted(&cases[bases.len()..]) {
                continue;
            }
            let env = CaseEnvironment {
                vars: &self.vars,
                inputs: &cases,
                outputs: None,
                main_output: "",
            };
            if holds(&self.premise, &env).unwrap_or(false) {
                return Some(cases.split_off(bases.len()));
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relation::parse_relations;

    const DOMAIN: &str = r#"
constraints = ["MDE <= AGI"]
[fields.sts]
type = "enum"
choices = ["single", "MFJ", "MFS"]
[fields.AGI]
type = "money"
min = 0
max = 100000
step = 1
[fields.MDE]
type = "money"
min = 0
max = 100000
step = 1
[fields.age]
type = "integer"
min = 18
max = 90
[fields.blind]
type = "boolean"
[fields.QC]
type = "integer"
min = 0
max = 10
"#;

    fn check_premise(relation: &Relation, domain: &Domain, draws: usize) -> usize {
        let generator = CaseGenerator::new(relation, domain);
        let mut rng = SeededRng::new(42);
        let mut built = 0;
        let vars = relation.all_vars();
        for _ in 0..draws {
            let Some(bases) = generator.base_cases(None, &mut rng) else {
                continue;
            };
            let Some(follow) = generator.follow_ups(&bases, &mut rng) else {
                continue;
            };
            let mut cases = bases.clone();
            cases.extend(follow);
            let env = CaseEnvironment {
                vars: &vars,
                inputs: &cases,
                outputs: None,
                main_output: "",
            };
            assert!(holds(&relation.premise(), &env).unwrap());
            for c in &cases {
                assert!(domain.admits(c).unwrap(), "{c:?}");
            }
            built += 1;
        }
        built
    }

    #[test]
    fn perturbation_respects_disjunctive_premises() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let text = "relation r forall x, y. (x ==[age] y and x.age >= 65 and y.age < 65) or (x ==[blind] y and x.blind and not y.blind) => F(x) >= F(y)";
        let relation = &parse_relations(text).unwrap()[0];
        assert_eq!(CaseGenerator::new(relation, &domain).clause_count(), 2);
        assert_eq!(check_premise(relation, &domain, 300), 300);
    }

    #[test]
    fn bounds_from_other_cases_and_base_conditions() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let text = "relation r forall x. x.sts = MFJ and x.MDE <= x.AGI * 7.5% => forall y. x ==[QC] y and x.QC >= y.QC and x.QC > 0 => F(x) >= F(y)";
        let relation = &parse_relations(text).unwrap()[0];
        assert_eq!(check_premise(relation, &domain, 300), 300);
    }

    #[test]
    fn four_case_relations_with_chains() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let text = "relation r forall x, x'. x.sts = x'.sts = MFJ and x.AGI < 50k <= x'.AGI => forall y, y'. x ==[QC] y and x' ==[QC] y' and 0 <= y.QC = y'.QC <= x.QC = x'.QC => F(x) - F(y) >= F(x') - F(y')";
        let relation = &parse_relations(text).unwrap()[0];
        assert!(check_premise(relation, &domain, 200) >= 190);
    }

    #[test]
    fn unsatisfiable_premise_yields_nothing() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let text = "relation r forall x, y. x ==[age] y and y.age > 90 => F(x) = F(y)";
        let relation = &parse_relations(text).unwrap()[0];
        let generator = CaseGenerator::new(relation, &domain);
        let mut rng = SeededRng::new(1);
        let bases = generator.base_cases(None, &mut rng).unwrap();
        assert!(generator.follow_ups(&bases, &mut rng).is_none());
    }
}
