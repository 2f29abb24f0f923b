//! Rendering a plan: the human text Terraform users read, and the `--json` document machines read.
//!
//! Both are pure functions of the plan, so the same plan gives byte-identical output. Sensitive values show
//! as `(sensitive value)` in text and `"(sensitive)"` in JSON, unknowns as `(known after apply)` and in
//! `after_unknown`. This module must never print, color anything itself, or show a secret.

mod blocks;
mod state;

pub use state::instance_state;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use admission::{Diagnostic, InstanceAddress, Severity, Value};
use projection::shell_word;
use serde_json::{Value as Json, json};

use crate::model::{
    Action, BindCandidate, Plan, RenameTarget, ReplaceOrder, ResourceChange, UndeclaredAction,
    UnownedObject, UnownedVerdict, WithheldCause, WithheldChange,
};

/// How to render.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Also list no-op instances.
    pub verbose: bool,
}

/// An address as one shell word of a suggested command (see [`projection::shell_word`]).
fn address_word(address: &InstanceAddress) -> String {
    shell_word(&address.to_string())
}

/// The `liveplan adopt` command for an address (and bind candidate id), every word quoted for a POSIX
/// shell when it holds anything outside `[A-Za-z0-9_.-]`.
pub fn adopt_command(address: &InstanceAddress, id: Option<&str>) -> String {
    match id {
        Some(id) => format!(
            "liveplan adopt {} --id {}",
            address_word(address),
            shell_word(id)
        ),
        None => format!("liveplan adopt {}", address_word(address)),
    }
}

/// The `liveplan mv` command for a rename, both addresses quoted as in [`adopt_command`].
pub fn mv_command(from: &InstanceAddress, to: &InstanceAddress) -> String {
    format!("liveplan mv {} {}", address_word(from), address_word(to))
}

/// The command that adopts an unowned object: only an adoptable one has one.
fn unowned_command(u: &UnownedObject) -> Option<String> {
    match u.verdict {
        UnownedVerdict::Adoptable => Some(adopt_command(&u.address, None)),
        UnownedVerdict::InTheWay { .. } => None,
    }
}

/// The command that renames an orphan: only a rename to one instance has one.
fn rename_command(from: &InstanceAddress, to: &RenameTarget) -> Option<String> {
    match to {
        RenameTarget::One(to) => Some(mv_command(from, to)),
        RenameTarget::Ambiguous(_) => None,
    }
}

/// The name plan JSON gives an unowned object's verdict.
fn verdict_name(verdict: &UnownedVerdict) -> &'static str {
    match verdict {
        UnownedVerdict::Adoptable => "adoptable",
        UnownedVerdict::InTheWay { .. } => "in-the-way",
    }
}

/// The name plan JSON gives what happens to an owned, undeclared object.
fn undeclared_action_name(action: UndeclaredAction) -> &'static str {
    match action {
        UndeclaredAction::Delete => "delete",
        UndeclaredAction::WithheldForRename => "withheld",
        UndeclaredAction::Unreachable => "unreachable",
    }
}

/// A bind candidate's matched fields as values (strings), as text and JSON show them.
fn matched_values(b: &BindCandidate) -> BTreeMap<String, Value> {
    b.matched
        .iter()
        .map(|(k, v)| (k.clone(), Value::from(v.clone())))
        .collect()
}

fn header(c: &ResourceChange) -> (String, &'static str) {
    let addr = &c.address;
    let text = match (c.action, c.deposed.is_some()) {
        (Action::Create, _) => format!("{addr} will be created"),
        (Action::Update, _) => format!("{addr} will be updated in place"),
        (Action::Replace, _) => format!("{addr} must be replaced"),
        (Action::Delete, true) => format!(
            "{addr} (deposed object {}) will be destroyed",
            c.deposed.as_deref().unwrap_or("")
        ),
        (Action::Delete, false) => format!("{addr} will be destroyed"),
        (Action::NoOp, _) => format!("{addr} is up to date"),
    };
    let symbol = match (c.action, c.replace_order) {
        (Action::Create, _) => "  +",
        (Action::Update, _) => "  ~",
        (Action::Replace, Some(ReplaceOrder::CreateBeforeDestroy)) => "+/-",
        (Action::Replace, _) => "-/+",
        (Action::Delete, _) => "  -",
        (Action::NoOp, _) => "   ",
    };
    (text, symbol)
}

