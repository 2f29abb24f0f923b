//! `configuration`: the configuration a plan was made from, as Terraform's configuration representation
//! writes it: provider configurations, resources with each argument's `constant_value` (a literal) or
//! `references` (what it reads), variables and outputs.
//!
//! Expressions are described, never evaluated: a literal is its value, anything else is the references
//! it makes. A sensitive variable's default is never written.

use std::collections::BTreeSet;

use admission::{Config, Expr, ExprKind, NestedBlock, Repetition, TemplatePart, Value};
use serde_json::{Map, Value as Json, json};

use super::changes::provider_name;

/// The value of an expression that is a literal (no reference, no call), as Terraform's `constant_value`.
fn constant(e: &Expr) -> Option<Json> {
    Some(match &e.kind {
        ExprKind::Null => Json::Null,
        ExprKind::Bool(b) => json!(b),
        ExprKind::Number(n) => Value::Number(n.clone()).to_plan_json(),
        ExprKind::String(s) => json!(s),
        ExprKind::Template(parts) => {
            let mut text = String::new();
            for part in parts {
                match part {
                    TemplatePart::Literal(s) => text.push_str(s),
                    _ => return None,
                }
            }
            json!(text)
        }
        ExprKind::List(items) => Json::Array(items.iter().map(constant).collect::<Option<_>>()?),
        ExprKind::Object(pairs) => {
            let mut out = Map::new();
            for (k, v) in pairs {
                let key = match &k.kind {
                    ExprKind::String(s) | ExprKind::Variable(s) => s.clone(),
                    _ => return None,
                };
                out.insert(key, constant(v)?);
            }
            Json::Object(out)
        }
        _ => return None,
    })
}

/// The references an expression makes, as Terraform lists them: the full reference, then the resource it
/// names (`aws_vpc.main.id`, `aws_vpc.main`), or `var.NAME`, `local.NAME`, `count.index`, `each.key`.
fn references(config: &Config, e: &Expr) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |r: String| {
        if !out.contains(&r) {
            out.push(r);
        }
    };
    for (path, _) in e.references() {
        let is_resource =
            matches!(path.as_slice(), [t, n, _, ..] if config.resource(t, n).is_some());
        let path = as_written(path);
        match path.as_slice() {
            [type_name, name, attribute, ..] if is_resource => {
                push(format!("{type_name}.{name}.{attribute}"));
                push(format!("{type_name}.{name}"));
            }
            [root, name, ..] => push(format!("{root}.{name}")),
            [root] => push(root.clone()),
            [] => {}
        }
    }
    out
}

/// A reference path as the module it is written in spells it: the locals that module calls expand into
/// (`local.module.net:output.vpc_id`, `local.module.net:var.cidr`, `local.module.net:tags`) shown as
/// `module.net.vpc_id`, `var.cidr` and `local.tags`, a block of a module (`module.net.aws_vpc`) by its
/// plain type.
fn as_written(mut path: Vec<String>) -> Vec<String> {
    let last_call = |module: &str| -> String {
        let text = format!("{module}.t.n");
        text.parse::<admission::InstanceAddress>()
            .ok()
            .and_then(|a| {
                a.block()
                    .module()
                    .steps()
                    .last()
                    .map(|s| format!("module.{}{}", s.name, s.key))
            })
            .unwrap_or_else(|| module.to_owned())
    };
    if path.first().map(String::as_str) == Some("local")
        && let Some(name) = path.get(1).cloned()
        && let Some((module, inner)) = name.split_once(':')
    {
        let mut shown: Vec<String> = if let Some(out) = inner.strip_prefix("output.") {
            vec![last_call(module), out.to_owned()]
        } else if let Some(var) = inner.strip_prefix("var.") {
            vec!["var".to_owned(), var.to_owned()]
        } else if let Some(call) = inner.strip_prefix("module.") {
            vec!["module".to_owned(), call.to_owned()]
        } else {
            vec!["local".to_owned(), inner.to_owned()]
        };
        shown.extend(path.drain(2..));
        return shown;
    }
    if let Some(first) = path.first_mut()
        && first.contains('.')
    {
        *first = admission::unqualified_type(first).to_owned();
    }
    path
}

/// One expression: `constant_value`, else `references` (an empty object when it has neither).
fn expression(config: &Config, e: &Expr) -> Json {
    if let ExprKind::Blocks(blocks) = &e.kind {
        return Json::Array(blocks.iter().map(|b| block(config, b)).collect());
    }
    if let Some(value) = constant(e) {
        return json!({ "constant_value": value });
    }
    let refs = references(config, e);
    if refs.is_empty() {
        json!({})
    } else {
        json!({ "references": refs })
    }
}

/// A nested block's arguments as expressions (a `dynamic` block's content stands for its blocks).
fn block(config: &Config, b: &NestedBlock) -> Json {
    let args = match b {
        NestedBlock::Static(body) => &body.attrs,
        NestedBlock::Dynamic(d) => &d.content,
    };
    Json::Object(
        args.iter()
            .map(|(name, e)| (name.clone(), expression(config, e)))
            .collect(),
    )
}

