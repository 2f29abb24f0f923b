//! Nested blocks in the plan text, as Terraform renders them: after the attributes, a blank line, then
//! one `+ name {` … `}` per block (`~` for a block that changes, `-` for one removed), each with its own
//! attributes aligned, nested blocks inside, and the unchanged ones counted rather than shown.
//!
//! It renders values already planned; it must never decide what changes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use admission::Value;

/// Where a block is rendered: its indentation, and whether an empty line comes first (before each block
/// of a resource, as Terraform separates them; never inside a block).
#[derive(Debug, Clone, Copy)]
pub(super) struct At {
    pub indent: usize,
    pub blank: bool,
}

impl At {
    /// Inside a block rendered here.
    fn inner(self) -> At {
        At {
            indent: self.indent + 4,
            blank: false,
        }
    }
}

/// The sign of a rendered line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Sign {
    Add,
    Remove,
}

impl Sign {
    fn as_str(self) -> &'static str {
        match self {
            Sign::Add => "+",
            Sign::Remove => "-",
        }
    }
}

/// One block's body with its label, if it has one.
pub(super) type Labelled<'v> = (Option<&'v str>, &'v BTreeMap<String, Value>);

/// A block before and after, by position, label or content; either side may be missing.
type Paired<'v> = (
    Option<&'v str>,
    Option<&'v BTreeMap<String, Value>>,
    Option<&'v BTreeMap<String, Value>>,
);

/// The blocks a value holds, as (label, body): the elements of a list or set, the entries of a map of
/// labelled blocks, or one object. `None` for a value that is no blocks (unknown, sensitive, a scalar),
/// which is shown as an attribute instead.
pub(super) fn blocks_of(value: &Value) -> Option<Vec<Labelled<'_>>> {
    fn body(v: &Value) -> Option<&BTreeMap<String, Value>> {
        match v {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }
    match value {
        Value::Null => Some(Vec::new()),
        Value::List(items) => items.iter().map(|v| body(v).map(|m| (None, m))).collect(),
        Value::Set(items) => items.iter().map(|v| body(v).map(|m| (None, m))).collect(),
        Value::Map(m) if m.values().all(|v| matches!(v, Value::Map(_))) && !m.is_empty() => m
            .iter()
            .map(|(k, v)| body(v).map(|m| (Some(k.as_str()), m)))
            .collect(),
        Value::Map(m) => Some(vec![(None, m)]),
        _ => None,
    }
}

/// Whether a value is shown as blocks: a non-empty list or set of objects, or a non-empty map of objects
/// (labelled blocks). Anything else, an empty list included, is shown as an attribute.
pub(super) fn holds_blocks(v: &Value) -> bool {
    let is_map = |x: &Value| matches!(x, Value::Map(_));
    match v {
        Value::List(items) => !items.is_empty() && items.iter().all(is_map),
        Value::Set(items) => !items.is_empty() && items.iter().all(is_map),
        Value::Map(m) => !m.is_empty() && m.values().all(is_map),
        _ => false,
    }
}

fn opener(name: &str, label: Option<&str>) -> String {
    match label {
        Some(l) => format!("{name} {l:?}"),
        None => name.to_owned(),
    }
}

/// Every attribute of one block added or removed, then its nested blocks, `indent` spaces in; `note`
/// (why a set entry is removed) follows the opening brace as a comment.
pub(super) fn whole_block(
    out: &mut String,
    at: At,
    sign: Sign,
    (name, label): (&str, Option<&str>),
    body: &BTreeMap<String, Value>,
    note: Option<&str>,
) {
    let At { indent, blank } = at;
    if blank {
        out.push('\n');
    }
    let pad = " ".repeat(indent);
    let s = sign.as_str();
    let note = note.map(|n| format!(" # {n}")).unwrap_or_default();
    let _ = writeln!(out, "{pad}{s} {} {{{note}", opener(name, label));
    let (nested, attrs): (Vec<_>, Vec<_>) = body.iter().partition(|(_, v)| holds_blocks(v));
    let width = attrs
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    for (n, v) in &attrs {
        let _ = writeln!(out, "{pad}    {s} {n:<width$} = {v}");
    }
    for (n, v) in nested {
        for (l, b) in blocks_of(v).unwrap_or_default() {
            whole_block(out, at.inner(), sign, (n, l), b, None);
        }
    }
    let _ = writeln!(out, "{pad}  }}");
}

/// Why removed set entries go: each entry body with the note its removed block carries.
pub(super) type Notes<'v> = [(&'v BTreeMap<String, Value>, String)];