fn attr_lines(c: &ResourceChange, out: &mut String) {
    let empty = BTreeMap::new();
    let before = c.before.as_ref().unwrap_or(&empty);
    let after = c.after.as_ref().unwrap_or(&empty);
    // A nested block type is shown as blocks when its values are blocks (not unknown, not hidden).
    let shown_as_blocks = |name: &str| {
        c.blocks.iter().any(|b| b == name)
            && [before.get(name), after.get(name)]
                .into_iter()
                .flatten()
                .all(|v| blocks::blocks_of(v).is_some())
    };
    let mut names: Vec<&String> = match c.action {
        Action::Create => after.keys().collect(),
        Action::Delete => before.keys().collect(),
        _ => before.keys().chain(after.keys()).collect(),
    };
    names.sort();
    names.dedup();
    let (block_names, names): (Vec<&String>, Vec<&String>) =
        names.into_iter().partition(|n| shown_as_blocks(n));
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let mut hidden = 0;
    for name in names {
        let b = before.get(name);
        let a = after.get(name);
        match c.action {
            Action::Create => {
                let _ = writeln!(out, "      + {name:<width$} = {}", show(a));
            }
            Action::Delete => {
                let _ = writeln!(out, "      - {name:<width$} = {}", show(b));
            }
            Action::NoOp => hidden += 1,
            Action::Update | Action::Replace => {
                let changed = c.changed.contains(name)
                    || (c.action == Action::Replace && a.is_some_and(Value::is_unknown));
                if name == "id" && !changed {
                    let _ = writeln!(out, "        {name:<width$} = {}", show(b));
                } else if changed {
                    let forces = if c.forces.contains(name) {
                        " # forces replacement"
                    } else {
                        ""
                    };
                    let _ = writeln!(
                        out,
                        "      ~ {name:<width$} = {} -> {}{forces}",
                        show(b),
                        show(a)
                    );
                } else {
                    hidden += 1;
                }
            }
        }
    }
    blocks::hidden_lines(out, 6, hidden, 0);
    let hidden_blocks = block_lines(c, &block_names, before, after, out);
    if hidden_blocks > 0 {
        out.push('\n');
        blocks::hidden_lines(out, 6, 0, hidden_blocks);
    }
}

/// The nested blocks of a change (see [`blocks`]); returns how many unchanged blocks are hidden.
fn block_lines(
    c: &ResourceChange,
    names: &[&String],
    before: &BTreeMap<String, Value>,
    after: &BTreeMap<String, Value>,
    out: &mut String,
) -> usize {
    let at = blocks::At {
        indent: 6,
        blank: true,
    };
    let mut hidden = 0;
    let null = Value::Null;
    for name in names {
        let (b, a) = (
            before.get(*name).unwrap_or(&null),
            after.get(*name).unwrap_or(&null),
        );
        let whole = |sign, v: &Value, out: &mut String| {
            for (label, body) in blocks::blocks_of(v).unwrap_or_default() {
                blocks::whole_block(out, at, sign, (name, label), body, None);
            }
        };
        let notes: Vec<(&BTreeMap<String, Value>, String)> = c
            .set_removals
            .iter()
            .filter(|r| r.block == **name)
            .filter_map(|r| Some((r.entry.as_map()?, r.cause.explain(&r.block))))
            .collect();
        match c.action {
            Action::Create => whole(blocks::Sign::Add, a, out),
            Action::Delete => whole(blocks::Sign::Remove, b, out),
            Action::NoOp => hidden += blocks::blocks_of(a).map_or(0, |v| v.len()),
            Action::Update | Action::Replace if c.changed.contains(*name) => {
                let forces = c.forces.contains(*name);
                blocks::changed_blocks(out, at, name, (b, a), forces, &notes, &mut hidden);
            }
            Action::Update | Action::Replace => {
                hidden += blocks::blocks_of(a).map_or(0, |v| v.len());
            }
        }
    }
    hidden
}

fn show(v: Option<&Value>) -> String {
    match v {
        None => "null".to_owned(),
        Some(v) => v.to_string(),
    }
}

fn diagnostic_text(d: &Diagnostic, out: &mut String) {
    let label = match d.severity() {
        Severity::Error => "Error",
        Severity::Warning => "Warning",
    };
    let _ = write!(out, "{label}: {} [{}]", d.summary, d.code);
    if let Some(pos) = &d.pos {
        let _ = write!(out, " ({pos})");
    }
    out.push('\n');
    if let Some(a) = &d.address {
        let _ = writeln!(out, "  on {a}");
    }
    if !d.ids().is_empty() {
        let _ = writeln!(out, "  objects: {}", d.ids().join(", "));
    }
    if !d.detail.is_empty() {
        let _ = writeln!(out, "  {}", d.detail);
    }
}