/// `provider_config`: every provider block, and the providers the resources use without one.
fn provider_config(config: &Config) -> Json {
    let mut out = Map::new();
    for p in &config.providers {
        let key = match &p.alias {
            Some(alias) => format!("{}.{alias}", p.name),
            None => p.name.clone(),
        };
        let mut expressions: Map<String, Json> = p
            .attrs()
            .map(|a| (a.name.clone(), expression(config, &a.expr)))
            .collect();
        for (name, nested) in &p.blocks {
            let body: Map<String, Json> = nested
                .args
                .iter()
                .map(|(k, a)| (k.clone(), expression(config, &a.expr)))
                .collect();
            expressions.insert(name.clone(), json!([body]));
        }
        let mut entry = json!({
            "name": p.name,
            "full_name": provider_name(config, &format!("{}_", p.name)),
            "expressions": expressions,
        });
        if let (Some(alias), Some(map)) = (&p.alias, entry.as_object_mut()) {
            map.insert("alias".into(), json!(alias));
        }
        out.insert(key, entry);
    }
    let used: BTreeSet<String> = config
        .resources()
        .iter()
        .map(|r| r.provider_ref().name)
        .collect();
    for name in used {
        if !out.contains_key(&name) {
            let full_name = provider_name(config, &format!("{name}_"));
            out.insert(
                name.clone(),
                json!({ "name": name, "full_name": full_name }),
            );
        }
    }
    Json::Object(out)
}

/// The resource blocks of the module at `chain` (the call names from the root down; none for the root).
fn resources(config: &Config, chain: &[&str]) -> Vec<Json> {
    let mut seen = std::collections::BTreeSet::new();
    config
        .resources()
        .iter()
        .filter(|r| {
            let calls: Vec<&str> = r.module.steps().iter().map(|s| &*s.name).collect();
            calls == chain && seen.insert((r.type_name.clone(), r.name.clone()))
        })
        .map(|r| {
            let provider = r.provider_ref();
            let key = match &provider.alias {
                Some(alias) => format!("{}.{alias}", provider.name),
                None => provider.name.clone(),
            };
            let expressions: Map<String, Json> = r
                .attrs
                .iter()
                .map(|(name, a)| (name.clone(), expression(config, &a.expr)))
                .collect();
            let mut o = json!({
                "address": format!("{}.{}", r.type_name, r.name),
                "mode": "managed",
                "type": r.type_name,
                "name": r.name,
                "provider_config_key": key,
                "expressions": expressions,
                "schema_version": 0,
            });
            if let Some(map) = o.as_object_mut() {
                match &r.repetition {
                    Repetition::Single => {}
                    Repetition::Count(a) => {
                        map.insert("count_expression".into(), expression(config, &a.expr));
                    }
                    Repetition::ForEach(a) => {
                        map.insert("for_each_expression".into(), expression(config, &a.expr));
                    }
                }
                if !r.depends_on.is_empty() {
                    let deps: Vec<String> = r.depends_on.iter().map(|(p, _)| p.join(".")).collect();
                    map.insert("depends_on".into(), json!(deps));
                }
            }
            o
        })
        .collect()
}

/// The variables: default (but a sensitive one's), description, `sensitive`.
fn variables(config: &Config) -> Json {
    Json::Object(
        config
            .variables()
            .iter()
            .map(|(name, v)| {
                let mut o = Map::new();
                if !v.sensitive
                    && let Some(default) = v.default.as_ref().and_then(constant)
                {
                    o.insert("default".into(), default);
                }
                if let Some(d) = &v.description {
                    o.insert("description".into(), json!(d));
                }
                if v.sensitive {
                    o.insert("sensitive".into(), json!(true));
                }
                (name.clone(), Json::Object(o))
            })
            .collect(),
    )
}

/// The outputs: expression, description, `sensitive`.
fn outputs(config: &Config) -> Json {
    Json::Object(
        config
            .outputs()
            .iter()
            .map(|(name, o)| {
                let mut entry = Map::new();
                entry.insert("expression".into(), expression(config, &o.value));
                if let Some(d) = &o.description {
                    entry.insert("description".into(), json!(d));
                }
                if o.sensitive {
                    entry.insert("sensitive".into(), json!(true));
                }
                (name.clone(), Json::Object(entry))
            })
            .collect(),
    )
}

/// `configuration`: the root module, and each module call's module under `module_calls` (its blocks
/// once, as written, whatever its `count` or `for_each`).
pub(crate) fn configuration(config: &Config) -> Json {
    let mut root = json!({
        "resources": resources(config, &[]),
        "variables": variables(config),
        "outputs": outputs(config),
    });
    let calls = module_calls(config, &[]);
    if let (Some(map), false) = (root.as_object_mut(), calls.is_empty()) {
        map.insert("module_calls".into(), Json::Object(calls));
    }
    json!({
        "provider_config": provider_config(config),
        "root_module": root,
    })
}

/// The calls made from the module at `chain` (call names from the root down), by name.
fn module_calls(config: &Config, chain: &[&str]) -> Map<String, Json> {
    let prefix = chain.join(".");
    config
        .expanded_calls()
        .iter()
        .filter_map(|(key, source)| {
            let name = match key.rsplit_once('.') {
                Some((parent, name)) if parent == prefix => name,
                None if prefix.is_empty() => key.as_str(),
                _ => return None,
            };
            let mut inner: Vec<&str> = chain.to_vec();
            inner.push(name);
            let mut module = json!({ "resources": resources(config, &inner) });
            let nested = module_calls(config, &inner);
            if let (Some(map), false) = (module.as_object_mut(), nested.is_empty()) {
                map.insert("module_calls".into(), Json::Object(nested));
            }
            Some((
                name.to_owned(),
                json!({ "source": source, "module": module }),
            ))
        })
        .collect()
}
