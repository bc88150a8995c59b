//! Metamorphic testing of legal software, after Tizpaz-Niari et al., "Metamorphic Testing and
//! Debugging of Tax Preparation Software". Sits beside the concolic engine, downstream of
//! the Catala interpreter: it takes a system under test (a Catala scope or any external
//! program exchanging JSON records), an input domain (TOML) and a file of metamorphic
//! relations, and gives, per relation, a verdict from a randomized search with
//! Bayes-factor stopping, the failing examples, and a decision tree explaining where the
//! failures live (text, JSON, and an HTML report with SVG trees).
//!
//! Flow: [`relation`] (language) + [`domain`] (inputs) → [`generate`] (premise-respecting
//! test cases), every name checked first by [`names`] (outputs declared by the system or
//! learnt from a probe run) → [`search`] (Algorithm 1 over a [`system::SystemUnderTest`]: an
//! [`external`] program or a [`catala`] scope run by `catala_eval`) → [`tree`] (CART and
//! lexicographic trees over the raw fields and the [`features`] derived from the domain and
//! the relation) → [`check`] → [`report`].
//!
//! Positions are spans of the `diagnostics` crate: every relation keeps the source map of
//! its file, a domain that of its file (and of `--output`), and every error about a name,
//! field, feature or value of them is a [`Positioned`] error shown by [`Located`] at the exact
//! token, as `file:line:column: message` or in the box layout.

pub mod catala;
pub mod check;
pub mod domain;
pub mod external;
pub mod features;
pub(crate) mod generate;
mod located;
pub mod names;
pub mod prove;
pub mod relation;
pub mod report;
pub mod rng;
pub mod sample;
pub mod search;
pub mod system;
mod toml_spans;
pub mod tree;
pub mod value;

pub use diagnostics::SourceError;
use diagnostics::Span;
pub use located::{Located, Positioned};
use relation::{Expr, Relation};
use thiserror::Error;

/// A relation that does not fit its domain, at the offending name.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum ValidationError {
    #[error("relation `{relation}` uses `{field}`, which is not a field of the domain")]
    UnknownField {
        relation: String,
        field: String,
        span: Span,
    },
    #[error("relation `{relation}` uses `{name}`, which is neither a number nor a choice of an enum field")]
    UnknownConstant {
        relation: String,
        name: String,
        span: Span,
    },
}

impl Positioned for ValidationError {
    fn span(&self) -> Option<Span> {
        match self {
            ValidationError::UnknownField { span, .. }
            | ValidationError::UnknownConstant { span, .. } => Some(*span),
        }
    }
}

/// Checks that a relation only mentions fields of the domain and known enum choices; an
/// error is at the name, in the relation's file.
pub fn validate_relation(
    relation: &Relation,
    domain: &domain::Domain,
) -> Result<(), Located<ValidationError>> {
    let mut problem = None;
    let choices: Vec<&String> = domain
        .fields
        .iter()
        .filter_map(|f| match &f.kind {
            domain::FieldKind::Enum { choices } => Some(choices),
            _ => None,
        })
        .flatten()
        .collect();
    let mut visit = |e: &Expr| {
        if problem.is_some() {
            return;
        }
        match e {
            Expr::Field { field, span, .. } if domain.field(field).is_none() => {
                problem = Some(ValidationError::UnknownField {
                    relation: relation.name.clone(),
                    field: field.clone(),
                    span: *span,
                });
            }
            Expr::Equiv {
                except,
                except_spans,
                span,
                ..
            } => {
                if let Some(i) = except.iter().position(|f| domain.field(f).is_none()) {
                    problem = Some(ValidationError::UnknownField {
                        relation: relation.name.clone(),
                        field: except[i].clone(),
                        span: except_spans.get(i).copied().unwrap_or(*span),
                    });
                }
            }
            Expr::Name(name, span) if !choices.contains(&name) => {
                problem = Some(ValidationError::UnknownConstant {
                    relation: relation.name.clone(),
                    name: name.clone(),
                    span: *span,
                });
            }
            _ => {}
        }
    };
    relation.premise().walk(&mut visit);
    relation.conclusion.walk(&mut visit);
    problem.map_or(Ok(()), |e| Err(relation.locate(e)))
}

/// A domain that does not match the inputs a system declares.
#[derive(Debug, Clone, Error, PartialEq)]
pub enum InputMismatch {
    /// At the field's name in the domain file.
    #[error("the domain has a field `{field}`, but the system has no such input")]
    UnknownInput { field: String, span: Span },
    #[error("the system requires the input `{0}`, but the domain has no such field")]
    MissingInput(String),
}

impl Positioned for InputMismatch {
    fn span(&self) -> Option<Span> {
        match self {
            InputMismatch::UnknownInput { span, .. } => Some(*span),
            InputMismatch::MissingInput(_) => None,
        }
    }
}

/// Checks the domain's fields against the inputs the system declares (if it does).
pub fn check_domain_inputs(
    domain: &domain::Domain,
    system: &dyn system::SystemUnderTest,
) -> Result<(), Located<InputMismatch>> {
    let Some(declared) = system.declared_inputs() else {
        return Ok(());
    };
    for field in &domain.fields {
        if !declared.required.contains(&field.name) && !declared.optional.contains(&field.name) {
            return Err(domain.locate(InputMismatch::UnknownInput {
                field: field.name.clone(),
                span: field.span,
            }));
        }
    }
    for required in &declared.required {
        if domain.field(required).is_none() {
            return Err(domain.locate(InputMismatch::MissingInput(required.clone())));
        }
    }
    Ok(())
}

/// Builds the system for `catala:FILE#Scope` (the part after `catala:`), served by
/// `workers` interpreter threads.
pub fn catala_system(
    target: &str,
    workers: usize,
) -> Result<Box<dyn system::SystemUnderTest>, catala::CatalaSystemError> {
    Ok(Box::new(catala::CatalaScope::from_target(target, workers)?))
}
