//! Module loading: follows `> Using M [as A]` (`> Usage de M [en tant que A]`) directives from the
//! main file to the files declaring those modules (`> Module M`), transitively, and adds the
//! standard library. A module `M` is the file `m.catala_en` (or `_fr`, `_pl`; the base name
//! compared without regard to case) in the directory of the file that uses it, or in one of the
//! include directories ([`LoadOptions::include_dirs`]: `--include DIR` and the `include_dirs` of
//! the nearest `clerk.toml`). A missing module, a module matching several files and a cycle of
//! modules are errors at the `Using` directive.
//!
//! As in Catala, every file that is not part of the standard library sees the standard library's
//! modules under their short names (`Date`, `List`/`Liste`, `Money`/`Argent`, ...), as if it had
//! `> Using` lines for them; its own `Using ... as Date` takes precedence.

use crate::ast::{Ident, Item, ItemKind, Language};
use crate::diagnostic::{Diagnostic, DiagnosticKind, Label};
use crate::literate::{language_of_path, Reader};
use crate::source::{SourceMap, Span};
use crate::stdlib;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where modules are looked up, and whether the standard library is loaded.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    /// Directories searched for used modules, after the directory of the using file.
    pub include_dirs: Vec<PathBuf>,
    /// Load the standard library (on by default).
    pub stdlib: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            include_dirs: Vec::new(),
            stdlib: true,
        }
    }
}

impl LoadOptions {
    /// The options for loading `path`: the given include directories, then those of the nearest
    /// `clerk.toml` in the file's directory or above (relative to that `clerk.toml`).
    pub fn for_file(path: &Path, include_dirs: &[PathBuf]) -> Result<LoadOptions, Diagnostic> {
        let mut dirs = include_dirs.to_vec();
        if let Some((root, listed)) = clerk_include_dirs(path)? {
            dirs.extend(listed.into_iter().map(|d| root.join(d)));
        }
        Ok(LoadOptions {
            include_dirs: dirs,
            stdlib: true,
        })
    }
}

/// The directory of the nearest `clerk.toml` at or above `path`'s directory, with the
/// `include_dirs` of its `[project]` table.
pub(crate) fn clerk_include_dirs(
    path: &Path,
) -> Result<Option<(PathBuf, Vec<String>)>, Diagnostic> {
    let start = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let start = if start.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        start
    };
    let absolute = std::fs::canonicalize(&start).unwrap_or(start.clone());
    let mut display_dir = start;
    for dir in absolute.ancestors() {
        let candidate = dir.join("clerk.toml");
        if candidate.is_file() {
            let text = std::fs::read_to_string(&candidate).map_err(|e| {
                Diagnostic::new(
                    DiagnosticKind::Io,
                    format!("Could not read {}: {e}", candidate.display()),
                )
            })?;
            let table: toml::Table = text.parse().map_err(|e| {
                Diagnostic::new(
                    DiagnosticKind::Io,
                    format!("{}: not a valid clerk.toml: {e}", candidate.display()),
                )
            })?;
            let dirs = table
                .get("project")
                .and_then(|p| p.get("include_dirs"))
                .and_then(|d| d.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            return Ok(Some((display_dir, dirs)));
        }
        display_dir = display_dir.join("..");
    }
    Ok(None)
}

/// A module as loaded: its items and the modules it sees under which names.
#[derive(Clone, Debug)]
pub struct Module {
    /// The declared name (`> Module M`).
    pub name: Ident,
    /// `> Module M external`: its top-level declarations without `equals` are implemented
    /// outside Catala (see the interpreter's external-module registry).
    pub external: bool,
    /// True for the modules of the standard library.
    pub stdlib: bool,
    pub language: Language,
    pub items: Vec<Item>,
    /// Names visible in this module (aliases or module names) → index in
    /// [`crate::ast::Program::modules`].
    pub uses: Vec<ModuleBinding>,
}

/// A module name (or alias) in scope in a file.
#[derive(Clone, Debug)]
pub struct ModuleBinding {
    /// The name written in qualified references (the alias when there is one).
    pub name: String,
    /// Index in [`crate::ast::Program::modules`].
    pub module: usize,
    /// The `Using` directive (the declaration span for implicit standard-library bindings).
    pub span: Span,
}

