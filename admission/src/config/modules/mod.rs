//! Module calls expanded into one flat configuration.
//!
//! Each `module` block is read from its directory (a local `./` or `../` source, or the directory the
//! `.terraform/modules/modules.json` manifest that `terraform init` / `tofu init` / `liveplan init` leave
//! names for it), once per instance of its `count` or `for_each` (which must be known before the live
//! system is read, as a resource's must). Every block of the called module is added to the caller's
//! configuration in its module instance (`module.net.aws_subnet.private[0]`), its expressions rewritten
//! for that scope ([`rewrite`]): its input variables, locals and outputs become locals of the flat
//! configuration, so that the evaluator, the lint and the planner see one configuration and nothing
//! else changes for them.

mod rewrite;
mod sources;

use std::collections::BTreeMap;

use crate::address::{InstanceKey, ModulePath};
use crate::config::{
    Attr, Config, Expr, ExprKind, ModuleCall, ModuleInput, ProviderRef, Repetition, Resource,
    SourceFile, parse_module_dir,
};
use crate::diag::{Code, Diagnostic};
use crate::eval::{Evaluator, Instance};
use crate::value::Value;

pub(crate) use rewrite::{CallInstance, Scope};
pub use sources::{MANIFEST, module_source_dirs, normalize as module_dir};

/// How deep module calls may nest.
const MAX_DEPTH: usize = 32;

/// The caller of a module: its instance, directory, calls and the provider configurations its blocks
/// get (by the name they use there, resolved to the root's).
struct Frame<'f> {
    path: ModulePath,
    dir: String,
    calls: &'f BTreeMap<String, ModuleCall>,
    providers: BTreeMap<ProviderRef, ProviderRef>,
    /// The `module` keys of the calls from the root down (`net.db`), as the manifest names them.
    key: String,
    depth: usize,
}

impl Frame<'_> {
    /// The root's configuration that `wanted`, as written in this module, means.
    fn provider(&self, wanted: &ProviderRef) -> Option<ProviderRef> {
        if self.path.is_root() {
            return Some(wanted.clone());
        }
        self.providers.get(wanted).cloned().or_else(|| {
            // A default configuration not passed explicitly is inherited, as in Terraform.
            wanted
                .alias
                .is_none()
                .then(|| ProviderRef::default_of(wanted.name.clone()))
                .and_then(|d| self.providers.get(&d).cloned())
                .or_else(|| wanted.alias.is_none().then(|| wanted.clone()))
        })
    }
}

/// Expands every module call of `config` (the root module, parsed from the root files of `files`),
/// with `vars` the root's variable values, and reports what stops a call.
pub fn expand_modules(
    config: &mut Config,
    files: &[SourceFile],
    vars: &BTreeMap<String, Value>,
) -> Vec<Diagnostic> {
    let calls = std::mem::take(&mut config.module_calls);
    if calls.is_empty() {
        return Vec::new();
    }
    let mut diags = Vec::new();
    rewrite_root(config, &calls);
    let root = Frame {
        path: ModulePath::root(),
        dir: ".".to_owned(),
        calls: &calls,
        providers: BTreeMap::new(),
        key: String::new(),
        depth: 0,
    };
    let manifest = sources::Manifest::read(files, &mut diags);
    for call in calls.values() {
        expand_call(config, files, &manifest, &root, call, vars, &mut diags);
    }
    expand_module_depends_on(config);
    diags
}

/// The root module's own expressions, their `module.CALL…` references rewritten.
fn rewrite_root(config: &mut Config, calls: &BTreeMap<String, ModuleCall>) {
    let root = ModulePath::root();
    let scope = Scope {
        path: &root,
        dir: ".",
        calls,
        instance: None,
    };
    let resources = std::mem::take(&mut config.resources);
    config.resource_index.clear();
    for r in resources {
        config.add_resource(rewrite_resource(&scope, &r));
    }
    let data = std::mem::take(&mut config.data_sources);
    config.data_index.clear();
    for d in data {
        config.add_data_source(rewrite_resource(&scope, &d));
    }
    for attr in config.locals.values_mut() {
        attr.expr = scope.rewrite(&attr.expr);
    }
    for out in config.outputs.values_mut() {
        out.value = scope.rewrite(&out.value);
        for c in &mut out.preconditions {
            c.condition = scope.rewrite(&c.condition);
            c.error_message = scope.rewrite(&c.error_message);
        }
    }
    for check in config.checks.values_mut() {
        for c in &mut check.asserts {
            c.condition = scope.rewrite(&c.condition);
            c.error_message = scope.rewrite(&c.error_message);
        }
    }
}

