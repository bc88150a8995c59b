//! The files the front end reads and the errors it reports about them. An [`InputFile`] holds a
//! file's text in a one-file `SourceMap` shared with every error about it, so that a
//! [`FrontError`] shows itself as `file:line:column: message` or, through the renderer of the
//! `diagnostics` crate, in the box layout with the source line.

use crate::syntax::{parse_items, Item};
use diagnostics::{FileId, SourceError, SourceFile, SourceMap, Span};
use std::path::Path;
use std::sync::Arc;

/// An input error: a file that cannot be read, or an error at a place of a file.
#[derive(Debug, Clone, thiserror::Error)]
pub enum FrontError {
    #[error("{file}: cannot read: {reason}")]
    Unreadable { file: String, reason: String },
    #[error(transparent)]
    At(SourceError),
}

impl FrontError {
    /// The error in the box layout (with the source line) when it has a position; otherwise
    /// its one line.
    pub fn render(&self) -> String {
        match self {
            FrontError::At(e) => e.render(),
            FrontError::Unreadable { .. } => format!("{self}\n"),
        }
    }
}

/// One file read by the front end, with its text for positioned errors.
#[derive(Clone, Debug)]
pub struct InputFile {
    sources: Arc<SourceMap>,
    id: FileId,
}

impl InputFile {
    /// Reads `path` (named in messages as it is displayed).
    pub fn read(path: &Path) -> Result<InputFile, FrontError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| FrontError::Unreadable {
            file: name.clone(),
            reason: e.to_string(),
        })?;
        Ok(InputFile::from_text(&name, text))
    }

    /// A file of this name and text (for texts not read from disk).
    pub fn from_text(name: &str, text: String) -> InputFile {
        let mut sources = SourceMap::default();
        let id = sources.add(SourceFile::new(name, name, text));
        InputFile {
            sources: Arc::new(sources),
            id,
        }
    }

    /// The file's name as displayed in messages.
    pub fn name(&self) -> &str {
        &self.sources.file(self.id).display_name
    }

    /// The file's items.
    pub fn parse(&self) -> Result<Vec<Item>, FrontError> {
        parse_items(self.id, &self.sources.file(self.id).text)
            .map_err(|e| self.error(e.pos, e.message))
    }

    /// An error at `span` of this file.
    pub fn error(&self, span: Span, message: impl Into<String>) -> FrontError {
        FrontError::At(SourceError::new(message, span, self.sources.clone()))
    }

    /// An error about the file as a whole (shown at its start).
    pub(crate) fn error_at_start(&self, message: impl Into<String>) -> FrontError {
        self.error(Span::new(self.id, 0, 0), message)
    }
}
