//! The language level liveplan implements, and Terraform's version constraints (`required_version`,
//! `required_providers`' `version`) judged against it.
//!
//! Versions are the `semver` crate's; the constraint grammar is Terraform's (hashicorp/go-version): a
//! comma-separated list of terms, each an operator (`=`, `!=`, `>`, `>=`, `<`, `<=`, `~>`, or none for
//! `=`) and a version of one to three numbers, every term required. `~>` is the pessimistic operator:
//! `~> 1.2.3` allows `1.2.x` from `1.2.3` up, `~> 1.2` allows `1.x` from `1.2` up. Nothing here reads
//! the configuration: callers hand over the constraint's text.

use std::fmt;
use std::str::FromStr;

use semver::Version;

use super::files::Dialect;

/// The Terraform release whose language liveplan implements: the last release of Terraform 1.9, whose
/// language every 1.9 release shares (a patch release changes no language).
pub const TERRAFORM_VERSION: &str = "1.9.8";

/// What liveplan's language has beyond the level of [`TERRAFORM_VERSION`], each named with the Terraform
/// release that introduced it: configurations that need one of them fail on Terraform 1.9.
pub const LANGUAGE_ADDITIONS: &[&str] = &[
    "`&&` and `||` short-circuit: a left operand that decides the result skips the right (Terraform 1.12)",
];

/// The OpenTofu release of the same language, which the `required_version` of a `.tofu` file names:
/// OpenTofu 1.8 implements the language of Terraform 1.9 (its last 1.8 release).
pub const OPENTOFU_VERSION: &str = "1.8.8";

/// The release of `dialect` whose language liveplan implements.
pub fn implemented_version(dialect: Dialect) -> Version {
    let text = match dialect {
        Dialect::Terraform => TERRAFORM_VERSION,
        Dialect::OpenTofu => OPENTOFU_VERSION,
    };
    // Both constants are literal versions, checked by a test.
    Version::parse(text).unwrap_or_else(|_| Version::new(0, 0, 0))
}

/// A comparison operator of one constraint term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operator {
    Equal,
    NotEqual,
    Greater,
    GreaterEqual,
    Less,
    LessEqual,
    /// `~>`: at least the version, below the next release of its second-to-last written number.
    Pessimistic,
}

/// The operators, longest first so that `>=` is never read as `>`.
const OPERATORS: &[(&str, Operator)] = &[
    ("~>", Operator::Pessimistic),
    (">=", Operator::GreaterEqual),
    ("<=", Operator::LessEqual),
    ("!=", Operator::NotEqual),
    (">", Operator::Greater),
    ("<", Operator::Less),
    ("=", Operator::Equal),
];

/// One term: an operator, a version, and how many of its numbers were written (`~>` depends on it).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Term {
    operator: Operator,
    version: Version,
    written: usize,
}

impl Term {
    /// Whether `v` satisfies the term, comparing by precedence (build metadata ignored).
    fn matches(&self, v: &Version) -> bool {
        let c = &self.version;
        if !c.pre.is_empty() && v.pre.is_empty() && self.operator == Operator::Pessimistic {
            return false;
        }
        if c.pre.is_empty() && !v.pre.is_empty() {
            // A constraint without a pre-release never matches a pre-release, as in go-version.
            return false;
        }
        let order = precedence(v).cmp(&precedence(c));
        match self.operator {
            Operator::Equal => order.is_eq(),
            Operator::NotEqual => order.is_ne(),
            Operator::Greater => order.is_gt(),
            Operator::GreaterEqual => order.is_ge(),
            Operator::Less => order.is_lt(),
            Operator::LessEqual => order.is_le(),
            Operator::Pessimistic => {
                let upper = if self.written <= 2 {
                    (c.major.saturating_add(1), 0, 0)
                } else {
                    (c.major, c.minor.saturating_add(1), 0)
                };
                order.is_ge() && (v.major, v.minor, v.patch) < upper
            }
        }
    }
}

/// What a version is ordered by: its numbers and pre-release, never its build metadata.
fn precedence(v: &Version) -> (u64, u64, u64, &semver::Prerelease) {
    (v.major, v.minor, v.patch, &v.pre)
}

/// A version constraint as Terraform writes it (`">= 1.5, < 2.0"`, `"~> 5.0"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionConstraint {
    text: String,
    terms: Vec<Term>,
}

/// Why a constraint's text is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstraintError {
    /// The term that does not parse.
    pub term: String,
    /// Why.
    pub reason: String,
}

impl fmt::Display for ConstraintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not a version constraint: {}",
            self.term, self.reason
        )
    }
}

impl VersionConstraint {
    /// The constraint as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether `version` satisfies every term.
    pub fn matches(&self, version: &Version) -> bool {
        self.terms.iter().all(|t| t.matches(version))
    }
}

impl fmt::Display for VersionConstraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl FromStr for VersionConstraint {
    type Err = ConstraintError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut terms = Vec::new();
        for raw in text.split(',') {
            let term = raw.trim();
            let fail = |reason: &str| ConstraintError {
                term: term.to_owned(),
                reason: reason.to_owned(),
            };
            let (operator, rest) = OPERATORS
                .iter()
                .find_map(|(op, o)| term.strip_prefix(op).map(|rest| (*o, rest)))
                .unwrap_or((Operator::Equal, term));
            let (version, written) = parse_version(rest.trim()).map_err(|r| fail(&r))?;
            terms.push(Term {
                operator,
                version,
                written,
            });
        }
        Ok(VersionConstraint {
            text: text.trim().to_owned(),
            terms,
        })
    }
}

/// A version of one to three numbers (`1`, `1.9`, `1.9.8`), with an optional `v` before it and a
/// pre-release or build suffix after, and how many numbers it has.
fn parse_version(text: &str) -> Result<(Version, usize), String> {
    let text = text.strip_prefix('v').unwrap_or(text);
    if text.is_empty() {
        return Err("a version is missing".into());
    }
    let numbers_end = text.find(['-', '+']).unwrap_or(text.len());
    let (numbers, suffix) = text.split_at(numbers_end);
    let parts: Vec<&str> = numbers.split('.').collect();
    if parts.len() > 3
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err("write one to three numbers separated by dots, e.g. 1.9.0".into());
    }
    let mut padded = parts.join(".");
    for _ in parts.len()..3 {
        padded.push_str(".0");
    }
    padded.push_str(suffix);
    Version::parse(&padded)
        .map(|v| (v, parts.len()))
        .map_err(|e| e.to_string())
}
