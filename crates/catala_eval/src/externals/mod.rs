//! External modules: Rust implementations of the declarations of Catala modules marked
//! `> Module M external` (declarations without `equals`), registered with the interpreter.
//!
//! A program calls `M.f of x, y`; the compiler turns the declaration of `f` into a call of the
//! implementation registered under `("M", "f")` with the argument values, in the order of the
//! declaration's parameters (a declaration without parameters is a constant: an implementation
//! called with no argument). The values are the interpreter's own [`Value`]s: integers, decimals
//! and money (in cents) are exact; an `optional of t` is an enumeration value built by
//! [`ExternalContext::present`] / [`ExternalContext::absent`]; structures and enumerations
//! declared by the module are built with the ids the context looks up by name.
//!
//! ```
//! use catala_eval::externals::{ExternalError, Externals};
//! use catala_eval::Value;
//!
//! let mut externals = Externals::empty();
//! externals.register("Taxes", "rate_for_code", |args, _ctx| match args {
//!     [Value::Integer(code)] if code.to_string() == "75" => Ok(Value::integer(2)),
//!     [Value::Integer(_)] => Ok(Value::integer(1)),
//!     _ => Err(ExternalError::message("rate_for_code expects one integer")),
//! });
//! assert!(externals.get("Taxes", "rate_for_code").is_some());
//! ```
//!
//! [`Externals::standard`] holds the implementations lexprobe ships: the standard library's
//! `*_internal` modules, the external modules of the catala-examples programs (`Oracles`,
//! `Eligibilite_commune`) and the example module of Catala's test suite (`Prorata_external`).

mod corpus;
mod examples;
mod stdlib;

use crate::eval::RuntimeErrorKind;
use crate::runtime::Value;
use catala_ir::dcalc::{EnumId, ExprKind, Program};
use catala_syntax::Span;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

/// Why an external implementation could not compute its result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExternalError {
    /// One of Catala's runtime errors (its message and the position of the call are reported).
    Runtime(RuntimeErrorKind),
    /// A message of the implementation's own, reported at the call.
    Message(String),
}

impl ExternalError {
    pub fn message(text: impl Into<String>) -> ExternalError {
        ExternalError::Message(text.into())
    }
}

/// What an implementation may need from the program: the ids of its types.
pub struct ExternalContext<'p> {
    program: &'p Program,
}

impl<'p> ExternalContext<'p> {
    pub fn new(program: &'p Program) -> Self {
        ExternalContext { program }
    }

    /// The program being run.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    fn option_enum(&self) -> Result<EnumId, ExternalError> {
        self.program
            .option_enum
            .ok_or_else(|| ExternalError::message("the program has no optional type"))
    }

    /// `Present content v`.
    pub fn present(&self, v: Value) -> Result<Value, ExternalError> {
        Ok(Value::new_enum(self.option_enum()?.0, 1, v))
    }

    /// `Absent`.
    pub fn absent(&self) -> Result<Value, ExternalError> {
        Ok(Value::new_enum(self.option_enum()?.0, 0, Value::Unit))
    }

    /// The id of the enumeration named `name` (the first declared with that name).
    pub fn enum_id(&self, name: &str) -> Option<u32> {
        self.program
            .enums
            .iter()
            .position(|e| e.name == name)
            .map(|i| i as u32)
    }
}

/// The implementation of one external declaration.
pub(crate) type ExternalFn =
    Arc<dyn Fn(&[Value], &ExternalContext<'_>) -> Result<Value, ExternalError> + Send + Sync>;

/// Implementations of external declarations, by module and declaration name.
#[derive(Clone, Default)]
pub struct Externals {
    map: HashMap<(String, String), ExternalFn>,
}

impl Externals {
    /// No implementation at all.
    pub fn empty() -> Externals {
        Externals::default()
    }

    /// The implementations lexprobe ships (standard library internals, corpus modules), shared.
    pub fn standard() -> Arc<Externals> {
        static STANDARD: OnceLock<Arc<Externals>> = OnceLock::new();
        STANDARD
            .get_or_init(|| {
                let mut e = Externals::empty();
                stdlib::register(&mut e);
                corpus::register(&mut e);
                examples::register(&mut e);
                Arc::new(e)
            })
            .clone()
    }

    /// Registers (or replaces) the implementation of `module.name`.
    pub fn register<F>(&mut self, module: &str, name: &str, f: F)
    where
        F: Fn(&[Value], &ExternalContext<'_>) -> Result<Value, ExternalError>
            + Send
            + Sync
            + 'static,
    {
        self.map
            .insert((module.to_string(), name.to_string()), Arc::new(f));
    }

    /// The implementation of `module.name`, if registered.
    pub fn get(&self, module: &str, name: &str) -> Option<&ExternalFn> {
        self.map.get(&(module.to_string(), name.to_string()))
    }

    /// Checks that every external declaration of `program` has an implementation; the first
    /// one missing is returned with the position of its declaration.
    pub fn check(&self, program: &Program) -> Result<(), (Span, String)> {
        for def in &program.topdefs {
            let mut missing = None;
            find_externals(&def.body.kind, &mut |module, name| {
                if missing.is_none() && self.get(module, name).is_none() {
                    missing = Some(format!(
                        "No implementation is available for {name}, declared in external \
                         module {module}: lexprobe knows the external modules of the standard \
                         library and of the catala-examples programs; others are registered \
                         through the catala_eval::externals API."
                    ));
                }
            });
            if let Some(m) = missing {
                return Err((def.span, m));
            }
        }
        Ok(())
    }
}

/// Calls `f` on every external call at the top of a definition's body (a constant, or the body
/// of its function).
fn find_externals(kind: &ExprKind, f: &mut impl FnMut(&str, &str)) {
    match kind {
        ExprKind::External { module, name, .. } => f(module, name),
        ExprKind::Lambda(l) => find_externals(&l.body.kind, f),
        _ => {}
    }
}
