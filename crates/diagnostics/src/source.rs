//! Source files, byte spans and their translation to Catala-style positions
//! (`file:line.col-col`, 1-based lines, columns counted in code points).

use std::path::{Path, PathBuf};

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range `start..end` in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both (they must be in the same file; otherwise `self`).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A resolved position: 1-based line and column (in code points) of both ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub file: String,
    pub start_line: usize,
    pub start_col: usize,
    pub end_line: usize,
    pub end_col: usize,
}

impl std::fmt::Display for Position {
    /// Catala's layout: `file:12.23-24`, or `file:3.5-4.7` across lines.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.start_line == self.end_line {
            write!(
                f,
                "{}:{}.{}-{}",
                self.file, self.start_line, self.start_col, self.end_col
            )
        } else {
            write!(
                f,
                "{}:{}.{}-{}.{}",
                self.file, self.start_line, self.start_col, self.end_line, self.end_col
            )
        }
    }
}

/// One loaded source file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as the user (or an include directive) named it; used in messages.
    pub display_name: String,
    pub path: PathBuf,
    pub text: String,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(display_name: impl Into<String>, path: impl AsRef<Path>, text: String) -> Self {
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        SourceFile {
            display_name: display_name.into(),
            path: path.as_ref().to_path_buf(),
            text,
            line_starts,
        }
    }

    /// 1-based (line, column in code points) of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(l) => l,
            Err(l) => l - 1,
        };
        let start = self.line_starts[line];
        let col = self
            .text
            .get(start..offset)
            .map_or(0, |s| s.chars().count());
        (line + 1, col + 1)
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text(&self, line: usize) -> &str {
        if line == 0 || line > self.line_starts.len() {
            return "";
        }
        let start = self.line_starts[line - 1];
        let end = self
            .line_starts
            .get(line)
            .map_or(self.text.len(), |e| e.saturating_sub(1));
        self.text.get(start..end.max(start)).unwrap_or("")
    }
}

/// All files of one program (the main file and every file it includes).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// 1-based line and column (in code points) of the start of `span`; `None` when its file
    /// is not in this map.
    pub fn line_col(&self, span: Span) -> Option<(usize, usize)> {
        let file = self.files.get(span.file.0 as usize)?;
        Some(file.line_col(span.start as usize))
    }

    pub fn position(&self, span: Span) -> Position {
        let f = self.file(span.file);
        let (start_line, start_col) = f.line_col(span.start as usize);
        let (end_line, end_col) = f.line_col(span.end as usize);
        Position {
            file: f.display_name.clone(),
            start_line,
            start_col,
            end_line,
            end_col,
        }
    }
}