/// A resource or data block's expressions and reference paths rewritten for `scope`.
fn rewrite_resource(scope: &Scope<'_>, r: &Resource) -> Resource {
    let mut r = r.clone();
    for attr in r.attrs.values_mut() {
        attr.expr = scope.rewrite(&attr.expr);
    }
    match &mut r.repetition {
        Repetition::Single => {}
        Repetition::Count(a) | Repetition::ForEach(a) => a.expr = scope.rewrite(&a.expr),
    }
    for (path, _) in &mut r.depends_on {
        *path = scope.rewrite_path(path);
    }
    let lc = &mut r.lifecycle;
    for c in lc
        .preconditions
        .iter_mut()
        .chain(lc.postconditions.iter_mut())
    {
        c.condition = scope.rewrite(&c.condition);
        c.error_message = scope.rewrite(&c.error_message);
    }
    for (path, _) in &mut lc.replace_triggered_by {
        *path = scope.rewrite_path(path);
    }
    r
}

/// One module call: its directory read, its instances worked out, each instance's blocks added.
fn expand_call(
    config: &mut Config,
    files: &[SourceFile],
    manifest: &sources::Manifest,
    caller: &Frame<'_>,
    call: &ModuleCall,
    vars: &BTreeMap<String, Value>,
    diags: &mut Vec<Diagnostic>,
) {
    let at = |summary: String, detail: &str| {
        Diagnostic::new(Code::ModuleSource, summary, detail).at(call.loc.to_pos())
    };
    if caller.depth >= MAX_DEPTH {
        diags.push(at(
            format!(
                "module `{}` is nested more than {MAX_DEPTH} calls deep",
                call.name
            ),
            "a module that calls itself, directly or through others, never ends",
        ));
        return;
    }
    let key = if caller.key.is_empty() {
        call.name.clone()
    } else {
        format!("{}.{}", caller.key, call.name)
    };
    // What the call would have made, for expressions that read it when it cannot be read.
    let unread = [
        format!("{}module.{}", caller.path.prefix(), call.name),
        rewrite::call_local(&caller.path, &call.name),
    ];
    let dir = match manifest.dir_of(&key, &caller.dir, call) {
        Ok(dir) => dir,
        Err(why) => {
            diags.push(at(
                format!("module `{}`: {why}", call.name),
                sources::HOW_TO_GET,
            ));
            config.unread_calls.extend(unread);
            return;
        }
    };
    if !files.iter().any(|f| sources::in_dir(&f.name, &dir)) {
        config.unread_calls.extend(unread);
        diags.push(at(
            format!(
                "module `{}`: no configuration files in `{dir}` (source `{}`)",
                call.name, call.source
            ),
            "check the `source` path, relative to the directory of the calling module",
        ));
        return;
    }
    let (child, child_diags) = parse_module_dir(files, &dir);
    let syntax_error = child_diags.iter().any(|d| d.code == Code::ConfigSyntax);
    diags.extend(child_diags);
    if syntax_error {
        config.unread_calls.extend(unread);
        return;
    }
    check_child(&child, call, diags);
    config
        .expanded_calls
        .insert(key.clone(), call.source.clone());
    let Some(instances) = call_instances(config, caller, call, vars, diags) else {
        return;
    };
    let mut built = Vec::new();
    for (instance_key, ci) in instances {
        let Ok(path) = caller.path.child(&call.name, instance_key.clone()) else {
            continue;
        };
        let frame = Frame {
            path: path.clone(),
            dir: dir.clone(),
            calls: &child.module_calls,
            providers: call_providers(caller, call, diags),
            key: key.clone(),
            depth: caller.depth + 1,
        };
        add_instance(config, &child, caller, call, &frame, &ci, diags);
        for nested in child.module_calls.values() {
            expand_call(config, files, manifest, &frame, nested, vars, diags);
        }
        built.push((instance_key, path));
    }
    add_call_value(config, caller, call, &child, &built);
}

