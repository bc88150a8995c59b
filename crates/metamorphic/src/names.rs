//! Names checked before a search starts, so that a misspelt name is an error with its
//! position rather than a search that silently tests something else. The outputs a system
//! gives are its declared outputs (a Catala scope) or those of a first probe run (an
//! external program); the definition of `F` and every `out.NAME(x)` of the relations must
//! name one of them, and the constraints of the domain may only name its fields and
//! enumeration choices. (Fields and constants of relations are checked by
//! [`crate::validate_relation`], features when the domain is read.)

use crate::domain::Domain;
use crate::relation::{Expr, Relation};
use crate::rng::SeededRng;
use crate::system::{RunFailure, SystemUnderTest};
use crate::{Located, Positioned};
use diagnostics::Span;
use thiserror::Error;

/// Probe inputs tried before giving up on learning a system's outputs.
pub(crate) const PROBE_INPUTS: usize = 5;
/// Draws of the domain looking for an input that meets its constraints, per probe.
const PROBE_DRAWS: usize = 1000;
/// Output names listed in an error message.
const NAMES_SHOWN: usize = 40;

/// A name that does not exist where it is used, at the name (in the relations file, the
/// domain file or the `--output` option).
#[derive(Debug, Clone, Error, PartialEq)]
pub enum NameError {
    #[error("relation `{relation}` reads the output `{name}`, which the system does not give (its outputs: {known})")]
    RelationOutput {
        relation: String,
        name: String,
        span: Span,
        known: String,
    },
    #[error("the definition of F `{text}` reads `{name}`, which is not an output of the system (its outputs: {known})")]
    MainOutput {
        text: String,
        name: String,
        span: Span,
        known: String,
    },
    #[error("the constraint `{text}` reads `{name}`, which is neither a field of the domain nor a choice of an enum field")]
    ConstraintName {
        text: String,
        name: String,
        span: Span,
    },
}

impl Positioned for NameError {
    fn span(&self) -> Option<Span> {
        match self {
            NameError::RelationOutput { span, .. }
            | NameError::MainOutput { span, .. }
            | NameError::ConstraintName { span, .. } => Some(*span),
        }
    }
}

/// Why the outputs of a system could not be learnt.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum ProbeError {
    #[error("{system} gave no outputs on {tried} probe input(s); {failure}")]
    NoAnswer {
        system: String,
        tried: usize,
        /// The first failure, with the command and its stderr.
        failure: String,
        /// Whether the system never answered at all (no reply, not even an error of its own).
        never_answered: bool,
    },
    #[error("no input drawn from the domain meets its constraints ({draws} draws): the system cannot be probed")]
    NoInput { draws: usize },
}

/// The outputs a system gives: its declared ones, or those of the first probe input it
/// answers (inputs drawn from the domain with `seed`; at most [`PROBE_INPUTS`] tried, and
/// none after a timeout).
pub fn known_outputs(
    system: &dyn SystemUnderTest,
    domain: &Domain,
    seed: u64,
) -> Result<Vec<String>, ProbeError> {
    if let Some(declared) = system.declared_outputs() {
        return Ok(declared);
    }
    let mut rng = SeededRng::for_stream(seed, "#probe");
    let mut first_failure: Option<RunFailure> = None;
    let mut answered = false;
    let mut tried = 0;
    while tried < PROBE_INPUTS {
        let input = (0..PROBE_DRAWS)
            .map(|_| domain.sample(&mut rng))
            .find(|r| domain.admits(r).unwrap_or(false))
            .ok_or(ProbeError::NoInput { draws: PROBE_DRAWS })?;
        tried += 1;
        match system.run(&input) {
            Ok(outputs) => return Ok(outputs.keys().cloned().collect()),
            Err(failure) => {
                answered |= matches!(failure, RunFailure::Reported { .. });
                let timeout = matches!(failure, RunFailure::Timeout { .. });
                first_failure.get_or_insert(failure);
                if timeout {
                    break;
                }
            }
        }
    }
    Err(ProbeError::NoAnswer {
        system: system.describe(),
        tried,
        failure: first_failure.map_or_else(String::new, |f| f.to_string()),
        never_answered: !answered,
    })
}

/// Whether `name` is one of `outputs`.
fn is_output(name: &str, outputs: &[String]) -> bool {
    outputs.iter().any(|o| o == name)
}

fn listing(outputs: &[String]) -> String {
    let mut shown: Vec<&str> = outputs
        .iter()
        .map(String::as_str)
        .take(NAMES_SHOWN)
        .collect();
    if outputs.is_empty() {
        return "none".to_string();
    }
    if outputs.len() > NAMES_SHOWN {
        shown.push("...");
    }
    shown.join(", ")
}

/// Bare names of an expression with their spans.
fn bare_names(expr: &Expr) -> Vec<(String, Span)> {
    let mut names = Vec::new();
    expr.walk(&mut |e| {
        if let Expr::Name(n, span) = e {
            names.push((n.clone(), *span));
        }
    });
    names
}

