//! Which files of a directory are configuration, and how each is read: the names Terraform and OpenTofu
//! load (`*.tf`, `*.tf.json`, `*.tofu`, `*.tofu.json`), the override files among them, the `.tofu` file
//! that shadows the `.tf` file of the same base name, and liveplan's own `liveplan.hcl`.
//!
//! These are rules on names only: nothing here reads a file or its text.

/// The file beside the root module that holds liveplan's `live` block, so that the `.tf` files stay
/// usable by Terraform and OpenTofu (which refuse a top-level block they do not know).
pub const LIVEPLAN_FILE: &str = "liveplan.hcl";

/// The grammar a configuration file is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// HCL's native syntax (`.tf`, `.tofu`, `liveplan.hcl`).
    Native,
    /// HCL's JSON syntax (`.tf.json`, `.tofu.json`).
    Json,
}

/// Whose release numbers a file's `required_version` names: a `.tofu` file is read by OpenTofu only, so
/// its constraints name OpenTofu releases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dialect {
    /// `.tf` and `.tf.json` files (and `liveplan.hcl`).
    Terraform,
    /// `.tofu` and `.tofu.json` files.
    OpenTofu,
}

impl Dialect {
    /// The dialect of the file `name` (Terraform's unless it is a `.tofu` or `.tofu.json` file).
    pub fn of_file(name: &str) -> Dialect {
        if name.ends_with(".tofu") || name.ends_with(".tofu.json") {
            Dialect::OpenTofu
        } else {
            Dialect::Terraform
        }
    }

    /// The product whose releases the dialect's version constraints name.
    pub fn product(self) -> &'static str {
        match self {
            Dialect::Terraform => "Terraform",
            Dialect::OpenTofu => "OpenTofu",
        }
    }
}

/// What a configuration file is, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRole {
    /// A file of the root module: a primary file, or an override file merged into the primary ones.
    Module {
        /// Its grammar.
        syntax: Syntax,
        /// Whether it is an override file (`override.tf`, `*_override.tf` and their other forms).
        is_override: bool,
    },
    /// `liveplan.hcl`, which holds one `live` block.
    Liveplan,
}

/// The configuration file extensions, with the grammar of each, longest first so that `.tf.json` is
/// never taken for `.json`.
const EXTENSIONS: &[(&str, Syntax)] = &[
    (".tofu.json", Syntax::Json),
    (".tf.json", Syntax::Json),
    (".tofu", Syntax::Native),
    (".tf", Syntax::Native),
];

/// The role of the file `name` in a configuration directory, or `None` when it is no configuration file.
/// Names starting with `.` are skipped, as Terraform skips editors' hidden files.
pub fn file_role(name: &str) -> Option<FileRole> {
    if name == LIVEPLAN_FILE {
        return Some(FileRole::Liveplan);
    }
    if name.starts_with('.') {
        return None;
    }
    let (stem, syntax) = EXTENSIONS
        .iter()
        .find_map(|(ext, syntax)| name.strip_suffix(ext).map(|stem| (stem, *syntax)))?;
    if stem.is_empty() {
        return None;
    }
    Some(FileRole::Module {
        syntax,
        is_override: stem == "override" || stem.ends_with("_override"),
    })
}

/// Whether `name` is a `.tf` (or `.tf.json`) file that a `.tofu` (or `.tofu.json`) file of the same base
/// name among `names` shadows, as OpenTofu reads only the `.tofu` one.
pub fn is_shadowed<S: AsRef<str>>(name: &str, names: &[S]) -> bool {
    let shadow = if let Some(stem) = name.strip_suffix(".tf.json") {
        format!("{stem}.tofu.json")
    } else if let Some(stem) = name.strip_suffix(".tf") {
        format!("{stem}.tofu")
    } else {
        return false;
    };
    names.iter().any(|n| n.as_ref() == shadow)
}

/// The configuration files among `names` that are read, in the order given: every file with a role,
/// less the shadowed ones.
pub fn config_file_names<S: AsRef<str>>(names: &[S]) -> Vec<String> {
    names
        .iter()
        .map(AsRef::as_ref)
        .filter(|n| file_role(n).is_some() && !is_shadowed(n, names))
        .map(str::to_owned)
        .collect()
}
