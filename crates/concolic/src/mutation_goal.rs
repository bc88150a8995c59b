//! The condition under which a removed exception shows: a mutant that removes an exception
//! differs from the original only on the runs where that exception applied, and the mutant no
//! longer evaluates its condition, so nothing on the mutant's paths asks for it. When the
//! variables of that condition are read nowhere else before the run fails (a room, say, read
//! only by the removed rule), a path of the mutant that ends in the failure leaves them free,
//! the solver's model gives them their plain values (the condition false), and the one test of
//! that path does not tell the mutant from the original: the path is done, the mutant lives.
//!
//! So the exploration of such a mutant is told the condition (its *goal*): the justifications
//! of the removed rules, as terms over the inputs, read from one run of the original program
//! (the conditions recorded there, where the exception's rules were evaluated), their
//! disjunction. The exploration starts from inputs satisfying it (the start's, with the
//! variables of the goal taken from a model of the goal alone when the start does not), and
//! each later model is asked to satisfy it too when the path allows
//! ([`crate::searcher::Searcher::preferred`]), and first with none of the rules left in the
//! mutated term applying (the conditions of those met so far negated): where the goal holds,
//! the mutant fails only if no rule left applies. These are preferences between the inputs of
//! one path, never constraints, so the paths explored are the same.
//!
//! The directed search ([`Goal::next_rule_decision`]) negates first the decisions of the rules
//! left that held on the path: a rule's justification, or, when the branches above it already
//! fix its conjuncts (its own negation then has no inputs), the branch above fixing one of
//! them; never a branch on the goal's variables alone, which would leave the goal.

use crate::mutation::{for_each_default, Mutation, MutationKind};
use crate::mutation_directed::MutationTarget;
use crate::options::ExploreOptions;
use crate::searcher::Node;
use crate::worker::{transform, Worker};
use crate::ConcolicError;
use catala_eval::Value;
use catala_ir::dcalc::{Expr, ExprKind, Program, ScopeId};
use catala_syntax::Span;
use smt::catala::term::{self, Op, Term};
use smt::catala::{QueryOutcome, TermNode, VarId};
use std::collections::HashSet;
use std::time::Instant;

/// The condition of a removed exception, read from the original.
pub(crate) struct ExceptionCondition {
    /// The condition under which the removed exception applied: a disjunction of its rules'
    /// justifications over the input variables.
    pub(crate) condition: Term,
    /// Inputs satisfying it to start from, when the start given does not (each input as a
    /// value, in the order of the scope's inputs).
    pub(crate) seed: Option<Vec<Option<Value>>>,
}

/// The condition of the exception the mutant of `m` removes (of `original`, explored from `scope` with `options`, whose
/// hints are the start), read from one run of the original on the start: `None` when `m`
/// removes no exception or the run records none of the removed rules' justifications (they
/// do not depend on the inputs, or the run does not reach them).
pub(crate) fn removed_exception_goal(
    original: &Program,
    scope: ScopeId,
    m: Mutation,
    options: &ExploreOptions,
) -> Result<Option<ExceptionCondition>, ConcolicError> {
    if m.kind != MutationKind::RemoveException {
        return Ok(None);
    }
    let justifications = removed_justifications(original, scope, m);
    if justifications.is_empty() {
        return Ok(None);
    }
    let transformed = transform(original, options);
    let mut worker = Worker::new(original, &transformed, scope, options, Instant::now())?;
    let start = worker.initial_assignment()?;
    let run = worker.executor.run(&start);
    let mut held = false;
    let mut conditions: Vec<Term> = Vec::new();
    for c in &run.path {
        let places = std::iter::once((c.span, c.way)).chain(c.repeated_at.iter().copied());
        for (at, way) in places {
            if !justifications.contains(&at) {
                continue;
            }
            // The constraint is the condition as it went on the run: at a place where the
            // justification did not hold, the condition is its negation.
            let condition = if way & 1 == 1 {
                c.term.clone()
            } else {
                term::not(&c.term)
            };
            held |= way & 1 == 1;
            if !conditions.contains(&condition) {
                conditions.push(condition);
            }
        }
    }
    let condition = match conditions.len() {
        0 => return Ok(None),
        1 => conditions.remove(0),
        _ => term::app(Op::Or, conditions),
    };
    if held {
        return Ok(Some(ExceptionCondition {
            condition,
            seed: None,
        }));
    }
    // The start's inputs, with the variables of the condition from a model of it alone.
    let query = [condition.clone()];
    if worker.session.check_path(&query)? != QueryOutcome::Sat {
        return Ok(Some(ExceptionCondition {
            condition,
            seed: None,
        }));
    }
    let (model, _) = worker.model_inputs(&query)?;
    let mut variables = Vec::new();
    condition.collect_vars(&mut variables);
    let mut seed = start;
    for v in variables {
        let i = v.0 as usize;
        if let (Some(slot), Some(value)) = (seed.get_mut(i), model.get(i)) {
            *slot = value.clone();
        }
    }
    let inputs = worker.executor.run(&seed).inputs;
    Ok(Some(ExceptionCondition {
        condition,
        seed: Some(inputs),
    }))
}

