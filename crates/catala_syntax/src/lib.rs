//! `catala_syntax` is the first stage of lexprobe's Catala front end: it reads literate
//! `.catala_en`, `.catala_fr` and `.catala_pl` files (markdown law text with ```catala and
//! ```catala-metadata code blocks, `> Include:` directives) and produces the surface AST of
//! [`ast`], with a span on every node and the law-heading trail on every item. It knows the
//! keyword tables of each surface language but no semantics; `catala_ir` takes the AST from here.

pub mod ast;
pub mod diagnostic;
pub mod source;

pub use diagnostic::{Diagnostic, DiagnosticKind, Label};
pub use source::{FileId, Position, SourceFile, SourceMap, Span};