/// The blocks of type `name` as they change from `before` to `after` (list elements by position, labelled
/// blocks by label, set elements by content): added, removed and changed blocks shown, unchanged ones
/// counted into `hidden`. `forces` marks a change that forces replacement; a removed block found in
/// `notes` carries its note.
pub(super) fn changed_blocks(
    out: &mut String,
    at: At,
    name: &str,
    (before, after): (&Value, &Value),
    forces: bool,
    notes: &Notes<'_>,
    hidden: &mut usize,
) {
    let (Some(b), Some(a)) = (blocks_of(before), blocks_of(after)) else {
        return;
    };
    let keyed = |v: &Value| matches!(v, Value::Map(m) if m.values().all(|x| matches!(x, Value::Map(_))) && !m.is_empty());
    let set = matches!(before, Value::Set(_)) || matches!(after, Value::Set(_));
    let pairs: Vec<Paired<'_>> = if set {
        let mut out: Vec<_> = b
            .iter()
            .filter(|(_, x)| !a.iter().any(|(_, y)| y == x))
            .map(|(l, x)| (*l, Some(*x), None))
            .collect();
        out.extend(
            a.iter()
                .filter(|(_, y)| !b.iter().any(|(_, x)| x == y))
                .map(|(l, y)| (*l, None, Some(*y))),
        );
        *hidden += a
            .iter()
            .filter(|(_, y)| b.iter().any(|(_, x)| x == y))
            .count();
        out
    } else if keyed(before) || keyed(after) {
        let mut labels: Vec<Option<&str>> = b.iter().chain(a.iter()).map(|(l, _)| *l).collect();
        labels.sort();
        labels.dedup();
        labels
            .into_iter()
            .map(|l| (l, find(&b, l), find(&a, l)))
            .collect()
    } else {
        (0..b.len().max(a.len()))
            .map(|i| (None, b.get(i).map(|x| x.1), a.get(i).map(|x| x.1)))
            .collect()
    };
    for (label, old, new) in pairs {
        match (old, new) {
            (Some(o), Some(n)) if o == n => *hidden += 1,
            (Some(o), Some(n)) => changed_block(out, at, name, label, (o, n), forces),
            (Some(o), None) => {
                let note = notes.iter().find(|(b, _)| *b == o).map(|(_, n)| n.as_str());
                whole_block(out, at, Sign::Remove, (name, label), o, note);
            }
            (None, Some(n)) => whole_block(out, at, Sign::Add, (name, label), n, None),
            (None, None) => {}
        }
    }
}

/// The body of the block labelled `label` among `side`.
fn find<'v>(side: &[Labelled<'v>], label: Option<&str>) -> Option<&'v BTreeMap<String, Value>> {
    side.iter().find(|(x, _)| *x == label).map(|(_, m)| *m)
}

/// One block whose attributes change: the changed ones shown, the others counted.
fn changed_block(
    out: &mut String,
    at: At,
    name: &str,
    label: Option<&str>,
    (old, new): (&BTreeMap<String, Value>, &BTreeMap<String, Value>),
    forces: bool,
) {
    if at.blank {
        out.push('\n');
    }
    let indent = at.indent;
    let pad = " ".repeat(indent);
    let mark = if forces { " # forces replacement" } else { "" };
    let _ = writeln!(out, "{pad}~ {} {{{mark}", opener(name, label));
    let mut names: Vec<&String> = old.keys().chain(new.keys()).collect();
    names.sort();
    names.dedup();
    let null = Value::Null;
    let (nested, attrs): (Vec<&String>, Vec<&String>) = names.into_iter().partition(|n| {
        holds_blocks(old.get(*n).unwrap_or(&null)) || holds_blocks(new.get(*n).unwrap_or(&null))
    });
    let width = attrs.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut unchanged = 0;
    for n in attrs {
        let (o, v) = (old.get(n).unwrap_or(&null), new.get(n).unwrap_or(&null));
        if o == v {
            unchanged += 1;
        } else {
            let _ = writeln!(out, "{pad}    ~ {n:<width$} = {o} -> {v}");
        }
    }
    let mut hidden_blocks = 0;
    for n in nested {
        let (o, v) = (old.get(n).unwrap_or(&null), new.get(n).unwrap_or(&null));
        changed_blocks(out, at.inner(), n, (o, v), false, &[], &mut hidden_blocks);
    }
    hidden_lines(out, indent + 4, unchanged, hidden_blocks);
    let _ = writeln!(out, "{pad}  }}");
}

/// The `# (N unchanged attributes hidden)` and `# (N unchanged blocks hidden)` lines.
pub(super) fn hidden_lines(out: &mut String, indent: usize, attributes: usize, blocks: usize) {
    let pad = " ".repeat(indent);
    for (n, one, many) in [
        (attributes, "attribute", "attributes"),
        (blocks, "block", "blocks"),
    ] {
        if n > 0 {
            let noun = if n == 1 { one } else { many };
            let _ = writeln!(out, "{pad}  # ({n} unchanged {noun} hidden)");
        }
    }
}