/// Loads the module graph of a main file whose items are already parsed.
pub(crate) struct ModuleLoader<'o> {
    options: &'o LoadOptions,
    pub modules: Vec<Module>,
    /// Canonical path → module index, `None` while the module is being loaded (cycles).
    by_path: HashMap<PathBuf, Option<usize>>,
    /// Standard-library module name → index (loaded on first use).
    stdlib_by_name: HashMap<&'static str, usize>,
}

type ParseChunks = fn(&Reader) -> Result<Vec<Item>, Diagnostic>;

impl<'o> ModuleLoader<'o> {
    pub fn new(options: &'o LoadOptions) -> Self {
        ModuleLoader {
            options,
            modules: Vec::new(),
            by_path: HashMap::new(),
            stdlib_by_name: HashMap::new(),
        }
    }

    /// The bindings of a file with these items (its `Using` directives plus the standard
    /// library), loading the used modules.
    pub(crate) fn bindings_of(
        &mut self,
        sources: &mut SourceMap,
        items: &[Item],
        language: Language,
        chain: &[Span],
        parse: ParseChunks,
    ) -> Result<Vec<ModuleBinding>, Diagnostic> {
        let mut bindings: Vec<ModuleBinding> = Vec::new();
        if self.options.stdlib {
            // Only the standard-library modules whose short name the file's text mentions are
            // loaded (a textual over-approximation: a mention in law text loads it too).
            let mut files: Vec<crate::source::FileId> = items.iter().map(|i| i.span.file).collect();
            files.sort_unstable();
            files.dedup();
            let texts: Vec<String> = files
                .iter()
                .map(|f| sources.file(*f).text.clone())
                .collect();
            for (name, module) in self.stdlib_for(sources, language, &texts, parse)? {
                bindings.push(ModuleBinding {
                    name: name.to_string(),
                    module,
                    span: self.modules[module].name.span,
                });
            }
        }
        for item in items {
            let ItemKind::ModuleUse { name, alias } = &item.kind else {
                continue;
            };
            let module = self.load_used(sources, name, chain, parse)?;
            let written = alias.as_ref().unwrap_or(name);
            bindings.retain(|b| b.name != written.name);
            bindings.push(ModuleBinding {
                name: written.name.clone(),
                module,
                span: item.span,
            });
        }
        Ok(bindings)
    }

