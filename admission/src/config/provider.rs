//! Provider configurations as written: `provider "aws" { ... }` blocks (any number, told apart by
//! `alias`), the `provider = aws.west` meta-argument that picks one, and the AWS provider's own arguments,
//! each named with what liveplan does with it.
//!
//! The argument table is the AWS provider v5's (pinned to [`AWS_PROVIDER_VERSION`]): every argument and
//! nested block of its documentation is listed with a [`ProviderArgUse`], so an argument is either
//! implemented, used only to reach AWS, or refused by name, and an argument the provider does not have
//! is an error. Nothing here evaluates an expression.

use std::collections::BTreeMap;
use std::fmt;

use super::{Attr, Loc, ProviderKind};

/// The release of the AWS provider whose configuration arguments (and resource argument shapes) this
/// front end follows.
pub const AWS_PROVIDER_VERSION: &str = "5.70.0";

/// What liveplan does with one argument of a `provider "aws"` block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderArgUse {
    /// Acted on by every live system: the region, the account checks, default and ignored tags.
    Implemented,
    /// How to reach AWS (credentials, endpoints, transport): used against AWS, ignored with one warning by
    /// the simulated cloud, which needs none of it.
    Connection,
    /// Accepted and without effect, with the reason (`max_retries`: liveplan retries with its own bounded
    /// policy).
    Inert(&'static str),
    /// Refused with the reason.
    Refused(&'static str),
}

/// One argument (or nested block) of the AWS provider's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderArg {
    /// The argument's name.
    pub name: &'static str,
    /// Whether it is written as a nested block (`assume_role { ... }`) rather than `name = value`.
    pub block: bool,
    /// What liveplan does with it.
    pub use_: ProviderArgUse,
}

const fn arg(name: &'static str, use_: ProviderArgUse) -> ProviderArg {
    ProviderArg {
        name,
        block: false,
        use_,
    }
}

const fn block(name: &'static str, use_: ProviderArgUse) -> ProviderArg {
    ProviderArg {
        name,
        block: true,
        use_,
    }
}

use ProviderArgUse::{Connection, Implemented, Inert};

/// Every argument of the AWS provider's configuration, as its documentation lists them.
pub const AWS_PROVIDER_ARGS: &[ProviderArg] = &[
    arg("access_key", Connection),
    arg("allowed_account_ids", Implemented),
    block("assume_role", Connection),
    block("assume_role_with_web_identity", Connection),
    arg("custom_ca_bundle", Connection),
    block("default_tags", Implemented),
    arg("ec2_metadata_service_endpoint", Connection),
    arg("ec2_metadata_service_endpoint_mode", Connection),
    block("endpoints", Connection),
    arg("forbidden_account_ids", Implemented),
    arg("http_proxy", Connection),
    arg("https_proxy", Connection),
    block("ignore_tags", Implemented),
    arg("insecure", Connection),
    arg(
        "max_retries",
        Inert("liveplan retries throttled and failed calls itself, with one bounded policy"),
    ),
    arg("no_proxy", Connection),
    arg("profile", Connection),
    arg("region", Implemented),
    arg(
        "retry_mode",
        Inert("liveplan retries throttled and failed calls itself, with one bounded policy"),
    ),
    arg("s3_us_east_1_regional_endpoint", Connection),
    arg("s3_use_path_style", Connection),
    arg("secret_key", Connection),
    arg("shared_config_files", Connection),
    arg("shared_credentials_files", Connection),
    arg("skip_credentials_validation", Connection),
    arg("skip_metadata_api_check", Connection),
    arg("skip_region_validation", Connection),
    arg("skip_requesting_account_id", Connection),
    arg("sts_region", Connection),
    arg("token", Connection),
    arg(
        "token_bucket_rate_limiter_capacity",
        Inert("liveplan paces its own calls"),
    ),
    arg("use_dualstack_endpoint", Connection),
    arg("use_fips_endpoint", Connection),
];

