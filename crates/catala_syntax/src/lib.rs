//! `catala_syntax` is the first stage of lexprobe's Catala front end: it reads literate
//! `.catala_en`, `.catala_fr` and `.catala_pl` files (markdown law text with ```catala and
//! ```catala-metadata code blocks, `> Include:` directives) and produces the surface AST of
//! [`ast`], with a span on every node and the law-heading trail on every item. It knows the
//! keyword tables of each surface language but no semantics; `catala_ir` takes the AST from here.
//! Errors are [`Diagnostic`]s; [`render`] prints them in Catala's box layout. Positions,
//! diagnostics and their renderer come from the `diagnostics` crate (shared with HATch and the
//! metamorphic engine's relation and domain files) and are re-exported here under their
//! former paths.

pub mod ast;
pub mod keywords;
pub mod lexer;
pub mod literate;
pub mod modules;
mod parser;
pub mod printer;
pub mod stack;
pub mod stdlib;

pub use diagnostics::{diagnostic, render, source};

pub use diagnostic::{suggestion, suggestion_of, Diagnostic, DiagnosticKind, Label};
pub use modules::LoadOptions;
pub use render::{render_error, render_gnu, render_gnu_warning, render_warning};
pub use source::{FileId, Position, SourceFile, SourceMap, Span};

use ast::{Item, ItemKind, Language, Program};
use literate::{Chunk, ModuleDirective, Reader};
use std::path::Path;

/// Parses a file, everything it includes and every module it uses, with the default options
/// for that file (modules looked up beside each file and in the `include_dirs` of the nearest
/// `clerk.toml`; standard library loaded). The language comes from the extension
/// (`.catala_en`, `.catala_fr`, `.catala_pl`); other extensions are read as English.
pub fn parse_file(path: &Path) -> Result<(SourceMap, Program), Diagnostic> {
    let (sources, result) = parse_file_with_sources(path);
    result.map(|p| (sources, p))
}

/// Like [`parse_file`], but returns the source map even when parsing fails, so that the
/// diagnostic can be rendered with its source lines.
pub fn parse_file_with_sources(path: &Path) -> (SourceMap, Result<Program, Diagnostic>) {
    match LoadOptions::for_file(path, &[]) {
        Ok(options) => parse_file_with_options(path, &options),
        Err(d) => (SourceMap::default(), Err(d)),
    }
}

/// Parses a file, its includes and its modules with explicit options; returns the source map
/// even when parsing fails.
pub fn parse_file_with_options(
    path: &Path,
    options: &LoadOptions,
) -> (SourceMap, Result<Program, Diagnostic>) {
    let lang = literate::language_of_path(path).unwrap_or(Language::En);
    let mut reader = Reader::new();
    let name = path.to_string_lossy().into_owned();
    let result = reader
        .read_path(&name, path, lang, None)
        .and_then(|()| literate::check_module_name(&reader, FileId(0)))
        .and_then(|()| parse_items(&reader));
    let mut sources = reader.sources;
    let result = result.and_then(|items| with_modules(&mut sources, items, lang, options));
    (sources, result)
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
        .and_then(|()| parse_items(&reader));
    let mut sources = reader.sources;
    let options = LoadOptions::default();
    let result = result.and_then(|items| with_modules(&mut sources, items, lang, &options));
    (sources, result)
}

/// Loads the modules used by the main file's `items`.
fn with_modules(
    sources: &mut SourceMap,
    items: Vec<Item>,
    lang: Language,
    options: &LoadOptions,
) -> Result<Program, Diagnostic> {
    let mut loader = modules::ModuleLoader::new(options);
    let uses = loader.bindings_of(sources, &items, lang, &[], parse_items)?;
    Ok(Program {
        items,
        modules: loader.modules,
        uses,
    })
}

fn parse_items(reader: &Reader) -> Result<Vec<Item>, Diagnostic> {
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
    Ok(items)
}