/// Checks the definition of `F` and the named outputs of the relations against `outputs`,
/// and the names of the domain's constraints against its fields and choices.
pub fn check_names(
    domain: &Domain,
    relations: &[Relation],
    outputs: &[String],
) -> Result<(), Located<NameError>> {
    for (text, constraint) in &domain.constraints {
        for (name, span) in bare_names(constraint) {
            if domain.field(&name).is_none() && !domain.choices.contains(&name) {
                return Err(domain.locate(NameError::ConstraintName {
                    text: text.clone(),
                    name,
                    span,
                }));
            }
        }
    }
    let (text, definition) = &domain.main_output;
    for (name, span) in bare_names(definition) {
        if !is_output(&name, outputs) && !domain.choices.contains(&name) {
            return Err(domain.locate(NameError::MainOutput {
                text: text.clone(),
                name,
                span,
                known: listing(outputs),
            }));
        }
    }
    for relation in relations {
        let mut problem = None;
        let mut visit = |e: &Expr| {
            if let Expr::Output {
                output: Some(name),
                span,
                ..
            } = e
            {
                if problem.is_none() && !is_output(name, outputs) {
                    problem = Some(NameError::RelationOutput {
                        relation: relation.name.clone(),
                        name: name.clone(),
                        span: *span,
                        known: listing(outputs),
                    });
                }
            }
        };
        relation.premise().walk(&mut visit);
        relation.conclusion.walk(&mut visit);
        if let Some(problem) = problem {
            return Err(relation.locate(problem));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relation::parse_relations;
    use crate::system::FunctionSystem;
    use crate::value::{Record, Value};

    const DOMAIN: &str = "output = \"refund - owed\"\nconstraints = [\"kids <= 3\"]\n\
        [fields.kids]\ntype = \"integer\"\nmin = 0\nmax = 5\n\
        [fields.sts]\ntype = \"enum\"\nchoices = [\"single\", \"joint\"]\n";

    fn outputs() -> Vec<String> {
        vec![
            "refund".to_string(),
            "owed".to_string(),
            "credit".to_string(),
        ]
    }

    #[test]
    fn misspelt_outputs_are_positioned_errors() {
        let mut domain = Domain::from_toml(DOMAIN).unwrap();
        assert_eq!(check_names(&domain, &[], &outputs()), Ok(()));
        domain.set_output("--output", "refund + refnd").unwrap();
        let error = check_names(&domain, &[], &outputs()).unwrap_err();
        match &error.error {
            NameError::MainOutput { name, known, .. } => {
                assert_eq!(name, "refnd");
                assert_eq!(known, "refund, owed, credit");
            }
            other => panic!("{other:?}"),
        }
        // `refnd` is the tenth character of the option's text.
        assert!(error
            .to_string()
            .starts_with("--output:1:10: the definition of F"));
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let relations =
            parse_relations("relation r forall x, y. x ==[kids] y =>\n  out.credt(x) >= 0")
                .unwrap();
        let error = check_names(&domain, &relations, &outputs()).unwrap_err();
        assert!(matches!(error.error, NameError::RelationOutput { .. }));
        // At the output's name: `credt` after `  out.` on line 2.
        assert!(
            error
                .to_string()
                .starts_with("2:7: relation `r` reads the output `credt`"),
            "{error}"
        );
    }

    #[test]
    fn constraints_name_fields_or_choices() {
        let text = DOMAIN.replace("kids <= 3", "kid <= 3");
        let domain = Domain::from_toml(&text).unwrap();
        let error = check_names(&domain, &[], &outputs()).unwrap_err();
        assert!(
            matches!(&error.error, NameError::ConstraintName { text, name, .. }
                if text == "kid <= 3" && name == "kid"),
            "{error:?}"
        );
        // In the file: line 2, the string starts after `constraints = ["` (16 characters).
        assert_eq!(error.line_col(), Some((2, 17)));
        let fine =
            Domain::from_toml(&DOMAIN.replace("kids <= 3", "sts = joint => kids <= 3")).unwrap();
        assert_eq!(check_names(&fine, &[], &outputs()), Ok(()));
    }

    #[test]
    fn outputs_come_from_a_probe_run() {
        let domain = Domain::from_toml(DOMAIN).unwrap();
        let system = FunctionSystem {
            name: "fixed".into(),
            function: |_: &Record| {
                let mut out = Record::new();
                out.insert("refund".into(), Value::Integer(1));
                out.insert("owed".into(), Value::Integer(0));
                Ok(out)
            },
        };
        assert_eq!(
            known_outputs(&system, &domain, 0),
            Ok(vec!["owed".to_string(), "refund".to_string()])
        );
        let silent = FunctionSystem {
            name: "silent".into(),
            function: |_: &Record| {
                Err(RunFailure::Crashed {
                    detail: "`silent` ended without answering".into(),
                })
            },
        };
        match known_outputs(&silent, &domain, 0) {
            Err(ProbeError::NoAnswer {
                tried,
                never_answered,
                failure,
                ..
            }) => {
                assert_eq!(tried, PROBE_INPUTS);
                assert!(never_answered);
                assert!(failure.contains("ended without answering"), "{failure}");
            }
            other => panic!("{other:?}"),
        }
    }
}