/// The arguments of the nested blocks of the AWS provider's configuration that liveplan reads.
pub fn aws_nested_args(block: &str) -> &'static [&'static str] {
    match block {
        "default_tags" => &["tags"],
        "ignore_tags" => &["keys", "key_prefixes"],
        "assume_role" => &[
            "role_arn",
            "session_name",
            "external_id",
            "duration",
            "policy",
            "policy_arns",
            "source_identity",
            "tags",
            "transitive_tag_keys",
        ],
        "assume_role_with_web_identity" => &[
            "role_arn",
            "session_name",
            "duration",
            "policy",
            "policy_arns",
            "web_identity_token",
            "web_identity_token_file",
        ],
        _ => &[],
    }
}

/// The AWS provider argument `name`, if the provider has one.
pub fn aws_provider_arg(name: &str) -> Option<&'static ProviderArg> {
    AWS_PROVIDER_ARGS.iter().find(|a| a.name == name)
}

/// Which provider configuration a resource uses: a local provider name and an optional alias
/// (`aws.west`); the default configuration of the provider when there is no alias.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProviderRef {
    /// The provider's local name (`aws`).
    pub name: String,
    /// The alias (`west`), `None` for the default configuration.
    pub alias: Option<String>,
}

impl ProviderRef {
    /// The default configuration of the provider `name`.
    pub fn default_of(name: impl Into<String>) -> ProviderRef {
        ProviderRef {
            name: name.into(),
            alias: None,
        }
    }
}

impl fmt::Display for ProviderRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.alias {
            Some(alias) => write!(f, "{}.{alias}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// A nested block of a provider configuration (`default_tags`, `assume_role`, `endpoints`): its
/// arguments by name.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderNested {
    /// The arguments.
    pub args: BTreeMap<String, Attr>,
    /// Where the block starts.
    pub loc: Loc,
}

/// One `provider` block: the default configuration of its provider, or with `alias` another one.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderBlock {
    /// Which provider.
    pub kind: ProviderKind,
    /// The local name as written in the label (`aws`).
    pub name: String,
    /// The `alias` argument.
    pub alias: Option<String>,
    /// The `region` argument.
    pub region: Option<Attr>,
    /// Every other argument by name (each one of [`AWS_PROVIDER_ARGS`]).
    pub args: BTreeMap<String, Attr>,
    /// The nested blocks by name (each one of [`AWS_PROVIDER_ARGS`]; `assume_role` may repeat, as the
    /// provider chains the roles in order).
    pub blocks: Vec<(String, ProviderNested)>,
    /// Where the block starts.
    pub loc: Loc,
}

impl ProviderBlock {
    /// The configuration this block declares, as a resource's `provider` argument names it.
    pub fn reference(&self) -> ProviderRef {
        ProviderRef {
            name: self.name.clone(),
            alias: self.alias.clone(),
        }
    }

    /// Every expression of the block: `region`, the other arguments, then the nested blocks' arguments.
    pub fn attrs(&self) -> impl Iterator<Item = &Attr> {
        self.region
            .iter()
            .chain(self.args.values())
            .chain(self.blocks.iter().flat_map(|(_, b)| b.args.values()))
    }

    /// The first nested block named `name`.
    pub fn nested(&self, name: &str) -> Option<&ProviderNested> {
        self.blocks.iter().find(|(n, _)| n == name).map(|(_, b)| b)
    }

    /// Every argument and nested block set in this block that the simulated cloud ignores (what only
    /// serves to reach AWS), by name, in the order of [`AWS_PROVIDER_ARGS`].
    pub fn connection_settings(&self) -> Vec<&'static str> {
        AWS_PROVIDER_ARGS
            .iter()
            .filter(|a| a.use_ == ProviderArgUse::Connection)
            .filter(|a| {
                self.args.contains_key(a.name) || self.blocks.iter().any(|(n, _)| n == a.name)
            })
            .map(|a| a.name)
            .collect()
    }
}
