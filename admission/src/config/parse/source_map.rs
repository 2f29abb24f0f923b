//! Byte offsets of one source file as lines and character columns, the positions every diagnostic
//! carries.
//!
//! A map only locates; it never reads the text's meaning.

use std::ops::Range;
use std::sync::Arc;

use crate::config::expr::Loc;

/// Maps byte offsets of one file to lines and character columns.
pub(crate) struct SourceMap {
    pub(super) file: Arc<str>,
    text: Arc<str>,
    line_starts: Vec<usize>,
}

impl SourceMap {
    /// The map of `text`, the contents of the file `file`.
    pub(crate) fn new(file: &str, text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        SourceMap {
            file: Arc::from(file),
            text: Arc::from(text),
            line_starts,
        }
    }

    /// Where the byte `offset` is (clamped to the end of the text).
    pub(crate) fn loc(&self, offset: usize) -> Loc {
        let offset = offset.min(self.text.len());
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

    /// Where `span` starts, or `fallback` for a node without a span.
    pub(super) fn loc_of(&self, span: Option<Range<usize>>, fallback: &Loc) -> Loc {
        span.map_or_else(|| fallback.clone(), |r| self.loc(r.start))
    }
}
