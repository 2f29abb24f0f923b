//! One owned instance as `terraform state show` prints it: `# ADDRESS:`, then a `resource "TYPE" "NAME"`
//! block holding the attributes the plan read from the live object, sorted and aligned, with nested
//! block types shown as blocks after them.
//!
//! The layout is Terraform's human state rendering: four spaces of indentation per level, null
//! attributes left out, lists one item a line with a trailing comma, maps one `"key" = value` line per
//! entry (keys always quoted: a value does not say whether it is a map or an object, and tags, the
//! common case, are maps). A sensitive value prints as `(sensitive value)`; this module must never show
//! a secret, and never decides anything: it renders the `before` the plan already holds.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use admission::Value;
use provider::value::syntax::write_quoted;

use super::blocks::{blocks_of, holds_blocks};
use crate::model::ResourceChange;

/// Four spaces per level, as Terraform's state rendering indents.
const STEP: usize = 4;

/// `change`'s live object as `terraform state show` prints it, or `None` when the change has no live
/// object (a create) or is the delete of a deposed object, which has no address of its own.
pub fn instance_state(change: &ResourceChange) -> Option<String> {
    if change.deposed.is_some() {
        return None;
    }
    let before = change.before.as_ref()?;
    let address = &change.address;
    let mut out = String::new();
    let _ = writeln!(out, "# {address}:");
    let _ = write!(
        out,
        "resource {} {} ",
        quoted(address.type_name()),
        quoted(address.block().name())
    );
    let is_block =
        |name: &str, v: &Value| change.blocks.iter().any(|b| b == name) && holds_blocks(v);
    body(&mut out, before, 0, &is_block);
    out.push('\n');
    Some(out)
}

/// `{`, the attributes of `attrs` (nested blocks after them), and `}` at `indent`.
fn body(
    out: &mut String,
    attrs: &BTreeMap<String, Value>,
    indent: usize,
    is_block: &dyn Fn(&str, &Value) -> bool,
) {
    out.push_str("{\n");
    let inner = indent + STEP;
    let (blocks, plain): (Vec<_>, Vec<_>) = attrs
        .iter()
        .filter(|(_, v)| !matches!(v, Value::Null))
        .partition(|(name, v)| is_block(name, v));
    let width = plain
        .iter()
        .map(|(name, _)| name.chars().count())
        .max()
        .unwrap_or(0);
    for (name, value) in plain {
        let _ = writeln!(
            out,
            "{:inner$}{name:<width$} = {}",
            "",
            value_text(value, inner)
        );
    }
    // Inside a block every nested value counts as blocks when it holds them: the schema's list of block
    // types names only the resource's own.
    let nested = |_: &str, v: &Value| holds_blocks(v);
    for (name, value) in blocks {
        for (label, block) in blocks_of(value).unwrap_or_default() {
            out.push('\n');
            let _ = write!(out, "{:inner$}{name} ", "");
            if let Some(label) = label {
                let _ = write!(out, "{} ", quoted(label));
            }
            body(out, block, inner, &nested);
            out.push('\n');
        }
    }
    let _ = write!(out, "{:indent$}}}", "");
}

/// One value written at `indent` (the indentation of the line it starts on).
fn value_text(value: &Value, indent: usize) -> String {
    let inner = indent + STEP;
    match value {
        Value::Sensitive(_) => "(sensitive value)".to_owned(),
        Value::List(items) if !items.is_empty() => seq_text(items.iter(), indent),
        Value::Set(items) if !items.is_empty() => seq_text(items.iter(), indent),
        Value::Map(entries) if !entries.is_empty() => {
            let keys: Vec<String> = entries.keys().map(|k| quoted(k)).collect();
            let width = keys.iter().map(|k| k.chars().count()).max().unwrap_or(0);
            let mut out = String::from("{\n");
            for (key, v) in keys.iter().zip(entries.values()) {
                let _ = writeln!(out, "{:inner$}{key:<width$} = {}", "", value_text(v, inner));
            }
            let _ = write!(out, "{:indent$}}}", "");
            out
        }
        other => other.to_string(),
    }
}

fn seq_text<'v>(items: impl Iterator<Item = &'v Value>, indent: usize) -> String {
    let inner = indent + STEP;
    let mut out = String::from("[\n");
    for v in items {
        let _ = writeln!(out, "{:inner$}{},", "", value_text(v, inner));
    }
    let _ = write!(out, "{:indent$}]", "");
    out
}

/// `text` as an HCL quoted string.
fn quoted(text: &str) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_quoted(&mut out, text, true);
    out
}
