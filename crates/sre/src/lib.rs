//! `sre`: symbolic events, symbolic regular expressions, LTLf and symbolic derivatives — the
//! trace-specification layer of the derivative-guided engine. It takes qualifiers as `smt` terms
//! and gives expressions with smart constructors, nullability, next events, symbolic
//! derivatives (inclusion discharged to Z3), prefix enumeration and DistToDead. `hatch` builds on it.

pub mod deriv;
pub mod event;
pub mod ltlf;
pub mod qualifiers;
pub(crate) mod regex;

pub use deriv::{canonical_names, dual, event_formula, Deriver, EventMemo, EventOracle, SmtOracle};
pub use event::{arg_var, show_event, Event, OpSig, RET_VAR};
pub use ltlf::Ltlf;
pub use qualifiers::Qualifiers;
pub use regex::{Node, Sre};
