//! `aws_iam_policy_document`: an IAM policy document computed from its arguments with no API call, with
//! exactly the `json` and `minified_json` the AWS provider v5 renders.
//!
//! The rules, as the provider's source and acceptance tests give them: keys in the order `Version`,
//! `Id`, `Statement` and, in a statement, `Sid`, `Effect`, `Action`, `NotAction`, `Resource`,
//! `NotResource`, `Principal`, `NotPrincipal`, `Condition`; empty ones left out (an empty `sid` too,
//! since v5.0.0); `effect` defaults to `Allow` and `version` to `2012-10-17`. `actions`, `resources`
//! and principals' `identifiers` are sets: one element is written as a string, several in reverse
//! lexical order. Condition `values` keep their order (one value is a string). Principals are a map by
//! type (sorted), and a single principal of type `*` with identifier `*` is `"Principal": "*"`.
//! Conditions are a map by test, then variable. `&{...}` in resources, identifiers and condition
//! values is written `${...}` (an IAM policy variable; not allowed with version `2008-10-17`).
//! `source_policy_documents` are merged first (their non-empty sids must be unique), then the
//! document's own statements (a non-empty sid replaces the earlier statement of that sid), then each
//! of `override_policy_documents` the same way; `Id` is the last non-empty one, `Version` the highest.
//!
//! Two blocks of one set that the provider orders by a hash (several `principals` blocks of one type,
//! several `condition` blocks of one test and variable) are taken in configuration order.
//!
//! This module computes; it never calls anything.

use std::collections::{BTreeMap, BTreeSet};

use provider::Value;
use provider::schema::{AttributeSchema, DataSourceSchema};
use provider::{Type, value::Number};

use super::go_json::{Json, crc32_ieee};

/// `aws_iam_policy_document`: a policy document computed locally (no API call).
pub const POLICY_DOCUMENT: &str = "aws_iam_policy_document";

const V2012: &str = "2012-10-17";
const V2008: &str = "2008-10-17";

/// The schema of `aws_iam_policy_document`.
pub(crate) fn schema() -> DataSourceSchema {
    let list =
        |name: &str| AttributeSchema::optional(name, Type::List(Box::new(Type::Any)), Value::Null);
    let string = |name: &str| AttributeSchema::optional(name, Type::String, Value::Null);
    DataSourceSchema::new(POLICY_DOCUMENT)
        .with_attribute(string("version"))
        .with_attribute(string("policy_id"))
        .with_attribute(list("statement"))
        .with_attribute(list("source_policy_documents"))
        .with_attribute(list("override_policy_documents"))
        .with_attribute(AttributeSchema::optional_computed("id", Type::String))
        .with_attribute(AttributeSchema::computed("json", Type::String))
        .with_attribute(AttributeSchema::computed("minified_json", Type::String))
}

/// Identifiers or values: one string, or several.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Strings {
    One(String),
    Many(Vec<String>),
}

/// One statement of the merged document.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Statement {
    pub(super) sid: String,
    pub(super) effect: String,
    pub(super) action: Option<Json>,
    pub(super) not_action: Option<Json>,
    pub(super) resource: Option<Json>,
    pub(super) not_resource: Option<Json>,
    pub(super) principal: Vec<(String, Strings)>,
    pub(super) not_principal: Vec<(String, Strings)>,
    pub(super) condition: Vec<(String, String, Strings)>,
}

/// A policy document as the provider merges them.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Document {
    pub(super) version: String,
    pub(super) id: String,
    pub(super) statements: Vec<Statement>,
}

impl Document {
    /// Merges `other` in: its id when it has one, its version when higher, its statements appended
    /// except that one with a non-empty sid replaces the statement of that sid.
    fn merge(&mut self, other: Document) {
        if !other.id.is_empty() {
            self.id = other.id;
        }
        if other.version > self.version {
            self.version = other.version;
        }
        for statement in other.statements {
            let same = (!statement.sid.is_empty())
                .then(|| self.statements.iter().position(|s| s.sid == statement.sid))
                .flatten();
            match same {
                Some(i) => self.statements[i] = statement,
                None => self.statements.push(statement),
            }
        }
    }

