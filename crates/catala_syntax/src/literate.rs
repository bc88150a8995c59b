//! The literate reader: splits a markdown file into law text, headings, directives and code
//! blocks. It tracks the trail of markdown headings (a heading of level n closes every open
//! heading of level n or more), follows `> Include:` / `> Inclusion:` directives relative to the
//! including file (reporting missing files and cycles at the directive), and hands every
//! ```catala / ```catala-metadata block to the parser with the heading trail in force there.
//! Other fenced blocks (```catala-test-cli, ...) are skipped.

use crate::ast::{Ident, Language, LawHeading};
use crate::diagnostic::{Diagnostic, DiagnosticKind, Label};
use crate::source::{FileId, SourceFile, SourceMap, Span};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One code block to parse.
#[derive(Clone, Debug)]
pub struct CodeBlock {
    pub file: FileId,
    /// Byte range of the block's body (between the fences).
    pub start: usize,
    pub end: usize,
    pub metadata: bool,
    pub headings: Arc<[LawHeading]>,
    pub language: Language,
}

/// A module directive line (`> Module M [external]`, `> Using M [as A]`).
#[derive(Clone, Debug)]
pub enum ModuleDirective {
    Def { name: Ident, external: bool },
    Use { name: Ident, alias: Option<Ident> },
}

/// What the reader found, in reading order (included files inlined).
#[derive(Clone, Debug)]
pub enum Chunk {
    Code(CodeBlock),
    Module {
        directive: ModuleDirective,
        span: Span,
        headings: Arc<[LawHeading]>,
        language: Language,
    },
}

fn noted(span: Span, note: &str) -> Label {
    let mut label = Label::new(span);
    label.note = Some(note.to_string());
    label
}

/// Catala's check that the module a file declares (`> Module M`) is named after the file:
/// `mod_def.catala_en` must declare `Mod_def` (compared without regard to case).
pub fn check_module_name(reader: &Reader, main: FileId) -> Result<(), Diagnostic> {
    let declared = reader.chunks.iter().find_map(|c| match c {
        Chunk::Module {
            directive: ModuleDirective::Def { name, .. },
            ..
        } if name.span.file == main => Some(name),
        _ => None,
    });
    let Some(name) = declared else {
        return Ok(());
    };
    let file = reader.sources.file(main);
    let display = Path::new(&file.display_name);
    let stem = display
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if stem.to_lowercase() == name.name.to_lowercase() {
        return Ok(());
    }
    let mut capitalized = stem.clone();
    if let Some(first) = capitalized.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    let mut renamed = display.with_file_name(&name.name);
    if let Some(ext) = display.extension() {
        renamed.set_extension(ext);
    }
    Err(Diagnostic::new(
        DiagnosticKind::Parse,
        format!(
            "Module declared as {}, which does not match the file name \"{}\". Rename the \
             module to {} or the file to \"{}\".",
            name.name,
            file.display_name,
            capitalized,
            renamed.display()
        ),
    )
    .at(name.span))
}

/// The language given by a file extension.
pub fn language_of_path(path: &Path) -> Option<Language> {
    match path.extension()?.to_str()? {
        "catala_en" => Some(Language::En),
        "catala_fr" => Some(Language::Fr),
        "catala_pl" => Some(Language::Pl),
        _ => None,
    }
}

/// Reads files and their includes into a [`SourceMap`] and a list of chunks.
pub struct Reader {
    pub sources: SourceMap,
    pub chunks: Vec<Chunk>,
    /// Canonical paths of the files being read (the include stack), to detect cycles.
    stack: Vec<PathBuf>,
}

impl Default for Reader {
    fn default() -> Self {
        Self::new()
    }
}

impl Reader {
    pub fn new() -> Reader {
        Reader {
            sources: SourceMap::default(),
            chunks: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// Reads a file from disk (and everything it includes).
    pub fn read_path(
        &mut self,
        display_name: &str,
        path: &Path,
        lang: Language,
        directive: Option<Span>,
    ) -> Result<(), Diagnostic> {
        let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        if self.stack.contains(&canonical) {
            let mut d = Diagnostic::new(
                DiagnosticKind::Io,
                format!("Cyclic inclusion of file \"{display_name}\""),
            );
            if let Some(span) = directive {
                d = d.at(span);
            }
            return Err(d);
        }
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                let message = match directive {
                    Some(_) => format!(
                        "Included file '{display_name}' is not a regular file or does not exist."
                    ),
                    None => format!("Could not read file \"{display_name}\": {e}"),
                };
                let mut d = Diagnostic::new(DiagnosticKind::Io, message);
                if let Some(span) = directive {
                    d = d.at(span);
                }
                return Err(d);
            }
        };
        self.stack.push(canonical);
        let result = self.read_text(display_name, path, text, lang);
        self.stack.pop();
        result
    }

