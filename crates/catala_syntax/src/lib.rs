//! `catala_syntax` is the first stage of lexprobe's Catala front end: it reads literate
//! `.catala_en`, `.catala_fr` and `.catala_pl` files (markdown law text with ```catala and
//! ```catala-metadata code blocks, `> Include:` directives) and produces the surface AST of
//! [`ast`], with a span on every node and the law-heading trail on every item. It knows the
//! keyword tables of each surface language but no semantics; `catala_ir` takes the AST from here.
//! Errors are [`Diagnostic`]s; [`render`] prints them in Catala's box layout.

pub mod ast;
pub mod diagnostic;
pub mod keywords;
pub mod lexer;
pub mod literate;
mod parser;
pub mod render;
pub mod source;

pub use diagnostic::{Diagnostic, DiagnosticKind, Label};
pub use render::{render_error, render_gnu, render_gnu_warning, render_warning};
pub use source::{FileId, Position, SourceFile, SourceMap, Span};

use ast::{Item, ItemKind, Language, Program};
use literate::{Chunk, ModuleDirective, Reader};
use std::path::Path;

/// Parses a file and everything it includes. The language comes from the extension
/// (`.catala_en`, `.catala_fr`, `.catala_pl`); other extensions are read as English.
pub fn parse_file(path: &Path) -> Result<(SourceMap, Program), Diagnostic> {
    let lang = literate::language_of_path(path).unwrap_or(Language::En);
    let mut reader = Reader::new();
    let name = path.to_string_lossy().into_owned();
    reader.read_path(&name, path, lang, None)?;
    literate::check_module_name(&reader, FileId(0))?;
    let program = parse_chunks(&reader)?;
    Ok((reader.sources, program))
}

/// Like [`parse_file`], but returns the source map even when parsing fails, so that the
/// diagnostic can be rendered with its source lines.
pub fn parse_file_with_sources(path: &Path) -> (SourceMap, Result<Program, Diagnostic>) {
    let lang = literate::language_of_path(path).unwrap_or(Language::En);
    let mut reader = Reader::new();
    let name = path.to_string_lossy().into_owned();
    let result = reader
        .read_path(&name, path, lang, None)
        .and_then(|()| literate::check_module_name(&reader, FileId(0)))
        .and_then(|()| parse_chunks(&reader));
    (reader.sources, result)
}

/// Parses the text of a file named `name` (includes are resolved relative to `name`, i.e. to
/// the current directory for a bare name).
pub fn parse_str(
    name: &str,
    text: &str,
    lang: Language,
) -> Result<(SourceMap, Program), Diagnostic> {
    let (sources, result) = parse_str_with_sources(name, text, lang);
    result.map(|p| (sources, p))
}

/// Like [`parse_str`], but returns the source map even when parsing fails.
pub fn parse_str_with_sources(
    name: &str,
    text: &str,
    lang: Language,
) -> (SourceMap, Result<Program, Diagnostic>) {
    let mut reader = Reader::new();
    let result = reader
        .read_text(name, Path::new(name), text.to_string(), lang)
        .and_then(|()| parse_chunks(&reader));
    (reader.sources, result)
}

fn parse_chunks(reader: &Reader) -> Result<Program, Diagnostic> {
    let mut items = Vec::new();
    for chunk in &reader.chunks {
        match chunk {
            Chunk::Code(block) => {
                let text = reader.sources.file(block.file).text.as_str();
                let tokens = lexer::lex(block.file, text, block.start, block.end, block.language)?;
                items.extend(parser::parse_block(tokens, block, text)?);
            }
            Chunk::Module {
                directive,
                span,
                headings,
                language,
            } => {
                let kind = match directive.clone() {
                    ModuleDirective::Def { name, external } => {
                        ItemKind::ModuleDef { name, external }
                    }
                    ModuleDirective::Use { name, alias } => ItemKind::ModuleUse { name, alias },
                };
                items.push(Item {
                    kind,
                    span: *span,
                    headings: headings.clone(),
                    language: *language,
                    metadata: false,
                    attributes: Vec::new(),
                });
            }
        }
    }
    Ok(Program { items })
}