    fn to_json(&self) -> Json {
        let mut out = Vec::new();
        if !self.version.is_empty() {
            out.push(("Version".to_owned(), Json::Str(self.version.clone())));
        }
        if !self.id.is_empty() {
            out.push(("Id".to_owned(), Json::Str(self.id.clone())));
        }
        if !self.statements.is_empty() {
            let statements = self.statements.iter().map(Statement::to_json).collect();
            out.push(("Statement".to_owned(), Json::List(statements)));
        }
        Json::Object(out)
    }
}

impl Statement {
    fn to_json(&self) -> Json {
        let mut out = Vec::new();
        let mut put = |key: &str, value: Option<Json>| {
            if let Some(v) = value {
                out.push((key.to_owned(), v));
            }
        };
        put(
            "Sid",
            (!self.sid.is_empty()).then(|| Json::Str(self.sid.clone())),
        );
        put(
            "Effect",
            (!self.effect.is_empty()).then(|| Json::Str(self.effect.clone())),
        );
        put("Action", self.action.clone());
        put("NotAction", self.not_action.clone());
        put("Resource", self.resource.clone());
        put("NotResource", self.not_resource.clone());
        put("Principal", principals_json(&self.principal));
        put("NotPrincipal", principals_json(&self.not_principal));
        put("Condition", conditions_json(&self.condition));
        Json::Object(out)
    }
}

/// Principals as the provider writes them: `"*"` for the single principal `*`/`*`, else a map by type
/// whose identifiers of several blocks of one type are joined.
fn principals_json(principals: &[(String, Strings)]) -> Option<Json> {
    if principals.is_empty() {
        return None;
    }
    if let [(kind, ids)] = principals
        && kind == "*"
        && match ids {
            Strings::One(s) => s == "*",
            Strings::Many(v) => v.len() == 1 && v[0] == "*",
        }
    {
        return Some(Json::Str("*".to_owned()));
    }
    let mut by_type: BTreeMap<&str, Strings> = BTreeMap::new();
    for (kind, ids) in principals {
        let joined = match (by_type.remove(kind.as_str()), ids) {
            (None, Strings::One(s)) => Strings::One(s.clone()),
            (None, Strings::Many(v)) => Strings::Many(reverse_sorted(v.clone())),
            (Some(Strings::One(first)), Strings::One(s)) => Strings::Many(vec![first, s.clone()]),
            (Some(Strings::One(first)), Strings::Many(v)) => {
                Strings::Many([vec![first], reverse_sorted(v.clone())].concat())
            }
            (Some(Strings::Many(mut all)), Strings::One(s)) => {
                all.push(s.clone());
                Strings::Many(all)
            }
            (Some(Strings::Many(mut all)), Strings::Many(v)) => {
                all.extend(reverse_sorted(v.clone()));
                Strings::Many(all)
            }
        };
        by_type.insert(kind, joined);
    }
    let entries = by_type
        .into_iter()
        .map(|(k, ids)| (k.to_owned(), strings_json(&ids)))
        .collect();
    Some(Json::Object(entries))
}

/// Conditions as the provider writes them: a map by test, then by variable, of the values of every
/// block of that test and variable (one value as a string).
fn conditions_json(conditions: &[(String, String, Strings)]) -> Option<Json> {
    if conditions.is_empty() {
        return None;
    }
    let mut map: BTreeMap<&str, BTreeMap<&str, Vec<String>>> = BTreeMap::new();
    for (test, variable, values) in conditions {
        let slot = map.entry(test).or_default().entry(variable).or_default();
        match values {
            Strings::One(s) => slot.push(s.clone()),
            Strings::Many(v) => slot.extend(v.iter().cloned()),
        }
    }
    let tests = map
        .into_iter()
        .map(|(test, vars)| {
            let vars = vars
                .into_iter()
                .map(|(var, mut values)| {
                    let value = if values.len() == 1 {
                        Strings::One(values.remove(0))
                    } else {
                        Strings::Many(values)
                    };
                    (var.to_owned(), strings_json(&value))
                })
                .collect();
            (test.to_owned(), Json::Object(vars))
        })
        .collect();
    Some(Json::Object(tests))
}