    /// Reads the given text as file `display_name` at `path` (includes resolved relative to
    /// `path`'s directory).
    pub fn read_text(
        &mut self,
        display_name: &str,
        path: &Path,
        text: String,
        lang: Language,
    ) -> Result<(), Diagnostic> {
        let file = self
            .sources
            .add(SourceFile::new(display_name, path, text.clone()));
        let mut headings: Vec<LawHeading> = Vec::new();
        let mut trail: Arc<[LawHeading]> = Arc::from(Vec::new());
        let mut offset = 0;
        // The last line was a heading of this level (consecutive ones are merged).
        let mut previous_heading: Option<u8> = None;
        let text = text.as_str();
        while offset < text.len() {
            let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
            let next = (line_end + 1).min(text.len()).max(line_end);
            let next = if line_end < text.len() {
                next
            } else {
                text.len()
            };
            let line = text[offset..line_end].trim_end_matches('\r');
            let trimmed = line.trim_start_matches([' ', '\t']);
            if let Some(info) = trimmed.strip_prefix("```") {
                previous_heading = None;
                let info = info.trim();
                let (body_end, after) = find_fence_end(text, next);
                match info {
                    "catala" | "catala-metadata" => {
                        let Some(body_end) = body_end else {
                            return Err(Diagnostic::new(
                                DiagnosticKind::Parse,
                                "Unclosed block or missing newline at the end of file. Did you \
                                 forget a ``` delimiter ?",
                            )
                            .at(Span::new(file, offset, line_end)));
                        };
                        self.chunks.push(Chunk::Code(CodeBlock {
                            file,
                            start: next,
                            end: body_end,
                            metadata: info == "catala-metadata",
                            headings: trail.clone(),
                            language: lang,
                        }));
                    }
                    _ => {}
                }
                offset = after;
                continue;
            }
            if line.starts_with('#') {
                let level = line.bytes().take_while(|b| *b == b'#').count();
                let title = heading_title(&line[level..]);
                if !title.is_empty() {
                    let level = level.min(u8::MAX as usize) as u8;
                    let span = Span::new(file, offset, line_end);
                    if previous_heading == Some(level) {
                        if let Some(last) = headings.last_mut() {
                            last.title.push(' ');
                            last.title.push_str(&title);
                            last.span = last.span.to(span);
                        }
                    } else {
                        headings.retain(|h| h.level < level);
                        headings.push(LawHeading { title, level, span });
                    }
                    trail = Arc::from(headings.clone());
                    previous_heading = Some(level);
                    offset = next;
                    continue;
                }
            }
            previous_heading = None;
            if let Some(directive) = line.strip_prefix('>') {
                let base = offset + 1;
                self.directive(file, directive, base, line_end, lang, &trail)?;
            }
            offset = next;
        }
        Ok(())
    }