/// The human text of a plan.
pub fn text(plan: &Plan, options: RenderOptions) -> String {
    let mut out = String::new();
    changes_text(plan, options, &mut out);
    withheld_text(plan, &mut out);
    foreign_text(plan, &mut out);
    candidates_text(plan, &mut out);
    unowned_text(plan, &mut out);
    owned_undeclared_text(plan, &mut out);
    rename_hints_text(plan, &mut out);
    let mut diags: Vec<&Diagnostic> = plan.diagnostics.iter().collect();
    diags.sort_by_key(|d| d.severity() == Severity::Error);
    for d in diags {
        diagnostic_text(d, &mut out);
        out.push('\n');
    }
    if plan.applicable() {
        let _ = writeln!(out, "{}", plan.summary());
    } else {
        let _ = writeln!(out, "{}", crate::summary::PLANNING_FAILED);
    }
    out
}

/// The changes shown (no-ops only when verbose), one resource block each.
fn changes_text(plan: &Plan, options: RenderOptions, out: &mut String) {
    let shown: Vec<&ResourceChange> = plan
        .changes
        .iter()
        .filter(|c| options.verbose || c.action != Action::NoOp)
        .collect();
    if shown.iter().any(|c| c.action != Action::NoOp) {
        out.push_str("liveplan will perform the following actions:\n\n");
    }
    for c in &shown {
        let (head, symbol) = header(c);
        let _ = writeln!(out, "  # {head}");
        if let Some(reason) = &c.reason {
            let _ = writeln!(out, "  # ({reason})");
        }
        let _ = writeln!(
            out,
            "{symbol} resource \"{}\" \"{}\" {{",
            c.address.type_name(),
            c.address.block().name()
        );
        attr_lines(c, out);
        out.push_str("    }\n\n");
    }
}

/// A time in seconds since the Unix epoch as the text shows it, in UTC to the second
/// (`2100-01-01 00:10:00 UTC`), so that a plan of the same records reads the same whenever it is made.
pub fn utc_time(secs: u64) -> String {
    match date_time(secs) {
        Some(t) => format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02} UTC",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        ),
        None => format!("{secs} seconds after the Unix epoch"),
    }
}

