//! `liveplan validate`: the configuration's own findings (parse and lint), with no live read, as text or,
//! with `-json`, as Terraform's validate document.
//!
//! The JSON is Terraform's format 1.0 (`format_version`, `valid`, `error_count`, `warning_count`,
//! `diagnostics`), each diagnostic with its `severity`, `summary`, `detail`, a source `range` when it has
//! a place, and liveplan's own `code`. With `-json` stdout holds that one document and nothing else,
//! whatever goes wrong. This command never reads the live system or the store and never writes.

use admission::{Diagnostic, Severity, SourceFile, SourcePos};
use engine::render;
use serde_json::{Value as Json, json};

use super::commands::{diagnostics_text, offline_validation};
use super::target::Inputs;
use super::terminal::Terminal;
use super::{Common, Exit};

/// The version of Terraform's validate document written.
const FORMAT_VERSION: &str = "1.0";

/// `liveplan validate`: parse and lint only.
pub async fn validate(common: &Common, term: &Terminal) -> anyhow::Result<Exit> {
    let inputs = match Inputs::read_configured(common) {
        Ok(inputs) => inputs,
        // `validate -json` prints one document whatever happens; a person reads the error on stderr.
        Err(e) if common.json => {
            let problem = Inputs::unreadable(&e);
            let doc = document(&[], std::slice::from_ref(&problem));
            term.line(&serde_json::to_string_pretty(&doc)?);
            return Ok(Exit::Failure);
        }
        Err(e) => return Err(e),
    };
    let linted = offline_validation(&inputs);
    let valid = linted.valid();
    if common.json {
        let doc = document(&inputs.files, &linted.diagnostics);
        term.line(&serde_json::to_string_pretty(&doc)?);
    } else {
        term.plan_text(&diagnostics_text(&linted.diagnostics));
        if valid {
            term.line(&term.green("Success! The configuration is valid."));
        } else {
            term.line(&term.red("The configuration is not valid."));
        }
    }
    Ok(if valid { Exit::Success } else { Exit::Failure })
}

/// Terraform's validate document of `diagnostics`, found in `files`.
fn document(files: &[SourceFile], diagnostics: &[Diagnostic]) -> Json {
    let count = |severity| {
        diagnostics
            .iter()
            .filter(|d| d.severity() == severity)
            .count()
    };
    let errors = count(Severity::Error);
    json!({
        "format_version": FORMAT_VERSION,
        "valid": errors == 0,
        "error_count": errors,
        "warning_count": count(Severity::Warning),
        "diagnostics": diagnostics.iter().map(|d| diagnostic(files, d)).collect::<Vec<_>>(),
    })
}

/// One diagnostic: liveplan's JSON of it (code, address, ids) with Terraform's `range` in place of its
/// `pos` text.
fn diagnostic(files: &[SourceFile], d: &Diagnostic) -> Json {
    let mut o = render::diagnostic_json(d);
    if let Some(map) = o.as_object_mut() {
        map.remove("pos");
        if let Some(range) = d.pos.as_ref().map(|pos| range(files, pos)) {
            map.insert("range".to_owned(), range);
        }
    }
    o
}

/// The source range of `pos`: from it to the end of its line (a diagnostic's place is one position, and
/// the rest of its line is what an editor should underline). Bytes count from 0, lines and columns (in
/// characters) from 1; the end is exclusive. A position outside its file's text keeps its line and
/// column, with byte offsets counted as far as the text goes.
fn range(files: &[SourceFile], pos: &SourcePos) -> Json {
    let text = files
        .iter()
        .find(|f| f.name == pos.file)
        .map_or("", |f| f.text.as_str());
    let (line_start, line) = line_at(text, pos.line);
    let start = line_start
        + line
            .char_indices()
            .nth(pos.column.saturating_sub(1))
            .map_or(line.len(), |(i, _)| i);
    let end = line_start + line.len();
    let end_column = line.chars().count() + 1;
    json!({
        "filename": pos.file,
        "start": { "line": pos.line, "column": pos.column, "byte": start },
        "end": { "line": pos.line, "column": end_column.max(pos.column), "byte": end.max(start) },
    })
}

/// The byte offset where line `number` (from 1) of `text` starts, and that line without its line end.
fn line_at(text: &str, number: usize) -> (usize, &str) {
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i + 1 == number {
            return (offset, line.trim_end_matches('\n').trim_end_matches('\r'));
        }
        offset += line.len();
    }
    (text.len(), "")
}