    fn directive(
        &mut self,
        file: FileId,
        directive: &str,
        base: usize,
        line_end: usize,
        lang: Language,
        trail: &Arc<[LawHeading]>,
    ) -> Result<(), Diagnostic> {
        let span = Span::new(file, base - 1, line_end);
        let words: Vec<(usize, &str)> = split_words(directive, base);
        let Some((_, first)) = words.first() else {
            return Ok(());
        };
        let keyword = first.trim_end_matches(':');
        if keyword == "Include" || keyword == "Inclusion" {
            let Some(colon) = directive.find(':') else {
                return Ok(());
            };
            let arg = directive[colon + 1..].trim();
            let first_chunk = self.chunks.len();
            self.include(file, arg, span, lang)?;
            // Catala: a file declaring a module is used with `> Using`, never included.
            let declared = self.chunks[first_chunk..].iter().find_map(|c| match c {
                Chunk::Module {
                    directive: ModuleDirective::Def { name, .. },
                    ..
                } => Some(name.clone()),
                _ => None,
            });
            if let Some(name) = declared {
                let include_span = Span::new(file, words[0].0, line_end);
                return Err(Diagnostic::new(
                    DiagnosticKind::Parse,
                    format!(
                        "A file that declares a module cannot be used through the raw \
                         '> Include' directive. You should use it as a module with '> Use {}' \
                         instead.",
                        name.name
                    ),
                )
                .with_label(noted(include_span, "File include"))
                .with_label(noted(name.span, "Module declaration")));
            }
            return Ok(());
        }
        let module_word = |i: usize| -> Option<Ident> {
            let (start, w) = words.get(i)?;
            Some(Ident {
                name: w.to_string(),
                span: Span::new(file, *start, start + w.len()),
            })
        };
        let directive = match keyword {
            "Module" => {
                let Some(name) = module_word(1) else {
                    return Ok(());
                };
                let external = words
                    .get(2)
                    .is_some_and(|(_, w)| *w == "external" || *w == "externe");
                ModuleDirective::Def { name, external }
            }
            "Using" => {
                let Some(name) = module_word(1) else {
                    return Ok(());
                };
                let alias = match words.get(2) {
                    Some((_, "as")) => module_word(3),
                    _ => None,
                };
                ModuleDirective::Use { name, alias }
            }
            "Usage" => {
                // `> Usage de M [en tant que A]`
                let Some(name) = module_word(2) else {
                    return Ok(());
                };
                let alias = match (words.get(3), words.get(4), words.get(5)) {
                    (Some((_, "en")), Some((_, "tant")), Some((_, "que"))) => module_word(6),
                    _ => None,
                };
                ModuleDirective::Use { name, alias }
            }
            _ => return Ok(()),
        };
        self.chunks.push(Chunk::Module {
            directive,
            span,
            headings: trail.clone(),
            language: lang,
        });
        Ok(())
    }

    fn include(
        &mut self,
        file: FileId,
        arg: &str,
        span: Span,
        lang: Language,
    ) -> Result<(), Diagnostic> {
        let is_pdf = arg.ends_with(".pdf") || arg.contains("@p.") || arg.contains('@');
        let is_legislative = ["JORFARTI", "LEGIARTI", "CETATEXT"]
            .iter()
            .any(|p| arg.contains(p));
        if arg.is_empty() || is_pdf || is_legislative {
            return Ok(());
        }
        let parent = self.sources.file(file);
        let dir = parent
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let display_dir = Path::new(&parent.display_name)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let path = dir.join(arg);
        let display = lexically_normal(&display_dir.join(arg));
        let lang = language_of_path(&path).unwrap_or(lang);
        self.read_path(&display, &path, lang, Some(span))
    }
}

/// The path with `.` components dropped and `dir/..` pairs folded, without touching the file
/// system (for the names shown in messages: `a/./b/../c.catala_fr` is `a/c.catala_fr`).
pub(crate) fn lexically_normal(path: &Path) -> String {
    use std::path::Component;
    let mut parts: Vec<Component> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(parts.last(), Some(Component::Normal(_))) => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    let normal: std::path::PathBuf = parts.iter().collect();
    normal.to_string_lossy().into_owned()
}

/// The title of a heading line after its `#`s: up to an optional `| article-id`, without a
/// trailing `[archive]`, trimmed.
fn heading_title(rest: &str) -> String {
    let title = rest.split('|').next().unwrap_or("");
    let title = title.trim();
    let title = title.strip_suffix("[archive]").unwrap_or(title).trim();
    title.to_string()
}

/// From the start of a block body, finds the closing fence line. Returns the byte offset where
/// the body ends (start of the fence line) and the offset after the fence line; `None` for the
/// former when the file ends first.
fn find_fence_end(text: &str, mut offset: usize) -> (Option<usize>, usize) {
    while offset < text.len() {
        let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
        let line = text[offset..line_end].trim();
        let next = if line_end < text.len() {
            line_end + 1
        } else {
            text.len()
        };
        if line == "```" {
            return (Some(offset), next);
        }
        offset = next;
    }
    (None, text.len())
}