/// The positions of the justifications of the rules of the exception `m` removes (every
/// default term inside it).
pub(crate) fn removed_justifications(
    program: &Program,
    root: ScopeId,
    m: Mutation,
) -> HashSet<Span> {
    let mut copy = program.clone();
    let mut out = HashSet::new();
    for_each_default(&mut copy, root, &mut |site, e| {
        if site != m.site {
            return;
        }
        if let ExprKind::Default { exceptions, .. } = &e.kind {
            if let Some(ex) = exceptions.get(m.exception) {
                justifications(ex, &mut out);
            }
        }
    });
    out
}

/// The positions of the justifications of `e`'s default terms (its own and those inside).
pub(crate) fn justifications(e: &Expr, out: &mut HashSet<Span>) {
    match &e.kind {
        ExprKind::Default {
            exceptions,
            justification,
            consequence,
        } => {
            out.insert(justification.span);
            for ex in exceptions {
                justifications(ex, out);
            }
            justifications(consequence, out);
        }
        ExprKind::ErrorOnEmpty { expr, .. } => justifications(expr, out),
        _ => {}
    }
}

/// A removed exception's condition, as the directed search uses it.
pub(crate) struct Goal {
    condition: Term,
    /// Its variables (sorted).
    variables: Vec<VarId>,
    /// The rules of the mutated term that held on the current path, with their places on it.
    rules: Vec<(usize, Term)>,
    /// The negations of the conditions of the rules of the mutated term met so far.
    no_rule: Vec<Term>,
}

impl Goal {
    pub(crate) fn new(condition: Term) -> Goal {
        let mut variables = Vec::new();
        condition.collect_vars(&mut variables);
        Goal {
            condition,
            variables,
            rules: Vec::new(),
            no_rule: Vec::new(),
        }
    }

    /// The deepest open node deciding a rule of the mutated term that applied on this run:
    /// the rule's justification itself, unless the branches above it already fix every
    /// conjunct of its condition (its negation is then unsatisfiable), or a branch above it
    /// fixing some of them. Where the goal holds (the removed exception's condition), a mutant
    /// fails only if no rule left applies (or two do). Branches on the goal's variables alone
    /// are left to the other tiers: negating them leaves the goal.
    pub(crate) fn next_rule_decision(
        &mut self,
        target: &MutationTarget,
        stack: &[Node],
    ) -> Option<usize> {
        self.note_rules(target, stack);
        let fixed: Vec<Vec<&Term>> = stack.iter().map(|n| conjuncts(&n.term)).collect();
        let held: Vec<(usize, Vec<&Term>, bool)> = self
            .rules
            .iter()
            .map(|(h, rule)| {
                let rule = conjuncts(rule);
                let above: HashSet<&Term> = fixed[..*h].iter().flatten().copied().collect();
                let implied = rule.iter().all(|c| above.contains(c));
                (*h, rule, implied)
            })
            .collect();
        stack.iter().enumerate().rev().find_map(|(i, n)| {
            if n.done || self.within_goal(&n.term) {
                return None;
            }
            let decides = held.iter().any(|(h, rule, implied)| {
                (*h == i && !implied) || (*h > i && fixed[i].iter().all(|c| rule.contains(c)))
            });
            decides.then_some(i)
        })
    }

    /// Keeps the rules of the mutated term that held on the path of `stack` (with their
    /// places): those still on it as they were, and those negated since (a negation whose
    /// query was unsatisfiable leaves the rule's conjuncts to be negated where they are fixed).
    fn note_rules(&mut self, target: &MutationTarget, stack: &[Node]) {
        self.rules.retain(|(h, rule)| {
            stack
                .get(*h)
                .is_some_and(|n| n.other_way.is_none() && n.term == term::not(rule))
        });
        for (h, n) in stack.iter().enumerate() {
            if target.held_rule(n) && !self.rules.iter().any(|(k, _)| *k == h) {
                self.rules.push((h, n.term.clone()));
            }
        }
    }

    /// The conditions to prefer after a run with path `stack`: the goal with none of the rules
    /// of the mutated term met so far applying (where the mutant has no value), else the goal
    /// alone.
    pub(crate) fn preferred(&mut self, target: &MutationTarget, stack: &[Node]) -> Vec<Term> {
        for n in stack {
            let Some((at, other)) = n.other_way else {
                continue;
            };
            if target.justifications.contains(&at) {
                let not_applying = if other == 0 {
                    term::not(&n.term)
                } else {
                    n.term.clone()
                };
                if !self.no_rule.contains(&not_applying) {
                    self.no_rule.push(not_applying);
                }
            }
        }
        if self.no_rule.is_empty() {
            return vec![self.condition.clone()];
        }
        let mut all = self.no_rule.clone();
        all.push(self.condition.clone());
        vec![term::app(Op::And, all), self.condition.clone()]
    }

    /// Whether `t` mentions only variables of the goal.
    fn within_goal(&self, t: &Term) -> bool {
        let mut vars = Vec::new();
        t.collect_vars(&mut vars);
        vars.iter().all(|v| self.variables.binary_search(v).is_ok())
    }
}

/// The conjuncts of `t` (itself when it is no conjunction).
fn conjuncts(t: &Term) -> Vec<&Term> {
    match &**t {
        TermNode::App(Op::And, args) => args.iter().flat_map(conjuncts).collect(),
        _ => vec![t],
    }
}
