//! A policy document given as JSON text (an entry of `source_policy_documents` or
//! `override_policy_documents`), read as the AWS provider reads one before merging it: field names
//! matched case-insensitively as Go's `encoding/json` matches them, `Action` and `Resource` kept as
//! written, a `Principal` string meaning everyone (`*`), a principal's list of identifiers sorted, and a
//! condition's value a string, a boolean (as `"true"`/`"false"`) or a list of strings (other values are
//! dropped, as the provider drops them).
//!
//! Reading only: rendering and merging are [`super::policy_document`]'s.

use serde_json::Value as J;

use super::go_json::Json;
use super::policy_document::{Document, Statement, Strings};

/// The document `text` holds, or what makes it no policy document.
pub(super) fn parse(text: &str) -> Result<Document, String> {
    let value: J = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let J::Object(top) = &value else {
        return Err("a policy document is a JSON object".into());
    };
    let mut doc = Document::default();
    for (key, v) in top {
        match key.to_ascii_lowercase().as_str() {
            "version" => doc.version = string(v, "Version")?,
            "id" => doc.id = string(v, "Id")?,
            "statement" => {
                doc.statements = match v {
                    J::Null => Vec::new(),
                    J::Array(items) => items.iter().map(statement).collect::<Result<_, _>>()?,
                    _ => return Err("Statement must be a list of statements".into()),
                }
            }
            _ => {}
        }
    }
    Ok(doc)
}

fn statement(v: &J) -> Result<Statement, String> {
    let J::Object(fields) = v else {
        return Err("a statement is a JSON object".into());
    };
    let mut s = Statement::default();
    for (key, v) in fields {
        let any = || (!v.is_null()).then(|| Json::from_serde(v));
        match key.to_ascii_lowercase().as_str() {
            "sid" => s.sid = string(v, "Sid")?,
            "effect" => s.effect = string(v, "Effect")?,
            "action" => s.action = any(),
            "notaction" => s.not_action = any(),
            "resource" => s.resource = any(),
            "notresource" => s.not_resource = any(),
            "principal" => s.principal = principals(v)?,
            "notprincipal" => s.not_principal = principals(v)?,
            "condition" => s.condition = conditions(v)?,
            _ => {}
        }
    }
    Ok(s)
}

fn string(v: &J, what: &str) -> Result<String, String> {
    match v {
        J::Null => Ok(String::new()),
        J::String(s) => Ok(s.clone()),
        _ => Err(format!("{what} must be a string")),
    }
}

fn principals(v: &J) -> Result<Vec<(String, Strings)>, String> {
    match v {
        J::Null => Ok(Vec::new()),
        J::String(_) => Ok(vec![("*".to_owned(), Strings::Many(vec!["*".to_owned()]))]),
        J::Object(map) => map
            .iter()
            .map(|(kind, ids)| {
                let ids = match ids {
                    J::String(s) => Strings::One(s.clone()),
                    J::Array(items) => {
                        let mut all = items
                            .iter()
                            .map(|i| i.as_str().map(str::to_owned))
                            .collect::<Option<Vec<_>>>()
                            .ok_or_else(|| {
                                format!(
                                    "the identifiers of principal type {kind:?} must be strings"
                                )
                            })?;
                        all.sort();
                        Strings::Many(all)
                    }
                    _ => {
                        return Err(format!(
                            "principal type {kind:?} must name a string or a list"
                        ));
                    }
                };
                Ok((kind.clone(), ids))
            })
            .collect(),
        _ => Err("Principal must be \"*\" or a map of principal types".into()),
    }
}

fn conditions(v: &J) -> Result<Vec<(String, String, Strings)>, String> {
    let J::Object(tests) = v else {
        return match v {
            J::Null => Ok(Vec::new()),
            _ => Err("Condition must be a map of tests".into()),
        };
    };
    let mut out = Vec::new();
    for (test, vars) in tests {
        let J::Object(vars) = vars else {
            return Err(format!(
                "condition test {test:?} must be a map of variables"
            ));
        };
        for (var, values) in vars {
            let values = match values {
                J::String(s) => Strings::Many(vec![s.clone()]),
                J::Bool(b) => Strings::One(b.to_string()),
                J::Array(items) => Strings::Many(
                    items
                        .iter()
                        .map(|i| i.as_str().map(str::to_owned))
                        .collect::<Option<_>>()
                        .ok_or_else(|| {
                            format!("the values of condition {test} {var} must be strings")
                        })?,
                ),
                _ => continue,
            };
            out.push((test.clone(), var.clone(), values));
        }
    }
    Ok(out)
}
