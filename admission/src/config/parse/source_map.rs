//! Byte offsets of one source file as lines and character columns, the positions every diagnostic
//! carries.
//!
//! A map only locates; it never reads the text's meaning. A map may also be a view of a string inside a
//! JSON file, whose expression the HCL parser reads on its own: offsets into the string are then offsets
//! into the file from the string's first character, or, when the string holds escapes (so its value is
//! not its text), all the string's start.

use std::ops::Range;
use std::sync::Arc;

use crate::config::expr::Loc;

/// Maps byte offsets of one file to lines and character columns. Cloning is cheap (the text is shared).
#[derive(Debug, Clone)]
pub(crate) struct SourceMap {
    pub(super) file: Arc<str>,
    text: Arc<str>,
    line_starts: Arc<[usize]>,
    /// Added to every offset (a view of a string starting there).
    base: usize,
    /// When set, every offset is this one (a view of a string whose value is not its text).
    pinned: Option<usize>,
}

impl SourceMap {
    /// The map of `text`, the contents of the file `file`.
    pub(crate) fn new(file: &str, text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceMap {
            file: Arc::from(file),
            text: Arc::from(text),
            line_starts: Arc::from(line_starts),
            base: 0,
            pinned: None,
        }
    }

    /// The view of the JSON string whose opening quote is at `quote`: offsets into its value map to the
    /// file when the value is its text (`verbatim`), else all to the string's start.
    pub(crate) fn inside_string(&self, quote: usize, verbatim: bool) -> SourceMap {
        let start = self.base + quote;
        SourceMap {
            base: start + 1,
            pinned: (!verbatim).then_some(start),
            ..self.clone()
        }
    }

    /// Where the byte `offset` is (clamped to the end of the text).
    pub(crate) fn loc(&self, offset: usize) -> Loc {
        let offset = self
            .pinned
            .unwrap_or(self.base + offset)
            .min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let start = self.line_starts[line - 1];
        let column = self
            .text
            .get(start..offset)
            .map_or(offset - start, |s| s.chars().count())
            + 1;
        Loc {
            file: self.file.clone(),
            line,
            column,
        }
    }

    /// The original text of `span` (offsets of this view), when the view's offsets are the file's.
    pub(super) fn text_of(&self, span: Range<usize>) -> Option<&str> {
        if self.pinned.is_some() {
            return None;
        }
        self.text.get(self.base + span.start..self.base + span.end)
    }

    /// Where `span` starts, or `fallback` for a node without a span.
    pub(super) fn loc_of(&self, span: Option<Range<usize>>, fallback: &Loc) -> Loc {
        span.map_or_else(|| fallback.clone(), |r| self.loc(r.start))
    }
}
