//! `diagnostics` sits at the bottom of lexprobe: the one position type of every input language
//! (Catala programs, HATch benchmark files, metamorphic relation and domain files) and the one
//! renderer of positioned errors. [`Span`] is a byte range in one file of a [`SourceMap`]; the
//! map turns it into a file name, 1-based lines and columns counted in code points
//! ([`Position`], [`SourceMap::line_col`]). [`Diagnostic`]s carry labelled spans; [`render`]
//! prints them in the Catala compiler's box layout (or its one-line GNU layout).
//! [`SourceError`] is an error at one span together with the sources it refers to, for the
//! front ends that report a single positioned error (HATch, relations, domains): its `Display`
//! is `file:line:column: message` and [`SourceError::render`] gives the box.

pub mod diagnostic;
pub mod render;
pub mod source;
mod source_error;

pub use diagnostic::{suggestion, suggestion_of, Diagnostic, DiagnosticKind, Label, LawHeading};
pub use render::{render_error, render_gnu, render_gnu_warning, render_warning};
pub use source::{FileId, Position, SourceFile, SourceMap, Span};
pub use source_error::SourceError;