fn strings_json(s: &Strings) -> Json {
    match s {
        Strings::One(s) => Json::Str(s.clone()),
        Strings::Many(v) => Json::List(v.iter().cloned().map(Json::Str).collect()),
    }
}

fn reverse_sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.reverse();
    v
}

/// What `aws_iam_policy_document` gives for `arguments`: `json`, `minified_json` and `id` (the CRC-32
/// of `json`, as the provider names it) with the arguments echoed. `Err` says what the provider refuses.
pub fn policy_document_value(arguments: &BTreeMap<String, Value>) -> Result<Value, String> {
    let version = match arguments.get("version").and_then(Value::as_str) {
        None => V2012.to_owned(),
        Some(v) if v == V2012 || v == V2008 => v.to_owned(),
        Some(v) => return Err(format!("version must be {V2008} or {V2012}, not {v:?}")),
    };
    let mut merged = Document::default();
    let sources = documents(arguments.get("source_policy_documents"), "source")?;
    let mut sids = BTreeSet::new();
    for (i, doc) in sources.into_iter().enumerate() {
        for (j, s) in doc.statements.iter().enumerate() {
            if !s.sid.is_empty() && !sids.insert(s.sid.clone()) {
                return Err(format!(
                    "merging source document {i}: duplicate Sid ({}) in source_policy_documents \
                     (statement {j}); remove the Sid or ensure Sids are unique",
                    s.sid
                ));
            }
        }
        merged.merge(doc);
    }
    let own = Document {
        id: arguments
            .get("policy_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        statements: statements(arguments.get("statement"), &version)?,
        version,
    };
    merged.merge(own);
    for doc in documents(arguments.get("override_policy_documents"), "override")? {
        merged.merge(doc);
    }
    let rendered = merged.to_json();
    let json = rendered.indented();
    let minified = rendered.minified();
    let id = crc32_ieee(json.as_bytes()).to_string();
    let mut out: BTreeMap<String, Value> = arguments.clone();
    out.insert("id".into(), Value::from(id));
    out.insert("json".into(), Value::from(json));
    out.insert("minified_json".into(), Value::from(minified));
    Ok(Value::Map(out))
}

/// The configured `statement` blocks as statements.
fn statements(blocks: Option<&Value>, version: &str) -> Result<Vec<Statement>, String> {
    let mut sids = BTreeSet::new();
    let mut out = Vec::new();
    for block in items(blocks) {
        let get = |name: &str| block.get(name).filter(|v| !v.is_null());
        let sid = get("sid")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if !sid.chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(format!(
                "sid {sid:?} must only include alphanumeric characters"
            ));
        }
        if !sid.is_empty() && !sids.insert(sid.clone()) {
            return Err(format!(
                "duplicate Sid ({sid}); remove the Sid or ensure the Sid is unique"
            ));
        }
        let effect = get("effect")
            .and_then(Value::as_str)
            .unwrap_or("Allow")
            .to_owned();
        if effect != "Allow" && effect != "Deny" {
            return Err(format!("effect must be Allow or Deny, not {effect:?}"));
        }
        let plain = |name: &str| string_set(get(name)).map(|s| strings_json(&s));
        let vars = |name: &str| -> Result<Option<Json>, String> {
            string_set(get(name))
                .map(|s| with_variables(s, version))
                .transpose()
                .map(|s| s.map(|s| strings_json(&s)))
        };
        out.push(Statement {
            sid,
            effect,
            action: plain("actions"),
            not_action: plain("not_actions"),
            resource: vars("resources")?,
            not_resource: vars("not_resources")?,
            principal: principal_blocks(get("principals"), version)?,
            not_principal: principal_blocks(get("not_principals"), version)?,
            condition: condition_blocks(get("condition"), version)?,
        });
    }
    Ok(out)
}