    fn load_used(
        &mut self,
        sources: &mut SourceMap,
        name: &Ident,
        chain: &[Span],
        parse: ParseChunks,
    ) -> Result<usize, Diagnostic> {
        let required_from = |d: Diagnostic| {
            chain.iter().rev().fold(d, |d, span| {
                let mut label = Label::new(*span);
                label.note = Some("Module required from".to_string());
                d.with_label(label)
            })
        };
        let file_dir = sources
            .file(name.span.file)
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let display_dir = Path::new(&sources.file(name.span.file).display_name)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut found: Vec<(PathBuf, String)> = Vec::new();
        let mut dirs: Vec<(PathBuf, PathBuf)> = vec![(file_dir, display_dir)];
        dirs.extend(
            self.options
                .include_dirs
                .iter()
                .map(|d| (d.clone(), d.clone())),
        );
        let mut seen_dirs: Vec<PathBuf> = Vec::new();
        for (dir, display) in dirs {
            let dir_key = std::fs::canonicalize(if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir.as_path()
            })
            .unwrap_or(dir.clone());
            if seen_dirs.contains(&dir_key) {
                continue;
            }
            seen_dirs.push(dir_key);
            for file in module_files(&dir, &name.name) {
                let shown = display.join(file.file_name().unwrap_or_default());
                found.push((file, crate::literate::lexically_normal(&shown)));
            }
        }
        let (path, display) = match found.len() {
            0 => {
                let mut d = Diagnostic::new(
                    DiagnosticKind::NameResolution,
                    format!("Required module not found: {}", name.name),
                );
                let mut label = Label::new(name.span);
                label.note = Some("Module required from".to_string());
                d = d.with_label(label);
                return Err(required_from(d));
            }
            1 => found.remove(0),
            _ => {
                let files: Vec<&str> = found.iter().map(|(_, d)| d.as_str()).collect();
                let d = Diagnostic::new(
                    DiagnosticKind::NameResolution,
                    format!(
                        "Required module {} matches multiple files: {}",
                        name.name,
                        files.join(" ")
                    ),
                )
                .at(name.span);
                return Err(required_from(d));
            }
        };
        let key = std::fs::canonicalize(&path).unwrap_or(path.clone());
        match self.by_path.get(&key) {
            Some(Some(index)) => return Ok(*index),
            Some(None) => {
                let d =
                    Diagnostic::new(DiagnosticKind::NameResolution, "Circular module dependency")
                        .at(name.span);
                return Err(required_from(d));
            }
            None => {}
        }
        self.by_path.insert(key.clone(), None);
        let lang = language_of_path(&path).unwrap_or(Language::En);
        let mut reader = Reader::new();
        std::mem::swap(&mut reader.sources, sources);
        let read = reader.read_path(&display, &path, lang, Some(name.span));
        std::mem::swap(&mut reader.sources, sources);
        read?;
        let items = {
            let mut reader_view = Reader::new();
            std::mem::swap(&mut reader_view.sources, sources);
            reader_view.chunks = reader.chunks;
            let parsed = parse(&reader_view);
            std::mem::swap(&mut reader_view.sources, sources);
            parsed?
        };
        let declared = items.iter().find_map(|i| match &i.kind {
            ItemKind::ModuleDef { name, external } => Some((name.clone(), *external)),
            _ => None,
        });
        let Some((declared, external)) = declared else {
            return Err(required_from(
                Diagnostic::new(
                    DiagnosticKind::NameResolution,
                    format!(
                        "The file {display} is used as module {} but does not declare a module \
                         ('> Module {}').",
                        name.name, name.name
                    ),
                )
                .at(name.span),
            ));
        };
        let mut inner_chain = chain.to_vec();
        inner_chain.push(name.span);
        let uses = self.bindings_of(sources, &items, lang, &inner_chain, parse)?;
        let index = self.modules.len();
        self.modules.push(Module {
            name: declared,
            external,
            stdlib: false,
            language: lang,
            items,
            uses,
        });
        self.by_path.insert(key, Some(index));
        Ok(index)
    }

    /// The standard library's short names for a file of `language`, loading its modules.
    fn stdlib_for(
        &mut self,
        sources: &mut SourceMap,
        language: Language,
        texts: &[String],
        parse: ParseChunks,
    ) -> Result<Vec<(&'static str, usize)>, Diagnostic> {
        let mut bindings = Vec::new();
        let entries = stdlib::modules(language);
        let mentioned = mentioned_entries(entries, texts);
        for (entry, mentioned) in entries.iter().zip(mentioned) {
            if !mentioned {
                continue;
            }
            let index = self.load_stdlib_module(sources, entry.module, parse)?;
            for alias in entry.aliases {
                bindings.push((*alias, index));
            }
        }
        Ok(bindings)
    }

    fn load_stdlib_module(
        &mut self,
        sources: &mut SourceMap,
        module: &'static str,
        parse: ParseChunks,
    ) -> Result<usize, Diagnostic> {
        if let Some(&i) = self.stdlib_by_name.get(module) {
            return Ok(i);
        }
        let Some(source) = stdlib::source(module) else {
            return Err(Diagnostic::new(
                DiagnosticKind::Io,
                format!("The standard library module {module} could not be found."),
            ));
        };
        let mut reader = Reader::new();
        std::mem::swap(&mut reader.sources, sources);
        let display = format!("<stdlib>/{}", source.file_name);
        let read = reader.read_text(
            &display,
            Path::new(&display),
            source.text.to_string(),
            source.language,
        );
        let parsed = read.and_then(|()| parse(&reader));
        std::mem::swap(&mut reader.sources, sources);
        let items = parsed?;
        let declared = items.iter().find_map(|i| match &i.kind {
            ItemKind::ModuleDef { name, external } => Some((name.clone(), *external)),
            _ => None,
        });
        let Some((name, external)) = declared else {
            return Err(Diagnostic::new(
                DiagnosticKind::Io,
                format!("The standard library file {display} declares no module."),
            ));
        };
        // The standard library's own `Using` lines name other standard-library modules.
        let mut uses = Vec::new();
        for item in &items {
            if let ItemKind::ModuleUse { name: used, alias } = &item.kind {
                let Some(target) = stdlib::module_named(&used.name) else {
                    return Err(Diagnostic::new(
                        DiagnosticKind::Io,
                        format!(
                            "The standard library module {} uses unknown module {}.",
                            name.name, used.name
                        ),
                    )
                    .at(used.span));
                };
                let target = self.load_stdlib_module(sources, target, parse)?;
                uses.push(ModuleBinding {
                    name: alias.as_ref().unwrap_or(used).name.clone(),
                    module: target,
                    span: item.span,
                });
            }
        }
        let index = self.modules.len();
        self.modules.push(Module {
            name,
            external,
            stdlib: true,
            language: source.language,
            items,
            uses,
        });
        self.stdlib_by_name.insert(module, index);
        Ok(index)
    }
}

