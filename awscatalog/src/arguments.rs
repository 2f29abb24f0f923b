//! The checked-in argument lists: for every served type, each argument, attribute and nested block of
//! the AWS provider v5's documentation (of the release named in each list's header), with what liveplan
//! does with it: `implemented`, `refused` or `deprecated-refused`.
//!
//! The lists live beside the crate as `arguments/<type>.tsv`, one line per entry
//! (`name<TAB>kind<TAB>status<TAB>note`, `#` lines comments, the first naming the release as
//! `# hashicorp/aws vX.Y.Z`), and are compiled in. [`crate::catalog()`] refuses by name every refused
//! top-level entry, so configuring one says that liveplan does not implement it instead of calling it
//! unknown; the crate's tests hold the lists and the schemas to each other.
//!
//! ```
//! use awscatalog::{EntryStatus, argument_list};
//!
//! let bucket = argument_list("aws_s3_bucket").unwrap().unwrap();
//! assert!(bucket.release.starts_with('5'));
//! let acl = bucket.entries.iter().find(|e| e.name == "acl").unwrap();
//! assert_eq!(acl.status, EntryStatus::DeprecatedRefused);
//! ```
//!
//! This module is data and its parser; it must never do I/O at run time.

use std::fmt;

/// What an entry of the provider's documentation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// An argument the configuration sets (`name = value`).
    Argument,
    /// An attribute the provider exports, computed.
    Attribute,
    /// A nested block type (`versioning_configuration { … }`).
    Block,
}

/// What liveplan does with a documented entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryStatus {
    /// Planned, applied and read back as the provider does.
    Implemented,
    /// Refused by name when configured.
    Refused,
    /// Deprecated by the provider's documentation, and refused by name when configured.
    DeprecatedRefused,
}

impl EntryStatus {
    /// Whether configuring the entry is refused.
    pub fn is_refused(self) -> bool {
        self != EntryStatus::Implemented
    }
}

/// One documented argument, attribute or block of a type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentEntry {
    /// Its name; a nested block's own arguments are dotted (`versioning_configuration.status`).
    pub name: &'static str,
    /// Argument, attribute or block.
    pub kind: EntryKind,
    /// What liveplan does with it.
    pub status: EntryStatus,
    /// What to know about it (what to use instead of a refused one); may be empty.
    pub note: &'static str,
}

impl ArgumentEntry {
    /// Whether it is an entry of the resource's top level (not inside a nested block).
    pub fn is_top_level(&self) -> bool {
        !self.name.contains('.')
    }
}

/// The argument list of one type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgumentList {
    /// The type (`aws_s3_bucket`).
    pub type_name: &'static str,
    /// The provider release its header names (`5.70.0`).
    pub release: &'static str,
    /// The entries, in the file's order.
    pub entries: Vec<ArgumentEntry>,
}

/// A line of a list that breaks the format, with its type and line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListError {
    /// The list's type.
    pub type_name: &'static str,
    /// The 1-based line number.
    pub line: usize,
    /// What is wrong.
    pub why: String,
}

impl fmt::Display for ListError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "arguments/{}.tsv line {}: {}",
            self.type_name, self.line, self.why
        )
    }
}

impl std::error::Error for ListError {}

/// The lists as compiled in, by type.
const LISTS: &[(&str, &str)] = &[
    (
        "aws_cloudwatch_log_group",
        include_str!("../arguments/aws_cloudwatch_log_group.tsv"),
    ),
    ("aws_eip", include_str!("../arguments/aws_eip.tsv")),
    (
        "aws_iam_access_key",
        include_str!("../arguments/aws_iam_access_key.tsv"),
    ),
    (
        "aws_iam_role",
        include_str!("../arguments/aws_iam_role.tsv"),
    ),
    (
        "aws_iam_user",
        include_str!("../arguments/aws_iam_user.tsv"),
    ),
    (
        "aws_internet_gateway",
        include_str!("../arguments/aws_internet_gateway.tsv"),
    ),
    ("aws_route", include_str!("../arguments/aws_route.tsv")),
    (
        "aws_route_table",
        include_str!("../arguments/aws_route_table.tsv"),
    ),
    (
        "aws_route_table_association",
        include_str!("../arguments/aws_route_table_association.tsv"),
    ),
    (
        "aws_s3_bucket",
        include_str!("../arguments/aws_s3_bucket.tsv"),
    ),
    (
        "aws_s3_bucket_versioning",
        include_str!("../arguments/aws_s3_bucket_versioning.tsv"),
    ),
    (
        "aws_security_group",
        include_str!("../arguments/aws_security_group.tsv"),
    ),
    ("aws_subnet", include_str!("../arguments/aws_subnet.tsv")),
    ("aws_vpc", include_str!("../arguments/aws_vpc.tsv")),
];

/// The types that have an argument list, sorted.
pub fn listed_types() -> impl Iterator<Item = &'static str> {
    LISTS.iter().map(|(t, _)| *t)
}

/// The argument list of `type_name`: `None` when the type has none, an error when its file breaks the
/// format.
pub fn argument_list(type_name: &str) -> Option<Result<ArgumentList, ListError>> {
    let (name, text) = LISTS.iter().find(|(t, _)| *t == type_name)?;
    Some(parse(name, text))
}

const HEADER: &str = "# hashicorp/aws v";

fn parse(type_name: &'static str, text: &'static str) -> Result<ArgumentList, ListError> {
    let error = |line: usize, why: String| ListError {
        type_name,
        line,
        why,
    };
    let mut lines = text.lines().enumerate();
    let release = lines
        .next()
        .and_then(|(_, l)| l.strip_prefix(HEADER))
        .ok_or_else(|| error(1, format!("the first line must be `{HEADER}X.Y.Z`")))?;
    let mut entries: Vec<ArgumentEntry> = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&'static str> = line.split('\t').collect();
        let (name, kind, status, note) = match fields[..] {
            [n, k, s] => (n, k, s, ""),
            [n, k, s, note] => (n, k, s, note),
            _ => return Err(error(i + 1, "expected 3 or 4 tab-separated fields".into())),
        };
        let kind = match kind {
            "argument" => EntryKind::Argument,
            "attribute" => EntryKind::Attribute,
            "block" => EntryKind::Block,
            other => return Err(error(i + 1, format!("unknown kind {other:?}"))),
        };
        let status = match status {
            "implemented" => EntryStatus::Implemented,
            "refused" => EntryStatus::Refused,
            "deprecated-refused" => EntryStatus::DeprecatedRefused,
            other => return Err(error(i + 1, format!("unknown status {other:?}"))),
        };
        if entries.iter().any(|e| e.name == name) {
            return Err(error(i + 1, format!("{name:?} is listed twice")));
        }
        entries.push(ArgumentEntry {
            name,
            kind,
            status,
            note,
        });
    }
    Ok(ArgumentList {
        type_name,
        release,
        entries,
    })
}
