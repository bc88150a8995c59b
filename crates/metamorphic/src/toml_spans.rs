//! Where the keys and values of a domain file are: the TOML text read a second time with its
//! spans kept, so that an error about a key or value of the domain points at it, and the
//! expressions written in its strings keep spans in the file.

use diagnostics::{FileId, Span};
use toml_edit::{ImDocument, Item};

/// The spans of one TOML file of a source map.
pub(crate) struct TomlSpans {
    document: Option<ImDocument<String>>,
    file: FileId,
}

impl TomlSpans {
    pub(crate) fn new(text: &str, file: FileId) -> TomlSpans {
        TomlSpans {
            document: ImDocument::parse(text.to_string()).ok(),
            file,
        }
    }

    fn span(&self, range: Option<std::ops::Range<usize>>) -> Option<Span> {
        range.map(|r| Span::new(self.file, r.start, r.end))
    }

    /// The item at a path of keys, and the key naming it.
    fn lookup(&self, path: &[&str]) -> Option<(&toml_edit::Key, &Item)> {
        let document = self.document.as_ref()?;
        let (last, parents) = path.split_last()?;
        let mut table: &dyn toml_edit::TableLike = document.as_table();
        for key in parents {
            table = table.get(key)?.as_table_like()?;
        }
        table.get_key_value(last)
    }

    /// The span of the key at the end of `path` (`AGI` of `[fields.AGI]`).
    pub(crate) fn key(&self, path: &[&str]) -> Option<Span> {
        self.span(self.lookup(path)?.0.span())
    }

    /// The span of the value at `path`; its key's when the value has none (a table).
    pub(crate) fn value(&self, path: &[&str]) -> Option<Span> {
        let (key, item) = self.lookup(path)?;
        self.span(item.span()).or_else(|| self.span(key.span()))
    }

    /// The span of item `index` of the array at `path`.
    pub(crate) fn item(&self, path: &[&str], index: usize) -> Option<Span> {
        let (_, item) = self.lookup(path)?;
        self.span(item.as_array()?.get(index)?.span())
    }

    /// A function placing the spans of an expression written in the string `value`, which is
    /// at `at` in `text`: exactly when the string is written as it reads (no escapes), else
    /// every span becomes the whole string's.
    pub(crate) fn string_place(text: &str, at: Span, value: &str) -> impl Fn(Span) -> Span {
        let raw = text.get(at.start as usize..at.end as usize).unwrap_or("");
        let inner = raw
            .get(1..)
            .filter(|_| !value.is_empty())
            .and_then(|r| r.find(value))
            .map(|i| i + 1);
        move |s: Span| match inner {
            Some(i) => {
                let base = at.start + i as u32;
                Span {
                    file: at.file,
                    start: base + s.start,
                    end: base + s.end,
                }
            }
            _ => at,
        }
    }
}