/// Splits a directive line into words with their absolute byte offsets (a `:` is its own word
/// separator).
fn split_words(s: &str, base: usize) -> Vec<(usize, &str)> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        if c.is_whitespace() || c == ':' {
            if let Some(st) = start.take() {
                words.push((base + st, &s[st..i]));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(st) = start {
        words.push((base + st, &s[st..]));
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Reader {
        let mut r = Reader::new();
        let res = r.read_text(
            "t.catala_en",
            Path::new("t.catala_en"),
            text.into(),
            Language::En,
        );
        assert!(res.is_ok(), "{res:?}");
        r
    }

    #[test]
    fn displayed_include_paths_are_lexically_normal() {
        assert_eq!(
            lexically_normal(Path::new("a/./b/../c.catala_fr")),
            "a/c.catala_fr"
        );
        assert_eq!(lexically_normal(Path::new("../x/./y")), "../x/y");
        assert_eq!(lexically_normal(Path::new("t/../../u")), "../u");
    }

    #[test]
    fn headings_form_a_trail_and_pop_by_level() {
        let r = read(
            "# A\n## B\n```catala\nx\n```\n## C | art-1 [archive]\n### D\n```catala-metadata\ny\n```\n# E\n```catala\n```\n",
        );
        let trails: Vec<Vec<(String, u8)>> = r
            .chunks
            .iter()
            .map(|c| match c {
                Chunk::Code(b) => b
                    .headings
                    .iter()
                    .map(|h| (h.title.clone(), h.level))
                    .collect(),
                Chunk::Module { .. } => vec![],
            })
            .collect();
        assert_eq!(
            trails,
            vec![
                vec![("A".into(), 1), ("B".into(), 2)],
                vec![("A".into(), 1), ("C".into(), 2), ("D".into(), 3)],
                vec![("E".into(), 1)],
            ]
        );
        assert!(matches!(&r.chunks[1], Chunk::Code(b) if b.metadata));
    }

    #[test]
    fn other_fenced_blocks_are_skipped() {
        let r = read("```catala-test-cli\n$ catala x\n# not a heading\n```\n```catala\nz\n```\n");
        assert_eq!(r.chunks.len(), 1);
        match &r.chunks[0] {
            Chunk::Code(b) => {
                assert!(b.headings.is_empty());
                assert_eq!(&r.sources.file(b.file).text[b.start..b.end], "z\n");
            }
            Chunk::Module { .. } => unreachable!(),
        }
    }

    #[test]
    fn consecutive_headings_of_one_level_merge() {
        let r = read("# Title\n# continued\n```catala\n```\n");
        match &r.chunks[0] {
            Chunk::Code(b) => assert_eq!(b.headings[0].title, "Title continued"),
            Chunk::Module { .. } => unreachable!(),
        }
    }

    #[test]
    fn missing_include_is_an_io_error_at_the_directive() {
        let mut r = Reader::new();
        let res = r.read_text(
            "t.catala_en",
            Path::new("/nonexistent/t.catala_en"),
            "text\n> Include: nothere.catala_en\n".into(),
            Language::En,
        );
        let d = res.err().map(|d| (d.kind, d.labels[0].span.start));
        assert_eq!(d, Some((DiagnosticKind::Io, 5)));
    }

    #[test]
    fn unclosed_block_is_reported() {
        let mut r = Reader::new();
        let res = r.read_text(
            "t.catala_en",
            Path::new("t.catala_en"),
            "```catala\nx".into(),
            Language::En,
        );
        assert!(res.is_err());
    }

    #[test]
    fn module_directives() {
        let r = read(
            "> Module Foo external\n> Using Bar as B\n> Usage de Aides_logement en tant que AL\n",
        );
        assert!(matches!(
            &r.chunks[0],
            Chunk::Module { directive: ModuleDirective::Def { name, external: true }, .. } if name.name == "Foo"
        ));
        assert!(matches!(
            &r.chunks[1],
            Chunk::Module { directive: ModuleDirective::Use { name, alias: Some(a) }, .. } if name.name == "Bar" && a.name == "B"
        ));
        assert!(matches!(
            &r.chunks[2],
            Chunk::Module { directive: ModuleDirective::Use { name, alias: Some(a) }, .. } if name.name == "Aides_logement" && a.name == "AL"
        ));
    }
}
