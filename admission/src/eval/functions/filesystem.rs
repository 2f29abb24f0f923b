//! Filesystem functions and templates: `file`, `filebase64`, `fileexists`, `fileset`, `abspath`,
//! `basename`, `dirname`, `pathexpand`, `templatefile` and `templatestring`.
//!
//! Relative paths resolve against the module directory of the [`ModuleContext`](crate::eval::ModuleContext)
//! (`path.module`), as in Terraform run with `-chdir`. Files are read whole, up to a bound; a directory
//! walk for `fileset` is bounded too. A template sees only the variables it is given.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use super::Ctx;
use crate::config::{Config, parse_template};
use crate::eval::{EvalError, Evaluator, Instance};
use crate::value::{Value, is_identifier};

/// The largest file the file functions read.
const MAX_FILE: u64 = 64 << 20;

/// The most entries `fileset` looks at.
const MAX_WALK: usize = 100_000;

/// `path` with `~` expanded and, when relative, under the module directory.
fn resolve(ctx: &Ctx<'_>, path: &str) -> Result<PathBuf, EvalError> {
    let expanded = expand_home(ctx, path)?;
    Ok(if expanded.is_absolute() {
        expanded
    } else {
        ctx.module.dir.join(expanded)
    })
}

fn expand_home(ctx: &Ctx<'_>, path: &str) -> Result<PathBuf, EvalError> {
    let rest = match path.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.trim_start_matches('/'),
        _ => return Ok(PathBuf::from(path)),
    };
    let home = ctx
        .module
        .home
        .as_ref()
        .ok_or_else(|| ctx.err("cannot expand `~`: the home directory is not known"))?;
    Ok(if rest.is_empty() {
        home.clone()
    } else {
        home.join(rest)
    })
}

/// The bytes of the file at `path` (already resolved by the caller's message: `shown`).
pub(super) fn read_bytes(ctx: &Ctx<'_>, path: &str) -> Result<Vec<u8>, EvalError> {
    let full = resolve(ctx, path)?;
    let meta = std::fs::metadata(&full)
        .map_err(|e| ctx.err(format!("no file exists at {path:?}: {}", io_reason(&e))))?;
    if meta.is_dir() {
        return Err(ctx.err(format!("{path:?} is a directory, not a file")));
    }
    if meta.len() > MAX_FILE {
        return Err(ctx.err(format!("{path:?} is larger than 64 MiB")));
    }
    std::fs::read(&full).map_err(|e| ctx.err(format!("cannot read {path:?}: {}", io_reason(&e))))
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "not found".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        other => other.to_string(),
    }
}

fn read_text(ctx: &Ctx<'_>, path: &str) -> Result<String, EvalError> {
    String::from_utf8(read_bytes(ctx, path)?).map_err(|_| {
        ctx.err(format!(
            "contents of {path:?} are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead"
        ))
    })
}

/// `file(path)`: the file's text.
pub(super) fn file(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    read_text(ctx, &ctx.str(&args[0])?).map(Value::String)
}

/// `filebase64(path)`: the file's bytes in Base64.
pub(super) fn filebase64(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let bytes = read_bytes(ctx, &ctx.str(&args[0])?)?;
    Ok(Value::String(STANDARD.encode(bytes)))
}

/// `fileexists(path)`: whether a file is there (a directory is an error, as in Terraform).
pub(super) fn fileexists(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let path = ctx.str(&args[0])?;
    match std::fs::metadata(resolve(ctx, &path)?) {
        Ok(m) if m.is_file() => Ok(Value::Bool(true)),
        Ok(_) => Err(ctx.err(format!("{path:?} is not a regular file"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Value::Bool(false)),
        Err(e) => Err(ctx.err(format!("cannot stat {path:?}: {}", io_reason(&e)))),
    }
}

/// `fileset(path, pattern)`: the files under `path` whose path relative to it matches `pattern` (`*`,
/// `**`, `?`, `[class]`, `{alt,...}`), with `/` separators.
pub(super) fn fileset(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let base = ctx.str(&args[0])?;
    let pattern = ctx.str(&args[1])?;
    let patterns = expand_braces(&pattern)
        .iter()
        .map(|p| glob::Pattern::new(p))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ctx.err(format!("failed to glob pattern {pattern:?}: {}", e.msg)))?;
    let root = resolve(ctx, &base)?;
    let options = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: true,
        require_literal_leading_dot: false,
    };
    let mut out = BTreeSet::new();
    let mut todo = vec![PathBuf::new()];
    let mut seen = 0usize;
    while let Some(rel) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            seen += 1;
            if seen > MAX_WALK {
                return Err(ctx.err(format!("more than {MAX_WALK} entries under {base:?}")));
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = rel.join(&name);
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let text = slash_path(&path);
            if kind.is_dir() {
                todo.push(path);
            } else if patterns.iter().any(|p| p.matches_with(&text, options)) {
                out.insert(Value::String(text));
            }
        }
    }
    Ok(Value::Set(out))
}