/// `principals` or `not_principals` blocks (a set: identical blocks count once).
fn principal_blocks(
    blocks: Option<&Value>,
    version: &str,
) -> Result<Vec<(String, Strings)>, String> {
    let mut out: Vec<(String, Strings)> = Vec::new();
    for block in items(blocks) {
        let kind = block
            .get("type")
            .and_then(Value::as_str)
            .ok_or("a principals block needs type")?;
        let ids = string_set(block.get("identifiers")).unwrap_or(Strings::Many(Vec::new()));
        let entry = (kind.to_owned(), with_variables(ids, version)?);
        if !out.contains(&entry) {
            out.push(entry);
        }
    }
    Ok(out)
}

/// `condition` blocks (a set: identical blocks count once); values keep their order, empty ones too.
fn condition_blocks(
    blocks: Option<&Value>,
    version: &str,
) -> Result<Vec<(String, String, Strings)>, String> {
    let mut out = Vec::new();
    for block in items(blocks) {
        let field = |name: &str| {
            block
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| format!("a condition block needs {name}"))
        };
        let (test, variable) = (field("test")?, field("variable")?);
        let mut values: Vec<String> = items(block.get("values")).filter_map(string_of).collect();
        let values = match values.len() {
            1 => Strings::One(values.remove(0)),
            _ => Strings::Many(values),
        };
        let entry = (test, variable, with_variables(values, version)?);
        if !out.contains(&entry) {
            out.push(entry);
        }
    }
    Ok(out)
}

/// A set of strings as the provider decodes it: `None` when empty, one string, or several in
/// reverse lexical order.
fn string_set(value: Option<&Value>) -> Option<Strings> {
    let set: BTreeSet<String> = items(value).filter_map(string_of).collect();
    match set.len() {
        0 => None,
        1 => set.into_iter().next().map(Strings::One),
        _ => Some(Strings::Many(set.into_iter().rev().collect())),
    }
}

/// `&{...}` written as the IAM policy variable `${...}`, refused with version `2008-10-17`.
fn with_variables(s: Strings, version: &str) -> Result<Strings, String> {
    let one = |s: String| {
        if version == V2008 && s.contains("&{") {
            return Err(format!(
                "found &{{ sequence in ({s}), which is not supported in document version {V2008}"
            ));
        }
        Ok(s.replace("&{", "${"))
    };
    Ok(match s {
        Strings::One(s) => Strings::One(one(s)?),
        Strings::Many(v) => Strings::Many(v.into_iter().map(one).collect::<Result<_, _>>()?),
    })
}

/// The elements of a list or set value (none for null).
fn items(value: Option<&Value>) -> impl Iterator<Item = &Value> {
    let items: Vec<&Value> = match value.map(Value::peel) {
        Some(Value::List(v)) => v.iter().collect(),
        Some(Value::Set(v)) => v.iter().collect(),
        _ => Vec::new(),
    };
    items.into_iter()
}

/// A string element; numbers and booleans as Terraform converts them to strings.
fn string_of(v: &Value) -> Option<String> {
    match v.peel() {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(number_text(n)),
        _ => None,
    }
}

fn number_text(n: &Number) -> String {
    n.to_string()
}

/// The documents of `source_policy_documents` or `override_policy_documents`, null entries skipped.
fn documents(list: Option<&Value>, what: &str) -> Result<Vec<Document>, String> {
    items(list)
        .enumerate()
        .filter(|(_, v)| !v.is_null())
        .map(|(i, v)| {
            let text = v
                .as_str()
                .ok_or_else(|| format!("{what} document {i} is not a string"))?;
            super::policy_source::parse(text)
                .map_err(|e| format!("merging {what} document {i}: {e}"))
        })
        .collect()
}
