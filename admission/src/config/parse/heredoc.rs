//! Heredoc templates as HCL reads them: literal text is one token per line, strip markers (`~`) trim only
//! the line token next to them, and a flush heredoc (`<<-`) then removes the smallest indentation of the
//! lines that start with literal text, across directive bodies too.
//!
//! The order matters and is HCL's: a `~}` that eats a line's newline leaves the next line not starting a
//! line, so its indentation stays (hashicorp/terraform#23710, still open upstream). `hcl-edit` dedents the
//! top-level lines of a `<<-` heredoc itself, before any strip marker; [`reindent`] gives those lines their
//! indentation back so that [`flush`] can apply HCL's order. This module only rewrites literal text.

use crate::config::expr::TemplatePart;

/// `s` with the leading whitespace of its first line token removed (a `~}` before it).
pub(super) fn ltrim_first_line(s: &str) -> String {
    let cut = s.find('\n').map_or(s.len(), |i| i + 1);
    let (first, rest) = s.split_at(cut);
    format!("{}{rest}", first.trim_start())
}

/// `s` with the trailing whitespace of its last line token removed (a `%{~` or `${~` after it).
pub(super) fn rtrim_last_line(s: &str) -> String {
    let body = s.strip_suffix('\n').unwrap_or(s);
    let cut = body.rfind('\n').map_or(0, |i| i + 1);
    let (before, last) = s.split_at(cut);
    format!("{before}{}", last.trim_end())
}

/// Gives back the `n` characters of indentation `hcl-edit` removed from each non-empty line that starts a
/// line in `s` (the first one only when `line_start`). When an interpolation or directive follows `s` on a
/// line of its own, that line's indentation was removed too (`hcl-edit` dedents only when every such line
/// is indented), so it comes back as well.
pub(super) fn reindent(s: &str, n: usize, line_start: bool, before_sequence: bool) -> String {
    let pad = " ".repeat(n);
    let mut out = String::with_capacity(s.len() + n);
    for (i, line) in s.split_inclusive('\n').enumerate() {
        let starts = i > 0 || line_start;
        if starts && line != "\n" {
            out.push_str(&pad);
        }
        out.push_str(line);
    }
    let ends_at_line_start = if s.is_empty() {
        line_start
    } else {
        s.ends_with('\n')
    };
    if before_sequence && ends_at_line_start {
        out.push_str(&pad);
    }
    out
}

/// The walk over a template's tokens in source order: whether the next token starts a line, and the
/// indentation found so far (or, when trimming, the indentation to remove).
struct Walk {
    newline: bool,
    indent: usize,
    trimming: bool,
}

impl Walk {
    /// A token that is not literal text (an interpolation or a directive).
    fn other(&mut self) {
        if std::mem::take(&mut self.newline) && !self.trimming {
            self.indent = 0;
        }
    }

    /// One line token of literal text, trimmed in place when trimming.
    fn line(&mut self, token: &str, out: &mut String) {
        let mut text = token;
        if std::mem::take(&mut self.newline) {
            let trimmed = token.trim_start();
            let blank = trimmed.is_empty() && token.ends_with('\n');
            if !blank {
                let spaces = token[..token.len() - trimmed.len()].chars().count();
                if self.trimming {
                    let cut = token
                        .char_indices()
                        .nth(self.indent)
                        .map_or(token.len(), |(i, _)| i);
                    text = &token[cut..];
                } else {
                    self.indent = self.indent.min(spaces);
                }
            }
        }
        if token.ends_with('\n') {
            self.newline = true;
        }
        out.push_str(text);
    }

    fn literal(&mut self, s: &mut String) {
        let mut out = String::with_capacity(s.len());
        if s.is_empty() {
            self.line("", &mut out);
        }
        for token in s.split_inclusive('\n') {
            self.line(token, &mut out);
        }
        if self.trimming {
            *s = out;
        }
    }

    fn parts(&mut self, parts: &mut [TemplatePart]) {
        for part in parts {
            match part {
                TemplatePart::Literal(s) => self.literal(s),
                TemplatePart::Interpolation(_) => self.other(),
                TemplatePart::If {
                    then, otherwise, ..
                } => {
                    self.other();
                    self.parts(then);
                    if !otherwise.is_empty() {
                        self.other();
                        self.parts(otherwise);
                    }
                    self.other();
                }
                TemplatePart::For { body, .. } => {
                    self.other();
                    self.parts(body);
                    self.other();
                }
            }
        }
    }
}

/// A flush heredoc's trimming, after its strip markers: the smallest indentation of the lines that start
/// with literal text (blank lines aside; a line starting with an interpolation or directive counts as
/// none) is removed from each of them.
pub(super) fn flush(parts: &mut [TemplatePart]) {
    let mut measure = Walk {
        newline: true,
        indent: usize::MAX,
        trimming: false,
    };
    measure.parts(parts);
    if measure.indent == 0 || measure.indent == usize::MAX {
        return;
    }
    Walk {
        newline: true,
        indent: measure.indent,
        trimming: true,
    }
    .parts(parts);
}
