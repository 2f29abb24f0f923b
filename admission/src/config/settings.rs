//! The `terraform` block's settings as the model keeps them: the `required_version` constraints, the
//! provider requirements by local name, and the `backend` or `cloud` block liveplan accepts and ignores.
//!
//! The model is what the files say, already checked by the parser (constraints parse, sources are the
//! providers liveplan serves); nothing here reads a file or judges a version.

use std::collections::BTreeMap;

use super::expr::Loc;
use super::version::VersionConstraint;

/// Every `terraform` block's settings, merged across files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TerraformSettings {
    /// Each `required_version` with where it is written (the file's dialect says whose releases it
    /// names).
    pub required_versions: Vec<(VersionConstraint, Loc)>,
    /// `required_providers`, by local name.
    pub required_providers: BTreeMap<String, RequiredProvider>,
    /// The `backend` or `cloud` block, if any.
    pub backend: Option<BackendBlock>,
}

/// A provider liveplan serves, as `required_providers` names it by its source address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RequiredSource {
    /// `hashicorp/aws`: the AWS provider (the real cloud or, with `provider "sim"`, the simulated one).
    Aws,
    /// `hashicorp/random`: the `random_*` types, built into the engine.
    Random,
}

impl RequiredSource {
    /// The source address as Terraform writes it in short.
    pub fn as_str(self) -> &'static str {
        match self {
            RequiredSource::Aws => "hashicorp/aws",
            RequiredSource::Random => "hashicorp/random",
        }
    }
}

/// One entry of `required_providers`.
#[derive(Debug, Clone, PartialEq)]
pub struct RequiredProvider {
    /// The provider the local name stands for.
    pub source: RequiredSource,
    /// The `version` constraint, if given (kept; liveplan serves one version of each provider).
    pub version: Option<VersionConstraint>,
    /// The `configuration_aliases` (`aws.west`), as written.
    pub configuration_aliases: Vec<String>,
    /// Where the entry is written.
    pub loc: Loc,
}

/// Which block names a state backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackendKind {
    /// `backend "TYPE" { ... }`.
    Backend(String),
    /// `cloud { ... }` (HCP Terraform).
    Cloud,
}

/// A `backend` or `cloud` block: accepted, with the warning that liveplan keeps no state file.
#[derive(Debug, Clone, PartialEq)]
pub struct BackendBlock {
    /// Which block.
    pub kind: BackendKind,
    /// Where it starts.
    pub loc: Loc,
}