/// What the called module may not hold, reported once per call: provider configurations, a `live`
/// block, and arguments the module declares no variable for.
fn check_child(child: &Config, call: &ModuleCall, diags: &mut Vec<Diagnostic>) {
    for p in &child.providers {
        diags.push(
            Diagnostic::new(
                Code::UnsupportedConstruct,
                format!(
                    "module `{}` declares a `provider \"{}\"` block of its own",
                    call.name, p.name
                ),
                "configure providers in the root module and pass them with `providers = { ... }`",
            )
            .at(p.loc.to_pos()),
        );
    }
    if let Some(live) = &child.live {
        diags.push(
            Diagnostic::new(
                Code::UnsupportedConstruct,
                format!("module `{}` has a `live` block", call.name),
                "the estate and its record store are set in the root module only",
            )
            .at(live.loc.to_pos()),
        );
    }
    for (name, attr) in &call.inputs {
        if !child.variables.contains_key(name) {
            diags.push(
                Diagnostic::new(
                    Code::InvalidArgument,
                    format!(
                        "Unsupported argument: an argument named `{name}` is not expected in module `{}`",
                        call.name
                    ),
                    "the module declares no variable of that name",
                )
                .at(attr.loc.to_pos()),
            );
        }
    }
    for (name, var) in &child.variables {
        if var.default.is_none() && !call.inputs.contains_key(name) {
            diags.push(
                Diagnostic::new(
                    Code::InvalidArgument,
                    format!(
                        "Missing required argument: module `{}` needs `{name}`",
                        call.name
                    ),
                    "set it in the module block: the variable has no default",
                )
                .at(call.loc.to_pos()),
            );
        }
    }
}