/// A time in seconds since the Unix epoch as plan JSON shows it: RFC 3339 in UTC
/// (`2100-01-01T00:10:00Z`), or the number of seconds for a time past the year 9999.
fn rfc3339_time(secs: u64) -> Json {
    date_time(secs)
        .and_then(|t| {
            t.format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .map_or_else(|| json!(secs), Json::from)
}

/// The UTC date and time of `secs` seconds after the Unix epoch, if the `time` crate can hold it.
fn date_time(secs: u64) -> Option<time::OffsetDateTime> {
    let secs = i64::try_from(secs).ok()?;
    time::OffsetDateTime::from_unix_timestamp(secs).ok()
}

/// Why a change is withheld, as one clause of text.
pub(crate) fn withheld_cause(w: &WithheldChange) -> String {
    match &w.cause {
        WithheldCause::InterruptedCreate => {
            "an earlier apply started creating it and did not finish".to_owned()
        }
        WithheldCause::WaitsOn(on) => {
            let on: Vec<String> = on.iter().map(ToString::to_string).collect();
            format!("it waits on {}", on.join(", "))
        }
    }
}

/// The changes held back until an interrupted create may be retried, each with its cause and time.
fn withheld_text(plan: &Plan, out: &mut String) {
    if plan.withheld.is_empty() {
        return;
    }
    out.push_str("Withheld until an interrupted create may be retried:\n");
    for w in &plan.withheld {
        let _ = writeln!(
            out,
            "  {} ({}): {}; may be retried after {}",
            w.address,
            w.action.as_str(),
            withheld_cause(w),
            utc_time(w.retry_after)
        );
    }
    out.push('\n');
}

/// The foreign objects, which are never changed.
fn foreign_text(plan: &Plan, out: &mut String) {
    if plan.foreign.is_empty() {
        return;
    }
    out.push_str("Foreign objects (not managed; never changed):\n");
    for f in &plan.foreign {
        let tags: Vec<String> = f.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if tags.is_empty() {
            let _ = writeln!(out, "  {} {}", f.type_name, f.id);
        } else {
            let _ = writeln!(out, "  {} {} ({})", f.type_name, f.id, tags.join(", "));
        }
    }
    out.push('\n');
}

/// The adoption candidates, each with its `liveplan adopt` command.
fn candidates_text(plan: &Plan, out: &mut String) {
    if plan.bind_candidates.is_empty() {
        return;
    }
    out.push_str("Adoption candidates:\n");
    for b in &plan.bind_candidates {
        let matched: Vec<String> = matched_values(b)
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect();
        let _ = writeln!(
            out,
            "  {}: {} matches {}; to adopt it: {}",
            b.address,
            b.id,
            matched.join(", "),
            adopt_command(&b.address, Some(&b.id))
        );
    }
    out.push('\n');
}

/// The declared identities held by objects this estate does not own.
fn unowned_text(plan: &Plan, out: &mut String) {
    if plan.unowned.is_empty() {
        return;
    }
    out.push_str("Blocked by objects this estate does not own:\n");
    for u in &plan.unowned {
        match &u.verdict {
            UnownedVerdict::Adoptable => {
                let _ = writeln!(
                    out,
                    "  {}: {} has no estate marker; to adopt it: {}",
                    u.address,
                    u.id,
                    adopt_command(&u.address, None)
                );
            }
            UnownedVerdict::InTheWay { estate } => {
                let _ = writeln!(
                    out,
                    "  {}: {} belongs to the estate {estate}",
                    u.address, u.id
                );
            }
        }
    }
    out.push('\n');
}

/// The owned objects no longer declared.
fn owned_undeclared_text(plan: &Plan, out: &mut String) {
    if plan.owned_undeclared.is_empty() {
        return;
    }
    out.push_str("Owned but no longer declared:\n");
    for o in &plan.owned_undeclared {
        let what = match o.action {
            UndeclaredAction::Delete => "will be destroyed",
            UndeclaredAction::WithheldForRename => "withheld (possible rename)",
            UndeclaredAction::Unreachable => "kept (no provider configuration reaches its region)",
        };
        let _ = writeln!(out, "  {}: {} {what}", o.address, o.id);
    }
    out.push('\n');
}

/// The possible renames, each with its `liveplan mv` command where one instance fits.
fn rename_hints_text(plan: &Plan, out: &mut String) {
    if plan.rename_hints.is_empty() {
        return;
    }
    out.push_str("Possible renames:\n");
    for h in &plan.rename_hints {
        match &h.to {
            RenameTarget::One(to) => {
                let _ = writeln!(
                    out,
                    "  {} -> {} ({}); to rename: {}",
                    h.from,
                    to,
                    h.id,
                    mv_command(&h.from, to)
                );
            }
            RenameTarget::Ambiguous(_) => {
                let _ = writeln!(
                    out,
                    "  {} ({}): several declared instances fit; rename with liveplan mv",
                    h.from, h.id
                );
            }
        }
    }
    out.push('\n');
}

fn value_map_json(m: &BTreeMap<String, Value>) -> Json {
    Value::Map(m.clone()).to_plan_json()
}

/// The `--json` document of a plan (contract section 4), pretty-printed with a trailing newline.
pub fn json(plan: &Plan, options: RenderOptions) -> String {
    let changes: Vec<Json> = plan
        .changes
        .iter()
        .filter(|c| options.verbose || c.action != Action::NoOp)
        .map(|c| {
            let mut o = json!({
                "address": c.address.to_string(),
                "type": c.type_name(),
                "action": c.action.as_str(),
                "id": c.id,
                "admission": c.admission.as_str(),
                "before": c.before.as_ref().map(value_map_json),
                "after": c.after.as_ref().map(value_map_json),
                "after_unknown": c.after_unknown(),
                "reason": c.reason,
            });
            if let Some(order) = c.replace_order
                && let Some(map) = o.as_object_mut()
            {
                map.insert("replace_order".to_owned(), json!(order.as_str()));
            }
            if let Some(d) = &c.deposed
                && let Some(map) = o.as_object_mut()
            {
                map.insert("deposed".to_owned(), json!(d));
            }
            if !c.set_removals.is_empty()
                && let Some(map) = o.as_object_mut()
            {
                let removed: Vec<Json> = c
                    .set_removals
                    .iter()
                    .map(|r| {
                        json!({
                            "block": r.block,
                            "entry": r.entry.to_plan_json(),
                            "cause": r.cause.as_str(),
                            "reason": r.cause.explain(&r.block),
                        })
                    })
                    .collect();
                map.insert("removed_entries".to_owned(), json!(removed));
            }
            o
        })
        .collect();
    let summary = plan.summary();
    let mut doc = json!({
        "format_version": "1",
        "estate": plan.estate,
        "applicable": plan.applicable(),
        "summary": { "add": summary.add, "change": summary.change, "destroy": summary.destroy },
        "resource_changes": changes,
        "foreign": plan.foreign.iter().map(|f| json!({
            "type": f.type_name, "id": f.id, "tags": f.tags,
        })).collect::<Vec<_>>(),
        "bind_candidates": plan.bind_candidates.iter().map(|b| json!({
            "address": b.address.to_string(),
            "type": b.address.type_name(),
            "id": b.id,
            "matched": value_map_json(&matched_values(b)),
            "command": adopt_command(&b.address, Some(&b.id)),
        })).collect::<Vec<_>>(),
        "unowned": plan.unowned.iter().map(|u| {
            let estate = match &u.verdict {
                UnownedVerdict::Adoptable => None,
                UnownedVerdict::InTheWay { estate } => Some(estate),
            };
            json!({
                "address": u.address.to_string(),
                "type": u.address.type_name(),
                "id": u.id,
                "verdict": verdict_name(&u.verdict),
                "estate": estate,
                "command": unowned_command(u),
            })
        }).collect::<Vec<_>>(),
        "owned_undeclared": plan.owned_undeclared.iter().map(|o| json!({
            "address": o.address.to_string(),
            "type": o.address.type_name(),
            "id": o.id,
            "action": undeclared_action_name(o.action),
        })).collect::<Vec<_>>(),
        "rename_hints": plan.rename_hints.iter().map(|h| json!({
            "from": h.from.to_string(),
            "to": match &h.to {
                RenameTarget::One(to) => Some(to.to_string()),
                RenameTarget::Ambiguous(_) => None,
            },
            "id": h.id,
            "command": rename_command(&h.from, &h.to),
        })).collect::<Vec<_>>(),
        "diagnostics": plan.diagnostics.iter().map(diagnostic_json).collect::<Vec<_>>(),
        "cost": {
            "api_calls": plan.cost.api_calls,
            "api_calls_by_operation": plan.cost.api_calls_by_operation,
            "store_trips": plan.cost.store_trips,
            "store_requests": plan.cost.store_requests,
        },
    });
    // Only a plan that read several regions says what each cost.
    if !plan.cost.api_calls_by_region.is_empty()
        && let Some(cost) = doc.get_mut("cost").and_then(|c| c.as_object_mut())
    {
        cost.insert(
            "api_calls_by_region".to_owned(),
            json!(plan.cost.api_calls_by_region),
        );
    }
    // Only a plan that holds something back has the key, as Terraform's `deferred_changes`.
    if !plan.withheld.is_empty()
        && let Some(map) = doc.as_object_mut()
    {
        map.insert("withheld".to_owned(), withheld_json(&plan.withheld));
    }
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// The withheld changes as plan JSON shows them.
fn withheld_json(withheld: &[WithheldChange]) -> Json {
    let entries: Vec<Json> = withheld
        .iter()
        .map(|w| {
            let waits_on: Vec<String> = match &w.cause {
                WithheldCause::InterruptedCreate => Vec::new(),
                WithheldCause::WaitsOn(on) => on.iter().map(ToString::to_string).collect(),
            };
            json!({
                "address": w.address.to_string(),
                "type": w.address.type_name(),
                "action": w.action.as_str(),
                "reason": w.cause.as_str(),
                "waits_on": waits_on,
                "retry_after": rfc3339_time(w.retry_after),
            })
        })
        .collect();
    Json::Array(entries)
}

/// One diagnostic as plan JSON shows it.
pub fn diagnostic_json(d: &Diagnostic) -> Json {
    let mut o = json!({
        "severity": d.severity().as_str(),
        "code": d.code.as_str(),
        "summary": d.summary,
        "detail": d.detail,
        "address": d.address,
        "ids": d.ids(),
    });
    if let Some(pos) = &d.pos
        && let Some(map) = o.as_object_mut()
    {
        map.insert("pos".to_owned(), json!(pos.to_string()));
    }
    o
}