fn slash_path(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// `a{b,c}d` as `abd` and `acd` (nested braces expand too; at most 256 alternatives).
fn expand_braces(pattern: &str) -> Vec<String> {
    let Some(open) = pattern.find('{') else {
        return vec![pattern.to_owned()];
    };
    let mut depth = 0;
    let mut close = None;
    let mut cuts = Vec::new();
    for (i, c) in pattern[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            ',' if depth == 1 => cuts.push(open + i),
            _ => {}
        }
    }
    let Some(close) = close else {
        return vec![pattern.to_owned()];
    };
    let mut bounds = vec![open];
    bounds.extend(cuts);
    bounds.push(close);
    let mut out = Vec::new();
    for w in bounds.windows(2) {
        let alt = &pattern[w[0] + 1..w[1]];
        let joined = format!("{}{alt}{}", &pattern[..open], &pattern[close + 1..]);
        out.extend(expand_braces(&joined));
        if out.len() > 256 {
            out.truncate(256);
            break;
        }
    }
    out
}

/// `abspath(path)`: the absolute, cleaned form of `path`.
pub(super) fn abspath(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let path = ctx.str(&args[0])?;
    if path.starts_with('/') {
        return Ok(Value::String(clean(&path)));
    }
    let cwd = if ctx.module.cwd.starts_with('/') {
        ctx.module.cwd.clone()
    } else {
        std::path::absolute(&ctx.module.dir)
            .map(|p| slash_path(&p))
            .map(|p| format!("/{}", p.trim_start_matches('/')))
            .map_err(|_| ctx.err("the current directory is not known"))?
    };
    Ok(Value::String(clean(&format!("{cwd}/{path}"))))
}

/// `basename(path)`: the last element of `path`, as Go's `filepath.Base`.
pub(super) fn basename(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let path = ctx.str(&args[0])?;
    if path.is_empty() {
        return Ok(Value::from("."));
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return Ok(Value::from("/"));
    }
    Ok(Value::from(trimmed.rsplit('/').next().unwrap_or(trimmed)))
}

/// `dirname(path)`: all but the last element of `path`, as Go's `filepath.Dir`.
pub(super) fn dirname(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let path = ctx.str(&args[0])?;
    let dir = match path.rfind('/') {
        Some(i) => &path[..=i],
        None => "",
    };
    Ok(Value::String(clean(dir)))
}

/// `pathexpand(path)`: a leading `~` replaced by the home directory.
pub(super) fn pathexpand(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    let path = ctx.str(&args[0])?;
    match path.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => {
            let home = ctx
                .module
                .home
                .as_ref()
                .ok_or_else(|| ctx.err("cannot expand `~`: the home directory is not known"))?;
            Ok(Value::String(format!("{}{rest}", home.display())))
        }
        _ => Ok(Value::String(path)),
    }
}

/// Go's `path.Clean`: the shortest equivalent path (`.` for an empty one).
fn clean(path: &str) -> String {
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

/// `templatefile(path, vars)`: the file rendered as a template with `vars`.
pub(super) fn templatefile(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    if ctx.in_template {
        return Err(ctx.err(
            "cannot recursively call templatefile from inside templatefile or templatestring",
        ));
    }
    let path = ctx.str(&args[0])?;
    let text = read_text(ctx, &path)?;
    render(ctx, &path, &text, &args[1])
}

/// `templatestring(template, vars)`: the string rendered as a template with `vars`.
pub(super) fn templatestring(ctx: &Ctx<'_>, args: &[Value]) -> Result<Value, EvalError> {
    if ctx.in_template {
        return Err(ctx.err(
            "cannot recursively call templatestring from inside templatefile or templatestring",
        ));
    }
    let text = ctx.str(&args[0])?;
    render(ctx, "templatestring", &text, &args[1])
}

/// Renders `text` (named `name` in messages) with the variables of the map `vars` and nothing else.
fn render(ctx: &Ctx<'_>, name: &str, text: &str, vars: &Value) -> Result<Value, EvalError> {
    let vars: BTreeMap<String, Value> = ctx.map(vars)?;
    for k in vars.keys() {
        if !is_identifier(k) {
            return Err(ctx.err(format!(
                "invalid template variable name {k:?}: must start with a letter, followed by zero or more letters, digits, and underscores"
            )));
        }
    }
    let expr = parse_template(name, text)
        .map_err(|d| ctx.err(format!("the template does not parse: {}", d.summary)))?;
    let config = Config::default();
    let no_vars = BTreeMap::new();
    let mut ev = Evaluator::new(&config, &no_vars).with_module(ctx.module);
    if let Some(impure) = ctx.impure {
        ev = ev.with_impure(impure);
    }
    ev.in_template = true;
    let mut bindings: Vec<(String, Value)> = vars.into_iter().collect();
    ev.eval_in(&expr, &Instance::Single, &mut bindings, 0)
}
