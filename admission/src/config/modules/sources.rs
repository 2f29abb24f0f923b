//! Where a module call's files are: a local source's directory joined to the caller's, or the
//! directory the `.terraform/modules/modules.json` manifest names for the call's key (as `terraform
//! init`, `tofu init` and `liveplan init` write it). File names are relative to the root module's
//! directory (`modules/net/main.tf`), so diagnostics name them as the user sees them.

use std::collections::{BTreeMap, BTreeSet};

use crate::config::{ModuleCall, SourceFile};
use crate::diag::{Code, Diagnostic};

/// The manifest's path, relative to the root module's directory.
pub const MANIFEST: &str = ".terraform/modules/modules.json";

/// What to do about a remote source that is not installed.
pub(crate) const HOW_TO_GET: &str = "run `liveplan init` (it clones `git::` sources) or `terraform init` / \
     `tofu init`, which install it under `.terraform/modules/` and write \
     `.terraform/modules/modules.json`; or use a local path source (`./modules/NAME`)";

/// The module directories the manifest names, by module key (`net`, `net.db`).
#[derive(Debug, Default)]
pub(crate) struct Manifest {
    dirs: BTreeMap<String, String>,
}

#[derive(serde::Deserialize)]
struct ManifestFile {
    #[serde(rename = "Modules", default)]
    modules: Vec<ManifestEntry>,
}

#[derive(serde::Deserialize)]
struct ManifestEntry {
    #[serde(rename = "Key")]
    key: String,
    #[serde(rename = "Dir")]
    dir: String,
}

impl Manifest {
    /// The manifest among `files`, if there is one; a manifest that does not parse is reported.
    pub fn read(files: &[SourceFile], diags: &mut Vec<Diagnostic>) -> Manifest {
        let Some(file) = files.iter().find(|f| f.name == MANIFEST) else {
            return Manifest::default();
        };
        match serde_json::from_str::<ManifestFile>(&file.text) {
            Ok(m) => Manifest {
                dirs: m
                    .modules
                    .into_iter()
                    .filter(|e| !e.key.is_empty())
                    .map(|e| (e.key, normalize(".", &e.dir)))
                    .collect(),
            },
            Err(e) => {
                diags.push(Diagnostic::new(
                    Code::ModuleSource,
                    format!("`{MANIFEST}` does not parse: {e}"),
                    "run `liveplan init` or `terraform init` again to rewrite it",
                ));
                Manifest::default()
            }
        }
    }

    /// The directory of the call `key` made from `caller_dir`: the manifest's entry when there is one,
    /// else a local source joined to the caller's directory; `Err` says why there is none.
    pub fn dir_of(&self, key: &str, caller_dir: &str, call: &ModuleCall) -> Result<String, String> {
        if let Some(dir) = self.dirs.get(key) {
            return Ok(dir.clone());
        }
        if call.is_local() {
            return Ok(normalize(caller_dir, &call.source));
        }
        Err(format!(
            "the source `{}` is not installed (no entry `{key}` in `{MANIFEST}`)",
            call.source
        ))
    }
}

/// `source` joined to `base` with `.` and `..` resolved (`.` + `./modules/net` → `modules/net`,
/// `modules/net` + `../db` → `modules/db`, `.` + `../shared/x` → `../shared/x`).
pub fn normalize(base: &str, source: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in base.split('/').chain(source.split('/')) {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

/// Whether the file `name` is directly in the module directory `dir`.
pub(crate) fn in_dir(name: &str, dir: &str) -> bool {
    match name.rsplit_once('/') {
        None => dir == ".",
        Some((parent, _)) => parent == dir,
    }
}

/// The module directories, relative to the root module's, that the module calls of `files` read
/// (following nested calls), other than the root: a reader of the configuration reads their files too,
/// naming each `DIR/NAME`. `read` gives the files of one directory (the root's are `files`).
pub fn module_source_dirs(
    files: &[SourceFile],
    read: &mut dyn FnMut(&str) -> Vec<SourceFile>,
) -> Vec<SourceFile> {
    let mut all: Vec<SourceFile> = files.to_vec();
    let mut diags = Vec::new();
    let manifest = Manifest::read(files, &mut diags);
    let mut seen = BTreeSet::new();
    let mut queue: Vec<(String, String)> = vec![(".".to_owned(), String::new())];
    while let Some((dir, key)) = queue.pop() {
        if seen.len() > 256 {
            break;
        }
        let (config, _) = crate::config::parse_module_dir(&all, &dir);
        for call in config.module_calls.values() {
            let child_key = if key.is_empty() {
                call.name.clone()
            } else {
                format!("{key}.{}", call.name)
            };
            let Ok(child) = manifest.dir_of(&child_key, &dir, call) else {
                continue;
            };
            if seen.insert(child.clone()) {
                all.extend(read(&child));
                queue.push((child, child_key));
            }
        }
    }
    all.split_off(files.len())
}
