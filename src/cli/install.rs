//! `liveplan init`'s module installation: every `git::` module source the configuration calls (and the
//! modules those call) cloned with the `git` command into `.terraform/modules/KEY`, and the manifest
//! `.terraform/modules/modules.json` written as `terraform init` writes it, so that plans read them and
//! Terraform and OpenTofu find them installed too. A source another `init` installed (its manifest
//! entry's directory exists) is kept; any other remote source is an error that says how to get it.
//! `.terraform.lock.hcl` is never touched.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use admission::{ModuleCall, SourceFile};
use serde_json::{Value as Json, json};

/// One installed (or kept) module: its key (`net`, `net.db`), its source and its directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The call names from the root down, joined by `.`.
    pub key: String,
    /// The `source` as written.
    pub source: String,
    /// The module's directory, relative to the configuration directory.
    pub dir: String,
    /// Whether this run cloned it (else an earlier init did).
    pub cloned: bool,
}

/// Installs the remote modules `files` call (see the module docs), `upgrade` cloning again what is
/// installed; `Err` names the call that could not be installed and why.
pub fn install(dir: &Path, files: &[SourceFile], upgrade: bool) -> Result<Vec<Installed>, String> {
    let manifest = read_manifest(dir);
    let mut done: Vec<Installed> = Vec::new();
    let mut queue: Vec<(String, String, BTreeMap<String, ModuleCall>)> =
        vec![(String::new(), ".".to_owned(), calls_of(files))];
    while let Some((prefix, caller_dir, calls)) = queue.pop() {
        for call in calls.values() {
            let key = if prefix.is_empty() {
                call.name.clone()
            } else {
                format!("{prefix}.{}", call.name)
            };
            let module_dir = if call.is_local() {
                admission::module_dir(&caller_dir, &call.source)
            } else {
                let installed = install_one(dir, &key, call, manifest.get(&key), upgrade)?;
                let module_dir = installed.dir.clone();
                done.push(installed);
                module_dir
            };
            if done.len() > 256 {
                return Err("more than 256 module calls: a module calls itself".to_owned());
            }
            let module_files = admission::read_dir(&dir.join(&module_dir))
                .map(|d| d.config_files)
                .unwrap_or_default();
            let own: Vec<SourceFile> = module_files
                .into_iter()
                .filter(|f| !f.name.contains('/'))
                .collect();
            queue.push((key, module_dir, calls_of(&own)));
        }
    }
    write_manifest(dir, &done)?;
    Ok(done)
}

/// The module calls of the root files of `files`.
fn calls_of(files: &[SourceFile]) -> BTreeMap<String, ModuleCall> {
    admission::parse_config(files).0.module_calls().clone()
}

/// The one module `call` (key `key`): kept when `known` names a directory that exists (and not
/// `upgrade`), else cloned when its source is `git::`.
fn install_one(
    dir: &Path,
    key: &str,
    call: &ModuleCall,
    known: Option<&String>,
    upgrade: bool,
) -> Result<Installed, String> {
    if let Some(existing) = known
        && dir.join(existing).is_dir()
        && !upgrade
    {
        return Ok(Installed {
            key: key.to_owned(),
            source: call.source.clone(),
            dir: existing.clone(),
            cloned: false,
        });
    }
    let Some(git) = call.source.strip_prefix("git::") else {
        return Err(format!(
            "module `{}`: liveplan init installs `git::` sources only, not `{}`; run `terraform init` or \
             `tofu init` to install it",
            call.name, call.source
        ));
    };
    let (url, subdir, reference) = split_git_source(git);
    let target = format!(".terraform/modules/{key}");
    let dest = dir.join(&target);
    if dest.exists() {
        std::fs::remove_dir_all(&dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    }
    run_git(&["clone", "--quiet", url, &dest.to_string_lossy()], dir)?;
    if let Some(reference) = reference {
        run_git(
            &[
                "-C",
                &dest.to_string_lossy(),
                "checkout",
                "--quiet",
                reference,
            ],
            dir,
        )?;
    }
    let module_dir = match subdir {
        Some(sub) => format!("{target}/{sub}"),
        None => target,
    };
    Ok(Installed {
        key: key.to_owned(),
        source: call.source.clone(),
        dir: module_dir,
        cloned: true,
    })
}

/// `URL//SUBDIR?ref=REF` split into the URL, the subdirectory and the reference (Terraform's module
/// source syntax for git).
fn split_git_source(source: &str) -> (&str, Option<&str>, Option<&str>) {
    let (path, query) = match source.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (source, None),
    };
    let reference = query.and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("ref=")));
    // The scheme's `//` is not a subdirectory: look for `//` after it.
    let after_scheme = path.find("://").map_or(0, |i| i + 3);
    let (url, subdir) = match path[after_scheme..].find("//") {
        Some(i) => (
            &path[..after_scheme + i],
            Some(&path[after_scheme + i + 2..]),
        ),
        None => (path, None),
    };
    (url, subdir.filter(|s| !s.is_empty()), reference)
}

/// Runs `git ARGS` in `dir`; `Err` holds what git said.
fn run_git(args: &[&str], dir: &Path) -> Result<(), String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_TERMINAL_PROMPT", "0")
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "git {} failed: {}",
            args.first().copied().unwrap_or_default(),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The manifest's directories by key, if there is one.
fn read_manifest(dir: &Path) -> BTreeMap<String, String> {
    let path = dir.join(admission::MODULES_MANIFEST);
    let Ok(text) = std::fs::read_to_string(path) else {
        return BTreeMap::new();
    };
    let Ok(doc) = serde_json::from_str::<Json>(&text) else {
        return BTreeMap::new();
    };
    doc["Modules"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| Some((m["Key"].as_str()?.to_owned(), m["Dir"].as_str()?.to_owned())))
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

/// Writes the manifest of `installed` (with the root module's entry), as `terraform init` does.
fn write_manifest(dir: &Path, installed: &[Installed]) -> Result<(), String> {
    if installed.is_empty() {
        return Ok(());
    }
    let mut modules = vec![json!({ "Key": "", "Source": "", "Dir": "." })];
    modules.extend(
        installed
            .iter()
            .map(|m| json!({ "Key": m.key, "Source": m.source, "Dir": m.dir })),
    );
    let path = dir.join(admission::MODULES_MANIFEST);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
    }
    let text = serde_json::to_string(&json!({ "Modules": modules })).unwrap_or_default();
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
}