/// True if `word` occurs in `text` as a whole word (not inside a longer identifier).
/// Which of `entries` one of `texts` mentions by one of its aliases, as a whole word (not
/// preceded or followed by a letter, a digit or `_`): one pass over the bytes of the texts,
/// stopping only where a byte could start an alias.
fn mentioned_entries(entries: &[stdlib::StdlibEntry], texts: &[String]) -> Vec<bool> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut starts = [false; 256];
    for alias in entries.iter().flat_map(|e| e.aliases) {
        if let Some(&b) = alias.as_bytes().first() {
            starts[usize::from(b)] = true;
        }
    }
    let mut mentioned = vec![false; entries.len()];
    for text in texts {
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if !starts[usize::from(b)] || !text.is_char_boundary(i) {
                continue;
            }
            for (k, entry) in entries.iter().enumerate() {
                let found = entry.aliases.iter().any(|alias| {
                    bytes[i..].starts_with(alias.as_bytes())
                        && !text[..i].chars().next_back().is_some_and(is_ident)
                        && !text[i + alias.len()..].chars().next().is_some_and(is_ident)
                });
                mentioned[k] |= found;
            }
        }
    }
    mentioned
}

/// The files of `dir` that can hold module `name`: `name` with a Catala extension, the base name
/// compared without regard to case.
fn module_files(dir: &Path, name: &str) -> Vec<PathBuf> {
    let listing = if dir.as_os_str().is_empty() {
        std::fs::read_dir(".")
    } else {
        std::fs::read_dir(dir)
    };
    let Ok(entries) = listing else {
        return Vec::new();
    };
    let wanted = name.to_lowercase();
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && language_of_path(p).is_some())
        .filter(|p| {
            p.file_stem()
                .is_some_and(|s| s.to_string_lossy().to_lowercase() == wanted)
        })
        .map(|p| {
            if dir.as_os_str().is_empty() {
                PathBuf::from(p.file_name().unwrap_or_default())
            } else {
                p
            }
        })
        .collect();
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::{mentioned_entries, stdlib};
    use crate::ast::Language;

    /// Whether `text` mentions the standard-library module of which `word` is an alias.
    fn mentions_word(text: &str, word: &str) -> bool {
        let language = if word.is_ascii() {
            Language::En
        } else {
            Language::Fr
        };
        let entries = stdlib::modules(language);
        let Some(i) = entries.iter().position(|e| e.aliases.contains(&word)) else {
            panic!("no standard-library module is called {word}");
        };
        mentioned_entries(entries, &[text.to_string()])[i]
    }

    #[test]
    fn standard_library_names_are_found_as_whole_words() {
        assert!(mentions_word("x equals Date.get_year of d", "Date"));
        assert!(mentions_word("contenu Période\n", "Période"));
        assert!(!mentions_word("output date_courante content date", "Date"));
        assert!(!mentions_word("MyDate.x", "Date"));
        assert!(!mentions_word("Dates.x", "Date"));
        assert!(!mentions_word("", "List"));
    }
}