/// The instances of a call: its `count` or `for_each` evaluated before anything is read, as a
/// resource's; `None` (reported) when it is not known then.
fn call_instances(
    config: &Config,
    caller: &Frame<'_>,
    call: &ModuleCall,
    vars: &BTreeMap<String, Value>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<(InstanceKey, CallInstance)>> {
    let (attr, code) = match &call.repetition {
        Repetition::Single => return Some(vec![(InstanceKey::None, CallInstance::Single)]),
        Repetition::Count(a) => (a, Code::NonStaticCount),
        Repetition::ForEach(a) => (a, Code::NonStaticForEach),
    };
    let scope = Scope {
        path: &caller.path,
        dir: &caller.dir,
        calls: caller.calls,
        instance: None,
    };
    let expr = scope.rewrite(&attr.expr);
    let ev = Evaluator::new(config, vars);
    let value = match ev.eval(&expr, &Instance::Single) {
        Ok(v) => v,
        Err(e) => {
            diags.push(e.into_diagnostic(code));
            return None;
        }
    };
    let bad = |why: &str| {
        Diagnostic::new(
            Code::InvalidArgument,
            format!("module `{}`: {why}", call.name),
            "give `count` a whole number and `for_each` a map or a set of strings",
        )
        .at(attr.loc.to_pos())
    };
    let (value, _) = value.unmark();
    if !value.is_known() {
        diags.push(
            Diagnostic::new(
                code,
                format!(
                    "the `{}` of module `{}` is not known before the live system is read",
                    attr.name, call.name
                ),
                "compute it from variables, locals and literals only",
            )
            .at(attr.loc.to_pos()),
        );
        return None;
    }
    match (&call.repetition, value) {
        (Repetition::Count(_), Value::Number(n)) => match n.as_u64() {
            Some(n) => Some(
                (0..n)
                    .map(|i| (InstanceKey::Int(i), CallInstance::Count(i)))
                    .collect(),
            ),
            None => {
                diags.push(bad("`count` must be a whole number, 0 or more"));
                None
            }
        },
        (Repetition::ForEach(_), Value::Map(entries)) => Some(
            entries
                .into_iter()
                .map(|(k, v)| (InstanceKey::Str(k.clone()), CallInstance::Each(k, v)))
                .collect(),
        ),
        (Repetition::ForEach(_), Value::Set(items)) => {
            let mut out = Vec::new();
            for item in items {
                match item.peel() {
                    Value::String(s) => out.push((
                        InstanceKey::Str(s.clone()),
                        CallInstance::Each(s.clone(), Value::String(s.clone())),
                    )),
                    _ => {
                        diags.push(bad("a `for_each` set must hold strings"));
                        return None;
                    }
                }
            }
            Some(out)
        }
        (Repetition::Count(_), _) => {
            diags.push(bad("`count` must be a number"));
            None
        }
        _ => {
            diags.push(bad("`for_each` must be a map or a set of strings"));
            None
        }
    }
}

/// The provider configurations the called module gets: those `providers` names, resolved in the caller.
fn call_providers(
    caller: &Frame<'_>,
    call: &ModuleCall,
    diags: &mut Vec<Diagnostic>,
) -> BTreeMap<ProviderRef, ProviderRef> {
    let mut out = BTreeMap::new();
    for (child, parent, loc) in &call.providers {
        match caller.provider(parent) {
            Some(resolved) => {
                out.insert(child.clone(), resolved);
            }
            None => diags.push(
                Diagnostic::new(
                    Code::UnknownReference,
                    format!("provider configuration `{parent}` is not passed to this module"),
                    "pass it to the calling module with `providers = { ... }`",
                )
                .at(loc.to_pos()),
            ),
        }
    }
    out
}

/// The blocks of one module instance added to `config`: its inputs, locals and outputs as locals, its
/// resources, data blocks and checks in its module instance.
fn add_instance(
    config: &mut Config,
    child: &Config,
    caller: &Frame<'_>,
    call: &ModuleCall,
    frame: &Frame<'_>,
    ci: &CallInstance,
    diags: &mut Vec<Diagnostic>,
) {
    let path = &frame.path;
    let args = Scope {
        path: &caller.path,
        dir: &caller.dir,
        calls: caller.calls,
        instance: Some(ci),
    };
    let inner = Scope {
        path,
        dir: &frame.dir,
        calls: &child.module_calls,
        instance: None,
    };
    for (name, var) in &child.variables {
        let mut variable = var.clone();
        variable.default = variable.default.as_ref().map(|d| inner.rewrite(d));
        let given = call.inputs.get(name);
        let loc = given.map_or_else(|| call.loc.clone(), |a| a.loc.clone());
        let input = ModuleInput {
            module: path.to_string(),
            variable,
            value: given.map(|a| args.rewrite(&a.expr)),
        };
        let expr = Expr {
            kind: ExprKind::ModuleInput(Box::new(input)),
            loc: loc.clone(),
        };
        let local = rewrite::input_local(path, name);
        config.locals.insert(
            local.clone(),
            Attr {
                name: local,
                expr,
                loc,
            },
        );
    }
    for (name, attr) in &child.locals {
        let local = rewrite::scoped_local(path, name);
        let expr = inner.rewrite(&attr.expr);
        config.locals.insert(
            local.clone(),
            Attr {
                name: local,
                expr,
                loc: attr.loc.clone(),
            },
        );
    }
    for (name, out) in &child.outputs {
        let local = rewrite::output_local(path, name);
        let mut expr = inner.rewrite(&out.value);
        if out.sensitive {
            expr = Expr {
                loc: expr.loc.clone(),
                kind: ExprKind::Call {
                    name: "sensitive".to_owned(),
                    args: vec![expr],
                    expand: false,
                },
            };
        }
        config.locals.insert(
            local.clone(),
            Attr {
                name: local,
                expr,
                loc: out.loc.clone(),
            },
        );
    }
    let waits: Vec<(Vec<String>, crate::config::Loc)> = call
        .depends_on
        .iter()
        .map(|(p, l)| (args.rewrite_path(p), l.clone()))
        .collect();
    for r in &child.resources {
        let mut r = rewrite_resource(&inner, r);
        place(&mut r, path, frame, &waits, diags);
        config.add_resource(r);
    }
    for d in &child.data_sources {
        let mut d = rewrite_resource(&inner, d);
        place(&mut d, path, frame, &waits, diags);
        config.add_data_source(d);
    }
    for (name, check) in &child.checks {
        let mut check = check.clone();
        for c in &mut check.asserts {
            c.condition = inner.rewrite(&c.condition);
            c.error_message = inner.rewrite(&c.error_message);
        }
        config.checks.insert(format!("{path}.{name}"), check);
    }
}

/// A rewritten block put in its module instance: its provider configuration resolved to the root's and
/// the call's `depends_on` added to its own.
fn place(
    r: &mut Resource,
    path: &ModulePath,
    frame: &Frame<'_>,
    waits: &[(Vec<String>, crate::config::Loc)],
    diags: &mut Vec<Diagnostic>,
) {
    r.module = path.clone();
    r.depends_on.extend(waits.iter().cloned());
    let wanted = r.provider_ref();
    match frame.provider(&wanted) {
        Some(resolved) if resolved == ProviderRef::default_of(wanted.name.clone()) => {
            r.provider = None;
        }
        Some(resolved) => {
            let loc = r.provider.as_ref().map_or_else(|| r.loc.clone(), |(_, l)| l.clone());
            r.provider = Some((resolved, loc));
        }
        None => diags.push(
            Diagnostic::new(
                Code::UnknownReference,
                format!(
                    "`{}` uses the provider configuration `{wanted}`, which its module call does not pass",
                    r.address()
                ),
                "pass it with `providers = { ... }` in the module block",
            )
            .at(r.loc.to_pos()),
        ),
    }
}

/// The local that `module.CALL` reads: each instance's outputs as an object, in a list for `count`
/// and in a map by key for `for_each`.
fn add_call_value(
    config: &mut Config,
    caller: &Frame<'_>,
    call: &ModuleCall,
    child: &Config,
    built: &[(InstanceKey, ModulePath)],
) {
    let loc = call.loc.clone();
    let string = |s: &str| Expr {
        kind: ExprKind::String(s.to_owned()),
        loc: loc.clone(),
    };
    let object_of = |path: &ModulePath| Expr {
        kind: ExprKind::Object(
            child
                .outputs
                .keys()
                .map(|name| {
                    let local = rewrite::output_local(path, name);
                    let value = Expr {
                        kind: ExprKind::Traversal(
                            Box::new(Expr {
                                kind: ExprKind::Variable("local".to_owned()),
                                loc: loc.clone(),
                            }),
                            vec![crate::config::Step::Attr(local)],
                        ),
                        loc: loc.clone(),
                    };
                    (string(name), value)
                })
                .collect(),
        ),
        loc: loc.clone(),
    };
    let kind = match &call.repetition {
        Repetition::Single => match built.first() {
            Some((_, path)) => object_of(path).kind,
            None => ExprKind::Null,
        },
        Repetition::Count(_) => ExprKind::List(built.iter().map(|(_, p)| object_of(p)).collect()),
        Repetition::ForEach(_) => ExprKind::Object(
            built
                .iter()
                .map(|(k, p)| {
                    let key = match k {
                        InstanceKey::Str(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (string(&key), object_of(p))
                })
                .collect(),
        ),
    };
    let local = rewrite::call_local(&caller.path, &call.name);
    let expr = Expr {
        kind,
        loc: loc.clone(),
    };
    config.locals.insert(
        local.clone(),
        Attr {
            name: local,
            expr,
            loc,
        },
    );
}

/// `depends_on = [module.net]`: every block of the called module's instances, in place of the entry.
fn expand_module_depends_on(config: &mut Config) {
    let blocks: Vec<(String, String, String)> = config
        .resources
        .iter()
        .map(|r| (r.module.to_string(), r.qualified_type(), r.name.clone()))
        .collect();
    let expand = |deps: &mut Vec<(Vec<String>, crate::config::Loc)>| {
        let mut out = Vec::new();
        for (path, loc) in deps.drain(..) {
            if path.first().map(String::as_str) != Some("module") || path.len() < 2 {
                out.push((path, loc));
                continue;
            }
            let called = if path[1].starts_with("module.") {
                path[1].clone()
            } else {
                format!("module.{}", path[1])
            };
            for (module, t, n) in &blocks {
                let inside = module == &called
                    || module.starts_with(&format!("{called}["))
                    || module.starts_with(&format!("{called}."));
                if inside {
                    out.push((vec![t.clone(), n.clone()], loc.clone()));
                }
            }
        }
        *deps = out;
    };
    for r in &mut config.resources {
        expand(&mut r.depends_on);
    }
    for out in config.outputs.values_mut() {
        expand(&mut out.depends_on);
    }
}
