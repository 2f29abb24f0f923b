//! Which resource blocks a configuration block refers to: through its arguments, through the locals those
//! read, and through `depends_on`. Planning orders evaluation by it; the graph wires waits by it.
//!
//! Pure functions over the parsed configuration; this module must never evaluate anything.

use std::collections::{BTreeMap, BTreeSet};

use admission::config::{Config, Expr, Resource};

/// The resource blocks (`type.name`) an expression refers to, locals followed.
pub fn expr_blocks(config: &Config, expr: &Expr, out: &mut BTreeSet<String>) {
    let mut seen = BTreeSet::new();
    collect(config, expr, out, &mut seen);
}

fn collect(config: &Config, expr: &Expr, out: &mut BTreeSet<String>, seen: &mut BTreeSet<String>) {
    for (path, _) in expr.references() {
        match path.first().map(String::as_str) {
            Some("local") => {
                if let Some(name) = path.get(1)
                    && seen.insert(name.clone())
                    && let Some(attr) = config.locals.get(name)
                {
                    collect(config, &attr.expr, out, seen);
                }
            }
            Some("var" | "count" | "each" | "self" | "path" | "terraform") | None => {}
            Some(type_name) => {
                if let Some(name) = path.get(1)
                    && config.resource(type_name, name).is_some()
                {
                    out.insert(format!("{type_name}.{name}"));
                }
            }
        }
    }
}

/// The resource blocks a resource block depends on: references in its arguments, `count`, `for_each`
/// and `depends_on`. Never itself.
pub fn resource_blocks(config: &Config, res: &Resource) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for attr in res.attrs.values() {
        expr_blocks(config, &attr.expr, &mut out);
    }
    for attr in res.count.iter().chain(res.for_each.iter()) {
        expr_blocks(config, &attr.expr, &mut out);
    }
    for (path, _) in &res.depends_on {
        if let (Some(t), Some(n)) = (path.first(), path.get(1))
            && config.resource(t, n).is_some()
        {
            out.insert(format!("{t}.{n}"));
        }
    }
    out.remove(&res.address());
    out
}

/// The resource blocks in an order where each comes after the blocks it depends on; blocks caught in a
/// cycle come last, in file order.
pub fn block_order(config: &Config) -> Vec<String> {
    let deps: BTreeMap<String, BTreeSet<String>> = config
        .resources
        .iter()
        .map(|r| (r.address(), resource_blocks(config, r)))
        .collect();
    let mut done: BTreeSet<String> = BTreeSet::new();
    let mut order = Vec::new();
    loop {
        let mut progressed = false;
        for r in &config.resources {
            let a = r.address();
            if done.contains(&a) {
                continue;
            }
            if deps[&a].iter().all(|d| done.contains(d)) {
                done.insert(a.clone());
                order.push(a);
                progressed = true;
            }
        }
        if !progressed {
            break;
        }
    }
    for r in &config.resources {
        let a = r.address();
        if done.insert(a.clone()) {
            order.push(a);
        }
    }
    order
}
